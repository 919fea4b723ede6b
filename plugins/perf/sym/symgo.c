/*
 * The Go application metadata gProfiler's perf profiler adds per Go
 * process (gprofiler/profilers/perf.py, GolangPerfMetadata): the Go
 * version, whether the executable is stripped (it has no .symtab), static
 * or dynamic (a PT_DYNAMIC segment) and, when dynamic, musl (an ld-musl
 * interpreter or mapping) or glibc.  Everything comes from the
 * executable's table, as parsed for symbolizing (once per binary), and
 * the mappings already snapshotted; the only new read is a readlink when
 * no mapping matched the exe's identity.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "symbolize_int.h"

_Static_assert(SYMBOLIZER_GO_VER_MAX == GOBUILDINFO_VER_MAX,
    "one version size");

/* The executable's binary among the image's mappings; NULL if none. */
static struct sym_binary *
sym_go_exe(struct symbolizer *s, struct sym_proc *p)
{
	struct sym_snap *sn = p->snap;
	const char *mp;
	char link[PATH_MAX], path[64];
	ssize_t n;
	size_t i;

	(void)s;
	if (sn == NULL)
		return (NULL);
	for (i = 0; i < sn->maps.n; i++)
		if (sn->bins[i] != NULL && sn->bins[i]->dev == p->exe_dev &&
		    sn->bins[i]->ino == p->exe_ino)
			return (sn->bins[i]);
	/* Identities differ through overlayfs: the path then. */
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	if ((n = readlink(path, link, sizeof(link) - 1)) <= 0)
		return (NULL);
	link[n] = '\0';
	for (i = 0; i < sn->maps.n; i++) {
		mp = procmaps_path(&sn->maps, &sn->maps.v[i]);
		if (sn->bins[i] != NULL && mp != NULL && strcmp(mp, link) == 0)
			return (sn->bins[i]);
	}
	return (NULL);
}

int
symbolizer_go_meta_gen(struct symbolizer *s, int32_t pid, uint32_t gen,
    struct symbolizer_go_meta *m)
{
	const struct elfsym_table *t;
	const char *mp;
	struct sym_proc *p;
	struct sym_binary *b;
	size_t i;

	memset(m, 0, sizeof(*m));
	if ((p = sym_proc_get(s, pid, gen)) == NULL || p->snap == NULL)
		return (-ESRCH);
	/* Only a table a sample already needed: metadata never parses a
	 * binary (a Go process's user frames all lie in its executable). */
	if ((b = sym_go_exe(s, p)) == NULL || !sym_binary_ready(b) ||
	    (t = sym_binary_table(s, b)) == NULL || t->go_buildinfo != 0)
		return (-ENOENT);
	memcpy(m->version, t->go_buildver, sizeof(m->version));
	m->stripped = !t->symtab_sect;
	m->dynamic = t->dynamic;
	m->musl = t->interp_musl;
	/* gProfiler's is_musl: any mapping of ld-musl (the loader). */
	for (i = 0; i < p->snap->maps.n && m->dynamic && !m->musl; i++) {
		mp = procmaps_path(&p->snap->maps, &p->snap->maps.v[i]);
		if (mp != NULL && strstr(mp, "ld-musl") != NULL)
			m->musl = 1;
	}
	return (0);
}
