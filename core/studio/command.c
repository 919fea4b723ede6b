/*
 * Heartbeat commands (docs/specs/studio-api.md §9): a start builds a run
 * configuration from combined_config over the CLI/config defaults; runs live in
 * two slots, continuous and ad-hoc, with stop > ad-hoc > continuous.  An ad-hoc
 * run pauses the continuous one (they share the loaded plugins) and resumes it
 * when done; its completion is reported when it ends.  A mode that needs other
 * plugins (cpu -> gpu) reloads them in place.
 *
 * Commands run one at a time: one that arrives while a run is stopping
 * waits in a queue.  A command is checked before anything is stopped
 * (values, profiler_configs, a plugin for the mode); one that still fails
 * to start (a plugin refuses to load) is reported failed and the run it
 * replaced starts again, so a bad command never leaves the host idle.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "base/log.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "host/host.h"
#include "profile/profile.h"
#include "run/run.h"
#include "run/supervisor.h"
#include "studio/studio.h"

struct cmd_pending;

struct cmd_slot {
	struct run *run;
	struct config *cfg;
	char id[64];	/* command being reported */
	int stopping;
	struct cmd_pending *pend;	/* its stop in flight */
};

/* A command waiting for the one before it to settle. */
struct cmd_queued {
	struct hb_command hc;
	TAILQ_ENTRY(cmd_queued)		 entry;
};
TAILQ_HEAD(cmd_queue, cmd_queued);

static struct {
	struct event_base *base;
	const struct config *base_cfg;
	struct plugin_list *plugins;
	struct run_hooks hooks;	/* the agent's; we wrap on_finished */
	struct command_ops ops;
	struct cmd_slot cont;
	struct cmd_slot adhoc;
	struct config *cont_paused;		/* resume after the ad-hoc */
	struct json_object *cont_cc;		/* its command's settings */
	struct json_object *cont_cc_prev;	/* restored if the new fails */
	int rebase;				/* restart it after its cycle */
	int busy;				/* stops in flight */
	struct cmd_queue queue;
	struct event *drain_ev;
	void (*stop_done)(void *);
	void *stop_arg;
} cmd;

static int cmd_slot_start(struct cmd_slot *, struct config *, int adhoc);
static void cmd_execute_now(const struct hb_command *);

static void
cmd_report(struct cmd_slot *s, int ok, const char *err)
{
	if (s->id[0] != '\0' && cmd.ops.complete != NULL)
		cmd.ops.complete(s->id, ok, err, cmd.ops.arg);
	s->id[0] = '\0';
}

static void
cmd_maybe_stop_done(void)
{
	void (*done)(void *) = cmd.stop_done;

	if (done == NULL || cmd.cont.run != NULL || cmd.adhoc.run != NULL)
		return;
	cmd.stop_done = NULL;
	done(cmd.stop_arg);
}

static void
cmd_resume_continuous(void)
{
	struct config *c = cmd.cont_paused;

	cmd.cont_paused = NULL;
	if (c != NULL && cmd.stop_done == NULL && cmd.cont.run == NULL) {
		log_info("command: resuming the continuous run");
		if (cmd_slot_start(&cmd.cont, c, 0) != 0)
			log_warnx("command: the continuous run could not "
			    "resume; the host is idle until the next command");
	} else
		config_free(c);
}

/* The queued commands, one per loop turn, once no stop is in flight. */
static void
cmd_drain(evutil_socket_t fd, short what, void *arg)
{
	struct cmd_queued *q;

	(void)fd;
	(void)what;
	(void)arg;
	if (cmd.busy > 0 || (q = TAILQ_FIRST(&cmd.queue)) == NULL)
		return;
	TAILQ_REMOVE(&cmd.queue, q, entry);
	cmd_execute_now(&q->hc);
	hb_command_clear(&q->hc);
	free(q);
	if (cmd.busy == 0 && !TAILQ_EMPTY(&cmd.queue))
		event_active(cmd.drain_ev, EV_TIMEOUT, 0);
}

