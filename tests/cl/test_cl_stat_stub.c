/*
 * The OpenCL layer under `perfq stat` over a stub driver (no platform, no loader): a private
 * copy of libperfq-cl.so is loaded with PERFQ_STAT_CHANNEL naming a ring this test made, so the
 * layer sends its command records there, and this test reads them back.
 *
 * The stub driver behaves as a driver may that runs a program's event callback inside a status
 * query (the callback enqueues another command, which OpenCL allows): the layer asks for status
 * while it reads its pending commands, so it must not hold its own lock across that call (it did:
 * the enqueue waited on a lock its own thread held). Checks: nothing hangs (an alarm fails the
 * test), every command is sent once with the driver's END - START and its bytes, and every
 * internal event the layer made is released once.
 */
#define CL_TARGET_OPENCL_VERSION 300
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/stat_channel.h"

typedef cl_int (*init_fn)(cl_uint, const cl_icd_dispatch *, cl_uint *, const cl_icd_dispatch **);
typedef cl_int (*deinit_fn)(void);

static const cl_icd_dispatch *layer;   /* the layer's table: what the loader would call */

/* --- the stub driver -------------------------------------------------------------------- */

#define MAX_EVENTS 4096
static int created, released[MAX_EVENTS];
static size_t sizes[MAX_EVENTS];
static int reentered, in_hook;
#define REENTRIES 50

static cl_event event_of(int i)
{
    return (cl_event)(uintptr_t)(0x100000 + 64 * (uintptr_t)i);
}

static int index_of(cl_event e)
{
    return (int)(((uintptr_t)e - 0x100000) / 64);
}

static cl_command_queue CL_API_CALL stub_create_queue(cl_context c, cl_device_id d,
                                                      cl_command_queue_properties props,
                                                      cl_int *err)
{
    (void)c, (void)d, (void)props;
    if (err)
        *err = CL_SUCCESS;
    return (cl_command_queue)(uintptr_t)0x5000;
}

