/*
 * DWARF (CFI) unwinding of a copied user stack with libdw: the registers
 * and the top stack bytes a sample carries become a list of return
 * addresses, leaf first, as bpf_get_stack would have produced with frame
 * pointers.
 */
#ifndef GP_PERF_UNWIND_H
#define GP_PERF_UNWIND_H

#include <stdint.h>

struct symbolizer;
struct unwinder;

struct unwinder *unwinder_new(struct symbolizer *);
void unwinder_free(struct unwinder *);
/*
 * Unwind one sample of pid/tid: regs are SAMPLE_NREGS DWARF-numbered
 * registers, stack the len bytes found at regs[SP].  Writes at most max
 * ips (leaf first); returns their number: at least the sampled pc when
 * regs[IP] is set, even if the process could not be reported (gone).
 */
int unwinder_unwind(struct unwinder *, int32_t pid, int32_t tid,
		    const uint64_t *regs, const uint8_t *stack, uint32_t len,
		    uint64_t *ips, int max);
/* Forget per-process state (module lists go stale as processes dlopen):
 * the number of modules not read this cycle for the CFI budget. */
uint64_t unwinder_cycle_end(struct unwinder *);
/* That budget, in bytes of call frame information held at once. */
#define UNWIND_BUDGET_BYTES	(16u << 20)

#endif
