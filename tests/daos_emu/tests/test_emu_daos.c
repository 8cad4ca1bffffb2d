/* The emulated libdaos: pools, containers, objects, arrays, KV and events, with real effects
 * in the host directory and the documented negative DER_* codes. */
#include <pthread.h>
#include <string.h>
#include <daos.h>
#include "emu_fixture.h"

static daos_handle_t poh, coh;

static void test_init_and_pool(void)
{
	daos_handle_t h;
	daos_pool_info_t info = { .pi_bits = DPI_SPACE };
	daos_pool_info_t again;
	char text[DAOS_UUID_STR_SIZE];

	CHECK(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &h, NULL, NULL) == -DER_UNINIT,
	      "connect before daos_init");
	unsetenv("IOLENS_DAOS_EMU_ROOT");
	CHECK(daos_init() == -DER_MISC, "init without a root");
	setenv("IOLENS_DAOS_EMU_ROOT", fixture_root, 1);
	CHECK(daos_init() == 0, "init");
	CHECK(daos_pool_connect("nopool", NULL, DAOS_PC_RW, &h, NULL, NULL) == -DER_NONEXIST,
	      "connect to a missing pool");
	CHECK(daos_pool_connect("pool0", NULL, DAOS_PC_RW, &poh, &info, NULL) == 0, "connect");
	CHECK(info.pi_space.ps_space.s_total[DAOS_MEDIA_SCM] > 0, "space of the host fs");
	uuid_unparse_lower(info.pi_uuid, text);
	CHECK(daos_pool_connect(text, NULL, DAOS_PC_RW, &h, NULL, NULL) == 0, "connect by uuid");
	CHECK(daos_pool_query(h, NULL, &again, NULL, NULL) == 0 &&
	      !uuid_compare(again.pi_uuid, info.pi_uuid), "same pool, same uuid");
	CHECK(daos_pool_disconnect(h, NULL) == 0, "disconnect");
	CHECK(daos_pool_disconnect(h, NULL) == -DER_NO_HDL, "disconnect twice");
	CHECK(daos_pool_query(h, NULL, &again, NULL, NULL) == -DER_NO_HDL, "query a closed handle");
}

static void test_containers(void)
{
	daos_handle_t h, global_h = DAOS_HDL_INVAL;
	daos_cont_info_t info, by_uuid;
	uuid_t uuid;
	char text[DAOS_UUID_STR_SIZE];
	d_iov_t glob = { NULL, 0, 0 };

	CHECK(daos_cont_create_with_label(poh, "cont0", NULL, &uuid, NULL) == 0, "create");
	CHECK(host_size("pool0/cont0") >= 0, "a directory on the host");
	CHECK(daos_cont_create_with_label(poh, "cont0", NULL, NULL, NULL) == -DER_EXIST,
	      "create twice");
	CHECK(daos_cont_open(poh, "nocont", DAOS_COO_RW, &h, NULL, NULL) == -DER_NONEXIST,
	      "open a missing container");
	CHECK(daos_cont_open(poh, "cont0", DAOS_COO_RW, &coh, &info, NULL) == 0 &&
	      !uuid_compare(info.ci_uuid, uuid), "open by label");
	uuid_unparse_lower(uuid, text);
	CHECK(daos_cont_open(poh, text, DAOS_COO_RO, &h, NULL, NULL) == 0 &&
	      daos_cont_query(h, &by_uuid, NULL, NULL) == 0 && !uuid_compare(by_uuid.ci_uuid, uuid),
	      "open by uuid");
	CHECK(daos_cont_local2global(h, &glob) == 0 && glob.iov_buf_len > 0, "global size");
	glob.iov_buf = malloc(glob.iov_buf_len);
	CHECK(daos_cont_local2global(h, &glob) == 0 &&
	      daos_cont_global2local(poh, glob, &global_h) == 0, "global round trip");
	free(glob.iov_buf);
	daos_cont_close(global_h, NULL);
	CHECK(daos_cont_close(h, NULL) == 0 && daos_cont_close(h, NULL) == -DER_NO_HDL, "close");
	CHECK(daos_cont_create_with_label(poh, "gone", NULL, NULL, NULL) == 0 &&
	      daos_cont_destroy(poh, "gone", 0, NULL) == 0 && host_size("pool0/gone") == -1,
	      "destroy removes the container");
}

