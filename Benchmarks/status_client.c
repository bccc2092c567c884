/* The client of Benchmarks/status_latency.py (compiled by it at run time with `cc -O2`).
 *
 * Usage: status_client PORT            (for status_latency.py)
 *        status_client PORT PERIOD_US  (a prober of reliability_bench.py)
 *
 * Holds one TCP connection to 127.0.0.1:PORT (TCP_NODELAY, greeting read). Each line on standard input is a
 * number N: it sends `status` N times, one at a time, each after the whole answer to the one before (the line
 * `OK`), and prints the N round-trip times in nanoseconds on one line. An answer starting `ACK`, a closed
 * connection or an error ends it with exit status 1.
 *
 * With PERIOD_US it sends `status` every PERIOD_US microseconds (the next request a period after the last one
 * started, or at once when the answer took longer) until its standard input ends, then prints `START DURATION` in
 * nanoseconds for each round trip, a line each; START is CLOCK_MONOTONIC, the clock of Python's
 * `time.perf_counter`. In a process of its own a prober's round trips are the server's: as a thread of the
 * benchmark's Python process, a `status` answered while the main thread read a long answer waited for the
 * interpreter's lock (up to its 5 ms switch interval).
 *
 * A C client, not Python: a Python round trip spent ~10 µs of the ~34 in the interpreter, the same for both
 * servers, which pulled every ratio towards 1 and added its own jitter to the server's.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Reads until the answer's last line, `OK` (0) or `ACK …` (-1); -1 also when the connection ends. */
static int read_answer(int fd) {
    static char buffer[65536];
    char head[4]; /* the current line's first bytes */
    int column = 0;
    for (;;) {
        ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) return -1;
        for (ssize_t i = 0; i < n; i++) {
            char c = buffer[i];
            if (c == '\n') {
                if (column == 2 && head[0] == 'O' && head[1] == 'K') return 0;
                column = 0;
                continue;
            }
            if (column < 4) head[column] = c;
            if (++column == 4 && memcmp(head, "ACK ", 4) == 0) return -1;
        }
    }
}

static int roundtrip(int fd) {
    static const char request[] = "status\n";
    return send(fd, request, sizeof request - 1, 0) == (ssize_t)(sizeof request - 1) ? read_answer(fd) : -1;
}

/* Period mode: a round trip every `period_ns` until standard input ends; then the samples. */
static int probe(int fd, long long period_ns) {
    uint64_t (*samples)[2] = NULL;
    size_t count = 0, capacity = 0;
    for (;;) {
        uint64_t started = now_ns();
        if (roundtrip(fd) != 0) {
            fprintf(stderr, "status round trip failed\n");
            return 1;
        }
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            samples = realloc(samples, capacity * sizeof *samples);
        }
        samples[count][0] = started;
        samples[count][1] = now_ns() - started;
        count++;
        long long left = (long long)(started + (uint64_t)period_ns - now_ns());
        if (left < 0) left = 0;
        struct timespec wait = {.tv_sec = left / 1000000000, .tv_nsec = left % 1000000000};
        struct pollfd input = {.fd = 0, .events = POLLIN};
        if (ppoll(&input, 1, &wait, NULL) > 0) break; /* the end of input (or a line): stop */
    }
    for (size_t i = 0; i < count; i++)
        printf("%llu %llu\n", (unsigned long long)samples[i][0], (unsigned long long)samples[i][1]);
    fflush(stdout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: status_client PORT [PERIOD_US]\n");
        return 2;
    }
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        perror("connect");
        return 1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char greeting[256];
    if (recv(fd, greeting, sizeof greeting, 0) <= 0) return 1;

    if (argc == 3) return probe(fd, atol(argv[2]) * 1000);
    char line[64];
    uint64_t *times = NULL;
    long capacity = 0;
    while (fgets(line, sizeof line, stdin)) {
        long count = atol(line);
        if (count > capacity) {
            times = realloc(times, (size_t)count * sizeof *times);
            capacity = count;
        }
        for (long i = 0; i < count; i++) {
            uint64_t started = now_ns();
            if (roundtrip(fd) != 0) {
                fprintf(stderr, "status round trip failed\n");
                return 1;
            }
            times[i] = now_ns() - started;
        }
        for (long i = 0; i < count; i++) printf(i ? " %llu" : "%llu", (unsigned long long)times[i]);
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
