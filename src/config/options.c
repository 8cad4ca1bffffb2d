/* The options table: every setting of the runtime, its environment variable, its
 * config-file key, and how its text is parsed.  Precedence (runtime spec 9.3):
 * scalars env > file > default; flags file OR env; the APP/RANK/MOD list pairs
 * are replaced wholesale by the environment when either variable of the pair is
 * set; NAME_* and MAX_RECORDS exist in the file only. */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

enum opt_kind { K_FLAG, K_MIB, K_INT, K_STR, K_LIST, K_FRAC, K_PATHLIST };

typedef struct opt {
    const char *env;        /* environment variable, or NULL */
    const char *key;        /* config-file key, or NULL */
    enum opt_kind kind;
    size_t off, size;       /* field in iol_config */
    int pair;               /* list pairs: 1 APP, 2 RANK, 3 MOD (0 = none) */
} opt;

#define F(field) offsetof(iol_config, field), sizeof(((iol_config *)0)->field)
static const opt OPTS[] = {
    {"DARSHAN_DISABLE", NULL, K_FLAG, F(disable), 0},
    {"DARSHAN_ENABLE_NONMPI", NULL, K_FLAG, F(enable_nonmpi), 0},
    {"DARSHAN_DUMP_CONFIG", "DUMP_CONFIG", K_FLAG, F(dump_config), 0},
    {"DARSHAN_INTERNAL_TIMING", "INTERNAL_TIMING", K_FLAG, F(internal_timing), 0},
    {"DARSHAN_DISABLE_SHARED_REDUCTION", "DISABLE_SHARED_REDUCTION", K_FLAG, F(no_shared_reduction), 0},
    {"DXT_ENABLE_IO_TRACE", NULL, K_FLAG, F(dxt_enable), 0},
    {"IOLENS_DXT_MPIIO_OFFSETS", NULL, K_FLAG, F(dxt_mpiio_offsets), 0},
    {"DXT_THREAD_IDS", "DXT_THREAD_IDS", K_FLAG, F(dxt_thread_ids), 0},
    {"DARSHAN_MODMEM", "MODMEM", K_MIB, F(modmem), 0},
    {"DARSHAN_NAMEMEM", "NAMEMEM", K_MIB, F(namemem), 0},
    {"DARSHAN_MEMALIGN", "MEM_ALIGNMENT", K_INT, F(memalign), 0},
    {"DARSHAN_JOBID", "JOBID", K_STR, F(jobid_env), 0},
    {"DARSHAN_LOGHINTS", "LOGHINTS", K_STR, F(loghints), 0},
    {"DARSHAN_LOGPATH", "LOGPATH", K_STR, F(logpath), 0},
    {"DARSHAN_LOGFILE", NULL, K_STR, F(logfile), 0},
    {"DARSHAN_MMAP_LOGPATH", "MMAP_LOGPATH", K_STR, F(mmap_logpath), 0},
    {"IOLENS_LOG_REPORT", NULL, K_STR, F(report_path), 0},
    {"IOLENS_NO_SAFETY_COPY", "NO_SAFETY_COPY", K_FLAG, F(no_safety), 0},
    {"IOLENS_NO_LUSTRE_API", "NO_LUSTRE_API", K_FLAG, F(lustre_no_api), 0},
    {"IOLENS_NO_TSC", "NO_TSC", K_FLAG, F(no_tsc), 0},
    {"IOLENS_JOB_PID", NULL, K_INT, F(job_pid), 0},
    {"LOGNAME", NULL, K_STR, F(username), 0},
    {"DARSHAN_EXCLUDE_DIRS", NULL, K_PATHLIST, F(exclude_dirs), 0},
    {"DARSHAN_APP_EXCLUDE", "APP_EXCLUDE", K_LIST, F(app_exclude), 1},
    {"DARSHAN_APP_INCLUDE", "APP_INCLUDE", K_LIST, F(app_include), 1},
    {"DARSHAN_RANK_EXCLUDE", "RANK_EXCLUDE", K_LIST, F(rank_exclude), 2},
    {"DARSHAN_RANK_INCLUDE", "RANK_INCLUDE", K_LIST, F(rank_include), 2},
    {"DARSHAN_MOD_DISABLE", "MOD_DISABLE", K_LIST, F(mod_disable), 3},
    {"DARSHAN_MOD_ENABLE", "MOD_ENABLE", K_LIST, F(mod_enable), 3},
    {"DARSHAN_DXT_SMALL_IO_TRIGGER", "DXT_SMALL_IO_TRIGGER", K_FRAC, F(dxt_small_trigger), 0},
    {"DARSHAN_DXT_UNALIGNED_IO_TRIGGER", "DXT_UNALIGNED_IO_TRIGGER", K_FRAC, F(dxt_unaligned_trigger), 0},
};
#undef F
#define NOPTS (sizeof OPTS / sizeof OPTS[0])

