/* CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY on both queue entry points, its errors, and what the
 * program sees of its queue afterwards. */
#include <sys/mman.h>
#include <unistd.h>

#include "cl_test.h"

typedef cl_command_queue (*create_fn)(cl_context, cl_device_id, const cl_queue_properties *,
                                      cl_int *);

static create_fn khr(void)
{
    create_fn f = (create_fn)clGetExtensionFunctionAddressForPlatform(
        env.platform, "clCreateCommandQueueWithPropertiesKHR");
    assert_non_null(f);
    return f;
}

static cl_command_queue create(create_fn f, const cl_queue_properties *props, cl_int *err)
{
    *err = 12345;
    return f ? f(env.context, env.device, props, err)
             : clCreateCommandQueueWithProperties(env.context, env.device, props, err);
}

static void both_entry_points(void **state)
{
    (void)state;
    cl_performance_counter_desc_codeplay d = {counter_uuid("Command Duration"), NULL};
    cl_performance_counter_config_codeplay config = {1, &d};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    create_fn fns[2] = {NULL, khr()};
    for (int i = 0; i < 2; i++) {
        cl_int err;
        cl_command_queue q = create(fns[i], props, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_non_null(q);
        cl_mem b = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
        char host[64] = {0};
        cl_event ev;
        assert_int_equal(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, 64, host, 0, NULL, &ev),
                         CL_SUCCESS);
        cl_performance_counter_result_codeplay r;
        read_results(ev, 1, &r);
        clReleaseEvent(ev);
        clReleaseMemObject(b);
        clReleaseCommandQueue(q);
    }
}

/* cl_codeplay_performance_counters, the queue property: "The data member is an optional
 * extension point for further configurability of performance counters." No such configuration
 * is defined, so perfq never reads it: a pointer to nothing readable is accepted, and the queue
 * counts as one with data NULL. */
static void data_member_not_read(void **state)
{
    (void)state;
    /* An address in the never-mapped first page: a read of it is a crash. */
    cl_performance_counter_desc_codeplay d = {counter_uuid("Bytes Transferred"),
                                              (void *)(uintptr_t)16};
    cl_performance_counter_config_codeplay config = {1, &d};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err;
    cl_command_queue q = create(NULL, props, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_mem b = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 64, NULL, &err);
    char host[64] = {0};
    cl_event ev;
    assert_int_equal(clEnqueueWriteBuffer(q, b, CL_FALSE, 0, 48, host, 0, NULL, &ev),
                     CL_SUCCESS);
    cl_performance_counter_result_codeplay r;
    read_results(ev, 1, &r);
    assert_int_equal(r.uint64, 48);
    clReleaseEvent(ev);
    clReleaseMemObject(b);
    clReleaseCommandQueue(q);
}

static void refused(const cl_queue_properties *props)
{
    create_fn fns[2] = {NULL, khr()};
    for (int i = 0; i < 2; i++) {
        cl_int err;
        cl_command_queue q = create(fns[i], props, &err);
        assert_null(q);
        assert_int_equal(err, CL_INVALID_VALUE);
        /* errcode_ret may be NULL. */
        q = fns[i] ? fns[i](env.context, env.device, props, NULL)
                   : clCreateCommandQueueWithProperties(env.context, env.device, props, NULL);
        assert_null(q);
    }
}

static void null_config(void **state)
{
    (void)state;
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY, 0, 0};
    refused(props);
}

static void unknown_uuid(void **state)
{
    (void)state;
    cl_uint bad = 0x1234567u;
    for (size_t i = 0; i < env.counter_count; i++)
        assert_int_not_equal(env.counters[i].uuid, bad);
    cl_performance_counter_desc_codeplay d[2] = {{counter_uuid("Command Duration"), NULL},
                                                 {bad, NULL}};
    cl_performance_counter_config_codeplay config = {2, d};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    refused(props);
}

static void empty_config(void **state)
{
    (void)state;
    cl_performance_counter_desc_codeplay d = {counter_uuid("Command Duration"), NULL};
    cl_performance_counter_config_codeplay zero = {0, &d}, no_descs = {1, NULL};
    cl_queue_properties a[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                               (cl_queue_properties)(uintptr_t)&zero, 0};
    cl_queue_properties b[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                               (cl_queue_properties)(uintptr_t)&no_descs, 0};
    refused(a);
    refused(b);
}

static void repeated_property(void **state)
{
    (void)state;
    cl_performance_counter_desc_codeplay d = {counter_uuid("Command Duration"), NULL};
    cl_performance_counter_config_codeplay config = {1, &d};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config,
                                   CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    refused(props);
}

/* Issue 14 item 7: a property list without its terminator, whose walk reaches a key that is no
 * queue property, is refused with CL_INVALID_VALUE as PoCL refuses it, and the layer reads no
 * further than the driver would. The list ends exactly where a PROT_NONE page begins: a read
 * past it faults every time (the crash the layer had), and the test itself reads nothing past
 * what the API is allowed to read. */
