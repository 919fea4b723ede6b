/*
 * Java workload with known hot methods for the java plugin's tests
 * (tests/integration/7x-java-*.sh): HotLoop.spin -> HotLoop.mix, busy from
 * the first instruction so the JIT compiles them within a second.  Runs for
 * argv[0] seconds (default 20).
 */
public class HotLoop {
	static volatile long sink;

	static long mix(long x) {
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005L + 1442695040888963407L ^
			    (x >>> 17);
		return x;
	}

	static long spin(long x) {
		for (int i = 0; i < 100; i++)
			x = mix(x + i);
		return x;
	}

	static void run(long secs) {
		long end = System.nanoTime() + secs * 1000000000L;
		long x = 1;

		while (System.nanoTime() < end)
			x = spin(x);
		sink = x;
	}

	public static void main(String[] args) throws InterruptedException {
		long secs = args.length > 0 ? Long.parseLong(args[0]) : 20;

		/* "thread": the work in a thread named hot-worker, main waits */
		if (args.length > 1 && args[1].equals("thread")) {
			Thread t = new Thread(() -> run(secs), "hot-worker");

			t.start();
			t.join();
		} else
			run(secs);
	}
}
