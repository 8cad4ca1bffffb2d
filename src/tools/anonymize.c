/* Keyed anonymisation for `iolens convert --anonymize KEYFILE`.
 *
 * Every pseudonym is HMAC-SHA-256(key, domain || 0 || value) (OpenSSL libcrypto),
 * printed as hex and cut short.  The domain ("path", "host", "word", ...) keeps a
 * file and a host of the same name apart.  One key gives the same pseudonym in
 * every log; without the key a candidate name cannot be tested (docs/anonymization.md).
 * Record ids are re-derived from the pseudonymised names with the record-id hash,
 * so merged or compared anonymised logs line up exactly as the originals did.
 *
 * OpenSSL is optional (src/tools/CMakeLists.txt): built without it, loading a key
 * fails with IOLENS_E_UNSUPPORTED, so no log is ever written unkeyed. */
#include <ctype.h>
#ifdef IOLENS_HAVE_OPENSSL
#include <openssl/evp.h>
#include <openssl/hmac.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "convert.h"

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int anon_load_key(anon *a, const char *path, char *err, size_t errlen)
{
#ifndef IOLENS_HAVE_OPENSSL
    snprintf(err, errlen, "this iolens was built without OpenSSL (libcrypto), which "
             "--anonymize needs for HMAC-SHA-256; rebuild with OpenSSL's development files");
    return IOLENS_E_UNSUPPORTED;
#endif
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "cannot read key file %s", path);
        return IOLENS_E_IO;
    }
    char text[1024];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    a->keylen = 0;
    int hi = -1;
    for (size_t i = 0; i < n; i++) {
        if (isspace((unsigned char)text[i]))
            continue;
        int v = hexval((unsigned char)text[i]);
        if (v < 0 || a->keylen == sizeof a->key) {
            snprintf(err, errlen, "key file %s: not a key made by `iolens keygen` "
                     "(hex digits expected)", path);
            return IOLENS_E_INVALID_ARG;
        }
        if (hi < 0)
            hi = v;
        else {
            a->key[a->keylen++] = (unsigned char)(hi << 4 | v);
            hi = -1;
        }
    }
    if (a->keylen < ANON_KEY_MIN || hi >= 0) {
        snprintf(err, errlen, "key file %s: key too short (%zu bytes; at least %d needed, "
                 "make one with `iolens keygen`)", path, a->keylen, ANON_KEY_MIN);
        return IOLENS_E_INVALID_ARG;
    }
    return 0;
}

/* HMAC of domain||0||value into out[32]. */
static void mac(const anon *a, const char *domain, const void *value, size_t len,
                unsigned char out[32])
{
    size_t dl = strlen(domain);
    unsigned char *buf = malloc(dl + 1 + len + 1);
    unsigned int olen = 32;
    if (!buf) {                     /* never emit an unkeyed value: fail closed */
        memset(out, 0, 32);
        return;
    }
    memcpy(buf, domain, dl + 1);
    if (len)
        memcpy(buf + dl + 1, value, len);
#ifdef IOLENS_HAVE_OPENSSL
    if (!HMAC(EVP_sha256(), a->key, (int)a->keylen, buf, dl + 1 + len, out, &olen))
        memset(out, 0, 32);
#else
    (void)a;
    (void)olen;
    memset(out, 0, 32);     /* unreachable: anon_load_key refuses every key */
#endif
    free(buf);
}

/* `prefix` + the first `nhex` hex digits of the HMAC, into dst (size >= strlen+nhex+1). */
static void pseudo(const anon *a, const char *domain, const void *value, size_t len,
                   const char *prefix, size_t nhex, char *dst)
{
    unsigned char d[32];
    mac(a, domain, value, len, d);
    size_t pl = strlen(prefix);
    memcpy(dst, prefix, pl);
    for (size_t i = 0; i < nhex && i < 64; i++)
        dst[pl + i] = "0123456789abcdef"[(d[i / 2] >> (i % 2 ? 0 : 4)) & 15];
    dst[pl + (nhex < 64 ? nhex : 64)] = '\0';
}

