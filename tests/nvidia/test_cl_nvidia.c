/*
 * cl_codeplay_performance_counters' NVIDIA counters (group opencl-command-nvidia): energy,
 * average power, SM and memory clocks and NVML samples over each command, through the OpenCL
 * layer (OPENCL_LAYERS, set by meson and by tests/nvidia/run-device.sh).
 * Every device of every platform: a device that is not an NVIDIA GPU known to NVML does not list
 * them, and a queue asking for one of their uuids there is refused with CL_INVALID_VALUE.
 * On every NVIDIA device NVML knows, one after the other (the GPU machine; two on its two-GPU
 * kind; elsewhere this part says what is missing): the five listed with their units and storage; a
 * kernel of known length (calibrated to about 3 s): its energy within 10% of the driver's own
 * total-energy counter of that device's UUID read around it (a command placed on another device's
 * NVML channel would read that idle device's), equal to average power x the command's duration,
 * its mean SM and memory clocks within 10% of nvidia-smi's read during it, NVML samples about one
 * per 20 ms of it; a short kernel read at once.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <dlfcn.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <cmocka.h>

#include "perfq/cl_codeplay_performance_counters.h"
#include "core/provider.h"
#include "../test_util.h"

#define SKIP_EXIT 77

enum { ENERGY, POWER, SM, MEM, SAMPLES, DURATION, N_NV };
static const char *const nv_names[N_NV] = {"Energy", "Average Power", "SM Clock",
                                           "Memory Clock", "NVML Samples", "Command Duration"};

static cl_uint nv_uuid(int i)
{
    return perfq__counter_uuid("opencl", i == DURATION ? "opencl-command" : "opencl-command-nvidia",
                               nv_names[i]);
}

static size_t device_counters(cl_device_id d, cl_performance_counter_codeplay **out)
{
    size_t size = 0;
    cl_int err = clGetDeviceInfo(d, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size);
    if (err != CL_SUCCESS)
        fail_msg("CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY: %d (the layer not loaded? "
                 "OPENCL_LAYERS=%s)", err, getenv("OPENCL_LAYERS"));
    *out = malloc(size ? size : 1);
    assert_int_equal(clGetDeviceInfo(d, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, *out,
                                     NULL), CL_SUCCESS);
    return size / sizeof(**out);
}

static const cl_performance_counter_codeplay *find(const cl_performance_counter_codeplay *c,
                                                   size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(c[i].name, name) == 0)
            return &c[i];
    return NULL;
}

static cl_command_queue counter_queue(cl_context ctx, cl_device_id d, cl_int *err)
{
    cl_performance_counter_desc_codeplay descs[N_NV];
    for (int i = 0; i < N_NV; i++)
        descs[i] = (cl_performance_counter_desc_codeplay){nv_uuid(i), NULL};
    cl_performance_counter_config_codeplay config = {N_NV, descs};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    return clCreateCommandQueueWithProperties(ctx, d, props, err);
}

static int is_nvidia(cl_device_id d)
{
    cl_uint vendor = 0;
    clGetDeviceInfo(d, CL_DEVICE_VENDOR_ID, sizeof(vendor), &vendor, NULL);
    return vendor == 0x10DE;
}

/* Devices that do not list the counters refuse them; returns how many NVIDIA devices list
 * them, into nv[8] (every one: the two-GPU machine has two). */
static int check_devices(int *others, cl_device_id nv[8])
{
    cl_platform_id ps[8];
    cl_uint np = 0;
    int n_nv = 0;
    *others = 0;
    assert_int_equal(clGetPlatformIDs(8, ps, &np), CL_SUCCESS);
    for (cl_uint p = 0; p < np && p < 8; p++) {
        cl_device_id ds[8];
        cl_uint nd = 0;
        if (clGetDeviceIDs(ps[p], CL_DEVICE_TYPE_ALL, 8, ds, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd && i < 8; i++) {
            cl_performance_counter_codeplay *c;
            size_t n = device_counters(ds[i], &c);
            char name[256] = "";
            clGetDeviceInfo(ds[i], CL_DEVICE_NAME, sizeof(name), name, NULL);
            if (is_nvidia(ds[i]) && find(c, n, "Energy")) {
                if (n_nv < 8)
                    nv[n_nv++] = ds[i];
                printf("%s: %zu counters, the NVIDIA ones among them\n", name, n);
                free(c);
                continue;
            }
            printf("%s: %zu counters, no NVIDIA ones%s\n", name, n,
                   is_nvidia(ds[i]) ? " (an NVIDIA device NVML does not know)" : "");
            for (int k = 0; k < SAMPLES + 1; k++)
                assert_null(find(c, n, nv_names[k]));
            free(c);
            cl_int err;
            cl_context ctx = clCreateContext(NULL, 1, &ds[i], NULL, NULL, &err);
            assert_int_equal(err, CL_SUCCESS);
            err = CL_SUCCESS;
            cl_command_queue q = counter_queue(ctx, ds[i], &err);
            assert_null(q);
            assert_int_equal(err, CL_INVALID_VALUE);
            clReleaseContext(ctx);
            (*others)++;
        }
    }
    return n_nv;
}

static const char *burn_src =
    "__kernel void burn(__global float *out, int iters) {\n"
    "  float a = get_global_id(0) * 1e-7f, b = 0.999f;\n"
    "  for (int i = 0; i < iters; i++) { a = fma(a, b, 1e-3f); b = fma(b, 0.9999f, 1e-4f); }\n"
    "  out[get_global_id(0)] = a + b;\n"
    "}\n";

struct run {
    double v[N_NV];
};

static void read_run(cl_event ev, struct run *r)
{
    cl_performance_counter_result_codeplay res[N_NV];
    assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
    assert_int_equal(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                             sizeof(res), res, NULL), CL_SUCCESS);
    for (int i = 0; i < N_NV; i++)
        r->v[i] = i == SAMPLES ? (double)res[i].uint64
                : i == DURATION ? (double)res[i].uint64 / 1e9 : res[i].float64;
}

