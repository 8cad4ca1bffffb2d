/* The module table as the module contract (issue 27): what each counter measures
 * (iolens_counter_unit's naming rule) and each record's size, from the tables. */
#include <string.h>
#include "iolens/log.h"
#include "check.h"

static int unit_of(int module, const char *name)
{
    const iolens_module_info *mi = iolens_module_info_get(module);
    for (size_t k = 0; k < mi->n_int; k++)
        if (!strcmp(mi->int_names[k], name))
            return iolens_counter_unit(mi, 0, k);
    for (size_t k = 0; k < mi->n_flt; k++)
        if (!strcmp(mi->flt_names[k], name))
            return iolens_counter_unit(mi, 1, k);
    return -1;
}

int main(void)
{
    static const struct { int module; const char *name; int unit; } cases[] = {
        {IOL_MOD_POSIX, "POSIX_OPENS", IOLENS_UNIT_COUNT},
        {IOL_MOD_POSIX, "POSIX_SIZE_READ_0_100", IOLENS_UNIT_COUNT},
        {IOL_MOD_POSIX, "POSIX_ACCESS1_COUNT", IOLENS_UNIT_COUNT},
        {IOL_MOD_POSIX, "POSIX_BYTES_READ", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_MAX_READ_TIME_SIZE", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_ACCESS1_ACCESS", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_STRIDE2_STRIDE", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_FILE_ALIGNMENT", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_SLOWEST_RANK_BYTES", IOLENS_UNIT_BYTES},
        {IOL_MOD_POSIX, "POSIX_MAX_BYTE_WRITTEN", IOLENS_UNIT_OFFSET},
        {IOL_MOD_POSIX, "POSIX_SLOWEST_RANK", IOLENS_UNIT_RANK},
        {IOL_MOD_POSIX, "POSIX_RENAMED_FROM", IOLENS_UNIT_ID},
        {IOL_MOD_POSIX, "POSIX_MODE", IOLENS_UNIT_OTHER},
        {IOL_MOD_POSIX, "POSIX_F_READ_TIME", IOLENS_UNIT_SECONDS},
        {IOL_MOD_POSIX, "POSIX_F_MAX_WRITE_TIME", IOLENS_UNIT_SECONDS},
        {IOL_MOD_POSIX, "POSIX_F_SLOWEST_RANK_TIME", IOLENS_UNIT_SECONDS},
        {IOL_MOD_POSIX, "POSIX_F_OPEN_START_TIMESTAMP", IOLENS_UNIT_TIMESTAMP},
        {IOL_MOD_POSIX, "POSIX_F_VARIANCE_RANK_TIME", IOLENS_UNIT_VARIANCE},
        {IOL_MOD_MPIIO, "MPIIO_F_META_TIME", IOLENS_UNIT_SECONDS},
        {IOL_MOD_STDIO, "STDIO_BYTES_WRITTEN", IOLENS_UNIT_BYTES},
        {IOL_MOD_H5D, "H5D_DATASPACE_NDIMS", IOLENS_UNIT_OTHER},
        {IOL_MOD_H5D, "H5D_DATATYPE_SIZE", IOLENS_UNIT_BYTES},
        {IOL_MOD_H5D, "H5D_ACCESS1_LENGTH_D2", IOLENS_UNIT_OTHER},
        {IOL_MOD_H5D, "H5D_CHUNK_SIZE_D1", IOLENS_UNIT_OTHER},
        {IOL_MOD_H5D, "H5D_ACCESS1_COUNT", IOLENS_UNIT_COUNT},
        {IOL_MOD_DAOS, "DAOS_OBJ_OTYPE", IOLENS_UNIT_OTHER},
        {IOL_MOD_MDHIM, "MDHIM_F_PUT_MAX_DURATION", IOLENS_UNIT_SECONDS},
        {IOL_MOD_PNETCDF_FILE, "PNETCDF_FILE_F_WAIT_TIME", IOLENS_UNIT_SECONDS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECK(unit_of(cases[i].module, cases[i].name) == cases[i].unit, "%s is %s, not %s",
              cases[i].name, iolens_unit_name(cases[i].unit),
              iolens_unit_name(unit_of(cases[i].module, cases[i].name)));
    CHECK(strcmp(iolens_unit_name(IOLENS_UNIT_TIMESTAMP), "timestamp") == 0 &&
          strcmp(iolens_unit_name(99), "other") == 0, "unit names");

    /* Every float counter whose name says time is a time: no table escapes the rule. */
    for (int id = 0; id < IOL_MOD_COUNT_KNOWN; id++) {
        const iolens_module_info *mi = iolens_module_info_get(id);
        if (!mi)
            continue;   /* an unassigned id between upstream's and ours */
        for (size_t k = 0; k < mi->n_flt; k++)
            CHECK(!strstr(mi->flt_names[k], "TIME") ||
                  iolens_counter_unit(mi, 1, k) != IOLENS_UNIT_OTHER, "%s", mi->flt_names[k]);
    }

    /* Record sizes: upstream's, and derived from the table where no row states them. */
    static const struct { int module; size_t size; } sizes[] = {
        {IOL_MOD_NULL, 48},   {IOL_MOD_POSIX, 704}, {IOL_MOD_MPIIO, 560}, {IOL_MOD_H5F, 80},
        {IOL_MOD_H5D, 912},   {IOL_MOD_PNETCDF_FILE, 152}, {IOL_MOD_PNETCDF_VAR, 1120},
        {IOL_MOD_BGQ, 112},   {IOL_MOD_STDIO, 248}, {IOL_MOD_MDHIM, 96}, {IOL_MOD_DFS, 584},
        {IOL_MOD_DAOS, 696},  {IOL_MOD_LUSTRE, 0},  {IOL_MOD_DXT_POSIX, 0}, {IOL_MOD_HEATMAP, 0},
    };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        CHECK(iolens_module_record_size(sizes[i].module) == sizes[i].size, "module %d: %zu",
              sizes[i].module, iolens_module_record_size(sizes[i].module));
    return check_result("test_counter_units");
}
