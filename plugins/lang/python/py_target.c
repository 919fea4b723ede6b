/*
 * Attaching to one Python process (docs/specs/cpython.md §1, §3, §4): find the
 * object holding the interpreter in its maps, open that file through
 * /proc/PID/map_files or /proc/PID/root (the target's mount namespace),
 * take _PyRuntime from its ELF symbols, establish the version and offsets
 * and validate them with a trial read.  Nothing here stops the target.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "langattach.h"
#include "langproc.h"
#include "procexe.h"
#include "py_target.h"

static int
py_elf_read_any(int fd, void *pe)
{
	return (py_elf_read_fd(fd, pe));
}

/* The symbol tables of libpython hold tens of thousands of symbols: found
 * from samples, 78 of 100 idle Python processes were attached in a minute
 * (bench/plugin_cost.sh, case b), each file read once (langattach.h). */
static struct py_elf py_elf_facts[LANGATTACH_CACHE];
static struct langattach_elf py_elf_files = {
	.read = py_elf_read_any,
	.size = sizeof(struct py_elf),
	.facts = py_elf_facts,
};

void
py_set_opener(langproc_open_fn fn, void *arg)
{
	langproc_set_opener(fn, arg);
}

struct py_object {
	uint64_t start, end;	/* the mapping at file offset 0 */
	uint64_t lo, hi;	/* all its executable mappings */
	uint64_t inode;
	char path[512];
	int found;
};

static void
py_object_set(struct py_object *ob, const struct py_map *m)
{
	size_t n = m->pathlen < sizeof(ob->path) - 1 ? m->pathlen :
	    sizeof(ob->path) - 1;

	ob->start = m->start;
	ob->end = m->end;
	ob->inode = m->inode;
	memcpy(ob->path, m->path, n);
	ob->path[n] = '\0';
	ob->found = 1;
}

/* Widen ob's code span by m, a mapping of the same file. */
static void
py_object_span(struct py_object *ob, const struct py_map *m)
{
	if (!ob->found || m->inode != ob->inode ||
	    m->pathlen != strlen(ob->path) ||
	    memcmp(m->path, ob->path, m->pathlen) != 0)
		return;
	if (ob->lo == ob->hi || m->start < ob->lo)
		ob->lo = m->start;
	if (m->end > ob->hi)
		ob->hi = m->end;
}

/* libpython3.* if mapped (shared builds, embedders), and the executable. */
static void
py_find_objects(const char *maps, size_t len, uint64_t exe_ino,
    struct py_object *lib, struct py_object *exe)
{
	const char *line = maps, *nl, *base;
	struct py_map m;

	while (line < maps + len) {
		nl = memchr(line, '\n', (size_t)(maps + len - line));
		if (nl == NULL)
			nl = maps + len;
		if (py_proc_parse_map_line(line, (size_t)(nl - line), &m) ==
		    0 && m.path != NULL && m.offset == 0 && m.path[0] == '/') {
			base = m.path + m.pathlen;
			while (base > m.path && base[-1] != '/')
				base--;
			if (!lib->found && (size_t)(m.path + m.pathlen - base) >
			    11 && memcmp(base, "libpython3.", 11) == 0)
				py_object_set(lib, &m);
			if (!exe->found && m.inode == exe_ino)
				py_object_set(exe, &m);
		}
		/* the object's code, mapped after its first page */
		if (py_proc_parse_map_line(line, (size_t)(nl - line), &m) ==
		    0 && m.path != NULL && m.perms[2] == 'x') {
			py_object_span(lib, &m);
			py_object_span(exe, &m);
		}
		line = nl + 1;
	}
}

static void
py_buildid_text(const struct py_elf *pe, char *out, size_t len)
{
	size_t i, o;

	if (pe->build_id_len == 0) {
		out[0] = '\0';
		return;
	}
	o = (size_t)snprintf(out, len, "buildid:");
	for (i = 0; i < pe->build_id_len && o + 3 <= len; i++)
		o += (size_t)snprintf(out + o, len - o, "%02x",
		    pe->build_id[i]);
}

