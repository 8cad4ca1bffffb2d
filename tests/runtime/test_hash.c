/* The runtime's word-wise record id equals the format library's reference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iolens/log.h"

uint64_t iol_hash(const char *name, size_t len);

int main(void)
{
    char buf[256];
    unsigned long seed = 12345;
    int bad = 0;
    for (int round = 0; round < 20000; round++) {
        size_t len = (size_t)(round % 200);
        for (size_t i = 0; i < len; i++) {
            seed = seed * 6364136223846793005UL + 1442695040888963407UL;
            buf[i] = (char)(seed >> 56);
        }
        if (iol_hash(buf, len) != iolens_record_id(buf, len)) {
            fprintf(stderr, "mismatch at length %zu (round %d)\n", len, round);
            bad++;
        }
    }
    const char *p = "/tmp/iolens-golden/w01_posix_basic/basic.dat";
    if (iol_hash(p, strlen(p)) != iolens_record_id(p, strlen(p)))
        bad++;
    return bad != 0;
}
