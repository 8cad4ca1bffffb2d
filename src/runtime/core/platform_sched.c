/* The scheduler's view of the job, from its environment, once at init: which
 * scheduler (SLURM, PBS, LSF, Flux), the job geometry (tasks, cpus per task,
 * partition or queue), and the nodes: their count, processes per node and host
 * names (platform facts sched, nnodes, ppn, hosts).  Without a scheduler the
 * job is this one process on this node.  Under MPI, mpi/nodes.c replaces
 * nnodes, ppn and hosts with what the processes themselves report. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core_int.h"

#define MAX_HOSTS 1024
#define HOST_LEN 64

static const char *env(const char *a, const char *b)
{
    const char *v = getenv(a);
    if ((!v || !*v) && b)
        v = getenv(b);
    return v && *v ? v : NULL;
}

/* ",name:value" appended to the sched value when the variable is set. */
static void geometry(char *v, size_t len, const char *name, const char *value)
{
    size_t n = strlen(v);
    if (value && n < len && !strpbrk(value, ",\n"))
        snprintf(v + n, len - n, ",%s:%s", name, value);
}

/* SLURM_TASKS_PER_NODE "2(x3),1" -> "1-2"; a plain "4" stays "4". */
static void slurm_ppn(const char *t)
{
    long lo = -1, hi = -1;
    for (const char *p = t; p && *p;) {
        char *end;
        long k = strtol(p, &end, 10);
        if (end == p)
            return;
        lo = lo < 0 || k < lo ? k : lo;
        hi = k > hi ? k : hi;
        p = strchr(end, ',');
        p = p ? p + 1 : NULL;
    }
    if (lo >= 0)
        iol_fact_nodes(-1, lo, hi);
}

/* Host names with their process slots: PBS_NODEFILE has one line per slot,
 * LSB_MCPU_HOSTS is "host slots host slots ...".  Sets hosts, nnodes, ppn. */
typedef struct hosts {
    char (*name)[HOST_LEN];
    long slots[MAX_HOSTS];
    size_t n, more;            /* names kept, distinct names beyond MAX_HOSTS */
} hosts;

static void add_host(hosts *h, const char *s, size_t len, long slots)
{
    if (len == 0 || len >= HOST_LEN)
        return;
    for (size_t i = h->n; i-- > 0;)    /* node files group a host's lines: look back */
        if (strncmp(h->name[i], s, len) == 0 && h->name[i][len] == '\0') {
            h->slots[i] += slots;
            return;
        }
    if (h->n == MAX_HOSTS) {
        h->more++;
        return;
    }
    memcpy(h->name[h->n], s, len);
    h->name[h->n][len] = '\0';
    h->slots[h->n++] = slots;
}

static void set_hosts(hosts *h)
{
    static const char *ptr[MAX_HOSTS];
    char v[512];
    long lo = -1, hi = -1;
    for (size_t i = 0; i < h->n; i++) {
        ptr[i] = h->name[i];
        lo = lo < 0 || h->slots[i] < lo ? h->slots[i] : lo;
        hi = h->slots[i] > hi ? h->slots[i] : hi;
    }
    if (h->n == 0)
        return;
    iol_hostlist(ptr, h->n, v, 256);
    iol_fact_set(IOL_FACT_hosts, v);
    iol_fact_nodes((long)(h->n + h->more), lo, hi);
}

