/* The layers' channel to `perfq stat` (src/core/stat_channel.h): the shared-memory ring with many
 * writer threads in several processes (forked after attach, and exec'd: each attaches on its own),
 * an overflow's drops counted exactly, a writer killed between reserve and publish (given up
 * after the bounded wait while CMD runs, at once at the end), a page a program scribbled on (no
 * crash, no hang). With PERFQ as argument, the same through `perfq stat --layers --json`, and
 * `perfq record`'s tracks for more contexts than it once held.
 * This binary is also the writer: --writer RECORDS THREADS FORKS, --processes N, --contexts N,
 * --stuck K, --corrupt K, --frame-gaps. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/stat_channel.h"
#include "core/stat_channel_socket.h"
#include "test_util.h"

static const char *perfq_path;
static char self_path[4096];

/* --isolated's exit status where this machine allows neither way of isolating. */
#define CANNOT_ISOLATE 76

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the writer side (this binary exec'd under a channel) ------------------------------------ */

struct writer_arg {
    long records;
    int index;
};

/* FRAME records: a = the real pid, b = the real tid (the channel's cached ones must match),
 * c = the thread's sequence, d = its index. */
static void *writer_thread(void *p)
{
    const struct writer_arg *w = p;
    for (long i = 0; i < w->records; i++) {
        struct perfq_stat_record r = {.kind = PERFQ_STAT_FRAME};
        r.a = (uint64_t)syscall(SYS_getpid);
        r.b = (uint64_t)syscall(SYS_gettid);
        r.c = (uint64_t)i;
        r.d = (uint64_t)w->index;
        perfq_stat_channel_send(&r);
    }
    return NULL;
}

static void write_records(long records, int threads)
{
    pthread_t t[64];
    struct writer_arg a[64];
    for (int i = 0; i < threads && i < 64; i++) {
        a[i] = (struct writer_arg){records, i};
        if (pthread_create(&t[i], NULL, writer_thread, &a[i]) != 0)
            _exit(3);
    }
    for (int i = 0; i < threads && i < 64; i++)
        pthread_join(t[i], NULL);
}

/* The page the environment names, mapped as a program that scribbles on it would. */
static struct perfq_stat_page *map_page(size_t *size)
{
    int fd;
    unsigned long long ino;
    struct stat st;
    const char *env = getenv(PERFQ_STAT_CHANNEL_ENV);
    if (!env || sscanf(env, "%d:%llu", &fd, &ino) != 2 || fstat(fd, &st) != 0)
        _exit(4);
    *size = (size_t)st.st_size;
    void *p = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED)
        _exit(4);
    return p;
}

/* --processes N: the records of the i-th of N processes, each a GL context (its own handle)
 * with one frame, a share group holding 1 KiB of textures in one object and a tag of 1 KiB:
 * what a test suite run under perfq stat sends, one program after another. */
static void process_records(long i)
{
    struct perfq_stat_record r = {.kind = PERFQ_STAT_FRAME};
    r.a = 0x1000u + (uint64_t)i;   /* the context */
    perfq_stat_channel_send(&r);
    struct perfq_stat_record m = {.kind = PERFQ_STAT_GL_MEMORY};
    m.a = 1;    /* the share group, the same number in every process */
    m.b = 1;    /* textures: 1 KiB */
    m.g0 = 1;   /* in 1 object */
    perfq_stat_channel_send(&m);
    struct perfq_stat_record t = {.kind = PERFQ_STAT_GL_MEMORY_TAG};
    t.a = 1;    /* the share group */
    t.b = 7;    /* the tag id, the same in every process */
    t.c = 1;    /* 1 KiB */
    t.d = 1;    /* in 1 object */
    snprintf(t.name, sizeof t.name, "tag of %ld", i);
    perfq_stat_channel_send(&t);
}

/* --contexts N: the records of the i-th of N processes, a GL context announced as the GL layer
 * does in timeline mode (perfq record), with one frame: its CPU interval, a statistics span of
 * one frame with 100 + i vertices, and its GPU interval on the CPU clock. */
static void context_records(long i)
{
    uint64_t handle = 0x1000u + (uint64_t)i, t = now_ns();
    struct perfq_stat_record c = {.kind = PERFQ_STAT_GL_CONTEXT};
    c.a = handle;
    c.c = 1000;    /* the clock's correlation error, ns */
    c.t0 = t;      /* frame 0 began */
    snprintf(c.name, sizeof c.name, "test device");
    perfq_stat_channel_send(&c);
    struct perfq_stat_record f = {.kind = PERFQ_STAT_FRAME};
    f.a = handle;
    f.t0 = t;
    f.t1 = t + 50000;
    perfq_stat_channel_send(&f);
    struct perfq_stat_pipeline p = {.kind = PERFQ_STAT_FRAME_PIPELINE};
    p.context = handle;
    p.mask = 1u << PERFQ_STAT_PIPE_VERTICES;
    p.value[PERFQ_STAT_PIPE_VERTICES] = 100u + (uint64_t)i;
    p.frames = 1;
    struct perfq_stat_record pr;
    memcpy(&pr, &p, sizeof pr);
    perfq_stat_channel_send(&pr);
    struct perfq_stat_record g = {.kind = PERFQ_STAT_FRAME_GPU,
                                  .flags = PERFQ_STAT_HAS_GPU_TIME | PERFQ_STAT_HAS_INTERVAL};
    g.a = handle;
    g.c = 20000;
    g.t0 = 1000;
    g.g0 = t + 10000;
    g.g1 = t + 30000;
    perfq_stat_channel_send(&g);
}

