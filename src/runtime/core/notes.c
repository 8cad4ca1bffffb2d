/* Short facts a module wants the log to carry ("h5=unsupported-1.8.22"), kept as
 * "key=value" lines and appended to the job metadata when the log is written.
 * Bounded (what does not fit is dropped: the metadata field is 1 KiB in all), no
 * allocation, and each key once.  Thread-safe: a module may note from any thread. */
#include <string.h>

#include "core_int.h"

#define IOL_NOTES_LEN 256

static char notes[IOL_NOTES_LEN];
static size_t used;
static iol_lock_t notes_lock;

void iol_note(const char *key, const char *value)
{
    size_t k = strlen(key), v = strlen(value);
    iol_lock(&notes_lock);
    int have = 0;                            /* "key=" at the start or after a newline */
    for (const char *p = notes; *p && !have; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : "")
        have = strncmp(p, key, k) == 0 && p[k] == '=';
    if (!have && used + k + v + 2 < sizeof notes) {
        memcpy(notes + used, key, k);
        notes[used + k] = '=';
        memcpy(notes + used + k + 1, value, v);
        notes[used + k + 1 + v] = '\n';
        used += k + v + 2;
        notes[used] = '\0';
    }
    iol_unlock(&notes_lock);
}

size_t iol_notes_append(char *out, size_t len)
{
    iol_lock(&notes_lock);
    size_t n = used < len ? used : 0;       /* all of them or none: never half a line */
    memcpy(out, notes, n);
    if (n < len)
        out[n] = '\0';
    iol_unlock(&notes_lock);
    return n;
}