static int64_t pseudo_int(const anon *a, const char *domain, int64_t v, int bits)
{
    unsigned char d[32];
    mac(a, domain, &v, sizeof v, d);
    uint64_t x;
    memcpy(&x, d, 8);
    return (int64_t)(x & ((UINT64_C(1) << bits) - 1));
}

/* The names the runtime (ours and upstream's) makes for records that are not a
 * user's files: kept as they are, nothing of the user's is in them.  Only these:
 * any other name, even one that looks like them ("<secret>", "heatmap:x"), is
 * the user's and is pseudonymised.  docs/anonymization.md lists the same (a test
 * compares).  Their ids: a standard stream's is keyed like every other id; a
 * heat map's stays the hash of its name, because PyDarshan 3.5.0 tells a heat
 * map's API only by that fixed id (with another id `darshan summary` fails). */
enum { NOT_KEPT, KEPT_KEYED_ID, KEPT_NAME_ID };

static int fixed_name(const char *name)
{
    static const struct {
        const char *name;
        int id;
    } runtime_names[] = {
        {"<STDIN>", KEPT_KEYED_ID},       {"<STDOUT>", KEPT_KEYED_ID},
        {"<STDERR>", KEPT_KEYED_ID},      {"heatmap:POSIX", KEPT_NAME_ID},
        {"heatmap:MPIIO", KEPT_NAME_ID},  {"heatmap:STDIO", KEPT_NAME_ID},
    };
    for (size_t i = 0; i < sizeof runtime_names / sizeof *runtime_names; i++)
        if (!strcmp(name, runtime_names[i].name))
            return runtime_names[i].id;
    return NOT_KEPT;
}

/* Length of the longest job mount point that is a directory prefix of name. */
static size_t mount_prefix(const anon *a, const char *name)
{
    size_t best = 0;
    for (size_t i = 0; a->job && i < a->job->nmounts; i++) {
        const char *m = a->job->mounts[i].path;
        size_t ml = m ? strlen(m) : 0;
        if (ml > best && !strncmp(name, m, ml) && (name[ml] == '/' || name[ml] == '\0' ||
                                                    m[ml - 1] == '/'))
            best = ml;
    }
    return best;
}

/* The extension of the last component (".h5"): 1..8 alphanumerics after a dot
 * that does not start the component; "" if none. */
static const char *extension(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    const char *dot = strrchr(base, '.');
    if (!dot || dot == base || !dot[1] || strlen(dot + 1) > 8)
        return "";
    for (const char *p = dot + 1; *p; p++)
        if (!isalnum((unsigned char)*p))
            return "";
    return dot;
}

static uint64_t keyed_id(const anon *a, uint64_t id);

/* A pseudonymous path: kept mount point, then either one pseudonym per component
 * (keyed by the whole prefix, so a shared directory keeps one pseudonym) or one
 * pseudonym for the rest, then the kept extension. */
static char *anon_path(const anon *a, const char *name)
{
    if (fixed_name(name))
        return strdup(name);
    size_t nl = strlen(name), keep = a->keep_mounts ? mount_prefix(a, name) : 0;
    const char *ext = a->keep_ext ? extension(name) : "";
    char *out = malloc(keep + 18 * (nl + 1) + strlen(ext) + 2);
    if (!out)
        return NULL;
    memcpy(out, name, keep);
    size_t o = keep;
    char piece[24];
    if (a->keep_depth) {
        for (size_t i = keep; i < nl;) {
            if (name[i] == '/') {
                out[o++] = '/';
                i++;
                continue;
            }
            size_t j = i;
            while (j < nl && name[j] != '/')
                j++;
            pseudo(a, "path", name, j, "d", 12, piece);   /* keyed by the prefix name[0..j) */
            memcpy(out + o, piece, strlen(piece));
            o += strlen(piece);
            i = j;
        }
    } else if (keep < nl) {
        if (!o || out[o - 1] != '/')
            out[o++] = '/';
        pseudo(a, "path", name, nl, "f", 16, piece);
        memcpy(out + o, piece, strlen(piece));
        o += strlen(piece);
    }
    strcpy(out + o, ext);
    return out;
}

