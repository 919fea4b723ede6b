/*
 * Application identifiers of Python processes, exactly as gProfiler
 * computes them (docs/specs/cpython.md §14, docs/specs/gprofiler-compat.md §8):
 * a pure function over argv and cwd; file access goes through callbacks so the
 * rules are tested over fixtures.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pyreader.h"

#define APPID_PATH	4096
#define APPID_TOO_LONG	"<path too long>"

static const char *
appid_base(const char *s)
{
	const char *b = strrchr(s, '/');

	return (b != NULL ? b + 1 : s);
}

static int
appid_ends(const char *s, const char *suffix)
{
	size_t l = strlen(s), sl = strlen(suffix);

	return (l >= sl && strcmp(s + l - sl, suffix) == 0);
}

/* ^python([23](\.\d{1,2})?)?$ */
static int
appid_python_binary(const char *argv0)
{
	const char *b = appid_base(argv0);
	size_t digits;

	if (strncmp(b, "python", 6) != 0)
		return (0);
	b += 6;
	if (*b == '\0')
		return (1);
	if (*b != '2' && *b != '3')
		return (0);
	if (*++b == '\0')
		return (1);
	if (*b++ != '.')
		return (0);
	for (digits = 0; b[digits] >= '0' && b[digits] <= '9'; digits++)
		;
	return (digits >= 1 && digits <= 2 && b[digits] == '\0');
}

/*
 * "path of X": a module a.b becomes a/b.py; joined to cwd unless absolute;
 * symlinks resolved inside the target's root.
 */
static void
appid_path(const struct py_appid_env *env, const char *x, char *out,
    size_t len)
{
	char rel[APPID_PATH], joined[APPID_PATH * 2];
	size_t i;
	int n;

	/* Longer than PATH_MAX cannot name a file: said, never cut. */
	if (strlen(x) + 4 > sizeof(rel))
		goto too_long;
	snprintf(rel, sizeof(rel), "%s", x);
	if (!appid_ends(rel, ".py")) {
		for (i = 0; rel[i] != '\0'; i++)
			if (rel[i] == '.')
				rel[i] = '/';
		strncat(rel, ".py", sizeof(rel) - strlen(rel) - 1);
	}
	if (rel[0] == '/')
		n = snprintf(joined, sizeof(joined), "%s", rel);
	else
		n = snprintf(joined, sizeof(joined), "%s%s%s", env->cwd,
		    appid_ends(env->cwd, "/") ? "" : "/", rel);
	if (n < 0 || (size_t)n >= len || (size_t)n >= sizeof(joined))
		goto too_long;
	if (env->resolve == NULL ||
	    env->resolve(env->arg, joined, out, len) != 0)
		memcpy(out, joined, (size_t)n + 1);
	return;
too_long:
	snprintf(out, len, "%s", APPID_TOO_LONG);
}

/* ^gunicorn: (master|worker) \[([^\]]*)\]$ → the bracket content. */
static int
appid_gunicorn_title(const char *s, char *spec, size_t len)
{
	const char *p, *end;

	if (strncmp(s, "gunicorn: ", 10) != 0)
		return (0);
	p = s + 10;
	if (strncmp(p, "master [", 8) == 0 || strncmp(p, "worker [", 8) == 0)
		p += 8;
	else
		return (0);
	end = p + strlen(p);
	if (end == p || end[-1] != ']' || memchr(p, ']', (size_t)(end - 1 -
	    p)) != NULL)
		return (0);
	snprintf(spec, len, "%.*s", (int)(end - 1 - p), p);
	return (1);
}

static void
appid_with_module(const struct py_appid_env *env, const char *what,
    const char *spec, char *out, size_t len)
{
	char mod[APPID_PATH], path[APPID_PATH];
	const char *colon = strchr(spec, ':');

	snprintf(mod, sizeof(mod), "%.*s", colon ? (int)(colon - spec) :
	    (int)strlen(spec), spec);
	appid_path(env, mod, path, sizeof(path));
	snprintf(out, len, "%s: %s (%s)", what, spec, path);
}

