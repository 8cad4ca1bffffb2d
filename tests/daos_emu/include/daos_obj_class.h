/* DAOS emulation (iolens tests): object class ids.  The emulation records the class in object
 * ids as DAOS does but stores every object the same way. */
#ifndef __DAOS_OBJ_CLASS_H__
#define __DAOS_OBJ_CLASS_H__
#include <sys/types.h>
#include <inttypes.h>
#include <daos_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MAX_NUM_GROUPS               ((1 << 16UL) - 1)
#define OC_REDUN_SHIFT               24
#define OBJ_CLASS_DEF(redun, grp_nr) ((redun << OC_REDUN_SHIFT) | grp_nr)

enum daos_obj_redun {
	OC_UNKNOWN = 0,
	OR_RP_1    = 1,
	OR_RP_2    = 2,
	OR_RP_3    = 3,
};

enum {
	OC_S1  = OBJ_CLASS_DEF(OR_RP_1, 1ULL),
	OC_S2  = OBJ_CLASS_DEF(OR_RP_1, 2ULL),
	OC_S4  = OBJ_CLASS_DEF(OR_RP_1, 4ULL),
	OC_S8  = OBJ_CLASS_DEF(OR_RP_1, 8ULL),
	OC_SX  = OBJ_CLASS_DEF(OR_RP_1, MAX_NUM_GROUPS),
	OC_RP_2G1 = OBJ_CLASS_DEF(OR_RP_2, 1ULL),
	OC_RP_2GX = OBJ_CLASS_DEF(OR_RP_2, MAX_NUM_GROUPS),
	OC_RP_3G1 = OBJ_CLASS_DEF(OR_RP_3, 1ULL),
	OC_RP_3GX = OBJ_CLASS_DEF(OR_RP_3, MAX_NUM_GROUPS),
};

typedef uint32_t daos_oclass_id_t;
typedef uint16_t daos_oclass_hints_t;

/* The id of a class named like "SX", "S1", "RP_2GX"; OC_UNKNOWN (0) if unknown. */
int daos_oclass_name2id(const char *name);
/* Writes the class name into name[0..len); 0 or -1 if unknown. */
int daos_oclass_id2name(daos_oclass_id_t oc_id, char *name);

#ifdef __cplusplus
}
#endif
#endif
