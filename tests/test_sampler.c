/* The continuous sampler (perfq_sampler_*): exact counts with a test-only provider whose
 * source is a count the test itself makes (known work), read-and-reset under concurrent
 * counting and concurrent readers (nothing lost or counted twice), stopped counters keeping
 * their values, choose semantics, limits and errors; then real sources: the process CPU clock
 * against CLOCK_PROCESS_CPUTIME_ID, and page faults of pages the test touches. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/instance.h"

/* The known work: every tick() adds 1 to "ticks/count" and 2 to "ticks/double". */
static atomic_uint_fast64_t ticks;
static void tick(void)
{
    atomic_fetch_add(&ticks, 1);
}

static const struct perfq_group_desc tick_group = {
    "ticks", "test provider counting tick() calls", PERFQ_SCOPE_PROCESS, 2};
static const struct perfq_counter_desc tick_counters[] = {
    {"count", "Test", "tick() calls", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 1, 1, 0},
    {"double", "Test", "twice the tick() calls", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_EVENT, 0, 0, 1, 2, 0},
    {"level", "Test", "tick() calls so far (a gauge)", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64,
     PERFQ_INTEL_RAW, 0, 0, 1, 0, 0},
};
static const struct perfq_group_desc timeline_group = {
    "timeline", "test provider with values only after end", PERFQ_SCOPE_GPU_TIMELINE, 0};
static const struct perfq_counter_desc timeline_counter = {
    "t", "Test", "never read", PERFQ_UNIT_GENERIC, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT,
    0, 0, 1, 0, 0};

struct tick_session {
    size_t count;
    uint64_t codes[3];
    uint64_t base, last;
};

static perfq_status_t tick_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)reason;
    (void)size;
    *state = arg ? arg : (void *)&tick_group;
    return PERFQ_OK;
}

static perfq_status_t tick_enumerate(void *state, struct perfq_catalog *c, const char *reason)
{
    (void)state;
    (void)reason;
    perfq_status_t st = perfq_catalog_add_table(c, &tick_group, tick_counters, 3, NULL);
    if (st == PERFQ_OK)
        st = perfq_catalog_add_table(c, &timeline_group, &timeline_counter, 1, NULL);
    return st;
}

static perfq_status_t tick_open(void *state, const struct perfq_session_request *req,
                                void **session)
{
    (void)state;
    struct tick_session *s = calloc(1, sizeof(*s));
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++)
        s->codes[i] = req->counters[i]->code;
    *session = s;
    return PERFQ_OK;
}

static perfq_status_t tick_begin(void *session)
{
    struct tick_session *s = session;
    s->base = s->last = atomic_load(&ticks);
    return PERFQ_OK;
}

static void tick_values(const struct tick_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        memset(&values[i], 0, sizeof(values[i]));
        values[i].v.u64 = s->codes[i] ? (s->last - s->base) * s->codes[i] : s->last;
    }
}

static perfq_status_t tick_sample(void *session, perfq_value_t *values)
{
    struct tick_session *s = session;
    s->last = atomic_load(&ticks);
    tick_values(s, values);
    return PERFQ_OK;
}

static perfq_status_t tick_end(void *session)
{
    struct tick_session *s = session;
    s->last = atomic_load(&ticks);
    return PERFQ_OK;
}

static perfq_status_t tick_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    tick_values(session, values);
    return PERFQ_OK;
}

static const struct perfq_provider_ops tick_ops = {
    .name = "ticks",
    .probe = tick_probe,
    .enumerate = tick_enumerate,
    .session_open = tick_open,
    .begin = tick_begin,
    .sample = tick_sample,
    .end = tick_end,
    .result = tick_result,
    .session_close = free,
};

static perfq_t *open_ticks(void)
{
    const struct perfq_provider_ops *ops[] = {&tick_ops};
    void *args[] = {NULL};
    perfq_t *pq = NULL;
    assert_int_equal(perfq__open_with(ops, args, 1, 1, &pq), PERFQ_OK);
    return pq;
}

static perfq_counter_id_t find(perfq_t *pq, const char *name)
{
    perfq_counter_id_t id;
    assert_int_equal(perfq_counter_find(pq, name, &id), PERFQ_OK);
    return id;
}

static void ticks_n(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        tick();
}

static uint64_t read1(perfq_sampler_t *s, unsigned flags)
{
    perfq_value_t v;
    assert_int_equal(perfq_sampler_read(s, flags, &v, 1), PERFQ_OK);
    return v.v.u64;
}