static void
cmd_unbusy(void)
{
	if (--cmd.busy == 0 && !TAILQ_EMPTY(&cmd.queue) &&
	    cmd.drain_ev != NULL)
		event_active(cmd.drain_ev, EV_TIMEOUT, 0);
}

static void
cmd_slot_freed(struct cmd_slot *s)
{
	run_free(s->run);
	s->run = NULL;
	config_free(s->cfg);
	s->cfg = NULL;
	s->stopping = 0;
}

static void cmd_slot_replace(struct cmd_slot *, struct config *, int, int,
		    const char *, void (*)(void *), void *);
static void cmd_stopall_one(void *);

static void
cmd_finished_stopped(void *arg)
{
	struct cmd_slot *s = arg;

	if (s == &cmd.adhoc)
		cmd_resume_continuous();
}

/* Out of the run's own callback before stopping and freeing it. */
static void
cmd_finished_later(evutil_socket_t fd, short what, void *arg)
{
	struct cmd_slot *s = arg;

	(void)fd;
	(void)what;
	if (s->run != NULL && s->pend == NULL)
		cmd_slot_replace(s, NULL, 0, 0, NULL, cmd_finished_stopped, s);
	cmd_unbusy();
}

static void
cmd_on_finished(struct run *run, int status, const char *err, void *arg)
{
	struct cmd_slot *s = arg;
	struct timeval tv = { 0, 0 };

	(void)run;
	if (s->stopping)
		return;		/* run_stop's done callback handles it */
	cmd_report(s, status == 0, status == 0 ? NULL : (err != NULL ? err :
	    strerror(-status)));
	s->stopping = 1;
	cmd.busy++;	/* commands wait until it is stopped */
	event_base_once(cmd.base, -1, EV_TIMEOUT, cmd_finished_later, s, &tv);
}

/* The continuous run's command over the current base; NULL on error. */
static struct config *
cmd_rebuild_continuous(void)
{
	struct config *c;
	char err[512];
	int skip;

	if (command_build_config(cmd.base_cfg, cmd.cont_cc, studio_hostname(),
	    &c, &skip, err, sizeof(err)) != 0 || skip) {
		log_warnx("reload: the continuous run keeps its settings: %s",
		    skip ? "its command no longer targets this host" : err);
		config_free(c);
		return (NULL);
	}
	return (c);
}

/* Between two cycles of the continuous run: restart it on the new base. */
static void
cmd_rebase_now(evutil_socket_t fd, short what, void *arg)
{
	struct config *c;

	if (cmd.cont.run == NULL || cmd.cont.stopping || cmd.cont_cc == NULL ||
	    cmd.stop_done != NULL)
		return;
	if (cmd.busy > 0 || !TAILQ_EMPTY(&cmd.queue)) {
		cmd.rebase = 1;		/* after the next cycle, then */
		return;
	}
	if ((c = cmd_rebuild_continuous()) == NULL)
		return;
	log_info("command: the continuous run restarts on the reloaded "
	    "configuration");
	cmd_slot_replace(&cmd.cont, c, 0, 0, NULL, NULL, NULL);
}

static void
cmd_cycle(const struct cycle_output *co, const char *col, size_t collen,
    void *arg)
{
	struct timeval now = { 0, 0 };

	if (cmd.hooks.on_cycle != NULL)
		cmd.hooks.on_cycle(co, col, collen, cmd.hooks.arg);
	if (arg == &cmd.cont && cmd.rebase) {
		cmd.rebase = 0;
		event_base_once(cmd.base, -1, EV_TIMEOUT, cmd_rebase_now, NULL,
		    &now);
	}
}

static const char *
cmd_container(int32_t pid, void *arg)
{
	return (cmd.hooks.container_name(pid, cmd.hooks.arg));
}

