/* log.c: the daemon's log (stderr and an optional file), OpenBSD style. */
#ifndef GP_LOG_H
#define GP_LOG_H

#include <stdarg.h>

#define LOG_LEVEL_ERR	0
#define LOG_LEVEL_WARN	1
#define LOG_LEVEL_INFO	2
#define LOG_LEVEL_DEBUG	3

void log_init(int verbose, const char *procname);
int log_open_file(const char *path, long long max_size,
	    int backups);	/* 0 / -errno */
void log_close_file(void);
const char *log_file_refusal(int rc);	/* why log_open_file said -EMLINK */
void log_setverbose(int);
int log_getverbose(void);
void log_vmsg(int level, const char *component, const char *fmt,
	    va_list ap) __attribute__((format(printf, 3, 0)));
void log_msg(int level, const char *component, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/* One more destination for records (the Studio's logs, logship.c); the
 * sink must neither block nor log.  NULL removes it. */
void log_set_sink(void (*)(int level, const char *component,
	    const char *msg, void *arg), void *arg);
/* The process's last line, from a thread other than the loop's. */
void log_last_words(const char *);
void log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
/* The daemon's own lines at a level (no component): log_msg's checks. */
#define log_warnx(...)	log_msg(LOG_LEVEL_WARN, NULL, __VA_ARGS__)
#define log_info(...)	log_msg(LOG_LEVEL_INFO, NULL, __VA_ARGS__)
#define log_debug(...)	log_msg(LOG_LEVEL_DEBUG, NULL, __VA_ARGS__)
void fatal(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *, ...) __attribute__((format(printf, 1, 2), noreturn));

/*
 * Rate limiting for repeated failures (collectd c_complain): log the first
 * time, then at most once per interval, with the number suppressed.
 */
struct complain {
	long long c_last;	/* monotonic seconds of the last line */
	unsigned c_suppressed;
	unsigned c_interval;	/* seconds; 0 means 60 */
};
void log_complain(struct complain *, int level, const char *component,
	    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void log_release(struct complain *, const char *component, const char *fmt,
	    ...) __attribute__((format(printf, 3, 4)));

#endif
