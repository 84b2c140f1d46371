// CUPTI PM sampling through perfq's C API, on a CUDA program (no layer): known work and the
// perturbation of a memory-bound kernel. Built by hand with nvcc (bench/cuda/build.sh; the
// perfq build never needs CUDA) and run on the GPU machine. For each CUDA device:
//  1. accuracy: a copy kernel reads a buffer of B bytes and writes another of B bytes; the
//     perfq measurement around it (cupti-gpuN/dram__bytes_read.sum, dram__bytes_write.sum)
//     must give B each, within 2 % (3 runs);
//  2. perturbation: the same memory-bound kernel timed with CUDA events, in rounds alternating
//     with and without PM sampling running (a perfq measurement of the four counters open and
//     begun, or none), side by side in one run; prints the ratio of the medians.
// Exit status 0 when every accuracy check holds, 1 otherwise, 77 when a piece is missing.
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perfq/perfq.h"

#define CHECK(x)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (x);                                                              \
        if (e_ != cudaSuccess) {                                                           \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__); \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

__global__ void copy(const uint4 *__restrict__ a, uint4 *__restrict__ b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

static const char *names[4] = {"sm__cycles_active.avg", "dram__bytes_read.sum",
                               "dram__bytes_write.sum", "smsp__inst_executed.sum"};

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int cmp(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

// --plain: the copy kernel 10 times on device 0 and nothing else (no perfq), for
// `perfq stat -e cupti-gpu0/... -- cupti-dram --plain`: 10 GiB read and 10 GiB written.
static int plain(void)
{
    const size_t bytes = (size_t)1 << 30;
    uint4 *a, *b;
    CHECK(cudaMalloc(&a, bytes));
    CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 1, bytes));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 10; i++)
        copy<<<1056, 512>>>(a, b, bytes / sizeof(uint4));
    CHECK(cudaDeviceSynchronize());
    printf("plain: 10 copies of %zu bytes (plus a memset of %zu bytes)\n", bytes, bytes);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--plain") == 0)
        return plain();
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    perfq_t *pq = NULL;
    if (perfq_open(&pq) != PERFQ_OK) {
        printf("perfq_open failed\n");
        return 1;
    }
    int failures = 0;
    const size_t bytes = (size_t)1 << 30;   // 1 GiB per buffer, 20x the L2
    const size_t n = bytes / sizeof(uint4);
    for (int d = 0; d < devices && d < 8; d++) {
        CHECK(cudaSetDevice(d));
        perfq_counter_id_t ids[4];
        for (int i = 0; i < 4; i++) {
            char full[96];
            snprintf(full, sizeof(full), "cupti-gpu%d/%s", d, names[i]);
            perfq_counter_info_t ci;
            if (perfq_counter_find(pq, full, &ids[i]) != PERFQ_OK ||
                perfq_counter_info(pq, ids[i], &ci) != PERFQ_OK || !ci.available) {
                perfq_counter_find(pq, "cupti/dram__bytes_read.sum", &ids[i]);
                perfq_counter_info(pq, ids[i], &ci);
                printf("device %d: %s unavailable: %s\n", d, full,
                       ci.unavailable_reason ? ci.unavailable_reason : "?");
                return 77;
            }
        }
        uint4 *a, *b;
        CHECK(cudaMalloc(&a, bytes));
        CHECK(cudaMalloc(&b, bytes));
        CHECK(cudaMemset(a, 1, bytes));
        CHECK(cudaMemset(b, 0, bytes));
        int sms = 0;
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, d));
        dim3 grid(sms * 8), block(512);
        copy<<<grid, block>>>(a, b, n);
        CHECK(cudaDeviceSynchronize());

        perfq_measurement_t *m = NULL;
        perfq_status_t st = perfq_measurement_create(pq, ids, 4, NULL, &m);
        if (st != PERFQ_OK) {
            printf("device %d: measurement_create: %s\n", d, perfq_status_string(st));
            return 1;
        }
        for (int run = 0; run < 4; run++) {
            perfq_value_t v[4];
            int copies = run < 3 ? 1 : 10;   // one copy (0.76 ms on an H100), then ten
            perfq_measurement_begin(m);
            for (int k = 0; k < copies; k++)
                copy<<<grid, block>>>(a, b, n);
            CHECK(cudaDeviceSynchronize());
            perfq_measurement_end(m);
            st = perfq_measurement_result(m, PERFQ_RESULT_WAIT, v, 4);
            if (st != PERFQ_OK || (v[1].flags | v[2].flags) & PERFQ_VALUE_NOT_COUNTED) {
                printf("device %d run %d: result %s, flags %u %u\n", d, run,
                       perfq_status_string(st), v[1].flags, v[2].flags);
                failures++;
                continue;
            }
            double want = (double)bytes * copies;
            double r = (double)v[1].v.u64 / want - 1, w = (double)v[2].v.u64 / want - 1;
            printf("device %d run %d: %d copy: dram read %llu bytes (%+.3f%%), write %llu bytes "
                   "(%+.3f%%) of %.0f each; sm__cycles_active.avg %.0f, "
                   "smsp__inst_executed.sum %llu\n",
                   d, run, copies, (unsigned long long)v[1].v.u64, 100 * r,
                   (unsigned long long)v[2].v.u64, 100 * w, want, v[0].v.f64,
                   (unsigned long long)v[3].v.u64);
            if (fabs(r) > 0.02 || fabs(w) > 0.02)
                failures++;
        }
        // The decoder thread's cost: process CPU time over 2 s of an idle GPU, with PM sampling
        // running and an interval open (the measurement begun), running with no interval open
        // (the measurement ended, not destroyed: samples decoded, not evaluated), and off (no
        // measurement), side by side.
        perfq_measurement_begin(m);
        double c0 = cpu_seconds();
        sleep_s(2.0);
        double with_cpu = cpu_seconds() - c0;
        perfq_measurement_end(m);
        perfq_value_t ignored[4];
        perfq_measurement_result(m, PERFQ_RESULT_WAIT, ignored, 4);
        c0 = cpu_seconds();
        sleep_s(2.0);
        double closed_cpu = cpu_seconds() - c0;
        perfq_measurement_destroy(&m);
        c0 = cpu_seconds();
        sleep_s(2.0);
        double without_cpu = cpu_seconds() - c0;
        printf("device %d decoder cost: process CPU over 2 s idle, PM sampling on %.1f ms, off "
               "%.1f ms: %.2f%% of one core\n", d, with_cpu * 1e3, without_cpu * 1e3,
               100 * (with_cpu - without_cpu) / 2.0);
        printf("device %d decoder cost with no interval open (measurement ended, not destroyed): "
               "%.1f ms: %.2f%% of one core\n", d, closed_cpu * 1e3,
               100 * (closed_cpu - without_cpu) / 2.0);

        // Perturbation: rounds alternate (with, without, without, with, ...), 10 kernels each.
        cudaEvent_t e0, e1;
        CHECK(cudaEventCreate(&e0));
        CHECK(cudaEventCreate(&e1));
        enum { ROUNDS = 16, PER = 10 };
        double with[ROUNDS * PER / 2], without[ROUNDS * PER / 2];
        int nw = 0, nwo = 0;
        for (int round = 0; round < ROUNDS; round++) {
            int sampling = (round % 4 == 0 || round % 4 == 3);
            perfq_measurement_t *pm = NULL;
            if (sampling) {
                perfq_measurement_create(pq, ids, 4, NULL, &pm);
                perfq_measurement_begin(pm);
            }
            for (int k = 0; k < PER; k++) {
                CHECK(cudaEventRecord(e0));
                copy<<<grid, block>>>(a, b, n);
                CHECK(cudaEventRecord(e1));
                CHECK(cudaEventSynchronize(e1));
                float ms = 0;
                CHECK(cudaEventElapsedTime(&ms, e0, e1));
                if (sampling)
                    with[nw++] = ms;
                else
                    without[nwo++] = ms;
            }
            if (pm) {
                perfq_measurement_end(pm);
                perfq_value_t v[4];
                perfq_measurement_result(pm, PERFQ_RESULT_WAIT, v, 4);
                perfq_measurement_destroy(&pm);
            }
        }
        qsort(with, nw, sizeof(double), cmp);
        qsort(without, nwo, sizeof(double), cmp);
        double mw = with[nw / 2], mwo = without[nwo / 2];
        printf("device %d perturbation: copy of 2 x %zu bytes, median of %d kernels each: "
               "with PM sampling %.4f ms, without %.4f ms, ratio %.4f (%+.2f%%), %.0f GB/s\n",
               d, bytes, nw, mw, mwo, mw / mwo, 100 * (mw / mwo - 1), 2.0 * bytes / mwo / 1e6);
        CHECK(cudaFree(a));
        CHECK(cudaFree(b));
    }
    perfq_close(&pq);
    printf("%s\n", failures ? "FAILED" : "all DRAM byte counts within 2%");
    return failures ? 1 : 0;
}
