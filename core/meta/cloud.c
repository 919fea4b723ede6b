/*
 * Cloud metadata (docs/specs/gprofiler-compat.md §6): AWS (IMDSv2), GCP and
 * Azure probed in parallel through the loop, 5 s each; the first that answers
 * wins and goes to metadata_set_cloud.  Elsewhere every probe fails and
 * cloud_provider stays "unknown", quietly.
 *
 * The DMI identity the clouds publish (/sys/class/dmi/id) picks the
 * probes first: only the cloud(s) it names are asked, and none when it
 * names none, so a machine off the clouds makes no HTTP request (and never
 * loads libcurl) for this.  Without DMI (a container may hide it) every
 * cloud is probed.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "base/http.h"
#include "base/log.h"
#include "base/xmalloc.h"
#include "meta/meta.h"

#define CLOUD_TIMEOUT_MS	5000
#define CLOUD_IMDS		"http://169.254.169.254"
#define CLOUD_GCP_URL		"http://metadata.google.internal"
/* Azure's fixed chassis asset tag (the one Microsoft documents). */
#define CLOUD_AZURE_TAG		"7783-7084-3265-9085-8269-3286-77"

static struct {
	int pending;
	int done;
	int probed;
	struct http_req *req[3];
	char *aws_token;
	char *aws_identity;
	void (*cb)(const char *, void *);
	void *arg;
} cl;

/* s equals want, ignoring trailing white space (sysfs ends in "\n"). */
static int
cloud_dmi_is(const char *s, const char *want)
{
	size_t n = strlen(want);

	if (s == NULL || strncmp(s, want, n) != 0)
		return (0);
	for (s += n; *s != '\0'; s++)
		if (!isspace((unsigned char)*s))
			return (0);
	return (1);
}

/* s contains want, case-insensitively. */
static int
cloud_dmi_has(const char *s, const char *want)
{
	return (s != NULL && strcasestr(s, want) != NULL);
}

/*
 * Which clouds to probe given the DMI strings (NULL: unreadable): a mask
 * of CLOUD_AWS, CLOUD_GCP, CLOUD_AZURE; 0 when DMI names none of them;
 * CLOUD_ALL when there is no DMI at all.  Pure, for the tests.
 *   AWS: "Amazon EC2" (Nitro) or "Amazon" vendors, or Xen with an
 *	"amazon" BIOS version (older Xen instances say sys_vendor "Xen").
 *   GCP: "Google" vendors or product "Google Compute Engine".
 *   Azure: "Microsoft Corporation" with Azure's chassis asset tag; a
 *	plain Hyper-V VM has another tag.  An unreadable tag is probed.
 */
unsigned
cloud_dmi_clouds(const char *sys_vendor, const char *product_name,
    const char *bios_vendor, const char *board_vendor,
    const char *chassis_asset_tag, const char *bios_version)
{
	unsigned m = 0;

	if (sys_vendor == NULL && product_name == NULL &&
	    bios_vendor == NULL && board_vendor == NULL &&
	    chassis_asset_tag == NULL && bios_version == NULL)
		return (CLOUD_ALL);
	if (cloud_dmi_is(sys_vendor, "Amazon EC2") ||
	    cloud_dmi_is(sys_vendor, "Amazon") ||
	    cloud_dmi_is(bios_vendor, "Amazon EC2") ||
	    cloud_dmi_is(bios_vendor, "Amazon") ||
	    cloud_dmi_is(board_vendor, "Amazon EC2") ||
	    cloud_dmi_is(board_vendor, "Amazon") ||
	    (cloud_dmi_is(sys_vendor, "Xen") &&
	    cloud_dmi_has(bios_version, "amazon")))
		m |= CLOUD_AWS;
	if (cloud_dmi_is(sys_vendor, "Google") ||
	    cloud_dmi_is(product_name, "Google Compute Engine") ||
	    cloud_dmi_is(bios_vendor, "Google") ||
	    cloud_dmi_is(board_vendor, "Google"))
		m |= CLOUD_GCP;
	if ((cloud_dmi_is(sys_vendor, "Microsoft Corporation") ||
	    cloud_dmi_is(board_vendor, "Microsoft Corporation")) &&
	    (chassis_asset_tag == NULL ||
	    cloud_dmi_is(chassis_asset_tag, CLOUD_AZURE_TAG)))
		m |= CLOUD_AZURE;
	return (m);
}

