/*
 * containerd's own API, for containers not created through CRI (`ctr
 * run`, nerdctl): Namespaces/List, then Containers/ListStream per
 * namespace.  Pure parsers of the gRPC bodies.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/xmalloc.h"
#include "core/meta/container_containerd.pb-c.h"
#include "meta/container.h"

/* nerdctl's label for the name `nerdctl ps` shows. */
#define CTRD_NERDCTL_NAME	"nerdctl/name"
/* Set on what containerd's CRI plugin created: CRI names those. */
#define CTRD_CRI_KIND		"io.cri-containerd.kind"
/* Bounds what a lying server can make us hold. */
#define CTRD_MAX_NS		256

void
container_strv_free(char **v)
{
	char **p;

	if (v == NULL)
		return;
	for (p = v; *p != NULL; p++)
		free(*p);
	free(v);
}

char **
container_containerd_parse_ns(const uint8_t *body, size_t len)
{
	Containerd__Services__V1__ListNamespacesResponse *r;
	const uint8_t *msg;
	size_t off = 0, msglen, i, n = 0;
	char **v = NULL;

	if (container_grpc_next(body, len, &off, &msg, &msglen) != 1 ||
	    off != len)
		return (NULL);
	r = containerd__services__v1__list_namespaces_response__unpack(NULL,
	    msglen, msg);
	if (r == NULL)
		return (NULL);
	v = xcalloc(CTRD_MAX_NS + 1, sizeof(*v));
	for (i = 0; i < r->n_namespaces && n < CTRD_MAX_NS; i++)
		if (r->namespaces[i]->name != NULL &&
		    *r->namespaces[i]->name != '\0')
			v[n++] = xstrdup(r->namespaces[i]->name);
	containerd__services__v1__list_namespaces_response__free_unpacked(r,
	    NULL);
	return (v);
}

static int
container_ctrd_hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return (0);
	return (i == 64);
}

static void
container_ctrd_one(const Containerd__Services__V1__Container *c,
    const char *ns, const struct container_sink *sink)
{
	const char *name = c->id;
	char key[CONTAINER_KEY_MAX];
	size_t i;

	for (i = 0; i < c->n_labels; i++) {
		if (c->labels[i]->key == NULL || c->labels[i]->value == NULL)
			continue;
		if (strcmp(c->labels[i]->key, CTRD_CRI_KIND) == 0)
			return;
		if (*c->labels[i]->value != '\0' &&
		    strcmp(c->labels[i]->key, CTRD_NERDCTL_NAME) == 0)
			name = c->labels[i]->value;
	}
	if (container_ctrd_hex64(c->id))
		snprintf(key, sizeof(key), "%s", c->id);
	else if (snprintf(key, sizeof(key), "%s/%s", ns, c->id) >=
	    (int)sizeof(key))
		return;
	sink->put(sink->arg, key, name);
}

int
container_containerd_parse_list(const uint8_t *body, size_t len,
    const char *ns, const struct container_sink *sink)
{
	Containerd__Services__V1__ListContainerMessage *m;
	const uint8_t *msg;
	size_t off = 0, msglen;
	int rc, count = 0;

	/* A stream: one frame per container; none at all is a gRPC error. */
	while ((rc = container_grpc_next(body, len, &off, &msg,
	    &msglen)) == 1) {
		m = containerd__services__v1__list_container_message__unpack(
		    NULL, msglen, msg);
		if (m == NULL)
			return (-EINVAL);
		if (m->container != NULL && m->container->id != NULL &&
		    *m->container->id != '\0') {
			container_ctrd_one(m->container, ns, sink);
			count++;
		}
		containerd__services__v1__list_container_message__free_unpacked(
		    m, NULL);
	}
	return (rc < 0 ? -EINVAL : count);
}
