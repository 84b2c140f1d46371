/*
 * perfq-test-cl-late: an OpenCL program whose commands are read late, for the cli-record test
 * (tests/test_cli_record.py, docs/perfq-record.md "A streaming writer with bounded memory").
 * Under `perfq record` the OpenCL layer reads a command's START/END only at the program's
 * blocking calls, clFinish, clWaitForEvents, every 32 commands or at exit
 * (docs/opencl-layer.md), so these commands' GPU intervals reach perfq seconds after they ran,
 * later than the trace writer's 2 s horizon.
 *
 *   perfq-test-cl-late late ROUNDS SLEEP_MS
 *       ROUNDS rounds of a 4 KiB write and a kernel ("inc") on one in-order queue, without
 *       events, clFlush, then SLEEP_MS ms of sleep (a CPU phase), then clFinish.
 *   perfq-test-cl-late inflight N SLEEP_MS
 *       many commands in flight: a kernel that runs long ("spin", one work item), then N rounds
 *       of a write and "inc" behind it on the in-order queue, and N/4 writes on a second queue
 *       (out of order where the device has it); SLEEP_MS ms of sleep, then clFinish on each.
 *   perfq-test-cl-late threads N SLEEP_MS
 *       4 threads enqueue at once on the one in-order queue, each N rounds of a write and "inc"
 *       on a buffer of its own (their enqueue records reach perfq in another order than the
 *       calls began); SLEEP_MS ms of sleep, then clFinish.
 *   perfq-test-cl-late ooo N SLEEP_MS
 *       as late, and N kernels ("set", each a 4 KiB buffer of its own to one value) on the
 *       second queue, out of order where the device has it: they run at once (PoCL's worker
 *       threads), and perfq record must place them on tracks where they nest or are disjoint.
 *   perfq-test-cl-late exitbusy N SLEEP_MS
 *       4 threads, each with its own in-order queue, enqueue up to N rounds of a write and "inc"
 *       each, never waiting; after SLEEP_MS ms the main thread calls exit(0) while they go on
 *       (a common way to shut down). The process must end then, not when their work is done.
 *   perfq-test-cl-late sequential N SLEEP_MS
 *       N queues made one after another, each a write and "inc" (2 commands), clFinish and
 *       released before the next is made (a driver often gives the next one the released one's
 *       handle); then as late with one round.
 *   perfq-test-cl-late forked N SLEEP_MS
 *       forks before its first OpenCL call; each process does as late, with a 4 KiB write on
 *       the second queue (in order) beside each round, then waits for the child (two
 *       processes whose first enqueue calls contend: a queue's first call may take tens of ms).
 *   perfq-test-cl-late child N SLEEP_MS
 *       a forked child enqueues N writes waiting on a user event it never sets and kills itself
 *       (SIGKILL: the commands' records never come); the parent reaps it and sleeps SLEEP_MS ms
 *       (the test ends it sooner with a signal).
 *
 * Both check the buffers' contents at the end. Prints what it enqueued on stdout; exit 0, 1 on
 * an OpenCL failure or a wrong result, 2 for bad arguments, 77 when there is no OpenCL platform.
 */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS   /* clCreateCommandQueue, as most programs */
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WORDS 1024   /* 4 KiB */
#define THREADS 4

static const char *source =
    "__kernel void inc(__global uint *x) { x[get_global_id(0)] += 1u; }\n"
    "__kernel void set(__global uint *x, uint v) { x[get_global_id(0)] = v; }\n"
    "__kernel void spin(__global uint *x, uint n)\n"
    "{ uint v = x[0]; for (uint i = 0; i < n; i++) v = v * 1664525u + 1013904223u; "
    "x[1] = v; }\n";

static int failed(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        fprintf(stderr, "perfq-test-cl-late: %s failed: %d\n", what, err);
    return err != CL_SUCCESS;
}

/* One thread of "threads": rounds of a write and "inc" on its own buffer and kernel object
 * (clSetKernelArg is not thread safe on one kernel object). */
struct thread_work {
    cl_command_queue q;
    cl_kernel inc;
    cl_mem buf;
    const cl_uint *src;
    long rounds;
    cl_int err;
};

