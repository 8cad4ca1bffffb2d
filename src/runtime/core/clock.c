/* The clock behind iol_now(): clock_gettime of the vDSO, found by reading the
 * vDSO's ELF dynamic symbol table directly (no dlsym, which may allocate or take
 * locks inside a wrapper).  Without a vDSO the core falls back to the syscall. */
#include <elf.h>
#include <string.h>
#include <sys/auxv.h>

#include "core_int.h"

iol_clock_fn iol_vdso_clock_gettime;

long iol_monotonic_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long)t.tv_sec * 1000000000L + t.tv_nsec;
}

/* The address of a function of the vDSO (its dynamic symbol table, reached
 * through DT_HASH for the count), or NULL: no vDSO, no DT_HASH, no such symbol. */
static void *vdso_function(const char *name)
{
#if defined(__x86_64__) && defined(__linux__)
    uintptr_t base = (uintptr_t)getauxval(AT_SYSINFO_EHDR);
    if (!base)
        return NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64)
        return NULL;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff);
    uintptr_t bias = 0;
    int have_load = 0;
    const Elf64_Dyn *dyn = NULL;
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && !have_load) {
            bias = base + ph[i].p_offset - ph[i].p_vaddr;
            have_load = 1;
        } else if (ph[i].p_type == PT_DYNAMIC) {
            dyn = (const Elf64_Dyn *)(base + ph[i].p_offset);
        }
    }
    if (!have_load || !dyn)
        return NULL;
    const Elf64_Sym *syms = NULL;
    const char *strs = NULL;
    const Elf64_Word *hash = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_SYMTAB)
            syms = (const Elf64_Sym *)(bias + dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_STRTAB)
            strs = (const char *)(bias + dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_HASH)
            hash = (const Elf64_Word *)(bias + dyn->d_un.d_ptr);
    }
    if (!syms || !strs || !hash)
        return NULL;
    for (Elf64_Word i = 0; i < hash[1]; i++) {         /* nchain = number of symbols */
        const Elf64_Sym *s = &syms[i];
        if (ELF64_ST_TYPE(s->st_info) == STT_FUNC && s->st_shndx != SHN_UNDEF &&
            (ELF64_ST_BIND(s->st_info) == STB_GLOBAL || ELF64_ST_BIND(s->st_info) == STB_WEAK) &&
            strcmp(strs + s->st_name, name) == 0)
            return (void *)(bias + s->st_value);
    }
#else
    (void)name;
#endif
    return NULL;
}

/* Find the vDSO clock once (init; a fork child inherits it). */
void iol_clock_setup(void)
{
    if (!iol_vdso_clock_gettime)
        iol_vdso_clock_gettime = (iol_clock_fn)vdso_function("__vdso_clock_gettime");
}
