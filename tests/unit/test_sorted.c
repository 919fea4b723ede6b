/* Unit tests of lib/sorted.h, the binary search of the address tables. */
#include "config.h"

#include <stddef.h>
#include <stdint.h>

#include "sorted.h"
#include "testing.h"

/* A record whose key is not its first field, nor its size 8. */
struct range {
	uint32_t tag;
	uint64_t start;
	uint16_t len;
};

static size_t
upper_ranges(const struct range *r, size_t n, uint64_t key)
{
	return (sorted_upper(r, n, sizeof(*r), offsetof(struct range,
	    start), key));
}

int
main(void)
{
	static const uint64_t a[] = { 10, 20, 20, 30, UINT64_MAX };
	static const struct range r[] = {
		{ 7, 0x1000, 1 }, { 8, 0x2000, 2 }, { 9, 0x3000, 3 },
	};
	uint64_t key;
	size_t n, naive, i;
	int bad = 0;

	CHECK_INTEQ((int)sorted_upper(a, 0, 8, 0, 99), 0, "empty: none");
	CHECK_INTEQ((int)sorted_upper(a, 4, 8, 0, 9), 0, "below all: none");
	CHECK_INTEQ((int)sorted_upper(a, 4, 8, 0, 10), 1, "equal to the first");
	CHECK_INTEQ((int)sorted_upper(a, 4, 8, 0, 20), 3,
	    "equal keys: after the last of them");
	CHECK_INTEQ((int)sorted_upper(a, 4, 8, 0, 29), 3, "between");
	CHECK_INTEQ((int)sorted_upper(a, 4, 8, 0, 1000), 4, "above all");
	CHECK_INTEQ((int)sorted_upper(a, 5, 8, 0, UINT64_MAX), 5,
	    "the largest key counts");
	CHECK_INTEQ((int)upper_ranges(r, 3, 0x1fff), 1, "a record's key at "
	    "its offset");
	CHECK_INTEQ((int)upper_ranges(r, 3, 0x3000), 3, "the last record");
	CHECK_INTEQ((int)upper_ranges(r, 3, 0xfff), 0, "before the first");

	/* every key from 0 to 40 against a plain count */
	for (key = 0; key <= 40; key++) {
		for (n = 0; n <= 4; n++) {
			for (naive = 0, i = 0; i < n; i++)
				naive += a[i] <= key;
			bad |= sorted_upper(a, n, 8, 0, key) != naive;
		}
	}
	CHECK(!bad, "every key and length agree with a plain count");
	return (testing_done());
}
