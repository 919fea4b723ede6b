/*
 * Cloud metadata (gprofiler-compat.md §6): AWS (IMDSv2), GCP and Azure
 * probed in parallel through the loop, 5 s each; the first that answers
 * wins and goes to metadata_set_cloud.  Elsewhere every probe fails and
 * cloud_provider stays "unknown", quietly.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "gprofiler.h"

#define CLOUD_TIMEOUT_MS	5000
#define CLOUD_IMDS		"http://169.254.169.254"
#define CLOUD_GCP		"http://metadata.google.internal"

static struct {
	int		 pending;
	int		 done;
	struct http_req	*req[3];
	char		*aws_token;
	char		*aws_identity;
	void		(*cb)(const char *, void *);
	void		*arg;
} cl;

static struct json_object *
cloud_parse(const char *body, size_t len)
{
	struct json_tokener	*tok = json_tokener_new();
	struct json_object	*o;

	o = json_tokener_parse_ex(tok, body, (int)len);
	json_tokener_free(tok);
	if (o != NULL && !json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		o = NULL;
	}
	return (o);
}

/* Copy src[from] as a string to dst[to]; "last" keeps the part after
 * the last '/' (GCP's "projects/1/zones/us-central1-a"). */
static void
cloud_copy(struct json_object *dst, const char *to, struct json_object *src,
    const char *from, int last)
{
	struct json_object	*v;
	const char		*s, *p;

	if (src == NULL || !json_object_object_get_ex(src, from, &v) ||
	    v == NULL)
		return;
	if (json_object_is_type(v, json_type_boolean)) {
		json_object_object_add(dst, to,
		    json_object_new_boolean(json_object_get_boolean(v)));
		return;
	}
	s = json_object_get_string(v);
	if (last && (p = strrchr(s, '/')) != NULL)
		s = p + 1;
	json_object_object_add(dst, to, json_object_new_string(s));
}

