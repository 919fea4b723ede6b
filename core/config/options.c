/*
 * The core option table: one row per option drives the command line, the
 * config file, GPROFILER_* environment variables, validation, --help and
 * metadata.run_arguments (tmux options_table, nginx ngx_command_t).
 * Names and defaults follow gProfiler (docs/specs/gprofiler-compat.md §1).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "config/configuration.h"
#include "gprofiler.h"

#define B GP_OPT_BOOL
#define I GP_OPT_INT
#define S GP_OPT_STRING
#define E GP_OPT_ENUM
#define P GP_OPT_PATH
#define Z GP_OPT_SIZE

/* Sorted by name: options_find() uses bsearch. */
static const struct option_def options_table[] = {
	{ "alloc-interval", 0, Z, 0, "2mb", 1, 0, NULL, "alloc_interval",
	  "allocation mode: bytes between samples (binary units: 2mb)" },
	{ "api-server", 0, S, 0, "https://api.granulate.io", 0, 0, NULL,
	  "api_server", "base URL for heartbeats, commands and logs" },
	{ "api-server-password", 0, S, OPTF_SECRET, NULL, 0, 0, NULL,
	  "api_server_password", "HTTP Basic password for the API server" },
	{ "api-server-user", 0, S, 0, NULL, 0, 0, NULL, "api_server_user",
	  "HTTP Basic user for the API server" },
	{ "app-id-args-filter", 0, S, OPTF_MULTI, NULL, 0, 0, NULL,
	  "app_id_args_filters",
	  "regex of JVM arguments appended to the Java appid (repeatable)" },
	{ "child-env", 0, S, 0, NULL, 0, 0, NULL, "child_env",
	  "environment variables child processes (iaprof, jattach, "
	  "PerfSpect) also get, comma-separated, NAME* for a prefix (always: "
	  "PATH, LANG, LC_*, TZ, HOME, TMPDIR; never GPROFILER_*)" },
	{ "config", 0, P, OPTF_CLIONLY, NULL, 0, 0, NULL, NULL,
	  "config file (default " SYSCONFDIR "/gprofiler/gprofiler.conf)" },
	{ "continuous", 'c', B, 0, "false", 0, 0, NULL, "continuous",
	  "run cycles back to back until stopped (default: one cycle)" },
	{ "controller-pid", 0, I, 0, NULL, 1, 0x7fffffff, NULL,
	  "controller_pid", "exit when this process dies" },
	{ "disable-application-identifiers", 0, B, 0, "false", 0, 0, NULL,
	  "disable_application_identifiers", "no \"appid:\" frames" },
	{ "disable-application-metadata", 0, B, 0, "false", 0, 0, NULL,
	  "disable_application_metadata",
	  "no application-metadata index frame" },
	{ "disable-container-names", 0, B, 0, "false", 0, 0, NULL,
	  "disable_container_names", "do not resolve container names" },
	{ "disable-metadata-collection", 0, B, 0, "false", 0, 0, NULL,
	  "disable_metadata_collection",
	  "send neutral values instead of host metadata" },
	{ "disable-metrics-collection", 0, B, 0, "false", 0, 0, NULL,
	  "disable_metrics_collection", "cpu_avg and mem_avg become null" },
	{ "disable-pidns-check", 0, B, 0, "false", 0, 0, NULL,
	  "disable_pidns_check", "allow running outside the init PID "
	  "namespace" },
	{ "dont-disable-core-files", 0, B, 0, "false", 0, 0, NULL,
	  "dont_disable_core_files", "keep RLIMIT_CORE (default: 0)" },
	{ "dont-send-logs", 0, B, 0, "false", 0, 0, NULL, "dont_send_logs",
	  "do not send logs to the API server" },
	{ "enable-heartbeat-server", 0, B, 0, "false", 0, 0, NULL,
	  "enable_heartbeat_server",
	  "dynamic profiling: take start/stop commands from the API server" },
	{ "external-metadata", 0, P, 0, NULL, 0, 0, NULL, "external_metadata",
	  "JSON file whose \"static\" object goes into the metadata" },
	{ "file-path", 0, P, OPTF_CLIONLY, NULL, 0, 0, NULL, NULL,
	  "upload-file: the .col file to upload" },
	{ "flamegraph", 0, B, 0, "true", 0, 0, NULL, "flamegraph",
	  "write an HTML flame graph with each profile (--no-flamegraph)" },
	{ "heartbeat-file", 0, P, 0, NULL, 0, 0, NULL, "heartbeat_file",
	  "file whose mtime is touched every cycle" },
	{ "heartbeat-interval", 0, I, 0, "30", 1, 86400, NULL,
	  "heartbeat_interval", "seconds between heartbeats" },
	{ "insert-dso-name", 0, B, 0, "false", 0, 0, NULL, "insert_dso_name",
	  "append \" (dso)\" to native frames" },
	{ "log-file", 0, P, 0, "/var/log/gprofiler/gprofiler.log", 0, 0, NULL,
	  "log_file", "log file (always at DEBUG level)" },
	{ "log-rotate-backup-count", 0, I, 0, "1", 1, 100, NULL,
	  "log_rotate_backup_count", "rotated log files kept" },
	{ "log-rotate-max-size", 0, Z, 0, "5mb", 4096, 0, NULL,
	  "log_rotate_max_size", "log file size that triggers rotation" },
	{ "max-processes-runtime-profiler", 0, I, 0, "0", 1, 1000000, NULL,
	  "max_processes_runtime_profiler",
	  "profile only the top N processes by CPU per runtime (0: all)" },
	{ "min-duration", 0, I, 0, "0", 1, 86400, NULL, "min_duration",
	  "skip processes younger than this many seconds" },
	{ "mode", 0, E, 0, "cpu", 0, 0, "cpu|allocation|gpu|none",
	  "profiling_mode", "what to profile" },
	{ "no-verify", 0, B, 0, "false", 0, 0, NULL, "no_verify",
	  "do not verify the servers' TLS certificates" },
	{ "output-dir", 'o', P, 0, NULL, 0, 0, NULL, "output_dir",
	  "write profiles and flame graphs to this directory" },
	{ "output-format", 0, S, 0, "col", 0, 0, NULL, "output_format",
	  "comma-separated local formats: col, pprof" },
	{ "output-group-readable", 0, B, 0, "false", 0, 0, NULL,
	  "output_group_readable", "let the output directory's group read "
	  "profiles (0750/0640; default 0700/0600: owner only)" },
	{ "pid-file", 0, P, 0, "/var/run/gprofiler.pid", 0, 0, NULL,
	  "pid_file", "write the agent's PID here" },
	{ "pids", 0, S, OPTF_MULTI, NULL, 0, 0, NULL, "pids",
	  "comma-separated PIDs: profile only these (repeatable)" },
	{ "plugin-dir", 0, P, OPTF_MULTI | OPTF_CLIONLY, NULL, 0, 0, NULL,
	  "plugin_dir", "also load plugins from this directory "
	  "(default " PLUGINDIR ")" },
	{ "profile-api-version", 0, E, 0, "v2", 0, 0, "v1|v2",
	  "profile_api_version", "v1: no index and container frames" },
	{ "profiling-duration", 'd', I, 0, OPT_STR(GP_DEFAULT_DURATION), 1,
	  86400, NULL, "duration",
	  "seconds per profiling cycle" },
	{ "profiling-frequency", 'f', I, OPTF_MODEDEFAULT, OPT_FREQUENCY_CPU, 1,
	  GP_FREQUENCY_MAX,
	  NULL, "frequency",
	  "sampling frequency in Hz (cpu mode " OPT_FREQUENCY_CPU ", gpu mode "
	  OPT_FREQUENCY_GPU ")" },
	{ "rootless", 0, B, 0, "false", 0, 0, NULL, "rootless",
	  "run as non-root (with --pids)" },
	{ "rotating-output", 0, B, 0, "false", 0, 0, NULL, "rotating_output",
	  "keep only the newest local output" },
	{ "server-host", 0, S, 0, "https://profiler.granulate.io", 0, 0, NULL,
	  "server_host", "base URL for the health check and uploads" },
	{ "server-upload-timeout", 0, I, 0, "120", 1, 3600, NULL,
	  "server_upload_timeout", "seconds before an upload is abandoned" },
	{ "service-name", 0, S, 0, NULL, 0, 0, NULL, "service_name",
	  "service name sent with every request" },
	{ "skip-system-profilers-above", 0, I, 0, "0", 1, 100000000, NULL,
	  "max_system_processes_for_system_profilers",
	  "do not run perf on hosts with more processes than this (0: off)" },
	{ "spool-dir", 0, P, 0, LOCALSTATEDIR "/lib/gprofiler/spool", 0, 0,
	  NULL, "spool_dir", "profiles waiting for upload" },
	{ "spool-max-size", 0, Z, 0, "256mb", 1, 0, NULL, "spool_max_size",
	  "spool size cap; the oldest profiles are dropped first" },
	{ "state-dir", 0, P, 0, LOCALSTATEDIR "/lib/gprofiler", 0, 0, NULL,
	  "state_dir", "state that survives restarts (executed commands)" },
	{ "system-profiler", 0, S, 0, NULL, 0, 0, NULL, "system_profiler",
	  "which system profiler plugin to use when several serve the mode" },
	{ "tls-ca-bundle", 0, P, 0, NULL, 0, 0, NULL, "tls_ca_bundle",
	  "CA certificates to verify the servers with" },
	{ "tls-client-cert", 0, P, 0, NULL, 0, 0, NULL, "tls_client_cert",
	  "client certificate (mTLS)" },
	{ "tls-client-key", 0, P, OPTF_SECRETPATH, NULL, 0, 0, NULL,
	  "tls_client_key", "client key (mTLS)" },
	{ "token", 0, S, OPTF_SECRET, NULL, 0, 0, NULL, "server_token",
	  "API token (prefer --token-file: keeps it out of ps)" },
	{ "token-file", 0, P, OPTF_SECRETPATH, NULL, 0, 0, NULL, "token_file",
	  "file holding the API token (mode 0600)" },
	{ "upload-results", 'u', B, 0, "false", 0, 0, NULL, "upload_results",
	  "upload each profile to --server-host" },
	{ "verbose", 'v', B, 0, "false", 0, 0, NULL, "verbose",
	  "log at DEBUG level on stderr" },
};

#undef B
#undef I
#undef S
#undef E
#undef P
#undef Z

/* Deprecated or alternative spellings. */
static const struct {
	const char *alias;
	const char *name;
} options_aliases[] = {
	{ "glogger-server", "api-server" },
	{ "profiling-mode", "mode" },
};

static int
options_cmp(const void *key, const void *elem)
{
	return (strcmp(key, ((const struct option_def *)elem)->od_name));
}

/* The core option called `name` (or one of its aliases); NULL if none. */
const struct option_def *
options_find(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(options_aliases) / sizeof(options_aliases[0]);
	    i++)
		if (strcmp(name, options_aliases[i].alias) == 0) {
			name = options_aliases[i].name;
			break;
		}
	return (bsearch(name, options_table, options_count(),
	    sizeof(options_table[0]), options_cmp));
}

const struct option_def *
options_find_short(int c)
{
	size_t i;

	for (i = 0; i < options_count(); i++)
		if (options_table[i].od_short == c)
			return (&options_table[i]);
	return (NULL);
}

const struct option_def *
options_get(size_t i)
{
	return (i < options_count() ? &options_table[i] : NULL);
}

size_t
options_count(void)
{
	return (sizeof(options_table) / sizeof(options_table[0]));
}
