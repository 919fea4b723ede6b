// Node.js workload with a known hot function for the perf-map test
// (tests/integration/720-node-perfmap.sh): hotNodeWork runs for
// process.argv[2] seconds (default 20), called from hotNodeOuter.
'use strict';
let sink = 0;

function hotNodeWork(n) {
	let x = 0;
	for (let i = 0; i < n; i++)
		x = (x * 31 + i) % 1000003;
	return x;
}

function hotNodeOuter() {
	return hotNodeWork(200000);
}

const secs = Number(process.argv[2] || 20);
const end = Date.now() + secs * 1000;
while (Date.now() < end)
	sink += hotNodeOuter();
console.log(sink > 0 ? 'done' : 'done.');
