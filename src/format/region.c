/* Module regions: version check, lazy decompression, cached per log. */
#include <stdio.h>
#include <stdlib.h>
#include "internal.h"
#include "log_impl.h"

static const char *mod_name(int module, char *buf, size_t len)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    if (mi)
        return mi->name;
    snprintf(buf, len, "module %d", module);
    return buf;
}

/* A known module must carry a version in 1..max known; opaque and unassigned
 * modules are raw bytes to us, so any version is accepted for them. */
static int check_version(iolens_log *log, int module)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    uint32_t v = log->hdr.mod_ver[module], max = iol_module_max_version(module);
    if (!mi || mi->kind == IOLENS_KIND_OPAQUE)
        return IOLENS_OK;
    if (v == 0 || v > max)
        return iol_log_fail(log, IOLENS_E_BAD_MODULE_VERSION,
                            "%s module record version %u is not supported (this reader knows 1..%u)",
                            mi->name, v, max);
    return IOLENS_OK;
}

int iolens_log_region(iolens_log *log, int module, const void **payload, size_t *len)
{
    if (!log || !payload || !len || module < 0 || module >= IOL_MAX_MODULES)
        return iol_log_fail(log, IOLENS_E_INVALID_ARG,
                            "iolens_log_region: invalid argument (module %d)", module);
    *payload = NULL;
    *len = 0;
    char nb[32];
    iolens_region r = log->hdr.mod[module];
    if (!r.len)
        return iol_log_fail(log, IOLENS_E_NOT_PRESENT, "%s module has no region in this log",
                            mod_name(module, nb, sizeof nb));
    int rc = check_version(log, module);
    if (rc)
        return rc;
    iol_region_cache *c = &log->region[module];
    if (c->state == 0) {
        char detail[160];
        const uint8_t *in;
        void *copy;
        if ((rc = iol_log_bytes(log, r.off, (size_t)r.len, &in, &copy)) != IOLENS_OK)
            return rc;
        rc = iol_inflate(log->hdr.comp_type, in, (size_t)r.len, iol_region_cap(r.len), 0,
                         &c->data, &c->len, detail, sizeof detail);
        free(copy);
        c->state = rc ? rc : 1;
        if (rc)
            return iol_log_fail(log, rc, "%s module region [off %llu, len %llu]: %s",
                                mod_name(module, nb, sizeof nb), (unsigned long long)r.off,
                                (unsigned long long)r.len, detail);
    } else if (c->state < 0) {
        return iol_log_fail(log, c->state, "%s module region [off %llu, len %llu] does not decompress",
                            mod_name(module, nb, sizeof nb), (unsigned long long)r.off,
                            (unsigned long long)r.len);
    }
    *payload = c->data;
    *len = c->len;
    return IOLENS_OK;
}

/* Hand the decompressed payload of `module` over to the caller, who frees it with
 * free(); the log forgets it (a later iolens_log_region decompresses again).  Lets
 * a reader that views the payload directly, or that has decoded it, avoid keeping
 * a second copy alive. */
int iolens_log_region_take(iolens_log *log, int module, void **payload, size_t *len)
{
    const void *p;
    size_t n;
    if (payload)
        *payload = NULL;
    if (len)
        *len = 0;
    if (!payload || !len)
        return iol_log_fail(log, IOLENS_E_INVALID_ARG, "iolens_log_region_take: invalid argument");
    int rc = iolens_log_region(log, module, &p, &n);
    if (rc != IOLENS_OK)
        return rc;
    iol_region_cache *c = &log->region[module];
    *payload = c->data;
    *len = c->len;
    c->data = NULL;
    c->len = 0;
    c->state = 0;
    return IOLENS_OK;
}

/* Free the cached payload of `module`, if any (after decoding it). */
void iolens_log_region_release(iolens_log *log, int module)
{
    if (!log || module < 0 || module >= IOL_MAX_MODULES || log->region[module].state != 1)
        return;
    iol_region_cache *c = &log->region[module];
    free(c->data);
    c->data = NULL;
    c->len = 0;
    c->state = 0;
}
