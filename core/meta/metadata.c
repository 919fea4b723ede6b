/*
 * The header's "metadata" object (docs/specs/gprofiler-compat.md §6, validated
 * by the studio as docs/specs/studio-api.md §4.4).  Static keys are collected
 * once at start (metadata_collect); metadata_build adds the per-cycle keys.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <errno.h>
#include <gnu/libc-version.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef __x86_64__
#include <cpuid.h>
#endif

#include <json-c/json.h>

#include "base/log.h"
#include "base/procfs.h"
#include "base/utctime.h"
#include "base/xmalloc.h"
#include "config/configuration.h"
#include "gprofiler.h"
#include "meta/meta.h"

static struct json_object *md_static;
static char *md_cloud_provider;
static struct json_object *md_cloud_info;

/* ISO-8601 UTC to the second, no zone: "2025-01-08T11:00:00". */
void
metadata_iso_time(const struct timespec *ts, char *buf, size_t len)
{
	utc_iso_time(buf, len, ts->tv_sec);
}

static void
md_str(struct json_object *o, const char *k, const char *v)
{
	json_object_object_add(o, k, json_object_new_string(v != NULL ? v :
	    "unknown"));
}

/* Family 6 models as the reference maps them; anything else UNKNOWN. */
const char *
metadata_arch_codename(int family, int model)
{
	if (family != 6)
		return ("UNKNOWN");
	switch (model) {
	case 106:
		return ("ICX");
	case 143:
		return ("SPR");
	case 207:
		return ("EMR");
	case 173:
		return ("GNR");
	default:
		return ("UNKNOWN");
	}
}

static void
md_hypervisor(struct json_object *o, const char *flags)
{
	char vendor[13] = "";
	const char *p;
	size_t l = strlen("hypervisor");

	for (p = flags; (p = strstr(p, "hypervisor")) != NULL; p += l)
		if ((p == flags || p[-1] == ' ') && (p[l] == ' ' ||
		    p[l] == '\0'))
			break;
	if (p == NULL) {
		md_str(o, "hypervisor", "NONE");
		return;
	}
#ifdef __x86_64__
	{
		unsigned int a, b, c, d;

		__cpuid(0x40000000, a, b, c, d);
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &c, 4);
		memcpy(vendor + 8, &d, 4);
		vendor[12] = '\0';
	}
#endif
	md_str(o, "hypervisor", vendor[0] != '\0' ? vendor : "VM-UNKNOWN");
}

static void
md_cpu(struct json_object *o)
{
	struct cpu_info ci;
	char *buf;
	size_t len;

	if (procfs_read("/proc/cpuinfo", &buf, &len, 1 << 24) != 0) {
		memset(&ci, 0, sizeof(ci));
		ci.family = ci.model = -1;
	} else {
		procfs_cpuinfo(buf, len, &ci);
		free(buf);
	}
	md_str(o, "cpu_model_name", ci.model_name[0] ? ci.model_name :
	    "unknown");
	md_str(o, "cpu_flags", ci.flags[0] ? ci.flags : "unknown");
	md_str(o, "cpu_arch_codename", metadata_arch_codename(ci.family,
	    ci.model));
	md_hypervisor(o, ci.flags);
}

static void
md_memory(struct json_object *o)
{
	char *buf;
	size_t len;
	uint64_t t = 0, a;
	long n;

	if (procfs_read("/proc/meminfo", &buf, &len, 1 << 20) == 0) {
		procfs_meminfo(buf, len, &t, &a);
		free(buf);
	}
	/* The studio's CHECK needs > 0: at least 1 MiB. */
	t = (t + 512) / 1024;
	json_object_object_add(o, "memory_capacity_mb",
	    json_object_new_int64(t > 0 ? (int64_t)t : 1));
	n = sysconf(_SC_NPROCESSORS_ONLN);
	json_object_object_add(o, "processors", json_object_new_int64(n > 0 ?
	    n : 1));
}

