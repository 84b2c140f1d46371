/*
 * The layer's entry points over a stub driver, without any OpenCL platform or loader: a private
 * copy of libperfq-cl.so is loaded (so the loader's copy, if any, is untouched) and initialised
 * the ways the loaders do it: clInitLayer (ocl-icd), clInitLayerWithProperties and clDeinitLayer
 * (Khronos loader). Checks what the driver receives and that deinit leaves nothing behind.
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "perfq/cl_codeplay_performance_counters.h"

typedef cl_int (*init_fn)(cl_uint, const cl_icd_dispatch *, cl_uint *, const cl_icd_dispatch **);
typedef cl_int (*init_props_fn)(cl_uint, const cl_icd_dispatch *, cl_uint *,
                                const cl_icd_dispatch **, const cl_properties *);
typedef cl_int (*deinit_fn)(void);
typedef void (*counts_fn)(size_t *, size_t *, size_t *);

static void *lib;
static init_fn init;
static init_props_fn init_props;
static deinit_fn deinit;
static counts_fn counts;
static char copy_path[64];

/* --- the stub driver -------------------------------------------------------------------- */

static cl_queue_properties seen_props[16];
static uintptr_t next_event = 0x10000;
static int events_released;

static cl_int CL_API_CALL stub_device_info(cl_device_id d, cl_device_info p, size_t size,
                                           void *value, size_t *ret)
{
    static const char ext[] = "cl_khr_fp64 cl_khr_icd";
    if (!d)
        return CL_INVALID_DEVICE;
    if (p != CL_DEVICE_EXTENSIONS)
        return CL_INVALID_VALUE;
    if (value) {
        if (size < sizeof(ext))
            return CL_INVALID_VALUE;
        memcpy(value, ext, sizeof(ext));
    }
    if (ret)
        *ret = sizeof(ext);
    return CL_SUCCESS;
}

static cl_command_queue CL_API_CALL stub_create_queue(cl_context c, cl_device_id d,
                                                      const cl_queue_properties *p, cl_int *err)
{
    (void)c;
    (void)d;
    size_t n = 0;
    memset(seen_props, 0, sizeof(seen_props));
    while (p && p[n] && n < 14) {
        seen_props[n] = p[n];
        seen_props[n + 1] = p[n + 1];
        n += 2;
    }
    *err = CL_SUCCESS;
    return (cl_command_queue)(uintptr_t)0x2000;
}

static cl_command_queue_properties seen_bits;

static cl_command_queue CL_API_CALL stub_create_queue_1x(cl_context c, cl_device_id d,
                                                         cl_command_queue_properties bits,
                                                         cl_int *err)
{
    (void)c;
    (void)d;
    seen_bits = bits;
    *err = CL_SUCCESS;
    return (cl_command_queue)(uintptr_t)0x2100;
}