/* The driver's total-energy counter (mJ) of the device with this UUID, from NVML directly. */
typedef int (*nvml_fn0)(void);
static void *nvml;
static void *nvml_dev;
static int (*get_energy)(void *, unsigned long long *);

static int nvml_open(const char *uuid)
{
    nvml = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml)
        return -1;
    nvml_fn0 init = (nvml_fn0)dlsym(nvml, "nvmlInit_v2");
    int (*by_uuid)(const char *, void **) =
        (int (*)(const char *, void **))dlsym(nvml, "nvmlDeviceGetHandleByUUID");
    get_energy = (int (*)(void *, unsigned long long *))dlsym(
        nvml, "nvmlDeviceGetTotalEnergyConsumption");
    if (!init || !by_uuid || !get_energy || init() != 0 || by_uuid(uuid, &nvml_dev) != 0)
        return -1;
    return 0;
}

static double energy_j(void)
{
    unsigned long long mj = 0;
    assert_int_equal(get_energy(nvml_dev, &mj), 0);
    return (double)mj / 1000.0;
}

static int smi(const char *uuid, double *sm_mhz, double *mem_mhz)
{
    char cmd[200];
    snprintf(cmd, sizeof(cmd),
             "nvidia-smi --query-gpu=clocks.sm,clocks.mem --format=csv,noheader,nounits -i %s",
             uuid);
    FILE *p = popen(cmd, "r");
    int ok = p && fscanf(p, "%lf, %lf", sm_mhz, mem_mhz) == 2;
    if (p)
        pclose(p);
    return ok ? 0 : -1;
}

static void known_kernel(cl_device_id d);

static void test_nvidia_counters(void **state)
{
    (void)state;
    int others = 0;
    cl_device_id nv[8];
    int n_nv = check_devices(&others, nv);
    if (n_nv == 0) {
        printf("no NVIDIA OpenCL device that NVML knows (no NVIDIA driver here): the "
               "counters are absent and refused on the %d other device(s); the known-kernel "
               "checks need the GPU machine\n", others);
        assert_true(test_may_lack("an NVIDIA OpenCL device"));
        return;
    }
    /* Each device's commands are measured on that device (matched by UUID): the known kernel
     * on each in turn, the others idle, against the driver's energy counter of that UUID. */
    for (int i = 0; i < n_nv; i++)
        known_kernel(nv[i]);
}

