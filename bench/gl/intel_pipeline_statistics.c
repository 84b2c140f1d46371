/*
 * Benchmark (2) of issue 3: one GL_INTEL_performance_query "Pipeline Statistics" query around a
 * draw, against the same driver queries issued by hand around the same draw, side by side in one
 * process (the GL layer linked in, as a program run under `perfq run` has it).
 *
 * One iteration = begin, a draw of TRIANGLES small triangles, end, read the result (waiting).
 *   by hand: glBeginQuery/glEndQuery on each target the INTEL type measures (its pipeline
 *            statistics, GL_SAMPLES_PASSED, GL_PRIMITIVES_GENERATED, and GL_TIME_ELAPSED for its
 *            GPU time), then glGetQueryObjectui64v(GL_QUERY_RESULT) on each;
 *   INTEL:   glBeginPerfQueryINTEL, glEndPerfQueryINTEL, glGetPerfQueryDataINTEL(WAIT).
 *   by hand + fences: as "by hand" without GL_TIME_ELAPSED, plus an EGL fence after the
 *            begins and one after the ends, both
 *            waited with eglClientWaitSyncKHR: the by-hand cost of the GPU time perfq reports on
 *            drivers whose timer queries are wrong (llvmpipe), where the layer times with fences.
 * BLOCKS alternating blocks of ITERATIONS iterations; the medians of the per-iteration times are
 * compared. Target: ratio <= 1.25 against the same work by hand: "by hand" where the layer's
 * timer uses the driver's queries (NVIDIA; PERFQ_GL_TIMER=query anywhere), "by hand + fences"
 * where it uses fences (llvmpipe by default).
 * Usage: bench-intel-pipeline-statistics [blocks] [iterations]
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRIANGLES 64
#define W 64
#define H 64

typedef void (*fn_drawarrays)(GLenum, GLint, GLsizei);
typedef void (*fn_void)(void);
typedef const GLubyte *(*fn_getstring)(GLenum);

static struct {
    fn_drawarrays DrawArrays;
    fn_void Finish;
    fn_getstring GetString;
    PFNGLGENQUERIESPROC GenQueries;
    PFNGLBEGINQUERYPROC BeginQuery;
    PFNGLENDQUERYPROC EndQuery;
    PFNGLGETQUERYOBJECTUI64VPROC GetQueryObjectui64v;
    PFNGLGENFRAMEBUFFERSPROC GenFramebuffers;
    PFNGLBINDFRAMEBUFFERPROC BindFramebuffer;
    PFNGLGENRENDERBUFFERSPROC GenRenderbuffers;
    PFNGLBINDRENDERBUFFERPROC BindRenderbuffer;
    PFNGLRENDERBUFFERSTORAGEPROC RenderbufferStorage;
    PFNGLFRAMEBUFFERRENDERBUFFERPROC FramebufferRenderbuffer;
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGENVERTEXARRAYSPROC GenVertexArrays;
    PFNGLBINDVERTEXARRAYPROC BindVertexArray;
    PFNGLGENBUFFERSPROC GenBuffers;
    PFNGLBINDBUFFERPROC BindBuffer;
    PFNGLBUFFERDATAPROC BufferData;
    PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
    PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC GetPerfQueryIdByNameINTEL;
    PFNGLGETPERFQUERYINFOINTELPROC GetPerfQueryInfoINTEL;
    PFNGLGETPERFCOUNTERINFOINTELPROC GetPerfCounterInfoINTEL;
    PFNGLCREATEPERFQUERYINTELPROC CreatePerfQueryINTEL;
    PFNGLBEGINPERFQUERYINTELPROC BeginPerfQueryINTEL;
    PFNGLENDPERFQUERYINTELPROC EndPerfQueryINTEL;
    PFNGLGETPERFQUERYDATAINTELPROC GetPerfQueryDataINTEL;
} gl;

/* The INTEL counters of "Pipeline Statistics" and the driver query behind each. */
static const struct { const char *name; GLenum target; } targets[] = {
    {"GPU Time Elapsed", GL_TIME_ELAPSED},
    {"Vertices Submitted", GL_VERTICES_SUBMITTED_ARB},
    {"Primitives Submitted", GL_PRIMITIVES_SUBMITTED_ARB},
    {"Vertex Shader Invocations", GL_VERTEX_SHADER_INVOCATIONS_ARB},
    {"Tessellation Control Shader Patches", GL_TESS_CONTROL_SHADER_PATCHES_ARB},
    {"Tessellation Evaluation Shader Invocations", GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB},
    {"Geometry Shader Invocations", GL_GEOMETRY_SHADER_INVOCATIONS},
    {"Geometry Shader Primitives Emitted", GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB},
    {"Fragment Shader Invocations", GL_FRAGMENT_SHADER_INVOCATIONS_ARB},
    {"Compute Shader Invocations", GL_COMPUTE_SHADER_INVOCATIONS_ARB},
    {"Clipper Input Primitives", GL_CLIPPING_INPUT_PRIMITIVES_ARB},
    {"Clipper Output Primitives", GL_CLIPPING_OUTPUT_PRIMITIVES_ARB},
    {"Samples Passed", GL_SAMPLES_PASSED},
    {"Primitives Generated", GL_PRIMITIVES_GENERATED},
};
#define MAX_TARGETS (sizeof(targets) / sizeof(targets[0]))

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int setup(void)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC get_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    EGLDeviceEXT devices[16];
    EGLint n = 0;
    if (!get_display || !query_devices || !query_devices(16, devices, &n))
        n = 0;
    for (EGLint i = 0; i <= n; i++) {
        EGLDisplay dpy = i < n ? get_display(EGL_PLATFORM_DEVICE_EXT, devices[i], NULL)
                               : get_display(EGL_PLATFORM_SURFACELESS_MESA,
                                             EGL_DEFAULT_DISPLAY, NULL);
        EGLint major, minor;
        if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, &major, &minor) ||
            !eglBindAPI(EGL_OPENGL_API))
            continue;
        const EGLint attribs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                  EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                  EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
        EGLContext ctx = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attribs);
        if (ctx != EGL_NO_CONTEXT &&
            eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx))
            return 0;
    }
    return -1;
}

