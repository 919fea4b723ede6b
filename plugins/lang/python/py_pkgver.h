/*
 * Package names and versions for Python frames, as gProfiler writes them
 * (gprofiler/metadata/py_module_version.py; the contract is in
 * docs/COMPAT.md, "Package versions in Python frames"): the parsers, pure
 * functions over bytes (py_pkgver.c), and the per-directory index the
 * plugin builds from the target's filesystem (py_pkgidx.c), within a
 * memory budget (py_pkgtab.c).
 */
#ifndef GP_PY_PKGVER_H
#define GP_PY_PKGVER_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#define PY_DIST_NONE	0
#define PY_DIST_INFO	1	/* NAME-VER.dist-info */
#define PY_DIST_EGG	2	/* NAME-VER[-pyX.Y].egg-info */

/*
 * The next "(FILE.py:LINE)" of a frame at or after `from`, as gProfiler's
 * regex \((?P<filename>[^\)]+?\.py):\d+\) finds it: FILE at
 * [*file, *file + *flen), the closing ')' at *close.  1 found, 0 none.
 */
int py_pkgver_next_module(const char *, size_t, size_t, size_t *,
	    size_t *, size_t *);
/* The packages directory of an absolute path: the length of its prefix
 * up to the last "/site-packages/" (else "/dist-packages/"), slash
 * included; 0 when none. */
size_t py_pkgver_packages_dir(const char *, size_t);
/* A standard library file: /pythonX.Y/ not followed by site-packages or
 * dist-packages (gProfiler's _STANDARD_LIB_PATTERN). */
int py_pkgver_is_stdlib(const char *, size_t);
/* What pkg_resources makes of a directory entry: PY_DIST_*. */
int py_pkgver_dist_kind(const char *);
/*
 * The project name (safe_name: runs of [^A-Za-z0-9.] become '-') and
 * version of a distribution directory's name, as pkg_resources' EGG_NAME
 * splits it.  1 with a version, 0 without (ver ""), -ENAMETOOLONG.
 */
int py_pkgver_dirname(const char *, char *, size_t, char *, size_t);
/*
 * A header of a METADATA / PKG-INFO file (RFC 822 headers up to the first
 * line that is not one, as Python's email parser reads them): the value of
 * the first header whose name is `key` case-insensitively, in *val and *vlen
 * (NULL when none); *exact says whether a header is named exactly `key`.
 * The number of headers read.
 */
int py_pkgver_header(const char *, size_t, const char *, const char **,
	    size_t *, int *);
/* A path as str(pathlib.PurePosixPath(p)) writes it: 0, -ENAMETOOLONG. */
int py_pkgver_norm(const char *, size_t, char *, size_t);
/*
 * The next file of a RECORD (the first CSV field of each line, lines split
 * as str.splitlines, blank lines skipped), normalized, into out; *pos
 * advances.  1 a file, 0 the end, -ENAMETOOLONG a file too long (skipped).
 */
int py_pkgver_record_next(const char *, size_t, size_t *, char *, size_t);
/*
 * The next file of an installed-files.txt, relative to the packages
 * directory (pip's _convert_legacy_entry: entries are relative to the
 * info directory `info`).  Returns as py_pkgver_record_next.
 */
int py_pkgver_legacy_next(const char *, size_t, size_t *, const char *,
	    char *, size_t);

/* --- py_pkgidx.c: the index (plugin only) ------------------------------ */
struct py_pkgidx;
struct py_version;

struct py_pkgidx *py_pkgidx_new(struct gp_plugin_ctx *,
		    const struct gp_host_api *);
void py_pkgidx_free(struct py_pkgidx *);
/* A new stack of pid: queue the packages directories its frames name. */
void py_pkgidx_note(struct py_pkgidx *, pid_t, uint64_t,
		    const char *const *, uint32_t);
/*
 * Only the directories a process of live (sorted: the plugin's processes
 * at a snapshot) named are kept: the others' indexes are freed.
 */
void py_pkgidx_keep(struct py_pkgidx *, const pid_t *, uint32_t);
/*
 * The frame with " [name==version]" before the ')' of each module of a
 * file the index knows, or " [standard-library==X.Y.Z]", into buf; the
 * frame itself when nothing is added or buf is too small.
 */
const char *py_pkgidx_decorate(struct py_pkgidx *, uint64_t,
		    const struct py_version *, const char *, char *, size_t);

#endif