static const char *const MODNAMES[IOL_MAX_MODULES] = {
#define MODULE(id, sym, name, ver, kind, role, summary, layer, depth, runtime, tbl) \
    [id] = name,
#include "modules.def"
#undef MODULE
};

int iol_config_module_id(const char *name)
{
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (MODNAMES[i] && strcmp(MODNAMES[i], name) == 0)
            return i;
    return -1;
}

static void nowarn(const char *fmt, ...) { (void)fmt; }

/* A flag is on when its variable is present, except for the explicit "off" words
 * (a deliberate deviation: upstream turns X=0 on; docs/configuration.md). */
static int flag_value(const char *v)
{
    static const char *const off[] = {"0", "no", "false", "off"};
    for (size_t i = 0; i < 4; i++)
        if (strcasecmp(v, off[i]) == 0)
            return 0;
    return 1;
}

static void copy_str(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size)
        n = size - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void append_list(char *dst, size_t size, const char *src)
{
    size_t have = strlen(dst);
    if (have && have + 1 < size)
        dst[have++] = ',';
    copy_str(dst + have, size - have, src);
}

/* MiB as a float, rounded up to whole bytes; 0, negative or garbage is refused so
 * that a bad value can never leave the runtime without memory (spec trap 9). */
static int parse_mib(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || errno || !(d > 0) || d > 1e6)
        return -1;
    uint64_t b = (uint64_t)ceil(d * 1048576.0);
    *out = b < 4096 ? 4096 : (b + 7) & ~(uint64_t)7;
    return 0;
}

static int parse_int(const char *v, int64_t *out)
{
    char *end;
    errno = 0;
    double d = strtod(v, &end);
    if (end == v || errno || d != d)
        return -1;
    *out = d < 1 ? 1 : (int64_t)d;
    return 0;
}

static void set_value(iol_config *c, const opt *o, const char *v, int from_env, iol_warn_fn warn)
{
    char *field = (char *)c + o->off;
    switch (o->kind) {
    case K_FLAG:
        if (!from_env || flag_value(v))
            *(int *)field = 1;
        break;
    case K_MIB:
        if (parse_mib(v, (uint64_t *)field))
            warn("ignoring %s=\"%s\": not a positive size in MiB", from_env ? o->env : o->key, v);
        break;
    case K_INT:
        if (parse_int(v, (int64_t *)field))
            warn("ignoring %s=\"%s\": not a number", from_env ? o->env : o->key, v);
        break;
    case K_FRAC: {
        char *end;
        double d = strtod(v, &end);
        if (end == v || !(d >= 0))
            warn("ignoring %s=\"%s\": not a fraction", from_env ? o->env : o->key, v);
        else
            *(double *)field = d;
        break;
    }
    case K_STR:
        copy_str(field, o->size, v);
        break;
    case K_LIST:
        if (from_env)
            copy_str(field, o->size, v);
        else
            append_list(field, o->size, v);
        break;
    case K_PATHLIST:
        copy_str(field, o->size, v);
        c->exclude_dirs_set = 1;
        break;
    }
}

static const opt *find_key(const char *key)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (OPTS[i].key && strcmp(OPTS[i].key, key) == 0)
            return &OPTS[i];
    return NULL;
}

/* Module CSV -> mask; unknown names warned about.  "*" = all. */
static uint64_t module_mask(const char *csv, iol_warn_fn warn)
{
    uint64_t m = 0;
    char buf[IOL_LIST_LEN];
    copy_str(buf, sizeof buf, csv);
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "*") == 0)
            return ~(uint64_t)0;
        int id = iol_config_module_id(t);
        if (id < 0)
            warn("unknown module \"%s\" in module list", t);
        else
            m |= (uint64_t)1 << id;
    }
    return m;
}