/* "perf [cpu], iaprof [gpu]": what is installed, for messages. */
static void
cmd_installed(char *buf, size_t len)
{
	struct plugin *p;
	size_t n;

	buf[0] = '\0';
	TAILQ_FOREACH(p, cmd.plugins, entry) {
		n = strlen(buf);
		snprintf(buf + n, len - n, "%s%s [%s%s%s]", n ? ", " : "",
		    p->manifest.name,
		    (p->manifest.modes & MODE_CPU) ? "cpu" : "",
		    (p->manifest.modes & MODE_ALLOCATION) ?
		    ((p->manifest.modes & MODE_CPU) ? " allocation" :
		    "allocation") : "",
		    (p->manifest.modes & MODE_GPU) ? ((p->manifest.modes &
		    (MODE_CPU | MODE_ALLOCATION)) ? " gpu" : "gpu") : "");
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "no plugins");
}

/*
 * What can be known before anything is stopped: some installed plugin
 * serves the run's mode (from the manifests; nothing is loaded).
 */
static int
cmd_check_mode(const struct config *c, char *err, size_t errlen)
{
	struct plugin *p;
	unsigned mode = config_mode(c);
	char inst[400];

	if (mode == MODE_NONE)
		return (0);
	TAILQ_FOREACH(p, cmd.plugins, entry)
		if (p->manifest.modes & mode)
			return (0);
	cmd_installed(inst, sizeof(inst));
	snprintf(err, errlen, "%s %s: no plugin serves mode %s on this host "
	    "(installed: %s)", config_source(c, "mode") == SRC_COMMAND ?
	    "profiling_mode" : "--mode", config_mode_name(mode),
	    config_mode_name(mode), inst);
	return (-ENOENT);
}

/*
 * Start a run in slot s with configuration c (taken).  0, or -1 with the
 * slot's command reported failed (and, for an ad-hoc run, the continuous
 * run resumed).
 */
static int
cmd_slot_start(struct cmd_slot *s, struct config *c, int adhoc)
{
	struct run_hooks h;
	char err[1024];

	if (cmd.stop_done != NULL) {
		/* An ad-hoc run whose turn came while the agent stops. */
		config_free(c);
		cmd_report(s, 0, "the agent is shutting down");
		return (-1);
	}
	memset(&h, 0, sizeof(h));
	h.on_cycle = cmd_cycle;
	h.on_finished = cmd_on_finished;
	h.container_name = cmd.hooks.container_name != NULL ?
	    cmd_container : NULL;
	h.arg = s;
	/* The supervisor loads the plugins the run needs when they differ
	 * from the loaded set (cpu -> gpu, a profiler turned off or on), and
	 * c learns their option rows and is checked, as at start-up. */
	if (supervisor_start(c, &h, "command", &s->run, err,
	    sizeof(err)) != 0) {
		config_free(c);
		log_warnx("command: the run cannot start: %s", err);
		cmd_report(s, 0, err);
		goto fail;
	}
	s->cfg = c;
	/* A continuous run is acknowledged once started (§12 #13). */
	if (!adhoc)
		cmd_report(s, 1, NULL);
	return (0);
fail:
	if (adhoc)
		cmd_resume_continuous();
	return (-1);
}

struct cmd_pending {
	struct cmd_slot *slot;
	struct config *cfg;	/* to start once stopped, or NULL */
	int adhoc;
	int pause;	/* keep the stopped config */
	int counted;	/* in cmd.busy */
	char id[64];	/* the new command */
	void (*after)(void *);
	void *after_arg;
};

/*
 * The continuous run that a new continuous command replaced could not be
 * followed by the new one: start the old one again (its settings, and
 * its command's for a later SIGHUP).
 */
