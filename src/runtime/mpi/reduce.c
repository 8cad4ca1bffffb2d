/* Shared records of an MPI job (runtime spec 3.2-3.4): detection of the files every
 * process registered in a module, and their reduction into one record (rank -1)
 * held by process 0.  The counter arithmetic is the format library's combine
 * engine (src/format/combine.c), driven by the counter tables, so every counter
 * module is reduced by this one code.
 *
 * Runs at shutdown only, after every module is frozen, on one thread; every
 * function here is collective over iol_mpi_comm and all processes take the same
 * path (the decisions come from values every process holds after an Allreduce). */
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"
#include "core_int.h"

/* ------------------------------------------------------------ detection */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Bit m set when module m holds a record of `id` here. */
static uint64_t local_mask(uint64_t id)
{
    uint64_t mask = 0;
    for (int m = 0; m < IOL_MAX_MODULES; m++) {
        iol_module *mod = &iol_mods[m];
        if (!mod->d || mod->state != 1 || !mod->count)
            continue;
        if (mod->d->own_memory ? mod->d->holds && mod->d->holds(mod, id)
                               : iol_rec_find(mod, id, NULL) != NULL)
            mask |= 1ull << m;
    }
    return mask;
}

int iol_shared_detect(iol_shared *s)
{
    int rank;
    PMPI_Comm_rank(iol_mpi_comm, &rank);
    memset(s, 0, sizeof *s);
    long long n = rank == 0 ? (long long)iol_names_count() : 0;
    PMPI_Bcast(&n, 1, MPI_LONG_LONG, 0, iol_mpi_comm);
    if (n == 0)
        return 0;
    s->id = malloc((size_t)n * sizeof *s->id);
    s->mask = malloc((size_t)n * sizeof *s->mask);
    int ok = s->id && s->mask;
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, iol_mpi_comm);
    if (!ok) {
        iol_shared_free(s);
        return -1;
    }
    if (rank == 0) {
        for (size_t i = 0; i < (size_t)n; i++) {
            const char *name;
            iol_name_at(i, &s->id[i], &name);
        }
        qsort(s->id, (size_t)n, sizeof *s->id, cmp_u64);
    }
    PMPI_Bcast(s->id, (int)n, MPI_UINT64_T, 0, iol_mpi_comm);
    for (size_t i = 0; i < (size_t)n; i++)
        s->mask[i] = local_mask(s->id[i]);
    PMPI_Allreduce(MPI_IN_PLACE, s->mask, (int)n, MPI_UINT64_T, MPI_BAND, iol_mpi_comm);
    s->n = (size_t)n;
    return 0;
}

void iol_shared_mark(const iol_shared *s, iol_module *m)
{
    int id = m->d->id, rank;
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += (s->mask[i] >> id) & 1;
    uint64_t *ids = n ? malloc(n * sizeof *ids) : NULL;
    if (!ids)
        return;                    /* none shared; or no memory: written per process */
    n = 0;
    for (size_t i = 0; i < s->n; i++)
        if ((s->mask[i] >> id) & 1)
            ids[n++] = s->id[i];   /* s->id is sorted */
    PMPI_Comm_rank(iol_mpi_comm, &rank);
    m->d->shared(m, ids, n, rank == 0);
    free(ids);
}

void iol_shared_free(iol_shared *s)
{
    free(s->id);
    free(s->mask);
    memset(s, 0, sizeof *s);
}

uint64_t iol_shared_mask(const iol_shared *s, uint64_t id)
{
    if (!s->n)
        return 0;
    const uint64_t *p = bsearch(&id, s->id, s->n, sizeof id, cmp_u64);
    return p ? s->mask[p - s->id] : 0;
}

/* ------------------------------------------------------------ reduction */
/* Records are the log layout: u64 id, i64 rank, [u64 file_rec_id: H5D and
 * PNETCDF_VAR, the same on every process of a shared record], n_int i64, n_flt f64,
 * [trailing bytes: DFS and DAOS uuids, the same on every process]. */
typedef struct rec_shape {
    int module;
    size_t rec_size, n_int, n_flt, elem;   /* elem: record + its variance state */
    size_t head;                           /* bytes before the counters: 16 or 24 */
} rec_shape;

static rec_shape cur;   /* the module being reduced (the MPI op has no context) */

static int cmp_rank_desc_id_asc(const void *a, const void *b)
{
    int64_t ra, rb;
    uint64_t ia = *(const uint64_t *)a, ib = *(const uint64_t *)b;
    memcpy(&ra, (const uint8_t *)a + 8, 8);
    memcpy(&rb, (const uint8_t *)b + 8, 8);
    if (ra != rb)
        return ra > rb ? -1 : 1;
    return ia < ib ? -1 : ia > ib;
}

