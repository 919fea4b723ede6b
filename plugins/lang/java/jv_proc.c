/*
 * JVM discovery over /proc and the checks made before attaching.  The
 * HotSpot attach protocol starts with SIGQUIT when the JVM's attach socket
 * does not exist yet; a JVM that does not catch SIGQUIT (too young to have
 * installed its handlers, or -Xrs) would die of it, and one started with
 * -XX:+DisableAttachMechanism would only print a thread dump to its stdout.
 * Both are skipped here, before any signal is sent.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jv_proc.h"
#include "langfile.h"

#define JV_SMALL_MAX	(256 * 1024)
#define JV_MAPS_MAX	(16u << 20)
#define JV_SIGQUIT_BIT	(1ull << (3 - 1))

int
jv_proc_is_jvm(pid_t pid)
{
	char *b;
	size_t len;
	int hit;

	if ((b = langfile_read_maps(pid, JV_MAPS_MAX, &len, NULL)) == NULL)
		return (errno == EAGAIN ? -EAGAIN : 0);
	hit = jv_maps_has_libjvm(b, len);
	free(b);
	return (hit);
}

/* The JVM's options in the order it applies them; later ones win. */
static void
jv_proc_opts(pid_t pid, struct jv_opts *o)
{
	static const char *const before[] = { "JAVA_TOOL_OPTIONS",
	    "JDK_JAVA_OPTIONS" };
	char path[64], *env, *cmd;
	const char *v;
	size_t elen = 0, clen, vl, i;

	memset(o, 0, sizeof(*o));
	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	env = langfile_read(path, JV_SMALL_MAX, &elen, NULL);
	for (i = 0; env != NULL && i < 2; i++)
		if (jv_environ_get(env, elen, before[i], &v, &vl) == 0)
			jv_opts_scan(v, vl, ' ', o);
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((cmd = langfile_read(path, JV_SMALL_MAX, &clen, NULL)) != NULL)
		jv_opts_scan(cmd, clen, '\0', o);
	if (env != NULL && jv_environ_get(env, elen, "_JAVA_OPTIONS", &v,
	    &vl) == 0)
		jv_opts_scan(v, vl, ' ', o);
	free(env);
	free(cmd);
}

/* Is the attach socket already there?  Then no signal is needed. */
static int
jv_proc_socket(pid_t pid, const char *status, size_t len)
{
	char path[96];
	struct stat sb;
	int32_t nspid = (int32_t)pid;

	(void)jv_status_nspid(status, len, &nspid);
	snprintf(path, sizeof(path), "/proc/%d/root/tmp/.java_pid%d",
	    (int)pid, (int)nspid);
	return (stat(path, &sb) == 0 && S_ISSOCK(sb.st_mode));
}

/*
 * 0 when attaching is safe; otherwise -EPERM and why (*permanent: the
 * JVM's options forbid it, no later cycle will do better).
 */
int
jv_proc_attach_safe(pid_t pid, char *why, size_t whylen, int *permanent)
{
	struct jv_opts o;
	char path[64], *st;
	uint64_t cgt = 0;
	size_t len;
	int sock;

	*permanent = 0;
	jv_proc_opts(pid, &o);
	if (o.attach_disabled) {
		*permanent = 1;
		snprintf(why, whylen, "JVM attach disabled "
		    "(-XX:+DisableAttachMechanism)");
		return (-EPERM);
	}
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((st = langfile_read(path, 64 * 1024, &len, NULL)) == NULL) {
		snprintf(why, whylen, "process exited");
		return (-ESRCH);
	}
	sock = jv_proc_socket(pid, st, len);
	if (!sock && jv_status_sigcgt(st, len, &cgt) == 0 &&
	    (cgt & JV_SIGQUIT_BIT) == 0) {
		*permanent = o.reduce_signals;
		snprintf(why, whylen, "JVM does not handle SIGQUIT%s: "
		    "attaching would kill it", o.reduce_signals ?
		    " (-Xrs)" : " yet");
		free(st);
		return (-EPERM);
	}
	free(st);
	return (0);
}
