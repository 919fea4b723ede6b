# Turn include/gprofiler/plugin.h into the header of a later 1.x whose
# structs grew: fields appended to the descriptor and to the option row, as
# a minor bump would do.  tests/unit/test_abi_grown.c checks it applied.
/^[[:space:]]*uintptr_t[[:space:]]*reserved\[8\];/a\
	uint64_t	 grown_plugin_field[4];	/* a later minor */
/^[[:space:]]*const char[[:space:]]*\*help;$/a\
	uint64_t	 grown_option_field[2];	/* a later minor */
