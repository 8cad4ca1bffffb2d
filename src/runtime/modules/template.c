/* Template module: copy this file to start a new module (docs/adding-a-module.md).
 * It implements Darshan's example NULL module (id 0): records of a call
 * `int iolens_template_foo(const char *path, int dat)` of some library the
 * application links.  It is compiled with every build, with its own intercept
 * line, so it keeps compiling against the core; it is not part of libiolens.so
 * (the build leaves modules/template.c out).  tests/runtime/test_module_exercise.py
 * turns a copy of it into a real module and runs it.
 *
 * Making it a module <m> with symbol <SYM>: replace the words "NULL" by <SYM>,
 * "null" by <m> and "template" by <m> (every NULL here names the module).
 *
 * A module file holds:
 *   1. its record layout (the counter table src/format/counters/<m>.def gives the
 *      enums; the record is id, rank, int64 counters, double counters);
 *   2. record functions called by its wrappers: enter the module with the record
 *      of a path (iol_rec_enter_path: clean, lock, first-use reservation, find or
 *      register), update, leave;
 *   3. one descriptor, named iol_<m>_module (the build finds it by that name);
 *   4. its wrappers, each with its line for the intercept list below (the build
 *      collects lines starting "IOL_FN(" from module files into the one list of
 *      wrappers/intercept.def). */
#include <errno.h>
#include "../core/rt.h"
#include "../core/stats.h"
#include "../wrappers/real.h"

/* Intercepted here (collected by src/runtime/modules.cmake):
IOL_FN(NULL, int, iolens_template_foo, (const char *path, int dat))
 */

typedef struct null_rec {
    uint64_t id;
    int64_t rank;
    int64_t c[NULL_NUM_INDICES];
    double f[NULL_F_NUM_INDICES];
} null_rec;
IOL_ASSERT_RECORD_LAYOUT(null_rec, NULL);

/* Record one successful foo(path, dat) that ran from t1 to t2 (seconds since
 * init).  Called with errno as the real call left it; may change errno (the
 * wrapper restores it). */
static void record_foo(const char *path, int dat, double t1, double t2)
{
    iol_module *m = iol_mod(IOL_MOD_NULL);
    void *aux;
    null_rec *r = iol_rec_enter_path(m, path, &aux);   /* lock held when found */
    if (!r)
        return;
    r->c[NULL_FOOS]++;
    if (r->f[NULL_F_FOO_TIMESTAMP] == 0)
        r->f[NULL_F_FOO_TIMESTAMP] = t1;
    if (dat > r->c[NULL_FOO_MAX_DAT]) {
        r->c[NULL_FOO_MAX_DAT] = dat;
        r->f[NULL_F_FOO_MAX_DURATION] = t2 - t1;
    }
    iol_mod_leave(m);
}

static void foo_done(const char *path, int dat, const iol_span *sp)
{
    int saved = errno;            /* the application sees the real call's errno */
    double t1, t2;
    iol_span_sec(sp, &t1, &t2);
    record_foo(path, dat, t1, t2);
    errno = saved;
}

/* The wrapper: the real call, timed (TIMED_BODY: untimed when not recording);
 * only a successful call (ret >= 0) is recorded; the return value is the real
 * one.  Its signature is exactly its IOL_FN line. */
int iolens_template_foo(const char *path, int dat)
{
    TIMED_BODY(int, IOL_REAL(iolens_template_foo)(path, dat), ret >= 0,
               foo_done(path, dat, &sp));
}

const iol_module_desc iol_template_module = {
    IOL_MODULE_IDENTITY(NULL),
    .rec_size = sizeof(null_rec),
    .default_records = 1024,
    .path_names = 1,
};