/* One DMI attribute of dir, NULL when unreadable.  The caller frees. */
static char *
cloud_dmi_read(const char *dir, const char *name)
{
	char path[512], buf[256];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "re")) == NULL)
		return (NULL);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return (xstrdup(buf));
}

/* cloud_dmi_clouds over the attributes in dir (CLOUD_DMI_DIR). */
unsigned
cloud_dmi_probe(const char *dir)
{
	static const char *const names[] = { "sys_vendor", "product_name",
	    "bios_vendor", "board_vendor", "chassis_asset_tag",
	    "bios_version" };
	char *v[6];
	unsigned m, i;

	for (i = 0; i < 6; i++)
		v[i] = cloud_dmi_read(dir, names[i]);
	m = cloud_dmi_clouds(v[0], v[1], v[2], v[3], v[4], v[5]);
	for (i = 0; i < 6; i++)
		free(v[i]);
	return (m);
}

/*
 * Which clouds to probe on this host.  The DMI identity decides; without
 * DMI (microVMs such as Firecracker), AWS only when Xen's hypervisor UUID
 * says EC2 or ECS advertises task metadata (Fargate), otherwise none: the
 * same evidence cloud-init's ds-identify uses, and no 5 s of probing of
 * link-local addresses on hosts that show no cloud at all.
 */
unsigned
cloud_host_clouds(void)
{
	char *uuid;
	unsigned m;

	if ((m = cloud_dmi_probe(CLOUD_DMI_DIR)) != CLOUD_ALL)
		return (m);
	uuid = cloud_dmi_read("/sys/hypervisor", "uuid");
	m = uuid != NULL && strncasecmp(uuid, "ec2", 3) == 0 ? CLOUD_AWS : 0;
	free(uuid);
	if (getenv("ECS_CONTAINER_METADATA_URI_V4") != NULL ||
	    getenv("AWS_EXECUTION_ENV") != NULL)
		m |= CLOUD_AWS;
	return (m);
}

static struct json_object *
cloud_parse(const char *body, size_t len)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;

	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o != NULL && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return (o);
}

/*
 * One field of a provider's answer kept in the metadata: src[from] copied
 * as a string (or a boolean) to dst[to]; "sub" names an object of the
 * answer the field is in; "last" keeps the part after the last '/'
 * (GCP's "projects/1/zones/us-central1-a").
 */
struct cloud_field {
	const char *to;
	const char *sub;
	const char *from;
	int last;
};

static void
cloud_copy(struct json_object *dst, struct json_object *src,
    const struct cloud_field *f)
{
	struct json_object *v;
	const char *s, *p;

	if (f->sub != NULL && (src == NULL ||
	    !json_object_object_get_ex(src, f->sub, &src)))
		return;
	if (src == NULL || !json_object_object_get_ex(src, f->from, &v) ||
	    v == NULL)
		return;
	if (json_object_is_type(v, json_type_boolean)) {
		json_object_object_add(dst, f->to,
		    json_object_new_boolean(json_object_get_boolean(v)));
		return;
	}
	s = json_object_get_string(v);
	if (f->last && (p = strrchr(s, '/')) != NULL)
		s = p + 1;
	json_object_object_add(dst, f->to, json_object_new_string(s));
}

/* Copy each field of a table that ends with a NULL "to". */
static void
cloud_copy_all(struct json_object *dst, struct json_object *src,
    const struct cloud_field *f)
{
	for (; f->to != NULL; f++)
		cloud_copy(dst, src, f);
}

/* The answer is used only when it names the instance. */
static struct json_object *
cloud_checked(struct json_object *answer, struct json_object *o)
{
	json_object_put(answer);
	if (!json_object_object_get_ex(o, "instance_id", NULL)) {
		json_object_put(o);
		return (NULL);
	}
	return (o);
}