static void pbs_nodefile(hosts *h, const char *path)
{
    static char buf[65536];          /* the first 64 KiB: ~4000 slots */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = 0, r;
    if (fd < 0)
        return;
    while ((size_t)n < sizeof buf - 1 && (r = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0)
        n += r;
    close(fd);
    buf[n] = '\0';
    for (char *line = buf; *line;) {
        size_t len = strcspn(line, "\n");
        add_host(h, line, len, 1);
        line += len + (line[len] == '\n');
    }
}

static void lsf_hosts(hosts *h, const char *list)
{
    for (const char *p = list; *p;) {
        p += strspn(p, " ");
        size_t len = strcspn(p, " ");
        const char *q = p + len;
        q += strspn(q, " ");
        long slots = strtol(q, NULL, 10);
        add_host(h, p, len, slots > 0 ? slots : 1);
        p = q + strcspn(q, " ");
    }
}

/* A scheduler's hostlist longer than the fact holds is cut after a whole
 * top-level entry, with ",+more" (the count of what is left out is unknown). */
static void set_list(const char *list)
{
    char v[300];
    size_t n = strlen(list), cut = 0;
    if (n <= 256) {
        iol_fact_set(IOL_FACT_hosts, list);
        return;
    }
    for (size_t i = 0, depth = 0; i < 248; i++) {
        depth += list[i] == '[';
        depth -= list[i] == ']' && depth > 0;
        if (list[i] == ',' && depth == 0)
            cut = i;
    }
    snprintf(v, sizeof v, "%.*s%s+more", (int)cut, list, cut ? "," : "");
    iol_fact_set(IOL_FACT_hosts, v);
}

static void this_node(void)
{
    char name[HOST_LEN + 1] = "";
    gethostname(name, HOST_LEN);
    name[HOST_LEN] = '\0';
    iol_fact_set(IOL_FACT_hosts, name);
    iol_fact_set(IOL_FACT_nnodes, "1");
    iol_fact_set(IOL_FACT_ppn, "1");
}

void iol_platform_sched(void)
{
    char v[128] = "";
    this_node();
    hosts *h = mmap(NULL, sizeof *h + MAX_HOSTS * HOST_LEN, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (h == MAP_FAILED)
        h = NULL;
    else
        h->name = (char (*)[HOST_LEN])(h + 1);
    if (env("SLURM_JOB_ID", "SLURM_JOBID")) {
        strcpy(v, "slurm");
        geometry(v, sizeof v, "tasks", env("SLURM_NTASKS", "SLURM_NPROCS"));
        geometry(v, sizeof v, "cpt", env("SLURM_CPUS_PER_TASK", NULL));
        geometry(v, sizeof v, "part", env("SLURM_JOB_PARTITION", NULL));
        const char *nodes = env("SLURM_JOB_NUM_NODES", "SLURM_NNODES");
        if (nodes)
            iol_fact_set(IOL_FACT_nnodes, nodes);
        const char *list = env("SLURM_JOB_NODELIST", "SLURM_NODELIST");
        if (list)
            set_list(list);   /* already in hostlist form */
        slurm_ppn(env("SLURM_NTASKS_PER_NODE", "SLURM_TASKS_PER_NODE"));
    } else if (env("PBS_JOBID", NULL)) {
        strcpy(v, "pbs");
        geometry(v, sizeof v, "tasks", env("PBS_NP", "NCPUS"));
        geometry(v, sizeof v, "part", env("PBS_QUEUE", NULL));
        if (h && env("PBS_NODEFILE", NULL))
            pbs_nodefile(h, env("PBS_NODEFILE", NULL));
    } else if (env("LSB_JOBID", NULL)) {
        strcpy(v, "lsf");
        geometry(v, sizeof v, "tasks", env("LSB_DJOB_NUMPROC", NULL));
        geometry(v, sizeof v, "part", env("LSB_QUEUE", NULL));
        if (h && env("LSB_MCPU_HOSTS", NULL))
            lsf_hosts(h, env("LSB_MCPU_HOSTS", NULL));
    } else if (env("FLUX_JOB_ID", NULL)) {
        strcpy(v, "flux");
        geometry(v, sizeof v, "tasks", env("FLUX_JOB_SIZE", NULL));
        const char *nodes = env("FLUX_JOB_NNODES", NULL);
        if (nodes)
            iol_fact_set(IOL_FACT_nnodes, nodes);
    }
    if (h) {
        set_hosts(h);
        munmap(h, sizeof *h + MAX_HOSTS * HOST_LEN);
    }
    iol_fact_set(IOL_FACT_sched, v);
}
