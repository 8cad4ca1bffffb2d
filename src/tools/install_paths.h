/* Where this iolens's pieces are (`iolens config --paths` and the single-path
 * options, docs/cli.md): computed from the running executable, never fixed when
 * it was compiled, so a moved install names its new place.
 *
 * An install (`cmake --install`, or the wheel: scripts in <prefix>/bin, data in
 * <prefix>) has <prefix>/<libdir> with libiolens-log, the runtimes and their static
 * link files (<libdir>/iolens/<mpi>/), <prefix>/<includedir>/iolens/, and the
 * pkg-config and CMake files under <libdir>.  A build tree has the same libraries
 * at their build places (src/format, src/runtime) and no headers, pkg-config or
 * CMake files of its own. */
#ifndef IOLENS_INSTALL_PATHS_H
#define IOLENS_INSTALL_PATHS_H

#include <limits.h>
#include <stddef.h>

#include "self_dir.h"

typedef struct {
    int build_tree;              /* 1: this iolens runs from its build tree */
    char root[PATH_MAX];         /* the install prefix, or the build tree's top */
    char bindir[PATH_MAX];
    char libdir[PATH_MAX];       /* where libiolens-log is */
    char includedir[PATH_MAX];   /* "" in a build tree */
    char runtime[PATH_MAX];      /* libiolens.so; "" when absent */
    char mpi_runtime[PATH_MAX];  /* libiolens-mpi.so; "" when absent */
    char pkgconfig[PATH_MAX];    /* the directory of iolens-log.pc; "" when absent */
    char cmake[PATH_MAX];        /* the directory of iolensConfig.cmake; "" when absent */
} iol_install_paths;

/* Fills P for the running iolens.  Returns 0, or -1 when its own place is unknown. */
int iol_install_paths_get(iol_install_paths *p);

/* `iolens config OPTION` for --paths and the single-path options (config_paths.c):
 * the exit status, or -1 when OPTION is none of them. */
int iol_config_paths(const char *option);

#endif
