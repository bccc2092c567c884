/* The crowd load generator of Benchmarks/reliability_bench.py (compiled by it at run time with `cc -O2 -pthread`).
 *
 * Usage: reliability_load PORT SCRIPT CONNECTIONS COMMANDS IDLERS TOGGLE_MS THREADS STALL_S
 *
 * Opens CONNECTIONS worker connections, IDLERS connections that sit in `idle`, and one toggler connection to
 * 127.0.0.1:PORT (all of them before the clock starts). Then THREADS threads, each with its own epoll set,
 * drive the workers: each worker sends COMMANDS commands one at a time and waits for the whole answer (the
 * line `OK` or a line starting with `ACK `) before the next, timing every round trip. Worker i sends line
 * (i * 37 + j) % lines of SCRIPT as its j-th command; a SCRIPT line is `TAG<TAB>COMMAND`, and latencies are
 * summarised overall and per TAG. While the workers run, the toggler sends `repeat 1` / `repeat 0` every
 * TOGGLE_MS ms (waiting for each OK) and the idlers re-enter `idle` after every wake-up; the wake-up latency
 * is the time from the last toggle sent to the idler's `OK`. At the end the idlers send `noidle` and must
 * answer `OK` within 5 s.
 *
 * Errors: an ACK, a connection the server closed or reset, a connect or greeting failure. When no command
 * completes for STALL_S seconds the run stops and reports `stalled=1`.
 *
 * Prints `key=value` lines (and `lat tag=… n=… p50_us=… p99_us=… max_us=…` lines) for the script to parse.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { WORKER, IDLER, TOGGLER };
enum { MAX_TAGS = 32 };

typedef struct {
    int fd, kind, index;
    int done, waiting, finished, dead;
    int script_base;
    int tag;
    uint64_t sent_ns;
    /* Line scanner state: bytes seen on the current line, and its first bytes. */
    int linepos;
    char head[96];
    int changed; /* idler: `changed:` lines in the current answer */
    long events;
} conn_t;

typedef struct {
    uint64_t ns;
    int tag;
} sample_t;

typedef struct {
    int id, epfd;
    conn_t **conns;
    int nconns, workers_left;
    sample_t *samples;
    size_t nsamples, cap;
    uint64_t *wakeups;
    size_t nwakeups, wakecap;
    long acks, closed;
    int stalled;
} thread_t;

static int port, connections, commands, idlers, toggle_ms, nthreads, stall_s;
static char **script_cmd;
static int *script_tag, script_len;
static char *tag_names[MAX_TAGS];
static int ntags;
static atomic_int workers_left_total;
static atomic_uint_fast64_t last_progress_ns;
static atomic_int stop_all;
static pthread_mutex_t error_lock = PTHREAD_MUTEX_INITIALIZER;
static char first_error[512];
static conn_t *toggler;
static uint64_t last_toggle_ns, next_toggle_ns;
static long toggles, toggle_acks;
static int toggle_value;

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void note_error(const char *what, const conn_t *c, const char *detail) {
    pthread_mutex_lock(&error_lock);
    if (!first_error[0])
        snprintf(first_error, sizeof first_error, "%s (connection %d, kind %d): %s", what, c ? c->index : -1,
                 c ? c->kind : -1, detail ? detail : "");
    pthread_mutex_unlock(&error_lock);
}

static int send_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = send(fd, data, len, MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd p = {fd, POLLOUT, 0};
                poll(&p, 1, 1000);
                continue;
            }
            return -1;
        }
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

static int open_connection(int index, int kind, conn_t *c) {
    memset(c, 0, sizeof *c);
    c->index = index;
    c->kind = kind;
    c->fd = socket(AF_INET, SOCK_STREAM, 0);
    if (c->fd < 0) return -1;
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) < 0) return -1;
    /* The greeting, `OK MPD x.y.z\n`, read byte-exactly so nothing of a later answer is consumed. */
    char greeting[64];
    size_t got = 0;
    struct pollfd p = {c->fd, POLLIN, 0};
    while (got < sizeof greeting - 1) {
        if (poll(&p, 1, 10000) <= 0) return -1;
        ssize_t n = recv(c->fd, greeting + got, 1, 0);
        if (n <= 0) return -1;
        got++;
        if (greeting[got - 1] == '\n') break;
    }
    greeting[got] = 0;
    if (strncmp(greeting, "OK MPD ", 7) != 0) return -1;
    return 0;
}

static void send_command(thread_t *t, conn_t *c) {
    int line = (c->script_base + c->done) % script_len;
    const char *cmd = script_cmd[line];
    c->tag = script_tag[line];
    c->sent_ns = now_ns();
    c->waiting = 1;
    if (send_all(c->fd, cmd, strlen(cmd)) < 0) {
        c->dead = 1;
        t->closed++;
        note_error("send failed", c, strerror(errno));
    }
}