/* 1 when the writer's child pid (fork's result) started and exited 0; the writer side runs
 * outside any cmocka test, so it cannot assert. */
static int child_exited_zero(pid_t pid)
{
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

/* N processes one after another (forked: each inherits the channel's mapping), the i-th
 * sending records(i). 0, or 8 when one could not start or did not exit 0. */
static int one_after_another(long n, void (*records)(long i))
{
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            records(i);
            _exit(0);
        }
        if (!child_exited_zero(pid))
            return 8;
    }
    return 0;
}

/* --kernels N: N OpenCL commands of one kernel "k", each with its own duration (i + 1 ns), in
 * bursts of 8192 with a pause between, so that the channel's reader keeps up. */
static int kernel_records(long n)
{
    for (long i = 0; i < n; i++) {
        struct perfq_stat_record r = {.kind = PERFQ_STAT_CL_COMMAND};
        r.a = 0x11F0;   /* CL_COMMAND_NDRANGE_KERNEL */
        r.flags = PERFQ_STAT_HAS_GPU_TIME;
        r.c = (uint64_t)i + 1;
        snprintf(r.name, sizeof r.name, "k");
        /* Waiting for room (up to 1 s) where the reader is behind: this test is about the
         * percentiles of a million values, not overload (cli_overload is); on a loaded machine
         * under ASan the reader fell 184 267 records behind the pace below (CI, 2026-11-30). */
        perfq_stat_channel_send_waiting(&r, 1000);
        if (i % 8192 == 8191)
            nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    return 0;
}

/* One completed command of each OpenCL command type of cl.h, NDRANGE_KERNEL (0x11F0) to
 * SVM_MIGRATE_MEM (0x120E). */
static int type_records(void)
{
    for (uint64_t t = 0x11F0; t <= 0x120E; t++) {
        struct perfq_stat_record r = {.kind = PERFQ_STAT_CL_COMMAND};
        r.a = t;
        r.flags = PERFQ_STAT_HAS_GPU_TIME;
        r.c = 1000;
        perfq_stat_channel_send_waiting(&r, 1000);
    }
    return 0;
}

static int writer_main(int argc, char **argv)
{
    if (!perfq_stat_channel_active())
        return 2;
    if (strcmp(argv[1], "--writer") == 0 && argc == 5) {
        /* RECORDS from the main thread (index THREADS), then FORKS children, then RECORDS from
         * each of THREADS threads; each child does the same without forking. A child inherits
         * the mapping; the pid and the forking thread's tid it has cached must be its own. */
        long records = atol(argv[2]);
        int threads = atoi(argv[3]), forks = atoi(argv[4]);
        struct writer_arg main_thread = {records, threads};
        writer_thread(&main_thread);
        pid_t kids[16];
        int n = 0;
        for (int i = 0; i < forks && i < 16; i++) {
            pid_t pid = fork();
            if (pid == 0) {
                writer_thread(&main_thread);
                write_records(records, threads);
                _exit(0);
            }
            if (pid > 0)
                kids[n++] = pid;
        }
        write_records(records, threads);
        int bad = 0;
        for (int i = 0; i < n; i++)
            if (!child_exited_zero(kids[i]))
                bad = 1;
        return bad;
    }
    if (strcmp(argv[1], "--kernels") == 0 && argc == 3)
        return kernel_records(atol(argv[2]));
    if (strcmp(argv[1], "--types") == 0 && argc == 2)
        return type_records();
    if (strcmp(argv[1], "--processes") == 0 && argc == 3)
        return one_after_another(atol(argv[2]), process_records);
    if (strcmp(argv[1], "--contexts") == 0 && argc == 3)
        return one_after_another(atol(argv[2]), context_records);
    if (strcmp(argv[1], "--frame-gaps") == 0 && argc == 2) {
        /* One context's 10 frames as the GL layer numbers them (b = 0..9), their FRAME records
         * but those of frames 3 to 7 lost (what a full ring drops), every FRAME_GPU there. */
        for (uint64_t f = 0; f < 10; f++) {
            struct perfq_stat_record r = {.kind = PERFQ_STAT_FRAME};
            r.a = 1;
            r.b = f;
            r.c = 1000000;
            if (f < 3 || f > 7)
                perfq_stat_channel_send(&r);
            struct perfq_stat_record g = {.kind = PERFQ_STAT_FRAME_GPU,
                                          .flags = PERFQ_STAT_HAS_GPU_TIME};
            g.a = 1;
            g.b = f;
            g.c = 500000;
            perfq_stat_channel_send(&g);
        }
        return 0;
    }
    if (strcmp(argv[1], "--stuck") == 0 && argc == 3) {
        /* K records, then a slot reserved as a writer does (head moved on) and never published:
         * what a writer killed between its CAS and its publication leaves. */
        write_records(atol(argv[2]), 1);
        size_t size;
        struct perfq_stat_page *p = map_page(&size);
        __atomic_add_fetch(&p->head, 1, __ATOMIC_RELAXED);
        raise(SIGKILL);
        return 5;
    }
    if (strcmp(argv[1], "--corrupt") == 0 && argc == 3) {
        long k = atol(argv[2]);
        size_t size;
        struct perfq_stat_page *p = map_page(&size);
        struct perfq_stat_slot *slots =
            (struct perfq_stat_slot *)((char *)p + PERFQ_STAT_PAGE_BYTES);
        size_t n = (size - PERFQ_STAT_PAGE_BYTES) / sizeof(*slots);
        const uint64_t garbage[] = {0xdeadbeefdeadbeefu, UINT64_MAX, 0x7fffffffffffffffu, 3};
        for (size_t g = 0; g < sizeof(garbage) / sizeof(garbage[0]); g++) {
            __atomic_store_n(&p->head, garbage[g], __ATOMIC_RELAXED);
            for (size_t i = g; i < n; i += 7)
                __atomic_store_n(&slots[i].seq, garbage[(g + i) % 4] ^ i, __ATOMIC_RELAXED);
            write_records(k, 2);
        }
        /* A process that attaches now reads a slot count it must refuse. */
        __atomic_store_n(&p->slots, UINT64_MAX, __ATOMIC_RELAXED);
        pid_t pid = fork();
        if (pid == 0) {
            execl(self_path, self_path, "--writer", argv[2], "1", "0", (char *)NULL);
            _exit(127);
        }
        if (!child_exited_zero(pid))
            return 6;
        return 0;
    }
    return 7;
}

/* ---- the reader side ------------------------------------------------------------------------- */

/* Starts this binary as a writer on `ring` (its fd inherited, as CMD's). */
static pid_t spawn_writer(int fd, const char *mode, const char *a1, const char *a2, const char *a3)
{
    char env[64];
    assert_int_equal(perfq_stat_channel_env(fd, NULL, env, sizeof env), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);
        execl(self_path, self_path, mode, a1, a2, a3, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int wait_status(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* What a reader saw: per (pid, thread index) the next sequence expected. */
struct seen {
    uint64_t received, bad;
    struct {
        uint32_t pid;
        uint64_t index, next;
    } keys[256];
    size_t n;
};

/* Each writer thread's records come in its order, with the pid and tid it really has. */
static void check_record(struct seen *s, const struct perfq_stat_record *r)
{
    s->received++;
    if (r->magic != PERFQ_STAT_RECORD_MAGIC || r->kind != PERFQ_STAT_FRAME || r->pid != r->a ||
        r->tid != r->b) {
        s->bad++;
        return;
    }
    size_t i = 0;
    while (i < s->n && !(s->keys[i].pid == r->pid && s->keys[i].index == r->d))
        i++;
    if (i == s->n) {
        if (s->n == 256) {
            s->bad++;
            return;
        }
        s->keys[s->n].pid = r->pid;
        s->keys[s->n].index = r->d;
        s->keys[s->n++].next = 0;
    }
    if (r->c < s->keys[i].next)
        s->bad++;   /* out of order, or twice */
    s->keys[i].next = r->c + 1;
}

static void read_all(struct perfq_stat_ring *ring, struct seen *s, uint64_t now, int final)
{
    struct perfq_stat_record r;
    while (perfq_stat_ring_read(ring, &r, now, final))
        check_record(s, &r);
}

/* Reads while the writers run (pids[], n), then what is left once they have exited. */
static void read_while(struct perfq_stat_ring *ring, struct seen *s, pid_t *pids, int n)
{
    int left = n;
    while (left) {
        read_all(ring, s, now_ns(), 0);
        for (int i = 0; i < n; i++) {
            int status;
            if (pids[i] > 0 && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 0);
                pids[i] = 0;
                left--;
            }
        }
        usleep(1000);
    }
    read_all(ring, s, now_ns(), 1);
}

/* ---- in one process: threads (what TSan sees) ------------------------------------------------ */

struct reader_arg {
    struct perfq_stat_ring *ring;
    struct seen *seen;
    int done;
};

static void *reader_thread(void *p)
{
    struct reader_arg *a = p;
    while (!__atomic_load_n(&a->done, __ATOMIC_ACQUIRE))
        read_all(a->ring, a->seen, now_ns(), 0);
    read_all(a->ring, a->seen, now_ns(), 1);
    return NULL;
}

static void threads_one_process(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 1024);
    assert_true(fd >= 0);
    char env[64];
    assert_int_equal(perfq_stat_channel_env(fd, NULL, env, sizeof env), 0);
    setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);
    /* This process attaches once: the only case that writes from it. */
    assert_true(perfq_stat_channel_active());
    unsetenv(PERFQ_STAT_CHANNEL_ENV);
    close(fd);   /* the mappings stay */
    static struct seen seen;
    struct reader_arg ra = {&ring, &seen, 0};
    pthread_t reader;
    assert_int_equal(pthread_create(&reader, NULL, reader_thread, &ra), 0);
    write_records(20000, 8);
    __atomic_store_n(&ra.done, 1, __ATOMIC_RELEASE);
    pthread_join(reader, NULL);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(seen.received + perfq_stat_ring_dropped(&ring), 8 * 20000);
    assert_int_equal(ring.given_up, 0);
    assert_int_equal(ring.page->attached, 1);
    perfq_stat_ring_close(&ring);
}

/* ---- processes ------------------------------------------------------------------------------- */

/* 3 exec'd writers, each forking 2 children after attach, 4 threads and the main one each: 45
 * threads in 9 processes, in a ring that holds all they write (threads_one_process and the
 * CLI's tests overflow theirs): every record received, in each thread's order, with its pid and
 * tid. */
static void processes_exact(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 65536);
    assert_true(fd >= 0);
    pid_t pids[3];
    for (int i = 0; i < 3; i++)
        pids[i] = spawn_writer(fd, "--writer", "1200", "4", "2");
    close(fd);
    static struct seen seen;
    read_while(&ring, &seen, pids, 3);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(seen.received, 3 * 3 * 5 * 1200);
    assert_int_equal(perfq_stat_ring_dropped(&ring), 0);
    assert_int_equal(seen.n, 3 * 3 * 5);   /* every thread of every process */
    assert_int_equal(ring.page->attached, 3);   /* forked children inherit the attachment */
    assert_int_equal(ring.given_up, 0);
    perfq_stat_ring_close(&ring);
}

