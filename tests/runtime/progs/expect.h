/* The test programs' own check: on failure, say where and what (with errno) on
 * stderr and exit 1, so the pytest side sees the program's reason. */
#ifndef IOLENS_TEST_PROGS_EXPECT_H
#define IOLENS_TEST_PROGS_EXPECT_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#define EXPECT(cond)                                                              \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: expectation failed: %s (errno %d)\n", __FILE__, \
                    __LINE__, #cond, errno);                                      \
            exit(1);                                                              \
        }                                                                         \
    } while (0)

#endif
