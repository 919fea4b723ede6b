<?php
// A PHP stack of known depth for bench/php_sample: <main>, recurse() N+1
// times, then spin() forever; "ready" once at the bottom.
// Usage: php php_deep.php N

function spin()
{
	$x = 0;
	for (;;)
		$x = ($x + 1) % 1000003;
}

function recurse($n)
{
	if ($n > 0)
		return recurse($n - 1);
	echo "ready\n";
	spin();
}

recurse((int)($argv[1] ?? 17));
