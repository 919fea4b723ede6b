/*
 * The Go version a binary was built with, from its .go.buildinfo section
 * (what `go version FILE` prints): a pure reader over the section's bytes,
 * which are untrusted.
 *
 * Layout (debug/buildinfo, runtime/debug): a 32-byte header, the 14-byte
 * magic "\xff Go buildinf:", the pointer size, a flags byte; with flag
 * 0x2 (Go 1.18 and later) the version and the module info follow the
 * header inline, each a uvarint length and its bytes.  Without it (Go
 * 1.13-1.17) the header holds two pointers to Go strings elsewhere in the
 * image: that format is refused (-ENOTSUP), not guessed at.
 */
#ifndef PERF_GOBUILDINFO_H
#define PERF_GOBUILDINFO_H

#include <stddef.h>

#define GOBUILDINFO_HDR		32
#define GOBUILDINFO_VER_MAX	128	/* "go1.22.1 X:boringcrypto" fits */

/*
 * Copy the version string ("go1.19.8") into out (outlen bytes, NUL
 * terminated).  0; -ENOENT: not a buildinfo (no magic); -ENOTSUP: the
 * pre-1.18 pointer format; -EINVAL: truncated, empty, longer than
 * outlen - 1 or GOBUILDINFO_VER_MAX - 1, or not printable ASCII.
 */
int	gobuildinfo_version(const void *, size_t, char *, size_t);

#endif
