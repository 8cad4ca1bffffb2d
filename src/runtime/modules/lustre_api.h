/* The liblustreapi layout source of the LUSTRE module (lustre_api.c): a layout
 * read through Lustre's public llapi_layout_* functions into the same
 * iol_lustre_layout that the xattr parser fills (lustre_layout.h), so the record
 * step is shared and the two sources give the same records. */
#ifndef IOLENS_RUNTIME_LUSTRE_API_H
#define IOLENS_RUNTIME_LUSTRE_API_H

#include "lustre_layout.h"

/* Find liblustreapi once per process lineage: the functions already in the
 * process, else liblustreapi.so.1 loaded now.  Call only where no lock of ours is
 * held and iol_busy is set (init); keeps errno and the application's random()
 * state; prints nothing. */
void iol_lustre_api_resolve(void);

/* 1 when the library was found and has every function used. */
int iol_lustre_api_ready(void);

/* The layout of fd into *out through the library.  Returns 0, or -1 when the
 * library is not there, the file has no layout, or any call fails: the caller
 * then reads the xattr.  May change errno (the caller keeps it); LUSTRE lock held. */
int iol_lustre_api_layout(int fd, iol_lustre_layout *out);

#endif
