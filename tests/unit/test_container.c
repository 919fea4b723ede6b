/*
 * Unit tests of the container parsers: cgroup text (v1, v2, every runtime's
 * shape), Docker's list, gRPC framing, CRI and containerd answers (built
 * with the same protobuf-c code a runtime's bytes go through), k8s names.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/meta/container_containerd.pb-c.h"
#include "core/meta/container_cri.pb-c.h"
#include "meta/container.h"
#include "meta/meta.h"
#include "testing.h"

#define ID1 "0c1dabcdef0123456789abcdef0123456789abcdef0123456789abcdef012345"
#define ID2 "ffffabcdef0123456789abcdef0123456789abcdef0123456789abcdef0123aa"

struct got {
	char key[8][CONTAINER_KEY_MAX];
	char name[8][CONTAINER_NAME_MAX];
	int n;
};

static void
got_put(void *arg, const char *key, const char *name)
{
	struct got *g = arg;

	if (g->n == 8)
		return;
	snprintf(g->key[g->n], CONTAINER_KEY_MAX, "%s", key);
	snprintf(g->name[g->n], CONTAINER_NAME_MAX, "%s", name);
	g->n++;
}

static int
idof(const char *s, char *id)
{
	return (container_id_parse(s, strlen(s), id));
}

static const char *
keyof(const char *s)
{
	static char key[CONTAINER_KEY_MAX];

	if (container_key_parse(s, strlen(s), key) != 0)
		return ("-");
	return (key);
}

static void
test_cgroup(void)
{
	char id[65];

	CHECK(idof("12:pids:/docker/" ID1 "\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "docker v1 path");
	CHECK(idof("0::/system.slice/docker-" ID1 ".scope\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "systemd scope");
	CHECK(idof("0::/kubepods/burstable/pod0c1d/cri-containerd-" ID1
	    ".scope", id) == 0 && strcmp(id, ID1) == 0, "cri-containerd");
	CHECK(idof("1:cpu:/ecs/" ID2 "/" ID1 "\n", id) == 0 &&
	    strcmp(id, ID1) == 0, "ecs: the last run wins");
	CHECK(idof("0::/user.slice/user-0.slice/session-3.scope\n", id) ==
	    -ENOENT, "host process: no id");
	CHECK(idof("0::/docker/" ID1 "a\n", id) == -ENOENT,
	    "65 hex chars is not an id");
	CHECK(idof("", id) == -ENOENT, "empty");
	CHECK(idof("2:x:/a\n1:y:/docker/" ID2 "\n", id) == 0 &&
	    strcmp(id, ID2) == 0, "later line");

	CHECK_STREQ(keyof("0::/kubepods.slice/kubepods-besteffort.slice/"
	    "kubepods-besteffort-pod0c1d.slice/crio-" ID1 ".scope\n"), ID1,
	    "crio scope, systemd driver");
	CHECK_STREQ(keyof("0::/machine.slice/libpod-" ID2 ".scope/container"),
	    ID2, "podman v2: libpod scope with a nested cgroup");
	CHECK_STREQ(keyof("5:memory:/libpod_parent/libpod-" ID2 "\n"), ID2,
	    "podman cgroupfs");
	CHECK_STREQ(keyof("4:memory:/kubepods/besteffort/pod0c1d0c1d-aaaa-"
	    "bbbb-cccc-0123456789ab/" ID1 "\n"), ID1,
	    "kubepods cgroupfs, pod uid not taken for an id");
	CHECK_STREQ(keyof("3:cpu:/default/busy-1\n0::/default/busy-1\n"),
	    "default/busy-1", "ctr run: namespace/id");
	CHECK_STREQ(keyof("0::/system.slice/cron.service\n"), "-",
	    "a systemd service is no container");
	CHECK_STREQ(keyof("0::/user.slice/user-0.slice/session-3.scope"), "-",
	    "a login session is no container");
	CHECK_STREQ(keyof("0::/\n"), "-", "root cgroup");
	CHECK_STREQ(keyof("0::/a/b/c\n"), "-", "three levels: not ctr's shape");
	CHECK_STREQ(keyof("0::/-x/y\n"), "-", "not a containerd identifier");
	CHECK_STREQ(keyof("garbage"), "-", "no colons");
}

static void
test_docker(void)
{
	struct got g;
	const char *docker;

	memset(&g, 0, sizeof(g));
	docker = "[{\"Id\": \"" ID1 "\", \"Names\": [\"/web\"]}, "
	    "{\"Id\": \"short\", \"Names\": [\"/x\"]}, "
	    "{\"Id\": \"" ID2 "\", \"Names\": []}]";
	struct container_sink sink = { got_put, &g };
	CHECK_INTEQ(container_docker_parse(docker, strlen(docker), &sink), 2,
	    "two valid containers");
	CHECK_STREQ(g.name[0], "web", "name without /");
	CHECK_STREQ(g.key[1], ID2, "second id");
	CHECK_STREQ(g.name[1], "", "no names: empty");
	CHECK_INTEQ(container_docker_parse("{}", 2, &sink), -EINVAL,
	    "not a list");
	CHECK_INTEQ(container_docker_parse("[", 1, &sink), -EINVAL,
	    "truncated");
	docker = "[{\"Id\": \"" ID1 "X\"}, 7, null, {\"Id\": 5}]";
	CHECK_INTEQ(container_docker_parse(docker, strlen(docker), &sink), 0,
	    "wrong shapes are skipped");
}

/* A gRPC frame around a packed message; caller frees. */
static uint8_t *
frame(const ProtobufCMessage *m, size_t *len)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	uint8_t *b = malloc(n + 5);

	container_grpc_header(b, n);
	protobuf_c_message_pack(m, b + 5);
	*len = n + 5;
	return (b);
}

