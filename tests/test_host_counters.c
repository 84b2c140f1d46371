/* Host counters against known work: CPU time of a busy loop, faults of fresh pages, bytes of a
 * known write, a child process's CPU time through a pid target, a target creating threads. */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfq/perfq.h"
#include "test_util.h"

static uint64_t clock_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void busy_cpu(uint64_t ns)
{
    uint64_t end = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
    volatile uint64_t x = 0;
    while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 1000; i++)
            x += (uint64_t)i;
    (void)x;
}

static perfq_measurement_t *measure(perfq_t *pq, const char *const *names, size_t n)
{
    perfq_counter_id_t ids[8];
    for (size_t i = 0; i < n; i++)
        assert_int_equal(perfq_counter_find(pq, names[i], &ids[i]), PERFQ_OK);
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, ids, n, NULL, &m), PERFQ_OK);
    return m;
}

static void test_task_clock_of_busy_loop(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    const char *names[] = {"host/task-clock", "clock/process-cpu-time"};
    perfq_measurement_t *m = measure(pq, names, 2);
    perfq_value_t v[2];
    double steal0 = test_steal_ns();
    uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    busy_cpu(100000000);   /* 100 ms of CPU */
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    uint64_t thread_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - t0;
    double steal = test_steal_allowance(steal0);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    double task = (double)v[0].v.u64, ref = (double)thread_ns;
    print_message("task-clock %.3f ms, CLOCK_THREAD_CPUTIME_ID %.3f ms, process-cpu-time "
                  "%.3f ms, hypervisor steal <= %.3f ms\n", task / 1e6, ref / 1e6,
                  (double)v[1].v.u64 / 1e6, steal / 1e6);
    /* Within 10%, plus what the hypervisor stole in the interval (see test_util.h). */
    assert_true(task > ref * 0.9);
    assert_true(task < ref * 1.1 + steal);
    assert_true((double)v[1].v.u64 > ref * 0.9);
    assert_int_equal(v[0].flags & PERFQ_VALUE_NOT_COUNTED, 0);
    assert_true(v[0].time_enabled > 0 && v[0].time_running <= v[0].time_enabled);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

static void test_faults_of_fresh_pages(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    const char *names[] = {"host/page-faults", "host/minor-faults", "rusage/minor-faults"};
    perfq_measurement_t *m = measure(pq, names, 3);
    const size_t pages = 2000;
    long page = sysconf(_SC_PAGESIZE);
    unsigned char *mem = mmap(NULL, pages * (size_t)page, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    /* One fault per page: a transparent huge page would map 512 pages with one fault. */
    madvise(mem, pages * (size_t)page, MADV_NOHUGEPAGE);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    for (size_t i = 0; i < pages; i++)
        mem[i * (size_t)page] = 1;
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v[3];
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 3), PERFQ_OK);
    print_message("page-faults %lu minor %lu rusage minor %lu for %zu pages\n",
                  (unsigned long)v[0].v.u64, (unsigned long)v[1].v.u64,
                  (unsigned long)v[2].v.u64, pages);
    for (int i = 0; i < 3; i++)
        assert_true(v[i].v.u64 >= pages);
    munmap(mem, pages * (size_t)page);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

static void test_bytes_written(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    const char *names[] = {"proc-io/write-bytes", "proc-io/write-syscalls",
                           "proc-io/read-bytes"};
    perfq_measurement_t *m = measure(pq, names, 3);
    char path[] = "/tmp/perfq-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    static char block[4096];
    memset(block, 'x', sizeof(block));
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(write(fd, block, sizeof(block)), (ssize_t)sizeof(block));
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v[3];
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 3), PERFQ_OK);
    /* Exact: nothing else in this thread writes between begin and end. */
    assert_int_equal(v[0].v.u64, 100u * sizeof(block));
    assert_int_equal(v[1].v.u64, 100u);
    close(fd);
    unlink(path);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* A PID target waiting for its exec (enable_on_exec) is counted by proc-io from its start,
 * however late the measurement begins (perfq stat spawns CMD without waiting where only proc-io
 * measures it); without enable_on_exec, from begin. The child writes 10 x 1000 bytes and exits;
 * it is measured as a zombie, before it is reaped. */
