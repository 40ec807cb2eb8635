/* What a timed wait costs the waiting thread (BENCHMARKS.md, section 5, the evening pass).
 *
 * Two threads ping-pong an eventfd through epoll, the main one waiting with the timeout given
 * (-1: none, as a runtime with no timer pending waits; 28000: a timer 28 s away, as a bounded
 * call's runtime waits). Prints the main thread's CPU and the wall time per round trip.
 *
 *   cc -O2 -pthread -o /tmp/timed_park tests/benches/support/timed_park.c
 *   /tmp/timed_park -1; /tmp/timed_park 28000
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

enum { ROUNDS = 100000 };
static int to_peer, to_main;

static double nanos(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int watching(int fd) {
    int poll = epoll_create1(0);
    struct epoll_event event = {.events = EPOLLIN};
    epoll_ctl(poll, EPOLL_CTL_ADD, fd, &event);
    return poll;
}

static void *peer(void *unused) {
    (void)unused;
    int poll = watching(to_peer);
    uint64_t value, one = 1;
    struct epoll_event events[4];
    for (int i = 0; i < ROUNDS; i++) {
        epoll_wait(poll, events, 4, -1);
        if (read(to_peer, &value, 8) < 0 || write(to_main, &one, 8) < 0) return NULL;
    }
    return NULL;
}

int main(int argc, char **argv) {
    int timeout = argc > 1 ? atoi(argv[1]) : -1;
    to_peer = eventfd(0, EFD_NONBLOCK);
    to_main = eventfd(0, EFD_NONBLOCK);
    pthread_t thread;
    pthread_create(&thread, NULL, peer, NULL);
    int poll = watching(to_main);
    uint64_t value, one = 1;
    struct epoll_event events[4];
    double cpu = nanos(CLOCK_THREAD_CPUTIME_ID), wall = nanos(CLOCK_MONOTONIC);
    for (int i = 0; i < ROUNDS; i++) {
        if (write(to_peer, &one, 8) < 0) return 1;
        epoll_wait(poll, events, 4, timeout);
        if (read(to_main, &value, 8) < 0) return 1;
    }
    printf("timeout %d ms: waiting thread's CPU %.2f us a round trip, wall %.2f us\n", timeout,
           (nanos(CLOCK_THREAD_CPUTIME_ID) - cpu) / ROUNDS / 1000,
           (nanos(CLOCK_MONOTONIC) - wall) / ROUNDS / 1000);
    pthread_join(thread, NULL);
    return 0;
}
