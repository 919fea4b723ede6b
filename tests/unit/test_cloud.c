/* Unit tests of the cloud metadata documents' parsers and of the DMI
 * identity that picks the probes. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>

#include "meta/meta.h"
#include "testing.h"

static const char *
get(struct json_object *o, const char *k)
{
	struct json_object *v;

	return (o != NULL && json_object_object_get_ex(o, k, &v) ?
	    json_object_get_string(v) : NULL);
}

static void
put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "w")) != NULL) {
		fputs(text, f);
		fclose(f);
	}
}

static void
test_dmi(void)
{
	static const char *const files[] = { "sys_vendor", "product_name",
	    "board_vendor" };
	char dir[] = "/tmp/test_cloud.XXXXXX", path[512];
	const char *az_tag = "7783-7084-3265-9085-8269-3286-77\n";
	int i;

	CHECK_INTEQ(cloud_dmi_clouds(NULL, NULL, NULL, NULL, NULL, NULL),
	    CLOUD_ALL, "no DMI: probe every cloud");
	CHECK_INTEQ(cloud_dmi_clouds("Amazon EC2\n", "m5.large\n",
	    "Amazon EC2\n", "Amazon EC2\n", "Amazon EC2\n", "1.0\n"),
	    CLOUD_AWS, "EC2 Nitro: AWS only");
	CHECK_INTEQ(cloud_dmi_clouds(NULL, NULL, "Amazon\n", NULL, NULL,
	    NULL), CLOUD_AWS, "bios_vendor Amazon alone: AWS");
	CHECK_INTEQ(cloud_dmi_clouds("Xen\n", "HVM domU\n", "Xen\n", NULL,
	    "\n", "4.11.amazon\n"), CLOUD_AWS, "EC2 on Xen: AWS");
	CHECK_INTEQ(cloud_dmi_clouds("Xen\n", "HVM domU\n", "Xen\n", NULL,
	    "\n", "4.11\n"), 0, "plain Xen: none");
	CHECK_INTEQ(cloud_dmi_clouds("Amazonia Inc.\n", "x\n", "y\n",
	    "z\n", "\n", "1\n"), 0, "a vendor merely starting with Amazon: "
	    "none");
	CHECK_INTEQ(cloud_dmi_clouds("Google\n", "Google Compute Engine\n",
	    "Google\n", "Google\n", "\n", "Google\n"), CLOUD_GCP,
	    "GCE: GCP only");
	CHECK_INTEQ(cloud_dmi_clouds(NULL, "Google Compute Engine\n", NULL,
	    NULL, NULL, NULL), CLOUD_GCP, "product name alone: GCP");
	CHECK_INTEQ(cloud_dmi_clouds("Microsoft Corporation\n",
	    "Virtual Machine\n", "Microsoft Corporation\n",
	    "Microsoft Corporation\n", az_tag, "Hyper-V UEFI\n"),
	    CLOUD_AZURE, "Azure: its asset tag");
	CHECK_INTEQ(cloud_dmi_clouds("Microsoft Corporation\n",
	    "Virtual Machine\n", "Microsoft Corporation\n",
	    "Microsoft Corporation\n", "0123-4567-8901-2345-6789-0123-45\n",
	    "Hyper-V UEFI\n"), 0, "local Hyper-V (another tag): none");
	CHECK_INTEQ(cloud_dmi_clouds("Microsoft Corporation\n",
	    "Virtual Machine\n", NULL, NULL, NULL, NULL), CLOUD_AZURE,
	    "Microsoft with the tag unreadable: Azure probed");
	CHECK_INTEQ(cloud_dmi_clouds("QEMU\n",
	    "Standard PC (i440FX + PIIX, 1996)\n", "SeaBIOS\n", NULL, "\n",
	    "1.16.2\n"), 0, "QEMU: none");
	CHECK_INTEQ(cloud_dmi_clouds("LENOVO\n", "20XW\n", "LENOVO\n",
	    "LENOVO\n", "No Asset Information\n", "N32ET\n"), 0,
	    "a laptop: none");
	CHECK_INTEQ(cloud_dmi_clouds("", "", "", "", "", ""), 0,
	    "DMI present but empty: none");

	if (mkdtemp(dir) == NULL) {
		CHECK(0, "mkdtemp");
		return;
	}
	CHECK_INTEQ(cloud_dmi_probe(dir), CLOUD_ALL,
	    "empty DMI directory: every cloud");
	put(dir, "sys_vendor", "QEMU\n");
	put(dir, "product_name", "Standard PC (Q35 + ICH9, 2009)\n");
	CHECK_INTEQ(cloud_dmi_probe(dir), 0, "files of a QEMU VM: none");
	put(dir, "board_vendor", "Amazon EC2\n");
	CHECK_INTEQ(cloud_dmi_probe(dir), CLOUD_AWS,
	    "board_vendor file read: AWS");
	CHECK_INTEQ(cloud_dmi_probe("/nonexistent/dmi"), CLOUD_ALL,
	    "no DMI directory: every cloud");
	for (i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int
main(void)
{
	struct json_object *o, *img;
	const char *aws = "{\"accountId\": \"123\", "
	    "\"availabilityZone\": \"us-east-1a\", \"imageId\": \"ami-1\", "
	    "\"instanceId\": \"i-0abc\", \"instanceType\": \"m5.large\", "
	    "\"region\": \"us-east-1\"}";
	const char *gcp = "{\"id\": 4242, \"name\": \"vm1\", "
	    "\"zone\": \"projects/99/zones/us-central1-a\", \"machineType\": "
	    "\"projects/99/machineTypes/n2-standard-4\", \"image\": "
	    "\"projects/debian/global/images/d12\", \"preempted\": false, "
	    "\"scheduling\": {\"preemptible\": true}}";
	const char *az = "{\"vmSize\": \"Standard_D2s_v3\", "
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
	test_dmi();
	return (testing_done());
}
