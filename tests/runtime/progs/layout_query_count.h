/* Shared by the two test layout sources (lustre_shim.c answers the xattr,
 * fake_lustreapi.c answers liblustreapi): which time a file's layout is asked
 * for, so that both can give a file a grown layout from its second close on, as
 * a PFL file that instantiated more components would have.  Callers serialise. */
#ifndef IOLENS_TEST_LAYOUT_QUERY_COUNT_H
#define IOLENS_TEST_LAYOUT_QUERY_COUNT_H

#include <stdio.h>
#include <string.h>

#define LAYOUT_MAX_FILES 64
static char layout_seen[LAYOUT_MAX_FILES][256];
static int layout_nseen;

/* 1 the first time a file's layout is asked for, then 2. */
static int query_number(const char *base)
{
    for (int i = 0; i < layout_nseen; i++)
        if (strcmp(layout_seen[i], base) == 0)
            return 2;
    if (layout_nseen < LAYOUT_MAX_FILES)
        snprintf(layout_seen[layout_nseen++], sizeof layout_seen[0], "%.255s", base);
    return 1;
}

#endif
