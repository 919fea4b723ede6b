/* gzip in one call, for bodies the daemon builds (uploads, pprof). */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "base/gzip.h"
#include "base/xmalloc.h"

/* gzip of buf (level 6, gzip header); NULL on a zlib failure.  Caller
 * frees. */
unsigned char *
gzip_compress(const void *buf, size_t len, size_t *outlen)
{
	z_stream z;
	unsigned char *out;
	size_t cap;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		return (NULL);
	cap = deflateBound(&z, (uLong)len) + 64;
	out = xmalloc(cap);
	z.next_in = (unsigned char *)(uintptr_t)buf;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END) {
		deflateEnd(&z);
		free(out);
		return (NULL);
	}
	*outlen = z.total_out;
	deflateEnd(&z);
	return (out);
}
