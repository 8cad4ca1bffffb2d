/* core/arch.h on the processor it is built for (natively, and under qemu-user in
 * scripts/cross-test.sh): the thread id is one per live thread and stable within
 * it (rt.h iol_self: the owner of every lock); the one-instruction add adds; the
 * pause hint returns; where there is a counter it never goes back on a thread. */
#include <pthread.h>
#include <stdio.h>

#include "arch.h"

#define THREADS 4

#if IOL_ARCH_THREAD_POINTER
static uintptr_t ids[THREADS];
static pthread_barrier_t all_alive;

static void *record_id(void *arg)
{
    uintptr_t *slot = arg;
    *slot = iol_arch_thread_id();
    pthread_barrier_wait(&all_alive);       /* no thread ends (and frees its TLS) early */
    if (iol_arch_thread_id() != *slot)
        *slot = 0;
    return NULL;
}
#endif

int main(void)
{
    int bad = 0;
#if IOL_ARCH_THREAD_POINTER
    pthread_t t[THREADS];
    pthread_barrier_init(&all_alive, NULL, THREADS);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, record_id, &ids[i]);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    uintptr_t me = iol_arch_thread_id();
    for (int i = 0; i < THREADS; i++) {
        if (ids[i] == 0 || ids[i] == me) {
            fprintf(stderr, "thread %d: id %#lx unstable or the main thread's\n", i,
                    (unsigned long)ids[i]);
            bad++;
        }
        for (int j = 0; j < i; j++)
            if (ids[i] == ids[j]) {
                fprintf(stderr, "threads %d and %d share id %#lx\n", j, i, (unsigned long)ids[i]);
                bad++;
            }
    }
#endif
    int64_t bin = 40;
    iol_arch_add_once(&bin, 2);
    if (bin != 42) {
        fprintf(stderr, "add_once: %lld, want 42\n", (long long)bin);
        bad++;
    }
    for (int i = 0; i < 100; i++)
        iol_arch_pause();
#if IOL_ARCH_COUNTER
    uint64_t prev = iol_arch_counter();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = iol_arch_counter();
        if (now < prev) {
            fprintf(stderr, "counter went back: %llu after %llu\n", (unsigned long long)now,
                    (unsigned long long)prev);
            bad++;
            break;
        }
        prev = now;
    }
#endif
    return bad != 0;
}