/* Nobody reads: a ring of 64 takes 64 records (the main thread's first) and drops exactly the
 * rest of 2000. */
static void overload_exact(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 64);
    assert_true(fd >= 0);
    pid_t pid = spawn_writer(fd, "--writer", "1000", "1", "0");
    assert_int_equal(wait_status(pid), 0);
    assert_int_equal(__atomic_load_n(&ring.page->dropped, __ATOMIC_RELAXED), 2000 - 64);
    struct seen seen = {0};
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 64);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(seen.keys[0].next, 64);   /* the first 64, in order */
    assert_int_equal(perfq_stat_ring_dropped(&ring), 2000 - 64);
    /* Read, the ring takes records again: the next lap's slots. */
    assert_int_equal(wait_status(spawn_writer(fd, "--writer", "10", "1", "0")), 0);
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 84);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(perfq_stat_ring_dropped(&ring), 2000 - 64);
    close(fd);
    perfq_stat_ring_close(&ring);
}

/* A writer whose inherited fd was closed and its number reused: it attaches through perfq's own
 * copy (/proc/PID/fd/FD, this process keeping the fd open as perfq does) and every record
 * arrives. With that copy closed too, it does not attach (its fd number is /dev/null's in the
 * writer, closed in this process): nothing written. */
static void writer_lost_its_fd(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 256);
    assert_true(fd >= 0);
    assert_int_equal(wait_status(spawn_writer(fd, "--fd-lost", "50", NULL, NULL)), 0);
    struct seen seen = {0};
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 2 * 50);   /* --writer RECORDS 1 0: two threads' records */
    assert_int_equal(seen.bad, 0);
    assert_int_equal(ring.page->attached, 1);
    /* perfq's copy gone as well: the env's fd number then names a closed fd in perfq. */
    char env[64];
    assert_int_equal(perfq_stat_channel_env(fd, NULL, env, sizeof env), 0);
    close(fd);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);
        execl(self_path, self_path, "--fd-lost", "5", (char *)NULL);
        _exit(127);
    }
    assert_int_equal(wait_status(pid), 2);   /* writer_main: not attached */
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 2 * 50);
    assert_int_equal(ring.page->attached, 1);
    perfq_stat_ring_close(&ring);
}

