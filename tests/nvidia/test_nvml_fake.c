/*
 * The sampler's arithmetic, against the test-only libnvidia-ml.so.1 of tests/nvidia/fake-nvml
 * (one device: 100 W, SM 1000 MHz, memory 2619 MHz, 50% / 25% utilisation, 40 C, 1 GiB used,
 * PCIe 1000 / 3000 KB/s, clocks never limited, an energy counter of 100 W in 100 ms steps, no
 * GPM). Constant readings have exact means whatever the machine's load; the energy over an
 * interval is the counter's steps plus the power integral between them, so it is 100 W times
 * the interval up to the 100 ms step at each end (placed at the midpoint of the two reads
 * that saw it change).
 */
#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfq/perfq.h"
#include "providers/nvml_interval.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

enum { ENERGY, POWER, SM, MEMCLK, UTIL, MUTIL, TEMP, MEMUSED, CHANGED, THROTTLED, SAMPLES,
       AGE, N };
static const char *const names[N] = {
    "nvml-gpu0/energy", "nvml-gpu0/average-power", "nvml-gpu0/sm-clock",
    "nvml-gpu0/memory-clock", "nvml-gpu0/gpu-utilization", "nvml-gpu0/memory-utilization",
    "nvml-gpu0/temperature", "nvml-gpu0/memory-used", "nvml-gpu0/clocks-changed",
    "nvml-gpu0/throttled", "nvml-gpu0/samples", "nvml-gpu0/sample-age"};

static void open_all(perfq_t **pq, perfq_counter_id_t *ids)
{
    assert_int_equal(perfq_open(pq), PERFQ_OK);
    for (int i = 0; i < N; i++) {
        perfq_counter_info_t ci;
        assert_int_equal(perfq_counter_find(*pq, names[i], &ids[i]), PERFQ_OK);
        assert_int_equal(perfq_counter_info(*pq, ids[i], &ci), PERFQ_OK);
        if (!ci.available)
            print_error("%s: %s\n", names[i], ci.unavailable_reason);
        assert_int_equal(ci.available, 1);
    }
}

static void check_constants(const perfq_value_t *v)
{
    assert_true(fabs(v[POWER].v.f64 - 100.0) < 1e-6);
    assert_true(fabs(v[SM].v.f64 - 1e9) < 1e-3);
    assert_true(fabs(v[MEMCLK].v.f64 - 2619e6) < 1e-3);
    assert_true(fabs(v[UTIL].v.f64 - 50.0) < 1e-9);
    assert_true(fabs(v[MUTIL].v.f64 - 25.0) < 1e-9);
    assert_true(fabs(v[TEMP].v.f64 - 313.15) < 1e-9);
    assert_true(fabs(v[MEMUSED].v.f64 - 1073741824.0) < 1e-3);
    assert_int_equal(v[CHANGED].v.u32, 0);
    assert_int_equal(v[THROTTLED].v.u32, 0);
}

static void test_catalog(void **state)
{
    (void)state;
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    uint32_t n;
    perfq_group_info_t g;
    int seen_nvml = 0, seen_gpm = 0;
    assert_int_equal(perfq_group_count(pq, &n), PERFQ_OK);
    for (uint32_t i = 0; i < n; i++) {
        assert_int_equal(perfq_group_info(pq, i, &g), PERFQ_OK);
        assert_int_not_equal(strcmp(g.name, "nvml"), 0);   /* the placeholder is gone */
        if (strcmp(g.name, "nvml-gpu0") == 0) {
            seen_nvml = 1;
            assert_int_equal(g.available, 1);
            assert_non_null(strstr(g.description, "perfq test fake (GPU-fake)"));
        }
        if (strcmp(g.name, "gpm-gpu0") == 0) {
            seen_gpm = 1;
            assert_int_equal(g.available, 0);   /* the fake has no GPM */
            assert_non_null(strstr(g.unavailable_reason, "nvmlGpm"));
        }
    }
    assert_true(seen_nvml && seen_gpm);
    assert_int_equal(perfq_close(&pq), PERFQ_OK);
}

