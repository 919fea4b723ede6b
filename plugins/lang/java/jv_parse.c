/*
 * Parsers for what the Java plugin reads from outside: jattach's stdout
 * ("Connected to remote JVM", "JVM response code = N", then the command's
 * answer), VM.command_line, VM.version and VM.flags answers, JVM options in
 * /proc/PID/cmdline and environ, /proc/PID/status and maps.  Pure
 * functions over (pointer, length); nothing here trusts a terminating NUL.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jv_parse.h"

#define JV_RESPONSE	"JVM response code = "

/* The next line of [p, end): returns its length, *next past the newline. */
static size_t
jv_line(const char *p, const char *end, const char **next)
{
	const char *nl = memchr(p, '\n', (size_t)(end - p));

	if (nl == NULL) {
		*next = end;
		return ((size_t)(end - p));
	}
	*next = nl + 1;
	return ((size_t)(nl - p));
}

static int
jv_starts(const char *p, size_t len, const char *prefix)
{
	size_t n = strlen(prefix);

	return (len >= n && memcmp(p, prefix, n) == 0);
}

/* Copy at most len bytes, stopping at a NUL, trimming trailing blanks. */
static void
jv_copy(char *out, size_t outlen, const char *p, size_t len)
{
	size_t n;

	if (outlen == 0)
		return;
	n = len < outlen - 1 ? len : outlen - 1;
	if (memchr(p, '\0', n) != NULL)
		n = strlen(p);
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' ||
	    p[n - 1] == '\r' || p[n - 1] == '\n'))
		n--;
	memcpy(out, p, n);
	out[n] = '\0';
}

/*
 * jattach's stdout: find "JVM response code = N"; the command's answer is
 * everything after that line.  -EINVAL when there is no such line (jattach
 * never reached the JVM, or the output is not jattach's).
 */
int
jv_parse_response(const char *out, size_t len, int *code, const char **body,
    size_t *bodylen)
{
	const char *p = out, *end = out + len, *next, *q;
	size_t n, plen = strlen(JV_RESPONSE);
	long v;
	int neg;

	while (p < end) {
		n = jv_line(p, end, &next);
		if (jv_starts(p, n, JV_RESPONSE)) {
			q = p + plen;
			neg = q < p + n && *q == '-';
			if (neg)
				q++;
			if (q >= p + n || *q < '0' || *q > '9')
				return (-EINVAL);
			for (v = 0; q < p + n && *q >= '0' && *q <= '9' &&
			    v < 100000; q++)
				v = v * 10 + (*q - '0');
			*code = (int)(neg ? -v : v);
			*body = next;
			*bodylen = (size_t)(end - next);
			return (0);
		}
		p = next;
	}
	return (-EINVAL);
}

/*
 * VM.command_line:
 *	VM Arguments:
 *	jvm_args: -XX:+PreserveFramePointer -Dfoo=bar
 *	java_command: Hot arg1 arg2
 * The appid uses the first token of java_command (a class or a jar).
 */
int
jv_parse_command_line(const char *body, size_t len, struct jv_cmdline *cl)
{
	const char *p = body, *end = body + len, *next, *v;
	size_t n, vl, t;
	int found = 0;

	cl->command[0] = cl->jvm_args[0] = '\0';
	while (p < end) {
		n = jv_line(p, end, &next);
		if (jv_starts(p, n, "jvm_args:")) {
			v = p + 9;
			vl = n - 9;
			while (vl > 0 && *v == ' ') {
				v++;
				vl--;
			}
			jv_copy(cl->jvm_args, sizeof(cl->jvm_args), v, vl);
		} else if (jv_starts(p, n, "java_command:")) {
			v = p + 13;
			vl = n - 13;
			while (vl > 0 && *v == ' ') {
				v++;
				vl--;
			}
			for (t = 0; t < vl && v[t] != ' ' && v[t] != '\t' &&
			    v[t] != '\r' && v[t] != '\0'; t++)
				;
			jv_copy(cl->command, sizeof(cl->command), v, t);
			found = t > 0;
		}
		p = next;
	}
	return (found ? 0 : -EINVAL);
}

/*
 * VM.version:
 *	OpenJDK 64-Bit Server VM version 17.0.15+6-Debian-1deb12u1
 *	JDK 17.0.15
 * Keeps the whole answer (both lines, '\n'-joined) like `java -version`.
 */
int
jv_parse_version(const char *body, size_t len, char *out, size_t outlen)
{
	const char *p = body, *end = body + len, *next;
	size_t n, used = 0;
	int vm = 0;

	if (outlen == 0)
		return (-EINVAL);
	out[0] = '\0';
	while (p < end) {
		n = jv_line(p, end, &next);
		while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n > 0 && memchr(p, '\0', n) == NULL) {
			if (memmem(p, n, " VM version ", 12) != NULL)
				vm = 1;
			if (used > 0 && used + 1 < outlen)
				out[used++] = '\n';
			if (n > outlen - 1 - used)
				n = outlen - 1 - used;
			memcpy(out + used, p, n);
			used += n;
			out[used] = '\0';
		}
		p = next;
	}
	return (vm ? 0 : -EINVAL);
}

