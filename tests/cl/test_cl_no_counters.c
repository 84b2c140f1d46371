/* A device without counters (PERFQ_DISABLE=opencl, the provider of them all, set by meson for this
 * test; opencl-command alone leaves an NVIDIA device its five NVML counters): "If the
 * device does not support performance counters param_value_size_ret will return a value of 0."
 * The extension is still listed, and no uuid can be enabled. */
#define CL_TARGET_OPENCL_VERSION 300
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "perfq/cl_codeplay_performance_counters.h"

static cl_platform_id platform;
static cl_device_id device;

static void size_zero(void **state)
{
    (void)state;
    size_t size = 123;
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL,
                                     &size),
                     CL_SUCCESS);
    assert_int_equal(size, 0);
    cl_performance_counter_codeplay c;
    memset(&c, 0x77, sizeof(c));
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, sizeof(c), &c,
                                     &size),
                     CL_SUCCESS);
    assert_int_equal(size, 0);
    assert_int_equal(c.uuid, 0x77777777u);   /* nothing written */
    char ext[4096];
    assert_int_equal(clGetDeviceInfo(device, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, NULL),
                     CL_SUCCESS);
    assert_non_null(strstr(ext, "cl_codeplay_performance_counters"));
}

static void nothing_to_enable(void **state)
{
    (void)state;
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* The uuid the counter would have: unknown on this device. */
    cl_performance_counter_desc_codeplay d = {0xbb105026u, NULL};
    cl_performance_counter_config_codeplay config = {1, &d};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    assert_null(clCreateCommandQueueWithProperties(ctx, device, props, &err));
    assert_int_equal(err, CL_INVALID_VALUE);
    clReleaseContext(ctx);
}

int main(void)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0)
        return 77;
    cl_platform_id ps[16];
    clGetPlatformIDs(n < 16 ? n : 16, ps, NULL);
    const char *want = getenv("PERFQ_TEST_CL_PLATFORM");
    for (cl_uint i = 0; i < n && i < 16 && !platform; i++) {
        char name[256] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (!want || strcasestr(name, want))
            platform = ps[i];
    }
    if (!platform || clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL) != CL_SUCCESS)
        return 77;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(size_zero),
        cmocka_unit_test(nothing_to_enable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
