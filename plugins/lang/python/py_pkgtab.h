/*
 * The memory of the package-version index (py_pkgidx.c), as pure
 * functions the unit tests drive byte by byte: the table of one packages
 * directory (file -> distribution) that counts every byte it holds, the
 * window a file list is parsed through (so a list costs a fixed buffer,
 * whatever its size), and which directory gives way when the index is
 * full.
 */
#ifndef GP_PY_PKGTAB_H
#define GP_PY_PKGTAB_H

#include <stddef.h>
#include <stdint.h>

#define PY_PKGTAB_CHUNK	(64u * 1024)	/* arena chunks: names and tags */

struct py_pkgkey {
	uint64_t hash;
	const char *key;	/* in the arena; NULL: empty slot */
	uint32_t len;
	uint32_t dist;
};

struct py_pkgchunk;

struct py_pkgtab {
	struct py_pkgkey *slots;
	uint32_t cap, used;
	struct py_pkgchunk *chunks;	/* newest first */
	size_t bytes;			/* slots and chunks: all it holds */
};

/*
 * A copy of n bytes (NUL-terminated) in the table's arena, or NULL when
 * it would take the table past `limit` bytes (or out of memory).
 */
const char *py_pkgtab_store(struct py_pkgtab *, const char *, size_t,
		    size_t limit);
/*
 * k -> dist unless k is there (the first distribution listing a file
 * keeps it): 1 added, 0 there already, -ENOSPC past `limit` bytes,
 * -ENOMEM.
 */
int py_pkgtab_add(struct py_pkgtab *, const char *, size_t,
		    uint32_t dist, size_t limit);
/* The distribution of k, or -1. */
/* FNV-1a of n bytes: the table's hash, and the index's for its
 * directories. */
uint64_t py_pkgtab_hash(const char *, size_t);
int64_t py_pkgtab_find(const struct py_pkgtab *, const char *,
		    size_t);
/* Everything freed; the table is empty (bytes 0) and usable again. */
void py_pkgtab_clear(struct py_pkgtab *);

/*
 * A RECORD or installed-files.txt read through a window of `cap` bytes:
 * the caller points buf at it, calls py_pkglist_start, then alternates
 * py_pkglist_next with feeding bytes (py_pkglist_room, then
 * py_pkglist_fed).  A record is parsed only once the window holds its end
 * (a quoted RECORD field may span lines), so the files come out as
 * py_pkgver_record_next / py_pkgver_legacy_next give them from the whole
 * file; a line longer than the window is skipped (-ENAMETOOLONG once).
 */
struct py_pkglist {
	char *buf;
	size_t cap;
	size_t len, pos;	/* bytes in buf; parsed up to */
	int eof;		/* no byte will come after buf's */
	int legacy;		/* installed-files.txt */
	int skipping;		/* the rest of an over-long line */
	const char *info;	/* its distribution directory */
	uint64_t fed;		/* bytes of the file so far */
	uint32_t records;	/* files returned or skipped */
};

void py_pkglist_start(struct py_pkglist *, int legacy, const char *info);
/*
 * The next file, into out: 1; -ENAMETOOLONG one skipped; 0 none until
 * more bytes come (or, once fed 0, the end).
 */
int py_pkglist_next(struct py_pkglist *, char *out, size_t outlen);
/* Where the next bytes go and how many fit (the parsed ones dropped). */
char *py_pkglist_room(struct py_pkglist *, size_t *);
/* n bytes were written at py_pkglist_room; 0: the end of the file. */
void py_pkglist_fed(struct py_pkglist *, size_t n);

/*
 * Which directory gives way when the index is full: among those holding
 * more than `self` (the one that needs the room), so that a directory
 * can only grow at the expense of a larger one, the least recently used
 * one that may go (read, or failed: not one being read).  Its index, or
 * -1: then self stops growing.
 */
struct py_pkguse {
	double used_at;
	size_t bytes;
	int evictable;
};

int py_pkgbudget_victim(const struct py_pkguse *, uint32_t n,
	    uint32_t self);

#endif
