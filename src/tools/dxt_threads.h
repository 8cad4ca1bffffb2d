/* Thread counts of DXT records, one record ahead of the printer (dxt_threads.c). */
#ifndef IOLENS_TOOLS_DXT_THREADS_H
#define IOLENS_TOOLS_DXT_THREADS_H

#include "iolens/log.h"

typedef struct iol_dxt_threads iol_dxt_threads;
int iol_dxt_threads_open(iolens_log *log, int module, iol_dxt_threads **out);
/* Distinct thread ids of the module's next record (1 when it has no segments).
 * Call once per record, in order.  IOLENS_OK or an error (detail on the log). */
int iol_dxt_threads_next(iol_dxt_threads *t, size_t *count);
void iol_dxt_threads_close(iol_dxt_threads *t);

#endif