static daos_obj_id_t new_oid(uint64_t lo, enum daos_otype_t type)
{
	daos_obj_id_t oid = { .lo = lo, .hi = 0 };

	CHECK(daos_obj_generate_oid(coh, &oid, type, OC_SX, 0, 0) == 0, "generate_oid");
	CHECK(daos_obj_id2type(oid) == type, "type in the oid");
	return oid;
}

static void iod_single(daos_iod_t *iod, const char *akey, daos_size_t size)
{
	memset(iod, 0, sizeof(*iod));
	d_iov_set(&iod->iod_name, (void *)akey, strlen(akey));
	iod->iod_type = DAOS_IOD_SINGLE;
	iod->iod_size = size;
	iod->iod_nr = 1;
}

static void test_objects(void)
{
	daos_obj_id_t oid = new_oid(1, DAOS_OT_MULTI_HASHED);
	daos_handle_t oh;
	daos_key_t dkey;
	daos_iod_t iod;
	d_sg_list_t sgl;
	d_iov_t iov;
	char buf[16] = {0};

	CHECK(daos_obj_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0, "open");
	d_iov_set(&dkey, "dk", 2);
	iod_single(&iod, "ak", 5);
	d_iov_set(&iov, "value", 5);
	sgl = (d_sg_list_t){ 1, 0, &iov };
	CHECK(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL) == 0, "update single");
	iod_single(&iod, "ak", DAOS_REC_ANY);
	CHECK(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, NULL, NULL, NULL) == 0 &&
	      iod.iod_size == 5, "fetch the size");
	d_iov_set(&iov, buf, 2);
	CHECK(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL, NULL) == -DER_REC2BIG,
	      "fetch into a short buffer");
	d_iov_set(&iov, buf, sizeof(buf));
	CHECK(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL, NULL) == 0 &&
	      !memcmp(buf, "value", 5) && iov.iov_len == 5 && sgl.sg_nr_out == 1, "fetch");

	/* an array akey: records 2..3 of 4 bytes */
	daos_recx_t recx = { 2, 2 };
	daos_iod_t arr = { .iod_type = DAOS_IOD_ARRAY, .iod_size = 4, .iod_nr = 1,
			   .iod_recxs = &recx };
	d_iov_set(&arr.iod_name, "arr", 3);
	d_iov_set(&iov, "AAAABBBB", 8);
	CHECK(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &arr, &sgl, NULL) == 0, "update array");
	memset(buf, 1, sizeof(buf));
	d_iov_set(&iov, buf, 8);
	CHECK(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &arr, &sgl, NULL, NULL) == 0 &&
	      !memcmp(buf, "AAAABBBB", 8), "fetch array");

	char keys[16];
	daos_key_desc_t kds[4];
	uint32_t nr = 4;
	daos_anchor_t anchor = DAOS_ANCHOR_INIT;
	d_iov_set(&iov, keys, sizeof(keys));
	CHECK(daos_obj_list_akey(oh, DAOS_TX_NONE, &dkey, &nr, kds, &sgl, &anchor, NULL) == 0 &&
	      nr == 2 && kds[0].kd_key_len + kds[1].kd_key_len == 5 && daos_anchor_is_eof(&anchor),
	      "list akeys (%u)", nr);
	daos_key_t akey;
	d_iov_set(&akey, "ak", 2);
	CHECK(daos_obj_punch_akeys(oh, DAOS_TX_NONE, 0, &dkey, 1, &akey, NULL) == 0, "punch akey");
	iod_single(&iod, "ak", DAOS_REC_ANY);
	CHECK(daos_obj_fetch(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, NULL, NULL, NULL) == 0 &&
	      iod.iod_size == 0, "a punched akey has no value");
	nr = 4;
	anchor = (daos_anchor_t)DAOS_ANCHOR_INIT;
	d_iov_set(&iov, keys, sizeof(keys));
	CHECK(daos_obj_list_dkey(oh, DAOS_TX_NONE, &nr, kds, &sgl, &anchor, NULL) == 0 && nr == 1 &&
	      kds[0].kd_key_len == 2 && !memcmp(keys, "dk", 2), "list dkeys");
	CHECK(daos_obj_punch_dkeys(oh, DAOS_TX_NONE, 0, 1, &dkey, NULL) == 0, "punch dkey");
	CHECK(daos_obj_punch(oh, DAOS_TX_NONE, 0, NULL) == 0, "punch object");
	CHECK(daos_obj_close(oh, NULL) == 0 && daos_obj_close(oh, NULL) == -DER_NO_HDL, "close");

	CHECK(daos_obj_open(coh, oid, DAOS_OO_RO, &oh, NULL) == 0, "open read-only");
	d_iov_set(&iov, "value", 5);
	iod_single(&iod, "ak", 5);
	CHECK(daos_obj_update(oh, DAOS_TX_NONE, 0, &dkey, 1, &iod, &sgl, NULL) == -DER_NO_PERM,
	      "no update read-only");
	daos_obj_close(oh, NULL);
}

