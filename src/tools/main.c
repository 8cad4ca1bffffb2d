/* `iolens <verb>`: one command for users.  C verbs run here (they need no Python,
 * so they work on compute nodes); any other verb runs `iolens-<verb>` from PATH,
 * the way git finds external subcommands (the Python package installs
 * iolens-report, iolens-diagnose, ...). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "tools.h"

struct verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct verb verbs[] = {
    {"parse",   iol_cmd_parse,   "print a log as darshan-parser does"},
    {"dxt",     iol_cmd_dxt,     "print DXT traces as darshan-dxt-parser does"},
    {"convert", iol_cmd_convert, "rewrite a log as version 3.41 (zlib or bzip2)"},
    {"run",     iol_cmd_run,     "run a program under the runtime: iolens run [opts] -- CMD"},
    {"config",  iol_cmd_config,  "show configuration: --log-path, --mk-log-dirs, ..."},
    {"recover", iol_cmd_recover, "turn safety copies of killed processes into logs"},
    {"merge",   iol_cmd_merge,   "merge the logs of one job into one log"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens <verb> [options]\n\nverbs:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out, "  report    (Python) HTML/PDF job summary report\n"
                 "  diagnose  (Python) find I/O problems, with evidence and fixes\n"
                 "\n`iolens <verb> --help` describes each verb.\n");
}

static int run_external(int argc, char **argv)
{
    char prog[256];
    snprintf(prog, sizeof prog, "iolens-%s", argv[1]);
    argv[1] = prog;
    execvp(prog, argv + 1);
    fprintf(stderr, "iolens: unknown verb '%s' (%s not found: %s)\n", prog + 7, prog,
            strerror(errno));
    return 2;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("iolens %s\n", IOLENS_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].run(argc - 1, argv + 1);
    return run_external(argc, argv);
}
