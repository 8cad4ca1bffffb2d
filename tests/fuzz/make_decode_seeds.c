/* Writes seed inputs for fuzz_decode from real logs: for every log named on the
 * command line and every present module, the first 64 KiB of its decompressed
 * region, prefixed with (module, version, big-endian flag).  Used by run_smoke.sh
 * to seed into a scratch directory (the logs themselves are never copied).
 * usage: make_decode_seeds OUTDIR LOG... */
#include <stdio.h>
#include <stdlib.h>
#include "iolens/log.h"

int main(int argc, char **argv)
{
    size_t nseeds = 0;
    for (int a = 2; a < argc; a++) {
        iolens_log *log;
        if (iolens_log_open(argv[a], &log, NULL, 0) != IOLENS_OK)
            continue;
        const iolens_header *h = iolens_log_header(log);
        for (int m = 0; m < 18; m++) {
            const void *p;
            size_t n;
            if (iolens_log_region(log, m, &p, &n) != IOLENS_OK)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/seed-%d-%d", argv[1], a, m);
            FILE *f = fopen(path, "wb");
            if (!f)
                return 1;
            unsigned char pre[3] = { (unsigned char)m, (unsigned char)h->mod_ver[m],
                                     (unsigned char)h->big_endian };
            fwrite(pre, 1, 3, f);
            fwrite(p, 1, n > 65536 ? 65536 : n, f);
            fclose(f);
            nseeds++;
        }
        iolens_log_close(log);
    }
    printf("%zu decode seeds written to %s\n", nseeds, argv[1]);
    return 0;
}
