/*
 * perfq-example-cl: a small OpenCL program, unmodified, for `perfq stat --layers`. On the first
 * device of the first platform it runs ROUNDS rounds (default 20) of:
 *   clEnqueueWriteBuffer  a, b      (2 x N floats)
 *   clEnqueueNDRangeKernel "vadd"   c = a + b
 *   clEnqueueNDRangeKernel "scale"  c = c * 2
 *   clEnqueueNDRangeKernel "saxpy"  a = 3 * c + b
 *   clEnqueueReadBuffer   c, a      (2 x N floats)
 * with N = 65536, and checks the result. Commands are enqueued without events, as most programs
 * do. It prints what it did on stdout; exit 0, 1 on an OpenCL failure or a wrong result, 77
 * when there is no OpenCL platform.
 *
 *   perfq-example-cl [ROUNDS]
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

#define N 65536

static const char *source =
    "__kernel void vadd(__global const float *a, __global const float *b, __global float *c)\n"
    "{ size_t i = get_global_id(0); c[i] = a[i] + b[i]; }\n"
    "__kernel void scale(__global float *c) { size_t i = get_global_id(0); c[i] *= 2.0f; }\n"
    "__kernel void saxpy(__global float *a, __global const float *b, __global const float *c)\n"
    "{ size_t i = get_global_id(0); a[i] = 3.0f * c[i] + b[i]; }\n";

static int check(cl_int err, const char *what)
{
    if (err != CL_SUCCESS)
        fprintf(stderr, "perfq-example-cl: %s failed: %d\n", what, err);
    return err != CL_SUCCESS;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 20;
    if (rounds < 0) {
        fprintf(stderr, "usage: perfq-example-cl [ROUNDS]\n");
        return 2;
    }
    cl_platform_id platform;
    cl_device_id device;
    cl_uint np = 0, nd = 0;
    if (clGetPlatformIDs(1, &platform, &np) != CL_SUCCESS || np == 0 ||
        clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &nd) != CL_SUCCESS || nd == 0) {
        fprintf(stderr, "perfq-example-cl: no OpenCL platform or device\n");
        return 77;
    }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (check(err, "clCreateContext"))
        return 1;
    cl_command_queue q = clCreateCommandQueue(ctx, device, 0, &err);
    if (check(err, "clCreateCommandQueue"))
        return 1;
    cl_program prog = clCreateProgramWithSource(ctx, 1, &source, NULL, &err);
    if (check(err, "clCreateProgramWithSource") ||
        check(clBuildProgram(prog, 1, &device, NULL, NULL, NULL), "clBuildProgram"))
        return 1;
    size_t bytes = N * sizeof(float);
    cl_mem a = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_mem c = clCreateBuffer(ctx, CL_MEM_READ_WRITE, bytes, NULL, &err);
    if (check(err, "clCreateBuffer"))
        return 1;
    cl_kernel vadd = clCreateKernel(prog, "vadd", &err);
    cl_kernel scale = clCreateKernel(prog, "scale", &err);
    cl_kernel saxpy = clCreateKernel(prog, "saxpy", &err);
    if (check(err, "clCreateKernel"))
        return 1;
    clSetKernelArg(vadd, 0, sizeof(a), &a);
    clSetKernelArg(vadd, 1, sizeof(b), &b);
    clSetKernelArg(vadd, 2, sizeof(c), &c);
    clSetKernelArg(scale, 0, sizeof(c), &c);
    clSetKernelArg(saxpy, 0, sizeof(a), &a);
    clSetKernelArg(saxpy, 1, sizeof(b), &b);
    clSetKernelArg(saxpy, 2, sizeof(c), &c);

    float *ha = malloc(bytes), *hb = malloc(bytes), *hc = malloc(bytes), *hout = malloc(bytes);
    if (!ha || !hb || !hc || !hout)
        return 1;
    size_t global = N;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < N; i++) {
            ha[i] = (float)(i % 100 + r);
            hb[i] = (float)(i % 7);
        }
        err = clEnqueueWriteBuffer(q, a, CL_FALSE, 0, bytes, ha, 0, NULL, NULL);
        err |= clEnqueueWriteBuffer(q, b, CL_FALSE, 0, bytes, hb, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, vadd, 1, NULL, &global, NULL, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, scale, 1, NULL, &global, NULL, 0, NULL, NULL);
        err |= clEnqueueNDRangeKernel(q, saxpy, 1, NULL, &global, NULL, 0, NULL, NULL);
        err |= clEnqueueReadBuffer(q, c, CL_FALSE, 0, bytes, hc, 0, NULL, NULL);
        err |= clEnqueueReadBuffer(q, a, CL_TRUE, 0, bytes, hout, 0, NULL, NULL);
        if (check(err, "an enqueue"))
            return 1;
        for (int i = 0; i < N; i++) {
            float want_c = 2.0f * (ha[i] + hb[i]);
            if (hc[i] != want_c || hout[i] != 3.0f * want_c + hb[i]) {
                fprintf(stderr, "perfq-example-cl: wrong result at %d in round %d\n", i, r);
                return 1;
            }
        }
    }
    clReleaseKernel(vadd);
    clReleaseKernel(scale);
    clReleaseKernel(saxpy);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseMemObject(c);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    free(ha);
    free(hb);
    free(hc);
    free(hout);
    printf("perfq-example-cl: %d rounds of 2 writes, 3 kernels (vadd, scale, saxpy), 2 reads of "
           "%zu bytes each\n", rounds, bytes);
    return 0;
}
