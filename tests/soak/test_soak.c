/*
 * Long runs (issue 13): a million GL query cycles (GL_INTEL_performance_query and
 * GL_ANGLE_timer_query begin, end, read on one context; llvmpipe here) and a hundred thousand
 * OpenCL commands counted with cl_codeplay_performance_counters (PoCL here), with resident
 * memory flat: the growth of VmRSS between 10% and 100% of each run stays under RSS_BOUND_KIB.
 * LeakSanitizer (the ASan build) checks the exit. PERFQ_SOAK_GL_CYCLES and PERFQ_SOAK_CL_COMMANDS
 * change the counts (by hand: docs/hardening.md).
 *
 * argv[1]: "gl" or "cl".
 */
#define CL_TARGET_OPENCL_VERSION 300
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CL/cl.h>

#include "gl_test.h"
#include "perfq/cl_codeplay_performance_counters.h"

#define RSS_BOUND_KIB (8 * 1024)

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static long count_from_env(const char *name, long def)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

static int check(const char *what, long n, long rss10, long rss100)
{
    long growth = rss100 - rss10;
    printf("%s: %ld cycles; VmRSS at 10%% %ld KiB, at 100%% %ld KiB, growth %ld KiB (bound %d)\n",
           what, n, rss10, rss100, growth, RSS_BOUND_KIB);
    return growth < RSS_BOUND_KIB ? 0 : 1;
}

static int soak_gl(void)
{
    EGLDisplay dpy;
    struct glt t;
    int rc = glt_open_display(&dpy);
    if (rc || (rc = glt_create(&t, dpy, GLT_CORE, 64, 64)))
        return rc;
    PFNGLGETFIRSTPERFQUERYIDINTELPROC first =
        (PFNGLGETFIRSTPERFQUERYIDINTELPROC)eglGetProcAddress("glGetFirstPerfQueryIdINTEL");
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC by_name =
        (PFNGLGETPERFQUERYIDBYNAMEINTELPROC)eglGetProcAddress("glGetPerfQueryIdByNameINTEL");
    PFNGLGETPERFQUERYINFOINTELPROC info =
        (PFNGLGETPERFQUERYINFOINTELPROC)eglGetProcAddress("glGetPerfQueryInfoINTEL");
    PFNGLCREATEPERFQUERYINTELPROC create =
        (PFNGLCREATEPERFQUERYINTELPROC)eglGetProcAddress("glCreatePerfQueryINTEL");
    PFNGLDELETEPERFQUERYINTELPROC del =
        (PFNGLDELETEPERFQUERYINTELPROC)eglGetProcAddress("glDeletePerfQueryINTEL");
    PFNGLBEGINPERFQUERYINTELPROC begin =
        (PFNGLBEGINPERFQUERYINTELPROC)eglGetProcAddress("glBeginPerfQueryINTEL");
    PFNGLENDPERFQUERYINTELPROC end =
        (PFNGLENDPERFQUERYINTELPROC)eglGetProcAddress("glEndPerfQueryINTEL");
    PFNGLGETPERFQUERYDATAINTELPROC data =
        (PFNGLGETPERFQUERYDATAINTELPROC)eglGetProcAddress("glGetPerfQueryDataINTEL");
    GLuint id = 0;
    first(&id);
    by_name((GLchar *)"Pipeline Statistics", &id);
    if (!id)
        first(&id);
    char name[256];
    GLuint size = 0, counters, instances, caps;
    info(id, sizeof name, name, &size, &counters, &instances, &caps);
    unsigned char *buf = malloc(size);
    long n = count_from_env("PERFQ_SOAK_GL_CYCLES", 1000000), rss10 = 0, bad = 0;
    printf("GL: %s, INTEL query \"%s\" (%u bytes) and ANGLE TIME_ELAPSED, %ld cycles\n",
           (const char *)gl.glGetString(GL_RENDERER), name, size, n);
    GLuint q[2];
    gl.glGenQueriesANGLE(2, q);
    for (long i = 0; i < n; i++) {
        if (i == n / 10)
            rss10 = rss_kib();
        /* One cycle: an INTEL instance begun, ended, read and deleted; an ANGLE elapsed query
         * and a timestamp, read. A draw every 1000 cycles. */
        GLuint h = 0;
        create(id, &h);
        begin(h);
        gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, q[0]);
        if (i % 1000 == 0)
            glt_draw_triangles(&t, 1);
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        gl.glQueryCounterANGLE(q[1], GL_TIMESTAMP_ANGLE);
        end(h);
        GLuint written = 0;
        data(h, i % 64 == 0 ? GL_PERFQUERY_WAIT_INTEL : GL_PERFQUERY_FLUSH_INTEL, (GLsizei)size,
             buf, &written);
        del(h);
        if (i % 64 == 0) {
            GLuint64 ns = 0;
            gl.glGetQueryObjectui64vANGLE(q[0], GL_QUERY_RESULT_ANGLE, &ns);
            bad += written != size;
        }
        if (i % 100000 == 0 && gl.glGetError() != GL_NO_ERROR)
            bad++;
    }
    gl.glFinish();
    long rss100 = rss_kib();
    gl.glDeleteQueriesANGLE(2, q);
    bad += glt_error() != GL_NO_ERROR;
    free(buf);
    glt_destroy(&t);
    if (bad)
        printf("GL: %ld failed reads or GL errors\n", bad);
    return check("GL query cycles", n, rss10, rss100) | (bad != 0);
}