/*
 * One jcmd run of "VM.version\nVM.flags\nVM.command_line" (HotSpot runs
 * each '\n'-separated command in turn and concatenates their answers):
 *	OpenJDK 64-Bit Server VM version 17.0.15+6-Debian-1deb12u1
 *	JDK 17.0.15
 *	-XX:CICompilerCount=2 ... -XX:+UseG1GC
 *	VM Arguments:
 *	jvm_args: ...
 * Split into the three answers: VM.version's two lines, VM.command_line
 * from its "VM Arguments:" line, VM.flags between.  -EINVAL when the
 * answer does not have that shape (the caller asks one command at a time).
 */
int
jv_split_info(const char *body, size_t len, struct jv_info_parts *ip)
{
	const char *p = body, *end = body + len, *next;
	size_t n;
	int line = 0;

	memset(ip, 0, sizeof(*ip));
	while (p < end) {
		n = jv_line(p, end, &next);
		if (n == 0 && line == 0) {	/* blank lines before */
			p = next;
			continue;
		}
		line++;
		if (line == 1) {
			if (memmem(p, n, " VM version ", 12) == NULL)
				return (-EINVAL);
			ip->version = p;
		} else if (line == 2) {
			if (!jv_starts(p, n, "JDK "))
				return (-EINVAL);
			ip->version_len = (size_t)(next - ip->version);
			ip->flags = next;
		} else if (n == 13 && memcmp(p, "VM Arguments:", 13) == 0) {
			ip->flags_len = (size_t)(p - ip->flags);
			ip->cmdline = p;
			ip->cmdline_len = (size_t)(end - p);
			return (0);
		}
		p = next;
	}
	return (-EINVAL);
}

/*
 * VM.flags (the non-default flags on one line).  Whether
 * -XX:+PreserveFramePointer is among them decides whether frame-pointer
 * unwinding sees whole Java stacks.
 */
int
jv_parse_flags(const char *body, size_t len, char *out, size_t outlen,
    int *preserve_fp)
{
	const char *p = body, *end = body + len, *next, *q, *tok;
	size_t n;

	*preserve_fp = 0;
	if (outlen > 0)
		out[0] = '\0';
	while (p < end) {
		n = jv_line(p, end, &next);
		if (jv_starts(p, n, "-XX:")) {
			jv_copy(out, outlen, p, n);
			for (q = p; q < p + n;) {
				while (q < p + n && *q == ' ')
					q++;
				tok = q;
				while (q < p + n && *q != ' ')
					q++;
				if ((size_t)(q - tok) == 25 && memcmp(tok,
				    "-XX:+PreserveFramePointer", 25) == 0)
					*preserve_fp = 1;
				else if ((size_t)(q - tok) == 25 && memcmp(tok,
				    "-XX:-PreserveFramePointer", 25) == 0)
					*preserve_fp = 0;
			}
			return (0);
		}
		p = next;
	}
	return (-EINVAL);
}

static int
jv_tok_is(const char *t, size_t n, const char *s)
{
	return (n == strlen(s) && memcmp(t, s, n) == 0);
}

/*
 * Scan JVM options separated by `sep` (NUL for /proc/PID/cmdline, ' ' for
 * JAVA_TOOL_OPTIONS); later options win, as in the JVM.  Application
 * arguments after the main class are scanned too: a false "disabled"
 * only costs a skipped JVM, a missed -Xrs would kill it with SIGQUIT.
 */
void
jv_opts_scan(const char *buf, size_t len, int sep, struct jv_opts *o)
{
	const char *p = buf, *end = buf + len, *t;
	size_t n;

	while (p < end) {
		t = p;
		while (p < end && *p != (char)sep && *p != '\0')
			p++;
		n = (size_t)(p - t);
		if (jv_tok_is(t, n, "-XX:+DisableAttachMechanism"))
			o->attach_disabled = 1;
		else if (jv_tok_is(t, n, "-XX:-DisableAttachMechanism"))
			o->attach_disabled = 0;
		else if (jv_tok_is(t, n, "-Xrs") ||
		    jv_tok_is(t, n, "-XX:+ReduceSignalUsage"))
			o->reduce_signals = 1;
		else if (jv_tok_is(t, n, "-XX:-ReduceSignalUsage"))
			o->reduce_signals = 0;
		if (p < end)
			p++;
	}
}

/* NAME's value in a NUL-separated environ block. */
int
jv_environ_get(const char *env, size_t len, const char *name,
    const char **val, size_t *vlen)
{
	const char *p = env, *end = env + len, *e;
	size_t nl = strlen(name);

	while (p < end) {
		e = memchr(p, '\0', (size_t)(end - p));
		if (e == NULL)
			e = end;
		if ((size_t)(e - p) > nl && memcmp(p, name, nl) == 0 &&
		    p[nl] == '=') {
			*val = p + nl + 1;
			*vlen = (size_t)(e - p) - nl - 1;
			return (0);
		}
		p = e + 1;
	}
	return (-ENOENT);
}

