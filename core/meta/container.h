/*
 * Container names, private to core/container*.c: the pure parsers of each
 * runtime's answer (unit tested and fuzzed) and the table they fill.
 */
#ifndef GP_CONTAINER_H
#define GP_CONTAINER_H

#include <stddef.h>
#include <stdint.h>

struct event_base;

#include <stddef.h>
#include <stdint.h>

/*
 * A lookup key: a 64-hex container id, or "<namespace>/<id>" for a
 * containerd container whose id is not 64 hex characters (ctr run).
 */
#define CONTAINER_KEY_MAX	160
/* Longest name kept; longer ones are cut (a frame, not a document). */
#define CONTAINER_NAME_MAX	256

/* Where parsed (key, name) pairs go. */
struct container_sink {
	void (*put)(void *arg, const char *key, const char *name);
	void *arg;
};

/* container_cgroup.c */
/*
 * The lookup key of a /proc/PID/cgroup text: the container id (the last
 * run of exactly 64 hex characters in the first line that has one), else
 * "<ns>/<id>" from a path of exactly two components that look like a
 * containerd namespace and id (cgroupfs layout of `ctr run`).  0 or
 * -ENOENT.
 */
int container_key_parse(const char *cgroup, size_t len,
	    char key[CONTAINER_KEY_MAX]);

/* container_docker.c */
/*
 * A Docker Engine (or podman compat) GET /containers/json body: each
 * container's first name without its '/'.  The number of containers, or
 * -EINVAL.
 */
int container_docker_parse(const char *body, size_t len,
	    const struct container_sink *);

/* container_grpc.c */
#define CONTAINER_GRPC_MSG_MAX	(16u << 20)	/* containerd sends at most this */
/* The 5-byte gRPC frame header for an uncompressed message of len bytes. */
void container_grpc_header(uint8_t hdr[5], size_t len);
/*
 * The next message of a gRPC body at *off: 1 with msg/msglen set and *off
 * advanced, 0 at the end, -EINVAL for a truncated, compressed or
 * oversized frame.
 */
int container_grpc_next(const uint8_t *body, size_t len, size_t *off,
	    const uint8_t **msg, size_t *msglen);

/* container_cri.c */
/*
 * A CRI ListContainersResponse gRPC body: a k8s_ name for each container
 * with the io.kubernetes.* labels, else its metadata name.  The number
 * of containers, or -EINVAL (no frame, garbage).
 */
int container_cri_parse(const uint8_t *body, size_t len,
	    const struct container_sink *);
/* k8s_<container>_<pod>_<namespace>_<uid>_<restart>; -EINVAL when cut. */
int container_k8s_name(char *buf, size_t sz, const char *container,
	    const char *pod, const char *ns, const char *uid,
	    const char *restart);

/* container_containerd.c */
/*
 * A Namespaces/List gRPC body: the namespace names, a NULL-terminated
 * array the caller frees with container_strv_free(); NULL for garbage.
 */
char **container_containerd_parse_ns(const uint8_t *body, size_t len);
/*
 * A Containers/ListStream gRPC body for namespace ns: each container by
 * its nerdctl name, else its id; keyed by its id when that is 64 hex,
 * else "<ns>/<id>".  The number of containers, or -EINVAL.
 */
int container_containerd_parse_list(const uint8_t *body, size_t len,
	    const char *ns, const struct container_sink *);
void container_strv_free(char **);

/* container.c: for tests */
struct container_socks {
	const char *docker;
	const char *podman;
	const char *containerd;	/* CRI and containerd's own API */
	const char *crio;
	unsigned timeout_ms;	/* per request; 0: 5 s */
	int host;		/* under /proc/1/root first */
};
int container_init_socks(struct event_base *,
		    const struct container_socks *);
const char *container_name_for_key(const char *key);
/* 1 while a refresh is running */
int container_refreshing(void);

#endif