static void test_interval(void **state)
{
    /* Default cadences (the energy counter read once a second), then the counter read every
     * 100 ms, so that both the power integral and the counter's steps carry the energy. */
    const char *energy_ms = *state;
    if (energy_ms)
        setenv("PERFQ_NVML_ENERGY_MS", energy_ms, 1);
    perfq_t *pq;
    perfq_counter_id_t ids[N];
    open_all(&pq, ids);
    perfq_measurement_t *m;
    assert_int_equal(perfq_measurement_create(pq, ids, N, NULL, &m), PERFQ_OK);
    perfq_value_t v[N], mid[N];
    for (int round = 0; round < 2; round++) {
        double t0 = now_s();
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        usleep(500000);
        assert_int_equal(perfq_measurement_sample(m, mid, N), PERFQ_OK);
        usleep(500000);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        double seconds = now_s() - t0;
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, N), PERFQ_OK);
        check_constants(mid);
        check_constants(v);
        printf("energy read every %s ms, round %d: %.3f s, energy %.3f J (mid %.3f J), %llu samples, age %llu ns\n",
               energy_ms ? energy_ms : "2000 (default)", round, seconds, v[ENERGY].v.f64, mid[ENERGY].v.f64,
               (unsigned long long)v[SAMPLES].v.u64, (unsigned long long)v[AGE].v.u64);
        /* 100 W for `seconds`, up to half a 100 ms counter step at each end: 10 J. */
        assert_true(fabs(v[ENERGY].v.f64 - 100.0 * seconds) <= 10.0 + 1.0);
        assert_true(mid[ENERGY].v.f64 > 0 && mid[ENERGY].v.f64 < v[ENERGY].v.f64);
        assert_true(v[SAMPLES].v.u64 >= 1);
        assert_true(mid[SAMPLES].v.u64 <= v[SAMPLES].v.u64);
    }
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
    unsetenv("PERFQ_NVML_ENERGY_MS");
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* test_history's hold on device 0, released by its teardown when an assertion left it held
 * (a sampler kept running would make the cases after it fail too). */
static int history_held;

static int release_history_hold(void **state)
{
    (void)state;
    if (history_held)
        perfq__nvml_interval_release(0);
    history_held = 0;
    unsetenv("PERFQ_NVML_LINGER_MS");
    return 0;
}

/* Intervals read after they ended, from the sampler's history (the OpenCL layer's per-command
 * counters): the fake's 100 W, 1000 MHz and 2619 MHz over a past interval, energy 100 W x its
 * length; an interval from before the sampler ran has no value; an end in the future waits. */
static void test_history(void **state)
{
    (void)state;
    /* Cadences no earlier case used: the hold below starts a sampler of its own, whatever
     * earlier cases left lingering. */
    setenv("PERFQ_NVML_LINGER_MS", "1998", 1);
    assert_int_equal(perfq__nvml_device_count(), 1);
    unsigned char uuid[16] = {0};
    assert_int_equal(perfq__nvml_device_from_uuid(uuid), -1);   /* "GPU-fake" is no UUID */
    /* No such device: refused without starting a sampler. (One started here would have
     * sampled within these 100 ms, and the hold below would share its history, from before
     * `before`: the CI failure of 978df62, where a loaded machine let it sample in time.) */
    assert_int_equal(perfq__nvml_interval_hold(3), -1);
    usleep(100000);
    uint64_t before = now_ns();
    usleep(1000);
    assert_int_equal(perfq__nvml_interval_hold(0), 0);
    history_held = 1;
    usleep(100000);
    uint64_t a = now_ns();
    usleep(200000);
    uint64_t b = now_ns();
    struct perfq_nvml_interval iv;
    assert_int_equal(perfq__nvml_interval_read(0, a, b, 1, &iv), 0);
    double seconds = (double)(b - a) / 1e9;
    printf("past interval of %.3f s: %.6f J, %.6f W, SM %.0f Hz, memory %.0f Hz, %u samples\n",
           seconds, iv.energy_j, iv.power_w, iv.sm_clock_hz, iv.mem_clock_hz, iv.samples);
    assert_true(fabs(iv.power_w - 100.0) < 1e-6);
    assert_true(fabs(iv.energy_j - 100.0 * seconds) < 1e-6);
    assert_true(fabs(iv.sm_clock_hz - 1e9) < 1e-3);
    assert_true(fabs(iv.mem_clock_hz - 2619e6) < 1e-3);
    assert_true(iv.samples >= 1);   /* 20 ms cadence over 200 ms: about 10, however late */
    /* A zero-length interval: the power at that instant, no energy. */
    assert_int_equal(perfq__nvml_interval_read(0, a, a, 1, &iv), 0);
    assert_true(fabs(iv.power_w - 100.0) < 1e-6 && iv.energy_j == 0);
    /* Before the sampler ran: no value, rather than a guess. */
    assert_int_equal(perfq__nvml_interval_read(0, before, b, 1, &iv), -1);
    /* An end 1 s ahead: not yet without waiting; with waiting, once sampled past it. (50 ms
     * before: a test thread kept off the CPUs that long, as beside a benchmark, would find it
     * sampled already.) */
    uint64_t ahead = now_ns() + 1000000000u;
    assert_int_equal(perfq__nvml_interval_read(0, b, ahead, 0, &iv), 1);
    assert_int_equal(perfq__nvml_interval_read(0, b, ahead, 1, &iv), 0);
    assert_true(now_ns() >= ahead);
    assert_true(fabs(iv.power_w - 100.0) < 1e-6);
    assert_int_equal(perfq__nvml_interval_read(0, b, a, 1, &iv), -1);   /* reversed */
    perfq__nvml_interval_release(0);
    history_held = 0;
    /* Released: nothing to read from (the sampler may linger, but serves no read unheld). */
    assert_int_equal(perfq__nvml_interval_read(0, a, b, 1, &iv), -1);
}