static int cmp_pair(const void *x, const void *y)
{
    const uint64_t *a = x, *b = y;
    return a[0] < b[0] ? -1 : a[0] > b[0];
}

int anon_build_names(anon *a, const iolens_log *log)
{
    size_t n = iolens_log_name_count(log);
    uint64_t *pairs = malloc((n + 1) * 2 * sizeof *pairs);
    a->old_id = malloc((n + 1) * sizeof *a->old_id);
    a->new_id = malloc((n + 1) * sizeof *a->new_id);
    a->new_name = calloc(n + 1, sizeof *a->new_name);
    if (!pairs || !a->old_id || !a->new_id || !a->new_name) {
        free(pairs);
        return IOLENS_E_NOMEM;
    }
    char **names = calloc(n + 1, sizeof *names);
    int rc = names ? 0 : IOLENS_E_NOMEM;
    size_t k = 0;
    for (size_t i = 0; !rc && i < n; i++) {
        uint64_t id;
        const char *name;
        if (iolens_log_name_at(log, i, &id, &name) != 0)
            continue;
        if (!(names[k] = anon_path(a, name))) {
            rc = IOLENS_E_NOMEM;
            break;
        }
        pairs[2 * k] = id;
        pairs[2 * k + 1] = k;
        k++;
    }
    qsort(pairs, k, 2 * sizeof *pairs, cmp_pair);
    for (size_t i = 0; i < k; i++) {
        char *nm = names[pairs[2 * i + 1]];
        a->old_id[i] = pairs[2 * i];
        a->new_name[i] = nm;
        /* ids from the (new) names, so that an id is the hash of the name beside
         * it; a kept stream name's id is keyed instead (fixed_name) */
        a->new_id[i] = fixed_name(nm) == KEPT_KEYED_ID ? keyed_id(a, pairs[2 * i])
                                                      : iolens_record_id(nm, strlen(nm));
    }
    a->nids = k;                     /* new_name owns every name made so far */
    free(names);
    free(pairs);
    return rc;
}

void anon_free(anon *a)
{
    for (size_t i = 0; a->new_name && i < a->nids; i++)
        free(a->new_name[i]);
    free(a->new_name), free(a->old_id), free(a->new_id);
    a->new_name = NULL;
    a->old_id = a->new_id = NULL;
}

/* Index of `id` in the sorted id map, or a->nids if absent. */
static size_t find_id(const anon *a, uint64_t id)
{
    size_t lo = 0, hi = a->nids;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (a->old_id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < a->nids && a->old_id[lo] == id ? lo : a->nids;
}

const char *anon_name(const anon *a, uint64_t id)
{
    size_t k = find_id(a, id);
    return k < a->nids ? a->new_name[k] : NULL;
}

/* A keyed id for a record whose name is not re-hashed (no name, or a kept one). */
static uint64_t keyed_id(const anon *a, uint64_t id)
{
    unsigned char d[32];
    mac(a, "id", &id, sizeof id, d);
    uint64_t v;
    memcpy(&v, d, 8);
    return v;
}

uint64_t anon_id(const anon *a, uint64_t id)
{
    size_t k = find_id(a, id);           /* a nameless record: its id would reveal the name */
    return k < a->nids ? a->new_id[k] : keyed_id(a, id);
}

/* Each space-separated word of s replaced by its pseudonym. */
static char *anon_words(const anon *a, const char *s, size_t len)
{
    char *out = malloc(len * 14 + 16), piece[24];
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == ' ') {
            out[o++] = s[i++];
            continue;
        }
        size_t j = i;
        while (j < len && s[j] != ' ')
            j++;
        pseudo(a, "word", s + i, j - i, "w", 12, piece);
        memcpy(out + o, piece, 13);
        o += 13;
        i = j;
    }
    out[o] = '\0';
    return out;
}

/* A metadata value's pseudonym (anon_meta.c); a host name's, as DXT's. */
void anon_value(const anon *a, const char *v, size_t len, char *out)
{
    pseudo(a, "meta", v, len, "v", 12, out);
}

