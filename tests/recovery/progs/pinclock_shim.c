/* Test shim, preloaded before the runtime: CLOCK_REALTIME reads as the fixed
 * time IOLENS_TEST_PIN_NS (nanoseconds since the epoch).  Only the wall clock is
 * pinned (the runtime's counters use the vDSO clock directly), so a test can
 * compute the names the runtime will choose (they hash the start time) and
 * plant files or links there before the program starts. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

int clock_gettime(clockid_t clk, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    const char *pin = getenv("IOLENS_TEST_PIN_NS");
    if (clk == CLOCK_REALTIME && pin) {
        long long ns = atoll(pin);
        ts->tv_sec = (time_t)(ns / 1000000000LL);
        ts->tv_nsec = (long)(ns % 1000000000LL);
        return 0;
    }
    if (!real)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    return real(clk, ts);
}
