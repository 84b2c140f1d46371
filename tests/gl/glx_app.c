/*
 * An unmodified GLX program (links libGL and libX11 only) run with LD_PRELOAD=libperfq-gl.so:
 * the layer must follow GLX contexts (created with glXCreateContextAttribsARB fetched through
 * glXGetProcAddressARB, made current on a pbuffer, destroyed), keep the program's own occlusion
 * query exact, and advertise GL_ANGLE_timer_query only where it can honour it: on llvmpipe a GLX
 * context has neither trustworthy timer queries nor EGL fences, so it must not be advertised
 * there unless PERFQ_GL_TIMER=query asks for the driver's timer.
 * Without $DISPLAY it starts an Xvfb of its own if /usr/bin/Xvfb exists, else skips (77).
 * Exit 0: works; 1: does not.
 */
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl/gl_layer.h"
#include <unistd.h>

#include "glx_test.h"
#include "perfq/angle_timer_query.h"

/* The work is GPU-bound (llvmpipe: its threads), so the elapsed time is at least half of the
 * wall time around it; under ThreadSanitizer the program's own side of every GL call is slowed
 * many times while llvmpipe (not instrumented) is not, and only a nonzero interval is asked. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFQ_TEST_TSAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(PERFQ_TEST_TSAN)
#define GPU_SHARE_OK(ns, wall) ((ns) > 0)
#else
#define GPU_SHARE_OK(ns, wall) ((ns) >= (wall) / 2)
#endif


int main(void)
{
    struct glxt t;
    int rc = glxt_create(&t, 0, 90, 400);
    if (rc != 0)
        return rc;
    /* The layer's own struct (a copy here once fell behind it: the layer writes all of it),
     * its function found as an unmodified program would, through dlsym. */
    void (*stats_fn)(struct perfq_gl_layer_stats *) =
        (void (*)(struct perfq_gl_layer_stats *))dlsym(RTLD_DEFAULT, "perfq_gl_layer_stats");
    if (!stats_fn) {
        fprintf(stderr, "the layer is not loaded\n");
        return 1;
    }
    struct perfq_gl_layer_stats st;
    stats_fn(&st);
    int ok = st.contexts >= 1;
    const char *renderer = (const char *)glGetString(GL_RENDERER);
    GLint next = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &next);
    int angle = 0;
    for (GLint i = 0; i < next; i++)
        angle |= strcmp((const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i),
                        "GL_ANGLE_timer_query") == 0;
    const char *forced = getenv("PERFQ_GL_TIMER");
    /* Every GL 3.2 GLX context can have the timer: the driver's queries, or GL_ARB_sync fences
     * waited by the layer's helper in a shared context. */
    int expect_angle = 1;
    (void)forced;
    printf("%s | %s (GLX): GL_ANGLE_timer_query %s (expected %s)\n", renderer,
           glGetString(GL_VERSION), angle ? "advertised" : "absent",
           expect_angle ? "advertised" : "absent");
    ok &= angle == expect_angle;

    /* The program's own occlusion query, exact: a full-pbuffer rectangle. */
    GLuint q = 0;
    glGenQueries(1, &q);
    glViewport(0, 0, 64, 64);
    glBeginQuery(GL_SAMPLES_PASSED, q);
    glRecti(-1, -1, 1, 1);
    glEndQuery(GL_SAMPLES_PASSED);
    GLuint samples = 0;
    glGetQueryObjectuiv(q, GL_QUERY_RESULT, &samples);
    printf("samples passed %u (expected %u)\n", samples, 64u * 64u);
    ok &= samples == 64u * 64u;
    glDeleteQueries(1, &q);

    if (angle) {
        PFNGLGENQUERIESANGLEPROC gen = (PFNGLGENQUERIESANGLEPROC)
            glXGetProcAddress((const GLubyte *)"glGenQueriesANGLE");
        PFNGLBEGINQUERYANGLEPROC begin = (PFNGLBEGINQUERYANGLEPROC)
            glXGetProcAddress((const GLubyte *)"glBeginQueryANGLE");
        PFNGLENDQUERYANGLEPROC end = (PFNGLENDQUERYANGLEPROC)
            glXGetProcAddress((const GLubyte *)"glEndQueryANGLE");
        PFNGLGETQUERYOBJECTUI64VANGLEPROC get = (PFNGLGETQUERYOBJECTUI64VANGLEPROC)
            glXGetProcAddress((const GLubyte *)"glGetQueryObjectui64vANGLE");
        PFNGLQUERYCOUNTERANGLEPROC counter = (PFNGLQUERYCOUNTERANGLEPROC)
            glXGetProcAddress((const GLubyte *)"glQueryCounterANGLE");
        GLuint a[3] = {0, 0, 0};
        gen(3, a);
        /* Work the GPU (llvmpipe: the CPU) is busy with, timed around glFinish: the elapsed time
         * cannot exceed the wall time (+1 ms) and, the work being GPU-bound, is at least half of
         * it; timestamps around it increase. The work grows until it takes 50 ms of wall time;
         * then up to 10 measurements. Every one stays within the timestamps and within the time
         * until its read returned (on llvmpipe's GLX path the fences are stamped inside the
         * program's glFlush, which renders: GL_GPU_DISJOINT_EXT says so, and the stamps still lie
         * inside that interval); on a loaded machine the process can be descheduled for much of
         * the wall time, and a helper blocked on the end fence woken late stamps it after
         * glFinish returned, so one of the ten, not each, must lie within the wall time and fill
         * half of it. */
        int rects = 500, measured = 0, full = 0;
        for (int attempt = 0; attempt < 21 && measured < 10 && !full; attempt++) {
            glFinish();
            struct timespec t0, t1;
            clock_gettime(CLOCK_MONOTONIC, &t0);
            counter(a[1], GL_TIMESTAMP_ANGLE);
            begin(GL_TIME_ELAPSED_ANGLE, a[0]);
            for (int i = 0; i < rects; i++)
                glRecti(-1, -1, 1, 1);
            end(GL_TIME_ELAPSED_ANGLE);
            counter(a[2], GL_TIMESTAMP_ANGLE);
            glFinish();
            clock_gettime(CLOCK_MONOTONIC, &t1);
            uint64_t wall = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
                            (uint64_t)(t1.tv_nsec - t0.tv_nsec);
            GLuint64 ns = 0, s0 = 0, s1 = 0;
            get(a[0], GL_QUERY_RESULT_ANGLE, &ns);
            get(a[1], GL_QUERY_RESULT_ANGLE, &s0);
            get(a[2], GL_QUERY_RESULT_ANGLE, &s1);
            struct timespec t2;
            clock_gettime(CLOCK_MONOTONIC, &t2);
            uint64_t until_read = (uint64_t)(t2.tv_sec - t0.tv_sec) * 1000000000u +
                                  (uint64_t)(t2.tv_nsec - t0.tv_nsec);
            GLint disjoint = 0;
            glGetIntegerv(0x8FBB /* GL_GPU_DISJOINT_EXT: reading clears it */, &disjoint);
            if (wall < 50000000u && attempt < 11) {
                rects *= 2;
                continue;
            }
            measured++;
            printf("%d rects: ANGLE elapsed %.3f ms, wall %.3f ms, timestamps +%.3f ms%s\n",
                   rects, ns / 1e6, wall / 1e6, (double)(s1 - s0) / 1e6,
                   disjoint ? " (disjoint)" : "");
            ok &= s1 > s0 && ns <= s1 - s0 + 1000000u;
            ok &= ns <= until_read + 1000000u;
            full = GPU_SHARE_OK(ns, wall) && ns <= wall + 1000000u;
        }
        ok &= full;
    }
    GLenum err = glGetError();
    printf("GL error 0x%x\n", err);
    ok &= err == GL_NO_ERROR;

    glXMakeContextCurrent(t.dpy, None, None, NULL);
    glXDestroyContext(t.dpy, t.ctx);
    stats_fn(&st);
    printf("contexts tracked after glXDestroyContext: %llu\n", (unsigned long long)st.contexts);
    ok &= st.contexts == 0;
    glXDestroyPbuffer(t.dpy, t.pb);
    XCloseDisplay(t.dpy);
    return ok ? 0 : 1;
}
