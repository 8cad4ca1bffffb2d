/* `iolens <verb>`: one command for users.  C verbs run here (they need no Python,
 * so they work on compute nodes); any other verb runs `iolens-<verb>` from beside
 * this executable, then from PATH, the way git finds external subcommands (the
 * Python package installs iolens-report).  Exit statuses: cli.h, docs/cli.md. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "cli.h"
#include "run_nested.h"
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
    {"keygen",  iol_cmd_keygen,  "make a key for `iolens convert --anonymize`"},
};

/* Verbs another program implements (iolens-<verb>); named here for suggestions. */
static const char *const external_verbs[] = {"report", "diff", "diagnose", "explore",
                                              "export", "fleet", "top", "exporter", "help"};

static void usage(FILE *out)
{
    fprintf(out, "usage: iolens <verb> [options]\n"
                 "       iolens --version | --help | help [VERB]\n\nverbs:\n");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        fprintf(out, "  %-9s %s\n", verbs[i].name, verbs[i].summary);
    fprintf(out, "  report    (Python) HTML/PDF job summary report\n"
                 "  diff      (Python) what changed between two runs\n"
                 "  diagnose  (Python) find I/O problems, with evidence and fixes\n"
                 "  explore   (Python) interactive trace explorer in the browser\n"
                 "  export    (Python) DXT traces for Perfetto (--perfetto) or as JSON\n"
                 "  fleet     (Python) many logs in one queryable store\n"
                 "  top       (Python) live I/O of the jobs running on this node\n"
                 "  exporter  (Python) live I/O as Prometheus metrics\n"
                 "\nEvery verb takes -h/--help (what it does) and --version.\n"
                 "Exit status: 0 success, 1 failure, 2 usage error; parse and dxt exit 255\n"
                 "on an unreadable or partial log, as darshan-parser does (docs/cli.md).\n");
}

static int run_external(char **argv)
{
    const char *verb = argv[0];
    iol_cli_exec_external(argv);      /* returns only when it could not run */
    if (errno != ENOENT) {
        fprintf(stderr, "iolens: cannot run iolens-%s: %s\n", verb, strerror(errno));
        return IOL_EXIT_FAILURE;
    }
    const char *names[sizeof verbs / sizeof verbs[0] +
                      sizeof external_verbs / sizeof external_verbs[0]];
    size_t n = 0;
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        names[n++] = verbs[i].name;
    for (size_t i = 0; i < sizeof external_verbs / sizeof external_verbs[0]; i++)
        names[n++] = external_verbs[i];
    const char *near = iol_cli_closest(verb, names, n);
    fprintf(stderr, "iolens: unknown verb '%s'", verb);
    if (near)
        fprintf(stderr, "; did you mean '%s'?", near);
    fprintf(stderr, "\n(see `iolens --help` for the verbs)\n");
    return IOL_EXIT_USAGE;
}

/* `iolens help [VERB]`: the overview, or VERB --help. */
static int help(int argc, char **argv)
{
    if (argc < 2) {
        usage(stdout);
        return IOL_EXIT_OK;
    }
    char *args[] = {argv[1], "--help", NULL};
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name))
            return verbs[i].run(2, args);
    return run_external(args);
}

int main(int argc, char **argv)
{
    iol_tool_leave_runtime(argc, argv);   /* a tool's own I/O is no job's (run_nested.h) */
    if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("iolens %s\n", IOLENS_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "help"))
        return help(argc - 1, argv + 1);
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (!strcmp(argv[1], verbs[i].name)) {
            /* --version the same way for every built-in verb; `run`'s command
             * line after its own options belongs to the program. */
            if (iol_cli_wants_version(argc - 1, argv + 1, verbs[i].run == iol_cmd_run))
                return iol_cli_print_version(verbs[i].name);
            return verbs[i].run(argc - 1, argv + 1);
        }
    return run_external(argv + 1);
}
