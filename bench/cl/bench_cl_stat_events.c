/*
 * bench-cl-stat-events [PLATFORM]: what `perfq stat --layers` asks of an OpenCL driver per
 * command, without the layer: the same small non-blocking clEnqueueWriteBuffer (64 bytes) done
 * five ways, in blocks of 2000 commands ended by clFinish, the ways alternating block after
 * block, and per way the median wall time and CPU time (getrusage of the whole process: a
 * driver's own threads included) per command.
 *   plain      no event, a queue without profiling (the program alone)
 *   profiling  no event, a queue with CL_QUEUE_PROFILING_ENABLE (what the driver's timestamps
 *              cost: a program that profiles pays it too)
 *   event      profiling, an event per command, released at once
 *   callback   profiling, an event per command with a CL_COMPLETE callback that reads START and
 *              END and releases it (how the layer read commands before 2026-11-26)
 *   poll       profiling, an event per command kept in a list; after each enqueue the oldest are
 *              asked their status and the complete ones read (START, END) and released, the
 *              rest after clFinish (how the layer reads them now: src/cl/stat_commands.c)
 * PLATFORM: part of the platform's name (default: the first platform).
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#define BLOCK 2000
#define ROUNDS 9
enum { PLAIN, PROFILING, EVENT, CALLBACK, POLL, WAYS };
static const char *const way_name[WAYS] = {"plain", "profiling", "event", "callback", "poll"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

static unsigned long long read_ns;   /* sum of END - START read, so the reads are not idle */
static volatile int called;

static void CL_CALLBACK completed(cl_event ev, cl_int status, void *user)
{
    (void)user;
    cl_ulong a = 0, b = 0;
    if (status == CL_COMPLETE &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(a), &a, NULL) ==
            CL_SUCCESS &&
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(b), &b, NULL) == CL_SUCCESS)
        __atomic_add_fetch(&read_ns, b - a, __ATOMIC_RELAXED);
    clReleaseEvent(ev);
    __atomic_add_fetch(&called, 1, __ATOMIC_RELEASE);
}

static void read_one(cl_event ev)
{
    cl_ulong a = 0, b = 0;
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(a), &a, NULL);
    clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(b), &b, NULL);
    read_ns += b - a;
    clReleaseEvent(ev);
}

/* One block of one way; 0 or an OpenCL error. */
static cl_int block(int way, cl_command_queue q, cl_mem buf, const char *host)
{
    static cl_event list[BLOCK];
    size_t head = 0, tail = 0;
    called = 0;
    for (int i = 0; i < BLOCK; i++) {
        cl_event ev = NULL;
        cl_int err = clEnqueueWriteBuffer(q, buf, CL_FALSE, 0, 64, host, 0, NULL,
                                          way >= EVENT ? &ev : NULL);
        if (err != CL_SUCCESS)
            return err;
        if (way == EVENT)
            clReleaseEvent(ev);
        else if (way == CALLBACK && (err = clSetEventCallback(ev, CL_COMPLETE, completed,
                                                                 NULL)) != CL_SUCCESS)
            return err;
        else if (way == POLL) {
            list[tail++] = ev;
            while (head < tail) {
                cl_int st = CL_QUEUED;
                clGetEventInfo(list[head], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(st), &st,
                               NULL);
                if (st != CL_COMPLETE)
                    break;
                read_one(list[head++]);
            }
        }
    }
    cl_int err = clFinish(q);
    while (head < tail)
        read_one(list[head++]);
    /* The callbacks may run after clFinish returned: the block ends when all have. */
    while (way == CALLBACK && __atomic_load_n(&called, __ATOMIC_ACQUIRE) < BLOCK) {
        struct timespec ts = {0, 10000};
        nanosleep(&ts, NULL);
    }
    return err;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    cl_platform_id ps[8];
    cl_uint np = 0, pick = 0;
    if (clGetPlatformIDs(8, ps, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr, "bench-cl-stat-events: no OpenCL platform\n");
        return 77;
    }
    char name[256] = "";
    for (cl_uint i = 0; i < np && i < 8; i++) {
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (argc < 2 || strstr(name, argv[1])) {
            pick = i;
            break;
        }
        if (i + 1 == np) {
            fprintf(stderr, "bench-cl-stat-events: no platform matches '%s'\n", argv[1]);
            return 77;
        }
    }
    clGetPlatformInfo(ps[pick], CL_PLATFORM_NAME, sizeof(name), name, NULL);
    cl_device_id dev;
    cl_uint nd = 0;
    if (clGetDeviceIDs(ps[pick], CL_DEVICE_TYPE_ALL, 1, &dev, &nd) != CL_SUCCESS || nd == 0)
        return 77;
    char dname[256] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof(dname), dname, NULL);
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_command_queue plain = clCreateCommandQueue(ctx, dev, 0, &err);
    cl_command_queue prof = clCreateCommandQueue(ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_mem buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 64, NULL, &err);
    if (err != CL_SUCCESS)
        return 1;
    static char host[64];
    double wall[WAYS][ROUNDS], cpu[WAYS][ROUNDS];
    for (int w = 0; w < WAYS; w++)   /* warm up each way once */
        if (block(w, w == PLAIN ? plain : prof, buf, host) != CL_SUCCESS)
            return 1;
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < WAYS; k++) {
            int w = (r + k) % WAYS;   /* rotate: no way always first */
            double t0 = now_s(), c0 = cpu_s();
            if (block(w, w == PLAIN ? plain : prof, buf, host) != CL_SUCCESS)
                return 1;
            wall[w][r] = (now_s() - t0) / BLOCK * 1e9;
            cpu[w][r] = (cpu_s() - c0) / BLOCK * 1e9;
        }
    printf("bench-cl-stat-events: %s / %s, %d blocks of %d 64-byte non-blocking writes per way, "
           "medians per command\n", name, dname, ROUNDS, BLOCK);
    for (int w = 0; w < WAYS; w++) {
        qsort(wall[w], ROUNDS, sizeof(double), cmp);
        qsort(cpu[w], ROUNDS, sizeof(double), cmp);
        printf("  %-10s wall %8.0f ns (%.0f-%.0f)   CPU %8.0f ns (%.0f-%.0f)\n", way_name[w],
               wall[w][ROUNDS / 2], wall[w][0], wall[w][ROUNDS - 1], cpu[w][ROUNDS / 2],
               cpu[w][0], cpu[w][ROUNDS - 1]);
    }
    printf("  (END - START read: %llu ns in all)\n", read_ns);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(plain);
    clReleaseCommandQueue(prof);
    clReleaseContext(ctx);
    return 0;
}
