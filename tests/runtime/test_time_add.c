/* stats.h: the no-overlap timer of a category (iol_time_add, iol_time_add_ns).
 * An operation that began and ended inside the span already counted (another
 * thread's longer call, recorded first) adds nothing: it must never take time
 * away.  Upstream's rule subtracts it (end - last end < 0), which is how logs of
 * threaded programs get negative F_*_TIME counters. */
#include <stdio.h>

#include "stats.h"

static int expect(const char *what, double got, double want)
{
    if (got < want - 1e-12 || got > want + 1e-12) {
        fprintf(stderr, "%s: got %.9f, want %.9f\n", what, got, want);
        return 1;
    }
    return 0;
}

int main(void)
{
    int bad = 0;
    double acc = 0, last = 0;
    iol_time_add(&acc, &last, 1.0, 5.0);      /* 4 s */
    iol_time_add(&acc, &last, 2.0, 3.0);      /* inside it: nothing */
    bad += expect("nested op", acc, 4.0);
    iol_time_add(&acc, &last, 4.0, 6.0);      /* overlaps its end: 1 s more */
    bad += expect("overlapping op", acc, 5.0);
    iol_time_add(&acc, &last, 7.0, 8.0);      /* after it: 1 s */
    bad += expect("later op", acc, 6.0);
    bad += expect("last end", last, 8.0);

    double acc_ns = 0;
    int64_t last_ns = 0;
    iol_time_add_ns(&acc_ns, &last_ns, 1000000000, 5000000000);
    iol_time_add_ns(&acc_ns, &last_ns, 2000000000, 3000000000);
    bad += expect("nested op (ns)", acc_ns, 4.0);
    iol_time_add_ns(&acc_ns, &last_ns, 4000000000, 6000000000);
    bad += expect("overlapping op (ns)", acc_ns, 5.0);
    bad += expect("last end (ns)", (double)last_ns, 6e9);
    return bad != 0;
}
