/*
 * What the profile says about the host and its processes (core/meta/):
 * CPU and memory averages, host and cloud metadata, application metadata,
 * container names.
 */
#ifndef GP_META_META_H
#define GP_META_META_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct config;
struct cpu_times;
struct event_base;
struct json_object;

/* metrics.c */
/* cpu_avg/mem_avg of docs/specs/gprofiler-compat.md §7 (5 s memory timer). */
struct metrics;
struct metrics *metrics_new(struct event_base *);
void metrics_free(struct metrics *);
/* {"cpu_avg", "mem_avg"} since the last call; NULL m: both null. */
struct json_object *metrics_cycle(struct metrics *);
double metrics_cpu_percent(const struct cpu_times *,
		    const struct cpu_times *);
double metrics_mem_percent(uint64_t total_kb, uint64_t avail_kb);

/* metadata.c */
/* The header's "metadata" (§6): static keys once, per-cycle keys added. */
void metadata_collect(int minimal);
struct json_object *metadata_build(const struct config *, unsigned mode,
		    int64_t freq, const struct timespec *at);
void metadata_add_sampling(struct json_object *, unsigned mode,
		    int64_t freq);
/* For the cloud probe: provider "aws"/"gcp"/"azure"; takes info. */
void metadata_set_cloud(const char *provider,
		    struct json_object *info);
void metadata_iso_time(const struct timespec *, char *, size_t);
const char *metadata_arch_codename(int family, int model);
void metadata_free(void);

/* appmeta.c */
/* {exe, execfn, arch} of a PID (NULL: gone; read once per image, the
 * cache's object: not to be changed), merged with plugin keys. */
struct json_object *appmeta_base(int32_t pid);
/* At a cycle's end: the images not asked for in it forgotten. */
void appmeta_sweep(void);
struct json_object *appmeta_for_pid(int32_t pid, struct json_object *extra);

/* appmeta_set.c: the header's list (a json array, entry 0 null, the
 * caller's), deduplicated in constant time an entry.  appmeta_set_index
 * takes md and gives its index in the list: an equal entry's, else the
 * one it was appended at (0 for NULL, or out of memory). */
struct appmeta_set;
struct appmeta_set *appmeta_set_new(struct json_object *list);
uint32_t appmeta_set_index(struct appmeta_set *, struct json_object *md);
void appmeta_set_free(struct appmeta_set *);

/* container.c (the rest in core/meta/container.h) */
/* The container id in /proc/PID/cgroup text (last 64-hex run); 0/-ENOENT */
int container_id_parse(const char *cgroup, size_t len,
		    char id[65]);
/* Names from every runtime whose socket exists (docker_sock NULL: host's) */
int container_init(struct event_base *, const char *docker_sock);
/* Pod and namespace of a k8s_<c>_<pod>_<ns>_<uid>_<n> name; 0 / -EINVAL */
int container_k8s_split(const char *name, char *pod, size_t podsz,
		    char *ns, size_t nssz);
/* run_hooks.container_name: "" when none or not cached yet. */
const char *container_name_for_pid(int32_t pid, void *arg);
const char *container_name_for_id(const char *id);
void container_fini(void);

/* cloud.c */
/* Probe AWS, GCP and Azure in parallel; the first success is passed to
 * metadata_set_cloud, else nothing (cloud_provider stays "unknown"). */
void cloud_detect(void (*done)(const char *provider, void *),
		    void *arg);
/* Parsers of the probes' documents: cloud_info or NULL (caller owns). */
struct json_object *cloud_parse_aws(const char *identity, size_t len,
		    const char *life_cycle);
struct json_object *cloud_parse_gcp(const char *body, size_t len);
struct json_object *cloud_parse_azure(const char *body, size_t len);
/* Which clouds the DMI identity names (NULL: unreadable), a mask of: */
#define CLOUD_AWS	0x1u
#define CLOUD_GCP	0x2u
#define CLOUD_AZURE	0x4u
#define CLOUD_ALL	(CLOUD_AWS | CLOUD_GCP | CLOUD_AZURE)	/* no DMI */
unsigned cloud_dmi_clouds(const char *sys_vendor,
		    const char *product_name, const char *bios_vendor,
		    const char *board_vendor, const char *chassis_asset_tag,
		    const char *bios_version);
#define CLOUD_DMI_DIR	"/sys/class/dmi/id"
/* The clouds to probe here (DMI, else Xen's EC2 UUID or ECS metadata). */
unsigned cloud_host_clouds(void);
/* cloud_probe.c: the probes in a child ("gprofiler probe-cloud"). */
void cloud_probe_start(struct event_base *);
int cloud_probe_main(void);
const char *metadata_cloud(struct json_object **info);
/* cloud_dmi_clouds over the files of a DMI directory (/sys/class/dmi/id). */
unsigned cloud_dmi_probe(const char *dir);

#endif