static void exact_counts_reset_and_stop(void **state)
{
    (void)state;
    perfq_t *pq = open_ticks();
    perfq_counter_id_t count = find(pq, "ticks/count");
    perfq_sampler_t *s;
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &count, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_running(s), 0);
    ticks_n(7);   /* not started: not counted */
    assert_int_equal(read1(s, 0), 0);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);   /* already started: no change */
    assert_int_equal(perfq_sampler_running(s), 1);
    ticks_n(100);
    assert_int_equal(read1(s, 0), 100);
    assert_int_equal(read1(s, PERFQ_SAMPLER_RESET), 100);
    assert_int_equal(read1(s, 0), 0);
    ticks_n(50);
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    assert_int_equal(perfq_sampler_running(s), 0);
    ticks_n(70);   /* stopped: not counted, the value is kept */
    assert_int_equal(read1(s, 0), 50);
    assert_int_equal(read1(s, 0), 50);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);   /* resumes from 50 */
    ticks_n(5);
    assert_int_equal(read1(s, 0), 55);
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    assert_int_equal(read1(s, PERFQ_SAMPLER_RESET), 55);  /* reset while stopped */
    assert_int_equal(read1(s, 0), 0);
    /* A reset alone. */
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    ticks_n(9);
    assert_int_equal(perfq_sampler_read(s, PERFQ_SAMPLER_RESET, NULL, 0), PERFQ_OK);
    ticks_n(4);
    assert_int_equal(read1(s, 0), 4);
    assert_int_equal(perfq_sampler_destroy(&s), PERFQ_OK);
    assert_null(s);
    assert_int_equal(perfq_sampler_destroy(&s), PERFQ_EINVAL);
    perfq_close(&pq);
}

