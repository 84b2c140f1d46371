/* Measurements when something fails (issue 14): a failed call changes nothing and writes
 * nothing; a failed end is never followed by a made-up result; a measurement outlives
 * perfq_close; a short values array is PERFQ_ENOSPC; running out of file descriptors is
 * PERFQ_EMFILE; a fork child's copies answer PERFQ_ESTATE and their destruction leaves the
 * parent's counting alone. The failures are real: a PID target that has been reaped (/proc/PID/io is
 * gone) and a lowered RLIMIT_NOFILE. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfq/perfq.h"

#define WRITE_BYTES 65536

static perfq_counter_id_t find(perfq_t *pq, const char *name)
{
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, name, &id), PERFQ_OK);
    return id;
}

/* A child that, each time it reads a byte from `go`, burns about 20 ms of CPU, writes 64 KiB
 * to /dev/null and answers with a byte on `done`; it exits when `go` is closed. */
struct child {
    pid_t pid;
    int go, done;
};

static void burn_and_write(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
    static char buf[WRITE_BYTES];
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
        _exit(3);
    close(fd);
}

static void child_start(struct child *c)
{
    int go[2], done[2];
    assert_int_equal(pipe(go), 0);
    assert_int_equal(pipe(done), 0);
    c->pid = fork();
    assert_true(c->pid >= 0);
    if (c->pid == 0) {
        char b;
        close(go[1]);
        close(done[0]);
        while (read(go[0], &b, 1) == 1) {
            burn_and_write();
            if (write(done[1], &b, 1) != 1)
                _exit(4);
        }
        _exit(0);
    }
    close(go[0]);
    close(done[1]);
    c->go = go[1];
    c->done = done[0];
}

static void child_work(struct child *c)
{
    char b = 1;
    assert_int_equal(write(c->go, &b, 1), 1);
    assert_int_equal(read(c->done, &b, 1), 1);
}

/* Lets the child exit and reaps it: /proc/PID/io is gone after this. */
static void child_reap(struct child *c)
{
    int status;
    close(c->go);
    close(c->done);
    assert_int_equal(waitpid(c->pid, &status, 0), c->pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static perfq_measurement_t *measure_child(perfq_t *pq, pid_t pid)
{
    perfq_counter_id_t ids[2] = {find(pq, "host/task-clock"), find(pq, "proc-io/write-bytes")};
    perfq_target_t target = {.kind = PERFQ_TARGET_PID, .pid = pid};
    perfq_measurement_t *m;
    assert_int_equal(perfq_measurement_create(pq, ids, 2, &target, &m), PERFQ_OK);
    return m;
}

/* Item 2: end fails (the target was reaped before it): result must not return PERFQ_OK with
 * write-bytes = 0 - base (18446744073709486079 before the fix); it returns end's error and
 * writes nothing. sample on the reaped target fails and writes nothing either. */
static void test_end_failure_is_no_result(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    struct child c;
    child_start(&c);
    perfq_measurement_t *m = measure_child(pq, c.pid);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    child_work(&c);
    child_reap(&c);
    perfq_value_t v[2], untouched[2];
    memset(v, 0xab, sizeof(v));
    memcpy(untouched, v, sizeof(v));
    assert_int_equal(perfq_measurement_sample(m, v, 2), PERFQ_ESYS);
    assert_memory_equal(v, untouched, sizeof(v));
    assert_int_equal(perfq_measurement_end(m), PERFQ_ESYS);
    perfq_status_t st = perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2);
    print_message("result after a failed end: %s, write-bytes %llu\n", perfq_status_string(st),
                  (unsigned long long)v[1].v.u64);
    assert_int_equal(st, PERFQ_ESYS);
    assert_memory_equal(v, untouched, sizeof(v));
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 2), PERFQ_ESYS);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* Item 10: begin, end, result; the target is reaped; begin fails: the previous result is
 * still there, value for value (before the fix: PERFQ_OK with task-clock 0). */
