/* Template module: copy this file to start a new module.  It implements
 * Darshan's example NULL module (id 0): records of an imaginary call
 * `foo(path, dat)`.  It is compiled with every build (so it keeps compiling) but
 * not listed in IOL_RUNTIME_MODULES, so it is not part of libiolens.so.
 *
 * A module is:
 *   1. its record layout (the counter table src/format/counters/<m>.def gives the
 *      enums; the record is id, rank, int64 counters, double counters);
 *   2. optional runtime-only state per record (the aux area);
 *   3. record functions called by its wrappers: enter the module with the record
 *      of a path (iol_rec_enter_path: clean, lock, first-use reservation, find or
 *      register), update, leave;
 *   4. one descriptor, named iol_<m>_module, listed in IOL_RUNTIME_MODULES;
 *   5. wrappers in <m>_wrap.c, whose signatures are lines of wrappers/intercept.def. */
#include "../core/rt.h"
#include "../core/stats.h"

typedef struct null_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[NULL_NUM_INDICES];
    double f[NULL_F_NUM_INDICES];
} null_rec;
IOL_ASSERT_RECORD_LAYOUT(null_rec, NULL);

/* What a wrapper of foo() would call after a successful real call. */
void iol_template_foo(const char *path, int64_t dat, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_NULL);
    null_rec *r = iol_rec_enter_path(m, path, NULL);   /* lock held when found */
    if (r) {
        r->c[NULL_FOOS]++;
        if (r->f[NULL_F_FOO_TIMESTAMP] == 0)
            r->f[NULL_F_FOO_TIMESTAMP] = t1;
        if (dat > r->c[NULL_FOO_MAX_DAT]) {
            r->c[NULL_FOO_MAX_DAT] = dat;
            r->f[NULL_F_FOO_MAX_DURATION] = t2 - t1;
        }
        iol_mod_leave(m);
    }
}

const iol_module_desc iol_template_module = {
    IOL_MODULE_IDENTITY(NULL),
    .rec_size = sizeof(null_rec),
    .default_records = 1024,
    .path_names = 1,
};