/* Waits for pid while answering the channel's socket as perfq's drain thread does; its exit
 * status, and the memfds handed over added to *handed. */
static int wait_serving(pid_t pid, int listen_fd, int page_fd, int *handed)
{
    for (;;) {
        int status;
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        assert_int_equal(w, 0);
        struct pollfd p = {listen_fd, POLLIN, 0};
        if (poll(&p, 1, 10) > 0)
            *handed += perfq_stat_socket_serve(listen_fd, page_fd);
    }
}

/* Starts this binary as an --isolated writer of RECORDS records under env. */
static pid_t spawn_isolated_writer(const char *env, const char *records)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);
        execl(self_path, self_path, "--isolated", records, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* A writer that may not open perfq's copy either (--isolated: in a user namespace of its own,
 * or where that is refused and this runs as root, without capabilities; /proc/PID/fd/FD is then
 * refused with EACCES, as to Chromium's GPU process under a perfq run as root) asks perfq's
 * socket for the memfd: it is handed over once and every record arrives. The socket is the
 * user's alone. A stale socket file (its perfq killed: its pid gone, nobody listens) is swept
 * at the next open, a live one kept and not connected to. A socket nobody answers lets the
 * writer go unattached after its bounded wait. */
static void writer_fetches_over_socket(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 256);
    assert_true(fd >= 0);
    char path[108];
    int listen_fd = perfq_stat_socket_open(path, sizeof path);
    assert_true(listen_fd >= 0);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISSOCK(st.st_mode));
    assert_int_equal(st.st_mode & 0777, 0600);
    char env[192];
    assert_int_equal(perfq_stat_channel_env(fd, path, env, sizeof env), 0);
    int handed = 0;
    int status = wait_serving(spawn_isolated_writer(env, "50"), listen_fd, fd, &handed);
    if (status == CANNOT_ISOLATE) {
        const char *why = "neither a user namespace nor (as root) a capability drop here";
        if (getenv("CI") && strcmp(getenv("CI"), "true") == 0)
            fail_msg("%s (CI's machines allow one)", why);
        printf("# skipped: %s\n", why);
        skip();
    }
    assert_int_equal(status, 0);
    assert_int_equal(handed, 1);
    struct seen seen = {0};
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 2 * 50);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(ring.page->attached, 1);

    /* A socket left by a perfq killed (its pid gone, nobody listening) goes at the next open;
     * a live perfq's stays (and is not connected to: it hands nothing over). */
    pid_t gone = fork();
    assert_true(gone >= 0);
    if (gone == 0)
        _exit(0);
    assert_int_equal(wait_status(gone), 0);
    char stale[108], unanswered[108];
    int n = snprintf(stale, sizeof stale, "%.*s/perfq-stat-%ld-0.sock",
                     (int)(strrchr(path, '/') - path), path, (long)gone);
    assert_true(n > 0 && (size_t)n < sizeof stale);
    int stale_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, stale, (size_t)n + 1);
    assert_int_equal(bind(stale_fd, (struct sockaddr *)&addr, sizeof addr), 0);
    close(stale_fd);   /* never unlinked, as after a SIGKILL */
    assert_int_equal(stat(stale, &st), 0);
    int unanswered_fd = perfq_stat_socket_open(unanswered, sizeof unanswered);
    assert_true(unanswered_fd >= 0);
    assert_int_equal(stat(stale, &st), -1);
    assert_int_equal(stat(path, &st), 0);   /* a live perfq's: kept */
    /* and not knocked on: no connection waits on it */
    assert_int_equal(accept4(listen_fd, NULL, NULL, SOCK_CLOEXEC), -1);
    assert_int_equal(errno, EAGAIN);

    /* Nobody answers: the writer waits PERFQ_STAT_SOCKET_WAIT_MS, then runs unattached. */
    assert_int_equal(perfq_stat_channel_env(fd, unanswered, env, sizeof env), 0);
    assert_int_equal(wait_status(spawn_isolated_writer(env, "5")), 2);   /* not attached */
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.received, 2 * 50);
    assert_int_equal(ring.page->attached, 1);
    perfq_stat_socket_close(unanswered_fd, unanswered);
    perfq_stat_socket_close(listen_fd, path);
    assert_int_equal(stat(path, &st), -1);
    close(fd);
    perfq_stat_ring_close(&ring);
}

