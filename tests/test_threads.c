/* Several threads: one shared instance, one measurement sampled from many threads, measurements
 * created and destroyed concurrently, instances opened and closed concurrently. Run under TSan
 * by the test command as well. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "perfq/perfq.h"

#define THREADS 4
#define ROUNDS 200

struct shared {
    perfq_t *pq;
    perfq_measurement_t *m;
    perfq_counter_id_t ids[2];
    int failures;
    pthread_mutex_t lock;
};

static void count_failure(struct shared *s)
{
    pthread_mutex_lock(&s->lock);
    s->failures++;
    pthread_mutex_unlock(&s->lock);
}

static void *sampler(void *arg)
{
    struct shared *s = arg;
    uint64_t last = 0;
    for (int i = 0; i < ROUNDS; i++) {
        perfq_value_t v[2];
        if (perfq_measurement_sample(s->m, v, 2) != PERFQ_OK || v[1].v.u64 < last)
            count_failure(s);
        last = v[1].v.u64;   /* wall time only grows */
    }
    return NULL;
}

static void *creator(void *arg)
{
    struct shared *s = arg;
    for (int i = 0; i < ROUNDS / 4; i++) {
        perfq_measurement_t *m;
        perfq_value_t v[2];
        if (perfq_measurement_create(s->pq, s->ids, 2, NULL, &m) != PERFQ_OK) {
            count_failure(s);
            continue;
        }
        if (perfq_measurement_begin(m) != PERFQ_OK || perfq_measurement_end(m) != PERFQ_OK ||
            perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2) != PERFQ_OK)
            count_failure(s);
        perfq_measurement_destroy(&m);
    }
    return NULL;
}

static void *opener(void *arg)
{
    struct shared *s = arg;
    for (int i = 0; i < 10; i++) {
        perfq_t *pq;
        if (perfq_open(&pq) != PERFQ_OK) {
            count_failure(s);
            continue;
        }
        perfq_close(&pq);
    }
    return NULL;
}

static void test_concurrent_use(void **state)
{
    (void)state;
    struct shared s = {0};
    pthread_mutex_init(&s.lock, NULL);
    assert_int_equal(perfq_open(&s.pq), PERFQ_OK);
    assert_int_equal(perfq_counter_find(s.pq, "host/task-clock", &s.ids[0]), PERFQ_OK);
    assert_int_equal(perfq_counter_find(s.pq, "clock/wall-time", &s.ids[1]), PERFQ_OK);
    assert_int_equal(perfq_measurement_create(s.pq, s.ids, 2, NULL, &s.m), PERFQ_OK);
    assert_int_equal(perfq_measurement_begin(s.m), PERFQ_OK);
    pthread_t t[THREADS * 3];
    for (int i = 0; i < THREADS; i++) {
        pthread_create(&t[i], NULL, sampler, &s);
        pthread_create(&t[THREADS + i], NULL, creator, &s);
        pthread_create(&t[2 * THREADS + i], NULL, opener, &s);
    }
    for (int i = 0; i < THREADS * 3; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(s.failures, 0);
    assert_int_equal(perfq_measurement_end(s.m), PERFQ_OK);
    perfq_measurement_destroy(&s.m);
    perfq_close(&s.pq);
    pthread_mutex_destroy(&s.lock);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_concurrent_use),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
