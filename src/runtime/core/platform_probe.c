/* The node's hardware, probed once at init: CPU model, cores, memory, visible
 * GPUs and the network interface (platform facts cpu, cores, mem_mib, gpu, net).
 * Reads only /proc, /sys and /dev; a fact that cannot be found is left out.
 * Runs inside the runtime's init (iol_busy set): these reads are not recorded. */
#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "core_int.h"

#define IFNAME_LEN 16      /* IFNAMSIZ */

/* Up to len-1 bytes of a file, NUL-terminated; the byte count or -1. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = 0, r;
    if (fd < 0)
        return -1;
    while ((size_t)n < len - 1 && (r = read(fd, buf + n, len - 1 - (size_t)n)) > 0)
        n += r;
    close(fd);
    buf[n] = '\0';
    return n;
}

/* The value after "field<spaces>:" on a line of buf, spaces collapsed, or NULL. */
static const char *field(const char *buf, const char *name, char *out, size_t len)
{
    size_t k = strlen(name);
    for (const char *line = buf; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, k) != 0)
            continue;
        const char *p = line + k;
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p != ':')
            continue;
        p++;
        size_t o = 0;
        for (; *p && *p != '\n' && o + 1 < len; p++)
            if (!(*p == ' ' || *p == '\t') || (o > 0 && out[o - 1] != ' '))
                out[o++] = (*p == '\t') ? ' ' : *p;
        while (o > 0 && out[o - 1] == ' ')
            o--;
        out[o] = '\0';
        return o ? out : NULL;
    }
    return NULL;
}

/* One read() only: the first processor's block names the model, and on x86
 * every further block makes the kernel sample that CPU's clock (milliseconds
 * for the EOF read of a two-CPU machine, measured). */
static void probe_cpu(void)
{
    static char buf[4096];
    char model[128];
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    /* x86 "model name"; POWER "cpu"; Arm boards "Hardware" or "Processor" */
    if (field(buf, "model name", model, sizeof model) || field(buf, "cpu", model, sizeof model) ||
        field(buf, "Hardware", model, sizeof model) || field(buf, "Processor", model, sizeof model))
        iol_fact_set(IOL_FACT_cpu, model);
}

static void probe_cores_memory(void)
{
    char v[48];
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t set;
    int allowed = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    if (online > 0) {
        if (allowed > 0 && allowed < online)
            snprintf(v, sizeof v, "%ld,aff:%d", online, allowed);
        else
            snprintf(v, sizeof v, "%ld", online);
        iol_fact_set(IOL_FACT_cores, v);
    }
    struct sysinfo si;
    if (sysinfo(&si) == 0 && si.totalram) {
        snprintf(v, sizeof v, "%llu",
                 (unsigned long long)si.totalram * (unsigned long long)si.mem_unit / 1048576ULL);
        iol_fact_set(IOL_FACT_mem_mib, v);
    }
}

/* NVIDIA: the driver's per-GPU information files name the model (else the
 * /dev/nvidiaN nodes are counted); AMD and Intel
 * GPUs are DRM cards with the vendor's PCI id (NVIDIA cards there are not counted
 * twice). */
static void probe_gpus(void)
{
    char v[96] = "", model[64] = "", buf[2048], path[320];
    int nvidia = 0, amd = 0, intel = 0;
    DIR *d = opendir("/proc/driver/nvidia/gpus");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "/proc/driver/nvidia/gpus/%s/information", e->d_name);
        if (slurp(path, buf, sizeof buf) > 0 && !model[0])
            field(buf, "Model", model, sizeof model);
        nvidia++;
    }
    if (d)
        closedir(d);
    /* containers often show the device nodes but not the driver's /proc files */
    d = nvidia ? NULL : opendir("/dev");
    while (d && (e = readdir(d)))
        nvidia += strncmp(e->d_name, "nvidia", 6) == 0 && e->d_name[6] >= '0' &&
                  e->d_name[6] <= '9' && strspn(e->d_name + 6, "0123456789") == strlen(e->d_name + 6);
    if (d)
        closedir(d);
    d = opendir("/sys/class/drm");
    while (d && (e = readdir(d))) {
        if (strncmp(e->d_name, "card", 4) || strchr(e->d_name, '-'))
            continue;                          /* connectors: card0-DP-1 */
        snprintf(path, sizeof path, "/sys/class/drm/%s/device/vendor", e->d_name);
        if (slurp(path, buf, sizeof buf) <= 0)
            continue;
        long vendor = strtol(buf, NULL, 16);
        amd += vendor == 0x1002;
        intel += vendor == 0x8086;
    }
    if (d)
        closedir(d);
    size_t n = 0;
    if (nvidia)
        n += (size_t)snprintf(v + n, sizeof v - n, "%dx%s", nvidia, model[0] ? model : "nvidia");
    if (amd && n < sizeof v)
        n += (size_t)snprintf(v + n, sizeof v - n, "%s%dxamd", n ? "," : "", amd);
    if (intel && n < sizeof v)
        snprintf(v + n, sizeof v - n, "%s%dxintel", n ? "," : "", intel);
    if (v[0])
        iol_fact_set(IOL_FACT_gpu, v);
}

/* Interfaces from /proc/net/dev; the first that is up among hsn* and ib*, else
 * the first up non-loopback one. */
static void probe_net(void)
{
    static char buf[8192];
    char best[IFNAME_LEN] = "", first[IFNAME_LEN] = "", path[128], state[32];
    if (slurp("/proc/net/dev", buf, sizeof buf) <= 0)
        return;
    for (char *line = strchr(buf, '\n'); line; line = strchr(line + 1, '\n')) {
        char *colon = strchr(line + 1, ':'), *s = line + 1;
        char *eol = strchr(line + 1, '\n');
        if (!colon || (eol && colon > eol))
            continue;
        while (*s == ' ')
            s++;
        size_t n = (size_t)(colon - s);
        if (n == 0 || n >= IFNAME_LEN)
            continue;
        char name[IFNAME_LEN];
        memcpy(name, s, n);
        name[n] = '\0';
        snprintf(path, sizeof path, "/sys/class/net/%s/operstate", name);
        if (!strcmp(name, "lo") || slurp(path, state, sizeof state) <= 0 ||
            strncmp(state, "up", 2) != 0)
            continue;
        if (!first[0])
            strcpy(first, name);
        if (!best[0] && (!strncmp(name, "hsn", 3) || !strncmp(name, "ib", 2)))
            strcpy(best, name);
    }
    const char *pick = best[0] ? best : first;
    if (!pick[0])
        return;
    char v[64];
    snprintf(path, sizeof path, "/sys/class/net/%s/speed", pick);
    long speed = slurp(path, state, sizeof state) > 0 ? strtol(state, NULL, 10) : -1;
    if (speed > 0)
        snprintf(v, sizeof v, "%s:%ld", pick, speed);
    else
        snprintf(v, sizeof v, "%s", pick);
    iol_fact_set(IOL_FACT_net, v);
}

void iol_platform_probe(void)
{
    probe_cpu();
    probe_cores_memory();
    probe_gpus();
    probe_net();
}
