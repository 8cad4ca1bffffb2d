/* Record-id hash: the test vectors of log-format 5.3, and host independence. */
#include <string.h>
#include "iolens/log.h"
#include "check.h"

static const struct { const char *name; uint64_t id; } vectors[] = {
    { "", 10211412111675192767ULL },
    { "a", 2110215103713784748ULL },
    { "/tmp/x", 15471093128405409614ULL },
    { "<STDIN>", 14734109647742566553ULL },
    { "<STDOUT>", 15920181672442173319ULL },
    { "<STDERR>", 7238257241479193519ULL },
    { "heatmap:POSIX", 16592106915301738621ULL },
    { "heatmap:MPIIO", 3668870418325792824ULL },
    { "heatmap:STDIO", 3989511027826779520ULL },
    { "heatmap:DFS", 1597927878319380788ULL },
    { "heatmap:DAOS", 4131494093108637317ULL },
    { "darshan-bgq-record", 17224881367579287459ULL },
    { "total-mdhim-obj-stats", 5828525108966349513ULL },
    { "12345678901234567890123", 11123812889382760314ULL },
    { "123456789012345678901234", 11915191245769330402ULL },
    { "1234567890123456789012345", 4881903546409015229ULL },
    { "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat", 9347516096890457488ULL },
    { "\xc3\xa9t\xc3\xa9", 819771011744353131ULL },
};

int main(void)
{
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++) {
        uint64_t got = iolens_record_id(vectors[i].name, strlen(vectors[i].name));
        CHECK(got == vectors[i].id, "hash(\"%s\") = %llu, expected %llu", vectors[i].name,
              (unsigned long long)got, (unsigned long long)vectors[i].id);
    }
    /* The hash reads its input bytewise: an unaligned copy gives the same id. */
    char buf[64];
    const char *s = "/home/wkliao/Darshan/TEST/mpi-io-test.tmp.dat";
    memcpy(buf + 3, s, strlen(s));
    CHECK(iolens_record_id(buf + 3, strlen(s)) == 9347516096890457488ULL, "unaligned input");
    /* Embedded NULs are part of the name (binary DAOS globs). */
    CHECK(iolens_record_id("a\0b", 3) != iolens_record_id("a", 1), "NUL byte ignored");
    return check_result("test_record_id");
}