static void send_toggle(void) {
    toggle_value = !toggle_value;
    const char *cmd = toggle_value ? "repeat 1\n" : "repeat 0\n";
    toggler->waiting = 1;
    last_toggle_ns = now_ns();
    toggles++;
    if (send_all(toggler->fd, cmd, strlen(cmd)) < 0) {
        toggler->dead = 1;
        note_error("toggler send failed", toggler, strerror(errno));
    }
}

static void record(thread_t *t, int tag, uint64_t ns) {
    if (t->nsamples == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 4096;
        t->samples = realloc(t->samples, t->cap * sizeof *t->samples);
    }
    t->samples[t->nsamples].ns = ns;
    t->samples[t->nsamples].tag = tag;
    t->nsamples++;
}

static void worker_finished(thread_t *t, conn_t *c) {
    c->finished = 1;
    t->workers_left--;
    atomic_fetch_sub(&workers_left_total, 1);
}

/* One complete answer (`ok` is 0 for an ACK) on connection c. */
static void answered(thread_t *t, conn_t *c, int ok, uint64_t now) {
    c->waiting = 0;
    atomic_store(&last_progress_ns, now);
    if (c->kind == WORKER) {
        record(t, c->tag, now - c->sent_ns);
        if (!ok) {
            t->acks++;
            note_error("ACK", c, c->head);
        }
        c->done++;
        if (c->done < commands) send_command(t, c);
        else {
            worker_finished(t, c);
            close(c->fd);
            c->fd = -1;
        }
    } else if (c->kind == IDLER) {
        if (!ok) {
            t->acks++;
            note_error("ACK to idle", c, c->head);
        }
        if (c->changed) {
            c->events += c->changed;
            if (t->nwakeups == t->wakecap) {
                t->wakecap = t->wakecap ? t->wakecap * 2 : 4096;
                t->wakeups = realloc(t->wakeups, t->wakecap * sizeof *t->wakeups);
            }
            t->wakeups[t->nwakeups++] = now - last_toggle_ns;
        }
        c->changed = 0;
        if (atomic_load(&workers_left_total) > 0) {
            c->waiting = 1;
            if (send_all(c->fd, "idle\n", 5) < 0) {
                c->dead = 1;
                t->closed++;
            }
        }
    } else {
        if (!ok) {
            toggle_acks++;
            note_error("ACK to repeat", c, c->head);
        }
    }
}

/* Feeds received bytes through the line scanner of c. */
static void consume(thread_t *t, conn_t *c, const char *buf, ssize_t n, uint64_t now) {
    for (ssize_t i = 0; i < n; i++) {
        char ch = buf[i];
        if (ch == '\n') {
            int len = c->linepos < (int)sizeof c->head - 1 ? c->linepos : (int)sizeof c->head - 1;
            c->head[len] = 0;
            if (c->linepos == 2 && c->head[0] == 'O' && c->head[1] == 'K') answered(t, c, 1, now);
            else if (c->linepos >= 4 && memcmp(c->head, "ACK ", 4) == 0) answered(t, c, 0, now);
            else if (c->linepos >= 8 && memcmp(c->head, "changed:", 8) == 0) c->changed++;
            c->linepos = 0;
        } else {
            if (c->linepos < (int)sizeof c->head - 1) c->head[c->linepos] = ch;
            c->linepos++;
        }
    }
}

