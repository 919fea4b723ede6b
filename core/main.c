/* gprofiler: the daemon's entry point (placeholder until the core lands). */
#include "config.h"

#include "gprofiler.h"

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_init(0, "gprofiler");
	fatalx("gprofiler core not built yet");
}
