/* DAOS emulation (iolens tests): the umbrella header, plus library init and fini. */
#ifndef __DAOS_H__
#define __DAOS_H__
#include <daos_version.h>
#include <daos_types.h>
#include <daos_event.h>
#include <daos_obj.h>
#include <daos_array.h>
#include <daos_kv.h>
#include <daos_prop.h>
#include <daos_cont.h>
#include <daos_pool.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Reference counted: every daos_init needs a daos_fini.  Calls before daos_init fail with
 * -DER_UNINIT. */
int daos_init(void);
int daos_fini(void);

#ifdef __cplusplus
}
#endif
#endif
