/* The tools' hand-written %f and %.4f (src/tools/text_fmt.c) against glibc's
 * printf: random values of every magnitude, exact ties (k/2^j, which printf
 * rounds to even), values next to ties, negatives, zeros and non-finite values. */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include "check.h"
#include "../../src/tools/parse.h"

static uint64_t rng = 88172645463325252ULL;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int bad;

static void one(double v)
{
    char want[512], got[IOL_FMT_F6_MAX];
    snprintf(want, sizeof want, "%f", v);
    size_t n = iol_fmt_f6(got, v);
    got[n] = 0;
    if (strcmp(want, got) != 0 && bad++ < 10)
        fprintf(stderr, "%%f of %.17g: printf %s, iolens %s\n", v, want, got);
    snprintf(want, sizeof want, "%.4f", v);
    n = iol_fmt_f4(got, v);
    got[n] = 0;
    if (strcmp(want, got) != 0 && bad++ < 10)
        fprintf(stderr, "%%.4f of %.17g: printf %s, iolens %s\n", v, want, got);
}

int main(void)
{
    static const double fixed[] = {0.0, -0.0, 0.5, 1.5, 2.5, 0.03125, 0.09375, -0.03125,
                                   0.00005, 0.0000005, 999999.9999995, 1e6, -1e6, 1e300,
                                   INFINITY, -INFINITY, NAN};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        one(fixed[i]);
    for (int i = 0; i < 2000000; i++) {
        uint64_t r = next();
        double v;
        switch (i % 4) {
        case 0:                      /* any magnitude below 1e7 */
            v = (double)(r >> 11) / (double)(1ULL << 53) * pow(10, (int)(r % 13) - 5);
            break;
        case 1:                      /* exact ties and their neighbours: k / 2^j */
            v = ldexp((double)(r % 100000000), -(int)(r % 24));
            v = (r >> 40) % 3 == 0 ? v : (r >> 40) % 3 == 1 ? nextafter(v, 0) : nextafter(v, 1e9);
            break;
        case 2:                      /* timestamps: multiples of 1e-5 */
            v = (double)(r % 4000000000ULL) * 1e-5;
            break;
        default:                     /* decimal ties of 4 and 6 places */
            v = ((double)(r % 1000000000ULL) + 0.5) / ((r & 1) ? 1e4 : 1e6);
            break;
        }
        one((r >> 63) ? -v : v);
    }
    CHECK(bad == 0, "%d numbers formatted differently from printf", bad);
    return check_result("test_text_fmt");
}
