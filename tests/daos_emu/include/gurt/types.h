/* DAOS emulation (iolens tests): GURT's basic types.  Layouts follow DAOS's public headers
 * exactly, because callers (our runtime module, upstream Darshan) declare them independently. */
#ifndef __GURT_TYPES_H__
#define __GURT_TYPES_H__
#include <uuid/uuid.h>
#include <unistd.h>
#include <stdbool.h>
#include <string.h>
#include <errno.h>
#include <inttypes.h>
#include <time.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An I/O vector: a buffer, its capacity and the number of bytes in use. */
typedef struct {
	void   *iov_buf;
	size_t  iov_buf_len;
	size_t  iov_len;
} d_iov_t;

typedef uint32_t d_rank_t;

typedef struct {
	d_rank_t *rl_ranks;
	uint32_t  rl_nr;
} d_rank_list_t;

typedef char       *d_string_t;
typedef const char *d_const_string_t;

/* A scatter/gather list: sg_nr vectors; sg_nr_out is set by fetches to the number filled. */
typedef struct {
	uint32_t  sg_nr;
	uint32_t  sg_nr_out;
	d_iov_t  *sg_iovs;
} d_sg_list_t;

static inline void
d_iov_set(d_iov_t *iov, void *buf, size_t size)
{
	iov->iov_buf = buf;
	iov->iov_len = iov->iov_buf_len = size;
}

#ifdef __cplusplus
}
#endif
#endif