struct fetch_arg {
    const char *path;
    int fd;
};

static void *fetch_thread(void *p)
{
    struct fetch_arg *a = p;
    a->fd = perfq_stat_socket_fetch(a->path);
    return NULL;
}

/* A full backlog (more processes asking at once than perfq's listen takes) is asked again
 * within the layer's wait, not given up: here a backlog of one, filled by another client, that
 * perfq (this thread) empties while the layer (a thread) asks; the layer gets the memfd. */
static void fetch_through_a_full_backlog(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 64);
    assert_true(fd >= 0);
    char path[108];
    int listen_fd = perfq_stat_socket_open(path, sizeof path);
    assert_true(listen_fd >= 0);
    assert_int_equal(listen(listen_fd, 0), 0);   /* Linux: one waiting connection at most */
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    memcpy(addr.sun_path, path, strlen(path) + 1);
    int filler = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_int_equal(connect(filler, (struct sockaddr *)&addr, sizeof addr), 0);
    int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
    assert_int_equal(connect(probe, (struct sockaddr *)&addr, sizeof addr), -1);
    assert_int_equal(errno, EAGAIN);   /* the backlog is full */
    close(probe);
    struct fetch_arg a = {path, -1};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, fetch_thread, &a), 0);
    usleep(50000);   /* the layer is now asking again every 10 ms */
    int handed = perfq_stat_socket_serve(listen_fd, fd);   /* the filler: room again */
    struct pollfd p = {listen_fd, POLLIN, 0};
    while (handed < 2 && poll(&p, 1, 5000) == 1)
        handed += perfq_stat_socket_serve(listen_fd, fd);
    pthread_join(t, NULL);
    assert_int_equal(handed, 2);
    assert_true(a.fd >= 0);
    struct stat got, want;
    assert_int_equal(fstat(a.fd, &got), 0);
    assert_int_equal(fstat(fd, &want), 0);
    assert_true(got.st_ino == want.st_ino && got.st_dev == want.st_dev);
    close(a.fd);
    close(filler);
    perfq_stat_socket_close(listen_fd, path);
    close(fd);
    perfq_stat_ring_close(&ring);
}

/* A writer killed between reserve and publish: while CMD runs the reader waits for the slot
 * PERFQ_STAT_RING_STUCK_NS (the clock is the caller's: no timing here), then gives it up and
 * reads what came after it; at the end it gives such a slot up at once. */
static void stuck_writer_given_up(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 256);
    assert_true(fd >= 0);
    assert_int_equal(wait_status(spawn_writer(fd, "--stuck", "10", NULL, NULL)), 128 + SIGKILL);
    assert_int_equal(wait_status(spawn_writer(fd, "--writer", "5", "1", "0")), 0);
    struct seen seen = {0};
    uint64_t t0 = 1000000000u;
    read_all(&ring, &seen, t0, 0);
    assert_int_equal(seen.received, 10);   /* then the reserved slot: waited for */
    read_all(&ring, &seen, t0 + PERFQ_STAT_RING_STUCK_NS - 1, 0);
    assert_int_equal(seen.received, 10);
    assert_int_equal(ring.given_up, 0);
    read_all(&ring, &seen, t0 + PERFQ_STAT_RING_STUCK_NS, 0);
    assert_int_equal(seen.received, 20);
    assert_int_equal(ring.given_up, 1);
    assert_int_equal(perfq_stat_ring_dropped(&ring), 1);
    /* At the end: no wait. */
    assert_int_equal(wait_status(spawn_writer(fd, "--stuck", "3", NULL, NULL)), 128 + SIGKILL);
    read_all(&ring, &seen, t0 + PERFQ_STAT_RING_STUCK_NS, 0);
    assert_int_equal(seen.received, 23);
    read_all(&ring, &seen, t0 + PERFQ_STAT_RING_STUCK_NS + 1, 1);
    assert_int_equal(ring.given_up, 2);
    assert_int_equal(seen.bad, 0);
    /* A later writer's records still come. */
    assert_int_equal(wait_status(spawn_writer(fd, "--writer", "7", "1", "0")), 0);
    read_all(&ring, &seen, t0, 1);
    assert_int_equal(seen.received, 37);
    assert_int_equal(perfq_stat_ring_dropped(&ring), 2);
    close(fd);
    perfq_stat_ring_close(&ring);
}

/* A writer SIGKILLed at an arbitrary point of a flood: the last reading ends, and every slot
 * the writers reserved was either read or given up. */
