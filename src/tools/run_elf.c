/* Which MPI an ELF file links (run_launcher.h): its DT_NEEDED entries, read from
 * the SHT_DYNAMIC section and the string table it links.  Only 64-bit ELF of the
 * machine's own byte order is read (the runtimes and programs `iolens run`
 * launches); anything else, or a file that is not ELF, is IOL_MPI_UNKNOWN; an
 * ELF file whose sections name no MPI library is IOL_MPI_NONE.  Every
 * offset and size is checked against the file's size before it is read. */
#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run_launcher.h"

#define MAX_SECTIONS 4096
#define MAX_DYNAMIC (1u << 20)     /* bytes of .dynamic / .dynstr read at most */

/* n bytes at off, or -1 when the file does not hold them. */
static int read_at(int fd, off_t size, off_t off, void *buf, size_t n)
{
    if (off < 0 || (off_t)n > size || off > size - (off_t)n)
        return -1;
    return pread(fd, buf, n, off) == (ssize_t)n ? 0 : -1;
}

/* Which MPI a library name belongs to: Open MPI's libmpi.so.40 (and other
 * sonames of libmpi except .12), MPICH's libmpich.so.12, and the MPICH ABI's
 * libmpi.so.12 and libmpi_cray.so.12 (Intel MPI, Cray MPICH: ABI-compatible with
 * MPICH).  Open MPI's Fortran libmpi_mpifh is none: libmpi.so comes with it. */
static iol_mpi_flavour flavour_of(const char *needed)
{
    if (strncmp(needed, "libmpich.so", 11) == 0 || strcmp(needed, "libmpi.so.12") == 0 ||
        strncmp(needed, "libmpi_cray.so", 14) == 0)
        return IOL_MPI_MPICH;
    if (strncmp(needed, "libmpi.so", 9) == 0)
        return IOL_MPI_OPENMPI;
    return IOL_MPI_UNKNOWN;
}

static iol_mpi_flavour needed_flavour(int fd, off_t size, const Elf64_Shdr *dyn,
                                      const Elf64_Shdr *str)
{
    if (dyn->sh_size > MAX_DYNAMIC || str->sh_size > MAX_DYNAMIC || str->sh_size == 0)
        return IOL_MPI_UNKNOWN;
    Elf64_Dyn *d = malloc(dyn->sh_size + 1);
    char *s = malloc(str->sh_size + 1);
    iol_mpi_flavour f = IOL_MPI_UNKNOWN;
    if (d && s && read_at(fd, size, (off_t)dyn->sh_offset, d, dyn->sh_size) == 0 &&
        read_at(fd, size, (off_t)str->sh_offset, s, str->sh_size) == 0) {
        s[str->sh_size] = '\0';
        for (size_t i = 0; i < dyn->sh_size / sizeof *d && d[i].d_tag != DT_NULL && !f; i++)
            if (d[i].d_tag == DT_NEEDED && d[i].d_un.d_val < str->sh_size)
                f = flavour_of(s + d[i].d_un.d_val);
    }
    free(d);
    free(s);
    return f;
}

iol_mpi_flavour iol_elf_mpi_flavour(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return IOL_MPI_UNKNOWN;
    struct stat st;
    Elf64_Ehdr eh;
    iol_mpi_flavour f = IOL_MPI_UNKNOWN;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        read_at(fd, st.st_size, 0, &eh, sizeof eh) != 0 ||
        memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 || eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 || eh.e_shnum > MAX_SECTIONS) {
        close(fd);
        return IOL_MPI_UNKNOWN;
    }
    Elf64_Shdr *sh = malloc(eh.e_shnum * sizeof *sh);
    if (sh && read_at(fd, st.st_size, (off_t)eh.e_shoff, sh, eh.e_shnum * sizeof *sh) == 0) {
        for (unsigned i = 0; i < eh.e_shnum && !f; i++)
            if (sh[i].sh_type == SHT_DYNAMIC && sh[i].sh_link < eh.e_shnum)
                f = needed_flavour(fd, st.st_size, &sh[i], &sh[sh[i].sh_link]);
        f = f ? f : IOL_MPI_NONE;
    }
    free(sh);
    close(fd);
    return f;
}
