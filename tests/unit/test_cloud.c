/* Unit tests of the cloud metadata documents' parsers. */
#include "config.h"

#include <string.h>

#include <json-c/json.h>

#include "gprofiler.h"
#include "testing.h"

static const char *
get(struct json_object *o, const char *k)
{
	struct json_object	*v;

	return (o != NULL && json_object_object_get_ex(o, k, &v) ?
	    json_object_get_string(v) : NULL);
}

int
main(void)
{
	struct json_object	*o, *img;
	const char		*aws = "{\"accountId\": \"123\", "
	    "\"availabilityZone\": \"us-east-1a\", \"imageId\": \"ami-1\", "
	    "\"instanceId\": \"i-0abc\", \"instanceType\": \"m5.large\", "
	    "\"region\": \"us-east-1\"}";
	const char		*gcp = "{\"id\": 4242, \"name\": \"vm1\", "
	    "\"zone\": \"projects/99/zones/us-central1-a\", \"machineType\": "
	    "\"projects/99/machineTypes/n2-standard-4\", \"image\": "
	    "\"projects/debian/global/images/d12\", \"preempted\": false, "
	    "\"scheduling\": {\"preemptible\": true}}";
	const char		*az = "{\"vmSize\": \"Standard_D2s_v3\", "
	    "\"location\": \"westeurope\", \"zone\": \"1\", \"vmId\": "
	    "\"a-b-c\", \"name\": \"vm2\", \"subscriptionId\": \"s\", "
	    "\"resourceGroupName\": \"rg\", \"resourceId\": \"/r\", "
	    "\"storageProfile\": {\"imageReference\": {\"offer\": \"deb\", "
	    "\"sku\": \"12\", \"publisher\": \"Debian\", \"version\": \"1\", "
	    "\"id\": \"\"}}}";

	o = cloud_parse_aws(aws, strlen(aws), "spot");
	CHECK_STREQ(get(o, "instance_id"), "i-0abc", "aws instance_id");
	CHECK_STREQ(get(o, "zone"), "us-east-1a", "aws zone");
	CHECK_STREQ(get(o, "instance_type"), "m5.large", "aws type");
	CHECK_STREQ(get(o, "life_cycle"), "spot", "aws life cycle");
	CHECK_STREQ(get(o, "account_id"), "123", "aws account");
	json_object_put(o);
	o = cloud_parse_gcp(gcp, strlen(gcp));
	CHECK_STREQ(get(o, "instance_id"), "4242", "gcp id as string");
	CHECK_STREQ(get(o, "zone"), "us-central1-a", "gcp zone short");
	CHECK_STREQ(get(o, "instance_type"), "n2-standard-4", "gcp type short");
	CHECK_STREQ(get(o, "preemptible"), "true", "gcp preemptible");
	json_object_put(o);
	o = cloud_parse_azure(az, strlen(az));
	CHECK_STREQ(get(o, "instance_id"), "a-b-c", "azure vmId");
	CHECK_STREQ(get(o, "region"), "westeurope", "azure region");
	CHECK(o != NULL && json_object_object_get_ex(o, "image_info", &img) &&
	    strcmp(get(img, "image_offer"), "deb") == 0, "azure image_info");
	json_object_put(o);
	CHECK(cloud_parse_aws("{}", 2, NULL) == NULL, "aws without id: none");
	CHECK(cloud_parse_gcp("<html>", 6) == NULL, "gcp garbage: none");
	CHECK(cloud_parse_azure("[1,2]", 5) == NULL, "azure array: none");
	return (testing_done());
}
