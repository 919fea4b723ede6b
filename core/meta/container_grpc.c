/*
 * gRPC message framing (a byte for compression, a big-endian 32-bit
 * length, the protobuf message), as CRI and containerd speak it over
 * HTTP/2.  Pure functions; the transport is core/base/http.c.
 */
#include "config.h"

#include <errno.h>

#include "meta/container.h"

void
container_grpc_header(uint8_t hdr[5], size_t len)
{
	hdr[0] = 0;
	hdr[1] = (uint8_t)(len >> 24);
	hdr[2] = (uint8_t)(len >> 16);
	hdr[3] = (uint8_t)(len >> 8);
	hdr[4] = (uint8_t)len;
}

int
container_grpc_next(const uint8_t *b, size_t len, size_t *off,
    const uint8_t **msg, size_t *msglen)
{
	size_t o = *off;
	uint32_t n;

	if (o == len)
		return (0);
	if (o > len || len - o < 5)
		return (-EINVAL);
	/* We never ask for compression, so a compressed frame is garbage. */
	if (b[o] != 0)
		return (-EINVAL);
	n = (uint32_t)b[o + 1] << 24 | (uint32_t)b[o + 2] << 16 |
	    (uint32_t)b[o + 3] << 8 | b[o + 4];
	if (n > CONTAINER_GRPC_MSG_MAX || len - o - 5 < n)
		return (-EINVAL);
	*msg = b + o + 5;
	*msglen = n;
	*off = o + 5 + n;
	return (1);
}
