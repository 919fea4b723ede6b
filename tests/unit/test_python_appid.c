/*
 * Python appid rules (docs/specs/cpython.md §14, docs/specs/gprofiler-compat.md
 * §8) over argv fixtures, with a fake filesystem: paths resolve through a
 * symlink table rooted in a fixture directory, ini files come from fixtures.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testing.h"
#include "pyreader.h"

/* The fake root: /srv/current -> /srv/releases/7 (as in a deploy). */
static int
fake_resolve(void *arg, const char *in, char *out, size_t len)
{
	if (strncmp(in, "/srv/current/", 13) == 0)
		snprintf(out, len, "/srv/releases/7/%s", in + 13);
	else if (strcmp(in, "/missing/x.py") == 0)
		return (-2);
	else
		snprintf(out, len, "%s", in);
	return (0);
}

static char *
fake_read(void *arg, const char *path, size_t *len)
{
	const char *text = NULL;

	if (strcmp(path, "/srv/current/app.ini") == 0)
		text = "[other]\nmodule = wrong\n[uwsgi]\nhttp = :80\n"
		    "module = web.wsgi:application\n";
	else if (strcmp(path, "/etc/uwsgi/plain.ini") == 0)
		text = "[uwsgi]\nprocesses = 4\n";
	if (text == NULL)
		return (NULL);
	*len = strlen(text);
	return (strdup(text));
}

static void
expect(const char *cwd, const char *want, const char *what, ...)
{
	const char *argv[32];
	struct py_appid_env env = { cwd, fake_resolve, fake_read, NULL };
	char out[2048];
	va_list ap;
	int argc = 0;

	va_start(ap, what);
	while (argc < 32 && (argv[argc] = va_arg(ap, const char *)) != NULL)
		argc++;
	va_end(ap);
	py_appid(argv, argc, &env, out, sizeof(out));
	CHECK_STREQ(out, want, what);
}

int
main(void)
{
	const char *c = "/srv/current";

	expect(c, "gunicorn: web.app:create() (/srv/releases/7/web/app.py)",
	    "gunicorn setproctitle title",
	    "gunicorn: worker [web.app:create()]", "", "", NULL);
	expect(c, "", "title with other args is not the title rule",
	    "gunicorn: master [x:y]", "extra", NULL);
	expect(c, "gunicorn: proj.wsgi:app (/srv/releases/7/proj/wsgi.py)",
	    "gunicorn argv[1] basename", "/usr/bin/python3",
	    "/usr/local/bin/gunicorn", "-b", "0.0.0.0:80", "proj.wsgi:app",
	    NULL);
	expect(c, "gunicorn: unknown app name (unknown app name)",
	    "gunicorn without a spec", "gunicorn", "--bind", "1.2.3.4:5",
	    NULL);
	expect(c, "gunicorn: /opt/py:3/python (/opt/py.py)",
	    "gunicorn quirk: argv[0]'s preceding argument is the last one",
	    "/opt/py:3/python", "/bin/gunicorn", "app:x", NULL);
	expect(c, "gunicorn: app:x (/srv/releases/7/app.py)",
	    "gunicorn quirk: last argument an option skips argv[0]",
	    "/opt/py:3/python", "/bin/gunicorn", "app:x", "-k", NULL);
	expect(c, "uvicorn: api.main:build (/srv/releases/7/api/main.py)",
	    "uvicorn --factory", "/venv/bin/uvicorn", "--factory",
	    "api.main:build", NULL);
	expect(c, "gunicorn: unknown app name (unknown app name)",
	    "gunicorn does not accept --factory", "/venv/bin/python",
	    "/venv/bin/gunicorn", "--factory", "a:b", NULL);
	expect(c, "uwsgi: app.wsgi (/srv/releases/7/app/wsgi.py)",
	    "uwsgi -w", "uwsgi", "--http", ":80", "-w", "app.wsgi", NULL);
	expect(c, "uwsgi: site/run.py (/srv/releases/7/site/run.py)",
	    "uwsgi --wsgi-file=", "/usr/bin/uwsgi", "--wsgi-file=site/run.py",
	    NULL);
	expect(c, "uwsgi: app.ini (/srv/releases/7/web/wsgi:application.py)",
	    "uwsgi ini module", "uwsgi", "--ini", "app.ini", NULL);
	expect(c, "uwsgi: /etc/uwsgi/plain.ini", "uwsgi ini without module",
	    "uwsgi", "--ini-paste=/etc/uwsgi/plain.ini", NULL);
	expect(c, "uwsgi: app.ini (/srv/releases/7/web/wsgi:application.py)",
	    "uwsgi single bare .ini", "uwsgi", "app.ini", NULL);
	expect(c, "uwsgi: ini file / wsgi module not found", "uwsgi nothing",
	    "uwsgi", "--master", NULL);
	expect(c, "celery: tasks.app (/srv/releases/7/tasks/app.py)",
	    "celery -A X", "/venv/bin/celery", "-A", "tasks.app", "worker",
	    NULL);
	expect(c, "celery: proj (/srv/releases/7/proj.py)", "celery -AX",
	    "/venv/bin/python3", "/venv/bin/celery", "-Aproj", "worker", NULL);
	expect(c, "celery: proj (/srv/releases/7/proj.py)", "celery --app=X",
	    "python3.11", "-m", "celery", "--app=proj", "worker", NULL);
	expect(c, "celery queue: q1,q2 (/srv/current)", "celery -Q",
	    "celery", "worker", "--queues", "q1,q2", NULL);
	expect(c, "python: -m celery", "celery without app falls through",
	    "python3", "-m", "celery", "worker", NULL);
	expect(c, "pyspark", "pyspark daemon", "python3", "-m",
	    "pyspark.daemon", NULL);
	expect(c, "python: -m http.server", "python -m", "/usr/bin/python3.11",
	    "-u", "-m", "http.server", "8000", NULL);
	expect(c, "python: app.py (/srv/releases/7/app.py)", "python script",
	    "python", "app.py", "--port", "1", NULL);
	expect("/", "python: /missing/x.py (/missing/x.py)",
	    "unresolvable path kept", "python2", "/missing/x.py", NULL);
	expect(c, "", "python with options first: argv[1] is not a script",
	    "python3", "-u", "app.py", NULL);
	expect(c, "", "not a python binary", "/usr/bin/python3-config",
	    "x.py", NULL);
	expect(c, "", "python3.123 is not a python binary", "python3.123",
	    "x.py", NULL);
	return (testing_done());
}
