/*
 * Remote memory for the stack reader: every read goes through a readv
 * callback so the decoders run unchanged over a live process
 * (process_vm_readv, never stopping it) or over a fake image in tests and
 * fuzzers.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "langguard.h"
#include "pyreader.h"

#define PY_MEM_BATCH	64	/* iovecs per process_vm_readv call */
#define PY_PAGE		4096
#define PY_PAGES	64	/* direct-mapped: at most 256 KiB per target */

/*
 * A slot's page is allocated when the slot is first used: an idle process
 * sampled now and then reads a handful of pages, and the 256 KiB of a
 * full cache, zeroed for each of the 78 idle Python processes sampled in
 * bench/plugin_cost.sh's case b, were most of the plugin's RSS and a tenth
 * of its CPU (page clearing).
 */
struct py_page {
	uint64_t addr;
	uint32_t gen;	/* valid when equal to the mem's gen */
	uint32_t used;	/* the gen that last used it (the hints) */
	int bad;	/* the page could not be read */
	uint8_t *data;	/* PY_PAGE bytes, NULL until the slot is used */
};

int
py_mem_cache_init(struct py_mem *m)
{
	if (m->pages == NULL &&
	    (m->pages = calloc(PY_PAGES, sizeof(*m->pages))) == NULL)
		return (-ENOMEM);
	m->gen = 1;
	return (0);
}

/* A new sample: everything cached before may have changed. */
void
py_mem_cache_begin(struct py_mem *m)
{
	uint32_t i;

	if (m->pages != NULL && ++m->gen == 0) {
		for (i = 0; i < PY_PAGES; i++)
			m->pages[i].gen = 0;
		m->gen = 1;
	}
}

/*
 * Read the pages the previous sample read, in one call: a busy thread's
 * next sample mostly needs the same thread state, C stack and frame pages
 * (a stack that moved costs the pages it reaches, one read each, as
 * before).  Every page still passes the reader's checks (the guard, page
 * by page); a batch that fails is dropped whole and the sample reads as
 * it would have.  Call right after py_mem_cache_begin.
 */
void
py_mem_cache_prefetch(struct py_mem *m)
{
	struct py_iov iov[PY_MEM_HINTS];
	struct py_page *p;
	uint32_t i, j, k = 0;

	if (m->pages == NULL)
		return;
	m->nhint = m->nseen;
	memcpy(m->hint, m->seen, m->nseen * sizeof(m->hint[0]));
	m->nseen = 0;
	for (i = 0; i < m->nhint; i++) {
		p = &m->pages[(m->hint[i] / PY_PAGE) % PY_PAGES];
		for (j = 0; j < k; j++)	/* two hints, one slot: the first */
			if (iov[j].buf == p->data)
				break;
		if (j < k)
			continue;
		if (p->data == NULL && (p->data = malloc(PY_PAGE)) == NULL)
			return;
		iov[k++] = (struct py_iov){ m->hint[i], p->data, PY_PAGE };
	}
	if (k == 0)
		return;
	m->nreads++;
	if (m->readv(m->arg, iov, k) != 0) {
		m->prefetch_failed++;
		return;
	}
	m->prefetched++;
	for (j = 0; j < k; j++) {
		p = &m->pages[(iov[j].addr / PY_PAGE) % PY_PAGES];
		p->addr = iov[j].addr;
		p->gen = m->gen;
		p->bad = 0;
	}
}

void
py_mem_cache_free(struct py_mem *m)
{
	uint32_t i;

	if (m->pages != NULL)
		for (i = 0; i < PY_PAGES; i++)
			free(m->pages[i].data);
	free(m->pages);
	m->pages = NULL;
}