static cl_int CL_API_CALL stub_get_queue_info(cl_command_queue q, cl_command_queue_info p,
                                              size_t size, void *value, size_t *ret)
{
    (void)q;
    if (p != CL_QUEUE_PROPERTIES || (value && size < sizeof(cl_command_queue_properties)))
        return CL_INVALID_VALUE;
    if (value)
        *(cl_command_queue_properties *)value = CL_QUEUE_PROFILING_ENABLE;
    if (ret)
        *ret = sizeof(cl_command_queue_properties);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_write(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                                     size_t size, const void *ptr, cl_uint n, const cl_event *wl,
                                     cl_event *ev)
{
    (void)q, (void)b, (void)blocking, (void)off, (void)size, (void)ptr, (void)n, (void)wl;
    if (ev)
        *ev = (cl_event)(next_event += 64);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_event_info(cl_event e, cl_event_info p, size_t size, void *value,
                                          size_t *ret)
{
    (void)e;
    (void)ret;
    if (p == CL_EVENT_COMMAND_EXECUTION_STATUS && size >= sizeof(cl_int)) {
        *(cl_int *)value = CL_COMPLETE;
        return CL_SUCCESS;
    }
    return CL_INVALID_VALUE;
}

static cl_int CL_API_CALL stub_profiling(cl_event e, cl_profiling_info p, size_t size,
                                         void *value, size_t *ret)
{
    (void)e;
    (void)ret;
    if (size < sizeof(cl_ulong))
        return CL_INVALID_VALUE;
    cl_ulong t = p == CL_PROFILING_COMMAND_QUEUED ? 1000 : p == CL_PROFILING_COMMAND_START ? 1500
                                                                                          : 4000;
    *(cl_ulong *)value = t;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_release_event(cl_event e)
{
    (void)e;
    events_released++;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_release_queue(cl_command_queue q)
{
    (void)q;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_unwrapped(cl_command_queue q)
{
    (void)q;
    return 42;
}

static void *CL_API_CALL stub_extension_address(const char *name)
{
    (void)name;
    return NULL;
}

static cl_icd_dispatch stub;

static void fill_stub(void)
{
    memset(&stub, 0, sizeof(stub));
    stub.clGetDeviceInfo = stub_device_info;
    stub.clCreateCommandQueueWithProperties = stub_create_queue;
    stub.clCreateCommandQueue = stub_create_queue_1x;
    stub.clGetCommandQueueInfo = stub_get_queue_info;
    stub.clEnqueueWriteBuffer = stub_write;
    stub.clGetEventInfo = stub_event_info;
    stub.clGetEventProfilingInfo = stub_profiling;
    stub.clReleaseEvent = stub_release_event;
    stub.clReleaseCommandQueue = stub_release_queue;
    stub.clFlush = stub_unwrapped;
    stub.clGetExtensionFunctionAddress = stub_extension_address;
}

static const cl_uint full = (cl_uint)(sizeof(cl_icd_dispatch) / sizeof(void *));

/* --- tests ------------------------------------------------------------------------------ */

static void init_with_properties(void **state)
{
    (void)state;
    const cl_icd_dispatch *d = NULL;
    cl_uint n = 0;
    cl_properties bad[] = {0x1234, 1, 0};
    assert_int_equal(init_props(full, &stub, &n, &d, bad), CL_INVALID_PROPERTY);
    assert_null(d);
    cl_properties empty[] = {0};
    assert_int_equal(init_props(full, &stub, &n, &d, empty), CL_SUCCESS);
    assert_int_equal(init_props(full, &stub, &n, &d, NULL), CL_SUCCESS);
    assert_non_null(d);
    assert_int_equal(n, full);
    /* What the layer does not wrap is the target's own entry. */
    assert_ptr_equal(d->clFlush, stub.clFlush);
    assert_ptr_not_equal(d->clEnqueueWriteBuffer, stub.clEnqueueWriteBuffer);
    /* No wrapper over an entry the target lacks: the stub has no clGetPlatformInfo. */
    assert_null(d->clGetPlatformInfo);
    assert_null(d->clEnqueueReadBuffer);
    assert_int_equal(deinit(), CL_SUCCESS);
}

static void counted_command_over_stub(void **state)
{
    (void)state;
    const cl_icd_dispatch *d = NULL;
    cl_uint n = 0;
    assert_int_equal(init(full, &stub, &n, &d), CL_SUCCESS);
    cl_device_id dev = (cl_device_id)(uintptr_t)0x3000;
    cl_performance_counter_codeplay c[8];
    size_t size = 0;
    assert_int_equal(d->clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, sizeof(c), c,
                                        &size),
                     CL_SUCCESS);
    assert_int_equal(size, 5 * sizeof(c[0]));
    char ext[128];
    assert_int_equal(d->clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, sizeof(ext), ext, &size),
                     CL_SUCCESS);
    assert_string_equal(ext, "cl_khr_fp64 cl_khr_icd cl_khr_create_command_queue "
                             "cl_codeplay_performance_counters");
    assert_int_equal(size, strlen(ext) + 1);

    /* Counters Command Duration then Queued To Start, program without profiling. */
    cl_performance_counter_desc_codeplay descs[2] = {{c[0].uuid, NULL}, {c[2].uuid, NULL}};
    assert_string_equal(c[0].name, "Command Duration");
    assert_string_equal(c[2].name, "Queued To Start");
    cl_performance_counter_config_codeplay config = {2, descs};
    cl_queue_properties props[] = {CL_QUEUE_SIZE, 4096, CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err;
    cl_command_queue q = d->clCreateCommandQueueWithProperties(NULL, dev, props, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* The driver saw the program's list without our property, and profiling turned on. */
    assert_int_equal(seen_props[0], CL_QUEUE_SIZE);
    assert_int_equal(seen_props[1], 4096);
    assert_int_equal(seen_props[2], CL_QUEUE_PROPERTIES);
    assert_int_equal(seen_props[3], CL_QUEUE_PROFILING_ENABLE);
    assert_int_equal(seen_props[4], 0);
    cl_command_queue_properties qp = ~0ull;
    assert_int_equal(d->clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(qp), &qp, NULL),
                     CL_SUCCESS);
    assert_int_equal(qp, 0);

    char host[16];
    cl_event ev;
    assert_int_equal(d->clEnqueueWriteBuffer(q, NULL, CL_TRUE, 0, 16, host, 0, NULL, &ev), 0);
    cl_performance_counter_result_codeplay r[2];
    assert_int_equal(d->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                                sizeof(r), r, &size),
                     CL_SUCCESS);
    assert_int_equal(r[0].uint64, 4000 - 1500);
    assert_int_equal(r[1].uint64, 1500 - 1000);
    cl_ulong t;
    assert_int_equal(d->clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t), &t,
                                                NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    size_t nq, ne, nm;
    counts(&nq, &ne, &nm);
    assert_int_equal(nq, 1);
    assert_int_equal(ne, 1);
    /* deinit with records still there frees them (ASan would see a leak otherwise). */
    assert_int_equal(deinit(), CL_SUCCESS);
    counts(&nq, &ne, &nm);
    assert_int_equal(nq + ne + nm, 0);
    assert_int_equal(deinit(), CL_SUCCESS);   /* twice: nothing left to do */
}

static void short_loader_table(void **state)
{
    (void)state;
    const cl_icd_dispatch *d = NULL;
    cl_uint n = 0;
    cl_uint v12 = (cl_uint)(offsetof(cl_icd_dispatch, clGetExtensionFunctionAddressForPlatform) /
                            sizeof(void *)) + 1;
    assert_int_equal(init(v12 - 1, &stub, &n, &d), CL_INVALID_VALUE);
    assert_int_equal(init(v12, &stub, &n, &d), CL_SUCCESS);
    assert_int_equal(n, v12);
    /* Past the loader's table the layer offers nothing: no wrapper without a next entry. */
    assert_null(d->clEnqueueSVMMemcpy);
    assert_null(d->clCreateCommandQueueWithProperties);
    assert_non_null(d->clEnqueueWriteBuffer);
    /* The KHR entry point still works, through the 1.x clCreateCommandQueue. */
    typedef cl_command_queue (*khr_fn)(cl_context, cl_device_id, const cl_queue_properties *,
                                       cl_int *);
    khr_fn khr = (khr_fn)d->clGetExtensionFunctionAddress("clCreateCommandQueueWithPropertiesKHR");
    assert_non_null(khr);
    cl_device_id dev = (cl_device_id)(uintptr_t)0x3000;
    cl_performance_counter_codeplay c[8];
    size_t size = 0;
    assert_int_equal(d->clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, sizeof(c), c,
                                        &size),
                     CL_SUCCESS);
    cl_performance_counter_desc_codeplay desc = {c[0].uuid, NULL};
    cl_performance_counter_config_codeplay config = {1, &desc};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err = 1;
    seen_bits = 0;
    cl_command_queue q = khr(NULL, dev, props, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_ptr_equal(q, (cl_command_queue)(uintptr_t)0x2100);
    assert_int_equal(seen_bits, CL_QUEUE_PROFILING_ENABLE);
    cl_queue_properties sized[] = {CL_QUEUE_SIZE, 16, 0};
    assert_null(khr(NULL, dev, sized, &err));
    assert_int_equal(err, CL_INVALID_PROPERTY);
    assert_int_equal(deinit(), CL_SUCCESS);
}

static int setup(void **state)
{
    (void)state;
    /* A private copy: dlopen of the same path would return the loader's instance. */
    const char *src = getenv("PERFQ_CL_LAYER");
    if (!src)
        return -1;
    snprintf(copy_path, sizeof(copy_path), "/tmp/perfq-cl-stub-%d.so", (int)getpid());
    FILE *in = fopen(src, "rb"), *out = fopen(copy_path, "wb");
    if (!in || !out)
        return -1;
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, k, out);
    fclose(in);
    fclose(out);
    lib = dlopen(copy_path, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return -1;
    init = (init_fn)dlsym(lib, "clInitLayer");
    init_props = (init_props_fn)dlsym(lib, "clInitLayerWithProperties");
    deinit = (deinit_fn)dlsym(lib, "clDeinitLayer");
    counts = (counts_fn)dlsym(lib, "perfq_cl_layer_debug_counts");
    fill_stub();
    return init && init_props && deinit && counts ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    if (lib)
        dlclose(lib);
    unlink(copy_path);
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(init_with_properties),
        cmocka_unit_test(counted_command_over_stub),
        cmocka_unit_test(short_loader_table),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
