/* What every verb of the `iolens` command shares: the exit statuses (docs/cli.md
 * holds the table users read), `--version`, and how verbs that are not built in
 * are found and suggested. */
#ifndef IOLENS_CLI_H
#define IOLENS_CLI_H

#include <stddef.h>

enum {
    IOL_EXIT_OK = 0,
    IOL_EXIT_FAILURE = 1,     /* the verb's work failed (convert, merge, report, ...) */
    IOL_EXIT_USAGE = 2,       /* bad options or arguments; unknown verb */
    IOL_EXIT_NOT_STARTED = 127, /* `iolens run`: the program could not be started */
    IOL_EXIT_LOG = 255        /* parse/dxt: unreadable or partial log (darshan-parser's
                               * status, which scripts test for) */
};

/* 1 when ARGV (argv[0] = the verb) asks for --version before any `--` or, when
 * stop_at_operand, before the first operand (`iolens run CMD --version` is CMD's). */
int iol_cli_wants_version(int argc, char **argv, int stop_at_operand);

/* A usage error's first line, "iolens VERB: WHAT" on stderr (the caller prints its
 * usage after it); returns IOL_EXIT_USAGE.  docs/cli.md, "Messages". */
int iol_cli_usage_error(const char *verb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The usage error of getopt_long's '?' or ':' (call it with opterr = 0 and an
 * optstring starting with ':'): names the option and what is wrong with it. */
int iol_cli_getopt_error(const char *verb, int c, char **argv);

/* Prints "iolens VERB VERSION" on stdout; returns IOL_EXIT_OK. */
int iol_cli_print_version(const char *verb);

/* Runs `iolens-VERB` (argv[0] = VERB, NULL-terminated), looking first in the directory of the
 * running `iolens` (resolving symlinks, as git's exec path), then in PATH.
 * Returns only when it could not be run: ENOENT when no such program exists. */
int iol_cli_exec_external(char **argv);

/* The candidate closest to WORD by edit distance, or NULL when none is close
 * enough to be a likely typo. */
const char *iol_cli_closest(const char *word, const char *const *cands, size_t n);

#endif
