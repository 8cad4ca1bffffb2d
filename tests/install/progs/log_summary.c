/* A C user of the installed format library (tests/install): opens the log named
 * on the command line through the public API and prints what `iolens parse` of
 * the same log must agree with:
 *   nprocs N                 the job's process count
 *   POSIX records R          records of the POSIX module
 *   POSIX_BYTES_WRITTEN B    their sum (counters.h's enums from the installed
 *                            counter tables)
 * Exit 0, or 1 with the library's message when a call fails. */
#include <stdio.h>

#include <iolens/log.h>

static int fail(const char *what, int rc, const char *detail)
{
    fprintf(stderr, "log_summary: %s: %s (%s)\n", what, iolens_strerror(rc), detail);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: log_summary LOG\n");
        return 2;
    }
    char err[256] = "";
    iolens_log *log;
    int rc = iolens_log_open(argv[1], &log, err, sizeof err);
    if (rc != IOLENS_OK)
        return fail("open", rc, err);
    printf("nprocs %lld\n", (long long)iolens_log_job(log)->nprocs);
    iolens_record_iter *it;
    rc = iolens_record_iter_open(log, IOL_MOD_POSIX, &it);
    long long records = 0, written = 0;
    if (rc == IOLENS_OK) {
        iolens_record rec;
        while ((rc = iolens_record_iter_next(it, &rec)) == 1) {
            records++;
            written += rec.ints[POSIX_BYTES_WRITTEN];
        }
        iolens_record_iter_close(it);
        if (rc < 0)
            return fail("POSIX records", rc, iolens_log_error(log));
    } else if (rc != IOLENS_E_NOT_PRESENT) {
        return fail("POSIX records", rc, iolens_log_error(log));
    }
    printf("POSIX records %lld\nPOSIX_BYTES_WRITTEN %lld\n", records, written);
    iolens_log_close(log);
    return 0;
}