static void
test_grpc(void)
{
	const uint8_t two[] = { 0, 0, 0, 0, 1, 0x42, 0, 0, 0, 0, 0 };
	const uint8_t big[] = { 0, 0xff, 0, 0, 0 };
	const uint8_t comp[] = { 1, 0, 0, 0, 0 };
	const uint8_t *msg;
	size_t off = 0, n;

	CHECK(container_grpc_next(two, sizeof(two), &off, &msg, &n) == 1 &&
	    n == 1 && msg[0] == 0x42, "first frame");
	CHECK(container_grpc_next(two, sizeof(two), &off, &msg, &n) == 1 &&
	    n == 0, "empty second frame");
	CHECK_INTEQ(container_grpc_next(two, sizeof(two), &off, &msg, &n), 0,
	    "end");
	off = 0;
	CHECK_INTEQ(container_grpc_next(two, 7, &off, &msg, &n), 1,
	    "truncated: first still whole");
	CHECK_INTEQ(container_grpc_next(two, 7, &off, &msg, &n), -EINVAL,
	    "truncated header");
	off = 0;
	CHECK_INTEQ(container_grpc_next(big, sizeof(big), &off, &msg, &n),
	    -EINVAL, "length beyond the body and the cap");
	off = 0;
	CHECK_INTEQ(container_grpc_next(comp, sizeof(comp), &off, &msg, &n),
	    -EINVAL, "compressed frame refused");
}

static Runtime__V1__Container__LabelsEntry *
label(const char *k, const char *v)
{
	Runtime__V1__Container__LabelsEntry *e = malloc(sizeof(*e));

	runtime__v1__container__labels_entry__init(e);
	e->key = (char *)k;
	e->value = (char *)v;
	return (e);
}

static void
test_cri(void)
{
	Runtime__V1__ListContainersResponse r =
	    RUNTIME__V1__LIST_CONTAINERS_RESPONSE__INIT;
	Runtime__V1__Container c[2], *cp[2];
	Runtime__V1__ContainerMetadata md =
	    RUNTIME__V1__CONTAINER_METADATA__INIT;
	Runtime__V1__Container__LabelsEntry *l[4];
	Runtime__V1__Container__AnnotationsEntry a =
	    RUNTIME__V1__CONTAINER__ANNOTATIONS_ENTRY__INIT, *ap = &a;
	struct got g;
	struct container_sink sink = { got_put, &g };
	uint8_t *b;
	size_t len, i;
	char name[64], pod[64], ns[64];

	runtime__v1__container__init(&c[0]);
	runtime__v1__container__init(&c[1]);
	c[0].id = ID1;
	l[0] = label("io.kubernetes.container.name", "web");
	l[1] = label("io.kubernetes.pod.name", "web-7d9f");
	l[2] = label("io.kubernetes.pod.namespace", "default");
	l[3] = label("io.kubernetes.pod.uid",
	    "0c1d2e3f-0000-1111-2222-333344445555");
	c[0].labels = l;
	c[0].n_labels = 4;
	a.key = "io.kubernetes.container.restartCount";
	a.value = "3";
	c[0].annotations = &ap;
	c[0].n_annotations = 1;
	c[1].id = ID2;
	md.name = "plain";
	c[1].metadata = &md;
	cp[0] = &c[0];
	cp[1] = &c[1];
	r.containers = cp;
	r.n_containers = 2;
	b = frame(&r.base, &len);
	memset(&g, 0, sizeof(g));
	CHECK_INTEQ(container_cri_parse(b, len, &sink), 2, "two containers");
	CHECK_STREQ(g.key[0], ID1, "CRI id");
	CHECK_STREQ(g.name[0],
	    "k8s_web_web-7d9f_default_0c1d2e3f-0000-1111-2222-333344445555_3",
	    "kubelet labels: the k8s_ name");
	CHECK_STREQ(g.name[1], "plain", "no labels: the CRI metadata name");
	CHECK_INTEQ(container_cri_parse(b, len - 1, &sink), -EINVAL,
	    "truncated frame");
	b[5] = 0xff;
	CHECK(container_cri_parse(b, len, &sink) < 0 || g.n <= 4,
	    "corrupted message: refused or partial, no crash");
	free(b);
	CHECK_INTEQ(container_cri_parse((const uint8_t *)"", 0, &sink),
	    -EINVAL, "no frame: a gRPC error");
	for (i = 0; i < 4; i++)
		free(l[i]);

	CHECK(container_k8s_name(name, sizeof(name), "c", "p", "n", "u", "0")
	    == 0 && strcmp(name, "k8s_c_p_n_u_0") == 0, "name built");
	CHECK_INTEQ(container_k8s_name(name, 8, "c", "p", "n", "u", "0"),
	    -EINVAL, "cut name refused");
	CHECK(container_k8s_split("k8s_web_web-7d9f_default_0c1d_3", pod,
	    sizeof(pod), ns, sizeof(ns)) == 0 && strcmp(pod, "web-7d9f") == 0 &&
	    strcmp(ns, "default") == 0, "split: pod and namespace");
	CHECK_INTEQ(container_k8s_split("web", pod, sizeof(pod), ns,
	    sizeof(ns)), -EINVAL, "not k8s_");
	CHECK_INTEQ(container_k8s_split("k8s_a_b_c_d", pod, sizeof(pod), ns,
	    sizeof(ns)), -EINVAL, "four fields");
	CHECK_INTEQ(container_k8s_split("k8s_a_b_c_d_e_f", pod, sizeof(pod),
	    ns, sizeof(ns)), -EINVAL, "six fields");
	CHECK_INTEQ(container_k8s_split("k8s_a__c_d_e", pod, sizeof(pod), ns,
	    sizeof(ns)), -EINVAL, "empty pod");
}

