/* Module table: ids, names, versions and counter tables come from the .def files. */
#include <string.h>
#include "iolens/log.h"
#include "check.h"

int main(void)
{
    const iolens_module_info *p = iolens_module_info_get(IOL_MOD_POSIX);
    CHECK(p && strcmp(p->name, "POSIX") == 0 && p->version == 4, "POSIX entry");
    CHECK(p && p->n_int == POSIX_NUM_INDICES && p->n_flt == POSIX_F_NUM_INDICES,
          "POSIX counts %zu/%zu", p ? p->n_int : 0, p ? p->n_flt : 0);
    CHECK(p && strcmp(p->int_names[0], "POSIX_OPENS") == 0, "first POSIX counter");
    CHECK(p && p->int_names[p->n_int] == NULL && p->flt_names[p->n_flt] == NULL, "sentinels");
    CHECK(p && p->int_desc[0] && p->int_desc[0][0], "descriptions present");
    CHECK(p && p->int_combine[0] == IOL_COMBINE_SUM, "POSIX_OPENS combines by SUM");
    const iolens_module_info *m = iolens_module_info_get(IOL_MOD_MPIIO);
    CHECK(m && strcmp(m->name, "MPI-IO") == 0, "MPI-IO printed name");
    CHECK(iolens_module_id("MPI-IO") == IOL_MOD_MPIIO && iolens_module_id("MPIIO") == IOL_MOD_MPIIO,
          "lookup by name and symbol");
    CHECK(iolens_module_id("BG/Q") == IOL_MOD_BGQ, "BG/Q");
    CHECK(iolens_module_id("nonsense") == -1, "unknown name");
    CHECK(iolens_module_info_get(IOL_MOD_COUNT_KNOWN) == NULL && iolens_module_info_get(-1) == NULL &&
          iolens_module_info_get(64) == NULL, "unassigned ids");
    const iolens_module_info *d = iolens_module_info_get(IOL_MOD_DXT_POSIX);
    CHECK(d && d->kind == IOLENS_KIND_DXT && d->n_int == 0, "DXT has no counters");
    const iolens_module_info *l = iolens_module_info_get(IOL_MOD_LUSTRE);
    CHECK(l && l->kind == IOLENS_KIND_LUSTRE && l->n_int == LUSTRE_COMP_NUM_INDICES,
          "LUSTRE exposes its component counters");
    const iolens_module_info *h = iolens_module_info_get(IOL_MOD_H5D);
    CHECK(h && h->n_int == H5D_NUM_INDICES && h->n_flt == H5D_F_NUM_INDICES, "H5D counts");
    /* Every assigned id has an entry whose id field matches, a symbol that
     * looks the module up, and a role. */
    for (int i = 0; i < IOL_MOD_COUNT_KNOWN; i++) {
        const iolens_module_info *e = iolens_module_info_get(i);
        if (!e && i > IOL_MOD_DAOS && i < IOL_MOD_REGION)
            continue;   /* between upstream's ids and ours: unassigned */
        CHECK(e && e->id == i && e->version >= 1, "module %d entry", i);
        CHECK(e && e->symbol && iolens_module_id(e->symbol) == i, "module %d symbol", i);
        CHECK(e && e->role >= IOLENS_ROLE_NONE && e->role <= IOLENS_ROLE_PHASE, "module %d role", i);
    }
    CHECK(iolens_module_info_get(IOL_MOD_STDIO)->role == IOLENS_ROLE_IO &&
          iolens_module_info_get(IOL_MOD_DXT_MPIIO)->role == IOLENS_ROLE_TRACE &&
          iolens_module_info_get(IOL_MOD_HEATMAP)->role == IOLENS_ROLE_HEATMAP &&
          iolens_module_info_get(IOL_MOD_LUSTRE)->role == IOLENS_ROLE_LAYOUT &&
          iolens_module_info_get(IOL_MOD_BGQ)->role == IOLENS_ROLE_PLATFORM &&
          iolens_module_info_get(IOL_MOD_REGION)->role == IOLENS_ROLE_PHASE, "roles");
    CHECK(strcmp(iolens_module_info_get(IOL_MOD_BGQ)->symbol, "BGQ") == 0, "BG/Q symbol");
    /* modules.def's layer, depth and runtime columns: a module has a depth in the
     * I/O stack exactly when it has a layer; MPI-IO sits above POSIX. */
    for (int i = 0; i < IOL_MOD_COUNT_KNOWN; i++) {
        const iolens_module_info *e = iolens_module_info_get(i);
        if (!e && i > IOL_MOD_DAOS && i < IOL_MOD_REGION)
            continue;   /* unassigned */
        CHECK(e && (e->depth > 0) == (e->layer != IOLENS_LAYER_NONE), "module %d depth", i);
    }
    const iolens_module_info *mpiio = iolens_module_info_get(IOL_MOD_MPIIO);
    const iolens_module_info *posix = iolens_module_info_get(IOL_MOD_POSIX);
    CHECK(mpiio->layer == IOLENS_LAYER_MIDDLEWARE && posix->layer == IOLENS_LAYER_FILESYSTEM &&
          mpiio->depth < posix->depth, "layers");
    CHECK(mpiio->runtime == IOLENS_RUNTIME_MPI && posix->runtime == IOLENS_RUNTIME_LIB &&
          iolens_module_info_get(IOL_MOD_DAOS)->runtime == IOLENS_RUNTIME_LIB &&
          iolens_module_info_get(IOL_MOD_MDHIM)->runtime == IOLENS_RUNTIME_NONE, "runtime column");
    CHECK(IOL_MOD_POSIX_VERSION == 4 && IOL_MOD_DXT_MPIIO_VERSION == 2, "written versions");
    CHECK(strcmp(iolens_strerror(IOLENS_E_TRUNCATED), "truncated log") == 0, "strerror");
    CHECK(iolens_strerror(-999) != NULL, "strerror of an unknown code");
    return check_result("test_modules");
}
