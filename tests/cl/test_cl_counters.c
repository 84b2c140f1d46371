/* Counter results of commands: exact bytes, durations equal to the program's own profiling,
 * enable order, NDRange sizes, errors, and the program's profiling left as it was. */
#include "cl_test.h"
#include "../test_util.h"

typedef cl_performance_counter_result_codeplay result_t;

static cl_mem buffer(size_t size)
{
    cl_int err;
    cl_mem b = clCreateBuffer(env.context, CL_MEM_READ_WRITE, size, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    return b;
}

/* Bytes Transferred of one event (the queue enables only that counter). */
static cl_ulong bytes_of(cl_event ev)
{
    result_t r;
    read_results(ev, 1, &r);
    clReleaseEvent(ev);
    return r.uint64;
}

static void buffer_bytes(void **state)
{
    (void)state;
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_mem a = buffer(1 << 16), b = buffer(1 << 16);
    static char host[1 << 16];
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 16, 1000, host, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 1000);
    assert_int_equal(clEnqueueReadBuffer(q, a, CL_TRUE, 0, 777, host, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 777);
    assert_int_equal(clEnqueueCopyBuffer(q, a, b, 0, 4096, 4096, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 4096);
    cl_uint pattern = 0xdeadbeef;
    assert_int_equal(clEnqueueFillBuffer(q, a, &pattern, 4, 0, 8192, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 8192);

    /* Rect: region[0] bytes * region[1] rows * region[2] slices, pitches not counted. */
    size_t origin[3] = {0, 0, 0}, region[3] = {24, 5, 3};
    assert_int_equal(clEnqueueWriteBufferRect(q, a, CL_FALSE, origin, origin, region, 64, 640, 32,
                                              320, host, 0, NULL, &ev),
                     0);
    assert_int_equal(bytes_of(ev), 24 * 5 * 3);
    assert_int_equal(clEnqueueReadBufferRect(q, a, CL_TRUE, origin, origin, region, 64, 640, 32,
                                             320, host, 0, NULL, &ev),
                     0);
    assert_int_equal(bytes_of(ev), 24 * 5 * 3);
    size_t dst_origin[3] = {8, 1, 0}, region2[3] = {16, 7, 1};
    assert_int_equal(clEnqueueCopyBufferRect(q, a, b, origin, dst_origin, region2, 64, 1024, 64,
                                             1024, 0, NULL, &ev),
                     0);
    assert_int_equal(bytes_of(ev), 16 * 7);

    cl_event ev2;
    cl_mem mems[2] = {a, b};
    assert_int_equal(clEnqueueMigrateMemObjects(q, 2, mems, 0, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 2 << 16);
    assert_int_equal(clEnqueueMigrateMemObjects(q, 1, mems, CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED,
                                                0, NULL, &ev2),
                     0);
    assert_int_equal(bytes_of(ev2), 0);
    assert_int_equal(clEnqueueMarkerWithWaitList(q, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 0);
    assert_int_equal(clEnqueueBarrierWithWaitList(q, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 0);
    assert_int_equal(clEnqueueMarker(q, &ev), 0);
    assert_int_equal(bytes_of(ev), 0);
    clReleaseMemObject(a);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
}

static void map_bytes(void **state)
{
    (void)state;
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_mem a = buffer(8192);
    cl_int err;
    cl_event ev;
    struct {
        cl_map_flags flags;
        cl_ulong map, unmap;
    } cases[] = {
        {CL_MAP_READ, 3000, 0},
        {CL_MAP_WRITE, 3000, 3000},
        {CL_MAP_READ | CL_MAP_WRITE, 3000, 3000},
        {CL_MAP_WRITE_INVALIDATE_REGION, 0, 3000},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        void *p = clEnqueueMapBuffer(q, a, CL_TRUE, cases[i].flags, 1024, 3000, 0, NULL, &ev, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_non_null(p);
        assert_int_equal(bytes_of(ev), cases[i].map);
        assert_int_equal(clEnqueueUnmapMemObject(q, a, p, 0, NULL, &ev), CL_SUCCESS);
        assert_int_equal(bytes_of(ev), cases[i].unmap);
    }
    /* Map without an event from the program, unmap with one. */
    void *p = clEnqueueMapBuffer(q, a, CL_TRUE, CL_MAP_WRITE, 0, 100, 0, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueUnmapMemObject(q, a, p, 0, NULL, &ev), CL_SUCCESS);
    assert_int_equal(bytes_of(ev), 100);
    clFinish(q);
    size_t maps = 1;
    layer_counts(NULL, NULL, &maps);
    assert_int_equal(maps, 0);
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
}

static void image_bytes(void **state)
{
    (void)state;
    cl_bool images = CL_FALSE;
    clGetDeviceInfo(env.device, CL_DEVICE_IMAGE_SUPPORT, sizeof(images), &images, NULL);
    if (!images) {
        assert_true(test_may_lack("OpenCL image support"));
        return;
    }
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_image_format fmt = {CL_RGBA, CL_UNSIGNED_INT8};
    cl_image_desc desc;
    memset(&desc, 0, sizeof(desc));
    desc.image_type = CL_MEM_OBJECT_IMAGE2D;
    desc.image_width = 32;
    desc.image_height = 16;
    cl_int err;
    cl_mem img = clCreateImage(env.context, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem img2 = clCreateImage(env.context, CL_MEM_READ_WRITE, &fmt, &desc, NULL, &err);
    cl_mem buf = buffer(32 * 16 * 4);
    static unsigned char host[32 * 16 * 4];
    size_t origin[3] = {0, 0, 0}, region[3] = {10, 6, 1};
    const cl_ulong expect = 10 * 6 * 4;
    cl_event ev;
    assert_int_equal(clEnqueueWriteImage(q, img, CL_FALSE, origin, region, 0, 0, host, 0, NULL,
                                         &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    assert_int_equal(clEnqueueReadImage(q, img, CL_TRUE, origin, region, 0, 0, host, 0, NULL, &ev),
                     0);
    assert_int_equal(bytes_of(ev), expect);
    assert_int_equal(clEnqueueCopyImage(q, img, img2, origin, origin, region, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    cl_uint4 color = {{1, 2, 3, 4}};
    assert_int_equal(clEnqueueFillImage(q, img, &color, origin, region, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    assert_int_equal(clEnqueueCopyImageToBuffer(q, img, buf, origin, region, 0, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    assert_int_equal(clEnqueueCopyBufferToImage(q, buf, img, 0, origin, region, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    size_t row = 0;
    void *p = clEnqueueMapImage(q, img, CL_TRUE, CL_MAP_WRITE, origin, region, &row, NULL, 0, NULL,
                                &ev, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(bytes_of(ev), expect);
    assert_int_equal(clEnqueueUnmapMemObject(q, img, p, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), expect);
    clReleaseMemObject(img);
    clReleaseMemObject(img2);
    clReleaseMemObject(buf);
    clReleaseCommandQueue(q);
}

static cl_ulong profiling(cl_event ev, cl_profiling_info what)
{
    cl_ulong t = 0;
    assert_int_equal(clGetEventProfilingInfo(ev, what, sizeof(t), &t, NULL), CL_SUCCESS);
    return t;
}

static void durations_match_program_profiling(void **state)
{
    (void)state;
    const char *names[] = {"Command Duration", "Queued To Start"};
    cl_command_queue q = counter_queue(CL_QUEUE_PROFILING_ENABLE, 2, names);
    cl_mem a = buffer(1 << 20);
    static char host[1 << 20];
    for (int i = 0; i < 20; i++) {
        cl_event ev;
        assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, (size_t)1 << (i % 20), host, 0,
                                              NULL, &ev), 0);
        result_t r[2];
        read_results(ev, 2, r);
        cl_ulong queued = profiling(ev, CL_PROFILING_COMMAND_QUEUED);
        cl_ulong start = profiling(ev, CL_PROFILING_COMMAND_START);
        cl_ulong end = profiling(ev, CL_PROFILING_COMMAND_END);
        /* Exactly the program's own timestamps (a driver whose START precedes QUEUED gets 0,
         * as docs/opencl-layer.md says, never a wrapped difference). */
        assert_int_equal(r[0].uint64, end >= start ? end - start : 0);
        assert_int_equal(r[1].uint64, start >= queued ? start - queued : 0);
        clReleaseEvent(ev);
    }
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
}

static void program_profiling_unchanged(void **state)
{
    (void)state;
    const char *names[] = {"Command Duration"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_mem a = buffer(4096);
    static char host[4096];
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, 4096, host, 0, NULL, &ev), 0);
    result_t r;
    read_results(ev, 1, &r);   /* counting works without CL_QUEUE_PROFILING_ENABLE */
    cl_ulong t;
    const cl_profiling_info infos[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    for (size_t i = 0; i < 4; i++)
        assert_int_equal(clGetEventProfilingInfo(ev, infos[i], sizeof(t), &t, NULL),
                         CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(ev);
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
}

static void enable_order(void **state)
{
    (void)state;
    const char *fwd[] = {"Bytes Transferred", "Work Items", "Command Duration"};
    const char *rev[] = {"Command Duration", "Work Items", "Bytes Transferred"};
    cl_command_queue qf = counter_queue(CL_QUEUE_PROFILING_ENABLE, 3, fwd);
    cl_command_queue qr = counter_queue(CL_QUEUE_PROFILING_ENABLE, 3, rev);
    cl_mem a = buffer(8192);
    static char host[8192];
    cl_event ef, er;
    assert_int_equal(clEnqueueWriteBuffer(qf, a, CL_TRUE, 0, 1234, host, 0, NULL, &ef), 0);
    assert_int_equal(clEnqueueWriteBuffer(qr, a, CL_TRUE, 0, 4321, host, 0, NULL, &er), 0);
    result_t f[3], r[3];
    read_results(ef, 3, f);
    read_results(er, 3, r);
    assert_int_equal(f[0].uint64, 1234);
    assert_int_equal(f[1].uint64, 0);
    assert_int_equal(f[2].uint64, profiling(ef, CL_PROFILING_COMMAND_END) -
                                      profiling(ef, CL_PROFILING_COMMAND_START));
    assert_int_equal(r[0].uint64, profiling(er, CL_PROFILING_COMMAND_END) -
                                      profiling(er, CL_PROFILING_COMMAND_START));
    assert_int_equal(r[1].uint64, 0);
    assert_int_equal(r[2].uint64, 4321);
    clReleaseEvent(ef);
    clReleaseEvent(er);
    clReleaseMemObject(a);
    clReleaseCommandQueue(qf);
    clReleaseCommandQueue(qr);
}

static const char kernel_source[] =
    "__kernel void fill(__global uint *out) { out[get_global_id(0) + get_global_id(1) * "
    "get_global_size(0)] = 7u; }\n"
    "__kernel __attribute__((reqd_work_group_size(16, 1, 1))) void fixed(__global uint *out) "
    "{ out[get_global_id(0)] = 1u; }\n";

static void ndrange_sizes(void **state)
{
    (void)state;
    cl_int err;
    const char *src = kernel_source;
    cl_program prog = clCreateProgramWithSource(env.context, 1, &src, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clBuildProgram(prog, 1, &env.device, "", NULL, NULL), CL_SUCCESS);
    cl_kernel fill = clCreateKernel(prog, "fill", &err);
    cl_kernel fixed = clCreateKernel(prog, "fixed", &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem out = buffer(4096 * 4);
    clSetKernelArg(fill, 0, sizeof(out), &out);
    clSetKernelArg(fixed, 0, sizeof(out), &out);
    const char *names[] = {"Work Items", "Work Groups", "Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 3, names);
    cl_event ev;
    result_t r[3];

    size_t g1[1] = {1024}, l1[1] = {64};
    assert_int_equal(clEnqueueNDRangeKernel(q, fill, 1, NULL, g1, l1, 0, NULL, &ev), 0);
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[0].uint64, 1024);
    assert_int_equal(r[1].uint64, 16);
    assert_int_equal(r[2].uint64, 0);   /* kernels move no bytes the layer can know */

    size_t g2[2] = {64, 32}, l2[2] = {8, 4};
    assert_int_equal(clEnqueueNDRangeKernel(q, fill, 2, NULL, g2, l2, 0, NULL, &ev), 0);
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[0].uint64, 64 * 32);
    assert_int_equal(r[1].uint64, 8 * 8);

    /* NULL local size: the driver chooses, the layer cannot know: Work Groups reads 0. */
    assert_int_equal(clEnqueueNDRangeKernel(q, fill, 2, NULL, g2, NULL, 0, NULL, &ev), 0);
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[0].uint64, 64 * 32);
    assert_int_equal(r[1].uint64, 0);

    /* NULL local size with reqd_work_group_size(16,1,1): OpenCL 1.2 calls it
     * CL_INVALID_WORK_GROUP_SIZE (PoCL does); a driver that runs it must use 16. */
    size_t g3[1] = {256};
    err = clEnqueueNDRangeKernel(q, fixed, 1, NULL, g3, NULL, 0, NULL, &ev);
    if (err == CL_SUCCESS) {
        read_results(ev, 3, r);
        clReleaseEvent(ev);
        assert_int_equal(r[0].uint64, 256);
        assert_int_equal(r[1].uint64, 16);
    } else {
        assert_int_equal(err, CL_INVALID_WORK_GROUP_SIZE);
    }
    size_t l3[1] = {16};
    assert_int_equal(clEnqueueNDRangeKernel(q, fixed, 1, NULL, g3, l3, 0, NULL, &ev), 0);
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[1].uint64, 16);

    assert_int_equal(clEnqueueTask(q, fill, 0, NULL, &ev), 0);
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[0].uint64, 1);
    assert_int_equal(r[1].uint64, 1);

    /* Without an event from the program: runs, nothing to read, nothing left behind. */
    assert_int_equal(clEnqueueNDRangeKernel(q, fill, 1, NULL, g1, l1, 0, NULL, NULL), 0);
    assert_int_equal(clFinish(q), CL_SUCCESS);
    cl_uint check[4] = {0};
    assert_int_equal(clEnqueueReadBuffer(q, out, CL_TRUE, 0, sizeof(check), check, 0, NULL, NULL),
                     0);
    assert_int_equal(check[0], 7);

    clReleaseCommandQueue(q);
    clReleaseMemObject(out);
    clReleaseKernel(fill);
    clReleaseKernel(fixed);
    clReleaseProgram(prog);
}

static void errors(void **state)
{
    (void)state;
    const char *names[] = {"Command Duration", "Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 2, names);
    cl_int err;
    cl_command_queue plain = clCreateCommandQueueWithProperties(env.context, env.device, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem a = buffer(4096);
    static char host[4096];
    result_t r[3];
    size_t size = 0;
    const cl_profiling_info P = CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY;

    /* "If the event is a user event ... CL_INVALID_VALUE will be returned." */
    cl_event user = clCreateUserEvent(env.context, &err);
    assert_int_equal(clGetEventProfilingInfo(user, P, sizeof(r), r, &size), CL_INVALID_VALUE);
    assert_int_equal(clGetEventProfilingInfo(user, P, 0, NULL, &size), CL_INVALID_VALUE);

    /* "...or the command queue associated with the event was not created with performance
     * counters enabled CL_INVALID_VALUE will be returned." */
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(plain, a, CL_TRUE, 0, 64, host, 0, NULL, &ev), 0);
    assert_int_equal(clGetEventProfilingInfo(ev, P, sizeof(r), r, &size), CL_INVALID_VALUE);
    clReleaseEvent(ev);

    /* A command waiting on a user event is not complete: its results are not available yet. */
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 64, host, 1, &user, &ev), 0);
    assert_int_equal(clGetEventProfilingInfo(ev, P, sizeof(r), r, &size),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    /* The size query answers at once. */
    size = 0;
    assert_int_equal(clGetEventProfilingInfo(ev, P, 0, NULL, &size), CL_SUCCESS);
    assert_int_equal(size, 2 * sizeof(result_t));
    assert_int_equal(clSetUserEventStatus(user, CL_COMPLETE), CL_SUCCESS);
    read_results(ev, 2, r);
    assert_int_equal(r[1].uint64, 64);

    /* A buffer too small: CL_INVALID_VALUE, nothing written past it. */
    memset(r, 0x5A, sizeof(r));
    assert_int_equal(clGetEventProfilingInfo(ev, P, sizeof(result_t), r, &size), CL_INVALID_VALUE);
    unsigned char *bytes = (unsigned char *)r;
    for (size_t i = sizeof(result_t); i < sizeof(r); i++)
        assert_int_equal(bytes[i], 0x5A);
    assert_int_equal(clGetEventProfilingInfo(ev, P, 2 * sizeof(result_t) - 1, r, NULL),
                     CL_INVALID_VALUE);
    /* A larger buffer is fine; only the results are written. */
    memset(r, 0x5A, sizeof(r));
    assert_int_equal(clGetEventProfilingInfo(ev, P, sizeof(r), r, &size), CL_SUCCESS);
    assert_int_equal(size, 2 * sizeof(result_t));
    assert_int_equal(r[1].uint64, 64);
    for (size_t i = 2 * sizeof(result_t); i < sizeof(r); i++)
        assert_int_equal(bytes[i], 0x5A);

    /* A retained event keeps its results until its last release. */
    assert_int_equal(clRetainEvent(ev), CL_SUCCESS);
    clReleaseEvent(ev);
    read_results(ev, 2, r);
    clReleaseEvent(ev);

    assert_int_equal(clGetEventProfilingInfo(NULL, P, sizeof(r), r, &size), CL_INVALID_EVENT);
    clReleaseEvent(user);
    clReleaseMemObject(a);
    clReleaseCommandQueue(plain);
    clReleaseCommandQueue(q);
}

static void bytes_only_queue_keeps_profiling_off(void **state)
{
    (void)state;
    /* No time counter: the layer needs no profiling, and the program sees none either way. */
    const char *names[] = {"Bytes Transferred", "Work Items"};
    cl_command_queue q = counter_queue(0, 2, names);
    cl_mem a = buffer(4096);
    static char host[4096];
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, 100, host, 0, NULL, &ev), 0);
    result_t r[2];
    read_results(ev, 2, r);
    assert_int_equal(r[0].uint64, 100);
    assert_int_equal(r[1].uint64, 0);
    cl_ulong t;
    assert_int_equal(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(t), &t, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(ev);
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
}

static void svm_bytes(void **state)
{
    (void)state;
    cl_device_svm_capabilities caps = 0;
    if (clGetDeviceInfo(env.device, CL_DEVICE_SVM_CAPABILITIES, sizeof(caps), &caps, NULL) !=
            CL_SUCCESS ||
        !(caps & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER)) {
        assert_true(test_may_lack("OpenCL coarse-grain SVM"));
        return;
    }
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    char *a = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 8192, 0);
    char *b = clSVMAlloc(env.context, CL_MEM_READ_WRITE, 8192, 0);
    assert_non_null(a);
    assert_non_null(b);
    cl_event ev;
    assert_int_equal(clEnqueueSVMMap(q, CL_TRUE, CL_MAP_WRITE, a, 8192, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 8192);
    memset(a, 1, 8192);
    assert_int_equal(clEnqueueSVMUnmap(q, a, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 8192);
    assert_int_equal(clEnqueueSVMMemcpy(q, CL_TRUE, b, a, 3000, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 3000);
    cl_uint pattern = 7;
    assert_int_equal(clEnqueueSVMMemFill(q, b, &pattern, 4, 4096, 0, NULL, &ev), 0);
    assert_int_equal(bytes_of(ev), 4096);
    const void *ptrs[2] = {a, b};
    size_t sizes[2] = {100, 200};
    cl_int err = clEnqueueSVMMigrateMem(q, 2, ptrs, sizes, 0, 0, NULL, &ev);
    if (err == CL_SUCCESS)
        assert_int_equal(bytes_of(ev), 300);
    clFinish(q);
    clSVMFree(env.context, a);
    clSVMFree(env.context, b);
    clReleaseCommandQueue(q);
}

static void CL_CALLBACK native_fn(void *args)
{
    *(int *)args += 1;
}

static void native_kernel(void **state)
{
    (void)state;
    cl_device_exec_capabilities caps = 0;
    clGetDeviceInfo(env.device, CL_DEVICE_EXECUTION_CAPABILITIES, sizeof(caps), &caps, NULL);
    if (!(caps & CL_EXEC_NATIVE_KERNEL)) {
        assert_true(test_may_lack("OpenCL native kernels"));
        return;
    }
    const char *names[] = {"Bytes Transferred", "Work Items", "Work Groups"};
    cl_command_queue q = counter_queue(0, 3, names);
    int arg = 0;
    cl_event ev;
    assert_int_equal(clEnqueueNativeKernel(q, native_fn, &arg, sizeof(arg), 0, NULL, NULL, 0, NULL,
                                           &ev), 0);
    result_t r[3];
    read_results(ev, 3, r);
    clReleaseEvent(ev);
    assert_int_equal(r[0].uint64, 0);
    assert_int_equal(r[1].uint64, 0);
    assert_int_equal(r[2].uint64, 0);
    clReleaseCommandQueue(q);
}

struct callback_result {
    volatile int done;
    cl_int err;
    result_t r;
};

static void CL_CALLBACK read_in_callback(cl_event ev, cl_int status, void *data)
{
    struct callback_result *out = data;
    (void)status;
    out->err = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                       sizeof(out->r), &out->r, NULL);
    __atomic_store_n(&out->done, 1, __ATOMIC_RELEASE);
}

static void results_in_callback_after_release(void **state)
{
    (void)state;
    /* The program gives up its reference at once; its callback still reads the counters. */
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_mem a = buffer(4096);
    static char host[4096];
    cl_int err;
    cl_event user = clCreateUserEvent(env.context, &err);
    struct callback_result out = {0, 0, {{0}}};
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, 999, host, 1, &user, &ev), 0);
    assert_int_equal(clSetEventCallback(ev, CL_COMPLETE, read_in_callback, &out), CL_SUCCESS);
    clReleaseEvent(ev);
    clSetUserEventStatus(user, CL_COMPLETE);
    clFinish(q);
    while (!__atomic_load_n(&out.done, __ATOMIC_ACQUIRE))
        ;
    assert_int_equal(out.err, CL_SUCCESS);
    assert_int_equal(out.r.uint64, 999);
    /* The record goes once the callback returned. */
    for (int i = 0; i < 1000000; i++) {
        size_t events = 1;
        layer_counts(NULL, &events, NULL);
        if (events == 0)
            break;
    }
    size_t events = 1;
    layer_counts(NULL, &events, NULL);
    assert_int_equal(events, 0);
    clReleaseEvent(user);
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
}

static void results_after_queue_release(void **state)
{
    (void)state;
    /* The event outlives the program's queue: its results stay readable. */
    const char *names[] = {"Bytes Transferred", "Command Duration"};
    cl_command_queue q = counter_queue(0, 2, names);
    cl_mem a = buffer(4096);
    static char host[4096];
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, a, CL_TRUE, 0, 2048, host, 0, NULL, &ev), 0);
    clFinish(q);
    clReleaseCommandQueue(q);
    result_t r[2];
    read_results(ev, 2, r);
    assert_int_equal(r[0].uint64, 2048);
    cl_ulong t;
    assert_int_equal(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(t), &t, NULL),
                     CL_PROFILING_INFO_NOT_AVAILABLE);
    clReleaseEvent(ev);
    clReleaseMemObject(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffer_bytes),
        cmocka_unit_test(map_bytes),
        cmocka_unit_test(image_bytes),
        cmocka_unit_test(durations_match_program_profiling),
        cmocka_unit_test(program_profiling_unchanged),
        cmocka_unit_test(enable_order),
        cmocka_unit_test(ndrange_sizes),
        cmocka_unit_test(errors),
        cmocka_unit_test(bytes_only_queue_keeps_profiling_off),
        cmocka_unit_test(svm_bytes),
        cmocka_unit_test(native_kernel),
        cmocka_unit_test(results_in_callback_after_release),
        cmocka_unit_test(results_after_queue_release),
    };
    int rc = cl_env_open();
    if (rc == 0)
        rc = cmocka_run_group_tests(tests, NULL, NULL);
    cl_env_close();
    return rc;
}