static void test_arrays(void)
{
	daos_obj_id_t oid = new_oid(2, DAOS_OT_ARRAY);
	daos_handle_t oh;
	daos_size_t cell = 0, chunk = 0, size = 0;
	daos_range_t rg = { 1, 3 };
	daos_array_iod_t iod = { 1, &rg, 0, 0 };
	d_sg_list_t sgl;
	d_iov_t iov;
	char buf[12];

	CHECK(daos_array_open(coh, oid, DAOS_TX_NONE, DAOS_OO_RW, &cell, &chunk, &oh, NULL) ==
	      -DER_NONEXIST, "open before create");
	CHECK(daos_array_create(coh, new_oid(7, DAOS_OT_KV_HASHED), DAOS_TX_NONE, 4, 1024, &oh,
				NULL) == -DER_INVAL, "create needs an array oid");
	CHECK(daos_array_create(coh, oid, DAOS_TX_NONE, 4, 1024, &oh, NULL) == 0, "create");
	CHECK(daos_array_create(coh, oid, DAOS_TX_NONE, 4, 1024, &oh, NULL) == -DER_EXIST,
	      "create twice");
	d_iov_set(&iov, "aaaabbbbcccc", 12);
	sgl = (d_sg_list_t){ 1, 0, &iov };
	CHECK(daos_array_write(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == 0, "write");
	CHECK(daos_array_get_size(oh, DAOS_TX_NONE, &size, NULL) == 0 && size == 4,
	      "size in cells (%llu)", (unsigned long long)size);
	CHECK(daos_array_close(oh, NULL) == 0, "close");
	CHECK(daos_array_open(coh, oid, DAOS_TX_NONE, DAOS_OO_RW, &cell, &chunk, &oh, NULL) == 0 &&
	      cell == 4 && chunk == 1024, "open returns the attributes");
	d_iov_set(&iov, buf, sizeof(buf));
	CHECK(daos_array_read(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == 0 &&
	      !memcmp(buf, "aaaabbbbcccc", 12), "read");
	d_iov_set(&iov, buf, 4);
	CHECK(daos_array_read(oh, DAOS_TX_NONE, &iod, &sgl, NULL) == -DER_INVAL, "short sgl");
	CHECK(daos_array_set_size(oh, DAOS_TX_NONE, 10, NULL) == 0 &&
	      daos_array_get_size(oh, DAOS_TX_NONE, &size, NULL) == 0 && size == 10, "set_size");
	daos_range_t tail = { 2, 100 };
	daos_array_iod_t punch = { 1, &tail, 0, 0 };
	CHECK(daos_array_punch(oh, DAOS_TX_NONE, &punch, NULL) == 0 &&
	      daos_array_get_size(oh, DAOS_TX_NONE, &size, NULL) == 0 && size == 2,
	      "punching the tail shrinks");
	CHECK(daos_array_destroy(oh, DAOS_TX_NONE, NULL) == 0, "destroy");
	daos_array_close(oh, NULL);
	CHECK(daos_array_open(coh, oid, DAOS_TX_NONE, DAOS_OO_RW, &cell, &chunk, &oh, NULL) ==
	      -DER_NONEXIST, "open after destroy");

	daos_obj_id_t bytes = new_oid(3, DAOS_OT_ARRAY_BYTE);
	CHECK(daos_array_open_with_attr(coh, bytes, DAOS_TX_NONE, DAOS_OO_RW, 1, 1 << 20, &oh,
					NULL) == 0, "open_with_attr");
	CHECK(daos_array_open_with_attr(coh, oid, DAOS_TX_NONE, DAOS_OO_RW, 1, 1 << 20, &oh,
					NULL) == -DER_INVAL, "open_with_attr needs an attr-less type");
	daos_array_close(oh, NULL);
}

static void test_kv(void)
{
	daos_obj_id_t oid = new_oid(4, DAOS_OT_KV_HASHED);
	daos_handle_t oh;
	daos_size_t size;
	char buf[16];

	CHECK(daos_kv_open(coh, new_oid(5, DAOS_OT_ARRAY), DAOS_OO_RW, &oh, NULL) == -DER_INVAL,
	      "KV open of an array id");
	CHECK(daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL) == 0, "open");
	CHECK(daos_kv_put(oh, DAOS_TX_NONE, 0, "k1", 3, "v1", NULL) == 0, "put");
	CHECK(daos_kv_put(oh, DAOS_TX_NONE, DAOS_COND_KEY_INSERT, "k1", 3, "v1", NULL) == -DER_EXIST,
	      "conditional insert of an existing key");
	size = DAOS_REC_ANY;
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, 0, "k1", &size, NULL, NULL) == 0 && size == 3,
	      "get the size");
	size = 1;
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, 0, "k1", &size, buf, NULL) == -DER_REC2BIG && size == 3,
	      "short buffer");
	size = DAOS_REC_ANY;
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, 0, "k1", &size, buf, NULL) == 0 && size == 3,
	      "size DAOS_REC_ANY with a buffer: the size only");
	size = sizeof(buf);
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, 0, "k1", &size, buf, NULL) == 0 && size == 3 &&
	      !strcmp(buf, "v1"), "get");
	size = sizeof(buf);
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, 0, "nokey", &size, buf, NULL) == 0 && size == 0,
	      "a missing key has size 0");
	CHECK(daos_kv_get(oh, DAOS_TX_NONE, DAOS_COND_KEY_GET, "nokey", &size, buf, NULL) ==
	      -DER_NONEXIST, "conditional get of a missing key");
	daos_kv_put(oh, DAOS_TX_NONE, 0, "k2", 1, "x", NULL);

	char keys[2];   /* room for one key per call: the anchor must resume */
	daos_key_desc_t kds[2];
	d_iov_t iov;
	d_sg_list_t sgl = { 1, 0, &iov };
	daos_anchor_t anchor = DAOS_ANCHOR_INIT;
	int listed = 0;
	while (!daos_anchor_is_eof(&anchor) && listed < 5) {
		uint32_t nr = 2;
		d_iov_set(&iov, keys, sizeof(keys));
		if (daos_kv_list(oh, DAOS_TX_NONE, &nr, kds, &sgl, &anchor, NULL) != 0)
			break;
		listed += (int)nr;
	}
	CHECK(listed == 2, "list resumes at the anchor (%d)", listed);
	CHECK(daos_kv_remove(oh, DAOS_TX_NONE, 0, "k1", NULL) == 0, "remove");
	CHECK(daos_kv_remove(oh, DAOS_TX_NONE, DAOS_COND_KEY_REMOVE, "k1", NULL) == -DER_NONEXIST,
	      "conditional remove of a missing key");
	CHECK(daos_kv_close(oh, NULL) == 0, "close");
}