/* The caught-signals mask (SigCgt:) of /proc/PID/status. */
int
jv_status_sigcgt(const char *status, size_t len, uint64_t *mask)
{
	const char *p = status, *end = status + len, *next, *q;
	uint64_t v = 0;
	size_t n;
	int digits = 0, d;

	while (p < end) {
		n = jv_line(p, end, &next);
		if (jv_starts(p, n, "SigCgt:")) {
			for (q = p + 7; q < p + n && (*q == ' ' || *q == '\t');
			    q++)
				;
			for (; q < p + n && digits < 16; q++, digits++) {
				if (*q >= '0' && *q <= '9')
					d = *q - '0';
				else if (*q >= 'a' && *q <= 'f')
					d = *q - 'a' + 10;
				else
					break;
				v = v << 4 | (uint64_t)d;
			}
			if (digits == 0)
				return (-EINVAL);
			*mask = v;
			return (0);
		}
		p = next;
	}
	return (-ENOENT);
}

/*
 * gProfiler's Java selection: a mapping whose path matches ^.+/libjvm\.so
 * (the path starts with '/', so ".+" means the match starts after it).
 */
int
jv_maps_has_libjvm(const char *maps, size_t len)
{
	const char *p = maps, *end = maps + len, *next, *path;
	size_t n;

	while (p < end) {
		n = jv_line(p, end, &next);
		path = memchr(p, '/', n);
		if (path != NULL && memmem(path + 1, (size_t)(p + n - path - 1),
		    "/libjvm.so", 10) != NULL)
			return (1);
		p = next;
	}
	return (0);
}

/*
 * docs/specs/gprofiler-compat.md §8: "java: <first token of java_command>",
 * plus " (<jvm_args matching --app-id-args-filter, space-joined>)".
 */
int
jv_appid_build(const struct jv_cmdline *cl, const regex_t *filters,
    size_t nfilters, char *out, size_t outlen)
{
	char arg[JV_FLAGS_MAX], matched[JV_FLAGS_MAX];
	const char *p = cl->jvm_args, *t;
	size_t n, used = 0, i;

	if (cl->command[0] == '\0')
		return (-EINVAL);
	matched[0] = '\0';
	while (*p != '\0' && nfilters > 0) {
		while (*p == ' ')
			p++;
		t = p;
		while (*p != '\0' && *p != ' ')
			p++;
		if ((n = (size_t)(p - t)) == 0)
			continue;
		memcpy(arg, t, n);
		arg[n] = '\0';
		for (i = 0; i < nfilters; i++)
			if (regexec(&filters[i], arg, 0, NULL, 0) == 0)
				break;
		if (i == nfilters || used + n + 2 > sizeof(matched))
			continue;
		if (used > 0)
			matched[used++] = ' ';
		memcpy(matched + used, arg, n);
		used += n;
		matched[used] = '\0';
	}
	if (used > 0)
		n = (size_t)snprintf(out, outlen, "java: %s (%s)", cl->command,
		    matched);
	else
		n = (size_t)snprintf(out, outlen, "java: %s", cl->command);
	return (n < outlen ? 0 : -ENOSPC);
}

/*
 * Why a jattach run failed, from its exit and stderr.  Returns 1 when the
 * JVM refuses attaching for good (retrying would only make it print a
 * thread dump on every SIGQUIT), 0 when another cycle may succeed.
 */
int
jv_failure_reason(const char *tail, int exited, int status, char *out,
    size_t outlen)
{
	const char *nl;
	size_t n;

	if (!exited) {
		snprintf(out, outlen, "jattach killed by signal %d", status);
		return (0);
	}
	if (tail != NULL && *tail != '\0') {
		/* The first line names the cause. */
		nl = strchr(tail, '\n');
		n = nl != NULL ? (size_t)(nl - tail) : strlen(tail);
		if (n > 200)
			n = 200;
		snprintf(out, outlen, "attach failed: %.*s", (int)n, tail);
		return (strstr(tail, "Could not start attach mechanism") !=
		    NULL || strstr(tail, "Could not attach") != NULL);
	}
	snprintf(out, outlen, "attach failed: jattach exited with status %d",
	    status);
	return (0);
}

/* The PID in the process's own namespace: the last NSpid: value. */
int
jv_status_nspid(const char *status, size_t len, int32_t *nspid)
{
	const char *p = status, *end = status + len, *next, *q;
	long v = -1, cur;
	size_t n;

	while (p < end) {
		n = jv_line(p, end, &next);
		if (jv_starts(p, n, "NSpid:")) {
			for (q = p + 6; q < p + n;) {
				while (q < p + n && (*q == ' ' || *q == '\t'))
					q++;
				if (q >= p + n || *q < '0' || *q > '9')
					break;
				for (cur = 0; q < p + n && *q >= '0' &&
				    *q <= '9'; q++)
					if (cur < 0x40000000)
						cur = cur * 10 + (*q - '0');
				v = cur;
			}
			if (v <= 0 || v >= 0x40000000)
				return (-EINVAL);
			*nspid = (int32_t)v;
			return (0);
		}
		p = next;
	}
	return (-ENOENT);
}
