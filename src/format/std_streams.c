/* The one place of upstream's STDIO rule for the standard streams: the runtime
 * creates records for <STDIN>, <STDOUT> and <STDERR> at start-up and drops, at
 * shutdown, those that were neither read nor written.  The runtime's STDIO
 * module, `iolens merge` and `iolens recover` all apply it through this function. */
#include "internal.h"

int iolens_stdio_idle_std_stream(uint64_t id, int64_t reads, int64_t writes)
{
    if (reads != 0 || writes != 0)
        return 0;
    /* Hashed on demand (no cached state, so callers on any thread are safe);
     * the rule runs once per STDIO record at shutdown or in a tool. */
    return id == iolens_record_id("<STDIN>", 7) || id == iolens_record_id("<STDOUT>", 8) ||
           id == iolens_record_id("<STDERR>", 8);
}
