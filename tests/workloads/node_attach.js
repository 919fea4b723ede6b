// Node.js workload for --nodejs-mode attach-maps
// (tests/integration/77-node-attach.sh): a server-like process started
// without --perf-basic-prof whose event loop runs hotAttachWork (called
// from hotAttachOuter) every millisecond for process.argv[2] seconds
// (default 30).  Both are compiled long before the agent attaches.
'use strict';
let sink = 0;

function hotAttachWork(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x = (x * 31 + i) % 1000003;
	return x;
}

function hotAttachOuter() {
	return hotAttachWork(200000);
}

const secs = Number(process.argv[2] || 30);
const end = Date.now() + secs * 1000;
const t = setInterval(() => {
	for (let k = 0; k < 5; k++)
		sink += hotAttachOuter();
	if (Date.now() >= end) {
		clearInterval(t);
		console.log(sink > 0 ? 'done' : 'done.');
	}
}, 1);
