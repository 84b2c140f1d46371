/*
 * Shared setup of the OpenCL layer tests: the platform (PERFQ_TEST_CL_PLATFORM picks one by a
 * case-insensitive part of its name, e.g. "NVIDIA" or "Portable"), its first device, a context,
 * the layer's counters. The tests run with OPENCL_LAYERS naming the layer under test (meson sets
 * it); a machine without any OpenCL platform skips them (exit 77).
 */
#ifndef PERFQ_TESTS_CL_TEST_H
#define PERFQ_TESTS_CL_TEST_H

#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_0_APIS
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <dlfcn.h>
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

#define SKIP_EXIT 77
#define CL_TEST_FN static __attribute__((unused))

struct cl_env {
    cl_platform_id platform;
    cl_device_id device;
    cl_context context;
    char platform_name[256];
    cl_performance_counter_codeplay *counters;
    size_t counter_count;
};

static struct cl_env env;

/* Returns 0, or SKIP_EXIT when there is no platform at all, or 1 on a real failure. */
CL_TEST_FN int cl_env_open(void)
{
    cl_uint n = 0;
    if (clGetPlatformIDs(0, NULL, &n) != CL_SUCCESS || n == 0) {
        fprintf(stderr, "no OpenCL platform: skipped\n");
        return SKIP_EXIT;
    }
    cl_platform_id *ps = calloc(n, sizeof(*ps));
    clGetPlatformIDs(n, ps, NULL);
    const char *want = getenv("PERFQ_TEST_CL_PLATFORM");
    int found = 0;
    for (cl_uint i = 0; i < n && !found; i++) {
        char name[256] = "";
        clGetPlatformInfo(ps[i], CL_PLATFORM_NAME, sizeof(name), name, NULL);
        if (!want || !*want || strcasestr(name, want)) {
            env.platform = ps[i];
            snprintf(env.platform_name, sizeof(env.platform_name), "%s", name);
            found = 1;
        }
    }
    free(ps);
    if (!found) {
        fprintf(stderr, "PERFQ_TEST_CL_PLATFORM=%s: no such platform\n", want);
        return 1;
    }
    if (clGetDeviceIDs(env.platform, CL_DEVICE_TYPE_ALL, 1, &env.device, NULL) != CL_SUCCESS) {
        fprintf(stderr, "%s: no device: skipped\n", env.platform_name);
        return SKIP_EXIT;
    }
    cl_int err;
    env.context = clCreateContext(NULL, 1, &env.device, NULL, NULL, &err);
    if (!env.context) {
        fprintf(stderr, "clCreateContext: %d\n", err);
        return 1;
    }
    size_t size = 0;
    err = clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size);
    if (err != CL_SUCCESS || size == 0) {
        fprintf(stderr, "CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY: %d, size %zu (layer not loaded? "
                "OPENCL_LAYERS=%s)\n", err, size, getenv("OPENCL_LAYERS"));
        return 1;
    }
    env.counters = malloc(size);
    clGetDeviceInfo(env.device, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, env.counters, NULL);
    env.counter_count = size / sizeof(*env.counters);
    fprintf(stderr, "platform: %s; %zu counters\n", env.platform_name, env.counter_count);
    return 0;
}

CL_TEST_FN void cl_env_close(void)
{
    free(env.counters);
    if (env.context)
        clReleaseContext(env.context);
}

/* The uuid of a counter by its name; fails the test when absent. */
CL_TEST_FN cl_uint counter_uuid(const char *name)
{
    for (size_t i = 0; i < env.counter_count; i++)
        if (strcmp(env.counters[i].name, name) == 0)
            return env.counters[i].uuid;
    fail_msg("no counter named %s", name);
    return 0;
}

/* A queue with the named counters enabled, in that order. props: CL_QUEUE_PROPERTIES bits. */
CL_TEST_FN cl_command_queue counter_queue(cl_command_queue_properties props, size_t n,
                                      const char *const *names)
{
    cl_performance_counter_desc_codeplay descs[8];
    assert_true(n <= 8);
    for (size_t i = 0; i < n; i++) {
        descs[i].uuid = counter_uuid(names[i]);
        descs[i].data = NULL;
    }
    cl_performance_counter_config_codeplay config = {(cl_uint)n, descs};
    cl_queue_properties list[] = {CL_QUEUE_PROPERTIES, props, CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                  (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err = CL_INVALID_VALUE;
    cl_command_queue q = clCreateCommandQueueWithProperties(env.context, env.device, list, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_non_null(q);
    return q;
}

/* The results of an event, asserting success. */
CL_TEST_FN void read_results(cl_event ev, size_t n, cl_performance_counter_result_codeplay *out)
{
    size_t size = 0;
    assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
    assert_int_equal(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                             n * sizeof(*out), out, &size),
                     CL_SUCCESS);
    assert_int_equal(size, n * sizeof(*out));
}

/* The layer's side-table sizes, from the copy the loader loaded (test hook). */
CL_TEST_FN void layer_counts(size_t *queues, size_t *events, size_t *maps)
{
    const char *path = getenv("OPENCL_LAYERS");
    assert_non_null(path);
    void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    assert_non_null(h);
    void (*fn)(size_t *, size_t *, size_t *) =
        (void (*)(size_t *, size_t *, size_t *))dlsym(h, "perfq_cl_layer_debug_counts");
    assert_non_null(fn);
    fn(queues, events, maps);
    dlclose(h);
}

#define CL_TEST_MAIN(tests)                                         \
    int main(void)                                                  \
    {                                                               \
        int rc = cl_env_open();                                     \
        if (rc != 0) {                                              \
            cl_env_close();                                         \
            return rc;                                              \
        }                                                           \
        rc = cmocka_run_group_tests(tests, NULL, NULL);             \
        cl_env_close();                                             \
        return rc;                                                  \
    }

#endif
