/* The DARSHAN_DUMP_CONFIG text (runtime spec section 10), line by line. */
#include "options.h"

#include <string.h>

static const char *const MODNAMES[IOL_MAX_MODULES] = {
#define MODULE(id, sym, name, ver, kind, role, summary, layer, depth, runtime, tbl) \
    [id] = name,
#include "modules.def"
#undef MODULE
};

#define OUT(...)                                   \
    do {                                           \
        snprintf(line, sizeof line, __VA_ARGS__);  \
        out(line, arg);                            \
    } while (0)

static const char *or_none(const char *s) { return s[0] ? s : "NONE"; }

static void dump_modules(const iol_config *c, void (*out)(const char *, void *), void *arg)
{
    char line[IOL_PATH_LEN + 64];
    for (int id = 1; id < IOL_MAX_MODULES && MODNAMES[id]; id++) {
        OUT("# %s MODULE CONFIG:", MODNAMES[id]);
        OUT("#      - %s", (c->mod_disabled >> id) & 1 ? "DISABLED" : "ENABLED");
        if (c->max_records[id])
            OUT("#      - MAX_RECORDS = %lld", (long long)c->max_records[id]);
        for (int inc = 0; inc < 2; inc++) {
            char list[IOL_LIST_LEN] = "";
            for (size_t i = 0; i < c->nrules; i++) {
                const iol_name_rule *r = &c->rules[i];
                if (r->include == inc && ((r->modmask >> id) & 1)) {
                    size_t have = strlen(list);
                    snprintf(list + have, sizeof list - have, "%s%s", have ? "," : "", r->text);
                }
            }
            if (list[0])
                OUT("#      - NAME_%s = %s", inc ? "INCLUDE" : "EXCLUDE", list);
        }
    }
}

void iol_config_dump(const iol_config *c, void (*out)(const char *, void *), void *arg)
{
    char line[IOL_PATH_LEN + 64];
    static const char *const bar = "##########################";
    out(bar, arg);
    out("##### DARSHAN CONFIG #####", arg);
    out(bar, arg);
    OUT("# MODMEM = %.2f MiB", c->modmem / 1048576.0);
    OUT("# NAMEMEM = %.0f KiB", c->namemem / 1024.0);
    OUT("# MEM_ALIGNMENT = %lld bytes", (long long)c->memalign);
    OUT("# JOBID = %s", or_none(c->jobid_env));
    OUT("# LOGHINTS = %s", or_none(c->loghints));
    OUT("# LOGPATH = %s", or_none(c->logpath));
    OUT("# LOGPATH_BYENV = NONE");
    OUT("# LOGFILE = %s", or_none(c->logfile));
    OUT("# MMAP_LOGPATH = %s", c->mmap_logpath);
    OUT("# EXCLUDE_DIRS = %s", c->exclude_dirs_set ? c->exclude_dirs :
        "/etc/,/dev/,/usr/,/bin/,/boot/,/lib/,/opt/,/sbin/,/sys/,/proc/,/var/");
    OUT("# APP_EXCLUDE = %s", or_none(c->app_exclude));
    OUT("# APP_INCLUDE = %s", or_none(c->app_include));
    OUT("# RANK_EXCLUDE = %s", or_none(c->rank_exclude));
    OUT("# RANK_INCLUDE = %s", or_none(c->rank_include));
    if (c->dxt_small_trigger >= 0)
        OUT("# DXT_SMALL_IO_TRIGGER = %.2lf", c->dxt_small_trigger);
    if (c->dxt_unaligned_trigger >= 0)
        OUT("# DXT_UNALIGNED_IO_TRIGGER = %.2lf", c->dxt_unaligned_trigger);
    if (c->lustre_no_api)
        OUT("# NO_LUSTRE_API (liblustreapi not used)");
    if (c->no_tsc)
        OUT("# NO_TSC (calls timed with clock_gettime)");
    dump_modules(c, out, arg);
    out(bar, arg);
    out("### END DARSHAN CONFIG ###", arg);
    out(bar, arg);
}
