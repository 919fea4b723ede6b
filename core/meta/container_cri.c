/*
 * Kubernetes CRI (runtime.v1 and v1alpha2, same wire format):
 * ListContainers' response into names as gProfiler and the kubelet's
 * dockershim spelled them, k8s_<container>_<pod>_<namespace>_<pod
 * uid>_<restartCount> (docs/specs/gprofiler-compat.md §9.2), and back into pod
 * and namespace for pprof labels.  Pure functions.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stddef.h>
#include <string.h>

#include "core/meta/container_cri.pb-c.h"
#include "meta/container.h"
#include "meta/meta.h"

#define K8S_CONTAINER	"io.kubernetes.container.name"
#define K8S_POD		"io.kubernetes.pod.name"
#define K8S_NAMESPACE	"io.kubernetes.pod.namespace"
#define K8S_UID		"io.kubernetes.pod.uid"
#define K8S_RESTART	"io.kubernetes.container.restartCount"

int
container_k8s_name(char *buf, size_t sz, const char *container,
    const char *pod, const char *ns, const char *uid, const char *restart)
{
	int n;

	n = snprintf(buf, sz, "k8s_%s_%s_%s_%s_%s", container, pod, ns, uid,
	    restart);
	return (n < 0 || (size_t)n >= sz ? -EINVAL : 0);
}

/*
 * Container, pod and namespace names are DNS labels (no '_'), so the
 * fields split on '_' without ambiguity; the uid is a UUID.
 */
int
container_k8s_split(const char *name, char *pod, size_t podsz, char *ns,
    size_t nssz)
{
	const char *f[6], *p;
	size_t i = 0, l;

	if (strncmp(name, "k8s_", 4) != 0)
		return (-EINVAL);
	p = name + 4;
	f[i++] = p;
	while ((p = strchr(p, '_')) != NULL && i < 6)
		f[i++] = ++p;
	if (i != 5 || p != NULL)
		return (-EINVAL);
	l = f[2] - f[1] - 1;
	if (l == 0 || l >= podsz)
		return (-EINVAL);
	memcpy(pod, f[1], l);
	pod[l] = '\0';
	l = f[3] - f[2] - 1;
	if (l == 0 || l >= nssz)
		return (-EINVAL);
	memcpy(ns, f[2], l);
	ns[l] = '\0';
	return (0);
}

/* Labels and annotations are the same protobuf map entry, {key, value},
 * under two generated names: one lookup for both. */
_Static_assert(sizeof(Runtime__V1__Container__LabelsEntry) ==
    sizeof(Runtime__V1__Container__AnnotationsEntry) &&
    offsetof(Runtime__V1__Container__LabelsEntry, key) ==
    offsetof(Runtime__V1__Container__AnnotationsEntry, key) &&
    offsetof(Runtime__V1__Container__LabelsEntry, value) ==
    offsetof(Runtime__V1__Container__AnnotationsEntry, value),
    "CRI labels and annotations entries differ");

static const char *
container_cri_map(Runtime__V1__Container__LabelsEntry **v, size_t n,
    const char *key)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i]->key != NULL && strcmp(v[i]->key, key) == 0)
			return (v[i]->value != NULL ? v[i]->value : "");
	return (NULL);
}

static void
container_cri_one(const Runtime__V1__Container *c,
    const struct container_sink *sink)
{
	const char *cn, *pod, *ns, *uid, *rc;
	char name[CONTAINER_NAME_MAX];

	cn = container_cri_map(c->labels, c->n_labels, K8S_CONTAINER);
	pod = container_cri_map(c->labels, c->n_labels, K8S_POD);
	ns = container_cri_map(c->labels, c->n_labels, K8S_NAMESPACE);
	uid = container_cri_map(c->labels, c->n_labels, K8S_UID);
	rc = container_cri_map((Runtime__V1__Container__LabelsEntry **)
	    c->annotations, c->n_annotations, K8S_RESTART);
	if (cn != NULL && pod != NULL && ns != NULL && uid != NULL &&
	    container_k8s_name(name, sizeof(name), cn, pod, ns, uid,
	    rc != NULL && *rc != '\0' ? rc : "0") == 0) {
		sink->put(sink->arg, c->id, name);
		return;
	}
	/* Not created by a kubelet (crictl, tests): its CRI name. */
	sink->put(sink->arg, c->id, c->metadata != NULL &&
	    c->metadata->name != NULL ? c->metadata->name : "");
}

int
container_cri_parse(const uint8_t *body, size_t len,
    const struct container_sink *sink)
{
	Runtime__V1__ListContainersResponse *r;
	const uint8_t *msg;
	size_t off = 0, msglen, i;
	int count = 0, rc;

	/* A unary answer: exactly one frame (none: a gRPC error). */
	if ((rc = container_grpc_next(body, len, &off, &msg, &msglen)) != 1 ||
	    off != len)
		return (-EINVAL);
	r = runtime__v1__list_containers_response__unpack(NULL, msglen, msg);
	if (r == NULL)
		return (-EINVAL);
	for (i = 0; i < r->n_containers; i++) {
		if (r->containers[i]->id == NULL ||
		    *r->containers[i]->id == '\0')
			continue;
		container_cri_one(r->containers[i], sink);
		count++;
	}
	runtime__v1__list_containers_response__free_unpacked(r, NULL);
	return (count);
}
