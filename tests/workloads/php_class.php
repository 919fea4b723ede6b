<?php
// A method called through an internal function (array_map), in a
// namespace (tests/integration/761-php-frames.sh): frames
// "App\Work\Hasher::spin ...", "array_map <internal>:-1", "{closure} ...".
// Usage: php php_class.php SECONDS READYFILE

namespace App\Work;

class Hasher
{
	public function spin($n)
	{
		$x = 0;
		for ($i = 0; $i < $n; $i++)
			$x = ($x * 31 + $i) % 1000003;
		return $x;
	}

	public function run($secs)
	{
		$end = microtime(true) + $secs;
		while (microtime(true) < $end)
			array_map(fn($n) => $this->spin($n), [20000, 20000]);
	}
}

if (isset($argv[2]))
	file_put_contents($argv[2], getmypid() . "\n");
(new Hasher())->run((float)($argv[1] ?? 10));
