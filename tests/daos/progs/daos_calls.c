/* Makes every call group of the DFS and DAOS modules through the DAOS emulation
 * (tests/daos_emu), a known number of times with known sizes, and checks each
 * return value, so that the test (tests/daos/test_daos_runtime.py) can compare
 * the log's counters with what was done.
 *
 * usage: daos_calls ROOT MODE
 *   ROOT  an emulation root with a pool directory "pool0" (IOLENS_DAOS_EMU_ROOT is
 *         set from it); container "cont0" is made when missing
 *   MODE  dfs      the DFS calls (files /data and /gone)
 *         daos     the object, array and key-value calls
 *         threads  4 threads, each writing 8 x 4096 bytes to its own DFS file /t<i>
 *         fork     DFS writes of 100 bytes to /parent before and /child in a child
 *         kill     /data written as in dfs mode, then the process kills itself (SIGKILL)
 *         async    calls given an event: DFS /adata 2 writes of 200, 1 read of 100;
 *                  KV object 4 opened, 2 puts of 32, 1 get, closed; array object 5
 *                  (cell 8) 1 write and 1 read of 16 cells, 1 get_size
 *         refused  under IOLENS_DAOS_EMU_REFUSE_LAUNCH=1: object 7 (64-byte values),
 *                  an update of 32 given an event is refused at launch; the same
 *                  event then takes an update of 64 that completes
 *         mpi      (built with -DDAOS_CALLS_MPI, under mpiexec) every rank writes
 *                  4 x 1000 bytes to /shared at its own offsets and 100 bytes to
 *                  /r<rank>
 * Exits 0 when every call returned what DAOS documents; prints the failures. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <daos.h>
#include <daos_fs.h>
#ifdef DAOS_CALLS_MPI
#include <mpi.h>
#endif

static int failures;
#define EXPECT(cond, what)                                                           \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "daos_calls: %s failed (line %d)\n", what, __LINE__);     \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static daos_handle_t poh, coh;
static dfs_t *dfs;
static char buf[1 << 16];

static void sgl_of(d_sg_list_t *sgl, d_iov_t *iov, size_t len)
{
    d_iov_set(iov, buf, len);
    *sgl = (d_sg_list_t){1, 0, iov};
}

static void connect_all(const char *root)
{
    setenv("IOLENS_DAOS_EMU_ROOT", root, 1);
    EXPECT(daos_init() == 0, "daos_init");
    EXPECT(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, NULL, NULL) == 0, "pool_connect");
    daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL);   /* may exist already */
    EXPECT(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, NULL, NULL) == 0, "cont_open");
    EXPECT(dfs_mount(poh, coh, O_RDWR, &dfs) == 0, "dfs_mount");
}

static void disconnect_all(void)
{
    EXPECT(dfs_umount(dfs) == 0, "dfs_umount");
    EXPECT(daos_cont_close(coh, NULL) == 0, "cont_close");
    EXPECT(daos_pool_disconnect(poh, NULL) == 0, "pool_disconnect");
    EXPECT(daos_fini() == 0, "daos_fini");
}

