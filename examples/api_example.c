/* The C API example of README.md: CPU time and bytes written around a piece of work. */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include <perfq/perfq.h>

int main(void)
{
    perfq_t *pq;
    perfq_counter_id_t ids[2];
    perfq_measurement_t *m;
    perfq_value_t v[2];
    perfq_status_t st;

    if ((st = perfq_open(&pq)) != PERFQ_OK ||
        (st = perfq_counter_find(pq, "host/task-clock", &ids[0])) != PERFQ_OK ||
        (st = perfq_counter_find(pq, "proc-io/write-bytes", &ids[1])) != PERFQ_OK ||
        (st = perfq_measurement_create(pq, ids, 2, NULL, &m)) != PERFQ_OK) {
        fprintf(stderr, "perfq: %s\n", perfq_status_string(st));
        return 1;
    }
    perfq_measurement_begin(m);
    volatile uint64_t x = 0;
    for (uint64_t i = 0; i < 50000000u; i++)
        x += i;
    if (write(STDOUT_FILENO, "working\n", 8) != 8)
        return 1;
    perfq_measurement_end(m);
    if ((st = perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 2)) != PERFQ_OK) {
        fprintf(stderr, "perfq: %s\n", perfq_status_string(st));
        return 1;
    }
    printf("%" PRIu64 " ns of CPU, %" PRIu64 " bytes written (sum %" PRIu64 ")\n", v[0].v.u64,
           v[1].v.u64, (uint64_t)x);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
    return v[1].v.u64 == 8 ? 0 : 1;
}