/* gunicorn / uvicorn: the first "x:y" argument not after an option. */
static void
appid_server(const char *const *argv, int argc,
    const struct py_appid_env *env, const char *what, int factory,
    char *out, size_t len)
{
	const char *prev;
	int i;

	for (i = 0; i < argc; i++) {
		/* gProfiler's cmdline[i - 1]: argv[-1] is the last one. */
		prev = argv[i == 0 ? argc - 1 : i - 1];
		if (strchr(argv[i], ':') != NULL && (prev[0] != '-' ||
		    (factory && strcmp(prev, "--factory") == 0))) {
			appid_with_module(env, what, argv[i], out, len);
			return;
		}
	}
	snprintf(out, len, "%s: unknown app name (unknown app name)", what);
}

/* -X V, -XV, --long V, --long=V → V (NULL when absent). */
static const char *
appid_opt(const char *const *argv, int argc, const char *shortopt,
    const char *longopt)
{
	size_t sl = shortopt ? strlen(shortopt) : 0,
	    ll = longopt ? strlen(longopt) : 0;
	int i;

	for (i = 1; i < argc; i++) {
		if (shortopt != NULL && strncmp(argv[i], shortopt, sl) == 0) {
			if (argv[i][sl] != '\0')
				return (argv[i] + sl);
			if (i + 1 < argc)
				return (argv[i + 1]);
		}
		if (longopt != NULL && strncmp(argv[i], longopt, ll) == 0) {
			if (argv[i][ll] == '=')
				return (argv[i] + ll + 1);
			if (argv[i][ll] == '\0' && i + 1 < argc)
				return (argv[i + 1]);
		}
	}
	return (NULL);
}

/* module = M in the [uwsgi] section of an ini text. */
static int
appid_ini_module(const char *text, char *out, size_t len)
{
	const char *line = text, *nl, *p, *e;
	int in_uwsgi = 0, guard = 0;

	for (; *line != '\0' && guard < 100000; line = nl, guard++) {
		nl = strchr(line, '\n');
		nl = nl != NULL ? nl + 1 : line + strlen(line);
		for (p = line; p < nl && (*p == ' ' || *p == '\t'); p++)
			;
		e = nl;
		while (e > p && (e[-1] == '\n' || e[-1] == '\r' ||
		    e[-1] == ' ' || e[-1] == '\t'))
			e--;
		if (p < e && *p == '[') {
			in_uwsgi = e - p == 7 && memcmp(p, "[uwsgi]", 7) == 0;
			continue;
		}
		if (!in_uwsgi || e - p < 6 || memcmp(p, "module", 6) != 0)
			continue;
		p += 6;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p >= e || (*p != '=' && *p != ':'))
			continue;
		p++;
		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		if (p == e)
			continue;
		snprintf(out, len, "%.*s", (int)(e - p), p);
		return (1);
	}
	return (0);
}

static void
appid_uwsgi(const char *const *argv, int argc,
    const struct py_appid_env *env, char *out, size_t len)
{
	static const char *const inis[] = { "--ini", "--ini-paste",
	    "--ini-paste-logged" };
	char path[APPID_PATH], mod[APPID_PATH];
	const char *x = NULL, *ini = NULL;
	char *text;
	size_t i, tl;
	int k, nini = 0, n;

	for (k = 1; k < argc && x == NULL; k++) {
		if (strcmp(argv[k], "-w") == 0 && k + 1 < argc)
			x = argv[k + 1];
		else if (strcmp(argv[k], "--wsgi-file") == 0 && k + 1 < argc)
			x = argv[k + 1];
		else if (strncmp(argv[k], "--wsgi-file=", 12) == 0)
			x = argv[k] + 12;
	}
	if (x != NULL) {
		appid_path(env, x, path, sizeof(path));
		snprintf(out, len, "uwsgi: %s (%s)", x, path);
		return;
	}
	for (i = 0; i < 3 && ini == NULL; i++)
		ini = appid_opt(argv, argc, NULL, inis[i]);
	if (ini == NULL) {
		for (k = 1; k < argc; k++)
			if (appid_ends(argv[k], ".ini")) {
				ini = argv[k];
				nini++;
			}
		if (nini != 1)
			ini = NULL;
	}
	if (ini == NULL) {
		snprintf(out, len, "uwsgi: ini file / wsgi module not found");
		return;
	}
	/* A cut path could name another file: not read then. */
	if (ini[0] == '/')
		n = snprintf(path, sizeof(path), "%s", ini);
	else
		n = snprintf(path, sizeof(path), "%s/%s", env->cwd, ini);
	text = env->read_file != NULL && n > 0 && (size_t)n < sizeof(path) ?
	    env->read_file(env->arg, path, &tl) : NULL;
	if (text != NULL && appid_ini_module(text, mod, sizeof(mod))) {
		appid_path(env, mod, path, sizeof(path));
		snprintf(out, len, "uwsgi: %s (%s)", ini, path);
	} else
		snprintf(out, len, "uwsgi: %s", ini);
	free(text);
}

