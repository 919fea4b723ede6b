/*
 * ABI promise: a plugin built against the frozen 1.0 header
 * (tests/abi/v1.0, fixture_v1_0.so) loads into a host whose descriptor and
 * option rows grew, as in a later 1.x.  This program and its copy of
 * core/host/plugin.c are compiled against such a header (tests/abi/grow.sed over
 * include/gprofiler/plugin.h), so the loader here is that later host.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "gprofiler.h"
#include "host/host.h"
#include "testing.h"

_Static_assert(sizeof(struct gp_plugin) > GP_PLUGIN_SIZE_1_0,
    "the grown header must have a larger descriptor (grow.sed applied?)");
_Static_assert(sizeof(struct gp_option) > GP_OPTION_SIZE_1_0,
    "the grown header must have a larger option row (grow.sed applied?)");

static int
copy_file(const char *from, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, out, rc = 0;

	if ((in = open(from, O_RDONLY)) == -1)
		return (-errno);
	if ((out = open(to, O_WRONLY | O_CREAT | O_TRUNC, mode)) == -1) {
		close(in);
		return (-errno);
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			rc = -EIO;
	close(in);
	close(out);
	return (rc);
}

int
main(void)
{
	static const char manifest[] = "name = fixture_v1_0\nkind = process\n"
	    "modes = cpu\nabi = 1\noptions = fixture_v1_0-level\n";
	struct plugin_list list;
	struct plugin *p;
	char tmp[] = "/tmp/gptest-abigrown.XXXXXX";
	char path[PATH_MAX], err[1024], cmd[PATH_MAX + 16];
	char *dirs[2];
	const unsigned char *tail;
	size_t i;
	int fd, zero = 1;

	log_init(0, "test_abi_grown");
	if (mkdtemp(tmp) == NULL)
		SKIP_ALL("mkdtemp");
	chmod(tmp, 0755);
	snprintf(path, sizeof(path), "%s/fixture_v1_0.so", tmp);
	if (copy_file(FIXTURE_SO_DIR "/fixture_v1_0.so", path, 0644) != 0)
		SKIP_ALL("fixture_v1_0.so not built");
	snprintf(path, sizeof(path), "%s/fixture_v1_0.plugin", tmp);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd != -1 && write(fd, manifest, sizeof(manifest) - 1) ==
	    (ssize_t)sizeof(manifest) - 1, "manifest written");
	close(fd);

	dirs[0] = tmp;
	dirs[1] = NULL;
	plugins_scan(&list, dirs, err, sizeof(err));
	p = TAILQ_FIRST(&list);
	CHECK(p != NULL, "the 1.0 plugin's manifest is found");
	if (p == NULL)
		return (testing_done());
	err[0] = '\0';
	CHECK_INTEQ(plugin_open(p, err, sizeof(err)), 0,
	    "a 1.0 plugin loads into a host with larger structs");
	if (*err != '\0')
		printf("# %s\n", err);
	if (p->desc != NULL) {
		CHECK_INTEQ(p->desc->struct_size, GP_PLUGIN_SIZE_1_0,
		    "the host read the 1.0 descriptor's 208 bytes");
		for (i = 0; i < sizeof(p->desc->grown_plugin_field); i++)
			zero &= ((const unsigned char *)
			    p->desc->grown_plugin_field)[i] == 0;
		CHECK(zero, "fields past the plugin's struct_size read as "
		    "zero, not as the bytes after its descriptor");
		CHECK(p->desc->option_count == 1 && p->desc->options != NULL &&
		    strcmp(p->desc->options[0].name, "fixture_v1_0-level") ==
		    0, "the 56-byte option row is read at its own stride");
		tail = (const unsigned char *)
		    p->desc->options[0].grown_option_field;
		for (i = 0, zero = 1; i < sizeof(p->desc->options[0].
		    grown_option_field); i++)
			zero &= tail[i] == 0;
		CHECK(zero, "the option row's newer fields read as zero");
	}
	plugins_free(&list);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	if (system(cmd) != 0)
		printf("# cannot remove %s\n", tmp);
	return (testing_done());
}