/* §4: the cookie, Py_Version, sys.version, then the file name. */
static int
py_detect_version(struct py_target *t, const struct py_elf *pe,
    uint64_t bias, char *why, size_t whylen)
{
	uint8_t dbg[PY_DEBUG_OFFSETS_SIZE];
	struct py_version fv;
	char vbuf[129];
	uint64_t hex;
	int have_fv, rc;

	have_fv = py_version_from_filename(t->object, &fv) == 0;
	if ((rc = py_mem_read(&t->mem, t->runtime, dbg, sizeof(dbg))) != 0) {
		snprintf(why, whylen, "cannot read _PyRuntime: %s",
		    strerror(-rc));
		return (rc);
	}
	if (memcmp(dbg, "xdebugpy", 8) == 0) {
		if (py_version_from_hex(py_u64(dbg, 8), &t->ver) != 0)
			goto unknown;
	} else if (pe->py_version != 0 && (pe->has_py_version_value ?
	    (hex = pe->py_version_value, 0) :
	    py_mem_read_ptr(&t->mem, bias + pe->py_version, &hex)) == 0 &&
	    py_version_from_hex(hex, &t->ver) == 0) {
		;
	} else if (pe->version_buf != 0 && py_mem_read(&t->mem,
	    bias + pe->version_buf, vbuf, sizeof(vbuf) - 1) == 0 &&
	    (vbuf[128] = '\0', py_version_from_string(vbuf, strlen(vbuf),
	    &t->ver)) == 0) {
		;
	} else if (have_fv)
		t->ver = fv;
	else
		goto unknown;
	if (have_fv) {
		t->ver.free_threaded |= fv.free_threaded;
		t->ver.debug |= fv.debug;
	}
	if ((rc = py_version_supported(&t->ver, why, whylen)) != 0)
		return (rc);
	if (t->ver.minor >= 13) {
		/* Trust the target's own description; refuse a mismatch. */
		rc = py_offsets_from_debug(dbg, sizeof(dbg), t->ver.minor,
		    &t->off, why, whylen);
		return (rc != 0 ? -ENOTSUP : 0);
	}
	return (py_offsets_for_version(t->ver.major, t->ver.minor, &t->off));
unknown:
	snprintf(why, whylen, "unknown Python version in %s", t->object);
	return (-ENOTSUP);
}

/* A trial read: the first thread state must point back at its interp. */
static int
py_validate(struct py_target *t, char *why, size_t whylen)
{
	struct py_tstate ts;
	uint64_t interp, first, next;
	int rc;

	if ((rc = py_walk_first_tstate(&t->mem, &t->off, t->runtime, &interp,
	    &first)) != 0 || first == 0)
		goto out;
	if ((rc = py_walk_tstate(&t->mem, &t->off, first, &ts, &next)) == 0 &&
	    ts.interp != interp)
		rc = -EINVAL;
out:
	if (rc == -EINVAL)
		snprintf(why, whylen, "Python %d.%d layout does not match "
		    "(interpreter state validation failed)", t->ver.major,
		    t->ver.minor);
	else if (rc != 0)
		snprintf(why, whylen, "cannot read interpreter state: %s",
		    rc == -EREMOTE ? t->guard.why : strerror(-rc));
	return (rc == -EINVAL ? -ENOTSUP : rc);
}

/*
 * 0: attached.  -ENOTSUP: skip the process (reason in why); -ENOENT: no
 * interpreter here (skip); other -errno: profiling error (reason in why).
 */
int
py_target_attach(pid_t pid, struct py_target *t, char *why, size_t whylen)
{
	char *maps;
	size_t len;
	int rc;

	if ((maps = langproc_read_maps(pid, &len)) == NULL) {
		memset(t, 0, sizeof(*t));
		if (errno == EAGAIN) {
			snprintf(why, whylen, "maps read deferred (budget)");
			return (-EINPROGRESS);	/* tried again */
		}
		snprintf(why, whylen, "cannot read maps");
		return (-ESRCH);
	}
	rc = py_target_attach_maps(pid, t, maps, len, why, whylen);
	free(maps);
	return (rc);
}