/* n writes of len bytes at consecutive offsets into a new file `name`. */
static void dfs_write_file(const char *name, int n, size_t len)
{
    dfs_obj_t *obj;
    d_sg_list_t sgl;
    d_iov_t iov;
    EXPECT(dfs_open(dfs, NULL, name, S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
           "dfs_open create");
    sgl_of(&sgl, &iov, len);
    for (int i = 0; i < n; i++)
        EXPECT(dfs_write(dfs, obj, &sgl, (daos_off_t)i * len, NULL) == 0, "dfs_write");
    EXPECT(dfs_release(obj) == 0, "dfs_release");
}

/* /data: 3 writes of 1000, 2 reads of 500, 1 writex of 2 x 10, 1 readx of 2 x 10,
 * get_size, punch, ostat, stat by name (not counted), osetattr, dup + release, lookup + release,
 * lookup_rel from the root; /gone: written once, removed. */
static void dfs_mode(void)
{
    dfs_obj_t *obj, *dup, *found, *root, *rel;
    d_sg_list_t sgl;
    d_iov_t iov;
    daos_size_t got = 0, size = 0;
    struct stat st;
    EXPECT(dfs_open(dfs, NULL, "data", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
           "open data");
    sgl_of(&sgl, &iov, 1000);
    for (int i = 0; i < 3; i++)
        EXPECT(dfs_write(dfs, obj, &sgl, (daos_off_t)i * 1000, NULL) == 0, "write");
    sgl_of(&sgl, &iov, 500);
    for (int i = 0; i < 2; i++)
        EXPECT(dfs_read(dfs, obj, &sgl, (daos_off_t)i * 500, &got, NULL) == 0 && got == 500, "read");
    daos_range_t rgs[2] = {{0, 10}, {100, 10}};
    dfs_iod_t iod = {2, rgs};
    sgl_of(&sgl, &iov, 20);
    EXPECT(dfs_writex(dfs, obj, &iod, &sgl, NULL) == 0, "writex");
    EXPECT(dfs_readx(dfs, obj, &iod, &sgl, &got, NULL) == 0 && got == 20, "readx");
    EXPECT(dfs_get_size(dfs, obj, &size) == 0 && size == 3000, "get_size");
    EXPECT(dfs_punch(dfs, obj, 2500, 500) == 0, "punch");
    EXPECT(dfs_ostat(dfs, obj, &st) == 0 && st.st_size == 2500, "ostat");
    /* not counted: upstream 3.5.0's dfs_stat wrapper is compiled out (#if 0) */
    EXPECT(dfs_stat(dfs, NULL, "data", &st) == 0 && st.st_size == 2500, "stat by name");
    st.st_mode = S_IFREG | 0600;
    EXPECT(dfs_osetattr(dfs, obj, &st, DFS_SET_ATTR_MODE) == 0, "osetattr");
    EXPECT(dfs_dup(dfs, obj, O_RDWR, &dup) == 0 && dfs_release(dup) == 0, "dup + release");
    EXPECT(dfs_release(obj) == 0, "release");
    EXPECT(dfs_lookup(dfs, "/data", O_RDWR, &found, NULL, NULL) == 0, "lookup");
    EXPECT(dfs_get_size(dfs, found, &size) == 0 && size == 2500, "get_size after punch");
    EXPECT(dfs_release(found) == 0, "release lookup");
    EXPECT(dfs_lookup(dfs, "/", O_RDWR, &root, NULL, NULL) == 0, "lookup root");
    EXPECT(dfs_lookup_rel(dfs, root, "data", O_RDONLY, &rel, NULL, NULL) == 0, "lookup_rel");
    EXPECT(dfs_release(rel) == 0 && dfs_release(root) == 0, "release rel + root");
    dfs_write_file("gone", 1, 100);
    EXPECT(dfs_remove(dfs, NULL, "gone", false, NULL) == 0, "remove");
    EXPECT(dfs_open(dfs, NULL, "nope", S_IFREG, O_RDWR, 0, 0, NULL, &obj) == ENOENT,
           "open a missing file fails");
}

/* Room for listing up to 4 keys. */
struct key_list {
    uint32_t nr;
    daos_key_desc_t kds[4];
    daos_anchor_t anchor;
    char buf[256];
    d_iov_t iov;
    d_sg_list_t sgl;
};

static uint32_t *key_list_init(struct key_list *kl)
{
    memset(kl, 0, sizeof *kl);
    kl->nr = 4;
    d_iov_set(&kl->iov, kl->buf, sizeof kl->buf);
    kl->sgl = (d_sg_list_t){1, 0, &kl->iov};
    return &kl->nr;
}

static daos_obj_id_t new_oid(uint64_t lo, enum daos_otype_t type)
{
    daos_obj_id_t oid = {.lo = lo, .hi = 0};
    EXPECT(daos_obj_generate_oid(coh, &oid, type, OC_SX, 0, 0) == 0, "generate_oid");
    return oid;
}

/* Object 1: 2 updates of 64 (single values), 1 fetch of 64, 1 list_dkey,
 * 1 punch_akeys, 1 punch_dkeys.  Array 2 (cell 8, chunk 1 MiB): 2 writes of 16
 * cells, 1 read of 16, get_size, set_size, stat, punch; reopened with
 * daos_array_open.  KV 3: 3 puts of 32, 2 gets, 1 list, 1 remove. */
static void objects(void)
{
    daos_handle_t oh;
    daos_key_t dkey, akey;
    daos_iod_t iod;
    d_sg_list_t sgl;
    d_iov_t iov;
    daos_obj_id_t oid = new_oid(1, DAOS_OT_MULTI_HASHED);
    EXPECT(daos_obj_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0, "obj_open");
    d_iov_set(&dkey, "dk", 2);
    d_iov_set(&akey, "ak", 2);
    memset(&iod, 0, sizeof iod);
    iod.iod_name = akey;
    iod.iod_type = DAOS_IOD_SINGLE;
    iod.iod_size = 64;
    iod.iod_nr = 1;
    sgl_of(&sgl, &iov, 64);
    for (int i = 0; i < 2; i++)
        EXPECT(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL) == 0, "update");
    EXPECT(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL, NULL) == 0, "fetch");
    struct key_list kl;
    EXPECT(daos_obj_list_dkey(oh, DAOS_TX_NONE, key_list_init(&kl), kl.kds, &kl.sgl, &kl.anchor,
                              NULL) == 0, "list_dkey");
    EXPECT(daos_obj_punch_akeys(oh, DAOS_TX_NONE, 0, &dkey, 1, &akey, NULL) == 0, "punch_akeys");
    EXPECT(daos_obj_punch_dkeys(oh, DAOS_TX_NONE, 0, 1, &dkey, NULL) == 0, "punch_dkeys");
    EXPECT(daos_obj_close(oh, NULL) == 0, "obj_close");
}