static void test_pcie(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_counter_id_t ids[2];
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/pcie-tx", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/pcie-rx", &ids[1]), PERFQ_OK);
    perfq_measurement_t *m;
    assert_int_equal(perfq_measurement_create(pq, ids, 2, NULL, &m), PERFQ_OK);
    perfq_value_t v[2];
    assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
    usleep(100000);
    assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
    /* The end resolves at the next PCIe read, up to a second later. */
    assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2), PERFQ_OK);
    assert_true(fabs(v[0].v.f64 - 1024000.0) < 1e-3);
    assert_true(fabs(v[1].v.f64 - 3072000.0) < 1e-3);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
}

/* Opens the engine and finds nvml-gpu0's pcie-tx, pcie-rx and average-power, in that order. */
static perfq_t *open_pcie_and_power(perfq_counter_id_t ids[3])
{
    perfq_t *pq;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/pcie-tx", &ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/pcie-rx", &ids[1]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/average-power", &ids[2]), PERFQ_OK);
    return pq;
}

/* A device that refuses PCIe throughput: the probe does not try it (a 20 ms call, a third of
 * NVML's start on an H100), so the counters are listed; measured, they read "not counted",
 * and neither the measurement's start nor its result waits for a read that never comes (before
 * the sampler knew refusals, the start waited 3 s for a first read and failed). */
static void test_pcie_refused(void **state)
{
    (void)state;
    setenv("FAKE_NVML_PCIE", "refuse", 1);
    setenv("PERFQ_NVML_LINGER_MS", "1999", 1);   /* other cadences: a fresh sampler thread */
    perfq_counter_id_t ids[3];
    perfq_t *pq = open_pcie_and_power(ids);
    perfq_counter_info_t ci;
    assert_int_equal(perfq_counter_info(pq, ids[0], &ci), PERFQ_OK);
    assert_int_equal(ci.available, 1);
    perfq_value_t v[3];
    for (int round = 0; round < 2; round++) {   /* the second: the refusal already known */
        perfq_measurement_t *m;
        assert_int_equal(perfq_measurement_create(pq, ids, 3, NULL, &m), PERFQ_OK);
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        usleep(60000);
        assert_int_equal(perfq_measurement_sample(m, v, 3), PERFQ_OK);
        assert_true(v[0].flags & PERFQ_VALUE_NOT_COUNTED);
        assert_true(v[1].flags & PERFQ_VALUE_NOT_COUNTED);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 3), PERFQ_OK);
        assert_true(v[0].flags & PERFQ_VALUE_NOT_COUNTED);
        assert_true(v[1].flags & PERFQ_VALUE_NOT_COUNTED);
        assert_false(v[2].flags & PERFQ_VALUE_NOT_COUNTED);
        assert_true(fabs(v[2].v.f64 - 100.0) < 1e-6);
        perfq_measurement_destroy(&m);
    }
    perfq_close(&pq);
    unsetenv("PERFQ_NVML_LINGER_MS");
    unsetenv("FAKE_NVML_PCIE");
}

/* A result does not wait for the PCIe read after its end (a second later by default; here
 * never, within the test's time): once the fast channels are resolved, the newest PCIe read is
 * held to the end. Before, WAIT blocked up to the PCIe period plus 2 s, and NO_WAIT never
 * became ready. */
