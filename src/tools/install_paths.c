/* Where this iolens's pieces are (install_paths.h).  The relative places come
 * from the build (src/tools/CMakeLists.txt): IOLENS_REL_PREFIX, IOLENS_REL_LIBDIR
 * and IOLENS_REL_INCLUDEDIR from the bin directory of an install.  A build tree
 * is recognised by its layout: the executable in <top>/src/tools with the
 * CMakeCache.txt of <top> beside src/ (an install inside a build directory,
 * <build>/prefix/bin, does not match). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "install_paths.h"

#define IOL_BUILD_TOOLS_SUBDIR "/src/tools"

/* OUT = the canonical DIR/REL when it exists, else "" (-1). */
static int existing(char *out, const char *dir, const char *rel)
{
    char path[PATH_MAX];
    out[0] = '\0';
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path)
        return -1;
    if (access(path, F_OK) != 0 || !realpath(path, out)) {
        out[0] = '\0';
        return -1;
    }
    return 0;
}

static int is_build_tree(const char *self, char *top)
{
    size_t n = strlen(self), k = strlen(IOL_BUILD_TOOLS_SUBDIR);
    if (n <= k || strcmp(self + n - k, IOL_BUILD_TOOLS_SUBDIR) != 0)
        return 0;
    memcpy(top, self, n - k);
    top[n - k] = '\0';
    char cache[PATH_MAX];
    return existing(cache, top, "CMakeCache.txt") == 0;
}

static void build_tree_paths(iol_install_paths *p)
{
    p->build_tree = 1;
    existing(p->libdir, p->root, "src/format");
    existing(p->runtime, p->root, "src/runtime/libiolens.so");
    existing(p->mpi_runtime, p->root, "src/runtime/libiolens-mpi.so");
}

static void install_paths(iol_install_paths *p)
{
#if defined(IOLENS_REL_PREFIX) && defined(IOLENS_REL_LIBDIR) && defined(IOLENS_REL_INCLUDEDIR)
    existing(p->root, p->bindir, IOLENS_REL_PREFIX);
    existing(p->libdir, p->bindir, IOLENS_REL_LIBDIR);
    existing(p->includedir, p->bindir, IOLENS_REL_INCLUDEDIR "/iolens");
    if (p->includedir[0])   /* the directory given to -I: the one holding iolens/ */
        *strrchr(p->includedir, '/') = '\0';
#endif
    if (!p->libdir[0])
        return;
    existing(p->runtime, p->libdir, "libiolens.so");
    existing(p->mpi_runtime, p->libdir, "libiolens-mpi.so");
    existing(p->pkgconfig, p->libdir, "pkgconfig/iolens-log.pc");
    if (p->pkgconfig[0])
        *strrchr(p->pkgconfig, '/') = '\0';
    existing(p->cmake, p->libdir, "cmake/iolens/iolensConfig.cmake");
    if (p->cmake[0])
        *strrchr(p->cmake, '/') = '\0';
}

int iol_install_paths_get(iol_install_paths *p)
{
    memset(p, 0, sizeof *p);
    if (iol_self_dir(p->bindir, sizeof p->bindir) != 0)
        return -1;
    if (is_build_tree(p->bindir, p->root))
        build_tree_paths(p);
    else
        install_paths(p);
    return 0;
}