static cl_int CL_API_CALL stub_write(cl_command_queue q, cl_mem b, cl_bool blocking, size_t off,
                                     size_t size, const void *ptr, cl_uint n, const cl_event *wl,
                                     cl_event *ev)
{
    (void)q, (void)b, (void)blocking, (void)off, (void)ptr, (void)n, (void)wl;
    if (!ev || created == MAX_EVENTS)
        return CL_OUT_OF_RESOURCES;
    sizes[created] = size;
    *ev = event_of(created++);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_event_info(cl_event e, cl_event_info p, size_t size, void *value,
                                          size_t *ret)
{
    (void)ret;
    if (p == CL_EVENT_COMMAND_TYPE && size >= sizeof(cl_command_type)) {
        *(cl_command_type *)value = CL_COMMAND_WRITE_BUFFER;
        return CL_SUCCESS;
    }
    if (p != CL_EVENT_COMMAND_EXECUTION_STATUS || size < sizeof(cl_int))
        return CL_INVALID_VALUE;
    /* A program's callback run inside the query: it enqueues (64 bytes, no event). */
    if (!in_hook && reentered < REENTRIES && index_of(e) % 2 == 0) {
        in_hook = 1;
        reentered++;
        layer->clEnqueueWriteBuffer((cl_command_queue)(uintptr_t)0x5000, NULL, CL_FALSE, 0, 64,
                                    NULL, 0, NULL, NULL);
        in_hook = 0;
    }
    *(cl_int *)value = CL_COMPLETE;
    return CL_SUCCESS;
}

/* START 1000 * (i + 1), END START + 10 * (i + 1): each command its own duration. */
static cl_int CL_API_CALL stub_profiling(cl_event e, cl_profiling_info p, size_t size,
                                         void *value, size_t *ret)
{
    (void)ret;
    if (size < sizeof(cl_ulong))
        return CL_INVALID_VALUE;
    cl_ulong i = (cl_ulong)index_of(e) + 1;
    *(cl_ulong *)value = p == CL_PROFILING_COMMAND_END ? 1000 * i + 10 * i : 1000 * i;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_event_refs(cl_event e)
{
    released[index_of(e)]++;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_finish(cl_command_queue q)
{
    (void)q;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL stub_wait(cl_uint n, const cl_event *e)
{
    (void)n, (void)e;
    return CL_SUCCESS;
}

/* --- the test --------------------------------------------------------------------------- */

static void reentrant_driver(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = perfq_stat_ring_create(&ring, 4096);
    assert_true(fd >= 0);
    char env[64];
    assert_int_equal(perfq_stat_channel_env(fd, NULL, env, sizeof env), 0);
    setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);

    /* A private copy of the layer: its own channel instance attaches to this ring. */
    const char *src = getenv("PERFQ_CL_LAYER");
    assert_non_null(src);
    char copy[64];
    snprintf(copy, sizeof(copy), "/tmp/perfq-cl-stat-stub-%d.so", (int)getpid());
    FILE *in = fopen(src, "rb"), *out = fopen(copy, "wb");
    assert_true(in && out);
    char buf[65536];
    size_t k;
    while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, k, out), k);
    fclose(in);
    fclose(out);
    void *lib = dlopen(copy, RTLD_NOW | RTLD_LOCAL);
    unlink(copy);
    assert_non_null(lib);
    init_fn init = (init_fn)dlsym(lib, "clInitLayer");
    deinit_fn deinit = (deinit_fn)dlsym(lib, "clDeinitLayer");
    assert_true(init && deinit);

    static cl_icd_dispatch stub;
    stub.clCreateCommandQueue = stub_create_queue;
    stub.clEnqueueWriteBuffer = stub_write;
    stub.clGetEventInfo = stub_event_info;
    stub.clGetEventProfilingInfo = stub_profiling;
    stub.clRetainEvent = stub_event_refs;   /* the layer retains only the program's events */
    stub.clReleaseEvent = stub_event_refs;
    stub.clFinish = stub_finish;
    stub.clWaitForEvents = stub_wait;
    cl_uint n = 0;
    assert_int_equal(init((cl_uint)(sizeof(stub) / sizeof(void *)), &stub, &n, &layer),
                     CL_SUCCESS);

    alarm(60);   /* a lock its own thread holds would hang here */
    cl_int err;
    cl_command_queue q = layer->clCreateCommandQueue(NULL, NULL, 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* 100 blocking writes of 4096 + i bytes: each read at once, after its call. */
    for (int i = 0; i < 100; i++)
        assert_int_equal(layer->clEnqueueWriteBuffer(q, NULL, CL_TRUE, 0, 4096 + (size_t)i,
                                                     NULL, 0, NULL, NULL),
                         CL_SUCCESS);
    assert_int_equal(layer->clFinish(q), CL_SUCCESS);
    assert_int_equal(layer->clFinish(q), CL_SUCCESS);   /* the last re-entered ones */
    alarm(0);
    assert_int_equal(reentered, REENTRIES);
    assert_int_equal(created, 100 + REENTRIES);

    /* Every command once, with its own duration and bytes; every internal event released once. */
    static int seen[MAX_EVENTS];
    struct perfq_stat_record r;
    int commands = 0;
    while (perfq_stat_ring_read(&ring, &r, 0, 1) == 1) {
        if (r.kind != PERFQ_STAT_CL_COMMAND)
            continue;
        commands++;
        assert_int_equal(r.a, CL_COMMAND_WRITE_BUFFER);
        assert_true(r.flags & PERFQ_STAT_HAS_GPU_TIME);
        assert_true(r.flags & PERFQ_STAT_HAS_BYTES);
        assert_true(r.c % 10 == 0 && r.c >= 10 && r.c <= 10 * (uint64_t)created);
        int i = (int)(r.c / 10) - 1;   /* the duration names the event */
        assert_int_equal(r.d, sizes[i]);
        seen[i]++;
    }
    assert_int_equal(commands, created);
    for (int i = 0; i < created; i++) {
        assert_int_equal(seen[i], 1);
        assert_int_equal(released[i], 1);
    }
    assert_int_equal(deinit(), CL_SUCCESS);
    dlclose(lib);
    unsetenv(PERFQ_STAT_CHANNEL_ENV);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reentrant_driver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