struct json_object *
cloud_parse_aws(const char *identity, size_t len, const char *life_cycle)
{
	struct json_object	*d, *o;

	if ((d = cloud_parse(identity, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy(o, "region", d, "region", 0);
	cloud_copy(o, "zone", d, "availabilityZone", 0);
	cloud_copy(o, "instance_type", d, "instanceType", 0);
	json_object_object_add(o, "life_cycle", json_object_new_string(
	    life_cycle != NULL ? life_cycle : "unknown"));
	cloud_copy(o, "account_id", d, "accountId", 0);
	cloud_copy(o, "image_id", d, "imageId", 0);
	cloud_copy(o, "instance_id", d, "instanceId", 0);
	json_object_put(d);
	if (!json_object_object_get_ex(o, "instance_id", NULL)) {
		json_object_put(o);
		return (NULL);
	}
	return (o);
}

struct json_object *
cloud_parse_gcp(const char *body, size_t len)
{
	struct json_object	*d, *o, *sch = NULL;

	if ((d = cloud_parse(body, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy(o, "zone", d, "zone", 1);
	cloud_copy(o, "instance_type", d, "machineType", 1);
	json_object_object_get_ex(d, "scheduling", &sch);
	cloud_copy(o, "preemptible", sch, "preemptible", 0);
	cloud_copy(o, "preempted", d, "preempted", 0);
	cloud_copy(o, "instance_id", d, "id", 0);
	cloud_copy(o, "image_id", d, "image", 0);
	cloud_copy(o, "name", d, "name", 0);
	json_object_put(d);
	if (!json_object_object_get_ex(o, "instance_id", NULL)) {
		json_object_put(o);
		return (NULL);
	}
	return (o);
}

struct json_object *
cloud_parse_azure(const char *body, size_t len)
{
	struct json_object	*d, *o, *sp = NULL, *ir = NULL, *img;

	if ((d = cloud_parse(body, len)) == NULL)
		return (NULL);
	o = json_object_new_object();
	cloud_copy(o, "instance_type", d, "vmSize", 0);
	cloud_copy(o, "zone", d, "zone", 0);
	cloud_copy(o, "region", d, "location", 0);
	cloud_copy(o, "subscription_id", d, "subscriptionId", 0);
	cloud_copy(o, "resource_group_name", d, "resourceGroupName", 0);
	cloud_copy(o, "resource_id", d, "resourceId", 0);
	cloud_copy(o, "instance_id", d, "vmId", 0);
	cloud_copy(o, "name", d, "name", 0);
	if (json_object_object_get_ex(d, "storageProfile", &sp) && sp != NULL)
		json_object_object_get_ex(sp, "imageReference", &ir);
	img = json_object_new_object();
	cloud_copy(img, "image_id", ir, "id", 0);
	cloud_copy(img, "image_offer", ir, "offer", 0);
	cloud_copy(img, "image_publisher", ir, "publisher", 0);
	cloud_copy(img, "image_sku", ir, "sku", 0);
	cloud_copy(img, "image_version", ir, "version", 0);
	json_object_object_add(o, "image_info", img);
	json_object_put(d);
	if (!json_object_object_get_ex(o, "instance_id", NULL)) {
		json_object_put(o);
		return (NULL);
	}
	return (o);
}

static void
cloud_finish(const char *provider, struct json_object *info)
{
	int	 i;

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
		if (provider == NULL)
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
	struct http_req_opts	 o;

	memset(&o, 0, sizeof(o));
	o.method = method;
	o.url = url;
	o.headers = hdrs;
	o.timeout_ms = CLOUD_TIMEOUT_MS;
	o.connect_timeout_ms = CLOUD_TIMEOUT_MS;
	o.no_proxy = 1;
	o.max_body = 1 << 20;
	o.done = done;
	return (http_request(&o));
}

static void
cloud_aws_life(void *arg, const struct http_result *r)
{
	struct json_object	*info;

	cl.req[0] = NULL;
	cl.pending--;
	info = cl.aws_identity != NULL ? cloud_parse_aws(cl.aws_identity,
	    strlen(cl.aws_identity), cloud_ok(r) ? r->body : NULL) : NULL;
	cloud_finish(info != NULL ? "aws" : NULL, info);
}

static void
cloud_aws_identity(void *arg, const struct http_result *r)
{
	char		*h;
	const char	*hdrs[2];

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
	char		*h;
	const char	*hdrs[2];

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
	struct json_object	*info;

	cl.req[1] = NULL;
	cl.pending--;
	info = cloud_ok(r) ? cloud_parse_gcp(r->body, r->bodylen) : NULL;
	cloud_finish(info != NULL ? "gcp" : NULL, info);
}

static void
cloud_azure(void *arg, const struct http_result *r)
{
	struct json_object	*info;

	cl.req[2] = NULL;
	cl.pending--;
	info = cloud_ok(r) ? cloud_parse_azure(r->body, r->bodylen) : NULL;
	cloud_finish(info != NULL ? "azure" : NULL, info);
}

/* Start the probes (http_init first); done(provider or NULL) at the end. */
void
cloud_detect(void (*done)(const char *, void *), void *arg)
{
	static const char *const aws_h[] = {
		"X-aws-ec2-metadata-token-ttl-seconds: 120", NULL };
	static const char *const gcp_h[] = { "Metadata-Flavor: Google", NULL };
	static const char *const az_h[] = { "Metadata: true", NULL };

	memset(&cl, 0, sizeof(cl));
	cl.cb = done;
	cl.arg = arg;
	if ((cl.req[0] = cloud_get("PUT", CLOUD_IMDS "/latest/api/token", aws_h,
	    cloud_aws_token)) != NULL)
		cl.pending++;
	if ((cl.req[1] = cloud_get("GET", CLOUD_GCP
	    "/computeMetadata/v1/instance/?recursive=true", gcp_h,
	    cloud_gcp)) != NULL)
		cl.pending++;
	if ((cl.req[2] = cloud_get("GET", CLOUD_IMDS
	    "/metadata/instance/compute/?api-version=2019-08-15", az_h,
	    cloud_azure)) != NULL)
		cl.pending++;
	if (cl.pending == 0)
		cloud_finish(NULL, NULL);
}