static void test_failed_rebegin_keeps_result(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    struct child c;
    child_start(&c);
    perfq_measurement_t *m = measure_child(pq, c.pid);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    child_work(&c);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    perfq_value_t first[2], v[2];
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, first, 2), PERFQ_OK);
    assert_true(first[0].v.u64 > 0);                /* task-clock: the child burnt CPU */
    assert_true(first[1].v.u64 >= WRITE_BYTES);     /* write-bytes */
    child_reap(&c);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_ESYS);
    memset(v, 0, sizeof(v));
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    print_message("task-clock %.3f ms before the failed begin, %.3f ms after\n",
                  (double)first[0].v.u64 / 1e6, (double)v[0].v.u64 / 1e6);
    assert_memory_equal(v, first, sizeof(v));
    /* Still ended, not active; a second failed begin changes nothing either. */
    assert_int_equal(perfq_measurement_end(m), PERFQ_ESTATE);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_ESYS);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 2), PERFQ_OK);
    assert_memory_equal(v, first, sizeof(v));
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* Item 9: perfq_close, then use and destroy a measurement of that instance. The measurement
 * keeps the instance alive; ASan (scripts/test-all.sh) sees a use after free or a leak if not. */
static void test_destroy_after_close(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m, *idle;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[2] = {find(pq, "host/context-switches"), find(pq, "proc-io/read-bytes")};
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_create(pq, ids, 1, NULL, &idle), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
    assert_null(pq);
    /* Counting goes on: read something after the close. */
    char buf[4096];
    int fd = open("/proc/self/maps", O_RDONLY);
    assert_true(fd >= 0);
    while (read(fd, buf, sizeof(buf)) > 0)
        ;
    close(fd);
    perfq_value_t v[2];
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    assert_true(v[1].v.u64 > 0);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
    assert_int_equal(perfq_measurement_destroy(&idle), PERFQ_OK);   /* the last: frees pq */
}

/* The continuous sampler holds a reference too: choose and read after perfq_close. */
static void test_sampler_after_close(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_sampler_t *s;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id = find(pq, "clock/wall-time");
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &id, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    perfq_value_t v;
    assert_int_equal(perfq_sampler_read(s, 0, &v, 1), PERFQ_OK);
    assert_true(v.v.u64 > 0);
    assert_int_equal(perfq_sampler_destroy(&s), PERFQ_OK);
}

/* Item 12: a values array shorter than the counter count is PERFQ_ENOSPC (as perfq.h
 * documents for a small buffer), nothing written; a longer one is fine. */
static void test_short_values_array(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_measurement_t *m;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[2] = {find(pq, "host/task-clock"), find(pq, "clock/wall-time")};
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    perfq_value_t v[3], untouched[3];
    memset(v, 0xab, sizeof(v));
    memcpy(untouched, v, sizeof(v));
    assert_int_equal(perfq_measurement_sample(m, v, 1), PERFQ_ENOSPC);
    assert_int_equal(perfq_measurement_sample(m, v, 0), PERFQ_ENOSPC);
    assert_memory_equal(v, untouched, sizeof(v));
    assert_int_equal(perfq_measurement_sample(m, v, 3), PERFQ_OK);
    assert_memory_equal(&v[2], &untouched[2], sizeof(v[2]));      /* past the count: left */
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    memcpy(v, untouched, sizeof(v));
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 1), PERFQ_ENOSPC);
    assert_memory_equal(v, untouched, sizeof(v));
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 3), PERFQ_OK);
    assert_true(v[1].v.u64 > 0);
    assert_memory_equal(&v[2], &untouched[2], sizeof(v[2]));
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* Item 12: with every file descriptor in use, creating a proc-io or perf measurement says so
 * (PERFQ_EMFILE), not "invalid argument". */
static void test_out_of_fds_is_emfile(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t io = find(pq, "proc-io/read-bytes"), task = find(pq, "host/task-clock");
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = 64;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int fds[64], n = 0;
    while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
        n++;
    int err = errno;
    perfq_measurement_t *m = NULL;
    perfq_status_t st_io = perfq_measurement_create(pq, &io, 1, NULL, &m);
    perfq_status_t st_task = perfq_measurement_create(pq, &task, 1, NULL, &m);
    /* An instance opened now fails with EMFILE (it listed host and proc-io unavailable for its
     * life, proc-io for a kernel without io accounting); one opened after, with fds again,
     * has them. */
    perfq_t *starved = NULL;
    perfq_status_t st_open = perfq_open(&starved);
    while (n > 0)
        close(fds[--n]);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_int_equal(err, EMFILE);
    print_message("out of fds: proc-io %s, host %s\n", perfq_status_string(st_io),
                  perfq_status_string(st_task));
    assert_int_equal(st_io, PERFQ_EMFILE);
    assert_int_equal(st_task, PERFQ_EMFILE);
    assert_null(m);
    assert_int_equal(st_open, PERFQ_EMFILE);
    assert_null(starved);
    assert_int_equal(perfq_open(&starved), PERFQ_OK);
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_info(starved, io, &ci), PERFQ_OK);
    assert_true(ci.available);
    assert_int_equal(perfq_counter_info(starved, task, &ci), PERFQ_OK);
    assert_true(ci.available);
    perfq_close(&starved);
    assert_string_equal(perfq_status_string(PERFQ_EMFILE), "too many open files");
    perfq_close(&pq);
}

