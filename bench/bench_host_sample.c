/*
 * perfq_measurement_sample of three host software counters against one raw perf_event group
 * read() of the same three events, side by side in one run. Blocks of each alternate so that
 * drift of a shared machine hits both; the median of the per-call block times is compared.
 * Prints ns per call and the ratio perfq/raw (target: <= 1.15).
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "perfq/perfq.h"

#define BLOCKS 41
#define CALLS 20000

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int open_sw(uint64_t config, int leader)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof(a));
    a.size = sizeof(a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.inherit = 1;   /* as perfq opens them */
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, leader, PERF_FLAG_FD_CLOEXEC);
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(void)
{
    int lead = open_sw(PERF_COUNT_SW_TASK_CLOCK, -1);
    int f2 = open_sw(PERF_COUNT_SW_PAGE_FAULTS, lead);
    int f3 = open_sw(PERF_COUNT_SW_CONTEXT_SWITCHES, lead);
    if (lead < 0 || f2 < 0 || f3 < 0) {
        perror("perf_event_open");
        return 1;
    }
    perfq_t *pq;
    perfq_counter_id_t ids[3];
    perfq_measurement_t *m;
    if (perfq_open(&pq) != PERFQ_OK ||
        perfq_counter_find(pq, "host/task-clock", &ids[0]) != PERFQ_OK ||
        perfq_counter_find(pq, "host/page-faults", &ids[1]) != PERFQ_OK ||
        perfq_counter_find(pq, "host/context-switches", &ids[2]) != PERFQ_OK ||
        perfq_measurement_create(pq, ids, 3, NULL, &m) != PERFQ_OK ||
        perfq_measurement_begin(m) != PERFQ_OK) {
        fprintf(stderr, "perfq: cannot measure the host software events here\n");
        return 1;
    }
    double raw[BLOCKS], wrapped[BLOCKS];
    uint64_t buf[3 + 3];
    perfq_value_t values[3];
    for (int b = 0; b < BLOCKS; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < CALLS; i++)
            if (read(lead, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
                return 1;
        uint64_t t1 = now_ns();
        for (int i = 0; i < CALLS; i++)
            if (perfq_measurement_sample(m, values, 3) != PERFQ_OK)
                return 1;
        uint64_t t2 = now_ns();
        raw[b] = (double)(t1 - t0) / CALLS;
        wrapped[b] = (double)(t2 - t1) / CALLS;
    }
    qsort(raw, BLOCKS, sizeof(double), cmp);
    qsort(wrapped, BLOCKS, sizeof(double), cmp);
    double r = raw[BLOCKS / 2], w = wrapped[BLOCKS / 2];
    printf("host sample, 3 software events (median of %d blocks of %d calls)\n", BLOCKS, CALLS);
    printf("  raw perf_event group read():   %8.1f ns/call\n", r);
    printf("  perfq_measurement_sample():    %8.1f ns/call\n", w);
    printf("  ratio perfq/raw:               %8.3f   (target <= 1.15)\n", w / r);
    perfq_measurement_end(m);
    perfq_measurement_destroy(&m);
    perfq_close(&pq);
    close(f3);
    close(f2);
    close(lead);
    return 0;
}