void anon_host(const anon *a, const char *name, size_t len, char *out)
{
    pseudo(a, "host", name, len < 64 ? len : 64, "h", 16, out);
}

int anon_job(const anon *a, const iolens_job *in, iolens_job *out)
{
    *out = *in;
    out->exe_mounts = NULL;
    out->mounts = NULL;
    out->uid = pseudo_int(a, "uid", in->uid, 31);
    out->jobid = pseudo_int(a, "jobid", in->jobid, 48);
    anon_metadata(a, in->metadata, out->metadata, 1024);   /* 1023 characters and the NUL */
    const char *exe = in->exe && *in->exe ? in->exe : in->exe_mounts ? in->exe_mounts : "";
    size_t elen = strcspn(exe, "\n");
    out->exe = anon_words(a, exe, elen);
    out->mounts = calloc(in->nmounts + 1, sizeof *out->mounts);
    if (!out->exe || !out->mounts)
        return IOLENS_E_NOMEM;
    for (size_t i = 0; i < in->nmounts; i++) {
        const iolens_mount *m = &in->mounts[i];
        char piece[24];
        if (!m->path || !m->fstype)
            continue;
        if (!a->keep_mounts)
            pseudo(a, "path", m->path, strlen(m->path), "/m", 12, piece);
        out->mounts[i].path = strdup(a->keep_mounts ? m->path : piece);
        out->mounts[i].fstype = strdup(m->fstype);
        if (!out->mounts[i].path || !out->mounts[i].fstype)
            return IOLENS_E_NOMEM;
    }
    return 0;
}

void anon_job_free(iolens_job *j)
{
    for (size_t i = 0; j->mounts && i < j->nmounts; i++)
        free(j->mounts[i].path), free(j->mounts[i].fstype);
    free(j->mounts);
    free(j->exe);
    j->mounts = NULL;
    j->exe = NULL;
}

/* DAOS/DFS pool and container uuids name a site's storage: replaced by keyed bytes. */
static void anon_uuid(const anon *a, uint8_t *u)
{
    unsigned char d[32];
    mac(a, "uuid", u, 16, d);
    memcpy(u, d, 16);
}

void anon_records(const anon *a, iolens_records *r)
{
    for (size_t i = 0; i < r->count; i++) {
        r->id[i] = anon_id(a, r->id[i]);
        if (r->file_rec_id)
            r->file_rec_id[i] = anon_id(a, r->file_rec_id[i]);
        if (r->aux && r->aux_size >= 32) {
            anon_uuid(a, r->aux + i * r->aux_size);
            anon_uuid(a, r->aux + i * r->aux_size + 16);
        }
    }
}

void anon_dxt(const anon *a, iolens_dxt *d)
{
    for (size_t i = 0; i < d->count; i++) {
        d->id[i] = anon_id(a, d->id[i]);
        if (d->hostname && d->hostname[i][0]) {
            char piece[24];
            anon_host(a, d->hostname[i], strnlen(d->hostname[i], 64), piece);
            memset(d->hostname[i], 0, sizeof d->hostname[i]);
            memcpy(d->hostname[i], piece, strlen(piece));
        }
    }
}

void anon_heatmap(const anon *a, iolens_heatmap *h)
{
    for (size_t i = 0; i < h->count; i++)
        h->id[i] = anon_id(a, h->id[i]);
}

void anon_lustre(const anon *a, iolens_lustre *l)
{
    for (size_t i = 0; i < l->count; i++)
        l->id[i] = anon_id(a, l->id[i]);
    size_t ncomp = l->count ? l->comp_start[l->count] : 0;
    for (size_t c = 0; l->pool_name && c < ncomp; c++) {
        if (!l->pool_name[c][0])
            continue;
        char piece[24];
        pseudo(a, "pool", l->pool_name[c], strnlen(l->pool_name[c], 16), "p", 14, piece);
        memset(l->pool_name[c], 0, sizeof l->pool_name[c]);
        memcpy(l->pool_name[c], piece, 15);
    }
}