static void killed_flood_writer(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 1024);
    assert_true(fd >= 0);
    pid_t pid = spawn_writer(fd, "--writer", "1000000000", "2", "0");
    close(fd);
    static struct seen seen;
    while (seen.received < 20000)
        read_all(&ring, &seen, now_ns(), 0);
    kill(pid, SIGKILL);
    assert_int_equal(wait_status(pid), 128 + SIGKILL);
    read_all(&ring, &seen, now_ns(), 1);
    assert_int_equal(seen.bad, 0);
    assert_int_equal(seen.received + ring.given_up,
                     __atomic_load_n(&ring.page->head, __ATOMIC_RELAXED));
    perfq_stat_ring_close(&ring);
}

/* A program that scribbles on the page (head, slots' sequences, the slot count): its writers do
 * not crash (the writer exits 0, and so does a child that attaches afterwards), and the reader
 * ends. */
static void corrupt_page(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 256);
    assert_true(fd >= 0);
    pid_t pid = spawn_writer(fd, "--corrupt", "100", NULL, NULL);
    close(fd);
    assert_int_equal(wait_status(pid), 0);
    struct seen seen = {0};
    read_all(&ring, &seen, now_ns(), 0);
    read_all(&ring, &seen, now_ns(), 1);
    /* The child that attached after the slot count was scribbled on could write nothing: its
     * 200 records are counted. */
    assert_true(perfq_stat_ring_dropped(&ring) >= 200);
    assert_int_equal(ring.page->attached, 2);
    perfq_stat_ring_close(&ring);
}

/* ---- through perfq stat ---------------------------------------------------------------------- */

/* perfq stat --layers --json -o FILE -- ARGS...: its exit status and the report's JSON. */
static int run_perfq(const char *slots, const char *const *args, json_object **json)
{
    char rep_path[] = "/tmp/perfq-chan-XXXXXX";
    int rep = mkstemp(rep_path);
    assert_true(rep >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (slots)
            setenv("PERFQ_STAT_RING_SLOTS", slots, 1);
        const char *argv[16] = {perfq_path, "stat", "--layers", "--json", "-o", rep_path, "--"};
        int k = 7;
        for (int i = 0; args[i] && k < 15; i++)
            argv[k++] = args[i];
        execv(perfq_path, (char *const *)argv);
        _exit(99);
    }
    int rc = wait_status(pid);
    *json = json_object_from_file(rep_path);
    close(rep);
    unlink(rep_path);
    assert_non_null(*json);
    return rc;
}

static int64_t get_int(json_object *j, const char *path)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_object *o = j;
    for (char *save, *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save))
        if (!json_object_object_get_ex(o, part, &o))
            fail_msg("no %s in the report", path);
    return json_object_get_int64(o);
}

static void cli_processes_exact(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq(NULL, (const char *[]){self_path, "--writer", "5000", "4", "2", NULL}, &j);
    assert_int_equal(rc, 0);
    /* Records read (frames.received): these writers' FRAME records number nothing (b is their
     * tid), so frames.count, which counts a context's frames from their numbers, is not theirs. */
    assert_int_equal(get_int(j, "frames.received") + get_int(j, "channel.dropped"), 3 * 5 * 5000);
    assert_int_equal(get_int(j, "channel.processes"), 3);
    assert_int_equal(get_int(j, "channel.malformed"), 0);
    json_object_put(j);
}

/* More contexts, processes, GL share groups and tags than the report's tables held before
 * (1024, 1024, 256 and 256: the counts stopped there, the memory of later share groups and the
 * later tags were left out and counted "malformed"): every one is counted. */
static void cli_many_processes(void **state)
{
    (void)state;
    json_object *j;
    enum { N = 1500 };
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    int rc = run_perfq(NULL, (const char *[]){self_path, "--processes", n, NULL}, &j);
    assert_int_equal(rc, 0);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "frames.count"), N);
    assert_int_equal(get_int(j, "frames.contexts"), N);
    assert_int_equal(get_int(j, "channel.processes"), N);
    assert_int_equal(get_int(j, "gl_memory.share_groups"), N);
    assert_int_equal(get_int(j, "gl_memory.textures_kib"), N);
    assert_int_equal(get_int(j, "gl_memory.textures_objects"), N);
    json_object *g, *tags;
    assert_true(json_object_object_get_ex(j, "gl_memory", &g));
    assert_true(json_object_object_get_ex(g, "tags", &tags));
    assert_int_equal(json_object_array_length(tags), N);
    json_object *last = json_object_array_get_idx(tags, N - 1), *name, *group;
    assert_true(json_object_object_get_ex(last, "name", &name));
    char want[32];
    snprintf(want, sizeof want, "tag of %d", N - 1);
    assert_string_equal(json_object_get_string(name), want);
    assert_true(json_object_object_get_ex(last, "share_group", &group));
    assert_int_equal(json_object_get_int64(group), N - 1);
    assert_int_equal(get_int(j, "channel.malformed"), 0);
    assert_int_equal(get_int(j, "channel.untracked"), 0);
    json_object_put(j);
}

/* Every OpenCL command type of cl.h has its name in the report (SVM_MIGRATE_MEM, OpenCL 2.1,
 * read "0x120e" until 2026-11-30: an outside probe). */