static void arrays(void)
{
    daos_handle_t oh;
    daos_size_t cell = 0, chunk = 0, size = 0;
    daos_range_t rg = {0, 16};
    daos_array_iod_t iod = {1, &rg, 0, 0};
    d_sg_list_t sgl;
    d_iov_t iov;
    daos_array_stbuf_t stbuf;
    daos_obj_id_t oid = new_oid(2, DAOS_OT_ARRAY);
    EXPECT(daos_array_create(coh, oid, DAOS_TX_NONE, 8, 1 << 20, &oh, NULL) == 0, "array_create");
    sgl_of(&sgl, &iov, 16 * 8);
    EXPECT(daos_array_write(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == 0, "array_write");
    rg.rg_idx = 16;
    EXPECT(daos_array_write(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == 0, "array_write 2");
    EXPECT(daos_array_close(oh, NULL) == 0, "array_close");
    EXPECT(daos_array_open(coh, oid, DAOS_TX_NONE, DAOS_OO_RW, &cell, &chunk, &oh, NULL) == 0 &&
           cell == 8 && chunk == 1 << 20, "array_open");
    rg.rg_idx = 0;
    EXPECT(daos_array_read(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == 0, "array_read");
    EXPECT(daos_array_get_size(oh, DAOS_TX_NONE, &size, NULL) == 0 && size == 32, "get_size");
    EXPECT(daos_array_set_size(oh, DAOS_TX_NONE, 24, NULL) == 0, "set_size");
    EXPECT(daos_array_stat(oh, DAOS_TX_NONE, &stbuf, NULL) == 0, "array_stat");
    rg = (daos_range_t){0, 4};
    EXPECT(daos_array_punch(oh, DAOS_TX_NONE, &iod, NULL) == 0, "array_punch");
    EXPECT(daos_array_close(oh, NULL) == 0, "array_close 2");
}

static void kvs(void)
{
    daos_handle_t oh;
    daos_size_t size;
    daos_obj_id_t oid = new_oid(3, DAOS_OT_KV_HASHED);
    EXPECT(daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0, "kv_open");
    const char *keys[3] = {"a", "b", "c"};
    for (int i = 0; i < 3; i++)
        EXPECT(daos_kv_put(oh, DAOS_TX_NONE, 0, keys[i], 32, buf, NULL) == 0, "kv_put");
    for (int i = 0; i < 2; i++) {
        size = sizeof buf;
        EXPECT(daos_kv_get(oh, DAOS_TX_NONE, 0, keys[i], &size, buf, NULL) == 0 && size == 32,
               "kv_get");
    }
    struct key_list kl;
    EXPECT(daos_kv_list(oh, DAOS_TX_NONE, key_list_init(&kl), kl.kds, &kl.sgl, &kl.anchor,
                        NULL) == 0, "kv_list");
    EXPECT(daos_kv_remove(oh, DAOS_TX_NONE, 0, "c", NULL) == 0, "kv_remove");
    EXPECT(daos_kv_close(oh, NULL) == 0, "kv_close");
}

static daos_handle_t eqh;
static daos_event_t ev;

/* A fresh event for the next call (the previous one polled and finished). */
static daos_event_t *next_event(void)
{
    daos_event_t *done[1];
    static int used;
    if (used) {
        EXPECT(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done) == 1 && ev.ev_error == 0,
               "the previous event completed");
        daos_event_fini(&ev);
    }
    used = 1;
    EXPECT(daos_event_init(&ev, eqh, NULL) == 0, "event_init");
    return &ev;
}

static void async_mode(void)
{
    dfs_obj_t *obj;
    d_sg_list_t sgl;
    d_iov_t iov;
    daos_size_t got = 0, size = 0;
    daos_handle_t oh;
    EXPECT(daos_eq_create(&eqh) == 0, "eq_create");
    EXPECT(dfs_open(dfs, NULL, "adata", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
           "open adata");
    sgl_of(&sgl, &iov, 200);
    for (int i = 0; i < 2; i++)
        EXPECT(dfs_write(dfs, obj, &sgl, (daos_off_t)i * 200, next_event()) == 0, "write ev");
    sgl_of(&sgl, &iov, 100);
    EXPECT(dfs_read(dfs, obj, &sgl, 0, &got, next_event()) == 0, "read ev");
    EXPECT(dfs_release(obj) == 0, "release adata");
    EXPECT(daos_kv_open(coh, new_oid(4, DAOS_OT_KV_HASHED), DAOS_OO_RW, &oh, next_event()) == 0,
           "kv_open ev");
    next_event();                    /* the open has completed: oh is set */
    for (int i = 0; i < 2; i++)
        EXPECT(daos_kv_put(oh, DAOS_TX_NONE, 0, i ? "k1" : "k0", 32, buf, &ev) == 0 &&
               next_event(), "kv_put ev");
    size = sizeof buf;
    EXPECT(daos_kv_get(oh, DAOS_TX_NONE, 0, "k0", &size, buf, &ev) == 0, "kv_get ev");
    EXPECT(daos_kv_close(oh, next_event()) == 0, "kv_close ev");
    daos_range_t rg = {0, 16};
    daos_array_iod_t aiod = {1, &rg, 0, 0};
    EXPECT(daos_array_create(coh, new_oid(5, DAOS_OT_ARRAY), DAOS_TX_NONE, 8, 1 << 20, &oh,
                             NULL) == 0, "array_create");
    sgl_of(&sgl, &iov, 16 * 8);
    EXPECT(daos_array_write(oh, DAOS_TX_NONE, &aiod, &sgl, next_event()) == 0, "array_write ev");
    EXPECT(daos_array_read(oh, DAOS_TX_NONE, &aiod, &sgl, next_event()) == 0, "array_read ev");
    EXPECT(daos_array_get_size(oh, DAOS_TX_NONE, &size, next_event()) == 0, "get_size ev");
    next_event();
    daos_event_fini(&ev);
    EXPECT(daos_array_close(oh, NULL) == 0, "array_close");
    EXPECT(daos_eq_destroy(eqh, 0) == 0, "eq_destroy");
}

/* A call refused at launch leaves its event as it was: the program may give that
 * event to its next call at once, and only that call completes it. */
static void refused_mode(void)
{
    daos_handle_t oh;
    daos_key_t dkey;
    daos_iod_t iod;
    d_sg_list_t sgl;
    d_iov_t iov;
    daos_event_t *done[1];
    EXPECT(daos_eq_create(&eqh) == 0 && daos_event_init(&ev, eqh, NULL) == 0, "event setup");
    EXPECT(daos_obj_open(coh, new_oid(7, DAOS_OT_MULTI_HASHED), DAOS_OO_RW, &oh, NULL) == 0,
           "obj_open");
    d_iov_set(&dkey, "dk", 2);
    memset(&iod, 0, sizeof iod);
    d_iov_set(&iod.iod_name, "ak", 2);
    iod.iod_type = DAOS_IOD_SINGLE;
    iod.iod_nr = 1;
    iod.iod_size = 32;
    sgl_of(&sgl, &iov, 32);
    EXPECT(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, &ev) == -DER_NOMEM,
           "the first launch is refused");
    EXPECT(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done) == 0, "a refused call completes nothing");
    iod.iod_size = 64;
    sgl_of(&sgl, &iov, 64);
    EXPECT(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, &ev) == 0, "update ev");
    EXPECT(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done) == 1 && ev.ev_error == 0,
           "the update completed");
    daos_event_fini(&ev);
    EXPECT(daos_obj_close(oh, NULL) == 0, "obj_close");
    EXPECT(daos_eq_destroy(eqh, 0) == 0, "eq_destroy");
}