static void test_pcie_prompt(void **state)
{
    (void)state;
    setenv("PERFQ_NVML_PCIE_MS", "599999", 1);
    perfq_counter_id_t ids[3];
    perfq_t *pq = open_pcie_and_power(ids);
    perfq_value_t v[3];
    for (int wait = 0; wait < 2; wait++) {
        perfq_measurement_t *m;
        assert_int_equal(perfq_measurement_create(pq, ids, 3, NULL, &m), PERFQ_OK);
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        usleep(30000);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        perfq_status_t s;
        if (wait) {
            s = perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 3);
        } else {
            /* Ready after a fast sample (20 ms): polled up to 5 s, against the 10 minutes
             * of the PCIe period. */
            for (int i = 0; i < 1000; i++) {
                s = perfq_measurement_result(m, PERFQ_RESULT_NOWAIT, v, 3);
                if (s != PERFQ_NOT_READY)
                    break;
                usleep(5000);
            }
        }
        assert_int_equal(s, PERFQ_OK);
        assert_true(fabs(v[0].v.f64 - 1024000.0) < 1e-3);   /* the fake's 1000 KB/s, held */
        assert_true(fabs(v[1].v.f64 - 3072000.0) < 1e-3);
        assert_true(fabs(v[2].v.f64 - 100.0) < 1e-6);
        assert_int_equal(v[0].flags, 0);
        perfq_measurement_destroy(&m);
    }
    perfq_close(&pq);
    unsetenv("PERFQ_NVML_PCIE_MS");
}

static int sampler_threads(void)
{
    int n = 0;
    DIR *dir = opendir("/proc/self/task");
    struct dirent *e;
    while (dir && (e = readdir(dir))) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f && fgets(comm, sizeof(comm), f) && strncmp(comm, "perfq-nvml", 10) == 0)
            n++;
        if (f)
            fclose(f);
    }
    if (dir)
        closedir(dir);
    return n;
}

/* The sampler outlives its last user by PERFQ_NVML_LINGER_MS, and then ends by itself. */
static void test_linger(void **state)
{
    (void)state;
    perfq_t *pq;
    perfq_counter_id_t id;
    perfq_measurement_t *m;
    perfq_value_t v;
    assert_int_equal(perfq_open(&pq), PERFQ_OK);
    assert_int_equal(perfq_counter_find(pq, "nvml-gpu0/pcie-tx", &id), PERFQ_OK);
    setenv("PERFQ_NVML_LINGER_MS", "300000", 1);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
        assert_int_equal(sampler_threads(), 1);
        assert_int_equal(perfq_measurement_begin(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_end(m), PERFQ_OK);
        assert_int_equal(perfq_measurement_result(m, PERFQ_RESULT_WAIT, &v, 1), PERFQ_OK);
        assert_true(fabs(v.v.f64 - 1024000.0) < 1e-3);
        perfq_measurement_destroy(&m);
        assert_int_equal(sampler_threads(), 1);   /* lingering: the same thread, still there */
    }
    /* Another linger in the environment: the next user gets a fresh thread, which ends
     * 50 ms after its last user (polled up to 10 s). */
    setenv("PERFQ_NVML_LINGER_MS", "50", 1);
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(sampler_threads(), 1);
    perfq_measurement_destroy(&m);
    for (int i = 0; i < 1000 && sampler_threads(); i++)
        usleep(10000);
    assert_int_equal(sampler_threads(), 0);
    /* And a user after that starts one again. */
    assert_int_equal(perfq_measurement_create(pq, &id, 1, NULL, &m), PERFQ_OK);
    assert_int_equal(sampler_threads(), 1);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
    unsetenv("PERFQ_NVML_LINGER_MS");
}

/* Several threads, each with its own instance and measurement, share the one sampler. */
static void *worker(void *arg)
{
    int *ok = arg;
    perfq_t *pq;
    perfq_counter_id_t ids[N];
    if (perfq_open(&pq) != PERFQ_OK)
        return NULL;
    for (int i = 0; i < N; i++)
        if (perfq_counter_find(pq, names[i], &ids[i]) != PERFQ_OK)
            return NULL;
    perfq_measurement_t *m;
    perfq_value_t v[N];
    int good = 1;
    for (int r = 0; r < 5 && good; r++) {
        if (perfq_measurement_create(pq, ids, N, NULL, &m) != PERFQ_OK)
            return NULL;
        good = perfq_measurement_begin(m) == PERFQ_OK;
        usleep(20000);
        good = good && perfq_measurement_sample(m, v, N) == PERFQ_OK;
        good = good && perfq_measurement_end(m) == PERFQ_OK;
        good = good && perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, N) == PERFQ_OK;
        good = good && fabs(v[POWER].v.f64 - 100.0) < 1e-6;
        perfq_measurement_destroy(&m);
    }
    perfq_close(&pq);
    *ok = good;
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t t[4];
    int ok[4] = {0};
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, worker, &ok[i]), 0);
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(ok[i], 1);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_catalog),
        cmocka_unit_test_prestate(test_interval, NULL),
        cmocka_unit_test_prestate(test_interval, "100"),
        cmocka_unit_test_teardown(test_history, release_history_hold),
        cmocka_unit_test(test_pcie),
        cmocka_unit_test(test_pcie_prompt),
        cmocka_unit_test(test_pcie_refused),
        cmocka_unit_test(test_linger),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