/* The same with pid's maps already read. */
int
py_target_attach_maps(pid_t pid, struct py_target *t, const char *maps,
    size_t len, char *why, size_t whylen)
{
	struct py_object lib = { 0 }, exe = { 0 }, *ob;
	struct py_elf pe, exe_pe;
	struct stat st;
	uint64_t bias;
	int fd, rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->mem.readv = py_mem_proc_readv;
	t->mem.arg = &t->guard;
	if ((rc = langguard_init(&t->guard, pid, maps, len)) != 0)
		return (langattach_guard_failed(rc, why, whylen));
	(void)procexe_stat(pid, &st);	/* st_ino 0 if unknown */
	py_find_objects(maps, len, (uint64_t)st.st_ino, &lib, &exe);
	ob = lib.found ? &lib : &exe;
	if (!ob->found) {
		snprintf(why, whylen, "no Python interpreter found");
		return (-ENOENT);
	}
	t->in_lib = lib.found;
	t->code_lo = ob->lo;
	t->code_hi = ob->hi;
	snprintf(t->object, sizeof(t->object), "%s", ob->path);
	if ((fd = langattach_open(pid, ob->start, ob->end, ob->path,
	    !lib.found, why, whylen)) < 0)
		return (fd);
	if ((rc = langattach_read(&py_elf_files, fd, ob->path, &pe, why,
	    whylen)) < 0)
		return (rc);
	if (rc != 0) {
		/* Python 2 and 3 before 3.7 have no _PyRuntime: say which
		 * version is not supported, from the file's name, rather
		 * than that no interpreter was found. */
		if (py_version_from_filename(ob->path, &t->ver) == 0 &&
		    py_version_supported(&t->ver, why, whylen) != 0)
			return (-ENOTSUP);
		snprintf(why, whylen, "no Python interpreter found (%s has "
		    "no _PyRuntime)", ob->path);
		return (-ENOENT);
	}
	py_buildid_text(&pe, lib.found ? t->lib_buildid : t->exe_buildid,
	    sizeof(t->exe_buildid));
	if (lib.found && exe.found && (fd = langproc_open_object(pid,
	    exe.start, exe.end, exe.path, 1)) >= 0) {
		if (langattach_elf_read(&py_elf_files, fd, &exe_pe) != -ENOEXEC)
			py_buildid_text(&exe_pe, t->exe_buildid,
			    sizeof(t->exe_buildid));
		close(fd);
	}
	bias = ob->start - pe.first_load_vaddr;
	t->runtime = bias + pe.runtime;
	t->code_type = pe.code_type != 0 ? bias + pe.code_type : 0;
	if ((rc = py_detect_version(t, &pe, bias, why, whylen)) != 0)
		return (rc);
	if ((rc = py_validate(t, why, whylen)) != 0)
		return (rc);
	/* The code and page caches and the frames' scratch (half a MiB)
	 * come with the first sample (py_sample.c): found from samples,
	 * most processes attached are idle ones caught once, never read
	 * again. */
	return (0);
}

int
py_target_caches(struct py_target *t)
{
	struct py_scratch *s = &t->scratch;

	if (t->codes == NULL && (t->codes = py_code_cache_new()) == NULL)
		return (-ENOMEM);
	if (s->frames == NULL &&
	    (s->frames = calloc(PY_MAX_FRAMES, sizeof(*s->frames))) == NULL)
		return (-ENOMEM);
	if (s->ptrs == NULL &&
	    (s->ptrs = calloc(PY_MAX_FRAMES, sizeof(*s->ptrs))) == NULL)
		return (-ENOMEM);
	/* once: py_mem_cache_init starts the generations over */
	return (t->mem.pages == NULL ? py_mem_cache_init(&t->mem) : 0);
}

void
py_target_idle(struct py_target *t)
{
	py_code_cache_free(t->codes);
	t->codes = NULL;
	py_mem_cache_free(&t->mem);
	py_scratch_free(&t->scratch);
}

void
py_target_release(struct py_target *t)
{
	if (t == NULL)
		return;
	py_target_idle(t);
	langguard_free(&t->guard);
}

/* State letter of one thread; -ENOENT when the task does not exist. */
int
py_task_state(pid_t pid, int32_t tid, char *state)
{
	char path[64], buf[1024];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)pid,
	    (int)tid);
	if ((n = langproc_read_small_file(path, buf, sizeof(buf))) < 0)
		return ((int)n);
	return (py_proc_stat_state(buf, (size_t)n, state, NULL));
}