static void choose_semantics(void **state)
{
    (void)state;
    perfq_t *pq = open_ticks();
    perfq_counter_id_t count = find(pq, "ticks/count"), dbl = find(pq, "ticks/double"),
                       level = find(pq, "ticks/level");
    perfq_sampler_t *s;
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    /* Stable order: ascending catalog ids whatever the order chosen. */
    perfq_counter_id_t two[] = {dbl, count};
    assert_int_equal(perfq_sampler_choose(s, two, 2, 1), PERFQ_OK);
    perfq_counter_id_t got[3];
    size_t n = 0;
    assert_int_equal(perfq_sampler_counters(s, NULL, 0, &n), PERFQ_OK);
    assert_int_equal(n, 2);
    assert_int_equal(perfq_sampler_counters(s, got, 1, &n), PERFQ_ENOSPC);
    assert_int_equal(perfq_sampler_counters(s, got, 3, &n), PERFQ_OK);
    assert_true(got[0] == count && got[1] == dbl);
    /* max_active 2: a third counter of the group is refused and nothing changes. */
    assert_int_equal(perfq_sampler_choose(s, &level, 1, 1), PERFQ_EBUSY);
    assert_int_equal(perfq_sampler_counters(s, got, 3, &n), PERFQ_OK);
    assert_int_equal(n, 2);
    /* Choosing an already chosen counter changes nothing. */
    assert_int_equal(perfq_sampler_choose(s, &count, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    ticks_n(10);
    perfq_value_t v[2];
    assert_int_equal(perfq_sampler_read(s, 0, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 10);
    assert_int_equal(v[1].v.u64, 20);
    /* values with room for fewer than the counters: PERFQ_ENOSPC, nothing written or reset (as
     * perfq_measurement_sample); room for more: the first two written, the rest untouched. */
    perfq_value_t room[3];
    memset(room, 0xab, sizeof room);
    assert_int_equal(perfq_sampler_read(s, PERFQ_SAMPLER_RESET, room, 1), PERFQ_ENOSPC);
    assert_int_equal(room[0].v.u64, 0xababababababababull);
    assert_int_equal(perfq_sampler_read(s, 0, room, 3), PERFQ_OK);
    assert_int_equal(room[0].v.u64, 10);
    assert_int_equal(room[1].v.u64, 20);
    assert_int_equal(room[2].v.u64, 0xababababababababull);
    /* Choosing while started: an implicit reset, the new set counts from now. */
    assert_int_equal(perfq_sampler_choose(s, &dbl, 1, 0), PERFQ_OK);
    assert_int_equal(read1(s, 0), 0);
    ticks_n(3);
    assert_int_equal(perfq_sampler_choose(s, &level, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_read(s, 0, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 0);
    ticks_n(4);
    assert_int_equal(perfq_sampler_read(s, PERFQ_SAMPLER_RESET, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 4);
    uint64_t level_now = atomic_load(&ticks);
    assert_int_equal(v[1].v.u64, level_now);   /* a gauge reads its level */
    assert_int_equal(perfq_sampler_read(s, 0, v, 2), PERFQ_OK);
    assert_int_equal(v[1].v.u64, level_now);   /* and a reset leaves it */
    /* Choosing while stopped: counters that stay keep their values. */
    ticks_n(6);
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &level, 1, 0), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &dbl, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_read(s, 0, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 6);
    assert_int_equal(v[1].v.u64, 0);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    ticks_n(1);
    assert_int_equal(perfq_sampler_read(s, 0, v, 2), PERFQ_OK);
    assert_int_equal(v[0].v.u64, 7);
    assert_int_equal(v[1].v.u64, 2);
    /* Removing everything while started leaves an empty started sampler. */
    perfq_counter_id_t both[] = {count, dbl};
    assert_int_equal(perfq_sampler_choose(s, both, 2, 0), PERFQ_OK);
    assert_int_equal(perfq_sampler_read(s, 0, v, 0), PERFQ_OK);
    assert_int_equal(perfq_sampler_running(s), 1);
    assert_int_equal(perfq_sampler_choose(s, &count, 1, 1), PERFQ_OK);
    ticks_n(2);
    assert_int_equal(read1(s, 0), 2);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

static void errors(void **state)
{
    (void)state;
    perfq_t *pq = open_ticks();
    perfq_counter_id_t count = find(pq, "ticks/count"), t = find(pq, "timeline/t");
    uint32_t total;
    perfq_counter_count(pq, &total);
    perfq_sampler_t *s = NULL;
    perfq_target_t bad = {.kind = PERFQ_TARGET_PID, .pid = 0};
    assert_int_equal(perfq_sampler_create(NULL, NULL, &s), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_create(pq, NULL, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_create(pq, &bad, &s), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    perfq_counter_id_t out_of_range = total;
    assert_int_equal(perfq_sampler_choose(s, &out_of_range, 1, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_choose(s, NULL, 1, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_choose(NULL, &count, 1, 1), PERFQ_EINVAL);
    /* Values only after end: cannot be sampled continuously. */
    assert_int_equal(perfq_sampler_choose(s, &t, 1, 1), PERFQ_ENOTSUP);
    /* All or nothing: a bad id in the list leaves the set as it was. */
    perfq_counter_id_t mixed[] = {count, out_of_range};
    assert_int_equal(perfq_sampler_choose(s, mixed, 2, 1), PERFQ_EINVAL);
    size_t n = 9;
    assert_int_equal(perfq_sampler_counters(s, NULL, 0, &n), PERFQ_OK);
    assert_int_equal(n, 0);
    assert_int_equal(perfq_sampler_choose(s, &count, 1, 1), PERFQ_OK);
    perfq_value_t v[2];
    assert_int_equal(perfq_sampler_read(s, 0, v, 0), PERFQ_ENOSPC);   /* no room */
    assert_int_equal(perfq_sampler_read(s, 0, NULL, 0), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_read(s, 4, v, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_read(NULL, 0, v, 1), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_counters(s, NULL, 0, NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_start(NULL), PERFQ_EINVAL);
    assert_int_equal(perfq_sampler_stop(NULL), PERFQ_EINVAL);
    assert_true(perfq_sampler_running(NULL) < 0);
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);   /* stopped already: nothing to do */
    /* Unavailable counters (PERFQ_DISABLE) are refused. */
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
    setenv("PERFQ_DISABLE", "clock", 1);
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    unsetenv("PERFQ_DISABLE");
    perfq_counter_id_t cpu = find(pq, "clock/process-cpu-time");
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &cpu, 1, 1), PERFQ_ENOTSUP);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

/* Counting threads and reading threads at once: the reads with reset, plus the final read,
 * add up to exactly the ticks made. */
struct race {
    perfq_sampler_t *s;
    atomic_int stop;
    uint64_t sum;
};

#define TICKERS 2
#define TICKS_EACH 200000u

static void *ticker(void *arg)
{
    (void)arg;
    ticks_n(TICKS_EACH);
    return NULL;
}

static void *reader(void *arg)
{
    struct race *r = arg;
    while (!atomic_load(&r->stop)) {
        perfq_value_t v;
        if (perfq_sampler_read(r->s, PERFQ_SAMPLER_RESET, &v, 1) == PERFQ_OK)
            r->sum += v.v.u64;
    }
    return NULL;
}

static void read_reset_is_atomic(void **state)
{
    (void)state;
    perfq_t *pq = open_ticks();
    perfq_counter_id_t count = find(pq, "ticks/count");
    perfq_sampler_t *s;
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &count, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    struct race readers[2] = {{.s = s}, {.s = s}};
    pthread_t rt[2], tt[TICKERS];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&rt[i], NULL, reader, &readers[i]), 0);
    for (int i = 0; i < TICKERS; i++)
        assert_int_equal(pthread_create(&tt[i], NULL, ticker, NULL), 0);
    for (int i = 0; i < TICKERS; i++)
        pthread_join(tt[i], NULL);
    for (int i = 0; i < 2; i++) {
        atomic_store(&readers[i].stop, 1);
        pthread_join(rt[i], NULL);
    }
    uint64_t rest = read1(s, PERFQ_SAMPLER_RESET);
    assert_int_equal(readers[0].sum + readers[1].sum + rest, (uint64_t)TICKERS * TICKS_EACH);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;
static void burn(uint64_t ns)
{
    uint64_t t0 = process_cpu_ns();
    while (process_cpu_ns() - t0 < ns)
        for (int i = 0; i < 1000; i++)
            sink += (uint64_t)i * 2654435761u;
}

/* The process CPU clock through the sampler, interval by interval, against the clock read
 * by the test around the same work: within 10% (the two reads are a few microseconds apart
 * from the sampler's, on 100 ms of work). */
static void process_cpu_time_intervals(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t cpu = find(pq, "clock/process-cpu-time");
    perfq_sampler_t *s;
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &cpu, 1, 1), PERFQ_OK);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    uint64_t t0 = process_cpu_ns();
    uint64_t sum = 0;
    for (int i = 0; i < 3; i++) {
        uint64_t a = process_cpu_ns();
        burn(100000000u);
        uint64_t got = read1(s, PERFQ_SAMPLER_RESET);
        uint64_t want = process_cpu_ns() - a;
        print_message("interval %d: sampler %.3f ms, clock %.3f ms\n", i, (double)got / 1e6,
                      (double)want / 1e6);
        assert_true((double)got > 0.9 * (double)want && (double)got < 1.1 * (double)want);
        sum += got;
    }
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    burn(50000000u);   /* stopped: not counted */
    sum += read1(s, 0);
    uint64_t total = process_cpu_ns() - t0 - 50000000u;
    assert_true((double)sum > 0.9 * (double)total && (double)sum < 1.1 * (double)total);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

/* Known work for a kernel source: touching N fresh pages (no transparent huge pages) takes at
 * least N minor faults; the intervals' sum is the measurement's whole count. */
static void page_faults_of_touched_pages(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    perfq_counter_id_t id = find(pq, "host/minor-faults");
    perfq_counter_info_t ci;
    perfq_counter_info(pq, id, &ci);
    if (!ci.available) {
        print_message("host/minor-faults unavailable: %s\n", ci.unavailable_reason);
        fail();   /* perf software events exist wherever the tests run */
    }
    perfq_sampler_t *s;
    assert_int_equal(perfq_sampler_create(pq, NULL, &s), PERFQ_OK);
    assert_int_equal(perfq_sampler_choose(s, &id, 1, 1), PERFQ_OK);
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 256;
    char *mem = mmap(NULL, page * pages * 2, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    madvise(mem, page * pages * 2, MADV_NOHUGEPAGE);
    assert_int_equal(perfq_sampler_start(s), PERFQ_OK);
    for (size_t i = 0; i < pages; i++)
        mem[i * page] = 1;
    uint64_t first = read1(s, PERFQ_SAMPLER_RESET);
    for (size_t i = pages; i < 2 * pages; i++)
        mem[i * page] = 1;
    uint64_t second = read1(s, PERFQ_SAMPLER_RESET);
    print_message("minor faults: %" PRIu64 " then %" PRIu64 " for %zu pages each\n", first,
                  second, pages);
    assert_true(first >= pages && second >= pages);
    for (size_t i = 0; i < 2 * pages; i++)   /* touched already: no new faults needed */
        mem[i * page] = 2;
    assert_int_equal(perfq_sampler_stop(s), PERFQ_OK);
    munmap(mem, page * pages * 2);
    perfq_sampler_destroy(&s);
    perfq_close(&pq);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_counts_reset_and_stop),
        cmocka_unit_test(choose_semantics),
        cmocka_unit_test(errors),
        cmocka_unit_test(read_reset_is_atomic),
        cmocka_unit_test(process_cpu_time_intervals),
        cmocka_unit_test(page_faults_of_touched_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
