/* Unit test of the platform facts store (src/runtime/core/platform.c) and the
 * hostlist writer (core/hostlist.c): the 1 KiB budget (keys in the table's order,
 * a key that does not fit is left out while a later shorter one still goes in,
 * whole lines only, the NUL kept), the per-key caps, newlines in values, and the
 * hostlist form with its ",+N" tail. */
#include <stdio.h>
#include <string.h>

#include "core_int.h"
#include "../../tests/c/check.h"

void iol_lock_slow(iol_lock_t *l, uintptr_t me)
{
    uintptr_t expect = 0;
    while (!__atomic_compare_exchange_n(l, &expect, me, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        expect = 0;
}

static void fill(char c, size_t n, char *out)
{
    memset(out, c, n);
    out[n] = '\0';
}

static int lines_ok(const char *s)
{
    for (const char *p = s; *p;) {
        const char *nl = strchr(p, '\n'), *eq = strchr(p, '=');
        if (!nl || !eq || eq > nl || eq == p)
            return 0;
        p = nl + 1;
    }
    return 1;
}

static void test_budget(void)
{
    char big[400], out[1100];
    iol_platform_reset();
    iol_fact_set(IOL_FACT_nnodes, "4");
    iol_fact_set(IOL_FACT_ppn, "2");
    fill('h', 300, big);
    iol_fact_set(IOL_FACT_hosts, big);          /* cut to its cap of 256 */
    iol_fact_set(IOL_FACT_cpu, "Some CPU");
    iol_fact_set(IOL_FACT_tmpfs, "/dev/shm");
    size_t n = iol_platform_append(out, sizeof out);
    CHECK(n == strlen(out), "returned length %zu vs %zu", n, strlen(out));
    const char *head = "nnodes=4\nppn=2\ncpu=Some CPU\nhosts=";
    CHECK(strncmp(out, head, strlen(head)) == 0, "table order: %s", out);
    CHECK(strstr(out, "\ntmpfs=/dev/shm\n") != NULL, "tmpfs present: %s", out);
    const char *h = strstr(out, "hosts=");
    CHECK(h && strcspn(h + 6, "\n") == 256, "hosts cut to 256: %zu", h ? strcspn(h + 6, "\n") : 0);
    CHECK(lines_ok(out), "key=value lines: %s", out);

    /* 60 bytes of room: nnodes (9) and ppn (6) fit, cpu (13) fits, hosts does not;
     * tmpfs (15) still goes in after it */
    n = iol_platform_append(out, 60);
    CHECK(strcmp(out, "nnodes=4\nppn=2\ncpu=Some CPU\ntmpfs=/dev/shm\n") == 0, "small room: %s", out);
    CHECK(n == 43 && n < 60, "n=%zu", n);
    /* exactly enough for the first line and its NUL; not one byte less */
    n = iol_platform_append(out, 10);
    CHECK(n == 9 && strcmp(out, "nnodes=4\n") == 0, "room 10: %zu %s", n, out);
    n = iol_platform_append(out, 9);
    CHECK(n == 6 && strcmp(out, "ppn=2\n") == 0, "room 9 (ppn only): %zu '%s'", n, out);
    n = iol_platform_append(out, 1);
    CHECK(n == 0 && out[0] == '\0', "room 1: %zu", n);
}

static void test_values(void)
{
    char out[256];
    iol_platform_reset();
    iol_fact_set(IOL_FACT_cpu, "two\nlines\r");
    iol_fact_set(IOL_FACT_cpu, "replaced");
    iol_fact_set(IOL_FACT_net, "");
    iol_platform_append(out, sizeof out);
    CHECK(strcmp(out, "cpu=replaced\n") == 0, "replace, empty left out: %s", out);
    iol_fact_set(IOL_FACT_cpu, "two\nlines");
    iol_platform_append(out, sizeof out);
    CHECK(strcmp(out, "cpu=two lines\n") == 0, "newline in a value: %s", out);
    CHECK(strcmp(iol_fact_key(IOL_FACT_mem_mib), "mem_mib") == 0, "key name");
}

static void test_hostlist(void)
{
    char out[300];
    const char *a[] = {"nid003", "nid001", "login1", "nid002", "nid010", "nid001", "x"};
    size_t n = iol_hostlist(a, 7, out, 256);
    CHECK(n == 6, "unique %zu", n);
    CHECK(strcmp(out, "login1,nid[001-003,010],x") == 0, "form: %s", out);
    const char *b[] = {"n9", "n10", "n11"};       /* widths differ: separate groups */
    iol_hostlist(b, 3, out, 256);
    CHECK(strcmp(out, "n9,n[10-11]") == 0, "widths: %s", out);
    static char names[200][16];
    const char *c[200];
    for (int i = 0; i < 200; i++) {
        snprintf(names[i], sizeof names[i], "h%d", i * 7);     /* no runs: long list */
        c[i] = names[i];
    }
    n = iol_hostlist(c, 200, out, 60);
    CHECK(n == 200, "count %zu", n);
    CHECK(strlen(out) <= 60, "capped: %zu %s", strlen(out), out);
    const char *tail = strrchr(out, '+');
    CHECK(tail && tail[-1] == ',', "tail: %s", out);
}

int main(void)
{
    test_budget();
    test_values();
    test_hostlist();
    return check_result("test_platform_store");
}
