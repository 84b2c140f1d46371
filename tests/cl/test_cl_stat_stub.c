/*
 * The OpenCL layer under `perfq stat` over a stub driver (no platform, no loader): a private
 * copy of the layer's test build is loaded with PERFQ_STAT_CHANNEL naming a ring this test made, so the
 * layer sends its command records there, and this test reads them back.
 *
 * The stub driver behaves as a driver may that runs a program's event callback inside a status
 * query (the callback enqueues another command, which OpenCL allows): the layer asks for status
 * while it reads its pending commands, so it must not hold its own lock across that call (it did:
 * the enqueue waited on a lock its own thread held). Checks: nothing hangs (an alarm fails the
 * test), every command is sent once with the driver's END - START and its bytes, and every
 * internal event the layer made is released once.
 *
 * A second case makes and releases thousands of queues (the layer's records of them must not
 * grow with every queue a long run made) and turns profiling on and off with the deprecated
 * clSetCommandQueueProperty (the program's view follows it, perfq stat's profiling stays on).
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

/* A private copy of the layer (its own channel instance attaches to the ring that
 * PERFQ_STAT_CHANNEL names), initialised over the stub driver: `layer` is its table. */
static void *load_layer(const cl_icd_dispatch *stub, deinit_fn *deinit)
{
    static int copies;
    const char *src = getenv("PERFQ_CL_LAYER");
    assert_non_null(src);
    char copy[64];
    snprintf(copy, sizeof(copy), "/tmp/perfq-cl-stat-stub-%d-%d.so", (int)getpid(), copies++);
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
    *deinit = (deinit_fn)dlsym(lib, "clDeinitLayer");
    assert_true(init && *deinit);
    cl_uint n = 0;
    assert_int_equal(init((cl_uint)(sizeof(*stub) / sizeof(void *)), stub, &n, &layer),
                     CL_SUCCESS);
    return lib;
}

/* A ring for the layer's records, named in PERFQ_STAT_CHANNEL (the layer attaches at its
 * init): its fd. */
static int open_channel(struct perfq_stat_ring *ring)
{
    int fd = perfq_stat_ring_create(ring, 4096);
    assert_true(fd >= 0);
    char env[64];
    assert_int_equal(perfq_stat_channel_env(fd, NULL, env, sizeof env), 0);
    setenv(PERFQ_STAT_CHANNEL_ENV, env, 1);
    return fd;
}

static void close_layer(void *lib, deinit_fn deinit, int fd)
{
    assert_int_equal(deinit(), CL_SUCCESS);
    dlclose(lib);
    unsetenv(PERFQ_STAT_CHANNEL_ENV);
    close(fd);
}

static void reentrant_driver(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = open_channel(&ring);

    static cl_icd_dispatch stub;
    stub.clCreateCommandQueue = stub_create_queue;
    stub.clEnqueueWriteBuffer = stub_write;
    stub.clGetEventInfo = stub_event_info;
    stub.clGetEventProfilingInfo = stub_profiling;
    stub.clRetainEvent = stub_event_refs;   /* the layer retains only the program's events */
    stub.clReleaseEvent = stub_event_refs;
    stub.clFinish = stub_finish;
    stub.clWaitForEvents = stub_wait;
    deinit_fn deinit;
    void *lib = load_layer(&stub, &deinit);

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
    close_layer(lib, deinit, fd);
}

/* --- queues: records while the program holds them, the program's profiling setting --------- */

#define QUEUES 5000
#define RELEASED_KEPT 1024   /* stat_commands.c: released queues whose records stay */
static cl_command_queue_properties queue_props[QUEUES];
static int queues_made, queue_refs[QUEUES];

static cl_command_queue queue_of(int i)
{
    return (cl_command_queue)(uintptr_t)(0x200000 + 64 * (uintptr_t)i);
}

static int queue_index(cl_command_queue q)
{
    return (int)(((uintptr_t)q - 0x200000) / 64);
}

/* The one event of queue i. */
static cl_event queue_event(int i)
{
    return (cl_event)(uintptr_t)(0x900000 + 64 * (uintptr_t)i);
}

static cl_command_queue CL_API_CALL many_create(cl_context c, cl_device_id d,
                                                cl_command_queue_properties props, cl_int *err)
{
    (void)c, (void)d;
    if (queues_made == QUEUES) {
        *err = CL_OUT_OF_RESOURCES;
        return NULL;
    }
    queue_props[queues_made] = props;
    queue_refs[queues_made] = 1;
    *err = CL_SUCCESS;
    return queue_of(queues_made++);
}

