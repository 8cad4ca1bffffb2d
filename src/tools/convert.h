/* Pieces of `iolens convert`: record selection (convert_select.c) and keyed
 * anonymisation (anonymize.c).  Both work on the decoded structures of log.h. */
#ifndef IOLENS_CONVERT_H
#define IOLENS_CONVERT_H

#include <stddef.h>
#include <stdint.h>
#include "iolens/log.h"

/* ---------------------------------------------------------------- selection */
/* Which records to keep, decided by record id.  With no rule every record is kept.
 * Rules: one record (--file ID|PATH), names matching any include glob, names
 * matching no exclude glob (fnmatch(3) without flags: '*' also matches '/'). */
typedef struct conv_select {
    const char *file;            /* --file: a decimal record id or a name */
    const char **include, **exclude;
    size_t ninclude, nexclude;
    uint64_t *keep;              /* sorted ids kept, built by conv_select_build */
    size_t nkeep;
    int active;                  /* any rule given */
} conv_select;

/* Build the kept id set from the log's name table (ids without a name are kept
 * only by --file ID).  0, or IOLENS_E_INVALID_ARG when --file matches nothing. */
int conv_select_build(conv_select *s, const iolens_log *log);
int conv_select_keeps(const conv_select *s, uint64_t id);
void conv_select_free(conv_select *s);

/* Drop the records whose id is not kept, in place (arrays keep their capacity). */
void conv_filter_records(const conv_select *s, iolens_records *r);
void conv_filter_dxt(const conv_select *s, iolens_dxt *d);
void conv_filter_heatmap(const conv_select *s, iolens_heatmap *h);
void conv_filter_lustre(const conv_select *s, iolens_lustre *l);

/* ---------------------------------------------------------------- anonymisation */
enum { ANON_KEY_MIN = 32 };      /* bytes of key material (256 bits) */

typedef struct anon {
    unsigned char key[256];
    size_t keylen;
    int keep_mounts, keep_ext, keep_depth;
    const iolens_job *job;       /* the input's job: its mount points */
    uint64_t *old_id, *new_id;   /* id map sorted by old id, from the name table */
    char **new_name;
    size_t nids;
} anon;

/* Read a key written by `iolens keygen`: hex digits for at least ANON_KEY_MIN
 * bytes.  0, or an error code with a reason in err. */
int anon_load_key(anon *a, const char *path, char *err, size_t errlen);
/* Pseudonymise every name of the log and derive each new record id from the new
 * name (so one key gives the same id in every log). */
int anon_build_names(anon *a, const iolens_log *log);
void anon_free(anon *a);
/* The new id of a record (a keyed hash for ids the name table does not know). */
uint64_t anon_id(const anon *a, uint64_t id);
/* The pseudonym of the name of record `id`; NULL if the name table has none. */
const char *anon_name(const anon *a, uint64_t id);
/* The job record pseudonymised into *out (its exe and mounts are allocated: free
 * them with anon_job_free). */
int anon_job(const anon *a, const iolens_job *in, iolens_job *out);
void anon_job_free(iolens_job *j);
void anon_records(const anon *a, iolens_records *r);
void anon_dxt(const anon *a, iolens_dxt *d);
void anon_heatmap(const anon *a, iolens_heatmap *h);
void anon_lustre(const anon *a, iolens_lustre *l);
/* anon_meta.c: job metadata, keys kept, values by the platform table's rule. */
void anon_metadata(const anon *a, const char *in, char *out, size_t room);
void anon_value(const anon *a, const char *v, size_t len, char *out);       /* out[24] */
void anon_host(const anon *a, const char *name, size_t len, char *out);     /* out[24] */

/* "key=value" for --annotate: appended to the job metadata (one line each). */
int conv_annotate(iolens_job *job, const char *kv);

#endif