static void *enqueue_rounds(void *arg)
{
    struct thread_work *w = arg;
    size_t global = WORDS;
    for (long r = 0; r < w->rounds && w->err == CL_SUCCESS; r++) {
        w->err |= clEnqueueWriteBuffer(w->q, w->buf, CL_FALSE, 0, WORDS * sizeof(cl_uint),
                                       w->src, 0, NULL, NULL);
        w->err |= clEnqueueNDRangeKernel(w->q, w->inc, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
    return NULL;
}

static int check_buffer(cl_command_queue q, cl_mem buf, cl_uint *out)
{
    if (failed(clEnqueueReadBuffer(q, buf, CL_TRUE, 0, WORDS * sizeof(cl_uint), out, 0, NULL,
                                   NULL), "read"))
        return 1;
    for (int i = 0; i < WORDS; i++)
        if (out[i] != (cl_uint)i + 1u) {
            fprintf(stderr, "perfq-test-cl-late: wrong result at %d: %u\n", i, out[i]);
            return 1;
        }
    return 0;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* "child": the child's part (the parent has not touched OpenCL). */
static int child_dies_waiting(long n)
{
    cl_platform_id platform;
    cl_device_id device;
    cl_uint np = 0, nd = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0)
        return 77;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    cl_command_queue q = err == CL_SUCCESS ? clCreateCommandQueue(ctx, device, 0, &err) : NULL;
    cl_mem a = err == CL_SUCCESS ? clCreateBuffer(ctx, CL_MEM_READ_WRITE, WORDS * sizeof(cl_uint),
                                                  NULL, &err) : NULL;
    cl_event gate = err == CL_SUCCESS ? clCreateUserEvent(ctx, &err) : NULL;
    if (failed(err, "the child's setup"))
        return 1;
    static cl_uint src[WORDS];
    for (long r = 0; r < n; r++)
        if (failed(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, sizeof(src), src, 1, &gate, NULL),
                   "the child's write"))
            return 1;
    clFlush(q);
    raise(SIGKILL);   /* no exit handler: the layer never reads them */
    return 1;
}

int main(int argc, char **argv)
{
    int late = argc == 4 && strcmp(argv[1], "late") == 0;
    int inflight = argc == 4 && strcmp(argv[1], "inflight") == 0;
    int threads = argc == 4 && strcmp(argv[1], "threads") == 0;
    int child = argc == 4 && strcmp(argv[1], "child") == 0;
    int ooo = argc == 4 && strcmp(argv[1], "ooo") == 0;
    int exitbusy = argc == 4 && strcmp(argv[1], "exitbusy") == 0;
    int sequential = argc == 4 && strcmp(argv[1], "sequential") == 0;
    int forked = argc == 4 && strcmp(argv[1], "forked") == 0;
    long n = argc == 4 ? atol(argv[2]) : 0, ms = argc == 4 ? atol(argv[3]) : -1;
    if ((!late && !inflight && !threads && !child && !ooo && !exitbusy && !sequential &&
         !forked) || n < 1 ||
        n > (exitbusy ? 10000000 : 100000) || ms < 0) {
        fprintf(stderr, "usage: perfq-test-cl-late "
                "late|inflight|threads|child|ooo|exitbusy|sequential|forked N SLEEP_MS\n");
        return 2;
    }
    if (child) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(child_dies_waiting(n));
        int status = 0;
        if (pid < 0 || waitpid(pid, &status, 0) != pid)
            return 1;
        if (WIFEXITED(status))   /* 77: no platform; else its failure */
            return WEXITSTATUS(status) == 77 ? 77 : 1;
        printf("perfq-test-cl-late: child: %ld writes left waiting by a child killed with "
               "SIGKILL; sleeping %ld ms\n", n, ms);
        fflush(stdout);
        sleep_ms(ms);
        return 0;
    }
    pid_t forked_child = forked ? fork() : 0;
    if (forked_child < 0)
        return 1;
    cl_platform_id platform;
    cl_device_id device;
    cl_uint np = 0, nd = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0) {
        fprintf(stderr, "perfq-test-cl-late: no OpenCL platform or device\n");
        return 77;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (failed(err, "clCreateContext"))
        return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    if (failed(err, "clCreateCommandQueue"))
        return 1;
    cl_command_queue_properties props = 0;
    clGetDeviceInfo(device, CL_DEVICE_QUEUE_PROPERTIES, sizeof(props), &props, NULL);
    cl_command_queue q2 = clCreateCommandQueue(
        ctx, device, forked ? 0 : props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    if (failed(err, "clCreateCommandQueue (second)"))
        return 1;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (failed(err, "clCreateProgramWithSource") ||
        failed(clBuildProgram(prog, 1, &device, NULL, NULL, NULL), "clBuildProgram"))
        return 1;
    size_t bytes = WORDS * sizeof(cl_uint);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem s = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), NULL, &err);
    if (failed(err, "clCreateBuffer"))
        return 1;
    cl_kernel inc = clCreateKernel(prog, "inc", &err);
    cl_kernel spin = clCreateKernel(prog, "spin", &err);
    if (failed(err, "clCreateKernel"))
        return 1;
    cl_uint spins = 100000000u;   /* 0.1-0.5 s on a CPU device */
    clSetKernelArg(inc, 0, sizeof(a), &a);
    clSetKernelArg(spin, 0, sizeof(s), &s);
    clSetKernelArg(spin, 1, sizeof(spins), &spins);

    /* Host buffers stay untouched until clFinish: non-blocking writes read them later. */
    cl_uint *src = malloc(bytes), *out = malloc(bytes);
    if (!src || !out)
        return 1;
    for (int i = 0; i < WORDS; i++)
        src[i] = (cl_uint)i;
    size_t global = WORDS, one = 1;
    err = CL_SUCCESS;
    if (inflight)
        err |= clEnqueueNDRangeKernel(q, spin, 1, NULL, &one, NULL, 0, NULL, NULL);
    struct thread_work work[THREADS];
    for (long k = 0; sequential && k < n && err == CL_SUCCESS; k++) {
        cl_command_queue k_q = clCreateCommandQueue(ctx, device, 0, &err);
        if (failed(err, "clCreateCommandQueue (sequential)"))
            return 1;
        err |= clEnqueueWriteBuffer(k_q, a, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(k_q, inc, 1, NULL, &global, NULL, 0, NULL, NULL);
        err |= clFinish(k_q);
        err |= clReleaseCommandQueue(k_q);
    }
    long queues_made = sequential ? n : 0;
    if (sequential)
        n = 1;   /* then one round on the first queue, as late */
    if (exitbusy) {
        pthread_t tid;
        for (int k = 0; k < THREADS; k++) {
            cl_int qerr, kerr, berr;
            cl_command_queue k_q = clCreateCommandQueue(ctx, device, 0, &qerr);
            cl_kernel k_inc = clCreateKernel(prog, "inc", &kerr);
            cl_mem k_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &berr);
            work[k] = (struct thread_work){k_q, k_inc, k_buf, src, n, qerr | kerr | berr};
            if (work[k].err == CL_SUCCESS)
                work[k].err = clSetKernelArg(k_inc, 0, sizeof(k_buf), &k_buf);
            if (failed(work[k].err, "a thread's queue, kernel or buffer") ||
                pthread_create(&tid, NULL, enqueue_rounds, &work[k]) != 0)
                return 1;
        }
        sleep_ms(ms);
        printf("perfq-test-cl-late: exitbusy: exit(0) with 4 threads enqueueing\n");
        fflush(stdout);
        exit(0);
    }
    if (threads) {
        pthread_t tids[THREADS];
        for (int k = 0; k < THREADS; k++) {
            cl_int kerr, berr;
            cl_kernel k_inc = clCreateKernel(prog, "inc", &kerr);
            cl_mem k_buf = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &berr);
            work[k] = (struct thread_work){q, k_inc, k_buf, src, n, kerr | berr};
            if (work[k].err == CL_SUCCESS)
                work[k].err = clSetKernelArg(k_inc, 0, sizeof(k_buf), &k_buf);
        }
        int started = 0;
        while (started < THREADS &&
               pthread_create(&tids[started], NULL, enqueue_rounds, &work[started]) == 0)
            started++;
        for (int k = 0; k < started; k++)
            pthread_join(tids[k], NULL);
        for (int k = 0; k < THREADS; k++)
            err |= work[k].err;
        if (started < THREADS)
            return fprintf(stderr, "perfq-test-cl-late: pthread_create failed\n"), 1;
        n = 1;   /* and one round from the main thread: a is checked below as in late */
    }
    for (long r = 0; r < n && err == CL_SUCCESS; r++) {
        err |= clEnqueueWriteBuffer(q, a, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
        if (forked)
            err |= clEnqueueWriteBuffer(q2, b, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, inc, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
    long writes2 = inflight ? n / 4 : forked ? n : 0;
    for (long r = 0; !forked && r < writes2 && err == CL_SUCCESS; r++)
        err |= clEnqueueWriteBuffer(q2, b, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
    long sets = ooo ? n : 0;
    cl_mem *set_bufs = sets ? calloc((size_t)sets, sizeof(*set_bufs)) : NULL;
    cl_kernel set = sets ? clCreateKernel(prog, "set", &err) : NULL;
    if (sets && (!set_bufs || failed(err, "clCreateKernel (set)")))
        return 1;
    for (long r = 0; r < sets && err == CL_SUCCESS; r++) {
        cl_uint v = (cl_uint)r;
        set_bufs[r] = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
        if (err != CL_SUCCESS)
            break;
        /* Arguments set, then the launch: the kernel object's arguments are copied at it. */
        err |= clSetKernelArg(set, 0, sizeof(set_bufs[r]), &set_bufs[r]);
        err |= clSetKernelArg(set, 1, sizeof(v), &v);
        err |= clEnqueueNDRangeKernel(q2, set, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
    writes2 += sets;
    if (failed(err, "an enqueue") || failed(clFlush(q), "clFlush") ||
        failed(clFlush(q2), "clFlush"))
        return 1;
    sleep_ms(ms);   /* the program's CPU phase: nothing waits for the commands */
    if (failed(clFinish(q), "clFinish") || failed(clFinish(q2), "clFinish"))
        return 1;
    /* The last round wrote src to a and added 1: read it back (one more command, blocking);
     * each thread's buffer too. */
    if (check_buffer(q, a, out))
        return 1;
    for (int k = 0; threads && k < THREADS; k++) {
        if (check_buffer(q, work[k].buf, out))
            return 1;
        clReleaseMemObject(work[k].buf);
        clReleaseKernel(work[k].inc);
    }
    for (long r = 0; r < sets; r++) {
        cl_uint got = 0;
        if (failed(clEnqueueReadBuffer(q2, set_bufs[r], CL_TRUE, 4 * sizeof(cl_uint),
                                       sizeof(got), &got, 0, NULL, NULL), "read (set)") ||
            got != (cl_uint)r)
            return fprintf(stderr, "perfq-test-cl-late: set %ld read %u\n", r, got), 1;
        clReleaseMemObject(set_bufs[r]);
    }
    if (set)
        clReleaseKernel(set);
    free(set_bufs);
    clReleaseKernel(inc);
    clReleaseKernel(spin);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(s);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(q2);
    clReleaseContext(ctx);
    free(src);
    free(out);
    long first = threads ? 2 * atol(argv[2]) * THREADS + 2 + 1 + THREADS
                         : 2 * n + (inflight ? 2 : 1);
    if (forked_child > 0) {
        int status = 0;
        if (waitpid(forked_child, &status, 0) != forked_child || !WIFEXITED(status) ||
            WEXITSTATUS(status) != 0)
            return fprintf(stderr, "perfq-test-cl-late: the forked child failed\n"), 1;
    }
    printf("perfq-test-cl-late: %s: %ld commands on the first queue, %ld on the second, "
           "%ld on %ld queues made one after another, %ld ms of sleep before clFinish\n",
           argv[1], first, writes2, 2 * queues_made, queues_made, ms);
    return 0;
}