static void *run_thread(void *arg) {
    thread_t *t = arg;
    static __thread char buf[1 << 16];
    struct epoll_event events[256];
    for (int i = 0; i < t->nconns; i++) {
        conn_t *c = t->conns[i];
        if (c->kind == WORKER) send_command(t, c);
    }
    if (t->id == 0 && toggler) next_toggle_ns = now_ns();
    for (;;) {
        int more = t->id == 0 ? atomic_load(&workers_left_total) > 0 : t->workers_left > 0;
        if (!more || atomic_load(&stop_all)) break;
        uint64_t now = now_ns();
        int timeout = 1000;
        if (t->id == 0 && toggler && !toggler->dead && !toggler->waiting) {
            if (now >= next_toggle_ns) {
                send_toggle();
                next_toggle_ns = now + (uint64_t)toggle_ms * 1000000ull;
            }
            int64_t ms = (int64_t)(next_toggle_ns - now) / 1000000;
            timeout = ms < 0 ? 0 : (ms > 1000 ? 1000 : (int)ms + 1);
        }
        int n = epoll_wait(t->epfd, events, 256, timeout);
        now = now_ns();
        for (int e = 0; e < n; e++) {
            conn_t *c = events[e].data.ptr;
            if (c->fd < 0 || c->dead) continue;
            ssize_t got = recv(c->fd, buf, sizeof buf, MSG_DONTWAIT);
            if (got > 0) consume(t, c, buf, got, now);
            else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
                c->dead = 1;
                if (c->kind != TOGGLER) t->closed++;
                note_error("connection closed by the server", c, got == 0 ? "EOF" : strerror(errno));
                epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
                if (c->kind == WORKER && !c->finished) worker_finished(t, c);
            }
        }
        uint64_t progress = atomic_load(&last_progress_ns); /* may be later than `now`: another thread's clock read */
        if (now > progress && now - progress > (uint64_t)stall_s * 1000000000ull) {
            t->stalled = 1;
            atomic_store(&stop_all, 1);
            note_error("stalled", NULL, "no answer completed in the stall window");
            break;
        }
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void print_latencies(const char *name, uint64_t *xs, size_t n) {
    if (n == 0) {
        printf("lat tag=%s n=0\n", name);
        return;
    }
    qsort(xs, n, sizeof *xs, cmp_u64);
    size_t i99 = (size_t)((double)n * 0.99);
    if (i99 >= n) i99 = n - 1;
    printf("lat tag=%s n=%zu p50_us=%.1f p99_us=%.1f max_us=%.1f\n", name, n, xs[n / 2] / 1000.0,
           xs[i99] / 1000.0, xs[n - 1] / 1000.0);
}

static void load_script(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    char line[4096];
    int cap = 0;
    while (fgets(line, sizeof line, f)) {
        char *tab = strchr(line, '\t');
        if (!tab) continue;
        *tab = 0;
        int tag = -1;
        for (int i = 0; i < ntags; i++)
            if (strcmp(tag_names[i], line) == 0) tag = i;
        if (tag < 0) {
            if (ntags == MAX_TAGS) {
                fprintf(stderr, "too many tags\n");
                exit(2);
            }
            tag_names[ntags] = strdup(line);
            tag = ntags++;
        }
        if (script_len == cap) {
            cap = cap ? cap * 2 : 1024;
            script_cmd = realloc(script_cmd, cap * sizeof *script_cmd);
            script_tag = realloc(script_tag, cap * sizeof *script_tag);
        }
        script_cmd[script_len] = strdup(tab + 1); /* keeps its newline */
        script_tag[script_len] = tag;
        script_len++;
    }
    fclose(f);
    if (script_len == 0) {
        fprintf(stderr, "empty script\n");
        exit(2);
    }
}

int main(int argc, char **argv) {
    if (argc != 9) {
        fprintf(stderr, "usage: %s PORT SCRIPT CONNECTIONS COMMANDS IDLERS TOGGLE_MS THREADS STALL_S\n", argv[0]);
        return 2;
    }
    port = atoi(argv[1]);
    load_script(argv[2]);
    connections = atoi(argv[3]);
    commands = atoi(argv[4]);
    idlers = atoi(argv[5]);
    toggle_ms = atoi(argv[6]);
    nthreads = atoi(argv[7]);
    stall_s = atoi(argv[8]);
    if (nthreads < 1) nthreads = 1;

    int total = connections + idlers + (idlers > 0 ? 1 : 0);
    conn_t *conns = calloc((size_t)total, sizeof *conns);
    thread_t *threads = calloc((size_t)nthreads, sizeof *threads);
    for (int i = 0; i < nthreads; i++) {
        threads[i].id = i;
        threads[i].epfd = epoll_create1(0);
        threads[i].conns = calloc((size_t)total, sizeof(conn_t *));
    }
    long connect_failures = 0;
    uint64_t connect_started = now_ns();
    for (int i = 0; i < total; i++) {
        int kind = i < connections ? WORKER : (i < connections + idlers ? IDLER : TOGGLER);
        conn_t *c = &conns[i];
        if (open_connection(i, kind, c) < 0) {
            connect_failures++;
            note_error("connect or greeting failed", c, strerror(errno));
            if (c->fd >= 0) close(c->fd);
            c->fd = -1;
            c->dead = 1;
            continue;
        }
        c->script_base = (int)(((long)i * 37) % script_len);
        /* Idlers and the toggler live on thread 0, which keeps the toggle clock. */
        thread_t *t = kind == WORKER ? &threads[i % nthreads] : &threads[0];
        t->conns[t->nconns++] = c;
        if (kind == WORKER) t->workers_left++;
        if (kind == TOGGLER) toggler = c;
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(t->epfd, EPOLL_CTL_ADD, c->fd, &ev);
    }
    double connect_s = (now_ns() - connect_started) / 1e9;
    for (int i = 0; i < total; i++)
        if (conns[i].kind == IDLER && !conns[i].dead) {
            conns[i].waiting = 1;
            send_all(conns[i].fd, "idle\n", 5);
        }
    int left = 0;
    for (int i = 0; i < nthreads; i++) left += threads[i].workers_left;
    atomic_store(&workers_left_total, left);
    struct rusage ru0, ru1;
    getrusage(RUSAGE_SELF, &ru0);
    uint64_t started = now_ns();
    atomic_store(&last_progress_ns, started);
    pthread_t *ids = calloc((size_t)nthreads, sizeof *ids);
    for (int i = 0; i < nthreads; i++) pthread_create(&ids[i], NULL, run_thread, &threads[i]);
    for (int i = 0; i < nthreads; i++) pthread_join(ids[i], NULL);
    double wall = (now_ns() - started) / 1e9;
    getrusage(RUSAGE_SELF, &ru1);
    double cpu = (ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) + (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) / 1e6 +
                 (ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) + (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) / 1e6;

    /* The idlers leave idle: each must answer `noidle` with OK (after any pending `changed:` lines). */
    long idle_errors = 0, min_events = -1, max_events = 0, total_events = 0;
    static char buf[1 << 16];
    for (int i = 0; i < total; i++) {
        conn_t *c = &conns[i];
        if (c->kind != IDLER) continue;
        if (c->dead) {
            idle_errors++;
            continue;
        }
        if (c->waiting) {
            send_all(c->fd, "noidle\n", 7);
            uint64_t deadline = now_ns() + 5000000000ull;
            thread_t scratch = {0};
            atomic_store(&workers_left_total, 0);
            while (c->waiting && now_ns() < deadline) {
                struct pollfd p = {c->fd, POLLIN, 0};
                if (poll(&p, 1, 100) <= 0) continue;
                ssize_t got = recv(c->fd, buf, sizeof buf, 0);
                if (got <= 0) break;
                consume(&scratch, c, buf, got, now_ns());
            }
            if (c->waiting) {
                idle_errors++;
                note_error("idler did not answer noidle within 5 s", c, "");
            }
            if (scratch.acks) idle_errors++;
            free(scratch.wakeups);
        }
        total_events += c->events;
        if (min_events < 0 || c->events < min_events) min_events = c->events;
        if (c->events > max_events) max_events = c->events;
    }

    long acks = 0, closed = 0, stalled = 0;
    size_t nsamples = 0, nwake = 0;
    for (int i = 0; i < nthreads; i++) {
        acks += threads[i].acks;
        closed += threads[i].closed;
        stalled |= threads[i].stalled;
        nsamples += threads[i].nsamples;
        nwake += threads[i].nwakeups;
    }
    long completed = 0;
    for (int i = 0; i < total; i++)
        if (conns[i].kind == WORKER) completed += conns[i].done;

    printf("connect_s=%.3f\n", connect_s);
    printf("wall_s=%.3f\n", wall);
    printf("commands=%ld\n", completed);
    printf("expected=%ld\n", (long)connections * commands);
    printf("acks=%ld\n", acks);
    printf("closed=%ld\n", closed);
    printf("connect_failures=%ld\n", connect_failures);
    printf("stalled=%ld\n", stalled);
    printf("gen_cpu_s=%.3f\n", cpu);
    printf("toggles=%ld\n", toggles);
    printf("toggle_acks=%ld\n", toggle_acks);
    printf("idle_events=%ld\n", total_events);
    printf("idle_min_events=%ld\n", min_events < 0 ? 0 : min_events);
    printf("idle_max_events=%ld\n", max_events);
    printf("idle_errors=%ld\n", idle_errors);
    for (char *p = first_error; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
    printf("first_error=%s\n", first_error);

    uint64_t *all = malloc((nsamples + 1) * sizeof *all);
    size_t k = 0;
    for (int i = 0; i < nthreads; i++)
        for (size_t j = 0; j < threads[i].nsamples; j++) all[k++] = threads[i].samples[j].ns;
    print_latencies("all", all, k);
    for (int tag = 0; tag < ntags; tag++) {
        k = 0;
        for (int i = 0; i < nthreads; i++)
            for (size_t j = 0; j < threads[i].nsamples; j++)
                if (threads[i].samples[j].tag == tag) all[k++] = threads[i].samples[j].ns;
        print_latencies(tag_names[tag], all, k);
    }
    uint64_t *wake = malloc((nwake + 1) * sizeof *wake);
    k = 0;
    for (int i = 0; i < nthreads; i++)
        for (size_t j = 0; j < threads[i].nwakeups; j++) wake[k++] = threads[i].wakeups[j];
    print_latencies("idle-wakeup", wake, k);
    fflush(stdout);
    for (int i = 0; i < total; i++)
        if (conns[i].fd >= 0) close(conns[i].fd);
    return 0;
}