static void
test_containerd(void)
{
	Containerd__Services__V1__ListNamespacesResponse nr =
	    CONTAINERD__SERVICES__V1__LIST_NAMESPACES_RESPONSE__INIT;
	Containerd__Services__V1__Namespace n[2], *np[2];
	Containerd__Services__V1__ListContainerMessage m =
	    CONTAINERD__SERVICES__V1__LIST_CONTAINER_MESSAGE__INIT;
	Containerd__Services__V1__Container c =
	    CONTAINERD__SERVICES__V1__CONTAINER__INIT;
	Containerd__Services__V1__Container__LabelsEntry lab =
	    CONTAINERD__SERVICES__V1__CONTAINER__LABELS_ENTRY__INIT, *lp = &lab;
	struct got g;
	struct container_sink sink = { got_put, &g };
	uint8_t *b, *s;
	size_t len, l1, l2, l3;
	char **v;

	containerd__services__v1__namespace__init(&n[0]);
	containerd__services__v1__namespace__init(&n[1]);
	n[0].name = "default";
	n[1].name = "moby";
	np[0] = &n[0];
	np[1] = &n[1];
	nr.namespaces = np;
	nr.n_namespaces = 2;
	b = frame(&nr.base, &len);
	v = container_containerd_parse_ns(b, len);
	CHECK(v != NULL && v[0] != NULL && strcmp(v[0], "default") == 0 &&
	    strcmp(v[1], "moby") == 0 && v[2] == NULL, "namespaces");
	container_strv_free(v);
	CHECK(container_containerd_parse_ns(b, len - 2) == NULL,
	    "truncated namespaces");
	free(b);

	/* A stream of three: ctr's own id, nerdctl's name, a CRI one. */
	m.container = &c;
	c.id = "busy-1";
	b = frame(&m.base, &l1);
	c.id = ID1;
	lab.key = "nerdctl/name";
	lab.value = "web";
	c.labels = &lp;
	c.n_labels = 1;
	s = frame(&m.base, &l2);
	b = realloc(b, l1 + l2);
	memcpy(b + l1, s, l2);
	free(s);
	c.id = ID2;
	lab.key = "io.cri-containerd.kind";
	lab.value = "container";
	s = frame(&m.base, &l3);
	b = realloc(b, l1 + l2 + l3);
	memcpy(b + l1 + l2, s, l3);
	free(s);
	memset(&g, 0, sizeof(g));
	CHECK_INTEQ(container_containerd_parse_list(b, l1 + l2 + l3, "default",
	    &sink), 3, "three messages");
	CHECK_INTEQ(g.n, 2, "the CRI container is left to CRI");
	CHECK_STREQ(g.key[0], "default/busy-1", "ctr id keyed by namespace");
	CHECK_STREQ(g.name[0], "busy-1", "ctr: named by its id");
	CHECK_STREQ(g.key[1], ID1, "nerdctl: 64-hex id");
	CHECK_STREQ(g.name[1], "web", "nerdctl: its name label");
	CHECK_INTEQ(container_containerd_parse_list(b, l1 + 3, "default",
	    &sink), -EINVAL, "truncated stream");
	CHECK_INTEQ(container_containerd_parse_list(b, 0, "default", &sink), 0,
	    "empty stream: no containers");
	free(b);
}

int
main(void)
{
	test_cgroup();
	test_docker();
	test_grpc();
	test_cri();
	test_containerd();
	return (testing_done());
}
