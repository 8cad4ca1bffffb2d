/* DAOS emulation (iolens tests): the parts of GURT's common.h that DAOS clients use. */
#ifndef __GURT_COMMON_H__
#define __GURT_COMMON_H__
#include <gurt/types.h>
#include <gurt/list.h>
#include <daos_errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 64-bit MurmurHash64A of key[0..len) with seed. */
uint64_t d_hash_murmur64(const unsigned char *key, unsigned int len, unsigned int seed);
/* 32-bit string hash (FNV-1a in the emulation; callers need only a stable hash). */
uint32_t d_hash_string_u32(const char *string, unsigned int len);

#ifdef __cplusplus
}
#endif
#endif