/* The host's distribution, read through PID 1's root (host mount ns). */
static void
md_os(struct json_object *o)
{
	static const char *const paths[] = { "/proc/1/root/etc/os-release",
	    "/proc/1/root/usr/lib/os-release", "/etc/os-release" };
	struct os_release os;
	char *buf;
	size_t len, i;
	int ok = 0;

	for (i = 0; i < 3 && !ok; i++)
		if (procfs_read(paths[i], &buf, &len, 65536) == 0) {
			ok = procfs_os_release(buf, len, &os) == 0;
			free(buf);
		}
	md_str(o, "os_name", ok ? os.name : "unknown");
	md_str(o, "os_release", ok && os.release[0] ? os.release : "unknown");
	md_str(o, "os_codename", ok && os.codename[0] ? os.codename :
	    "unknown");
}

/*
 * libc without running ldd: a musl loader under the host root means musl;
 * otherwise glibc, whose version is the one we run with (the agent is
 * built for the host's libc).
 */
static void
md_libc(struct json_object *o)
{
	static const char *const musl[] = {
	    "/proc/1/root/lib/ld-musl-x86_64.so.1",
	    "/proc/1/root/lib/ld-musl-aarch64.so.1" };
	size_t i;

	for (i = 0; i < 2; i++)
		if (access(musl[i], F_OK) == 0) {
			md_str(o, "libc_type", "musl");
			md_str(o, "libc_version", "unknown");
			return;
		}
	md_str(o, "libc_type", "glibc");
	md_str(o, "libc_version", gnu_get_libc_version());
}

/* MAC of the first non-loopback interface; a valid MAC in every case. */
static void
md_mac(struct json_object *o)
{
	struct ifreq ifr[32];
	struct ifconf ifc;
	unsigned char *m;
	char mac[18] = "00:00:00:00:00:00";
	int s, i, n;

	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		goto out;
	ifc.ifc_len = sizeof(ifr);
	ifc.ifc_req = ifr;
	if (ioctl(s, SIOCGIFCONF, &ifc) == -1)
		goto out_close;
	n = ifc.ifc_len / sizeof(ifr[0]);
	for (i = 0; i < n; i++) {
		if (ioctl(s, SIOCGIFFLAGS, &ifr[i]) == -1 ||
		    (ifr[i].ifr_flags & IFF_LOOPBACK))
			continue;
		if (ioctl(s, SIOCGIFHWADDR, &ifr[i]) == -1)
			continue;
		m = (unsigned char *)ifr[i].ifr_hwaddr.sa_data;
		if ((m[0] | m[1] | m[2] | m[3] | m[4] | m[5]) == 0)
			continue;
		snprintf(mac, sizeof(mac), "%02X:%02X:%02X:%02X:%02X:%02X",
		    m[0], m[1], m[2], m[3], m[4], m[5]);
		break;
	}
out_close:
	close(s);
out:
	md_str(o, "mac_address", mac);
}

/* The source address a UDP connect() picks; no packet is sent. */
static void
md_private_ip(struct json_object *o)
{
	struct sockaddr_in sin, me;
	socklen_t sl = sizeof(me);
	char buf[INET_ADDRSTRLEN] = "unknown";
	int s;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(53);
	sin.sin_addr.s_addr = htonl(0x08080808);
	if ((s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) != -1) {
		if (connect(s, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
		    getsockname(s, (struct sockaddr *)&me, &sl) == 0)
			inet_ntop(AF_INET, &me.sin_addr, buf, sizeof(buf));
		close(s);
	}
	md_str(o, "private_ip", buf);
}

static void
md_run_mode(struct json_object *o)
{
	const char *mode = "standalone_executable", *dep = "instances";

	if (getenv("GPROFILER_IN_K8S") != NULL) {
		mode = "k8s";
		dep = "k8s";
	} else if (getenv("GPROFILER_IN_CONTAINER") != NULL) {
		mode = "container";
		dep = "containers";
	}
	md_str(o, "run_mode", mode);
	md_str(o, "deployment_type", dep);
}

static void
md_uname(struct json_object *o)
{
	struct utsname u;
	char host[256];

	if (uname(&u) == -1)
		memset(&u, 0, sizeof(u));
	if (gethostname(host, sizeof(host)) == -1)
		snprintf(host, sizeof(host), "<unknown>");
	host[sizeof(host) - 1] = '\0';
	md_str(o, "hostname", host);
	md_str(o, "kernel_release", u.release);
	md_str(o, "kernel_version", u.version);
	md_str(o, "system_name", u.sysname);
	md_str(o, "hardware_type", u.machine);
	md_str(o, "system", "Linux");
}

/*
 * Collect the static keys once, at agent start.  With
 * disable-metadata-collection the studio's required keys are still sent
 * (it rejects uploads without them, §12 #12) but the identifying extras
 * are neutral.
 */
void
metadata_collect(int minimal)
{
	struct json_object *o = json_object_new_object();
	struct timespec rt, bt;
	char ts[32];

	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_BOOTTIME, &bt);
	metadata_iso_time(&rt, ts, sizeof(ts));
	md_uname(o);
	md_str(o, "spawn_time", ts);
	json_object_object_add(o, "spawn_uptime_ms", json_object_new_int64(
	    (int64_t)bt.tv_sec * 1000 + bt.tv_nsec / 1000000));
	md_str(o, "agent_version", GP_AGENT_VERSION);
	md_str(o, "python_version", "n/a (C agent)");
	md_run_mode(o);
	md_memory(o);
	md_os(o);
	md_libc(o);
	json_object_object_add(o, "pid", json_object_new_int64(getpid()));
	json_object_object_add(o, "big_data", json_object_new_object());
	if (minimal) {
		log_warnx("metadata collection disabled: sending neutral "
		    "values for the keys the backend requires");
		md_str(o, "mac_address", "00:00:00:00:00:00");
		md_str(o, "private_ip", "unknown");
	} else {
		md_cpu(o);
		md_mac(o);
		md_private_ip(o);
	}
	json_object_put(md_static);
	md_static = o;
}