static void cli_command_type_names(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq(NULL, (const char *[]){self_path, "--types", NULL}, &j);
    assert_int_equal(rc, 0);
    json_object *cl, *types;
    assert_true(json_object_object_get_ex(j, "opencl", &cl));
    assert_true(json_object_object_get_ex(cl, "by_command_type", &types));
    size_t n = json_object_array_length(types);
    assert_int_equal(n, 0x120E - 0x11F0 + 1);
    int migrate = 0;
    for (size_t i = 0; i < n; i++) {
        json_object *name;
        assert_true(json_object_object_get_ex(json_object_array_get_idx(types, i), "name",
                                              &name));
        const char *s = json_object_get_string(name);
        assert_null(strstr(s, "0x"));
        migrate += strcmp(s, "SVM_MIGRATE_MEM") == 0;
    }
    assert_int_equal(migrate, 1);
    json_object_put(j);
}

/* Past 2^20 values of one kernel its percentiles come from a reservoir sample, and the report
 * says so as it does for frames (before, the OpenCL rows printed them as exact). */
static void cli_kernel_percentiles_sampled(void **state)
{
    (void)state;
    json_object *j;
    enum { N = (1 << 20) + 5000 };
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    int rc = run_perfq("262144", (const char *[]){self_path, "--kernels", n, NULL}, &j);
    assert_int_equal(rc, 0);
    assert_int_equal(get_int(j, "channel.dropped"), 0);
    assert_int_equal(get_int(j, "opencl.commands"), N);
    json_object *cl, *kernels, *types, *sampled;
    assert_true(json_object_object_get_ex(j, "opencl", &cl));
    assert_true(json_object_object_get_ex(cl, "by_kernel", &kernels));
    assert_true(json_object_object_get_ex(cl, "by_command_type", &types));
    assert_int_equal(json_object_array_length(kernels), 1);
    assert_true(json_object_object_get_ex(json_object_array_get_idx(kernels, 0), "sampled",
                                          &sampled));
    assert_true(json_object_get_boolean(sampled));
    assert_true(json_object_object_get_ex(json_object_array_get_idx(types, 0), "sampled",
                                          &sampled));
    assert_true(json_object_get_boolean(sampled));
    json_object_put(j);
}

/* The value of otherData's key in a perfq record trace. */
static int64_t trace_note_of(json_object *trace, const char *key)
{
    json_object *other, *v;
    assert_true(json_object_object_get_ex(trace, "otherData", &other));
    if (!json_object_object_get_ex(other, key, &v))
        fail_msg("no otherData.%s in the trace", key);
    return json_object_get_int64(v);
}

/* More GL contexts than perfq record's timeline held (1024 tracks: the GPU intervals of later
 * contexts were counted unmatched) and more counter names than its trace held (1023: the later
 * contexts' "vertices per frame" tracks became one "(other)" track): each context has its own
 * track with its frame's GPU interval, and its own counter track with its own value. */
static void cli_record_many_contexts(void **state)
{
    (void)state;
    enum { N = 1500 };
    char trace_path[] = "/tmp/perfq-chan-trace-XXXXXX";
    int fd = mkstemp(trace_path);
    assert_true(fd >= 0);
    close(fd);
    char n[16];
    snprintf(n, sizeof n, "%d", N);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(perfq_path, perfq_path, "record", "-o", trace_path, "--", self_path, "--contexts", n,
              (char *)NULL);
        _exit(99);
    }
    assert_int_equal(wait_status(pid), 0);
    json_object *trace = json_object_from_file(trace_path);
    unlink(trace_path);
    assert_non_null(trace);
    assert_int_equal(trace_note_of(trace, "records_dropped"), 0);
    assert_int_equal(trace_note_of(trace, "frames"), N);
    assert_int_equal(trace_note_of(trace, "gpu_intervals"), N);
    assert_int_equal(trace_note_of(trace, "gpu_intervals_unmatched"), 0);
    assert_int_equal(trace_note_of(trace, "events_named_other"), 0);
    json_object *events;
    assert_true(json_object_object_get_ex(trace, "traceEvents", &events));
    /* Per context (handle 0x1000 + i): its track's name, its GPU frame, its counter's value. */
    static unsigned char named[N], gpu_frames[N], counted[N];
    memset(named, 0, sizeof named);
    memset(gpu_frames, 0, sizeof gpu_frames);
    memset(counted, 0, sizeof counted);
    for (size_t e = 0; e < json_object_array_length(events); e++) {
        json_object *ev = json_object_array_get_idx(events, e), *ph, *name, *args, *v;
        assert_true(json_object_object_get_ex(ev, "ph", &ph));
        assert_true(json_object_object_get_ex(ev, "name", &name));
        const char *p = json_object_get_string(ph), *nm = json_object_get_string(name);
        unsigned long handle;
        if (strcmp(p, "M") == 0 && strcmp(nm, "thread_name") == 0) {
            assert_true(json_object_object_get_ex(ev, "args", &args));
            assert_true(json_object_object_get_ex(args, "name", &v));
            if (sscanf(json_object_get_string(v), "GL context %lu", &handle) == 1 &&
                handle - 0x1000u < N)
                named[handle - 0x1000u]++;
        } else if (strcmp(p, "X") == 0 && strcmp(nm, "frame") == 0 &&
                   json_object_object_get_ex(ev, "cat", &v) &&
                   strcmp(json_object_get_string(v), "gl-gpu") == 0) {
            json_object *tid;
            assert_true(json_object_object_get_ex(ev, "tid", &tid));
            int64_t t = json_object_get_int64(tid);   /* tracks are numbered from 1 */
            assert_true(t >= 1 && t <= N);
            gpu_frames[t - 1]++;
        } else if (strcmp(p, "C") == 0 &&
                   sscanf(nm, "vertices per frame, context %lu", &handle) == 1) {
            assert_true(handle - 0x1000u < N);
            assert_true(json_object_object_get_ex(ev, "args", &args));
            assert_true(json_object_object_get_ex(args, "value", &v));
            assert_int_equal(json_object_get_int64(v), 100 + (handle - 0x1000u));
            counted[handle - 0x1000u]++;
        }
    }
    for (int i = 0; i < N; i++) {
        if (named[i] != 1 || gpu_frames[i] != 1 || counted[i] != 1)
            fail_msg("context %d: %d track names, %d GPU frames, %d counter values", i, named[i],
                     gpu_frames[i], counted[i]);
    }
    json_object_put(trace);
}

