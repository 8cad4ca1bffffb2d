/* Finding the static MPI runtime's link files (mpi_link.h).  Two places, both
 * relative to the running executable:
 *   <bindir>/IOLENS_REL_LIBDIR/iolens/<mpi>/   an install: `cmake --install`, or the
 *       wheel (scripts in <prefix>/bin, data in <prefix>/lib); one directory per MPI,
 *       so the runtimes of Open MPI and MPICH can share a prefix
 *   <bindir>/IOLENS_REL_BUILD_RUNTIME/          the build tree this iolens was built
 *       in (src/tools/../runtime), for the MPI of that tree; a further MPI built in
 *       the same tree (IOLENS_MPI_EXTRA) in <that directory>/<mpi>/
 * In a directory: the --wrap archive with its option file when both are there, else
 * the interposing archive. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "self_dir.h"
#include "mpi_link.h"

const char *iol_mpi_link_default(void)
{
#ifdef IOLENS_MPI_FLAVOUR
    return IOLENS_MPI_FLAVOUR;
#else
    return NULL;
#endif
}

/* DIR/NAME canonicalised into OUT when it is a readable file. */
static int file_in(const char *dir, const char *name, char *out)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return -1;
    return access(path, R_OK) == 0 && realpath(path, out) ? 0 : -1;
}

static int link_files_in(const char *dir, iol_mpi_link *out)
{
    if (file_in(dir, "libiolens-mpi-wrap.a", out->archive) == 0 &&
        file_in(dir, "iolens-mpi-ld-opts", out->wrap_opts) == 0)
        return 0;
    out->wrap_opts[0] = '\0';
    return file_in(dir, "libiolens-mpi.a", out->archive);
}

static void note_looked(char *looked, size_t len, const char *dir)
{
    size_t used = strlen(looked);
    if (used < len)
        snprintf(looked + used, len - used, "%s%s", used ? ", " : "", dir);
}

int iol_mpi_link_find(const char *mpi, iol_mpi_link *out, char *looked, size_t len)
{
    char self[PATH_MAX], dir[PATH_MAX];
    if (len)
        looked[0] = '\0';
    if (iol_self_dir(self, sizeof self) != 0)
        return -1;
#ifdef IOLENS_REL_LIBDIR
    /* a path too long to hold is not looked in (it could not name our files) */
    if (snprintf(dir, sizeof dir, "%s/%s/iolens/%s", self, IOLENS_REL_LIBDIR, mpi)
            < (int)sizeof dir) {
        if (link_files_in(dir, out) == 0)
            return 0;
        note_looked(looked, len, dir);
    }
#endif
#if defined(IOLENS_REL_BUILD_RUNTIME) && defined(IOLENS_MPI_FLAVOUR)
    /* the tree's own MPI in the runtime's directory, a further MPI in <it>/ there */
    int n = !strcmp(mpi, IOLENS_MPI_FLAVOUR)
                ? snprintf(dir, sizeof dir, "%s/%s", self, IOLENS_REL_BUILD_RUNTIME)
                : snprintf(dir, sizeof dir, "%s/%s/%s", self, IOLENS_REL_BUILD_RUNTIME, mpi);
    if (n < (int)sizeof dir) {
        if (link_files_in(dir, out) == 0)
            return 0;
        note_looked(looked, len, dir);
    }
#endif
    return -1;
}