static int completions;

static int on_complete(void *arg, daos_event_t *ev, int rc)
{
	completions++;
	return 0;
}

static void test_events(void)
{
	daos_handle_t eqh, oh;
	daos_event_t ev, *done[1];
	bool flag = false;

	CHECK(daos_eq_create(&eqh) == 0 && daos_event_init(&ev, eqh, NULL) == 0, "event setup");
	daos_event_register_comp_cb(&ev, on_complete, NULL);
	CHECK(daos_kv_open(coh, new_oid(6, DAOS_OT_KV_HASHED), DAOS_OO_RW, &oh, &ev) == 0,
	      "asynchronous open returns 0");
	CHECK(ev.ev_error == 0 && completions == 1, "the event completed");
	CHECK(daos_event_test(&ev, 0, &flag) == 0 && flag, "event_test");
	CHECK(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done) == 1, "polled");
	daos_event_fini(&ev);
	daos_event_init(&ev, eqh, NULL);
	CHECK(daos_kv_close(oh, &ev) == 0 && ev.ev_error == 0, "asynchronous close");
	CHECK(daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done) == 1, "polled again");
	daos_event_fini(&ev);
	daos_event_init(&ev, eqh, NULL);
	CHECK(daos_kv_close(oh, &ev) == 0 && ev.ev_error == -DER_NO_HDL,
	      "an asynchronous error is in the event");
	CHECK(daos_eq_destroy(eqh, 0) == -DER_BUSY, "eq_destroy with an unpolled event");
	daos_eq_poll(eqh, 0, DAOS_EQ_NOWAIT, 1, done);
	daos_event_fini(&ev);
	CHECK(daos_eq_destroy(eqh, 0) == 0, "eq_destroy");
	CHECK(!strcmp(d_errstr(-DER_NONEXIST), "DER_NONEXIST"), "d_errstr");
}

