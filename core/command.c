/*
 * Heartbeat commands (studio-api.md §9): a start builds a run configuration
 * from combined_config over the CLI/config defaults; runs live in two
 * slots, continuous and ad-hoc, with stop > ad-hoc > continuous.  An
 * ad-hoc run pauses the continuous one (they share the loaded plugins) and
 * resumes it when done; its completion is reported when it ends.  A mode
 * that needs other plugins (cpu -> gpu) reloads them in place.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <json-c/json.h>

#include "gprofiler.h"

struct cmd_slot {
	struct run	*run;
	struct config	*cfg;
	char		 id[64];	/* command being reported; "" if none */
	int		 stopping;
};

static struct {
	struct event_base	*base;
	const struct config	*base_cfg;
	struct plugin_list	*plugins;
	struct run_hooks	 hooks;	/* the agent's; we wrap on_finished */
	struct command_ops	 ops;
	unsigned		 loaded_mode;
	char			 loaded_sel[512];	/* plugins_selection */
	struct cmd_slot		 cont;
	struct cmd_slot		 adhoc;
	struct config		*cont_paused;	/* resume after the ad-hoc */
	struct json_object	*cont_cc;	/* its command's settings */
	int			 rebase;	/* restart it after its cycle */
	void			(*stop_done)(void *);
	void			*stop_arg;
} cmd;

static void	cmd_slot_start(struct cmd_slot *, struct config *, int adhoc);

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
	void	(*done)(void *) = cmd.stop_done;

	if (done == NULL || cmd.cont.run != NULL || cmd.adhoc.run != NULL)
		return;
	cmd.stop_done = NULL;
	done(cmd.stop_arg);
}

