/* `iolens config --paths` and the single-path options (docs/cli.md): where this
 * iolens's installed pieces are, from install_paths.c.  A single path is printed
 * bare, for $(...) in a shell; one that is absent, or that a build tree does not
 * have, is an error (exit 1) that says why. */
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "install_paths.h"
#include "mpi_link.h"

typedef struct {
    const char *option;   /* --NAME */
    const char *label;    /* its line in --paths */
    size_t offset;        /* the field of iol_install_paths */
} path_option;

#define FIELD(f) offsetof(iol_install_paths, f)
static const path_option options[] = {
    {"--prefix", "prefix", FIELD(root)},
    {"--bindir", "bindir", FIELD(bindir)},
    {"--libdir", "libdir", FIELD(libdir)},
    {"--includedir", "includedir", FIELD(includedir)},
    {"--runtime", "runtime", FIELD(runtime)},
    {"--mpi-runtime", "mpi-runtime", FIELD(mpi_runtime)},
    {"--pkgconfig-path", "pkgconfig-path", FIELD(pkgconfig)},
    {"--cmake-dir", "cmake-dir", FIELD(cmake)},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static const char *field(const iol_install_paths *p, const path_option *o)
{
    if (p->build_tree && o->offset == FIELD(root))
        return "";   /* a build tree is no prefix */
    return (const char *)p + o->offset;
}

/* The static-link directory of each MPI whose files this iolens finds. */
static void print_mpi_link_dirs(void)
{
    const char *mpis[] = {iol_mpi_link_default(), "openmpi", "mpich"};
    for (size_t i = 0; i < sizeof mpis / sizeof mpis[0]; i++) {
        if (!mpis[i] || (i && mpis[0] && !strcmp(mpis[i], mpis[0])))
            continue;
        static iol_mpi_link files;
        char looked[64];
        if (iol_mpi_link_find(mpis[i], &files, looked, sizeof looked) == 0)
            printf("%-15s %s %s\n", "mpi-link-dir", mpis[i], dirname(files.archive));
    }
}

static int print_all(const iol_install_paths *p)
{
    if (p->build_tree)
        printf("# running from the build tree %s: not installed (`cmake --install` "
               "installs); the paths are the build tree's\n", p->root);
    else
        printf("# installed at %s\n", p->root);
    for (size_t i = 0; i < NOPTIONS; i++) {
        const char *v = field(p, &options[i]);
        printf("%-15s %s\n", options[i].label, v[0] ? v : "(none)");
    }
    print_mpi_link_dirs();
    return 0;
}

static int print_one(const iol_install_paths *p, const path_option *o)
{
    const char *v = field(p, o);
    if (v[0]) {
        printf("%s\n", v);
        if (p->build_tree)
            fprintf(stderr, "iolens config: note: running from the build tree %s, "
                            "not an install\n", p->root);
        return 0;
    }
    if (p->build_tree)
        fprintf(stderr, "iolens config: %s: running from the build tree %s, which has "
                        "none (`cmake --install` installs one)\n", o->option, p->root);
    else
        fprintf(stderr, "iolens config: %s: not installed beside this iolens (%s)\n",
                o->option, p->bindir);
    return 1;
}

int iol_config_paths(const char *option)
{
    const path_option *o = NULL;
    for (size_t i = 0; i < NOPTIONS && !o; i++)
        if (!strcmp(option, options[i].option))
            o = &options[i];
    if (!o && strcmp(option, "--paths"))
        return -1;
    static iol_install_paths p;
    if (iol_install_paths_get(&p) != 0) {
        fprintf(stderr, "iolens config: cannot tell where this iolens is (/proc/self/exe)\n");
        return 1;
    }
    return o ? print_one(&p, o) : print_all(&p);
}
