/* path.c: iol_path_name hands back an already clean absolute path itself (the
 * wrapper fast path) exactly when iol_clean_path would copy it unchanged, and
 * otherwise the name iol_clean_path makes of it; iol_hash is the format
 * library's record id. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"
#include "iolens/log.h"

/* The rule of iol_clean_path's own fast case. */
static int clean_as_is(const char *p)
{
    return p && p[0] == '/' && strlen(p) < IOL_PATH_LEN && !strstr(p, "//") && !strstr(p, "/./");
}

static int check(const char *p)
{
    char buf[IOL_PATH_LEN], cleaned[IOL_PATH_LEN];
    size_t len = 0;
    const char *name = iol_path_name(p, buf, &len);
    int fast = name == p;     /* the slow path always answers in buf */
    iol_clean_path(p, cleaned, sizeof cleaned);
    if (fast != clean_as_is(p) || len != strlen(name) || strcmp(name, cleaned) != 0) {
        fprintf(stderr, "mismatch for \"%s\" (fast path %d)\n", p ? p : "(null)", fast);
        return 1;
    }
    return 0;
}

int main(void)
{
    static char big[IOL_PATH_LEN + 10];
    const char *alphabet[2] = {"//..ab", "/.abcdefgh"};   /* mostly dirty; mostly clean */
    unsigned long seed = 12345;
    int bad = check(NULL) + check("") + check("<STDOUT>") + check("rel/x") + check("/") +
              check("/a/./b") + check("/a//b") + check("/a/.b") + check("/a/b/.") + check("/./");
    /* Every position of the patterns against the 16-byte windows of the scan. */
    for (int round = 0; round < 200000; round++) {
        char p[80];
        size_t len = 1 + (size_t)(round % 70);
        p[0] = '/';
        for (size_t i = 1; i < len; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            const char *al = alphabet[round & 1];
            p[i] = al[(seed >> 33) % strlen(al)];
        }
        p[len] = '\0';
        bad += check(p);
    }
    memset(big, 'a', sizeof big - 1);
    big[0] = '/';
    big[IOL_PATH_LEN - 1] = '\0';            /* 4095 bytes: still fast */
    bad += check(big);
    big[IOL_PATH_LEN - 1] = 'a';             /* 4096 and more: cleaned (truncated) */
    bad += check(big);
    const char *p = "/tmp/iolens-golden/w01_posix_basic/basic.dat";
    if (iol_hash(p, strlen(p)) != iolens_record_id(p, strlen(p)))
        bad++;
    return bad != 0;
}