static void
cmd_resume_continuous(void)
{
	struct config	*c = cmd.cont_paused;

	cmd.cont_paused = NULL;
	if (c != NULL && cmd.stop_done == NULL && cmd.cont.run == NULL) {
		log_info("command: resuming the continuous run");
		cmd_slot_start(&cmd.cont, c, 0);
	} else
		config_free(c);
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

static void
cmd_finished_stopped(void *arg)
{
	struct cmd_slot	*s = arg;

	cmd_slot_freed(s);
	if (s == &cmd.adhoc)
		cmd_resume_continuous();
	cmd_maybe_stop_done();
}

/* Out of the run's own callback before stopping and freeing it. */
static void
cmd_finished_later(evutil_socket_t fd, short what, void *arg)
{
	struct cmd_slot	*s = arg;

	run_stop(s->run, cmd_finished_stopped, s);
}

static void
cmd_on_finished(struct run *run, int status, const char *err, void *arg)
{
	struct cmd_slot	*s = arg;
	struct timeval	 tv = { 0, 0 };

	(void)run;
	if (s->stopping)
		return;		/* run_stop's done callback handles it */
	cmd_report(s, status == 0, status == 0 ? NULL : (err != NULL ? err :
	    strerror(-status)));
	s->stopping = 1;
	event_base_once(cmd.base, -1, EV_TIMEOUT, cmd_finished_later, s, &tv);
}

static void	cmd_slot_replace(struct cmd_slot *, struct config *, int, int,
		    const char *, void (*)(void *), void *);

/* The continuous run's command over the current base; NULL on error. */
static struct config *
cmd_rebuild_continuous(void)
{
	struct config	*c;
	char		 err[512];
	int		 skip;

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
	struct config	*c;

	if (cmd.cont.run == NULL || cmd.cont.stopping || cmd.cont_cc == NULL ||
	    cmd.stop_done != NULL || (c = cmd_rebuild_continuous()) == NULL)
		return;
	log_info("command: the continuous run restarts on the reloaded "
	    "configuration");
	cmd_slot_replace(&cmd.cont, c, 0, 0, NULL, NULL, NULL);
}

static void
cmd_cycle(const struct cycle_output *co, const char *col, size_t collen,
    void *arg)
{
	struct timeval	 now = { 0, 0 };

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

/*
 * Load the plugins the command's run needs when they differ from the
 * loaded set: another mode (cpu -> gpu), a profiler turned off
 * (profiler_configs) or on (enable_perfspect).
 */
static int
cmd_plugins_for(struct config *c, char *err, size_t errlen)
{
	unsigned	 mode = config_mode(c);
	char		 want[512];

	plugins_selection(cmd.plugins, c, mode, want, sizeof(want));
	if (cmd.loaded_mode != MODE_NONE &&
	    strcmp(want, cmd.loaded_sel) == 0)
		return (0);
	log_info("command: loading plugins %s (were %s)", want,
	    *cmd.loaded_sel != '\0' ? cmd.loaded_sel : "none");
	plugins_unload(cmd.plugins);
	if (plugins_load_for_mode(cmd.plugins, cmd.base, c, mode, err,
	    errlen) != 0) {
		cmd.loaded_mode = MODE_NONE;
		cmd.loaded_sel[0] = '\0';
		plugins_unload(cmd.plugins);
		return (-EINVAL);
	}
	cmd.loaded_mode = mode;
	snprintf(cmd.loaded_sel, sizeof(cmd.loaded_sel), "%s", want);
	return (0);
}

/* Start a run in slot s with configuration c (taken). */
static void
cmd_slot_start(struct cmd_slot *s, struct config *c, int adhoc)
{
	struct run_hooks	 h;
	char			 err[512];
	int			 rc;

	if (cmd.stop_done != NULL) {
		/* An ad-hoc run whose turn came while the agent stops. */
		config_free(c);
		cmd_report(s, 0, "the agent is shutting down");
		return;
	}
	memset(&h, 0, sizeof(h));
	h.on_cycle = cmd_cycle;
	h.on_finished = cmd_on_finished;
	h.container_name = cmd.hooks.container_name != NULL ?
	    cmd_container : NULL;
	h.arg = s;
	if (cmd_plugins_for(c, err, sizeof(err)) != 0) {
		config_free(c);
		cmd_report(s, 0, err);
		return;
	}
	s->cfg = c;
	s->run = run_new(cmd.base, c, cmd.plugins, &h);
	if (s->run == NULL || (rc = run_start(s->run)) != 0) {
		cmd_slot_freed(s);
		cmd_report(s, 0, "the profiling run could not start");
		if (adhoc)
			cmd_resume_continuous();
		return;
	}
	/* A continuous run is acknowledged once started (§12 #13). */
	if (!adhoc)
		cmd_report(s, 1, NULL);
}

struct cmd_pending {
	struct cmd_slot	*slot;
	struct config	*cfg;		/* to start once stopped, or NULL */
	int		 adhoc;
	int		 pause;		/* keep the stopped config */
	char		 id[64];	/* the new command */
	void		(*after)(void *);
	void		*after_arg;
};

static void
cmd_stopped(void *arg)
{
	struct cmd_pending	*p = arg;
	struct cmd_slot		*s = p->slot;

	if (p->pause && s->cfg != NULL) {
		config_free(cmd.cont_paused);
		cmd.cont_paused = s->cfg;
		s->cfg = NULL;
	}
	cmd_slot_freed(s);
	if (p->cfg != NULL) {
		snprintf(s->id, sizeof(s->id), "%s", p->id);
		cmd_slot_start(s, p->cfg, p->adhoc);
	}
	if (p->after != NULL)
		p->after(p->after_arg);
	free(p);
	cmd_maybe_stop_done();
}

/* Stop slot s (reporting a command it owed as failed: superseded). */
static void
cmd_slot_replace(struct cmd_slot *s, struct config *next, int adhoc,
    int pause, const char *id, void (*after)(void *), void *after_arg)
{
	struct cmd_pending	*p;

	p = xcalloc(1, sizeof(*p));
	p->after = after;
	p->after_arg = after_arg;
	p->slot = s;
	p->cfg = next;
	p->adhoc = adhoc;
	p->pause = pause;
	snprintf(p->id, sizeof(p->id), "%s", id != NULL ? id : "");
	if (s->run == NULL) {
		cmd_stopped(p);
		return;
	}
	if (s->id[0] != '\0')
		cmd_report(s, 0, cmd.stop_done != NULL ? "the agent is "
		    "shutting down" : "stopped by a newer command");
	s->stopping = 1;
	run_stop(s->run, cmd_stopped, p);
}

struct cmd_adhoc_next {
	struct config	*cfg;
	char		 id[64];
};

/* The continuous run is paused: now the ad-hoc run may start. */
static void
cmd_adhoc_after_pause(void *arg)
{
	struct cmd_adhoc_next	*n = arg;

	cmd_slot_replace(&cmd.adhoc, n->cfg, 1, 0, n->id, NULL, NULL);
	free(n);
}

static void
cmd_start(const struct hb_command *hc)
{
	struct cmd_adhoc_next	*n;
	struct config	*c;
	char		 err[512];
	int		 skip;

	if (command_build_config(cmd.base_cfg, hc->combined_config,
	    studio_hostname(), &c, &skip, err, sizeof(err)) != 0) {
		cmd.ops.complete(hc->command_id, 0, err, cmd.ops.arg);
		return;
	}
	if (skip) {
		log_info("command: %s targets other hosts; ignored",
		    hc->command_id);
		return;
	}
	if (config_get_bool(c, "continuous")) {
		json_object_put(cmd.cont_cc);
		cmd.cont_cc = json_object_get(hc->combined_config);
		cmd.rebase = 0;		/* built on the current base */
		if (cmd.adhoc.run != NULL) {
			/* Runs after the ad-hoc one; acknowledged now. */
			config_free(cmd.cont_paused);
			cmd.cont_paused = c;
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
	char	*id = arg;

	if (cmd.cont.run == NULL && cmd.adhoc.run == NULL) {
		cmd.ops.complete(id, 1, NULL, cmd.ops.arg);
		free(id);
	}
}

struct cmd_stopall {
	char	*id;
	int	 left;
};

static void
cmd_stopall_one(void *arg)
{
	struct cmd_stopall	*sa = arg;

	if (--sa->left > 0)
		return;
	if (sa->id != NULL)
		cmd_stop_reported(sa->id);
	free(sa);
}

static void
cmd_stop_everything(const char *id)
{
	struct cmd_stopall	*sa;

	config_free(cmd.cont_paused);
	cmd.cont_paused = NULL;
	json_object_put(cmd.cont_cc);
	cmd.cont_cc = NULL;
	cmd.rebase = 0;
	sa = xcalloc(1, sizeof(*sa));
	sa->id = id != NULL ? xstrdup(id) : NULL;
	sa->left = 3;	/* the two slots and this call */
	cmd_slot_replace(&cmd.adhoc, NULL, 0, 0, NULL, cmd_stopall_one, sa);
	cmd_slot_replace(&cmd.cont, NULL, 0, 0, NULL, cmd_stopall_one, sa);
	cmd_stopall_one(sa);
}

/* Act on a new command (already de-duplicated by heartbeat.c). */
void
command_execute(const struct hb_command *hc)
{
	char	 err[96];

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
	cmd.loaded_mode = config_mode(cfg);
	plugins_selection(plugins, cfg, cmd.loaded_mode, cmd.loaded_sel,
	    sizeof(cmd.loaded_sel));
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
	struct config	*c;

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
	cmd.stop_done = done;
	cmd.stop_arg = arg;
	config_free(cmd.cont_paused);
	cmd.cont_paused = NULL;
	json_object_put(cmd.cont_cc);
	cmd.cont_cc = NULL;
	cmd.rebase = 0;
	cmd_slot_replace(&cmd.adhoc, NULL, 0, 0, NULL, NULL, NULL);
	cmd_slot_replace(&cmd.cont, NULL, 0, 0, NULL, NULL, NULL);
	cmd_maybe_stop_done();
}