static int
py_mem_page(struct py_mem *m, uint64_t page, struct py_page **out)
{
	struct py_page *p = &m->pages[(page / PY_PAGE) % PY_PAGES];
	struct py_iov iov;
	int rc;

	if (p->gen == m->gen && p->addr == page) {
		if (p->used != m->gen && p->bad == 0 &&
		    m->nseen < PY_MEM_HINTS)
			m->seen[m->nseen++] = page;
		p->used = m->gen;
		*out = p;
		return (p->bad);
	}
	if (p->data == NULL && (p->data = malloc(PY_PAGE)) == NULL)
		return (-ENOMEM);
	iov = (struct py_iov){ page, p->data, PY_PAGE };
	p->addr = page;
	p->gen = p->used = m->gen;
	m->nreads++;
	rc = m->readv(m->arg, &iov, 1);
	p->bad = rc;
	if (rc == 0 && m->nseen < PY_MEM_HINTS)
		m->seen[m->nseen++] = page;
	*out = p;
	return (rc);
}

/* Serve a small read from whole cached pages. */
static int
py_mem_read_cached(struct py_mem *m, uint64_t addr, void *buf, size_t len)
{
	struct py_page *p;
	uint64_t page, off;
	size_t n;
	uint8_t *dst = buf;
	int rc;

	while (len > 0) {
		page = addr & ~(uint64_t)(PY_PAGE - 1);
		off = addr - page;
		n = PY_PAGE - off < len ? PY_PAGE - off : len;
		if ((rc = py_mem_page(m, page, &p)) != 0)
			return (rc);
		memcpy(dst, p->data + off, n);
		dst += n;
		addr += n;
		len -= n;
	}
	return (0);
}

int
py_mem_readv(struct py_mem *m, const struct py_iov *iov, uint32_t n)
{
	uint32_t i;

	if (n == 0)
		return (0);
	for (i = 0; i < n; i++)
		if (iov[i].addr == 0 || iov[i].addr + iov[i].len < iov[i].addr)
			return (-EFAULT);
	m->nreads++;
	return (m->readv(m->arg, iov, n));
}

int
py_mem_read(struct py_mem *m, uint64_t addr, void *buf, size_t len)
{
	struct py_iov iov = { addr, buf, len };

	if (m->pages != NULL && len <= 2 * PY_PAGE && addr != 0 &&
	    addr + len > addr)
		return (py_mem_read_cached(m, addr, buf, len));
	return (py_mem_readv(m, &iov, 1));
}

int
py_mem_read_ptr(struct py_mem *m, uint64_t addr, uint64_t *out)
{
	uint8_t b[8];
	int rc;

	if ((rc = py_mem_read(m, addr, b, sizeof(b))) != 0)
		return (rc);
	*out = py_u64(b, 0);
	return (0);
}

/*
 * process_vm_readv stops at the first remote element it cannot read and
 * reports the bytes moved, so a short total means failure of that sample.
 */
int
py_mem_proc_readv(void *arg, const struct py_iov *iov, uint32_t n)
{
	struct iovec local[PY_MEM_BATCH], remote[PY_MEM_BATCH];
	struct langguard *g = arg;
	uint32_t i, k;
	size_t want;
	ssize_t got;
	int rc;

	/* Every element, before any is read: the batch is one syscall. */
	langguard_batch(n > 1);
	for (i = 0; i < n; i++)
		if ((rc = langguard_check(g, iov[i].addr, iov[i].len)) != 0) {
			langguard_batch(0);
			/* a guard that found no /proc entry: the process is
			 * gone, which callers know as -ESRCH */
			if (rc != -EREMOTE && kill(g->pid, 0) != 0 &&
			    errno == ESRCH)
				return (-ESRCH);
			return (rc);
		}
	langguard_batch(0);
	for (i = 0; i < n; i += k) {
		want = 0;
		for (k = 0; k < PY_MEM_BATCH && i + k < n; k++) {
			local[k].iov_base = iov[i + k].buf;
			local[k].iov_len = iov[i + k].len;
			remote[k].iov_base = (void *)(uintptr_t)iov[i + k].addr;
			remote[k].iov_len = iov[i + k].len;
			want += iov[i + k].len;
		}
		got = process_vm_readv(g->pid, local, k, remote, k, 0);
		if (got < 0)
			return (errno == ESRCH ? -ESRCH :
			    errno == EPERM ? -EPERM : -EFAULT);
		if ((size_t)got != want)
			return (-EFAULT);
	}
	return (0);
}
