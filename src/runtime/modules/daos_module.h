/* The DAOS module (Darshan module 17): records of DAOS objects (object, array and
 * key-value APIs), as upstream 3.5.0 keeps them.  daos.c holds the records and
 * side tables, daos_wrap.c the wrappers (wrappers/daos_fns.def), which call the
 * functions below after a successful real call (at its completion for a call given
 * an event: daos_async.h), errno saved.
 *
 * A record is one object of one container: its id is the hash of the pool uuid,
 * the container uuid and the object id (iol_daos_object_id); it has no name (as
 * upstream); the uuids and the object id follow the float counters.  Only objects
 * of a container opened while the runtime ran are recorded (the uuids come from
 * that open). */
#ifndef IOLENS_RUNTIME_DAOS_MODULE_H
#define IOLENS_RUNTIME_DAOS_MODULE_H

#include "../core/stats.h"
#include "daos_api.h"

/* A container handle opened (cont_open, cont_global2local), or closed. */
void iol_daos_cont_opened(daos_handle_t poh, daos_handle_t coh);
void iol_daos_cont_closed(daos_handle_t coh);
/* An object opened: `counter` DAOS_OBJ_OPENS, DAOS_ARRAY_OPENS or DAOS_KV_OPENS;
 * cell and chunk sizes of an array (0: not known).  `nb` (here and below): the call
 * was given an event and completed later; it counts in DAOS_NB_OPS. */
void iol_daos_obj_opened(daos_handle_t coh, daos_obj_id_t oid, daos_handle_t oh, int counter,
                         int64_t cell_size, int64_t chunk_size, int nb, const iol_span *sp);
void iol_daos_obj_closed(daos_handle_t oh, const iol_span *sp);
/* Data: `counter` a fetch/update, array read/write or kv get/put counter; an
 * array's count is in cells (multiplied by the record's cell size). */
void iol_daos_obj_moved(daos_handle_t oh, int counter, int64_t amount, int is_write, int nb,
                        const iol_span *sp);
/* Any other call on an open object: its counter and meta time. */
void iol_daos_obj_meta(daos_handle_t oh, int counter, int nb, const iol_span *sp);

#endif
