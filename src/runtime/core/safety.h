/* The safety copy: the record memory of this process lives in a file mapped
 * MAP_SHARED, laid out as an uncompressed 3.41 log (runtime spec 8.5), so that
 * whatever kills the process, every completed operation is in the file and
 * `iolens recover` (or any reader) can turn it into a log.
 *
 * File layout (offsets fixed at creation):
 *   0       log header, comp_type NONE; names.len, mod[m].off/len, mod_ver and
 *           the partial flag are kept current
 *   1328    job record (end time 0) and the exe/mount string
 *   5424    name region: (id, name\0) appended as names are stored
 *   pool    MODMEM pool (page aligned): module regions in activation order,
 *           then the record seq table (records.c, rt.h IOL_REC_HEAD)
 *   end-64  live trailer (include/iolens/live.h): where the pool and the seq
 *           table are, for `iolens top` and the exporter; in no log region, so
 *           `iolens recover` and other readers of the log ignore it
 *
 * Threads: the header updates are single aligned 8-byte stores made under the
 * lock of whoever owns the data (module lock for a region length, name lock for
 * the name region), so a reader after a crash sees a consistent prefix.
 * Nothing here allocates with malloc after iol_safety_open. */
#ifndef IOLENS_RUNTIME_SAFETY_H
#define IOLENS_RUNTIME_SAFETY_H

#include <stddef.h>
#include <stdint.h>

/* Create and map the file; returns the MODMEM pool inside it, or NULL when the
 * copy is disabled or cannot be made (then the caller uses anonymous memory). */
uint8_t *iol_safety_open(uint64_t modmem, uint64_t namemem);
/* Write the job record and exe/mount string (after the mount table is read). */
void iol_safety_job(void);
/* The job id changed (MPI, after MPI_Init): rewrite the record, rename the copy. */
void iol_safety_rejob(void);
/* The record seq table (records.c) is at pool + off, len bytes, one word per
 * 2^shift bytes of pool: said in the copy's live trailer for readers. */
void iol_safety_seqs(uint64_t off, unsigned shift, uint64_t len);
/* Is `p` the pool of the current safety file? */
int iol_safety_owns(const void *p);
/* A module reserved its records at `recs` (inside the pool). */
void iol_safety_module(int modid, uint32_t version, const void *recs);
/* The module's region now holds `len` bytes. */
void iol_safety_region_len(int modid, uint64_t len);
/* A new name was stored (name lock held). */
void iol_safety_name(uint64_t id, const char *name, size_t len);
void iol_safety_partial(uint64_t bits);
/* A file of len bytes beside the copy (<copy>.<suffix>), mapped shared and
 * removed with it: memory a module wants to survive the process (the DXT store).
 * NULL when there is no copy or the file cannot be made. */
void *iol_safety_sidecar(const char *suffix, size_t len);
/* Init failed after the copy was made (nothing will be recorded): unmap and
 * delete the file and its sidecars. */
void iol_safety_discard(void);
/* Fork child or release: unmap without touching the file (it is the parent's). */
void iol_safety_forget(void);
/* The real log is written: unmap and delete the file. */
void iol_safety_remove(void);
/* The copy's file name, or NULL when there is no copy (async-signal-safe). */
const char *iol_safety_path(void);

/* signals.c: take SIGTERM/SIGINT/SIGHUP when at their default action. */
void iol_signals_install(void);
/* init.c: may this process write its log before exec (not a vfork child)? */
int iol_core_exec_ok(void);
/* init.c: an exec failed after the log was written before it: record again
 * (fresh records, a second log at exit) when the process is single-threaded. */
void iol_core_resume_after_exec(void);

#endif