/* A ring of 16 slots that the drain thread reads every 10 ms: most of a burst is dropped, and
 * counted exactly. */
static void cli_overload(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq("16", (const char *[]){self_path, "--writer", "100000", "1", "0", NULL},
                       &j);
    assert_int_equal(rc, 0);
    int64_t frames = get_int(j, "frames.received"), dropped = get_int(j, "channel.dropped");
    assert_int_equal(frames + dropped, 2 * 100000);
    assert_true(dropped > 0);
    assert_true(frames >= 16);
    json_object_put(j);
}

/* Frames whose FRAME records were lost (a full ring drops them; here never sent): the frames
 * rendered are counted from the frames' numbers, 10, never fewer than those with GPU time (until
 * 2026-11-29 the report said "5 frames; 10 with GPU time", an outside probe's "2229 frames;
 * 2249 with GPU time"); frames.received says how many FRAME records came. */
static void cli_frames_counted_from_numbers(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq(NULL, (const char *[]){self_path, "--frame-gaps", NULL}, &j);
    assert_int_equal(rc, 0);
    assert_int_equal(get_int(j, "frames.count"), 10);
    assert_int_equal(get_int(j, "frames.received"), 5);
    assert_int_equal(get_int(j, "frames.with_gpu_time"), 10);
    assert_int_equal(get_int(j, "frames.contexts"), 1);
    assert_int_equal(get_int(j, "frames.cpu_frame_ns.count"), 5);
    json_object_put(j);
}

/* CMD killed with a slot reserved and never published: the report comes (no hang), with the
 * records before and the slot counted as dropped. */
static void cli_stuck_writer(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq(NULL, (const char *[]){self_path, "--stuck", "10", NULL}, &j);
    assert_int_equal(rc, 128 + SIGKILL);
    assert_int_equal(get_int(j, "signal"), SIGKILL);
    assert_int_equal(get_int(j, "frames.received"), 10);
    assert_int_equal(get_int(j, "channel.dropped"), 1);
    json_object_put(j);
}

static void cli_corrupt_page(void **state)
{
    (void)state;
    json_object *j;
    int rc = run_perfq(NULL, (const char *[]){self_path, "--corrupt", "100", NULL}, &j);
    assert_int_equal(rc, 0);
    assert_true(get_int(j, "channel.dropped") >= 200);
    json_object_put(j);
}

int main(int argc, char **argv)
{
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return 1;
    self_path[n] = '\0';
    if (argc == 3 && strcmp(argv[1], "--fd-lost") == 0) {
        /* What Python's subprocess, or a daemon, does before it starts its children: the fds it
         * does not know closed, the number reused (here by /dev/null); then an exec'd writer of
         * RECORDS records, whose layer attaches at its start. */
        int fd;
        const char *env = getenv(PERFQ_STAT_CHANNEL_ENV);
        if (!env || sscanf(env, "%d:", &fd) != 1 || fd < 0)
            return 8;
        int null = open("/dev/null", O_RDWR);
        if (null < 0 || dup2(null, fd) != fd)
            return 9;
        close(null);
        execl(self_path, self_path, "--writer", argv[2], "1", "0", (char *)NULL);
        return 127;
    }
    if (argc == 3 && strcmp(argv[1], "--isolated") == 0) {
        /* A process that may not open perfq's fds through /proc, then as --fd-lost. */
        if (test_isolate_from_perfq() != 0)
            return CANNOT_ISOLATE;
        execl(self_path, self_path, "--fd-lost", argv[2], (char *)NULL);
        return 127;
    }
    if (argc >= 2 && argv[1][0] == '-' && argv[1][1] == '-')
        return writer_main(argc, argv);
    const struct CMUnitTest ring_tests[] = {
        cmocka_unit_test(processes_exact),
        cmocka_unit_test(overload_exact),
        cmocka_unit_test(stuck_writer_given_up),
        cmocka_unit_test(writer_lost_its_fd),
        cmocka_unit_test(writer_fetches_over_socket),
        cmocka_unit_test(fetch_through_a_full_backlog),
        cmocka_unit_test(killed_flood_writer),
        cmocka_unit_test(corrupt_page),
        cmocka_unit_test(threads_one_process),   /* last: this process stays attached */
    };
    const struct CMUnitTest cli_tests[] = {
        cmocka_unit_test(cli_processes_exact),
        cmocka_unit_test(cli_many_processes),
        cmocka_unit_test(cli_kernel_percentiles_sampled),
        cmocka_unit_test(cli_command_type_names),
        cmocka_unit_test(cli_record_many_contexts),
        cmocka_unit_test(cli_overload),
        cmocka_unit_test(cli_stuck_writer),
        cmocka_unit_test(cli_frames_counted_from_numbers),
        cmocka_unit_test(cli_corrupt_page),
    };
    int failed = cmocka_run_group_tests_name("stat-channel", ring_tests, NULL, NULL);
    if (argc >= 2) {
        perfq_path = argv[1];
        failed += cmocka_run_group_tests_name("stat-channel-cli", cli_tests, NULL, NULL);
    }
    return failed;
}
