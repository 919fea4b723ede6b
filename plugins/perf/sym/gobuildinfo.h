/*
 * The Go version a binary was built with, from its .go.buildinfo section
 * (what `go version FILE` prints): a pure reader over the section's bytes,
 * which are untrusted.
 *
 * Layout (debug/buildinfo, runtime/debug): a 32-byte header, the 14-byte
 * magic "\xff Go buildinf:", the pointer size, a flags byte; with flag
 * 0x2 (Go 1.18 and later) the version and the module info follow the
 * header inline, each a uvarint length and its bytes.  Without it (Go
 * 1.13-1.17) the header holds two pointers to Go strings (address,
 * length) elsewhere in the image: gobuildinfo_version refuses that
 * (-ENOTSUP) and gobuildinfo_version_at follows the pointers through a
 * reader of the image's link-time addresses.
 */
#ifndef PERF_GOBUILDINFO_H
#define PERF_GOBUILDINFO_H

#include <stddef.h>
#include <stdint.h>

#define GOBUILDINFO_HDR		32
#define GOBUILDINFO_VER_MAX	128	/* "go1.22.1 X:boringcrypto" fits */

/*
 * Copy the version string ("go1.19.8") into out (outlen bytes, NUL
 * terminated).  0; -ENOENT: not a buildinfo (no magic); -ENOTSUP: the
 * pre-1.18 pointer format; -EINVAL: truncated, empty, longer than
 * outlen - 1 or GOBUILDINFO_VER_MAX - 1, or not printable ASCII.
 */
/* A little-endian pointer of ps bytes (4 or 8) at p. */
uint64_t gobuildinfo_ptr(const uint8_t *, unsigned);
int gobuildinfo_version(const void *, size_t, char *, size_t);

/* Read n bytes at a link-time address into buf: 0, or -1 if unmapped. */
typedef int (*gobuildinfo_read_fn)(void *, uint64_t, void *, size_t);
/*
 * The same for either layout, the pre-1.18 one (little-endian, 4- or
 * 8-byte pointers) read through read(arg, ...).  Errors as above; a
 * pointer read refuses gives -EINVAL.
 */
int gobuildinfo_version_at(const void *, size_t, gobuildinfo_read_fn,
	    void *, char *, size_t);

#endif
