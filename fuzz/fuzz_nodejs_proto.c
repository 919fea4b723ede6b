/*
 * Fuzz the parsers of --nodejs-mode attach-maps: the inspector's HTTP and
 * WebSocket replies, CDP messages, /proc/PID/{cmdline,environ,status}
 * and /proc/net/tcp, all from the same bytes.
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
	struct nj_ws_frame	 f;
	const char		*s = (const char *)data;
	char			 out[256];
	uint32_t		 uid, gid;
	size_t			 off = 0;
	int			 usr1;

	(void)nj_http_json_list(s, size, NJ_INSPECT_PORT, out, sizeof(out));
	(void)nj_http_upgrade(s, size);
	(void)nj_cdp_result(s, size, 1, out, sizeof(out));
	(void)nj_args_check(s, size, 0);
	(void)nj_args_check(s, size, 1);
	(void)nj_tcp_listening(s, size, NJ_INSPECT_PORT);
	(void)nj_status_parse(s, size, &uid, &gid, &usr1);
	while (off < size && nj_ws_parse(data + off, size - off, &f) == 0) {
		if (f.total == 0 || f.off + f.len > size - off)
			abort();
		off += f.total;
	}
	return (0);
}
