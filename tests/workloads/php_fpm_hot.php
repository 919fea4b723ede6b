<?php
// A php-fpm request busy for ?s= seconds in one function
// (tests/integration/760-php-fpm.sh).

function fpmHot($secs)
{
	$end = microtime(true) + $secs;
	$x = 0;
	while (microtime(true) < $end)
		for ($i = 0; $i < 10000; $i++)
			$x = ($x * 31 + $i) % 1000003;
	return $x;
}

echo fpmHot((float)($_GET['s'] ?? 1)), "\n";