static void add_name_rules(iol_config *c, int include, char *regexes, const char *mods, iol_warn_fn warn)
{
    uint64_t mask = module_mask(mods, warn);
    for (char *save = NULL, *t = strtok_r(regexes, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        if (c->nrules == IOL_NAME_RULES) {
            warn("too many NAME_EXCLUDE/NAME_INCLUDE rules; \"%s\" ignored", t);
            continue;
        }
        iol_name_rule *r = &c->rules[c->nrules];
        if (regcomp(&r->re, t, REG_EXTENDED | REG_NOSUB)) {
            warn("regex \"%s\" does not compile; ignored", t);
            continue;
        }
        r->compiled = 1;
        r->include = include;
        r->modmask = mask;
        copy_str(r->text, sizeof r->text, t);
        c->nrules++;
    }
}

static void max_records(iol_config *c, const char *n, const char *mods, iol_warn_fn warn)
{
    int64_t v;
    if (parse_int(n, &v)) {
        warn("MAX_RECORDS \"%s\" is not a number; ignored", n);
        return;
    }
    uint64_t mask = module_mask(mods, warn);
    for (int i = 0; i < IOL_MAX_MODULES; i++)
        if (mask & ((uint64_t)1 << i))
            c->max_records[i] = v;
}

static void file_line(iol_config *c, char *line, int lineno, iol_warn_fn warn)
{
    char *save = NULL;
    char *key = strtok_r(line, " \t", &save);
    if (!key || key[0] == '#')
        return;
    char *val = strtok_r(NULL, " \t", &save);
    char *mods = strtok_r(NULL, " \t", &save);
    if (strcmp(key, "MAX_RECORDS") == 0 || strcmp(key, "NAME_EXCLUDE") == 0 ||
        strcmp(key, "NAME_INCLUDE") == 0) {
        if (!val || !mods) {
            warn("config line %d: %s needs a value and a module list; ignored", lineno, key);
            return;
        }
        if (key[0] == 'M')
            max_records(c, val, mods, warn);
        else
            add_name_rules(c, key[5] == 'I', val, mods, warn);
        return;
    }
    const opt *o = find_key(key);
    if (!o) {
        warn("invalid config setting %s (line %d)", key, lineno);
        return;
    }
    set_value(c, o, val ? val : "", 0, warn);
}

/* The config file is read with plain open/read (no stdio: no allocation). */
static void load_file(iol_config *c, const char *path, iol_warn_fn warn)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        warn("unable to open config file %s: %s", path, strerror(errno));
        return;
    }
    char buf[65536];
    ssize_t n, len = 0;
    while ((n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
        len += n;
    close(fd);
    buf[len] = '\0';
    int lineno = 0;
    for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        lineno++;
        while (*l == ' ' || *l == '\t')
            l++;
        size_t ll = strlen(l);
        if (ll && l[ll - 1] == '\r')
            l[ll - 1] = '\0';
        if (*l && *l != '#')
            file_line(c, l, lineno, warn);
    }
}

static void set_defaults(iol_config *c)
{
    memset(c, 0, sizeof *c);
    c->modmem = 4u << 20;
    c->namemem = 1u << 20;
    c->memalign = 8;
    copy_str(c->mmap_logpath, sizeof c->mmap_logpath, "/dev/shm");   /* docs/recovery.md */
    c->dxt_small_trigger = c->dxt_unaligned_trigger = -1;
}

static void load_env(iol_config *c, char *(*get)(const char *), iol_warn_fn warn)
{
    for (int pair = 1; pair <= 3; pair++) {       /* env list pairs replace the file's */
        int set = 0;
        for (size_t i = 0; i < NOPTS; i++)
            if (OPTS[i].pair == pair && get(OPTS[i].env))
                set = 1;
        for (size_t i = 0; set && i < NOPTS; i++)
            if (OPTS[i].pair == pair)
                ((char *)c + OPTS[i].off)[0] = '\0';
    }
    for (size_t i = 0; i < NOPTS; i++) {
        const char *v = OPTS[i].env ? get(OPTS[i].env) : NULL;
        if (v)
            set_value(c, &OPTS[i], v, 1, warn);
    }
}

void iol_config_load(iol_config *c, char *(*get)(const char *), iol_warn_fn warn)
{
    if (!warn)
        warn = nowarn;
    set_defaults(c);
    const char *cp = get("DARSHAN_CONFIG_PATH");
    if (cp && *cp) {
        copy_str(c->config_path, sizeof c->config_path, cp);
        load_file(c, cp, warn);
    }
    load_env(c, get, warn);
    c->jobid = -1;
    const char *jv = (c->jobid_env[0] && strcmp(c->jobid_env, "NONE")) ? get(c->jobid_env) : NULL;
    int j;
    if (jv && sscanf(jv, "%d", &j) == 1)
        c->jobid = j;
    c->launcher_rank = c->launcher_size = -1;
    c->launcher_var = NULL;
    iol_launcher_rank(get, &c->launcher_rank, &c->launcher_size, &c->launcher_var);
    uint64_t dxt = ((uint64_t)1 << 10) | ((uint64_t)1 << 11);
    c->mod_disabled = (dxt | module_mask(c->mod_disable, warn)) & ~module_mask(c->mod_enable, warn);
    if (c->dxt_enable)
        c->mod_disabled &= ~dxt;
}

void iol_config_free(iol_config *c)
{
    for (size_t i = 0; i < c->nrules; i++)
        if (c->rules[i].compiled)
            regfree(&c->rules[i].re);
    c->nrules = 0;
}