static void
cmd_restore_continuous(struct config *prev)
{
	json_object_put(cmd.cont_cc);
	cmd.cont_cc = cmd.cont_cc_prev;
	cmd.cont_cc_prev = NULL;
	if (prev == NULL) {
		log_info("command: no run was in force before it; the host "
		    "stays idle until the next command");
		return;
	}
	log_info("command: the previous continuous run starts again");
	if (cmd_slot_start(&cmd.cont, prev, 0) != 0)
		log_warnx("command: the previous continuous run could not "
		    "start again; the host is idle until the next command");
}

static void
cmd_stopped(void *arg)
{
	struct cmd_pending *p = arg;
	struct cmd_slot *s = p->slot;
	struct config *prev = NULL;

	s->pend = NULL;
	if (p->pause && s->cfg != NULL) {
		config_free(cmd.cont_paused);
		cmd.cont_paused = s->cfg;
		s->cfg = NULL;
	} else if (s == &cmd.cont && p->cfg != NULL && !p->adhoc) {
		prev = s->cfg;		/* to restore if p->cfg fails */
		s->cfg = NULL;
	}
	cmd_slot_freed(s);
	if (p->cfg != NULL) {
		snprintf(s->id, sizeof(s->id), "%s", p->id);
		if (cmd_slot_start(s, p->cfg, p->adhoc) != 0 && s == &cmd.cont &&
		    !p->adhoc && cmd.stop_done == NULL) {
			cmd_restore_continuous(prev);
			prev = NULL;
		} else if (s == &cmd.cont) {
			json_object_put(cmd.cont_cc_prev);
			cmd.cont_cc_prev = NULL;
		}
	}
	config_free(prev);
	if (p->after != NULL)
		p->after(p->after_arg);
	if (p->counted)
		cmd_unbusy();
	free(p);
	cmd_maybe_stop_done();
}

/* Stop slot s (reporting a command it owed as failed: superseded). */
static void
cmd_slot_replace(struct cmd_slot *s, struct config *next, int adhoc,
    int pause, const char *id, void (*after)(void *), void *after_arg)
{
	struct cmd_pending *p;
	char why[160];

	p = xcalloc(1, sizeof(*p));
	p->after = after;
	p->after_arg = after_arg;
	p->slot = s;
	p->cfg = next;
	p->adhoc = adhoc;
	p->pause = pause;
	snprintf(p->id, sizeof(p->id), "%s", id != NULL ? id : "");
	if (s->pend != NULL) {
		/*
		 * Only the shutdown comes while a stop is in flight (commands
		 * wait): what the stop was for is not started.
		 */
		free(p);
		if (s->pend->cfg != NULL) {
			config_free(s->pend->cfg);
			s->pend->cfg = NULL;
			if (s->pend->id[0] != '\0' && cmd.ops.complete != NULL)
				cmd.ops.complete(s->pend->id, 0, "the agent is "
				    "shutting down", cmd.ops.arg);
		}
		s->pend->pause = 0;
		return;
	}
	if (s->run == NULL) {
		cmd_stopped(p);
		return;
	}
	if (s->id[0] != '\0')
		cmd_report(s, 0, cmd.stop_done != NULL ? "the agent is "
		    "shutting down" : "stopped by a newer command");
	s->stopping = 1;
	s->pend = p;
	p->counted = 1;
	cmd.busy++;
	/* What becomes of the partial cycle is said once, naming the cause
	 * (the agent's own shutdown and a finished run have none). */
	why[0] = '\0';
	if (cmd.stop_done != NULL)
		;
	else if (pause)
		snprintf(why, sizeof(why), "command: an ad-hoc command pauses "
		    "the continuous run");
	else if (next != NULL && p->id[0] != '\0')
		snprintf(why, sizeof(why), "command: %s replaces the %s run",
		    p->id, s == &cmd.adhoc ? "ad-hoc" : "continuous");
	else if (after == cmd_stopall_one)
		snprintf(why, sizeof(why), "command: a stop command ends the "
		    "%s run", s == &cmd.adhoc ? "ad-hoc" : "continuous");
	supervisor_stop(s->run, why[0] != '\0' ? why : NULL, cmd_stopped, p);
}

