/* LUSTRE module (lustre.c): the layout of each file on Lustre, taken when the
 * POSIX or STDIO wrappers close it.
 *
 * Only when the node mounts a Lustre file system and the module is not disabled
 * (the IOL_CLOSE_LUSTRE bit, set at init: core/rt.h) do the close paths call here: the POSIX close through
 * the IOL_CLOSE_LUSTRE bit of iol_close_extras (modules/posix.c), fclose through
 * the begin step its STDIO setup chose (iol_stdio_close_begin_fn). */
#ifndef IOLENS_RUNTIME_LUSTRE_H
#define IOLENS_RUNTIME_LUSTRE_H

#include <stdint.h>

/* Before the real close of fd, which holds the file of record id (the POSIX or
 * STDIO record: the LUSTRE record shares its id and name).  Takes the LUSTRE
 * lock; keeps errno; any failure means no record, silently. */
void iol_lustre_closing(int fd, uint64_t id);

#endif
