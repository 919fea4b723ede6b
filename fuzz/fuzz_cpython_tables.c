/*
 * Fuzz the pure CPython decoders: line tables of every version, str
 * headers and UTF-8 conversion, the 3.13 debug offsets block, version
 * strings and the /proc parsers the Python plugin uses.
 * FUZZ_SOURCES: plugins/lang/python/py_line.c plugins/lang/python/py_string.c plugins/lang/python/py_offsets.c plugins/lang/python/py_version.c plugins/lang/python/py_proc.c lib/procstat.c
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugins/lang/python/pyreader.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct py_offsets o;
	struct py_version v;
	struct py_map m;
	uint64_t daddr, st;
	size_t nb;
	char out[512], err[128], state, *s;
	int kind, minor, pos;

	if (size < 4)
		return (0);
	pos = (int)(data[0] | data[1] << 8) - 16;
	(void)py_line_lnotab(data + 2, size - 2, 1, pos);
	(void)py_line_310(data + 2, size - 2, 1, pos);
	(void)py_line_pep657(data + 2, size - 2, 1, pos);
	minor = 8 + data[2] % 6;
	py_offsets_for_version(3, minor, &o);
	if (py_str_decode(&o, data, size, 0x1000, &daddr, &nb, &kind) == 0 &&
	    daddr - 0x1000 <= size && nb <= size - (daddr - 0x1000))
		(void)py_str_to_utf8(data + (daddr - 0x1000), nb, kind, out,
		    sizeof(out));
	(void)py_str_to_utf8(data, size, 1 << (data[3] % 3), out, sizeof(out));
	(void)py_offsets_from_debug(data, size, 13, &o, err, sizeof(err));
	if ((s = malloc(size + 1)) == NULL)
		return (0);
	memcpy(s, data, size);
	s[size] = '\0';
	(void)py_version_from_string(s, size, &v);
	(void)py_version_from_filename(s, &v);
	(void)py_proc_parse_map_line(s, size, &m);
	(void)py_proc_map_is_python(s, size);
	(void)py_proc_stat_state(s, size, &state, &st);
	(void)py_proc_status_name(s, size, out, sizeof(out));
	(void)py_proc_cmdline_excluded(s, size);
	free(s);
	return (0);
}