/* The order of each table is the order of gProfiler's metadata keys. */
static const struct cloud_field cloud_aws_head_fields[] = {
	{ "region", NULL, "region", 0 },
	{ "zone", NULL, "availabilityZone", 0 },
	{ "instance_type", NULL, "instanceType", 0 },
	{ NULL, NULL, NULL, 0 },
};
static const struct cloud_field cloud_aws_tail_fields[] = {
	{ "account_id", NULL, "accountId", 0 },
	{ "image_id", NULL, "imageId", 0 },
	{ "instance_id", NULL, "instanceId", 0 },
	{ NULL, NULL, NULL, 0 },
};
static const struct cloud_field cloud_gcp_fields[] = {
	{ "zone", NULL, "zone", 1 },
	{ "instance_type", NULL, "machineType", 1 },
	{ "preemptible", "scheduling", "preemptible", 0 },
	{ "preempted", NULL, "preempted", 0 },
	{ "instance_id", NULL, "id", 0 },
	{ "image_id", NULL, "image", 0 },
	{ "name", NULL, "name", 0 },
	{ NULL, NULL, NULL, 0 },
};
static const struct cloud_field cloud_azure_fields[] = {
	{ "instance_type", NULL, "vmSize", 0 },
	{ "zone", NULL, "zone", 0 },
	{ "region", NULL, "location", 0 },
	{ "subscription_id", NULL, "subscriptionId", 0 },
	{ "resource_group_name", NULL, "resourceGroupName", 0 },
	{ "resource_id", NULL, "resourceId", 0 },
	{ "instance_id", NULL, "vmId", 0 },
	{ "name", NULL, "name", 0 },
	{ NULL, NULL, NULL, 0 },
};
static const struct cloud_field cloud_azure_image_fields[] = {
	{ "image_id", NULL, "id", 0 },
	{ "image_offer", NULL, "offer", 0 },
	{ "image_publisher", NULL, "publisher", 0 },
	{ "image_sku", NULL, "sku", 0 },
	{ "image_version", NULL, "version", 0 },
	{ NULL, NULL, NULL, 0 },
};

