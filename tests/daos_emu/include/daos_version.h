/* DAOS emulation (iolens tests): the API version the emulation follows. */
#ifndef __DAOS_VERSION_H__
#define __DAOS_VERSION_H__
#define DAOS_API_VERSION_MAJOR 2
#define DAOS_API_VERSION_MINOR 6
#define DAOS_API_VERSION_FIX   0
#endif