static void test_exec_target_io_counted_from_start(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[2];
    assert_int_equal(perfq_counter_find(pq, "proc-io/write-bytes", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "proc-io/write-syscalls", &ids[1]), PERFQ_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        static const char block[1000];
        int fd = open("/dev/null", O_WRONLY);
        for (int i = 0; i < 10; i++)
            if (fd < 0 || write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
                _exit(1);
        _exit(0);
    }
    siginfo_t info;
    assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
    assert_int_equal(info.si_status, 0);
    for (int on_exec = 1; on_exec >= 0; on_exec--) {
        perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = pid, .enable_on_exec = on_exec};
        perfq_measurement_t *m = NULL;
        assert_int_equal(perfq_measurement_create(pq, ids, 2, &t, &m), PERFQ_OK);
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        perfq_value_t v[2];
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
        assert_int_equal(v[0].v.u64, on_exec ? 10000u : 0u);
        assert_int_equal(v[1].v.u64, on_exec ? 10u : 0u);
        /* A second begin restarts from its own read. */
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
        assert_int_equal(v[0].v.u64, 0u);
        perfq_measurement_destroy(&m);
    }
    waitpid(pid, NULL, 0);
    perfq_close(&pq);
}

/* A counter that never ran reads PERFQ_VALUE_NOT_COUNTED (the header: "the counter never ran
 * (time_running 0): value is 0"), also where it was never enabled: a PID target measured with
 * enable_on_exec that never execs. It read 0 with no flag. */
static void test_never_enabled_is_not_counted(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &id), PERFQ_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (;;)
            pause();
    }
    perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = pid, .enable_on_exec = 1};
    perfq_measurement_t *m = NULL;
    perfq_value_t v = {0};
    perfq_status_t created = perfq_measurement_create(pq, &id, 1, &t, &m), begun = PERFQ_EINVAL,
                   ended = PERFQ_EINVAL, read = PERFQ_EINVAL;
    if (created == PERFQ_OK) {
        begun = perfq_measurement_begin(m);
        usleep(20000);
        ended = perfq_measurement_end(m);
        read = perfq_measurement_result(m, PERFQ_RESULT_WAIT, &v, 1);
        perfq_measurement_destroy(&m);
    }
    kill(pid, SIGKILL);   /* before any assertion: a failed one must leave no child behind */
    waitpid(pid, NULL, 0);
    perfq_close(&pq);
    assert_int_equal(created, PERFQ_OK);
    assert_int_equal(begun, PERFQ_OK);
    assert_int_equal(ended, PERFQ_OK);
    assert_int_equal(read, PERFQ_OK);
    assert_int_equal(v.time_running, 0);
    assert_int_equal(v.v.u64, 0);
    assert_true(v.flags & PERFQ_VALUE_NOT_COUNTED);
}

static void test_sample_grows_and_begin_again_restarts(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    const char *names[] = {"host/task-clock"};
    perfq_measurement_t *m = measure(pq, names, 1);
    perfq_value_t a, b, c;
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    busy_cpu(5000000);
    assert_int_equal(perfq_measurement_sample(m, &a, 1), PERFQ_OK);
    busy_cpu(5000000);
    assert_int_equal(perfq_measurement_sample(m, &b, 1), PERFQ_OK);
    assert_true(b.v.u64 > a.v.u64);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_sample(m, &c, 1), PERFQ_OK);
    assert_true(c.v.u64 < a.v.u64);   /* counted from the new begin */
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