static void known_kernel(cl_device_id d)
{
    cl_performance_counter_codeplay *c;
    size_t n = device_counters(d, &c);
#define F64 CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY
    static const struct { int unit, storage; } want[] = {
        {CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY, F64},
        {CL_PERFORMANCE_COUNTER_UNIT_WATTS_CODEPLAY, F64},
        {CL_PERFORMANCE_COUNTER_UNIT_HERTZ_CODEPLAY, F64},
        {CL_PERFORMANCE_COUNTER_UNIT_HERTZ_CODEPLAY, F64},
        {CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY,
         CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT64_CODEPLAY},
    };
    for (int i = 0; i <= SAMPLES; i++) {
        const cl_performance_counter_codeplay *k = find(c, n, nv_names[i]);
        assert_non_null(k);
        assert_int_equal(k->unit, want[i].unit);
        assert_int_equal(k->storage, want[i].storage);
        assert_int_equal(k->uuid, nv_uuid(i));
    }
    assert_non_null(strstr(find(c, n, "Energy")->description, "joules"));
    free(c);

    unsigned char u[16];
    assert_int_equal(clGetDeviceInfo(d, CL_DEVICE_UUID_KHR, sizeof(u), u, NULL), CL_SUCCESS);
    char uuid[64];
    snprintf(uuid, sizeof(uuid),
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
             u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    assert_int_equal(nvml_open(uuid), 0);

    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &d, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue q = counter_queue(ctx, d, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_program prog = clCreateProgramWithSource(ctx, 1, &burn_src, NULL, &err);
    assert_int_equal(clBuildProgram(prog, 1, &d, "", NULL, NULL), CL_SUCCESS);
    cl_kernel k = clCreateKernel(prog, "burn", &err);
    size_t global = 1u << 21;
    cl_mem out = clCreateBuffer(ctx, CL_MEM_WRITE_ONLY, global * sizeof(float), NULL, &err);
    assert_int_equal(clSetKernelArg(k, 0, sizeof(cl_mem), &out), CL_SUCCESS);

    /* Calibrate: the kernel's time per iteration, from its own Command Duration. */
    int iters = 2000;
    struct run r;
    cl_event ev;
    for (int round = 0; round < 3; round++) {
        assert_int_equal(clSetKernelArg(k, 1, sizeof(int), &iters), CL_SUCCESS);
        assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev),
                         CL_SUCCESS);
        read_run(ev, &r);   /* a short kernel, read at once after it completed */
        clReleaseEvent(ev);
        printf("calibration: %d iterations, %.4f s, %.2f J, %.1f W, SM %.0f MHz, %.0f samples\n",
               iters, r.v[DURATION], r.v[ENERGY], r.v[POWER], r.v[SM] / 1e6, r.v[SAMPLES]);
        assert_true(r.v[DURATION] > 0 && r.v[POWER] > 0 && r.v[SM] > 0 && r.v[MEM] > 0);
        if (r.v[DURATION] > 0.2)
            break;
        iters = (int)fmin(iters * fmin(0.3 / r.v[DURATION], 100.0), 2e9);
    }
    iters = (int)fmin(iters * 3.0 / r.v[DURATION], 2e9);

    /* The known kernel, about 3 s, bracketed by the driver's energy counter. */
    assert_int_equal(clSetKernelArg(k, 1, sizeof(int), &iters), CL_SUCCESS);
    assert_int_equal(clFinish(q), CL_SUCCESS);
    double e0 = energy_j();
    assert_int_equal(clEnqueueNDRangeKernel(q, k, 1, NULL, &global, NULL, 0, NULL, &ev),
                     CL_SUCCESS);
    assert_int_equal(clFlush(q), CL_SUCCESS);
    usleep(1000000);
    double smi_sm = -1, smi_mem = -1;
    assert_int_equal(smi(uuid, &smi_sm, &smi_mem), 0);
    read_run(ev, &r);
    double e1 = energy_j();
    clReleaseEvent(ev);
    double counter = e1 - e0;
    char dev_name[256] = "";
    clGetDeviceInfo(d, CL_DEVICE_NAME, sizeof(dev_name), dev_name, NULL);
    printf("%s %s: known kernel: %.3f s, energy %.2f J (driver's counter around it %.2f J, %+.2f%%), "
           "average power %.1f W (x duration %.2f J), SM %.0f MHz (nvidia-smi %.0f), memory "
           "%.0f MHz (nvidia-smi %.0f), %.0f NVML samples\n",
           dev_name, uuid, r.v[DURATION], r.v[ENERGY], counter, 100 * (r.v[ENERGY] / counter - 1), r.v[POWER],
           r.v[POWER] * r.v[DURATION], r.v[SM] / 1e6, smi_sm, r.v[MEM] / 1e6, smi_mem,
           r.v[SAMPLES]);
    assert_true(r.v[DURATION] > 1.5);
    assert_true(fabs(r.v[ENERGY] / counter - 1) < 0.10);
    assert_true(fabs(r.v[POWER] * r.v[DURATION] / r.v[ENERGY] - 1) < 1e-3);
    assert_true(fabs(r.v[SM] / 1e6 / smi_sm - 1) < 0.10);
    assert_true(fabs(r.v[MEM] / 1e6 / smi_mem - 1) < 0.10);
    /* One sample per 20 ms of the command, give or take the sampler's late wake-ups. */
    assert_true(r.v[SAMPLES] > r.v[DURATION] / 0.020 * 0.5);
    assert_true(r.v[SAMPLES] < r.v[DURATION] / 0.020 * 1.5 + 2);

    clReleaseMemObject(out);
    clReleaseKernel(k);
    clReleaseProgram(prog);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}

int main(void)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0) {
        fprintf(stderr, "no OpenCL platform: skipped\n");
        return SKIP_EXIT;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nvidia_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
