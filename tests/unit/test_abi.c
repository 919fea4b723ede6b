/*
 * The plugin ABI's layout, frozen: an accidental reorder, retype or
 * insertion in include/gprofiler/plugin.h fails the build here.  Appending
 * fields is the only allowed change within a major (and bumps the minor).
 */
#include <stddef.h>
#include <stdint.h>

#include <gprofiler/plugin.h>

#include "testing.h"

#define AT(type, field, off)						\
	_Static_assert(offsetof(struct type, field) == (off),		\
	    #type "." #field " moved")

/* x86_64 / aarch64 LP64 layout of ABI 1.0. */
AT(gp_plugin, magic, 0);
AT(gp_plugin, abi_major, 4);
AT(gp_plugin, abi_minor, 6);
AT(gp_plugin, struct_size, 8);
AT(gp_plugin, flags, 12);
AT(gp_plugin, name, 16);
AT(gp_plugin, version, 24);
AT(gp_plugin, build, 32);
AT(gp_plugin, description, 40);
AT(gp_plugin, kind, 48);
AT(gp_plugin, modes, 52);
AT(gp_plugin, options, 56);
AT(gp_plugin, option_size, 64);
AT(gp_plugin, option_count, 68);
AT(gp_plugin, incompatible, 72);
AT(gp_plugin, init, 80);
AT(gp_plugin, check, 88);
AT(gp_plugin, start, 96);
AT(gp_plugin, snapshot, 104);
AT(gp_plugin, abandon, 112);
AT(gp_plugin, metadata, 120);
AT(gp_plugin, stop, 128);
AT(gp_plugin, destroy, 136);
AT(gp_plugin, reserved, 144);
_Static_assert(sizeof(struct gp_plugin) == 208, "gp_plugin size");

AT(gp_option, name, 0);
AT(gp_option, type, 8);
AT(gp_option, flags, 12);
AT(gp_option, defval, 16);
AT(gp_option, min, 24);
AT(gp_option, max, 32);
AT(gp_option, choices, 40);
AT(gp_option, help, 48);
_Static_assert(sizeof(struct gp_option) == 56, "gp_option size");

AT(gp_host_api, size, 0);
AT(gp_host_api, abi_major, 4);
AT(gp_host_api, abi_minor, 6);
AT(gp_host_api, log, 8);
AT(gp_host_api, option_get, 16);
AT(gp_host_api, snapshot_add_stack, 104);
AT(gp_host_api, json_new, 152);
AT(gp_host_api, pid_wanted, 224);
AT(gp_host_api, http_download, 232);
AT(gp_host_api, file_open, 240);
AT(gp_host_api, file_read, 248);
AT(gp_host_api, sample_watch, 256);
AT(gp_host_api, sample_report, 280);
AT(gp_host_api, sample_report_stack, 288);
AT(gp_host_api, sample_subscribe_stack, 296);
AT(gp_host_api, process_source, 304);
AT(gp_host_api, process_report, 312);
AT(gp_host_api, process_subscribe, 320);
AT(gp_host_api, sample_walk, 328);
AT(gp_host_api, sample_walk_thread, 336);
AT(gp_host_api, sample_walker, 344);
AT(gp_host_api, maps_read, 352);
_Static_assert(sizeof(struct gp_host_api) == 360, "gp_host_api 1.8 size");
AT(gp_sample_stack, walk_state, 40);
AT(gp_sample_stack, nwalk, 44);
AT(gp_sample_stack, walk, 48);
_Static_assert(sizeof(struct gp_sample_stack) == 56, "gp_sample_stack 1.6");
_Static_assert(GP_SAMPLE_STACK_SIZE_1_3 == 40, "gp_sample_stack 1.3");
_Static_assert(GP_FRAME_WALK_SIZE_1_6 == 40, "gp_frame_walk 1.6");
AT(gp_frame_walk, flags, 40);
AT(gp_frame_walk, frame_alt, 60);
AT(gp_frame_walk, tls_module, 76);
AT(gp_frame_walk, tls_offset, 80);
_Static_assert(sizeof(struct gp_frame_walk) == 88, "gp_frame_walk 1.7");

AT(gp_open_spec, size, 0);
AT(gp_open_spec, flags, 4);
AT(gp_open_spec, root, 8);
AT(gp_open_spec, path, 16);
AT(gp_open_spec, max_size, 24);
AT(gp_open_spec, owner, 32);
AT(gp_open_spec, reader, 40);
_Static_assert(sizeof(struct gp_open_spec) == 48, "gp_open_spec 1.5 size");
_Static_assert(GP_OPEN_SPEC_SIZE_1_1 == 40, "gp_open_spec 1.1 size");
AT(gp_file_info, mode, 32);
_Static_assert(sizeof(struct gp_file_info) == 40, "gp_file_info 1.1 size");

AT(gp_child_spec, size, 0);
AT(gp_child_spec, argv, 8);
AT(gp_child_spec, on_stdout_line, 32);
AT(gp_child_spec, on_exit, 56);
AT(gp_child_spec, stderr_keep, 72);
AT(gp_child_spec, max_line, 76);

/* The frozen 1.0 sizes end where the 1.0 fields end, whatever is appended
 * later (these hold for every 1.x, unlike the sizeof() checks above). */
#define END(type, field)						\
	(offsetof(struct type, field) + sizeof(((struct type *)0)->field))
_Static_assert(END(gp_plugin, reserved) == GP_PLUGIN_SIZE_1_0,
    "GP_PLUGIN_SIZE_1_0");
_Static_assert(END(gp_option, help) == GP_OPTION_SIZE_1_0,
    "GP_OPTION_SIZE_1_0");
_Static_assert(END(gp_host_api, http_download) == GP_HOST_API_SIZE_1_0,
    "GP_HOST_API_SIZE_1_0");
_Static_assert(END(gp_child_spec, max_line) == GP_CHILD_SPEC_SIZE_1_0,
    "GP_CHILD_SPEC_SIZE_1_0");

int
main(void)
{
	CHECK(GP_ABI_MAJOR == 1, "ABI major 1");
	CHECK(GP_PLUGIN_MAGIC == 0x47504c47u, "magic \"GPLG\"");
	CHECK(GP_API_HAS(&(struct gp_host_api){ .size = 240 }, http_download),
	    "GP_API_HAS sees the last 1.0 member in a 1.0 table");
	CHECK(!GP_API_HAS(&(struct gp_host_api){ .size = 232 }, http_download),
	    "and not in a shorter one");
	return (testing_done());
}
