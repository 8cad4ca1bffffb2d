/* DAOS access patterns that `iolens diagnose` has a rule for, each with its fixed
 * form, for tests/daos/test_daos_diagnose.py (run through the DAOS emulation).
 *
 * usage: daos_patterns ROOT MODE
 *   ROOT  an emulation root with a pool directory "pool0"
 *   MODE  dfs-small     512 dfs_writes of 1 KiB to /small, then 512 dfs_reads of 1 KiB
 *         dfs-large     the same 512 KiB... as 4 dfs_writes and 4 dfs_reads of 2 MiB
 *         daos-small    512 daos_array_writes of 128 cells of 8 bytes, 512 reads of them
 *         daos-large    4 daos_array_writes and reads of 262,144 cells (2 MiB)
 *         dfs-reopen    200 times: dfs_open /log, one 100-byte write at its end, release
 *         dfs-once      /log opened once, the same 200 writes, released
 *         daos-reopen   200 times: daos_kv_open of one KV object, one 32-byte put, close
 *         daos-once     the KV object opened once, the same 200 puts, closed
 * Exits 0 when every call succeeded; prints the failures. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <daos.h>
#include <daos_fs.h>

#define BIG (2 << 20)
static int failures;
static daos_handle_t poh, coh;
static dfs_t *dfs;
static char buf[BIG];

static void expect(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "daos_patterns: %s failed\n", what);
        failures++;
    }
}

/* n writes then n reads of len bytes at consecutive offsets of a new DFS file. */
static void dfs_stream(int n, size_t len)
{
    dfs_obj_t *obj;
    d_iov_t iov;
    d_sg_list_t sgl = {1, 0, &iov};
    daos_size_t got;
    expect(dfs_open(dfs, NULL, "small", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
           "dfs_open");
    d_iov_set(&iov, buf, len);
    for (int i = 0; i < n; i++)
        expect(dfs_write(dfs, obj, &sgl, (daos_off_t)i * len, NULL) == 0, "dfs_write");
    for (int i = 0; i < n; i++)
        expect(dfs_read(dfs, obj, &sgl, (daos_off_t)i * len, &got, NULL) == 0 && got == len,
               "dfs_read");
    expect(dfs_release(obj) == 0, "dfs_release");
}

/* n writes then n reads of `cells` 8-byte cells of a new DAOS array. */
static void array_stream(int n, daos_size_t cells)
{
    daos_handle_t oh;
    daos_obj_id_t oid = {.lo = 7, .hi = 0};
    daos_range_t rg = {0, cells};
    daos_array_iod_t iod = {1, &rg, 0, 0};
    d_iov_t iov;
    d_sg_list_t sgl = {1, 0, &iov};
    expect(daos_obj_generate_oid(coh, &oid, DAOS_OT_ARRAY, OC_SX, 0, 0) == 0, "generate_oid");
    expect(daos_array_create(coh, oid, DAOS_TX_NONE, 8, 1 << 20, &oh, NULL) == 0, "array_create");
    d_iov_set(&iov, buf, cells * 8);
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < n; i++) {
            rg.rg_idx = (daos_off_t)i * cells;
            int rc = pass ? daos_array_read(oh, DAOS_TX_NONE, &iod, &sgl, NULL)
                          : daos_array_write(oh, DAOS_TX_NONE, &iod, &sgl, NULL);
            expect(rc == 0, pass ? "array_read" : "array_write");
        }
    expect(daos_array_close(oh, NULL) == 0, "array_close");
}

/* 200 appends of 100 bytes to /log, opening it for each one or once. */
static void dfs_appends(int reopen)
{
    dfs_obj_t *obj = NULL;
    d_iov_t iov;
    d_sg_list_t sgl = {1, 0, &iov};
    d_iov_set(&iov, buf, 100);
    for (int i = 0; i < 200; i++) {
        if (reopen || i == 0)
            expect(dfs_open(dfs, NULL, "log", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL,
                            &obj) == 0, "dfs_open log");
        expect(dfs_write(dfs, obj, &sgl, (daos_off_t)i * 100, NULL) == 0, "dfs_write log");
        if (reopen || i == 199)
            expect(dfs_release(obj) == 0, "dfs_release log");
    }
}

/* 200 puts of 32 bytes into one KV object, opening it for each one or once. */
static void kv_puts(int reopen)
{
    daos_handle_t oh;
    daos_obj_id_t oid = {.lo = 8, .hi = 0};
    char key[16];
    expect(daos_obj_generate_oid(coh, &oid, DAOS_OT_KV_HASHED, OC_SX, 0, 0) == 0, "generate_oid");
    for (int i = 0; i < 200; i++) {
        if (reopen || i == 0)
            expect(daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0, "kv_open");
        snprintf(key, sizeof key, "k%d", i);
        expect(daos_kv_put(oh, DAOS_TX_NONE, 0, key, 32, buf, NULL) == 0, "kv_put");
        if (reopen || i == 199)
            expect(daos_kv_close(oh, NULL) == 0, "kv_close");
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: daos_patterns ROOT MODE\n");
        return 2;
    }
    const char *mode = argv[2];
    setenv("IOLENS_DAOS_EMU_ROOT", argv[1], 1);
    expect(daos_init() == 0, "daos_init");
    expect(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, NULL, NULL) == 0, "pool_connect");
    daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL);   /* may exist already */
    expect(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, NULL, NULL) == 0, "cont_open");
    expect(dfs_mount(poh, coh, O_RDWR, &dfs) == 0, "dfs_mount");
    if (!strcmp(mode, "dfs-small"))
        dfs_stream(512, 1024);
    else if (!strcmp(mode, "dfs-large"))
        dfs_stream(4, BIG);
    else if (!strcmp(mode, "daos-small"))
        array_stream(512, 128);
    else if (!strcmp(mode, "daos-large"))
        array_stream(4, BIG / 8);
    else if (!strcmp(mode, "dfs-reopen") || !strcmp(mode, "dfs-once"))
        dfs_appends(!strcmp(mode, "dfs-reopen"));
    else if (!strcmp(mode, "daos-reopen") || !strcmp(mode, "daos-once"))
        kv_puts(!strcmp(mode, "daos-reopen"));
    else {
        fprintf(stderr, "daos_patterns: unknown mode %s\n", mode);
        failures++;
    }
    expect(dfs_umount(dfs) == 0, "dfs_umount");
    expect(daos_cont_close(coh, NULL) == 0, "cont_close");
    expect(daos_pool_disconnect(poh, NULL) == 0, "pool_disconnect");
    expect(daos_fini() == 0, "daos_fini");
    return failures ? 1 : 0;
}
