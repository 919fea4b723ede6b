/*
 * Fuzz the parsers of --nodejs-mode attach-maps: the inspector's HTTP and
 * WebSocket replies, CDP messages, /proc/PID/{cmdline,environ,status},
 * /proc/net/tcp{,6} sockets and /proc/PID/fd socket links, all from the
 * same bytes.
 * FUZZ_SOURCES: plugins/lang/nodejs/nj_proto.c
 * FUZZ_LIBS: -ljson-c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/nodejs/nj_proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nj_ws_frame f;
	struct nj_tcp_sock ts;
	uint64_t ino;
	const char *s = (const char *)data;
	char out[256];
	uint32_t uid, gid, uids[4];
	size_t off = 0;
	int usr1;

	(void)nj_http_json_list(s, size, NJ_INSPECT_PORT, out, sizeof(out));
	(void)nj_http_upgrade(s, size);
	(void)nj_cdp_result(s, size, 1, out, sizeof(out));
	(void)nj_args_check(s, size, 0);
	(void)nj_args_check(s, size, 1);
	(void)nj_tcp_listening(s, size, NJ_INSPECT_PORT);
	(void)nj_status_parse(s, size, &uid, &gid, &usr1);
	(void)nj_fd_socket_inode(s, size, &ino);
	(void)nj_status_uids(s, size, uids);
	while (nj_tcp_next(s, size, &off, &ts) == 1) {
		if (off > size || (ts.alen != 4 && ts.alen != 16))
			abort();
		(void)nj_tcp_is_inspector(&ts, NJ_INSPECT_PORT, 0);
		(void)nj_tcp_is_inspector(&ts, NJ_INSPECT_PORT, ts.rport);
	}
	off = 0;
	while (off < size && nj_ws_parse(data + off, size - off, &f) == 0) {
		if (f.total == 0 || f.off + f.len > size - off)
			abort();
		off += f.total;
	}
	return (0);
}
