/* Every kind of PnetCDF data call on one process, for exact PNETCDF_FILE and
 * PNETCDF_VAR counters (tests/mpi/test_mpi_pnetcdf.py states the expected
 * values and why).  Prints "sizes PUT GET" (ncmpi_inq_put_size/get_size just
 * before each close) and "waitfail RC" (the failed wait's return code).
 * usage: nc_kinds DIR */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>

static void check(int err, const char *what)
{
    if (err != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, ncmpi_strerror(err));
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void closing(int nc)
{
    MPI_Offset put = 0, get = 0;
    check(ncmpi_inq_put_size(nc, &put), "inq_put_size");
    check(ncmpi_inq_get_size(nc, &get), "inq_get_size");
    printf("sizes %lld %lld\n", (long long)put, (long long)get);
    check(ncmpi_close(nc), "close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    char path[4096];
    snprintf(path, sizeof path, "%s/kinds.nc", argc > 1 ? argv[1] : ".");
    int nc, drec, dx, dy, vrec, vfix, vscal;
    check(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER, MPI_INFO_NULL, &nc), "create");
    check(ncmpi_def_dim(nc, "rec", NC_UNLIMITED, &drec), "def_dim rec");
    check(ncmpi_def_dim(nc, "x", 4, &dx), "def_dim x");
    check(ncmpi_def_dim(nc, "y", 6, &dy), "def_dim y");
    int recdims[2] = {drec, dy}, fixdims[2] = {dx, dy};
    check(ncmpi_def_var(nc, "rec", NC_DOUBLE, 2, recdims, &vrec), "def_var rec");
    check(ncmpi_def_var(nc, "fixed", NC_INT, 2, fixdims, &vfix), "def_var fixed");
    check(ncmpi_def_var(nc, "scal", NC_SHORT, 0, NULL, &vscal), "def_var scal");
    check(ncmpi_enddef(nc), "enddef");

    static double dbuf[64];
    static int ibuf[64];
    short s = 7;
    /* the record variable: 3 records written, then all of it read */
    MPI_Offset r0[2] = {0, 0}, r3[2] = {3, 6};
    check(ncmpi_put_vara_double_all(nc, vrec, r0, r3, dbuf), "put_vara rec");
    check(ncmpi_get_var_double_all(nc, vrec, dbuf), "get_var rec");
    check(ncmpi_put_vara_short_all(nc, vscal, NULL, NULL, &s), "put_vara scal");

    /* blocking writes of "fixed" */
    MPI_Offset st0[2] = {0, 0}, c23[2] = {2, 3}, str22[2] = {2, 2}, c22[2] = {2, 2};
    check(ncmpi_put_var_int_all(nc, vfix, ibuf), "put_var");
    check(ncmpi_begin_indep_data(nc), "begin_indep");
    MPI_Offset one[2] = {1, 1};
    check(ncmpi_put_var1_int(nc, vfix, one, ibuf), "put_var1");
    check(ncmpi_end_indep_data(nc), "end_indep");
    check(ncmpi_put_vars_int_all(nc, vfix, st0, c23, str22, ibuf), "put_vars");
    check(ncmpi_put_varm_int_all(nc, vfix, st0, c22, NULL, NULL, ibuf), "put_varm");
    MPI_Offset n0[2] = {0, 0}, n1[2] = {2, 0}, nc0[2] = {1, 2}, nc1[2] = {1, 1};
    MPI_Offset *starts[2] = {n0, n1}, *counts[2] = {nc0, nc1};
    check(ncmpi_put_varn_int_all(nc, vfix, 2, starts, counts, ibuf), "put_varn");
    MPI_Datatype six;
    MPI_Type_contiguous(6, MPI_INT, &six);
    MPI_Type_commit(&six);
    check(ncmpi_put_vard_all(nc, vfix, six, ibuf, 6, MPI_INT), "put_vard");

    /* blocking reads */
    MPI_Offset row1[2] = {1, 0}, c16[2] = {1, 6}, c11[2] = {1, 1};
    check(ncmpi_begin_indep_data(nc), "begin_indep");
    check(ncmpi_get_vara_int(nc, vfix, row1, c16, ibuf), "get_vara");
    check(ncmpi_end_indep_data(nc), "end_indep");
    check(ncmpi_get_var1_int_all(nc, vfix, one, ibuf), "get_var1");
    check(ncmpi_get_vars_int_all(nc, vfix, st0, c22, NULL, ibuf), "get_vars");
    check(ncmpi_begin_indep_data(nc), "begin_indep");
    check(ncmpi_get_varm_int(nc, vfix, st0, c11, c11, c11, ibuf), "get_varm");
    check(ncmpi_end_indep_data(nc), "end_indep");
    MPI_Offset *points[2] = {n0, n1};
    check(ncmpi_get_varn_int_all(nc, vfix, 2, points, NULL, ibuf), "get_varn");
    check(ncmpi_get_vard_all(nc, vfix, six, ibuf, 6, MPI_INT), "get_vard");
    check(ncmpi_get_var_int_all(nc, vfix, ibuf), "get_var");

    /* nonblocking: posted, then waited for collectively */
    static int ib2[64], ib3[64];
    MPI_Offset row2[2] = {2, 0}, c15[2] = {1, 5}, c13[2] = {1, 3}, str12[2] = {1, 2};
    MPI_Offset p33[2] = {3, 3};
    int req[3], stat[3];
    check(ncmpi_buffer_attach(nc, 1024), "buffer_attach");
    check(ncmpi_iput_vara_int(nc, vfix, row2, c15, ib2, &req[0]), "iput_vara");
    check(ncmpi_bput_var1_int(nc, vfix, p33, ib2, &req[1]), "bput_var1");
    check(ncmpi_iget_vars_int(nc, vfix, st0, c13, str12, ib3, &req[2]), "iget_vars");
    check(ncmpi_wait_all(nc, 3, req, stat), "wait_all");
    /* one more, waited for independently */
    check(ncmpi_iget_var1_int(nc, vfix, one, ib3, &req[0]), "iget_var1");
    check(ncmpi_begin_indep_data(nc), "begin_indep");
    check(ncmpi_wait(nc, 1, req, stat), "wait");
    check(ncmpi_end_indep_data(nc), "end_indep");
    /* a wait that fails: a request id that was never posted */
    int bogus = 12345;
    printf("waitfail %d\n", ncmpi_wait_all(nc, 1, &bogus, stat));
    check(ncmpi_buffer_detach(nc), "buffer_detach");
    MPI_Type_free(&six);
    closing(nc);

    /* reopen: a lookup, a redefinition, a sync */
    check(ncmpi_open(MPI_COMM_WORLD, path, NC_WRITE, MPI_INFO_NULL, &nc), "open");
    check(ncmpi_inq_varid(nc, "fixed", &vfix), "inq_varid");
    check(ncmpi_redef(nc), "redef");
    check(ncmpi_enddef(nc), "enddef");
    check(ncmpi_sync(nc), "sync");
    closing(nc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
