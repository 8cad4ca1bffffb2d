/* DAOS emulation (iolens tests): property lists.  The emulation accepts them and ignores them. */
#ifndef __DAOS_PROP_H__
#define __DAOS_PROP_H__
#include <daos_types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DAOS_PROP_LABEL_MAX_LEN     (127)
#define DAOS_PROP_MAX_LABEL_BUF_LEN (DAOS_PROP_LABEL_MAX_LEN + 1)

struct daos_prop_entry {
	uint32_t dpe_type;
	uint16_t dpe_flags;
	uint16_t dpe_reserv;
	union {
		uint64_t  dpe_val;
		d_string_t dpe_str;
		void     *dpe_val_ptr;
	};
};

typedef struct {
	uint32_t                dpp_nr;
	uint32_t                dpp_reserv;
	struct daos_prop_entry *dpp_entries;
} daos_prop_t;

daos_prop_t *daos_prop_alloc(uint32_t entries_nr);
void daos_prop_free(daos_prop_t *prop);

#ifdef __cplusplus
}
#endif
#endif