struct cmd_adhoc_next {
	struct config *cfg;
	char id[64];
};

/* The continuous run is paused: now the ad-hoc run may start. */
static void
cmd_adhoc_after_pause(void *arg)
{
	struct cmd_adhoc_next *n = arg;

	cmd_slot_replace(&cmd.adhoc, n->cfg, 1, 0, n->id, NULL, NULL);
	free(n);
}

static void
cmd_start(const struct hb_command *hc)
{
	struct cmd_adhoc_next *n;
	struct config *c;
	char err[1024];
	int skip;

	if (command_build_config(cmd.base_cfg, hc->combined_config,
	    studio_hostname(), &c, &skip, err, sizeof(err)) != 0) {
		cmd.ops.complete(hc->command_id, 0, err, cmd.ops.arg);
		return;
	}
	if (skip) {
		log_info("command: %s targets other hosts; ignored",
		    hc->command_id);
		if (cmd.ops.settled != NULL)
			cmd.ops.settled(hc->command_id, cmd.ops.arg);
		return;
	}
	if (cmd_check_mode(c, err, sizeof(err)) != 0) {
		config_free(c);
		cmd.ops.complete(hc->command_id, 0, err, cmd.ops.arg);
		return;
	}
	if (config_get_bool(c, "continuous")) {
		json_object_put(cmd.cont_cc_prev);
		cmd.cont_cc_prev = cmd.cont_cc;
		cmd.cont_cc = json_object_get(hc->combined_config);
		cmd.rebase = 0;		/* built on the current base */
		if (cmd.adhoc.run != NULL) {
			/* Runs after the ad-hoc one; acknowledged now. */
			config_free(cmd.cont_paused);
			cmd.cont_paused = c;
			json_object_put(cmd.cont_cc_prev);
			cmd.cont_cc_prev = NULL;
			cmd.ops.complete(hc->command_id, 1, NULL, cmd.ops.arg);
			return;
		}
		cmd_slot_replace(&cmd.cont, c, 0, 0, hc->command_id, NULL, NULL);
		return;
	}
	/* Ad-hoc: pause the continuous run (they share the plugins). */
	if (cmd.cont.run != NULL) {
		log_info("command: pausing the continuous run for ad-hoc "
		    "command %s", hc->command_id);
		n = xcalloc(1, sizeof(*n));
		n->cfg = c;
		snprintf(n->id, sizeof(n->id), "%s", hc->command_id);
		cmd_slot_replace(&cmd.cont, NULL, 0, 1, NULL,
		    cmd_adhoc_after_pause, n);
		return;
	}
	cmd_slot_replace(&cmd.adhoc, c, 1, 0, hc->command_id, NULL, NULL);
}

static void
cmd_stop_reported(void *arg)
{
	char *id = arg;

	if (cmd.cont.run == NULL && cmd.adhoc.run == NULL) {
		cmd.ops.complete(id, 1, NULL, cmd.ops.arg);
		free(id);
	}
}

struct cmd_stopall {
	char *id;
	int left;
};

static void
cmd_stopall_one(void *arg)
{
	struct cmd_stopall *sa = arg;

	if (--sa->left > 0)
		return;
	if (sa->id != NULL)
		cmd_stop_reported(sa->id);
	free(sa);
}

/* Forget the continuous command: no run of it comes back. */
static void
cmd_forget_continuous(void)
{
	json_object_put(cmd.cont_cc_prev);
	cmd.cont_cc_prev = NULL;
	config_free(cmd.cont_paused);
	cmd.cont_paused = NULL;
	json_object_put(cmd.cont_cc);
	cmd.cont_cc = NULL;
	cmd.rebase = 0;
}