static cl_int CL_API_CALL many_retain(cl_command_queue q)
{
    queue_refs[queue_index(q)]++;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL many_release(cl_command_queue q)
{
    queue_refs[queue_index(q)]--;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL many_queue_info(cl_command_queue q, cl_command_queue_info p,
                                          size_t size, void *value, size_t *ret)
{
    if (p != CL_QUEUE_PROPERTIES || size < sizeof(cl_command_queue_properties))
        return CL_INVALID_VALUE;
    *(cl_command_queue_properties *)value = queue_props[queue_index(q)];
    if (ret)
        *ret = sizeof(cl_command_queue_properties);
    return CL_SUCCESS;
}

static cl_int CL_API_CALL many_set_property(cl_command_queue q,
                                            cl_command_queue_properties props, cl_bool enable,
                                            cl_command_queue_properties *old)
{
    cl_command_queue_properties *p = &queue_props[queue_index(q)];
    if (old)
        *old = *p;
    *p = enable ? *p | props : *p & ~props;
    return CL_SUCCESS;
}

static cl_int CL_API_CALL many_event_info(cl_event e, cl_event_info p, size_t size, void *value,
                                          size_t *ret)
{
    (void)ret;
    if (p != CL_EVENT_COMMAND_QUEUE || size < sizeof(cl_command_queue))
        return CL_INVALID_VALUE;
    *(cl_command_queue *)value = queue_of((int)(((uintptr_t)e - 0x900000) / 64));
    return CL_SUCCESS;
}

static cl_int CL_API_CALL many_profiling(cl_event e, cl_profiling_info p, size_t size,
                                         void *value, size_t *ret)
{
    (void)e, (void)p, (void)ret;
    if (size < sizeof(cl_ulong))
        return CL_INVALID_VALUE;
    *(cl_ulong *)value = 1234;
    return CL_SUCCESS;
}

static cl_int program_profiling_of(int i, cl_ulong *t)
{
    return layer->clGetEventProfilingInfo(queue_event(i), CL_PROFILING_COMMAND_START,
                                          sizeof(*t), t, NULL);
}

static cl_command_queue_properties program_properties_of(int i)
{
    cl_command_queue_properties props = 0;
    assert_int_equal(layer->clGetCommandQueueInfo(queue_of(i), CL_QUEUE_PROPERTIES,
                                                  sizeof(props), &props, NULL),
                     CL_SUCCESS);
    return props;
}

/* A long run that makes and releases thousands of queues leaves at most RELEASED_KEPT records
 * of them (it left one per queue ever made); the program's view of profiling is the same after
 * a release, and follows clSetCommandQueueProperty while profiling stays on underneath. */
static void queues_released_and_set(void **state)
{
    (void)state;
    struct perfq_stat_ring ring;
    int fd = open_channel(&ring);

    static cl_icd_dispatch stub;
    stub.clCreateCommandQueue = many_create;
    stub.clRetainCommandQueue = many_retain;
    stub.clReleaseCommandQueue = many_release;
    stub.clGetCommandQueueInfo = many_queue_info;
    stub.clSetCommandQueueProperty = many_set_property;
    stub.clGetEventInfo = many_event_info;
    stub.clGetEventProfilingInfo = many_profiling;
    stub.clFinish = stub_finish;
    stub.clWaitForEvents = stub_wait;
    deinit_fn deinit;
    void *lib = load_layer(&stub, &deinit);
    size_t (*stat_queues)(void) =
        (size_t (*)(void))dlsym(lib, "perfq_cl_layer_debug_stat_queues");
    assert_non_null(stat_queues);

    cl_int err;
    for (int i = 0; i < QUEUES; i++) {
        assert_true(layer->clCreateCommandQueue(NULL, NULL, 0, &err) == queue_of(i));
        assert_int_equal(err, CL_SUCCESS);
        assert_true(queue_props[i] & CL_QUEUE_PROFILING_ENABLE);   /* perfq stat's, underneath */
    }
    assert_int_equal(stat_queues(), QUEUES);
    assert_int_equal(layer->clRetainCommandQueue(queue_of(0)), CL_SUCCESS);
    for (int i = 0; i < QUEUES; i++)
        assert_int_equal(layer->clReleaseCommandQueue(queue_of(i)), CL_SUCCESS);
    assert_int_equal(queue_refs[0], 1);
    assert_int_equal(queue_refs[QUEUES - 1], 0);
    size_t left = stat_queues();
    print_message("queue records after %d queues released: %zu\n", QUEUES - 1, left);
    assert_true(left <= RELEASED_KEPT + 1);

    /* Released or held, a queue the program made without profiling has none for it. */
    cl_ulong t = 0;
    assert_int_equal(program_profiling_of(QUEUES - 1, &t), CL_PROFILING_INFO_NOT_AVAILABLE);
    assert_int_equal(program_profiling_of(0, &t), CL_PROFILING_INFO_NOT_AVAILABLE);
    assert_int_equal(program_properties_of(0) & CL_QUEUE_PROFILING_ENABLE, 0);

    /* The program turns profiling on: it has it, and the old properties were its own. */
    cl_command_queue_properties old = 0;
    assert_int_equal(layer->clSetCommandQueueProperty(queue_of(0), CL_QUEUE_PROFILING_ENABLE,
                                                      CL_TRUE, &old),
                     CL_SUCCESS);
    assert_int_equal(old & CL_QUEUE_PROFILING_ENABLE, 0);
    assert_int_equal(program_profiling_of(0, &t), CL_SUCCESS);
    assert_int_equal(t, 1234);
    assert_true(program_properties_of(0) & CL_QUEUE_PROFILING_ENABLE);

    /* And off again: off for the program, still on underneath for perfq stat's times. */
    assert_int_equal(layer->clSetCommandQueueProperty(queue_of(0), CL_QUEUE_PROFILING_ENABLE,
                                                      CL_FALSE, &old),
                     CL_SUCCESS);
    assert_true(old & CL_QUEUE_PROFILING_ENABLE);
    assert_true(queue_props[0] & CL_QUEUE_PROFILING_ENABLE);
    assert_int_equal(program_profiling_of(0, &t), CL_PROFILING_INFO_NOT_AVAILABLE);
    assert_int_equal(program_properties_of(0) & CL_QUEUE_PROFILING_ENABLE, 0);

    assert_int_equal(layer->clReleaseCommandQueue(queue_of(0)), CL_SUCCESS);
    close_layer(lib, deinit, fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reentrant_driver),
        cmocka_unit_test(queues_released_and_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
