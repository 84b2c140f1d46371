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
 *
 * Both check the buffers' contents at the end. Prints what it enqueued on stdout; exit 0, 1 on
 * an OpenCL failure or a wrong result, 2 for bad arguments, 77 when there is no OpenCL platform.
 */
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS   /* clCreateCommandQueue, as most programs */
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define WORDS 1024   /* 4 KiB */

static const char *source =
    "__kernel void inc(__global uint *x) { x[get_global_id(0)] += 1u; }\n"
    "__kernel void spin(__global uint *x, uint n)\n"
    "{ uint v = x[0]; for (uint i = 0; i < n; i++) v = v * 1664525u + 1013904223u; "
    "x[1] = v; }\n";

static int failed(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        fprintf(stderr, "perfq-test-cl-late: %s failed: %d\n", what, err);
    return err != CL_SUCCESS;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, ms % 1000 * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    int late = argc == 4 && strcmp(argv[1], "late") == 0;
    int inflight = argc == 4 && strcmp(argv[1], "inflight") == 0;
    long n = argc == 4 ? atol(argv[2]) : 0, ms = argc == 4 ? atol(argv[3]) : -1;
    if ((!late && !inflight) || n < 1 || n > 100000 || ms < 0) {
        fprintf(stderr, "usage: perfq-test-cl-late late|inflight N SLEEP_MS\n");
        return 2;
    }
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
        ctx, device, props & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
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
    for (long r = 0; r < n && err == CL_SUCCESS; r++) {
        err |= clEnqueueWriteBuffer(q, a, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, inc, 1, NULL, &global, NULL, 0, NULL, NULL);
    }
    long writes2 = inflight ? n / 4 : 0;
    for (long r = 0; r < writes2 && err == CL_SUCCESS; r++)
        err |= clEnqueueWriteBuffer(q2, b, CL_FALSE, 0, bytes, src, 0, NULL, NULL);
    if (failed(err, "an enqueue") || failed(clFlush(q), "clFlush") ||
        failed(clFlush(q2), "clFlush"))
        return 1;
    sleep_ms(ms);   /* the program's CPU phase: nothing waits for the commands */
    if (failed(clFinish(q), "clFinish") || failed(clFinish(q2), "clFinish"))
        return 1;
    /* The last round wrote src to a and added 1: read it back (one more command, blocking). */
    if (failed(clEnqueueReadBuffer(q, a, CL_TRUE, 0, bytes, out, 0, NULL, NULL), "read"))
        return 1;
    for (int i = 0; i < WORDS; i++)
        if (out[i] != (cl_uint)i + 1u) {
            fprintf(stderr, "perfq-test-cl-late: wrong result at %d: %u\n", i, out[i]);
            return 1;
        }
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
    printf("perfq-test-cl-late: %s: %ld commands on the first queue, %ld on the second, "
           "%ld ms of sleep before clFinish\n", argv[1], 2 * n + (inflight ? 2 : 1), writes2, ms);
    return 0;
}
