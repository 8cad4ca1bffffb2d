/* The runtime's clock (rt.h "clock"): the vDSO's clock_gettime, found by
 * reading the vDSO's ELF dynamic symbol table directly (no dlsym, which may
 * allocate or take locks inside a wrapper; without a vDSO the system call), and
 * the processor's counter (arch.h: the TSC, aarch64's cntvct_el0) with the line
 * that turns its ticks into nanoseconds since init.
 *
 * The line.  At the start of init the counter and CLOCK_MONOTONIC are read together
 * (the origin); when init is done they are read again and the first line is the
 * slope between the two (init lasts about a millisecond; it is stretched to at
 * least IOL_CLOCK_FIRST_NS).  Each reading is the middle of the two TSC reads
 * that bracket one clock_gettime, taken from the tightest of a few tries, so a
 * slope over a window W is off by about 30 ns / W.  When a conversion meets a
 * tick past the line's `next` (twice the window so far), iol_clock_refine
 * fits a new line: it starts where the old one is at that tick (times never jump
 * or go back), and it is aimed to meet the true clock at its own `next`, on the
 * slope measured over the whole window since the origin.  So the offset from
 * CLOCK_MONOTONIC stays within a few tens of nanoseconds per refinement and the
 * slope error falls as the run goes on (~1e-8 after a minute); the refinements
 * are ~log2(run time / 1 ms) in all.
 *
 * Threads and signals: lines are written once, into the next free slot, and
 * published with a release store; readers load the pointer once per conversion.
 * Refining is a try-lock: a thread (or a signal handler) that finds it taken keeps
 * the current line.  A fork child inherits the origin and the slope, and starts
 * its own time zero (iol_clock_start). */
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "core_int.h"

#define IOL_CLOCK_FIRST_NS 200000     /* the first line's least window */
#define IOL_CLOCK_LINES 64            /* doublings from 200 us: far beyond any run */

iol_clock_fn iol_vdso_clock_gettime;
int iol_clock_fast;

/* Before the first iol_clock_ready: ticks are CLOCK_MONOTONIC, never refined. */
static const iol_clock_line untimed = {(uint64_t)1 << 32, 0, UINT64_MAX};
const iol_clock_line *iol_clock_line_now = &untimed;

static iol_clock_line lines[IOL_CLOCK_LINES];
static unsigned nlines;
static iol_lock_t refining;
/* A simultaneous reading of both clocks. */
typedef struct {
    uint64_t tick;
    int64_t mono;
} reading;
#if IOL_ARCH_COUNTER
static reading origin;        /* of the slope: the first init of the process tree */
static int have_origin;
#endif
static reading zero;          /* this process's init: time 0 */

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
#if IOL_ARCH_RAW_CLOCK
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

#if IOL_ARCH_COUNTER
static reading read_both(void)
{
    reading best = {0, 0};
    uint64_t best_gap = UINT64_MAX;
    for (int i = 0; i < 4; i++) {
        uint64_t a = iol_arch_counter();
        int64_t m = iol_mono_ns();
        uint64_t b = iol_arch_counter();
        if (b - a < best_gap) {
            best_gap = b - a;
            best.tick = a + (b - a) / 2;
            best.mono = m;
        }
    }
    return best;
}

/* 1 if the kernel keeps time with the processor's counter (arch.h
 * IOL_ARCH_CLOCKSOURCE: "tsc", "arch_sys_counter"), so it is invariant and
 * synchronised across CPUs: the kernel checks that before choosing it, and
 * switches away from it when its watchdog finds it drifting. */
static int kernel_uses_counter(void)
{
    static const char want[] = IOL_ARCH_CLOCKSOURCE "\n";
    char buf[32];
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n == (ssize_t)sizeof want - 1 && memcmp(buf, want, sizeof want - 1) == 0;
}

/* ns per tick << 32 between two readings (b later than a: the TSC of a kernel
 * clocksource never stands still). */
static uint64_t slope(reading a, reading b)
{
    if (b.tick <= a.tick)
        return (uint64_t)1 << 32;
    return (uint64_t)(((unsigned __int128)(uint64_t)(b.mono - a.mono) << 32) / (b.tick - a.tick));
}
#endif

static void publish(uint64_t mult, int64_t off, uint64_t next)
{
    iol_clock_line *l = &lines[nlines++];
    l->mult = mult;
    l->off = off;
    l->next = nlines == IOL_CLOCK_LINES ? UINT64_MAX : next;   /* the last is kept */
    __atomic_store_n(&iol_clock_line_now, l, __ATOMIC_RELEASE);
}

/* Find the vDSO clock once (a fork child inherits it); take the realtime start
 * of init and this process's time zero. */
void iol_clock_start(struct timespec *t0_realtime)
{
    if (!iol_vdso_clock_gettime)
        iol_vdso_clock_gettime = (iol_clock_fn)vdso_function("__vdso_clock_gettime");
    clock_gettime(CLOCK_REALTIME, t0_realtime);
#if IOL_ARCH_COUNTER
    zero = read_both();
#else
    zero.mono = iol_mono_ns();
#endif
}

void iol_clock_ready(int allow_tsc)
{
    nlines = 0;                   /* a fork child starts its own lines */
    __atomic_store_n(&refining, 0, __ATOMIC_RELAXED);
#if IOL_ARCH_COUNTER
    if (allow_tsc && kernel_uses_counter()) {
        if (!have_origin) {
            origin = zero;
            have_origin = 1;
        }
        reading now = read_both();
        while (now.mono - origin.mono < IOL_CLOCK_FIRST_NS)
            now = read_both();
        uint64_t mult = slope(origin, now);
        /* Through (zero.tick, 0): time 0 is the start of init. */
        int64_t off = -(int64_t)(((unsigned __int128)zero.tick * mult) >> 32);
        iol_clock_fast = 1;
        publish(mult, off, now.tick + 2 * (now.tick - origin.tick));
        return;
    }
    iol_clock_fast = 0;           /* ticks are CLOCK_MONOTONIC nanoseconds: exact */
#else
    (void)allow_tsc;
    iol_clock_fast = 1;           /* the fast ticks are CLOCK_MONOTONIC here */
#endif
    publish((uint64_t)1 << 32, -zero.mono, UINT64_MAX);
}

void iol_clock_refine(uint64_t tick)
{
#if IOL_ARCH_COUNTER
    if (__atomic_exchange_n(&refining, 1, __ATOMIC_ACQUIRE))
        return;
    const iol_clock_line *l = iol_clock_line_now;
    if (tick >= l->next && l->next != UINT64_MAX) {
        reading now = read_both();
        uint64_t mult = slope(origin, now);
        int64_t here = iol_tick_ns_on(l, now.tick);       /* the old line, at now */
        uint64_t next = now.tick + (now.tick - origin.tick);
        /* Meet the true time (now.mono - zero.mono, on the measured slope) at next. */
        int64_t truth = now.mono - zero.mono +
                        (int64_t)(((unsigned __int128)(next - now.tick) * mult) >> 32);
        int64_t gain = truth - here;
        uint64_t m = (uint64_t)(((unsigned __int128)(uint64_t)(gain > 0 ? gain : 0) << 32) /
                                (next - now.tick));
        if (m < mult / 2)          /* far ahead of the clock: slow down, never stop */
            m = mult / 2;
        else if (m > 2 * mult)     /* far behind: catch up over more than one window */
            m = 2 * mult;
        int64_t off = here - (int64_t)(((unsigned __int128)now.tick * m) >> 32);
        publish(m, off, next);
    }
    __atomic_store_n(&refining, 0, __ATOMIC_RELEASE);
#else
    (void)tick;
#endif
}
