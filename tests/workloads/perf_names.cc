/*
 * Names as perf script shows them (tests/integration/241-perf-names.sh):
 * C++ template members and GCC clones (".constprop.0", ".isra.0"; built at
 * -O2 so GCC makes them), clock_gettime through the vDSO, clock_nanosleep
 * through glibc's versioned aliases, and threads named with
 * pthread_setname_np, hostile names included (';', a newline, a byte that
 * is not UTF-8).
 *
 *	perf_names [-t seconds] [-n threads]
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gpwork {

volatile uint64_t sink;
static volatile int stop;

struct Big {
	uint64_t a[16];
	uint64_t pick;
};

template <typename T> struct Matrix {
	__attribute__((noinline)) T sum(const std::vector<T> &w, int k) const;
};

template <typename T>
T
Matrix<T>::sum(const std::vector<T> &w, int k) const
{
	T s = 0;

	for (int r = 0; r < 200; r++)
		for (size_t i = 0; i < w.size(); i++)
			s += w[i] * (T)k + (T)r;
	return s;
}

template struct Matrix<double>;
template struct Matrix<long>;

/* Only b.pick is read and n is always the same: GCC makes
 * isra_leaf.constprop.0.isra.0 of it. */
static __attribute__((noinline)) uint64_t
isra_leaf(const Big &b, unsigned long n)
{
	uint64_t x = b.pick;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

/* Called with a constant: cprop_leaf.constprop.0. */
static __attribute__((noinline)) uint64_t
cprop_leaf(unsigned long n, int mul)
{
	uint64_t x = 1;

	for (unsigned long i = 0; i < n; i++) {
		x = x * (uint64_t)mul + 1;
		__asm__ volatile("" : "+r"(x));
	}
	return x;
}

__attribute__((noinline)) void
vdso_loop(int n)
{
	struct timespec ts;

	/*
	 * CLOCK_MONOTONIC_COARSE is read inline in __vdso_clock_gettime.
	 * CLOCK_MONOTONIC under kvm-clock spends most of its time in the
	 * vDSO's vread_pvclock, an out-of-line static function with no
	 * symbol and no frame (perf names it "[unknown]", we "(vdso)", and
	 * the fp chain skips __vdso_clock_gettime): on a loaded VM its retry
	 * loop took nearly every vDSO sample and left no named one.
	 */
	for (int i = 0; i < n; i++) {
		clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	sink = (uint64_t)ts.tv_nsec;
}

__attribute__((noinline)) void
nanosleep_loop(int n)
{
	struct timespec ts = { 0, 1 };

	for (int i = 0; i < n; i++)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

/* A named thread: a short burst every 20 ms, so many threads share the
 * CPUs without taking them. */
static void *
named_thread(void *arg)
{
	const char *name = (const char *)arg;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	/* The hostile few burn more, so each is sampled for sure. */
	unsigned long burst = strncmp(name, "gpw-", 4) == 0 ? 50000 : 400000;

	pthread_setname_np(pthread_self(), name);
	while (!stop) {
		sink = cprop_leaf(burst, 7);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

}	// namespace gpwork

int
main(int argc, char **argv)
{
	static const char *const hostile[] = { "semi;colon", "new\nline",
	    "bad\xff" "byte", "ctl\x0b\x1e" };
	double secs = 5;
	int nthreads = 0, c;
	std::vector<pthread_t> tids;
	std::vector<char *> names;

	while ((c = getopt(argc, argv, "t:n:")) != -1) {
		if (c == 't')
			secs = atof(optarg);
		else if (c == 'n')
			nthreads = atoi(optarg);
	}
	for (int i = 0; i < nthreads + 4 && nthreads > 0; i++) {
		char *name = (char *)malloc(16);
		pthread_t t;

		if (i < nthreads)
			snprintf(name, 16, "gpw-%03d", i);
		else
			snprintf(name, 16, "%s", hostile[i - nthreads]);
		if (pthread_create(&t, NULL, gpwork::named_thread, name) != 0)
			break;
		tids.push_back(t);
		names.push_back(name);
	}
	auto end = std::chrono::steady_clock::now() +
	    std::chrono::duration<double>(secs);
	gpwork::Big b{};
	gpwork::Matrix<double> md;
	gpwork::Matrix<long> ml;
	std::vector<double> wd(500, 1.5);
	std::vector<long> wl(500, 3);

	b.pick = (uint64_t)argc;
	while (std::chrono::steady_clock::now() < end) {
		gpwork::sink = gpwork::isra_leaf(b, 1000000);
		gpwork::sink = gpwork::cprop_leaf(1000000, 7);
		gpwork::sink = (uint64_t)md.sum(wd, argc);
		gpwork::sink = (uint64_t)ml.sum(wl, argc);
		gpwork::vdso_loop(20000);
		gpwork::nanosleep_loop(200);
	}
	gpwork::stop = 1;
	for (pthread_t t : tids)
		pthread_join(t, NULL);
	for (char *n : names)
		free(n);
	return 0;
}
