/* Where the static MPI runtime's link files are (`iolens config --pre-ld-flags`,
 * docs/mpi.md "Static links"): found relative to the running `iolens`, never at a
 * path fixed when it was compiled, so an installed or moved iolens names its own
 * prefix's files and keeps working once the build tree is deleted. */
#ifndef IOLENS_MPI_LINK_H
#define IOLENS_MPI_LINK_H

#include <limits.h>

typedef struct {
    char archive[PATH_MAX];   /* libiolens-mpi-wrap.a, else libiolens-mpi.a */
    char wrap_opts[PATH_MAX]; /* its --wrap= response file; "" for libiolens-mpi.a */
} iol_mpi_link;

/* The MPI this iolens was built with ("openmpi", "mpich", ...), or NULL when it
 * was built without the MPI runtime. */
const char *iol_mpi_link_default(void);

/* Finds the link files for MPI (a name as iol_mpi_link_default gives) in, first,
 * <dir of iolens>/<relative libdir>/iolens/<MPI>/ (an install), then, for the MPI
 * it was built with, the build tree this iolens sits in.  Paths are canonical.
 * Returns 0, or -1 when neither has them; LOOKED (LEN bytes) then lists the
 * directories tried, for the message. */
int iol_mpi_link_find(const char *mpi, iol_mpi_link *out, char *looked, size_t len);

#endif
