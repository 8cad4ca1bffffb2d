/* libFuzzer target: the LUSTRE module's parser of the `lustre.lov` extended
 * attribute (src/runtime/modules/lustre_lov.c) and the record built from what it
 * accepts (lustre_record.c).  The runtime reads that value from the file system of
 * the application's files, so it is hostile input like a log.  Byte 0 of the input
 * picks the magic written over the first 4 bytes (plain v1, v3, composite, or the
 * input's own), so mutations explore the structures rather than the magic. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "modules/lustre_layout.h"

static iol_lustre_layout layout;
static uint8_t value[IOL_LUSTRE_XATTR_MAX];
static uint8_t record[32 + 72 * IOL_LUSTRE_MAX_COMPS + 8 * IOL_LUSTRE_MAX_OSTS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const uint32_t magic[] = {0x0BD10BD0, 0x0BD30BD0, 0x0BD60BD0};
    if (size < 1)
        return 0;
    size_t n = size - 1 < sizeof value ? size - 1 : sizeof value;
    memcpy(value, data + 1, n);
    if (n >= 4 && data[0] % 4 < 3)
        memcpy(value, &magic[data[0] % 4], 4);
    if (iol_lov_parse(value, n, &layout) != 0)
        return 0;
    size_t len = iol_lustre_record_build(&layout, 1, 0, record, sizeof record);
    if (len && iol_lustre_record_len(record, len) != len)
        abort();                   /* a record readers would walk differently */
    return 0;
}
