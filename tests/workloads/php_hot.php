<?php
// Two hot functions with a known split (tests/integration/761-php-frames.sh):
// each chunk of work is the same loop, given to hotPhpA with probability
// 0.7 and to hotPhpB otherwise, so the truth is 70/30 of the CPU time.
// Usage: php php_hot.php SECONDS READYFILE

function hotPhpA($n)
{
	$x = 0;
	for ($i = 0; $i < $n; $i++) {
		$x = ($x * 31 + $i) % 1000003;
	}
	return $x;
}

function hotPhpB($n)
{
	$x = 0;
	for ($i = 0; $i < $n; $i++) {
		$x = ($x * 31 + $i) % 1000003;
	}
	return $x;
}

$secs = (float)($argv[1] ?? 10);
if (isset($argv[2]))
	file_put_contents($argv[2], getmypid() . "\n");
mt_srand(12345);
$end = microtime(true) + $secs;
$sum = 0;
while (microtime(true) < $end) {
	if (mt_rand(1, 100) <= 70)
		$sum += hotPhpA(20000);
	else
		$sum += hotPhpB(20000);
}
echo $sum, "\n";
