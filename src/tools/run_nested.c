/* iolens under iolens (run_nested.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run_nested.h"

#define MAX_DEPTH 256              /* ancestors looked at, at most */

/* The parent of pid, from the "PPid:" line of /proc/<pid>/status; 0 if unknown. */
static pid_t parent_of(pid_t pid)
{
    char path[64], line[256];
    long ppid = 0;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(line, sizeof line, f) && sscanf(line, "PPid: %ld", &ppid) != 1)
        ;
    if (f)
        fclose(f);
    return (pid_t)ppid;
}

pid_t iol_run_outer(void)
{
    const char *v = getenv(IOL_RUN_PID_VAR);
    long outer = v && *v ? strtol(v, NULL, 10) : 0;
    if (outer <= 1)
        return 0;
    pid_t p = getppid();
    for (int i = 0; i < MAX_DEPTH && p > 1; i++, p = parent_of(p))
        if (p == (pid_t)outer)
            return p;
    return 0;
}

static int is_runtime(const char *entry, size_t len)
{
    const char *b = entry;
    for (size_t i = 0; i < len; i++)
        if (entry[i] == '/')
            b = entry + i + 1;
    /* only the runtimes themselves (libiolens.so, libiolens-mpi.so, with any
     * version suffix): another library named libiolens-* that a user or a test
     * preloads (the Lustre test shim) stays for the program */
    size_t n = len - (size_t)(b - entry);
    static const char *const runtimes[] = {"libiolens.so", "libiolens-mpi.so"};
    for (size_t k = 0; k < sizeof runtimes / sizeof *runtimes; k++) {
        size_t r = strlen(runtimes[k]);
        if (n >= r && strncmp(b, runtimes[k], r) == 0 && (n == r || b[r] == '.'))
            return 1;
    }
    return 0;
}

/* LD_PRELOAD without the runtime's entries (split at ':' and ' ', as ld.so does). */
static int strip_runtime(const char *pre, char *out, size_t len)
{
    size_t o = 0;
    int found = 0;
    out[0] = '\0';
    for (const char *p = pre; *p;) {
        size_t n = strcspn(p, ": ");
        if (n && is_runtime(p, n))
            found = 1;
        else if (n && o + n + 2 < len)
            o += (size_t)snprintf(out + o, len - o, "%s%.*s", o ? ":" : "", (int)n, p);
        p += n + (p[n] != '\0');
    }
    return found;
}

void iol_tool_leave_runtime(int argc, char **argv)
{
    const char *env = getenv("LD_PRELOAD");
    char pre[8192], kept[8192];
    if (!env || snprintf(pre, sizeof pre, "%s", env) >= (int)sizeof pre ||
        !strip_runtime(pre, kept, sizeof kept))
        return;
    if (argc > 1 && strcmp(argv[1], "run") == 0 && iol_run_outer() > 0)
        return;                           /* run.c execs the program with it */
    /* The job id this image gave itself as the job's first process is not the
     * job's: the tool starts no instrumented process of its own. */
    const char *job = getenv("IOLENS_JOB_PID");
    if (job && strtol(job, NULL, 10) == (long)getpid())
        unsetenv("IOLENS_JOB_PID");
    if (kept[0] ? setenv("LD_PRELOAD", kept, 1) : unsetenv("LD_PRELOAD"))
        return;
    execv("/proc/self/exe", argv);
    setenv("LD_PRELOAD", pre, 1);         /* could not: run as we are */
}
