/* A serial HDF5 program for tests/runtime/test_runtime_hdf5.py.
 * usage: h5_serial DIR MODE
 *   hdf5: a file with a 2-D dataset of ints (deprecated H5Dcreate1), written whole,
 *         then 4 row blocks with hyperslabs, flushed, reopened with H5Dopen2 and
 *         read back with a point selection, the file flushed through the dataset id
 *   posix: only POSIX I/O (the program still links HDF5; it never calls it)
 *   maps: print the lines of /proc/self/maps that name an HDF5 library */
#include <hdf5.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ROWS 8
#define COLS 16

static int hdf5(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/s.h5", dir);
    static int buf[ROWS * COLS];
    hid_t f = H5Fcreate(p, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    hsize_t dims[2] = {ROWS, COLS};
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t d = H5Dcreate1(f, "grid", H5T_NATIVE_INT, space, H5P_DEFAULT);
    if (f < 0 || d < 0 || H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)
        return 1;
    for (int r = 0; r < ROWS; r += 2) {
        hsize_t start[2] = {(hsize_t)r, 0}, count[2] = {2, COLS};
        hid_t fs = H5Dget_space(d), ms = H5Screate_simple(2, count, NULL);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        if (H5Dwrite(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) < 0)
            return 1;
        H5Sclose(ms);
        H5Sclose(fs);
    }
    H5Dflush(d);
    H5Dclose(d);
    d = H5Dopen2(f, "grid", H5P_DEFAULT);
    hsize_t pts[3][2] = {{0, 0}, {1, 1}, {2, 2}}, three = 3;
    hid_t fs = H5Dget_space(d), ms = H5Screate_simple(1, &three, NULL);
    H5Sselect_elements(fs, H5S_SELECT_SET, 3, &pts[0][0]);
    if (H5Dread(d, H5T_NATIVE_INT, ms, fs, H5P_DEFAULT, buf) < 0)
        return 1;
    H5Sclose(ms);
    H5Sclose(fs);
    H5Fflush(d, H5F_SCOPE_GLOBAL);
    H5Dclose(d);
    H5Sclose(space);
    return H5Fclose(f) < 0;
}

static int posix(const char *dir)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/plain.dat", dir);
    int fd = open(p, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    return fd < 0 || write(fd, "abc", 3) != 3 || close(fd) != 0;
}

static int maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f && fgets(line, sizeof line, f))
        if (strstr(line, "hdf5"))
            fputs(line, stdout);
    return f ? fclose(f) : 1;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    if (!strcmp(argv[2], "hdf5"))
        return hdf5(argv[1]);
    if (!strcmp(argv[2], "posix"))
        return posix(argv[1]);
    if (!strcmp(argv[2], "maps"))
        return maps();
    return 2;
}
