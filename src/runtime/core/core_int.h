/* Functions used only between the core's own files (init, shutdown, log write). */
#ifndef IOLENS_RUNTIME_CORE_INT_H
#define IOLENS_RUNTIME_CORE_INT_H

#include "rt.h"

/* clock.c: CLOCK_MONOTONIC in ns, for the bounded waits of the exit paths
 * (async-signal-safe: clock_gettime is). */
long iol_monotonic_ns(void);
/* The start of init: find the vDSO, take the realtime start and this process's
 * time zero.  Then, once the configuration is known and before anything is
 * recorded, iol_clock_ready chooses the ticks (TSC unless allow_tsc is 0 or the
 * kernel keeps time otherwise) and publishes the first line (rt.h "clock"). */
void iol_clock_start(struct timespec *t0_realtime);
void iol_clock_ready(int allow_tsc);

/* records.c */
int iol_records_init(void);        /* pools from iol_cfg; 0 or -1 */
void iol_records_release(void);    /* unmap everything (fork child, tests) */
void iol_modules_freeze(void);     /* take every module lock once, mark frozen, then
                                      run each active module's finish callback */
uint64_t iol_partial_get(void);
/* After m is frozen (its lock held): wait until no thread holds one of its
 * record locks (rec_locks modules; others return 0 at once).  A lock held by
 * this thread (a signal interrupted its update) is passed over.  deadline_ns
 * (CLOCK_MONOTONIC) < 0: wait as long as it takes.  Returns 0, or -1 at the
 * deadline with a lock still held by another thread. */
int iol_rec_locks_wait(iol_module *m, long deadline_ns);
/* Mark every record lock of m free (a fork copy, where their holders are gone). */
void iol_rec_locks_clear(iol_module *m);
/* 1 when this thread holds one of m's record locks. */
int iol_rec_locks_mine(const iol_module *m);
void iol_records_detach(void);    /* shutdown: records leave the safety file */

/* names.c */
int iol_names_init(uint64_t namemem);
void iol_names_release(void);
/* Store (or find) the name of `id`; sets bit `modid` of its module mask and
 * *stored to the name kept (stable until the names are released).
 * Returns 0, -1 when the name pool is full, or -2 when re-entered on the same
 * thread (a signal handler): then nothing is stored. */
int iol_name_store(uint64_t id, const char *name, int modid, const char **stored);
size_t iol_names_count(void);
iol_lock_t *iol_names_lock(void);  /* for locks_all.c */
void iol_name_at(size_t i, uint64_t *id, const char **name);

/* mounts.c */
int iol_mounts_init(void);         /* read the mount table, build the exe string */
const char *iol_exe_string(void);  /* command line (with upstream's trailing space) */
size_t iol_mount_count(void);
void iol_mount_at(size_t i, const char **path, const char **type);  /* mtab order */
/* Block size of the i-th written mount (mtab order) if a file on it has needed it
 * (looked up lazily), else 0. */
int64_t iol_mount_known_block_size(size_t i);

/* notes.c: facts for the job metadata ("key=value" lines, each key once). */
void iol_note(const char *key, const char *value);
size_t iol_notes_append(char *out, size_t len);    /* bytes appended (all or none) */

/* platform.c: the platform facts of counters/platform.def (docs/runtime.md). */
enum iol_fact {
#define PKEY(key, cap, anon, desc) IOL_FACT_##key,
#include "platform.def"
#undef PKEY
    IOL_NFACTS
};
void iol_fact_set(enum iol_fact f, const char *value);   /* cut to the key's cap */
const char *iol_fact_key(enum iol_fact f);
/* nnodes (unless < 0) and ppn as "N" or "MIN-MAX" (unless ppn_min < 0). */
void iol_fact_nodes(long nnodes, long ppn_min, long ppn_max);
/* As many "key=value\n" lines as fit in `room` bytes (NUL included), in the
 * table's order; returns the bytes written (without the NUL). */
size_t iol_platform_append(char *out, size_t room);
void iol_platform_reset(void);
void iol_platform_probe(void);     /* platform_probe.c: cpu, cores, memory, GPUs, network */
void iol_platform_sched(void);     /* platform_sched.c: scheduler geometry, nodes, hosts */
/* hostlist.c: sorted unique `names` (n of them, modified: sorted in place) in
 * hostlist form "nid[001-004],login1" cut to `cap` characters at a whole entry,
 * ",+N" saying how many names were left out.  Returns the node count. */
size_t iol_hostlist(const char **names, size_t n, char *out, size_t cap);

/* mountfacts.c */
char iol_fs_kind(const char *fstype);   /* 'l' node-local, 's' shared, 'u' unknown */
void iol_mountfacts_note(void);         /* the mntfs fact, from the mounts looked up so far */

/* state.c (set by init.c) */
extern pid_t iol_fork_parent;      /* 0 unless this process is a forked child */
extern pid_t iol_job_pid;          /* pid of the first process (forked children inherit it) */
extern pid_t iol_self_pid;         /* the process whose records these are */
extern struct timespec iol_start_abs;

/* logwrite.c */
int iol_log_write(void);
/* zlib level of the log's regions (iolens_writer_set_level; 0 = the default).  The
 * exit-time copy sets 1: the process it writes for waits for it to die, and 1
 * takes about 40 % less CPU than 6 on a DXT trace for a log about 10 % larger. */
extern int iol_log_level;
/* Names tried in one log directory before the next one (logwrite.c, the MPI writer). */
#define IOL_LOG_NAME_TRIES 16
#endif
