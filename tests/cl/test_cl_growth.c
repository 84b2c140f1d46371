/* Thousands of commands leave nothing behind (side tables, file descriptors), also from
 * several threads at once. */
#include <dirent.h>
#include <pthread.h>

#include "cl_test.h"

static size_t open_fds(void)
{
    size_t n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    while (readdir(d))
        n++;
    closedir(d);
    return n;
}

static void round_of_commands(cl_command_queue q, cl_mem a, int n)
{
    static char host[256];
    cl_int err;
    for (int i = 0; i < n; i++) {
        cl_event ev;
        size_t size = 1 + (size_t)(i % 200);
        assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, size, host, 0, NULL, &ev), 0);
        cl_performance_counter_result_codeplay r;
        read_results(ev, 1, &r);
        assert_int_equal(r.uint64, size);
        clReleaseEvent(ev);
        /* Commands without an event, and a mapping, every round too. */
        assert_int_equal(clEnqueueWriteBuffer(q, a, CL_FALSE, 0, size, host, 0, NULL, NULL), 0);
        void *p = clEnqueueMapBuffer(q, a, CL_TRUE, CL_MAP_WRITE, 0, 64, 0, NULL, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_int_equal(clEnqueueUnmapMemObject(q, a, p, 0, NULL, NULL), 0);
    }
    assert_int_equal(clFinish(q), CL_SUCCESS);
}

static void thousands_without_growth(void **state)
{
    (void)state;
    const char *names[] = {"Bytes Transferred"};
    cl_command_queue q = counter_queue(0, 1, names);
    cl_int err;
    cl_mem a = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 4096, NULL, &err);
    round_of_commands(q, a, 200);   /* warm-up: the driver's own pools and threads */
    size_t q0, e0, m0, fd0 = open_fds();
    layer_counts(&q0, &e0, &m0);
    assert_int_equal(e0, 0);
    assert_int_equal(m0, 0);
    round_of_commands(q, a, 5000);
    size_t q1, e1, m1;
    layer_counts(&q1, &e1, &m1);
    assert_int_equal(q1, q0);
    assert_int_equal(e1, 0);
    assert_int_equal(m1, 0);
    assert_int_equal(open_fds(), fd0);
    clReleaseMemObject(a);
    clReleaseCommandQueue(q);
    layer_counts(&q1, NULL, NULL);
    assert_int_equal(q1, q0 - 1);
}

static void queues_without_growth(void **state)
{
    (void)state;
    const char *names[] = {"Command Duration", "Bytes Transferred"};
    size_t q0, q1;
    layer_counts(&q0, NULL, NULL);
    for (int i = 0; i < 300; i++) {
        cl_command_queue q = counter_queue(i % 2 ? CL_QUEUE_PROFILING_ENABLE : 0, 2, names);
        clReleaseCommandQueue(q);
    }
    layer_counts(&q1, NULL, NULL);
    assert_int_equal(q1, q0);
}

/* Issue 14 item 12: buffers mapped on a queue with counters and never unmapped leave no record
 * once the queues with counters are gone (they stayed until the layer was unloaded). The layer
 * does not see clReleaseMemObject, so a buffer released while mapped is the same to it as this
 * one; the buffers are unmapped at the end (on a queue without counters) only so that the
 * driver frees them: PoCL keeps a buffer released while mapped, which LeakSanitizer reports. */
static void mapped_and_released_buffers(void **state)
{
    (void)state;
    const char *names[] = {"Bytes Transferred"};
    size_t q0, m0, q1, m1;
    layer_counts(&q0, NULL, &m0);
    assert_int_equal(q0, 0);
    assert_int_equal(m0, 0);
    cl_command_queue q = counter_queue(0, 1, names);
    cl_int err;
    cl_mem bufs[8];
    void *ptrs[8];
    for (int i = 0; i < 8; i++) {
        bufs[i] = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 4096, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        ptrs[i] = clEnqueueMapBuffer(q, bufs[i], CL_TRUE, CL_MAP_WRITE, 0, 4096, 0, NULL, NULL,
                                     &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_non_null(ptrs[i]);
    }
    assert_int_equal(clFinish(q), CL_SUCCESS);
    layer_counts(NULL, NULL, &m1);
    assert_int_equal(m1, 8);     /* kept while a queue with counters could unmap them */
    clReleaseCommandQueue(q);
    layer_counts(&q1, NULL, &m1);
    print_message("map records after the last queue with counters went: %zu\n", m1);
    assert_int_equal(q1, 0);
    assert_int_equal(m1, 0);
    cl_command_queue plain = clCreateCommandQueueWithProperties(env.context, env.device, NULL,
                                                                &err);
    assert_int_equal(err, CL_SUCCESS);
    for (int i = 0; i < 8; i++) {
        assert_int_equal(clEnqueueUnmapMemObject(plain, bufs[i], ptrs[i], 0, NULL, NULL),
                         CL_SUCCESS);
    }
    assert_int_equal(clFinish(plain), CL_SUCCESS);
    for (int i = 0; i < 8; i++)
        clReleaseMemObject(bufs[i]);
    clReleaseCommandQueue(plain);
}

struct worker {
    cl_command_queue queue;
    cl_mem buffer;
    int failures;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    static char host[512];
    for (int i = 0; i < 1000; i++) {
        cl_event ev;
        size_t size = 1 + (size_t)(i % 500);
        if (clEnqueueWriteBuffer(w->queue, w->buffer, CL_FALSE, 0, size, host, 0, NULL, &ev) != 0) {
            w->failures++;
            continue;
        }
        cl_performance_counter_result_codeplay r[2];
        if (clWaitForEvents(1, &ev) != CL_SUCCESS ||
            clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                    sizeof(r), r, NULL) != CL_SUCCESS ||
            r[0].uint64 != size)
            w->failures++;
        clRetainEvent(ev);
        clReleaseEvent(ev);
        clReleaseEvent(ev);
    }
    return NULL;
}

static void threads(void **state)
{
    (void)state;
    const char *names[] = {"Bytes Transferred", "Command Duration"};
    enum { N = 4 };
    struct worker w[N];
    pthread_t t[N];
    size_t q0, e0;
    layer_counts(&q0, &e0, NULL);
    for (int i = 0; i < N; i++) {
        cl_int err;
        w[i].queue = counter_queue(0, 2, names);
        w[i].buffer = clCreateBuffer(env.context, CL_MEM_READ_WRITE, 512, NULL, &err);
        w[i].failures = 0;
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(pthread_create(&t[i], NULL, work, &w[i]), 0);
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
        clReleaseMemObject(w[i].buffer);
        clReleaseCommandQueue(w[i].queue);
    }
    size_t q1, e1;
    layer_counts(&q1, &e1, NULL);
    assert_int_equal(q1, q0);
    assert_int_equal(e1, e0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thousands_without_growth),
        cmocka_unit_test(mapped_and_released_buffers),
        cmocka_unit_test(queues_without_growth),
        cmocka_unit_test(threads),
    };
    int rc = cl_env_open();
    if (rc == 0)
        rc = cmocka_run_group_tests(tests, NULL, NULL);
    cl_env_close();
    return rc;
}