static void test_child_process_target(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[2];
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "proc-io/write-bytes", &ids[1]), PERFQ_OK);
    int go[2];
    assert_int_equal(pipe(go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char byte;
        if (read(go[0], &byte, 1) != 1)
            _exit(1);
        busy_cpu(50000000);
        int fd = open("/dev/null", O_WRONLY);
        static char buf[1000];
        for (int i = 0; i < 7; i++)
            if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
                _exit(1);
        _exit(0);
    }
    perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = pid};
    perfq_measurement_t *m;
    assert_int_equal(perfq_measurement_create(pq, ids, 2, &t, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(write(go[1], "g", 1), 1);
    siginfo_t info;
    assert_int_equal(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT), 0);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v[2];
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    print_message("child task-clock %.3f ms, write-bytes %lu\n", (double)v[0].v.u64 / 1e6,
                  (unsigned long)v[1].v.u64);
    assert_true(v[0].v.u64 >= 45000000u);
    assert_int_equal(v[1].v.u64, 7000u);
    close(go[0]);
    close(go[1]);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

static void *nothing(void *arg)
{
    return arg;
}

/* A target that creates threads all the time. The kernel refuses a read of an inherited group
 * (ECHILD) while it copies the group into a new thread, for a moment; a group being built while
 * the target creates a thread may refuse a member (EINVAL) or be copied incomplete (every read
 * then ECHILD). Every create, begin, sample and end succeeds all the same (they failed with
 * PERFQ_ESYS: once in about 170 reads, and once in ten perfq stat runs of a TSan-built child). */
static void target_creating_threads(int nap_us, int on_exec)
{
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[4];
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "host/context-switches", &ids[1]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "host/page-faults", &ids[2]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "host/cpu-migrations", &ids[3]), PERFQ_OK);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        for (unsigned i = 0;; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, nothing, NULL) == 0)
                pthread_join(t, NULL);
            if (nap_us)
                usleep((useconds_t)(i % 8) * (useconds_t)nap_us);
        }
    }
    perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = pid, .enable_on_exec = on_exec};
    perfq_value_t v[4];
    int failed = 0, calls = 0, refused = 0, created = 0;
    for (int round = 0; round < 40; round++) {
        perfq_measurement_t *m = NULL;
        /* Building the groups can lose every bounded retry to a target that creates threads
         * without pause on an idle core (seen in CI: 20 creates of 40): create then says so
         * with PERFQ_ESYS, and nothing is measured. What it must never do is give a
         * measurement whose calls then fail. */
        perfq_status_t cs = perfq_measurement_create(pq, ids, 4, &t, &m);
        if (cs != PERFQ_OK) {
            assert_int_equal(cs, PERFQ_ESYS);
            assert_null(m);
            refused++;
            continue;
        }
        created++;
        failed += perfq_measurement_begin(m) != PERFQ_OK;
        for (int i = 0; i < 100; i++)
            failed += perfq_measurement_sample(m, v, 4) != PERFQ_OK;
        failed += perfq_measurement_end(m) != PERFQ_OK;
        failed += perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 4) != PERFQ_OK;
        calls += 103;
        perfq_measurement_destroy(&m);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    print_message("failed calls: %d of %d on %d measurements; %d creates refused (ESYS)\n",
                  failed, calls, created, refused);
    assert_true(created > 0);
    assert_int_equal(failed, 0);
    perfq_close(&pq);
}

static void test_target_creating_threads(void **state)
{
    (void)state;
    target_creating_threads(0, 0);
}

/* The same target napping between its threads (0-7 ms), so that it is often asleep while
 * its groups are built: host_perf then skips its settling pause where no thread of the target
 * ran meanwhile (it may have been asleep inside its thread creation, or woken to make one).
 * With enable_on_exec too, where host_perf first waits for the target to be off the CPUs. */
static void test_target_napping_between_threads(void **state)
{
    (void)state;
    target_creating_threads(1000, 0);
    target_creating_threads(1000, 1);
}

/* A thread started before the measurement exists: it burns BURN_NS of its own CPU time when
 * told (between begin and end), says how much, and exits. */
#define BURN_NS 60000000u
struct burner {
    int go[2];                   /* a byte: burn */
    int done[2];                 /* the ns burned */
};

static void *burner_main(void *arg)
{
    struct burner *b = arg;
    char byte;
    uint64_t burned = 0;
    if (read(b->go[0], &byte, 1) == 1) {
        uint64_t c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
        busy_cpu(BURN_NS);
        burned = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
    }
    if (write(b->done[1], &burned, sizeof(burned)) != (ssize_t)sizeof(burned))
        return NULL;
    return NULL;
}

static void burner_start(struct burner *b, pthread_t *th)
{
    assert_int_equal(pipe(b->go), 0);
    assert_int_equal(pipe(b->done), 0);
    assert_int_equal(pthread_create(th, NULL, burner_main, b), 0);
}

/* Tells the burner to burn and waits until it has burned and exited. */
static uint64_t burner_run(struct burner *b, pthread_t th)
{
    uint64_t burned = 0;
    assert_int_equal(write(b->go[1], "b", 1), 1);
    assert_int_equal(read(b->done[0], &burned, sizeof(burned)), (ssize_t)sizeof(burned));
    assert_int_equal(pthread_join(th, NULL), 0);
    for (int i = 0; i < 2; i++) {
        close(b->go[i]);
        close(b->done[i]);
    }
    return burned;
}

/* Issue 14 item 8: PERFQ_TARGET_PROCESS counts every thread of the process, also one that
 * existed before the measurement (perf_event_open attaches to one thread: perfq attaches to
 * each) and that exits before end (its events keep their final counts). A SELF measurement of
 * the same interval counts the calling thread, which only waits. The burner's CPU time lies
 * strictly inside [begin, end]. task-clock and CLOCK_THREAD_CPUTIME_ID are two accountings
 * that differ under load (seen 8% apart here, and up to 30% in test_task_clock_of_busy_loop's
 * note), so the bound is half of what was burned: far above what a thread-scoped count sees
 * (the waiting thread's ~0.2 ms, asserted below half too), far below the ~60 ms counted. */