/* Each thread opens its own KV object and array many times: handles of concurrent threads must
 * never be confused (the handle table is shared). */
#define THREADS 4
#define ROUNDS 50

static void *thread_body(void *arg)
{
	long id = (long)arg;
	long *failures = calloc(1, sizeof(long));
	char key[16], value[16], got[16];

	for (int r = 0; r < ROUNDS && failures; r++) {
		daos_handle_t oh;
		daos_size_t size = sizeof(got);
		daos_obj_id_t oid = { .lo = 1000 + (uint64_t)id, .hi = 0 };
		daos_obj_generate_oid(coh, &oid, DAOS_OT_KV_HASHED, OC_SX, 0, 0);
		snprintf(key, sizeof(key), "r%d", r);
		snprintf(value, sizeof(value), "t%ld-%d", id, r);
		if (daos_kv_open(coh, oid, DAOS_OO_RW, &oh, NULL) ||
		    daos_kv_put(oh, DAOS_TX_NONE, 0, key, strlen(value) + 1, value, NULL) ||
		    daos_kv_get(oh, DAOS_TX_NONE, 0, key, &size, got, NULL) || strcmp(got, value) ||
		    daos_kv_close(oh, NULL))
			(*failures)++;
	}
	return failures;
}

static void test_threads(void)
{
	pthread_t threads[THREADS];
	long failures = 0;

	for (long t = 0; t < THREADS; t++)
		pthread_create(&threads[t], NULL, thread_body, (void *)t);
	for (int t = 0; t < THREADS; t++) {
		void *result;
		pthread_join(threads[t], &result);
		failures += result ? *(long *)result : ROUNDS;
		free(result);
	}
	CHECK(failures == 0, "%ld failed rounds in %d threads", failures, THREADS);
}

int main(int argc, char **argv)
{
	fixture_setup(argc > 1 ? argv[1] : NULL);
	test_init_and_pool();
	test_containers();
	test_objects();
	test_arrays();
	test_kv();
	test_events();
	test_threads();
	daos_cont_close(coh, NULL);
	daos_pool_disconnect(poh, NULL);
	CHECK(daos_fini() == 0 && daos_fini() == -DER_UNINIT, "fini is counted");
	fixture_teardown();
	return check_result("test_emu_daos");
}
