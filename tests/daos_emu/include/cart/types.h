/* DAOS emulation (iolens tests): CaRT's types header only forwards GURT's. */
#ifndef __CRT_TYPES_H__
#define __CRT_TYPES_H__
#include <stdint.h>
#include <gurt/types.h>
#endif
