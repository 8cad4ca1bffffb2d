/* iolens._core.encode_slice_packets: the export's Perfetto begin/end packets,
 * many at once (iolens/export/perfetto.py writes everything else).
 *
 * encode_slice_packets(delta, begin, track, name_iid, file_iid, offset, size)
 * takes equal-length int64 buffers (begin: int8, 1 = begin, 0 = end) and returns
 * bytes: for each row, one Trace field 1 holding a TracePacket:
 *   timestamp (8) = delta                      (the sequence's clock is incremental)
 *   track_event (11) {
 *     type (9) = 1 begin | 2 end, track_uuid (11) = track,
 *     begins only: category_iids (3) = 1, name_iid (10) = name_iid,
 *       debug_annotations (4) { name_iid (1) = 1, string_value_iid (17) = file_iid },
 *       debug_annotations (4) { name_iid (1) = 2, int_value (4) = offset },
 *       debug_annotations (4) { name_iid (1) = 3, int_value (4) = size } }
 *   trusted_packet_sequence_id (10) = 1, sequence_flags (13) = 2 (needs incremental state)
 * Field numbers are those of the public Perfetto protos.  Every message here is
 * under 128 bytes, so each length prefix is one byte. */
#include "core.h"
#include <string.h>

enum { MAX_PACKET = 128 };

static uint8_t *put_varint(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Annotation {name_iid = name, <key> = value} with its field-4 header. */
static uint8_t *put_annotation(uint8_t *p, int name, const uint8_t *key, size_t keylen,
                               uint64_t value)
{
    uint8_t body[16], *q = body;
    *q++ = 1 << 3;
    *q++ = (uint8_t)name;
    memcpy(q, key, keylen);
    q = put_varint(q + keylen, value);
    *p++ = 4 << 3 | 2;
    *p++ = (uint8_t)(q - body);
    memcpy(p, body, (size_t)(q - body));
    return p + (q - body);
}

static size_t encode_one(uint8_t *out, int64_t delta, int begin, int64_t track,
                         int64_t name, int64_t file, int64_t offset, int64_t size)
{
    static const uint8_t string_iid[] = { 0x88, 0x01 };    /* key of field 17: varint 136 */
    static const uint8_t int_value[] = { 4 << 3 };
    uint8_t ev[MAX_PACKET], *e = ev;
    *e++ = 9 << 3;
    *e++ = begin ? 1 : 2;
    *e++ = 11 << 3;
    e = put_varint(e, (uint64_t)track);
    if (begin) {
        *e++ = 3 << 3;
        *e++ = 1;
        *e++ = 10 << 3;
        e = put_varint(e, (uint64_t)name);
        e = put_annotation(e, 1, string_iid, sizeof string_iid, (uint64_t)file);
        e = put_annotation(e, 2, int_value, sizeof int_value, (uint64_t)offset);
        e = put_annotation(e, 3, int_value, sizeof int_value, (uint64_t)size);
    }
    uint8_t pkt[MAX_PACKET], *p = pkt;
    *p++ = 8 << 3;
    p = put_varint(p, (uint64_t)delta);
    *p++ = 11 << 3 | 2;
    *p++ = (uint8_t)(e - ev);
    memcpy(p, ev, (size_t)(e - ev));
    p += e - ev;
    *p++ = 10 << 3;
    *p++ = 1;
    *p++ = 13 << 3;
    *p++ = 2;
    out[0] = 1 << 3 | 2;
    out[1] = (uint8_t)(p - pkt);
    memcpy(out + 2, pkt, (size_t)(p - pkt));
    return (size_t)(p - pkt) + 2;
}

PyObject *iol_py_encode_slice_packets(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *o[7];
    if (!PyArg_ParseTuple(args, "OOOOOOO", &o[0], &o[1], &o[2], &o[3], &o[4], &o[5], &o[6]))
        return NULL;
    Py_buffer b[7];
    static const Py_ssize_t item[7] = { 8, 1, 8, 8, 8, 8, 8 };
    Py_ssize_t n;
    if (iol_py_columns(o, 7, item, NULL, b, &n, "encode_slice_packets") < 0)
        return NULL;
    PyObject *ret = PyBytes_FromStringAndSize(NULL, n * (MAX_PACKET + 2));
    if (!ret)
        goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(ret), *at = out;
    const int64_t *delta = b[0].buf, *track = b[2].buf, *name = b[3].buf, *file = b[4].buf,
                  *offset = b[5].buf, *size = b[6].buf;
    const int8_t *begin = b[1].buf;
    for (Py_ssize_t i = 0; i < n; i++)
        at += encode_one(at, delta[i], begin[i], track[i], name[i], file[i], offset[i], size[i]);
    if (_PyBytes_Resize(&ret, at - out) < 0)
        ret = NULL;
done:
    iol_py_release_columns(b, 7);
    return ret;
}