static void *thread_main(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "t%d", (int)(long)arg);
    dfs_write_file(name, 8, 4096);
    return NULL;
}

static void threads_mode(void)
{
    pthread_t t[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, thread_main, (void *)i);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
}

static void fork_mode(void)
{
    dfs_write_file("parent", 1, 100);
    pid_t pid = fork();
    if (pid == 0) {
        dfs_write_file("child", 1, 100);
        _exit(failures ? 1 : 0);
    }
    int status = 0;
    EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0, "child");
}

#ifdef DAOS_CALLS_MPI
static void mpi_mode(void)
{
    int rank;
    dfs_obj_t *obj;
    d_sg_list_t sgl;
    d_iov_t iov;
    char name[16];
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    EXPECT(dfs_open(dfs, NULL, "shared", S_IFREG | 0644, O_RDWR | O_CREAT, 0, 0, NULL, &obj) == 0,
           "open shared");
    sgl_of(&sgl, &iov, 1000);
    for (int i = 0; i < 4; i++)
        EXPECT(dfs_write(dfs, obj, &sgl, (daos_off_t)(rank * 4 + i) * 1000, NULL) == 0, "write");
    EXPECT(dfs_release(obj) == 0, "release shared");
    snprintf(name, sizeof name, "r%d", rank);
    dfs_write_file(name, 1, 100);
}
#endif

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: daos_calls ROOT dfs|daos|threads|fork\n");
        return 2;
    }
    memset(buf, 'x', sizeof buf);
#ifdef DAOS_CALLS_MPI
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0)      /* the container, once, before the others open it */
        connect_all(argv[1]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank != 0)
        connect_all(argv[1]);
#else
    connect_all(argv[1]);
#endif
    if (!strcmp(argv[2], "dfs"))
        dfs_mode();
    else if (!strcmp(argv[2], "daos")) {
        objects();
        arrays();
        kvs();
    } else if (!strcmp(argv[2], "threads"))
        threads_mode();
    else if (!strcmp(argv[2], "fork"))
        fork_mode();
    else if (!strcmp(argv[2], "async"))
        async_mode();
    else if (!strcmp(argv[2], "refused"))
        refused_mode();
    else if (!strcmp(argv[2], "kill")) {
        dfs_mode();
        raise(SIGKILL);
    }
#ifdef DAOS_CALLS_MPI
    else if (!strcmp(argv[2], "mpi"))
        mpi_mode();
    disconnect_all();
    MPI_Finalize();
#else
    disconnect_all();
#endif
    return failures ? 1 : 0;
}
