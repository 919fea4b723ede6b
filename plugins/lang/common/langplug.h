/*
 * What every runtime plugin (Python, Ruby, PHP, Java, Node.js) asks of the
 * host the same way (langplug.c): the checks at init, and the callbacks
 * through which its readers open files and the ELF reader logs.
 */
#ifndef GP_LANGPLUG_H
#define GP_LANGPLUG_H

#include <stddef.h>

#include <gprofiler/plugin.h>

/*
 * The plugin's state, size bytes zeroed, once the host is one a runtime
 * plugin can run in (its ABI major, a safe file open: never an unsafe
 * open instead).  NULL with *rcp -EINVAL, -ENOTSUP or -ENOMEM.
 */
void *langplug_new(const struct gp_host_api *, size_t size, int *rcp);
/* The host's file_open for the readers' openers; arg: the plugin's ctx. */
int langplug_open(void *, const struct gp_open_spec *,
	    struct gp_file_info *);
/* The host's maps_read for the readers (langfile_set_maps_reader); arg:
 * the ctx.  -ENOSYS from a host before 1.8. */
int langplug_maps(void *, int32_t pid, size_t max, char **text,
	    size_t *len);
/* A warning through the host's log (the ELF reader's); arg: the ctx. */
void langplug_warn(void *, const char *msg);

#endif
