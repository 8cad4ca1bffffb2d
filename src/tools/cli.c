/* Shared command-line behaviour of the `iolens` verbs (see cli.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "self_dir.h"

int iol_cli_wants_version(int argc, char **argv, int stop_at_operand)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return 0;
        if (!strcmp(argv[i], "--version"))
            return 1;
        if (stop_at_operand && argv[i][0] != '-')
            return 0;
    }
    return 0;
}

int iol_cli_usage_error(const char *verb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "iolens %s: ", verb);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return IOL_EXIT_USAGE;
}

int iol_cli_getopt_error(const char *verb, int c, char **argv)
{
    const char *opt = argv[optind - 1];
    if (c == ':')
        return iol_cli_usage_error(verb, "%s needs a value", opt);
    return iol_cli_usage_error(verb, "unknown option '%s'", opt);
}

int iol_cli_print_version(const char *verb)
{
    printf("iolens %s %s\n", verb, IOLENS_VERSION);
    return IOL_EXIT_OK;
}

/* Try DIR/PROG; returns (with errno set) only when it cannot be executed. */
static void exec_in(const char *dir, const char *prog, char **argv)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, prog) >= sizeof path) {
        errno = ENAMETOOLONG;
        return;
    }
    execv(path, argv);
}

int iol_cli_exec_external(char **argv)
{
    char prog[256];
    if ((size_t)snprintf(prog, sizeof prog, "iolens-%s", argv[0]) >= sizeof prog ||
        strchr(argv[0], '/')) {
        errno = ENOENT;
        return -1;
    }
    argv[0] = prog;
    /* Beside the executable first: a virtual environment's bin/ holds both
     * `iolens` and `iolens-report`, and need not be on PATH.  /proc/self/exe has
     * symlinks resolved, so a link to .venv/bin/iolens finds its siblings too. */
    char self[PATH_MAX];
    int saved = ENOENT;
    if (iol_self_dir(self, sizeof self) == 0) {
        exec_in(*self ? self : "/", prog, argv);
        if (errno != ENOENT)
            saved = errno;
    }
    execvp(prog, argv);
    if (errno == ENOENT)
        errno = saved;
    return -1;
}

/* Levenshtein distance of two short words (verbs), capped at 255 bytes. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strnlen(a, 255), lb = strnlen(b, 255);
    size_t row[256];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *iol_cli_closest(const char *word, const char *const *cands, size_t n)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = edit_distance(word, cands[i]);
        /* A prefix ("conf") is as likely a typo as a near miss. */
        if (!strncmp(cands[i], word, strlen(word)) && *word)
            d = 1;
        if (d < best_d) {
            best_d = d;
            best = cands[i];
        }
    }
    /* Half the word's length (at least 2 edits): beyond that it is another word. */
    size_t limit = strlen(word) / 2 > 2 ? strlen(word) / 2 : 2;
    return best_d <= limit ? best : NULL;
}