static int
appid_dash_m(const char *const *argv, int argc, const char *mod)
{
	int i;

	for (i = 1; i + 1 < argc; i++)
		if (strcmp(argv[i], "-m") == 0 &&
		    (mod == NULL || strcmp(argv[i + 1], mod) == 0))
			return (i + 1);
	return (0);
}

static int
appid_celery(const char *const *argv, int argc,
    const struct py_appid_env *env, char *out, size_t len)
{
	char path[APPID_PATH];
	const char *x;

	if ((x = appid_opt(argv, argc, "-A", "--app")) != NULL) {
		appid_path(env, x, path, sizeof(path));
		snprintf(out, len, "celery: %s (%s)", x, path);
		return (1);
	}
	if ((x = appid_opt(argv, argc, "-Q", "--queues")) != NULL) {
		snprintf(out, len, "celery queue: %s (%s)", x, env->cwd);
		return (1);
	}
	return (0);
}

/*
 * The appid of a Python process into out; "" when no rule matches.
 * Returns 0, or -EINVAL for an empty argv.
 */
int
py_appid(const char *const *argv, int argc, const struct py_appid_env *env,
    char *out, size_t len)
{
	char spec[APPID_PATH], path[APPID_PATH];
	const char *only = NULL, *b0, *b1;
	int i, nonempty = 0, python, m;

	out[0] = '\0';
	if (argc <= 0 || len == 0)
		return (-EINVAL);
	for (i = 0; i < argc; i++)
		if (argv[i][0] != '\0') {
			nonempty++;
			only = argv[i];
		}
	if (nonempty == 1 && appid_gunicorn_title(only, spec, sizeof(spec))) {
		appid_with_module(env, "gunicorn", spec, out, len);
		return (0);
	}
	b0 = appid_base(argv[0]);
	b1 = argc > 1 ? appid_base(argv[1]) : "";
	python = appid_python_binary(argv[0]);
	if (strcmp(b0, "gunicorn") == 0 || strcmp(b1, "gunicorn") == 0) {
		appid_server(argv, argc, env, "gunicorn", 0, out, len);
		return (0);
	}
	if (strcmp(b0, "uvicorn") == 0 || strcmp(b1, "uvicorn") == 0) {
		appid_server(argv, argc, env, "uvicorn", 1, out, len);
		return (0);
	}
	if (strcmp(b0, "uwsgi") == 0) {
		appid_uwsgi(argv, argc, env, out, len);
		return (0);
	}
	if ((strcmp(b0, "celery") == 0 || strcmp(b1, "celery") == 0 ||
	    (python && appid_dash_m(argv, argc, "celery"))) &&
	    appid_celery(argv, argc, env, out, len))
		return (0);
	if (python && appid_dash_m(argv, argc, "pyspark.daemon")) {
		snprintf(out, len, "pyspark");
		return (0);
	}
	if (!python)
		return (0);
	if ((m = appid_dash_m(argv, argc, NULL)) != 0) {
		snprintf(out, len, "python: -m %s", argv[m]);
		return (0);
	}
	if (argc > 1 && appid_ends(argv[1], ".py")) {
		appid_path(env, argv[1], path, sizeof(path));
		snprintf(out, len, "python: %s (%s)", argv[1], path);
	}
	return (0);
}
