/* What a counter measures (iolens_counter_unit, log.h), by one naming rule over
 * the counter tables, so that no tool keeps its own list of time or byte
 * counters.  The rule, on the name after the module prefix (and "F_"), first
 * match wins:
 *   float table:  ..._TIMESTAMP -> timestamp;  VARIANCE_... -> variance;
 *                 ..._TIME, ..._DURATION -> seconds;  anything else -> other
 *   int table:    combine RANK or ..._RANK -> rank;  MAX_BYTE_..., EXT_START,
 *                 EXT_END -> offset;  ...BYTES..., ..._SIZE, ..._ALIGNMENT,
 *                 ACCESSn_ACCESS, STRIDEn_STRIDE -> bytes;  RENAMED_FROM, ..._ID
 *                 -> id;  ..._D1 to ..._D5 (per-dimension lengths, strides,
 *                 chunk sizes, in elements) -> other;  combine SUM or COMMON (the
 *                 ...n_COUNT halves) -> count;
 *                 anything else (modes, flags, dimensions) -> other.
 * tests/c/test_counter_units.c checks it on every table. */
#include <string.h>
#include "iolens/log.h"

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* ACCESS1_ACCESS .. ACCESS4_ACCESS, STRIDE1_STRIDE ..: the common-value halves. */
static int common_value(const char *s)
{
    return (strncmp(s, "ACCESS", 6) == 0 && s[6] >= '1' && s[6] <= '4' &&
            strcmp(s + 7, "_ACCESS") == 0) ||
           (strncmp(s, "STRIDE", 6) == 0 && s[6] >= '1' && s[6] <= '4' &&
            strcmp(s + 7, "_STRIDE") == 0);
}

/* The counter name without "<SYMBOL>_" and, in the float table, "F_". */
static const char *bare_name(const iolens_module_info *mi, const char *name, int flt)
{
    size_t n = strlen(mi->symbol);
    if (strncmp(name, mi->symbol, n) == 0 && name[n] == '_')
        name += n + 1;
    else if (strncmp(name, "LUSTRE_COMP_", 12) == 0)   /* per-component table */
        name += 12;
    if (flt && strncmp(name, "F_", 2) == 0)
        name += 2;
    return name;
}

static int flt_unit(const char *s)
{
    if (ends_with(s, "_TIMESTAMP") || strcmp(s, "TIMESTAMP") == 0)
        return IOLENS_UNIT_TIMESTAMP;
    if (strncmp(s, "VARIANCE_", 9) == 0)
        return IOLENS_UNIT_VARIANCE;
    if (ends_with(s, "_TIME") || ends_with(s, "_DURATION"))
        return IOLENS_UNIT_SECONDS;
    return IOLENS_UNIT_OTHER;
}

static int int_unit(const char *s, int combine)
{
    if (combine == IOL_COMBINE_RANK || ends_with(s, "_RANK"))
        return IOLENS_UNIT_RANK;
    if (strncmp(s, "MAX_BYTE_", 9) == 0 || strcmp(s, "EXT_START") == 0 ||
        strcmp(s, "EXT_END") == 0)
        return IOLENS_UNIT_OFFSET;
    if (strstr(s, "BYTES") || ends_with(s, "_SIZE") || ends_with(s, "_ALIGNMENT") ||
        common_value(s))
        return IOLENS_UNIT_BYTES;
    if (strcmp(s, "RENAMED_FROM") == 0 || ends_with(s, "_ID"))
        return IOLENS_UNIT_ID;
    size_t n = strlen(s);
    if (n > 3 && s[n - 3] == '_' && s[n - 2] == 'D' && s[n - 1] >= '1' && s[n - 1] <= '9')
        return IOLENS_UNIT_OTHER;
    if (combine == IOL_COMBINE_SUM || combine == IOL_COMBINE_COMMON)
        return IOLENS_UNIT_COUNT;
    return IOLENS_UNIT_OTHER;
}

int iolens_counter_unit(const iolens_module_info *mi, int flt, size_t k)
{
    if (!mi || k >= (flt ? mi->n_flt : mi->n_int))
        return IOLENS_UNIT_OTHER;
    const char *name = bare_name(mi, flt ? mi->flt_names[k] : mi->int_names[k], flt);
    return flt ? flt_unit(name) : int_unit(name, mi->int_combine[k]);
}

const char *iolens_unit_name(int unit)
{
    static const char *const names[] = {
        [IOLENS_UNIT_OTHER] = "other",         [IOLENS_UNIT_COUNT] = "count",
        [IOLENS_UNIT_BYTES] = "bytes",         [IOLENS_UNIT_OFFSET] = "offset",
        [IOLENS_UNIT_SECONDS] = "seconds",     [IOLENS_UNIT_TIMESTAMP] = "timestamp",
        [IOLENS_UNIT_RANK] = "rank",           [IOLENS_UNIT_ID] = "id",
        [IOLENS_UNIT_VARIANCE] = "variance",
    };
    return unit >= 0 && unit <= IOLENS_UNIT_VARIANCE ? names[unit] : "other";
}
