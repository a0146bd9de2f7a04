/* Cost of one recorded synchronization (c/threads.c): a loop of pthread_mutex_lock/unlock
 * pairs in the application, timed per pair. Driven by benches/threads_cost.sh (SYNC=1):
 * plainly, with the library preloaded and thread tracking off (MPICHECK_THREADS=0: the
 * wrappers only forward), and recording (two MPICHECK_Sync records per pair).
 *
 *   sync_record [N] [threaded]    prints "pair <ns per lock/unlock pair>"; with `threaded`,
 *                                 a thread is started and joined first (locks are recorded
 *                                 only once the program has started a thread) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *idle(void *arg)
{
    return arg;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    struct timespec a, b;
    if (argc > 2 && !strcmp(argv[2], "threaded")) {
        pthread_t t;
        pthread_create(&t, NULL, idle, NULL);
        pthread_join(t, NULL);
    }
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        pthread_mutex_unlock(&m);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("pair %.2f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n);
    return 0;
}
