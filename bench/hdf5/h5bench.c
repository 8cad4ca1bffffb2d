/* Cost of the H5D wrappers (bench/hdf5/run.py): N H5Dwrite and N H5Dread calls of
 * one 64-byte row each, selected as a hyperslab of a 2-D dataset of a serial HDF5
 * file.  Prints "write NS" and "read NS": wall ns per call of each loop.
 * usage: h5bench DIR N */
#include <hdf5.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define COLS 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void bench_write(hid_t d, hid_t fs, hid_t ms, int n,
                                                  const double *buf)
{
    for (int i = 0; i < n; i++) {
        hsize_t start[2] = {(hsize_t)i, 0}, count[2] = {1, COLS};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dwrite(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    }
}

__attribute__((noinline)) static void bench_read(hid_t d, hid_t fs, hid_t ms, int n, double *buf)
{
    for (int i = 0; i < n; i++) {
        hsize_t start[2] = {(hsize_t)i, 0}, count[2] = {1, COLS};
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        H5Dread(d, H5T_NATIVE_DOUBLE, ms, fs, H5P_DEFAULT, buf);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = atoi(argv[2]);
    char path[4096];
    snprintf(path, sizeof path, "%s/bench.h5", argv[1]);
    double buf[COLS] = {0};
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {(hsize_t)n, COLS}, row[2] = {1, COLS};
    hid_t space = H5Screate_simple(2, dims, NULL), ms = H5Screate_simple(2, row, NULL);
    hid_t d = H5Dcreate2(f, "d", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t fs = H5Dget_space(d);
    double t = now();
    bench_write(d, fs, ms, n, buf);
    printf("write %.1f\n", (now() - t) * 1e9 / n);
    t = now();
    bench_read(d, fs, ms, n, buf);
    printf("read %.1f\n", (now() - t) * 1e9 / n);
    H5Sclose(fs);
    H5Sclose(ms);
    H5Sclose(space);
    H5Dclose(d);
    return H5Fclose(f) < 0;
}
