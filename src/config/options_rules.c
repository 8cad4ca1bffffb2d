/* Application and rank exclusion rules (runtime spec 9.2).  Every token is
 * validated and the scan always advances: a malformed rank list is warned about
 * and ignored instead of hanging init as upstream does (spec trap 11). */
#include "options.h"

#include <stdlib.h>
#include <string.h>

/* Parse one rank token "N", "a:b", ":b", "a:" or "*" into [lo, hi]; -1 if bad. */
static int rank_range(const char *t, int nprocs, long *lo, long *hi)
{
    char *end;
    if (strcmp(t, "*") == 0) {
        *lo = 0;
        *hi = nprocs;
        return 0;
    }
    const char *colon = strchr(t, ':');
    if (!colon) {
        *lo = strtol(t, &end, 10);
        *hi = *lo;
        return (end == t || *end) ? -1 : 0;
    }
    *lo = 0;
    *hi = nprocs;
    if (colon != t) {
        *lo = strtol(t, &end, 10);
        if (end != colon)
            return -1;
    }
    if (colon[1]) {
        *hi = strtol(colon + 1, &end, 10);
        if (end == colon + 1 || *end)
            return -1;
    }
    return 0;
}

static int rank_in(const char *csv, int rank, int nprocs, iol_warn_fn warn)
{
    char buf[IOL_LIST_LEN];
    strncpy(buf, csv, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    int hit = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        long lo, hi;
        if (rank_range(t, nprocs, &lo, &hi)) {
            if (warn)
                warn("ignoring rank list entry \"%s\": not N, A:B or *", t);
            continue;
        }
        if (rank >= lo && rank <= hi)
            hit = 1;
    }
    return hit;
}

int iol_config_rank_excluded(const iol_config *c, int rank, int nprocs, iol_warn_fn warn)
{
    if (c->rank_include[0] && rank_in(c->rank_include, rank, nprocs, warn))
        return 0;
    return c->rank_exclude[0] && rank_in(c->rank_exclude, rank, nprocs, warn);
}

static int app_in(const char *csv, const char *prog, iol_warn_fn warn)
{
    char buf[IOL_LIST_LEN];
    strncpy(buf, csv, sizeof buf - 1);
    buf[sizeof buf - 1] = '\0';
    int hit = 0;
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t && !hit; t = strtok_r(NULL, ",", &save)) {
        regex_t re;
        if (regcomp(&re, t, REG_EXTENDED | REG_NOSUB)) {
            if (warn)
                warn("application regex \"%s\" does not compile; ignored", t);
            continue;
        }
        hit = regexec(&re, prog, 0, NULL, 0) == 0;
        regfree(&re);
    }
    return hit;
}

int iol_config_app_excluded(const iol_config *c, const char *exe, iol_warn_fn warn)
{
    if (!c->app_exclude[0] && !c->app_include[0])
        return 0;
    char prog[IOL_PATH_LEN];
    size_t n = strcspn(exe, " \n");
    if (n >= sizeof prog)
        n = sizeof prog - 1;
    memcpy(prog, exe, n);
    prog[n] = '\0';
    if (c->app_include[0] && app_in(c->app_include, prog, warn))
        return 0;
    return c->app_exclude[0] && app_in(c->app_exclude, prog, warn);
}
