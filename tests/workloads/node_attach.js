// Node.js workload for --nodejs-mode attach-maps
// (tests/integration/770-node-attach.sh): a server-like process started
// without --perf-basic-prof whose event loop runs hotAttachWork (called
// from hotAttachOuter) every millisecond for process.argv[2] seconds
// (default 30).  Both are compiled long before the agent attaches.
'use strict';
let sink = 0;

// Over 460 bytes of bytecode (513 in node 20): TurboFan never inlines
// it, so its own name stays on the stack.
function hotAttachWork(n) {
	let x = 0, y = 1, z = 2, w = 3;
	for (let i = 0; i < n; i++) {
		x = (x * 31 + i) % 1000003;
		y = (y * 17 + x) % 999983;
		z = (z * 13 + y) % 999979;
		w = (w * 7 + z) % 999961;
		if ((i & 1023) === 0) {
			x ^= w; y ^= z; z ^= x; w ^= y;
			x = (x + y + z + w) % 1000003;
			y = (y * 3 + 1) % 999983;
			z = (z * 5 + 2) % 999979;
			w = (w * 11 + 3) % 999961;
		}
		if ((i & 2047) === 0) {
			x = (x * 41 + z) % 1000003;
			y = (y * 43 + w) % 999983;
			z = (z * 47 + x) % 999979;
			w = (w * 53 + y) % 999961;
			x = (x + 7) % 1000003;
			y = (y + 11) % 999983;
		}
		if ((i & 4095) === 0) {
			x = (x * 29 + w) % 1000003;
			y = (y * 23 + z) % 999983;
			z = (z * 19 + y) % 999979;
			w = (w * 37 + x) % 999961;
		}
	}
	return x + y + z + w;
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