static void test_process_target_counts_existing_threads(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    struct burner b;
    pthread_t th;
    burner_start(&b, &th);
    perfq_counter_id_t ids[3];
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "clock/process-cpu-time", &ids[1]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "rusage/user-time", &ids[2]), PERFQ_OK);
    perfq_target_t process = {.kind = PERFQ_TARGET_PROCESS};
    perfq_measurement_t *m = NULL, *self = NULL;
    assert_int_equal(perfq_measurement_create(pq, ids, 3, &process, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_create(pq, ids, 1, NULL, &self), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(self), PERFQ_OK);
    uint64_t burned = burner_run(&b, th);
    assert_int_equal(perfq_measurement_end(self), PERFQ_OK);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v[3], vs[1];
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 3), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(self, PERFQ_RESULT_WAIT, vs, 1), PERFQ_OK);
    print_message("burned %.3f ms in a thread that predates the measurement: PROCESS "
                  "task-clock %.3f ms, process-cpu-time %.3f ms; SELF task-clock %.3f ms\n",
                  burned / 1e6, v[0].v.u64 / 1e6, v[1].v.u64 / 1e6, vs[0].v.u64 / 1e6);
    assert_true(v[0].v.u64 >= burned / 2);
    assert_int_equal(v[0].flags & PERFQ_VALUE_NOT_COUNTED, 0);
    assert_true(v[1].v.u64 >= burned);
    assert_true(vs[0].v.u64 < burned / 2);
    perfq_measurement_destroy(&self);
    perfq_measurement_destroy(&m);
    /* The sampler takes the same target. */
    perfq_sampler_t *s = NULL;
    assert_int_equal(perfq_sampler_create(pq, &process, &s), PERFQ_OK);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

/* A PID target is every thread of that process too: a child whose second thread (started
 * before the measurement) burns while its main thread waits. Before issue 14 item 8 perf was
 * attached to the pid's main thread only and counted ~0. */
static void test_pid_target_counts_existing_threads(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, "host/task-clock", &id), PERFQ_OK);
    int ready[2], result[2], finish[2];
    struct burner b;
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(result), 0);
    assert_int_equal(pipe(finish), 0);
    assert_int_equal(pipe(b.go), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        pthread_t th;
        uint64_t burned = 0;
        char byte;
        if (pipe(b.done) != 0 || pthread_create(&th, NULL, burner_main, &b) != 0 ||
            write(ready[1], "r", 1) != 1 ||
            read(b.done[0], &burned, sizeof(burned)) != (ssize_t)sizeof(burned) ||
            pthread_join(th, NULL) != 0 ||
            write(result[1], &burned, sizeof(burned)) != (ssize_t)sizeof(burned) ||
            read(finish[0], &byte, 1) != 1)
            _exit(1);
        _exit(0);
    }
    char byte;
    assert_int_equal(read(ready[0], &byte, 1), 1);   /* the child's burner thread exists */
    perfq_target_t t = {.kind = PERFQ_TARGET_PID, .pid = pid};
    perfq_measurement_t *m = NULL;
    assert_int_equal(perfq_measurement_create(pq, &id, 1, &t, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(write(b.go[1], "b", 1), 1);
    uint64_t burned = 0;
    assert_int_equal(read(result[0], &burned, sizeof(burned)), (ssize_t)sizeof(burned));
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t v;
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, &v, 1), PERFQ_OK);
    assert_int_equal(write(finish[1], "f", 1), 1);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    print_message("child's second thread burned %.3f ms; PID task-clock %.3f ms\n",
                  burned / 1e6, v.v.u64 / 1e6);
    assert_true(v.v.u64 >= burned / 2);   /* see the test above for the bound */
    int *fds[] = {ready, result, finish, b.go};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
        close(fds[i][0]);
        close(fds[i][1]);
    }
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_task_clock_of_busy_loop),
        cmocka_unit_test(test_faults_of_fresh_pages),
        cmocka_unit_test(test_bytes_written),
        cmocka_unit_test(test_exec_target_io_counted_from_start),
        cmocka_unit_test(test_never_enabled_is_not_counted),
        cmocka_unit_test(test_sample_grows_and_begin_again_restarts),
        cmocka_unit_test(test_child_process_target),
        cmocka_unit_test(test_target_creating_threads),
        cmocka_unit_test(test_target_napping_between_threads),
        cmocka_unit_test(test_process_target_counts_existing_threads),
        cmocka_unit_test(test_pid_target_counts_existing_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