static int soak_cl(void)
{
    cl_platform_id p;
    cl_device_id dev;
    cl_uint np = 0;
    cl_int err;
    if (clGetPlatformIDs(1, &p, &np) || !np || clGetDeviceIDs(p, CL_DEVICE_TYPE_ALL, 1, &dev, NULL))
        return fprintf(stderr, "no OpenCL platform or device: skipped\n"), 77;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    size_t size = 0;
    if (!ctx || clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0, NULL, &size) ||
        !size)
        return fprintf(stderr, "no codeplay counters (OPENCL_LAYERS=%s)\n",
                       getenv("OPENCL_LAYERS")), 1;
    cl_performance_counter_codeplay *c = malloc(size);
    clGetDeviceInfo(dev, CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, size, c, NULL);
    cl_performance_counter_desc_codeplay descs[2] = {{0, NULL}, {0, NULL}};
    for (size_t i = 0; i < size / sizeof *c; i++) {
        if (!strcmp(c[i].name, "Bytes Transferred"))
            descs[0].uuid = c[i].uuid;
        if (!strcmp(c[i].name, "Command Duration"))
            descs[1].uuid = c[i].uuid;
    }
    free(c);
    cl_performance_counter_config_codeplay config = {2, descs};
    cl_queue_properties props[] = {CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY,
                                   (cl_queue_properties)(uintptr_t)&config, 0};
    cl_command_queue q = clCreateCommandQueueWithProperties(ctx, dev, props, &err);
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    if (!q || !m)
        return fprintf(stderr, "queue or buffer: %d\n", err), 1;
    static char host[4096];
    long n = count_from_env("PERFQ_SOAK_CL_COMMANDS", 100000), rss10 = 0, bad = 0;
    printf("CL: 2 counters, %ld counted writes\n", n);
    for (long i = 0; i < n; i++) {
        if (i == n / 10)
            rss10 = rss_kib();
        size_t bytes = 1 + (size_t)(i % 4096);
        cl_event ev;
        if (clEnqueueWriteBuffer(q, m, CL_FALSE, 0, bytes, host, 0, NULL, &ev) != CL_SUCCESS) {
            bad++;
            continue;
        }
        /* Every 16th command read back (the others' results are dropped with their event). */
        if (i % 16 == 0) {
            cl_performance_counter_result_codeplay r[2];
            clWaitForEvents(1, &ev);
            if (clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY,
                                        sizeof r, r, NULL) != CL_SUCCESS || r[0].uint64 != bytes)
                bad++;
        }
        clReleaseEvent(ev);
        if (i % 1024 == 1023)
            clFinish(q);
    }
    clFinish(q);
    long rss100 = rss_kib();
    clReleaseMemObject(m);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
    if (bad)
        printf("CL: %ld failed commands or wrong Bytes Transferred\n", bad);
    return check("OpenCL counted commands", n, rss10, rss100) | (bad != 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "gl"))
        return soak_gl();
    if (argc == 2 && !strcmp(argv[1], "cl"))
        return soak_cl();
    fprintf(stderr, "usage: test-soak gl|cl\n");
    return 2;
}