static void unterminated_list(void **state)
{
    (void)state;
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(map != MAP_FAILED);
    assert_int_equal(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    cl_performance_counter_desc_codeplay d = {counter_uuid("Command Duration"), NULL};
    cl_performance_counter_config_codeplay config = {1, &d};
    const cl_queue_properties bad_key = 0x7fff0bad;   /* no queue property */
    const cl_queue_properties lists[][5] = {
        {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY, (cl_queue_properties)(uintptr_t)&config,
         bad_key},
        {CL_QUEUE_PROPERTIES, 0, CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
         (cl_queue_properties)(uintptr_t)&config, bad_key},
        {bad_key},   /* no counters key: the driver's answer, unchanged */
    };
    const size_t lengths[] = {3, 5, 1};
    /* The last list goes to the driver as it is (a list without its 0 is the program's error;
     * the layer cannot make the driver's read of it safe): PoCL refuses the unknown key at once,
     * the NVIDIA driver (580, H200) read past the list's end and the process died of SIGSEGV. */
    size_t lists_n = strstr(env.platform_name, "Portable") ? 3 : 2;
    for (size_t i = 0; i < lists_n; i++) {
        size_t bytes = lengths[i] * sizeof(cl_queue_properties);
        cl_queue_properties *at = (cl_queue_properties *)(map + page - bytes);
        memcpy(at, lists[i], bytes);
        refused(at);
    }
    munmap(map, (size_t)page * 2);
}

static void program_view(cl_command_queue_properties asked)
{
    cl_performance_counter_desc_codeplay d = {counter_uuid("Bytes Transferred"), NULL};
    cl_performance_counter_config_codeplay config = {1, &d};
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, asked,
                                   CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_int err;
    cl_command_queue q = create(NULL, props, &err);
    assert_int_equal(err, CL_SUCCESS);
    /* CL_QUEUE_PROPERTIES: what the program asked for, profiling included or not. */
    cl_command_queue_properties seen = ~0ull;
    size_t size = 0;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(seen), &seen, &size),
                     CL_SUCCESS);
    assert_int_equal(size, sizeof(seen));
    assert_int_equal(seen, asked);
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, 0, NULL, &size), CL_SUCCESS);
    assert_int_equal(size, sizeof(seen));
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, 4, &seen, NULL),
                     CL_INVALID_VALUE);
    /* CL_QUEUE_PROPERTIES_ARRAY: exactly the list the program passed. */
    cl_queue_properties back[8];
    memset(back, 0xEE, sizeof(back));
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, 0, NULL, &size),
                     CL_SUCCESS);
    assert_int_equal(size, sizeof(props));
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof(back), back, &size),
                     CL_SUCCESS);
    assert_memory_equal(back, props, sizeof(props));
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES_ARRAY, sizeof(props) - 1, back,
                                           NULL),
                     CL_INVALID_VALUE);
    /* Other queries reach the driver. */
    cl_device_id dev = NULL;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof(dev), &dev, NULL),
                     CL_SUCCESS);
    assert_ptr_equal(dev, env.device);
    clReleaseCommandQueue(q);
}

static void program_view_without_profiling(void **state)
{
    (void)state;
    program_view(0);
}

static void program_view_with_profiling(void **state)
{
    (void)state;
    program_view(CL_QUEUE_PROFILING_ENABLE);
}

static void queue_without_counters(void **state)
{
    (void)state;
    cl_queue_properties props[] = {CL_QUEUE_PROPERTIES, 0, 0};
    cl_int err;
    cl_command_queue q = create(khr(), props, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_command_queue_properties seen = ~0ull;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(seen), &seen, NULL),
                     CL_SUCCESS);
    assert_int_equal(seen, 0);
    clReleaseCommandQueue(q);
    q = create(NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    clReleaseCommandQueue(q);
}

static void retain_release(void **state)
{
    (void)state;
    size_t before = 0, now = 0;
    layer_counts(&before, NULL, NULL);
    const char *names[] = {"Command Duration"};
    cl_command_queue q = counter_queue(0, 1, names);
    layer_counts(&now, NULL, NULL);
    assert_int_equal(now, before + 1);
    assert_int_equal(clRetainCommandQueue(q), CL_SUCCESS);
    assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
    layer_counts(&now, NULL, NULL);
    assert_int_equal(now, before + 1);   /* the program still holds one reference */
    cl_command_queue_properties seen = ~0ull;
    assert_int_equal(clGetCommandQueueInfo(q, CL_QUEUE_PROPERTIES, sizeof(seen), &seen, NULL),
                     CL_SUCCESS);
    assert_int_equal(seen, 0);
    assert_int_equal(clReleaseCommandQueue(q), CL_SUCCESS);
    layer_counts(&now, NULL, NULL);
    assert_int_equal(now, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(both_entry_points),
        cmocka_unit_test(data_member_not_read),
        cmocka_unit_test(null_config),
        cmocka_unit_test(unknown_uuid),
        cmocka_unit_test(empty_config),
        cmocka_unit_test(repeated_property),
        cmocka_unit_test(unterminated_list),
        cmocka_unit_test(program_view_without_profiling),
        cmocka_unit_test(program_view_with_profiling),
        cmocka_unit_test(queue_without_counters),
        cmocka_unit_test(retain_release),
    };
    int rc = cl_env_open();
    if (rc == 0)
        rc = cmocka_run_group_tests(tests, NULL, NULL);
    cl_env_close();
    return rc;
}