#define LOAD(member, name)                                              \
    do {                                                                \
        *(void **)&gl.member = (void *)eglGetProcAddress(name);         \
        if (!gl.member) {                                               \
            fprintf(stderr, "no %s\n", name);                           \
            return 1;                                                   \
        }                                                               \
    } while (0)

static void draw(void)
{
    gl.DrawArrays(GL_TRIANGLES, 0, 3 * TRIANGLES);
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 21;
    int iterations = argc > 2 ? atoi(argv[2]) : 200;
    if (blocks < 1 || iterations < 1 || setup() != 0) {
        fprintf(stderr, "no desktop GL context: skipped\n");
        return 77;
    }
    LOAD(DrawArrays, "glDrawArrays");
    LOAD(Finish, "glFinish");
    LOAD(GetString, "glGetString");
    LOAD(GenQueries, "glGenQueries");
    LOAD(BeginQuery, "glBeginQuery");
    LOAD(EndQuery, "glEndQuery");
    LOAD(GetQueryObjectui64v, "glGetQueryObjectui64v");
    LOAD(GenFramebuffers, "glGenFramebuffers");
    LOAD(BindFramebuffer, "glBindFramebuffer");
    LOAD(GenRenderbuffers, "glGenRenderbuffers");
    LOAD(BindRenderbuffer, "glBindRenderbuffer");
    LOAD(RenderbufferStorage, "glRenderbufferStorage");
    LOAD(FramebufferRenderbuffer, "glFramebufferRenderbuffer");
    LOAD(CreateShader, "glCreateShader");
    LOAD(ShaderSource, "glShaderSource");
    LOAD(CompileShader, "glCompileShader");
    LOAD(CreateProgram, "glCreateProgram");
    LOAD(AttachShader, "glAttachShader");
    LOAD(LinkProgram, "glLinkProgram");
    LOAD(UseProgram, "glUseProgram");
    LOAD(GenVertexArrays, "glGenVertexArrays");
    LOAD(BindVertexArray, "glBindVertexArray");
    LOAD(GenBuffers, "glGenBuffers");
    LOAD(BindBuffer, "glBindBuffer");
    LOAD(BufferData, "glBufferData");
    LOAD(VertexAttribPointer, "glVertexAttribPointer");
    LOAD(EnableVertexAttribArray, "glEnableVertexAttribArray");
    LOAD(GetPerfQueryIdByNameINTEL, "glGetPerfQueryIdByNameINTEL");
    LOAD(GetPerfQueryInfoINTEL, "glGetPerfQueryInfoINTEL");
    LOAD(GetPerfCounterInfoINTEL, "glGetPerfCounterInfoINTEL");
    LOAD(CreatePerfQueryINTEL, "glCreatePerfQueryINTEL");
    LOAD(BeginPerfQueryINTEL, "glBeginPerfQueryINTEL");
    LOAD(EndPerfQueryINTEL, "glEndPerfQueryINTEL");
    LOAD(GetPerfQueryDataINTEL, "glGetPerfQueryDataINTEL");

    /* Offscreen target, a trivial program, TRIANGLES small triangles. */
    GLuint fbo, rb, vao, vbo;
    gl.GenRenderbuffers(1, &rb);
    gl.BindRenderbuffer(GL_RENDERBUFFER, rb);
    gl.RenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, W, H);
    gl.GenFramebuffers(1, &fbo);
    gl.BindFramebuffer(GL_FRAMEBUFFER, fbo);
    gl.FramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    const char *vs = "#version 330 core\nlayout(location = 0) in vec2 p;\n"
                     "void main() { gl_Position = vec4(p, 0.0, 1.0); }\n";
    const char *fs = "#version 330 core\nout vec4 c;\nvoid main() { c = vec4(1.0); }\n";
    GLuint prog = gl.CreateProgram();
    GLuint s1 = gl.CreateShader(GL_VERTEX_SHADER), s2 = gl.CreateShader(GL_FRAGMENT_SHADER);
    gl.ShaderSource(s1, 1, &vs, NULL);
    gl.ShaderSource(s2, 1, &fs, NULL);
    gl.CompileShader(s1);
    gl.CompileShader(s2);
    gl.AttachShader(prog, s1);
    gl.AttachShader(prog, s2);
    gl.LinkProgram(prog);
    gl.UseProgram(prog);
    float xy[TRIANGLES * 6];
    for (int i = 0; i < TRIANGLES; i++) {
        float x = -0.9f + 0.2f * (float)(i % 8), y = -0.9f + 0.2f * (float)(i / 8);
        float tri[6] = {x, y, x + 0.1f, y, x, y + 0.1f};
        memcpy(xy + 6 * i, tri, sizeof(tri));
    }
    gl.GenVertexArrays(1, &vao);
    gl.BindVertexArray(vao);
    gl.GenBuffers(1, &vbo);
    gl.BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl.BufferData(GL_ARRAY_BUFFER, sizeof(xy), xy, GL_STATIC_DRAW);
    gl.VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    gl.EnableVertexAttribArray(0);

    GLuint type = 0;
    gl.GetPerfQueryIdByNameINTEL((GLchar *)"Pipeline Statistics", &type);
    if (!type) {
        fprintf(stderr, "no \"Pipeline Statistics\" query type here: skipped\n");
        return 77;
    }
    GLuint size = 0, count = 0, handle = 0;
    gl.GetPerfQueryInfoINTEL(type, 0, NULL, &size, &count, NULL, NULL);
    gl.CreatePerfQueryINTEL(type, &handle);
    void *data = malloc(size);

    /* The same driver queries by hand: one per INTEL counter that has a driver target. */
    GLenum hand_targets[MAX_TARGETS];
    GLuint hand_queries[MAX_TARGETS];
    size_t nhand = 0;
    for (GLuint c = 1; c <= count; c++) {
        char name[256];
        gl.GetPerfCounterInfoINTEL(type, c, sizeof(name), name, 0, NULL, NULL, NULL, NULL,
                                   NULL, NULL);
        for (size_t k = 0; k < MAX_TARGETS; k++)
            if (strcmp(targets[k].name, name) == 0)
                hand_targets[nhand++] = targets[k].target;
    }
    gl.GenQueries((GLsizei)nhand, hand_queries);

    PFNEGLCREATESYNCKHRPROC create_sync =
        (PFNEGLCREATESYNCKHRPROC)eglGetProcAddress("eglCreateSyncKHR");
    PFNEGLCLIENTWAITSYNCKHRPROC wait_sync =
        (PFNEGLCLIENTWAITSYNCKHRPROC)eglGetProcAddress("eglClientWaitSyncKHR");
    PFNEGLDESTROYSYNCKHRPROC destroy_sync =
        (PFNEGLDESTROYSYNCKHRPROC)eglGetProcAddress("eglDestroySyncKHR");
    EGLDisplay dpy = eglGetCurrentDisplay();
    int fences = create_sync && wait_sync && destroy_sync;

    double *hand = calloc((size_t)blocks, sizeof(double));
    double *fenced = calloc((size_t)blocks, sizeof(double));
    double *intel = calloc((size_t)blocks, sizeof(double));
    uint64_t sink = 0;
    for (int b = -1; b < blocks; b++) {   /* block -1 warms both paths up */
        double t0 = now_ns();
        for (int i = 0; i < iterations; i++) {
            for (size_t k = 0; k < nhand; k++)
                gl.BeginQuery(hand_targets[k], hand_queries[k]);
            draw();
            for (size_t k = nhand; k-- > 0;)
                gl.EndQuery(hand_targets[k]);
            for (size_t k = 0; k < nhand; k++) {
                GLuint64 v = 0;
                gl.GetQueryObjectui64v(hand_queries[k], GL_QUERY_RESULT, &v);
                sink += v;
            }
        }
        double t1 = now_ns();
        /* With fences, GL_TIME_ELAPSED is left out: the fences give the time. */
        for (int i = 0; fences && i < iterations; i++) {
            for (size_t k = 0; k < nhand; k++)
                if (hand_targets[k] != GL_TIME_ELAPSED)
                    gl.BeginQuery(hand_targets[k], hand_queries[k]);
            EGLSyncKHR f0 = create_sync(dpy, EGL_SYNC_FENCE_KHR, NULL);
            draw();
            for (size_t k = nhand; k-- > 0;)
                if (hand_targets[k] != GL_TIME_ELAPSED)
                    gl.EndQuery(hand_targets[k]);
            EGLSyncKHR f1 = create_sync(dpy, EGL_SYNC_FENCE_KHR, NULL);
            wait_sync(dpy, f0, EGL_SYNC_FLUSH_COMMANDS_BIT_KHR, EGL_FOREVER_KHR);
            wait_sync(dpy, f1, EGL_SYNC_FLUSH_COMMANDS_BIT_KHR, EGL_FOREVER_KHR);
            sink += (uint64_t)now_ns();
            destroy_sync(dpy, f0);
            destroy_sync(dpy, f1);
            for (size_t k = 0; k < nhand; k++) {
                GLuint64 v = 0;
                if (hand_targets[k] == GL_TIME_ELAPSED)
                    continue;
                gl.GetQueryObjectui64v(hand_queries[k], GL_QUERY_RESULT, &v);
                sink += v;
            }
        }
        double t2 = now_ns();
        for (int i = 0; i < iterations; i++) {
            GLuint written = 0;
            gl.BeginPerfQueryINTEL(handle);
            draw();
            gl.EndPerfQueryINTEL(handle);
            gl.GetPerfQueryDataINTEL(handle, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data,
                                     &written);
            sink += written;
        }
        double t3 = now_ns();
        if (b >= 0) {
            hand[b] = (t1 - t0) / iterations;
            fenced[b] = (t2 - t1) / iterations;
            intel[b] = (t3 - t2) / iterations;
        }
    }
    qsort(hand, (size_t)blocks, sizeof(double), cmp_double);
    qsort(fenced, (size_t)blocks, sizeof(double), cmp_double);
    qsort(intel, (size_t)blocks, sizeof(double), cmp_double);
    double mh = hand[blocks / 2], mf = fenced[blocks / 2], mi = intel[blocks / 2];
    const char *timer = getenv("PERFQ_GL_TIMER");
    printf("renderer: %s; PERFQ_GL_TIMER=%s\n", (const char *)gl.GetString(GL_RENDERER),
           timer ? timer : "(unset: the layer's choice)");
    printf("per iteration (begin, draw of %d triangles, end, result with wait), median of %d "
           "blocks of %d:\n", TRIANGLES, blocks, iterations);
    printf("  by hand, %zu driver queries:                 %9.1f us\n", nhand, mh / 1e3);
    if (fences)
        printf("  by hand, %zu driver queries + 2 EGL fences:  %9.1f us\n", nhand - 1, mf / 1e3);
    printf("  INTEL \"Pipeline Statistics\" (%u counters):  %9.1f us\n", count, mi / 1e3);
    printf("ratio INTEL / by hand:          %.3f\n", mi / mh);
    if (fences)
        printf("ratio INTEL / by hand + fences: %.3f\n", mi / mf);
    printf("(target <= 1.25 against the same work: \"by hand\" where the layer times with the "
           "driver's queries, \"by hand + fences\" where it times with fences)\n");
    fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sink);
    free(hand);
    free(fenced);
    free(intel);
    free(data);
    return 0;
}