static void reduce_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)type;
    for (int i = 0; i < *len; i++) {
        uint8_t *a = (uint8_t *)in + (size_t)i * cur.elem;
        uint8_t *b = (uint8_t *)inout + (size_t)i * cur.elem;
        iolens_combine_records(cur.module, (int64_t *)(a + cur.head), (double *)(a + cur.head + 8 * cur.n_int),
                               (iolens_combine_acc *)(a + cur.rec_size), (int64_t *)(b + cur.head),
                               (double *)(b + cur.head + 8 * cur.n_int),
                               (iolens_combine_acc *)(b + cur.rec_size));
    }
}

/* Step 1 of spec 3.3 on every shared record; returns how many there are. */
static size_t prepare_shared(const iol_shared *s, uint8_t *recs, size_t count)
{
    size_t nshared = 0;
    for (size_t i = 0; i < count; i++) {
        uint8_t *r = recs + i * cur.rec_size;
        uint64_t id;
        int64_t rank;
        memcpy(&id, r, 8);
        memcpy(&rank, r + 8, 8);
        if (!(iol_shared_mask(s, id) & (1ull << cur.module)))
            continue;
        iolens_combine_prepare(cur.module, rank, (int64_t *)(r + cur.head),
                               (double *)(r + cur.head + 8 * cur.n_int), NULL);
        rank = -1;
        memcpy(r + 8, &rank, 8);
        nshared++;
    }
    return nshared;
}

/* Pack the shared block (at the end after sorting) with each record's state. */
static void pack(const uint8_t *block, size_t nshared, uint8_t *buf)
{
    for (size_t i = 0; i < nshared; i++) {
        const uint8_t *r = block + i * cur.rec_size;
        uint8_t *e = buf + i * cur.elem;
        memcpy(e, r, cur.rec_size);
        const int64_t *v = (const int64_t *)(e + cur.head);
        const double *f = (const double *)(e + cur.head + 8 * cur.n_int);
        iolens_combine_acc acc;
        int64_t rank;
        memcpy(&rank, r + 8, 8);
        /* The state from the counters prepare() stored: time and bytes of the
         * fastest rank are this process's own. */
        int64_t tmp_ints[512];
        double tmp_flts[128];
        if (cur.n_int <= 512 && cur.n_flt <= 128) {
            memcpy(tmp_ints, v, 8 * cur.n_int);
            memcpy(tmp_flts, f, 8 * cur.n_flt);
            iolens_combine_prepare(cur.module, 0, tmp_ints, tmp_flts, &acc);
        } else {
            memset(&acc, 0, sizeof acc);
        }
        memcpy(e + cur.rec_size, &acc, sizeof acc);
    }
}

int iol_shared_reduce(const iol_shared *s, int module, uint8_t *recs, size_t rec_size,
                      size_t *count)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    if (!mi || mi->kind != IOLENS_KIND_COUNTERS || !s->n)
        return 0;
    size_t counters = 8 * (mi->n_int + mi->n_flt);
    int file_rec_id;
    size_t trailing;               /* DFS/DAOS uuids: equal on every process (the id
                                      is made from them), carried as they are */
    if (iolens_module_layout_extras(module, &file_rec_id, &trailing) != 0)
        return 0;
    size_t head = file_rec_id ? 24 : 16;
    if (rec_size != head + counters + trailing)
        return 0;
    cur = (rec_shape){ module, rec_size, mi->n_int, mi->n_flt,
                       rec_size + sizeof(iolens_combine_acc), head };
    size_t nshared = 0;            /* the same on every process: masks were ANDed */
    for (size_t i = 0; i < s->n; i++)
        nshared += (s->mask[i] >> module) & 1;
    if (!nshared)
        return 0;
    int rank;
    PMPI_Comm_rank(iol_mpi_comm, &rank);
    size_t found = prepare_shared(s, recs, *count);
    qsort(recs, *count, rec_size, cmp_rank_desc_id_asc);
    uint8_t *buf = malloc(nshared * cur.elem), *out = rank == 0 ? malloc(nshared * cur.elem) : NULL;
    int ok = found == nshared && buf && (rank != 0 || out);
    PMPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, iol_mpi_comm);
    if (!ok) {
        free(buf);
        free(out);
        return -1;
    }
    uint8_t *block = recs + (*count - nshared) * rec_size;
    pack(block, nshared, buf);
    MPI_Datatype type;
    MPI_Op op;
    PMPI_Type_contiguous((int)cur.elem, MPI_BYTE, &type);
    PMPI_Type_commit(&type);
    PMPI_Op_create(reduce_op, 1, &op);
    PMPI_Reduce(buf, out, (int)nshared, type, op, 0, iol_mpi_comm);
    PMPI_Op_free(&op);
    PMPI_Type_free(&type);
    if (rank == 0) {
        for (size_t i = 0; i < nshared; i++) {
            uint8_t *e = out + i * cur.elem;
            iolens_combine_finish(module, (int64_t *)(e + cur.head), (double *)(e + cur.head + 8 * cur.n_int),
                                  (iolens_combine_acc *)(e + rec_size));
            memcpy(block + i * rec_size, e, rec_size);
        }
    } else {
        *count -= nshared;
    }
    free(buf);
    free(out);
    return 0;
}