static void
cmd_stop_everything(const char *id)
{
	struct cmd_stopall *sa;

	cmd_forget_continuous();
	sa = xcalloc(1, sizeof(*sa));
	sa->id = id != NULL ? xstrdup(id) : NULL;
	sa->left = 3;	/* the two slots and this call */
	cmd_slot_replace(&cmd.adhoc, NULL, 0, 0, NULL, cmd_stopall_one, sa);
	cmd_slot_replace(&cmd.cont, NULL, 0, 0, NULL, cmd_stopall_one, sa);
	cmd_stopall_one(sa);
}

static void
cmd_execute_now(const struct hb_command *hc)
{
	char err[96];

	if (strcmp(hc->command_type, "start") == 0)
		cmd_start(hc);
	else if (strcmp(hc->command_type, "stop") == 0)
		cmd_stop_everything(hc->command_id);
	else {
		snprintf(err, sizeof(err), "Unknown command type: %s",
		    hc->command_type);
		cmd.ops.complete(hc->command_id, 0, err, cmd.ops.arg);
	}
}

/*
 * Act on a new command (already de-duplicated by heartbeat.c): now, or
 * once the stop in flight is over (commands run in arrival order).
 */
void
command_execute(const struct hb_command *hc)
{
	struct cmd_queued *q;

	if (cmd.stop_done != NULL) {
		cmd.ops.complete(hc->command_id, 0, "the agent is shutting "
		    "down", cmd.ops.arg);
		return;
	}
	if (cmd.busy == 0 && TAILQ_EMPTY(&cmd.queue)) {
		cmd_execute_now(hc);
		return;
	}
	log_info("command: %s waits for the previous command to settle",
	    hc->command_id);
	q = xcalloc(1, sizeof(*q));
	q->hc = *hc;
	q->hc.combined_config = json_object_get(hc->combined_config);
	TAILQ_INSERT_TAIL(&cmd.queue, q, entry);
}

void
command_init(struct event_base *base, const struct config *cfg,
    struct plugin_list *plugins, const struct run_hooks *hooks,
    const struct command_ops *ops)
{
	memset(&cmd, 0, sizeof(cmd));
	cmd.base = base;
	cmd.base_cfg = cfg;
	cmd.plugins = plugins;
	cmd.hooks = *hooks;
	cmd.ops = *ops;
	TAILQ_INIT(&cmd.queue);
	cmd.drain_ev = event_new(base, -1, 0, cmd_drain, NULL);
}

/*
 * SIGHUP: later commands build on the new base configuration (the caller
 * keeps it alive); the continuous run in force is rebuilt from it and its
 * command's settings: a paused one now, a running one after its current
 * cycle (nothing collected is abandoned).
 */
void
command_rebase(const struct config *base)
{
	struct config *c;

	cmd.base_cfg = base;
	if (cmd.cont_cc == NULL || cmd.stop_done != NULL)
		return;
	if (cmd.cont_paused != NULL) {
		if ((c = cmd_rebuild_continuous()) != NULL) {
			config_free(cmd.cont_paused);
			cmd.cont_paused = c;
		}
	} else if (cmd.cont.run != NULL)
		cmd.rebase = 1;
}

/* Stop every command run (shutdown), then done(arg). */
void
command_stop_all(void (*done)(void *), void *arg)
{
	struct cmd_queued *q;

	cmd.stop_done = done;
	cmd.stop_arg = arg;
	while ((q = TAILQ_FIRST(&cmd.queue)) != NULL) {
		TAILQ_REMOVE(&cmd.queue, q, entry);
		cmd.ops.complete(q->hc.command_id, 0, "the agent is shutting "
		    "down", cmd.ops.arg);
		hb_command_clear(&q->hc);
		free(q);
	}
	if (cmd.drain_ev != NULL)
		event_free(cmd.drain_ev);
	cmd.drain_ev = NULL;
	cmd_forget_continuous();
	cmd_slot_replace(&cmd.adhoc, NULL, 0, 0, NULL, NULL, NULL);
	cmd_slot_replace(&cmd.cont, NULL, 0, 0, NULL, NULL, NULL);
	cmd_maybe_stop_done();
}