static void burn_ms(long ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    do
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000L + (t.tv_nsec - t0.tv_nsec) / 1000000L < ms);
}

/* A measurement and a sampler active across fork(): in the child every call answers
 * PERFQ_ESTATE (they read wrapped values with PERFQ_OK: rusage and the CPU clock restart in
 * the child) and destroy succeeds; the parent's task-clock still counts after the child
 * destroyed its copies (an end there would have disabled the parent's shared perf events). */
static void test_fork_child_copies_refused(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t ids[3] = {find(pq, "host/task-clock"), find(pq, "rusage/user-time"),
                                 find(pq, "clock/process-cpu-time")};
    perfq_measurement_t *m = NULL;
    perfq_sampler_t *sm = NULL;
    assert_int_equal(perfq_measurement_create(pq, ids, 3, NULL, &m), PERFQ_OK);
    assert_int_equal(perfq_sampler_create(pq, NULL, &sm), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(sm, ids, 3, 1), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(sm), PERFQ_OK);
    burn_ms(30);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        perfq_value_t v[3];
        int bad = 0;
        bad |= perfq_measurement_sample(m, v, 3) != PERFQ_ESTATE;
        bad |= perfq_measurement_end(m) != PERFQ_ESTATE;
        bad |= perfq_measurement_result(m, 0, v, 3) != PERFQ_ESTATE;
        bad |= perfq_measurement_begin(m) != PERFQ_ESTATE;
        bad |= perfq_sampler_read(sm, 0, v, 3) != PERFQ_ESTATE;
        bad |= perfq_sampler_stop(sm) != PERFQ_ESTATE;
        bad |= perfq_sampler_start(sm) != PERFQ_ESTATE;
        bad |= perfq_sampler_choose(sm, ids, 1, 0) != PERFQ_ESTATE;
        bad |= perfq_measurement_destroy(&m) != PERFQ_OK || m != NULL;
        bad |= perfq_sampler_destroy(&sm) != PERFQ_OK || sm != NULL;
        /* The instance still makes new ones in the child, and they count it. */
        perfq_measurement_t *mine = NULL;
        bad |= perfq_measurement_create(pq, ids, 3, NULL, &mine) != PERFQ_OK;
        bad |= mine && perfq_measurement_begin(mine) != PERFQ_OK;
        bad |= mine && perfq_measurement_end(mine) != PERFQ_OK;
        bad |= mine && perfq_measurement_result(mine, PERFQ_RESULT_WAIT, v, 3) != PERFQ_OK;
        bad |= v[2].v.u64 > 1000000000ull;   /* not a wrapped difference */
        perfq_measurement_destroy(&mine);
        perfq_close(&pq);
        _exit(bad);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    perfq_value_t before[3], after[3];
    assert_int_equal(perfq_measurement_sample(m, before, 3), PERFQ_OK);
    burn_ms(30);
    assert_int_equal(perfq_measurement_sample(m, after, 3), PERFQ_OK);
    assert_true(after[0].v.u64 >= before[0].v.u64 + 20000000ull);   /* still counting */
    assert_int_equal(perfq_sampler_read(sm, 0, after, 3), PERFQ_OK);
    assert_true(after[0].v.u64 >= 50000000ull);
    assert_int_equal(perfq_measurement_destroy(&m), PERFQ_OK);
    assert_int_equal(perfq_sampler_destroy(&sm), PERFQ_OK);
    perfq_close(&pq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_end_failure_is_no_result),
        cmocka_unit_test(test_failed_rebegin_keeps_result),
        cmocka_unit_test(test_destroy_after_close),
        cmocka_unit_test(test_sampler_after_close),
        cmocka_unit_test(test_short_values_array),
        cmocka_unit_test(test_out_of_fds_is_emfile),
        cmocka_unit_test(test_fork_child_copies_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
