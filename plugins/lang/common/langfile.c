/*
 * The files the runtime plugins read: see langfile.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "langfile.h"

static langfile_open_fn langfile_opener;
static void *langfile_opener_arg;
static langfile_maps_fn langfile_maps;
static void *langfile_maps_arg;

void
langfile_set_opener(langfile_open_fn fn, void *arg)
{
	langfile_opener = fn;
	langfile_opener_arg = arg;
}

int
langfile_open(const char *root, const char *path, uint32_t flags,
    uint64_t max_size, int64_t owner, struct gp_file_info *info)
{
	struct gp_open_spec spec = {
		.size = sizeof(spec), .flags = flags, .root = root,
		.path = path, .max_size = max_size, .owner = owner,
	};

	if (langfile_opener == NULL)
		return (-ENOSYS);
	return (langfile_opener(langfile_opener_arg, &spec, info));
}

/* The buffer grows as the file is read: most are far below max. */
char *
langfile_read(const char *path, size_t max, size_t *lenp, int *more)
{
	size_t len = 0, cap = max < 4096 ? max : 4096, next;
	char *buf, *nb;
	ssize_t n;
	int fd, cut = 0;

	if (more != NULL)
		*more = 0;
	if ((fd = langfile_open(NULL, path, 0, 0, -1, NULL)) < 0)
		return (NULL);
	if ((buf = malloc(cap + 1)) == NULL)
		goto out;
	for (;;) {
		if (len == cap) {
			/* full: there may be more (or no memory for it) */
			next = cap * 2 > max ? max : cap * 2;
			if (cap >= max || (nb = realloc(buf, next + 1)) ==
			    NULL) {
				cut = 1;
				break;
			}
			buf = nb;
			cap = next;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	buf[len] = '\0';
	*lenp = len;
out:
	if (more != NULL)
		*more = cut;
	close(fd);
	return (buf);
}

void
langfile_set_maps_reader(langfile_maps_fn fn, void *arg)
{
	langfile_maps = fn;
	langfile_maps_arg = arg;
}

char *
langfile_read_maps(int32_t pid, size_t max, size_t *lenp, int *more)
{
	char path[64], *text = NULL;
	size_t len = 0;
	int rc;

	if (langfile_maps != NULL && (rc = langfile_maps(langfile_maps_arg,
	    pid, max, &text, &len)) != -ENOSYS) {
		if (rc < 0) {
			errno = -rc;
			return (NULL);
		}
		if (more != NULL)
			*more = rc == 1;
		*lenp = len;
		return (text);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	return (langfile_read(path, max, lenp, more));
}
