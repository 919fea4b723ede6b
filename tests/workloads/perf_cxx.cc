/*
 * A C++ workload: the hot code is a member of a class template in a
 * namespace, so its symbol is mangled
 * (_ZN6gpwork7SpinnerIiE4spinEm) and must show demangled as perf script
 * shows it: "gpwork::Spinner<int>::spin".
 *
 *	perf_cxx [-t seconds]
 */
#include <chrono>
#include <cstdint>
#include <cstdlib>

namespace gpwork {

volatile uint64_t sink;

template <typename T>
class Spinner {
public:
	__attribute__((noinline)) uint64_t spin(unsigned long n);
};

__attribute__((noinline)) void
note(uint64_t x)
{
	sink = x;
}

template <typename T>
uint64_t
Spinner<T>::spin(unsigned long n)
{
	uint64_t x = 1;

	for (unsigned long i = 0; i < n; i++) {
		x = x * 6364136223846793005ull + 1;
		__asm__ volatile("" : "+r"(x));
	}
	note(x);
	return x;
}

template class Spinner<int>;

}	// namespace gpwork

int
main(int argc, char **argv)
{
	double secs = argc > 2 ? atof(argv[2]) : 5;
	auto end = std::chrono::steady_clock::now() +
	    std::chrono::duration<double>(secs);
	gpwork::Spinner<int> s;

	while (std::chrono::steady_clock::now() < end)
		s.spin(1000000);
	return 0;
}
