/* Minimal test helpers for the C unit tests: a failed CHECK prints where and why
 * and marks the test failed; the test keeps going so one run shows every failure. */
#ifndef IOLENS_TEST_CHECK_H
#define IOLENS_TEST_CHECK_H
#include <stdio.h>

static int check_failures;

#define CHECK(cond, ...) do {                                              \
    if (!(cond)) {                                                         \
        check_failures++;                                                  \
        fprintf(stderr, "%s:%d: CHECK(%s) failed: ", __FILE__, __LINE__, #cond); \
        fprintf(stderr, __VA_ARGS__);                                      \
        fputc('\n', stderr);                                               \
    }                                                                      \
} while (0)

/* ctest treats this exit code as "skipped" (SKIP_RETURN_CODE). */
#define CHECK_SKIP 77

static inline int check_result(const char *name)
{
    if (check_failures)
        fprintf(stderr, "%s: %d check(s) failed\n", name, check_failures);
    else
        printf("%s: all checks passed\n", name);
    return check_failures ? 1 : 0;
}
#endif
