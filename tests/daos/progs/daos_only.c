/* A program of the DAOS object API alone, linked with libdaos but not libdfs: the
 * DAOS module must record it although no DFS function exists in the process.
 * usage: daos_only ROOT   (an emulation root with a pool directory "pool0")
 * One KV object: 2 puts of 16 bytes, 1 get.  Exits 0 when every call succeeded. */
#include <stdio.h>
#include <stdlib.h>

#include <daos.h>

#define EXPECT(cond)                                                                 \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "daos_only: %s failed\n", #cond);                        \
            return 1;                                                                \
        }                                                                            \
    } while (0)

int main(int argc, char **argv)
{
    daos_handle_t poh, coh, oh;
    daos_obj_id_t oid = {.lo = 7, .hi = 0};
    char buf[16] = "0123456789abcde";
    daos_size_t size = sizeof buf;
    if (argc != 2)
        return 2;
    setenv("IOLENS_DAOS_EMU_ROOT", argv[1], 1);
    EXPECT(daos_init() == 0);
    EXPECT(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, NULL, NULL) == 0);
    EXPECT(daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL) == 0);
    EXPECT(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, NULL, NULL) == 0);
    EXPECT(daos_obj_generate_oid(coh, &oid, DAOS_OT_KV_HASHED, OC_SX, 0, 0) == 0);
    EXPECT(daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0);
    EXPECT(daos_kv_put(oh, DAOS_TX_NONE, 0, "a", sizeof buf, buf, NULL) == 0);
    EXPECT(daos_kv_put(oh, DAOS_TX_NONE, 0, "b", sizeof buf, buf, NULL) == 0);
    EXPECT(daos_kv_get(oh, DAOS_TX_NONE, 0, "a", &size, buf, NULL) == 0 && size == sizeof buf);
    EXPECT(daos_kv_close(oh, NULL) == 0);
    EXPECT(daos_cont_close(coh, NULL) == 0);
    EXPECT(daos_pool_disconnect(poh, NULL) == 0);
    EXPECT(daos_fini() == 0);
    return 0;
}