struct json_object *
cloud_parse_aws(const char *identity, size_t len, const char *life_cycle)
{
	struct json_object *d, *o;

	if ((d = cloud_parse(identity, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy_all(o, d, cloud_aws_head_fields);
	json_object_object_add(o, "life_cycle", json_object_new_string(
	    life_cycle != NULL ? life_cycle : "unknown"));
	cloud_copy_all(o, d, cloud_aws_tail_fields);
	return (cloud_checked(d, o));
}

struct json_object *
cloud_parse_gcp(const char *body, size_t len)
{
	struct json_object *d, *o;

	if ((d = cloud_parse(body, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy_all(o, d, cloud_gcp_fields);
	return (cloud_checked(d, o));
}

struct json_object *
cloud_parse_azure(const char *body, size_t len)
{
	struct json_object *d, *o, *sp = NULL, *ir = NULL, *img;

	if ((d = cloud_parse(body, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy_all(o, d, cloud_azure_fields);
	if (json_object_object_get_ex(d, "storageProfile", &sp) && sp != NULL)
		json_object_object_get_ex(sp, "imageReference", &ir);
	img = json_object_new_object();
	cloud_copy_all(img, ir, cloud_azure_image_fields);
	json_object_object_add(o, "image_info", img);
	return (cloud_checked(d, o));
}

static void
cloud_finish(const char *provider, struct json_object *info)
{
	int i;

	if (cl.done) {
		json_object_put(info);
		return;
	}
	if (provider != NULL) {
		cl.done = 1;
		for (i = 0; i < 3; i++) {
			http_cancel(cl.req[i]);
			cl.req[i] = NULL;
		}
		cl.pending = 0;
		log_info("cloud: running on %s", provider);
		metadata_set_cloud(provider, info);
	}
	if (cl.done || cl.pending == 0) {
		cl.done = 1;
		free(cl.aws_token);
		free(cl.aws_identity);
		cl.aws_token = cl.aws_identity = NULL;
		if (provider == NULL && cl.probed)
			log_debug("cloud: no cloud metadata service answered");
		if (cl.cb != NULL)
			cl.cb(provider, cl.arg);
	}
}

static int
cloud_ok(const struct http_result *r)
{
	return (r->rc == 0 && r->status == 200 && r->bodylen > 0);
}

static struct http_req *
cloud_get(const char *method, const char *url, const char *const *hdrs,
    void (*done)(void *, const struct http_result *))
{
	struct http_req_opts o;

	o = (struct http_req_opts){
		.method = method,
		.url = url,
		.headers = hdrs,
		.timeout_ms = CLOUD_TIMEOUT_MS,
		.connect_timeout_ms = CLOUD_TIMEOUT_MS,
		.no_proxy = 1,
		.max_body = 1 << 20,
		.done = done,
	};
	return (http_request(&o));
}

static void
cloud_aws_life(void *arg, const struct http_result *r)
{
	struct json_object *info;

	cl.req[0] = NULL;
	cl.pending--;
	info = cl.aws_identity != NULL ? cloud_parse_aws(cl.aws_identity,
	    strlen(cl.aws_identity), cloud_ok(r) ? r->body : NULL) : NULL;
	cloud_finish(info != NULL ? "aws" : NULL, info);
}

static void
cloud_aws_identity(void *arg, const struct http_result *r)
{
	char *h;
	const char *hdrs[2];

	cl.req[0] = NULL;
	if (!cloud_ok(r)) {
		cl.pending--;
		cloud_finish(NULL, NULL);
		return;
	}
	cl.aws_identity = xstrdup(r->body);
	xasprintf(&h, "X-aws-ec2-metadata-token: %s", cl.aws_token);
	hdrs[0] = h;
	hdrs[1] = NULL;
	cl.req[0] = cloud_get("GET", CLOUD_IMDS
	    "/latest/meta-data/instance-life-cycle", hdrs, cloud_aws_life);
	free(h);
	if (cl.req[0] == NULL) {
		cl.pending--;
		cloud_finish(NULL, NULL);
	}
}

static void
cloud_aws_token(void *arg, const struct http_result *r)
{
	char *h;
	const char *hdrs[2];

	cl.req[0] = NULL;
	if (!cloud_ok(r)) {
		cl.pending--;
		cloud_finish(NULL, NULL);
		return;
	}
	cl.aws_token = xstrndup(r->body, strcspn(r->body, "\r\n"));
	xasprintf(&h, "X-aws-ec2-metadata-token: %s", cl.aws_token);
	hdrs[0] = h;
	hdrs[1] = NULL;
	cl.req[0] = cloud_get("GET", CLOUD_IMDS
	    "/latest/dynamic/instance-identity/document", hdrs,
	    cloud_aws_identity);
	free(h);
	if (cl.req[0] == NULL) {
		cl.pending--;
		cloud_finish(NULL, NULL);
	}
}

static void
cloud_gcp(void *arg, const struct http_result *r)
{
	struct json_object *info;

	cl.req[1] = NULL;
	cl.pending--;
	info = cloud_ok(r) ? cloud_parse_gcp(r->body, r->bodylen) : NULL;
	cloud_finish(info != NULL ? "gcp" : NULL, info);
}

static void
cloud_azure(void *arg, const struct http_result *r)
{
	struct json_object *info;

	cl.req[2] = NULL;
	cl.pending--;
	info = cloud_ok(r) ? cloud_parse_azure(r->body, r->bodylen) : NULL;
	cloud_finish(info != NULL ? "azure" : NULL, info);
}

/*
 * Start the probes the DMI identity calls for (http_init first);
 * done(provider or NULL) at the end, at once when nothing is probed.
 */
void
cloud_detect(void (*done)(const char *, void *), void *arg)
{
	static const char *const aws_h[] = {
		"X-aws-ec2-metadata-token-ttl-seconds: 120", NULL };
	static const char *const gcp_h[] = { "Metadata-Flavor: Google", NULL };
	static const char *const az_h[] = { "Metadata: true", NULL };
	unsigned m;

	memset(&cl, 0, sizeof(cl));
	cl.cb = done;
	cl.arg = arg;
	m = cloud_host_clouds();
	if (m == 0)
		log_debug("cloud: no cloud identity on this host; no probes, "
		    "cloud_provider stays unknown");
	else
		log_debug("cloud: DMI names%s%s%s; probing only that",
		    m & CLOUD_AWS ? " AWS" : "", m & CLOUD_GCP ? " GCP" : "",
		    m & CLOUD_AZURE ? " Azure" : "");
	cl.probed = m != 0;
	if ((m & CLOUD_AWS) && (cl.req[0] = cloud_get("PUT", CLOUD_IMDS
	    "/latest/api/token", aws_h, cloud_aws_token)) != NULL)
		cl.pending++;
	if ((m & CLOUD_GCP) && (cl.req[1] = cloud_get("GET", CLOUD_GCP_URL
	    "/computeMetadata/v1/instance/?recursive=true", gcp_h,
	    cloud_gcp)) != NULL)
		cl.pending++;
	if ((m & CLOUD_AZURE) && (cl.req[2] = cloud_get("GET", CLOUD_IMDS
	    "/metadata/instance/compute/?api-version=2019-08-15", az_h,
	    cloud_azure)) != NULL)
		cl.pending++;
	if (cl.pending == 0)
		cloud_finish(NULL, NULL);
}
