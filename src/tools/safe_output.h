/* Writing a verb's output file without ever harming a file that is already there
 * (docs/cli.md, "Outputs").  Every C verb that writes a file goes through this:
 *
 *   iol_output o;
 *   int st = iol_output_begin(&o, OUT, inputs, n, IOL_OUT_LOG, err, sizeof err);
 *   if (st) -> print "iolens VERB: <err>", exit st (2: OUT is an input, 1: other)
 *   write the file at o.path (any writer: it opens the path itself)
 *   iol_output_commit(&o, ...) on success, iol_output_discard(&o) on failure.
 *
 * The contract:
 *  - OUT is refused (IOL_EXIT_USAGE) when it is one of the inputs: the same device
 *    and inode, so through symbolic and hard links.
 *  - The file is written inside a new private directory (mode 0700) beside OUT and
 *    only renamed to OUT (or linked, with IOL_OUT_NO_REPLACE) once complete.  A
 *    failed run leaves OUT as it was; SIGINT, SIGTERM and SIGHUP remove the partial
 *    file too.  Only SIGKILL leaves a `.iolens-partial-XXXXXX` directory behind,
 *    never a truncated OUT.
 *  - Nobody else can see the file while it is written (the directory is 0700);
 *    the finished file gets `mode` (0400 for logs, as the runtime's), whatever the
 *    umask.
 *  - A symbolic link OUT is written through: its target is replaced.  An existing
 *    OUT that is not a regular file (a FIFO, /dev/null) is written directly: it
 *    cannot be replaced and holds no data to lose. */
#ifndef IOLENS_SAFE_OUTPUT_H
#define IOLENS_SAFE_OUTPUT_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

enum {
    IOL_OUT_NO_REPLACE = 1,   /* OUT must not exist (merge, recover, keygen) */
    IOL_OUT_LOG = 2           /* the finished file is 0400, else 0600 */
};

typedef struct iol_output {
    char path[PATH_MAX];      /* where the writer writes */
    char dest[PATH_MAX];      /* where the finished file goes (a link's target) */
    char dir[PATH_MAX];       /* the private directory; "" when writing OUT directly */
    int flags;
} iol_output;

/* Check OUT against inputs[0..n-1] and prepare o.  Returns 0, IOL_EXIT_USAGE when
 * OUT is an input, IOL_EXIT_FAILURE otherwise, with one line "OUT: what went
 * wrong" in err. */
int iol_output_begin(iol_output *o, const char *out, const char *const *inputs, size_t n,
                     int flags, char *err, size_t errlen);

/* Give the finished file its mode and its name.  0, or IOL_EXIT_FAILURE with err
 * set (the partial file is then removed). */
int iol_output_commit(iol_output *o, char *err, size_t errlen);

/* Remove the partial file (a failed run): OUT stays as it was. */
void iol_output_discard(iol_output *o);

#endif