/* From the cloud probe: provider "aws", "gcp", "azure"; takes info. */
void
metadata_set_cloud(const char *provider, struct json_object *info)
{
	free(md_cloud_provider);
	md_cloud_provider = provider != NULL ? xstrdup(provider) : NULL;
	json_object_put(md_cloud_info);
	md_cloud_info = info;
}

/* The detected cloud provider (NULL: none) and its cloud_info, borrowed. */
const char *
metadata_cloud(struct json_object **info)
{
	*info = md_cloud_info;
	return (md_cloud_provider);
}

/* Per-cycle sampling keys, shared by the header and metadata. */
void
metadata_add_sampling(struct json_object *o, unsigned mode, int64_t freq)
{
	json_object_object_add(o, "profiling_mode", json_object_new_string(
	    config_mode_name(mode)));
	md_str(o, "sampling_event", "cpu-time");
	if (mode == MODE_ALLOCATION) {
		md_str(o, "sampling_mode", "period");
		json_object_object_add(o, "sampling_period",
		    json_object_new_int64(freq));
	} else {
		md_str(o, "sampling_mode", "frequency");
		json_object_object_add(o, "sampling_frequency",
		    json_object_new_int64(freq));
	}
}

/*
 * This cycle's metadata: the static keys, current_time (`at`, the cycle's
 * end, or now if NULL), cloud, the effective run_arguments (secrets
 * removed by config.c), sampling.  Caller owns the result.
 */
struct json_object *
metadata_build(const struct config *cfg, unsigned mode, int64_t freq,
    const struct timespec *at)
{
	struct json_object *o = NULL, *ra;
	struct timespec now;
	char ts[32];

	if (md_static == NULL)
		metadata_collect(cfg != NULL && config_get_bool(cfg,
		    "disable-metadata-collection"));
	json_object_deep_copy(md_static, &o, NULL);
	if (at != NULL)
		now = *at;
	else
		clock_gettime(CLOCK_REALTIME, &now);
	metadata_iso_time(&now, ts, sizeof(ts));
	md_str(o, "current_time", ts);
	md_str(o, "cloud_provider", md_cloud_provider != NULL ?
	    md_cloud_provider : "unknown");
	if (md_cloud_info != NULL)
		json_object_object_add(o, "cloud_info",
		    json_object_get(md_cloud_info));
	extmeta_add(o);
	ra = cfg != NULL ? config_run_arguments(cfg) : NULL;
	json_object_object_add(o, "run_arguments", ra != NULL ? ra :
	    json_object_new_object());
	metadata_add_sampling(o, mode, freq);
	return (o);
}

void
metadata_free(void)
{
	json_object_put(md_static);
	md_static = NULL;
	metadata_set_cloud(NULL, NULL);
}
