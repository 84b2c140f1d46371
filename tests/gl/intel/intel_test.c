/* Helpers for the GL_INTEL_performance_query tests (see intel_test.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "intel_test.h"
#include "../gl_display.h"

static pthread_mutex_t display_lock = PTHREAD_MUTEX_INITIALIZER;

int gltest_want_gles(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--gles") == 0)
            return GLTEST_GLES;
        if (strcmp(argv[i], "--compat") == 0)
            return GLTEST_COMPAT;
    }
    return GLTEST_CORE;
}

const char *gltest_kind_name(const struct gltest *t)
{
    return t->gles ? "GLES" : t->compat ? "desktop GL compatibility" : "desktop GL core";
}

uint64_t gltest_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static EGLContext try_context(EGLDisplay dpy, int kind)
{
    if (!eglBindAPI(kind == GLTEST_GLES ? EGL_OPENGL_ES_API : EGL_OPENGL_API))
        return EGL_NO_CONTEXT;
    const EGLint core_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
    const EGLint compat_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
        EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE};
    const EGLint es_attribs[] = {
        EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
    return eglCreateContext(dpy, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT,
                            kind == GLTEST_GLES ? es_attribs
                            : kind == GLTEST_COMPAT ? compat_attribs : core_attribs);
}

struct context_choice {
    int kind;
    EGLContext ctx;
};

static int gives_context(EGLDisplay dpy, void *arg)
{
    struct context_choice *c = arg;
    c->ctx = try_context(dpy, c->kind);
    return c->ctx != EGL_NO_CONTEXT;
}

/* The first display, in the order every GL test uses (glt_choose_display), that creates a
 * context of the API. */
static int open_display(struct gltest *t, int kind)
{
    struct context_choice c = {kind, EGL_NO_CONTEXT};
    EGLDisplay dpy = glt_choose_display(gives_context, &c);
    if (dpy == EGL_NO_DISPLAY)
        return -1;
    t->dpy = dpy;
    t->ctx = c.ctx;
    return 0;
}

int gltest_create(struct gltest *t, int kind, int width, int height)
{
    memset(t, 0, sizeof(*t));
    t->gles = kind == GLTEST_GLES;
    t->compat = kind == GLTEST_COMPAT;
    t->width = width;
    t->height = height;
    pthread_mutex_lock(&display_lock);
    int r = open_display(t, kind);
    pthread_mutex_unlock(&display_lock);
    if (r != 0) {
        fprintf(stderr, "no EGL device gives a %s context: skipped\n",
                kind == GLTEST_GLES ? "GLES 3" : kind == GLTEST_COMPAT
                ? "desktop GL 3.3 compatibility" : "desktop GL 3.3 core");
        return INTEL_TEST_SKIP;
    }
#define T_LOAD(type, name)                                                \
    t->gl.name = (type)eglGetProcAddress(#name);                          \
    if (!t->gl.name) {                                                    \
        fprintf(stderr, "eglGetProcAddress(\"%s\") is NULL\n", #name);    \
        return -1;                                                        \
    }
    INTEL_TEST_GL_FUNCTIONS(T_LOAD)
#undef T_LOAD
#define T_LOAD_OPT(type, name) t->gl.name = (type)eglGetProcAddress(#name);
    INTEL_TEST_GL_OPTIONAL(T_LOAD_OPT)
#undef T_LOAD_OPT
    return 0;
}

static GLuint compile(struct gltest *t, GLenum type, const char *body)
{
    const char *header = t->gles ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
                                 : "#version 330 core\n";
    const char *src[2] = {header, body};
    GLuint s = t->gl.glCreateShader(type);
    t->gl.glShaderSource(s, 2, src, NULL);
    t->gl.glCompileShader(s);
    GLint ok = 0;
    t->gl.glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024] = "";
        t->gl.glGetShaderInfoLog(s, sizeof(log), NULL, log);
        fprintf(stderr, "shader: %s\n", log);
    }
    return s;
}

static const char vs_body[] =
    "layout(location = 0) in vec2 pos;\n"
    "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";
/* Heavy when iters is large: a dependent chain the compiler cannot drop. */
static const char fs_body[] =
    "uniform int iters;\n"
    "out vec4 color;\n"
    "void main() {\n"
    "    vec4 c = vec4(gl_FragCoord.xy * 0.001, 0.25, 1.0);\n"
    "    for (int i = 0; i < iters; i++) c = sin(c * 1.0001 + 0.1);\n"
    "    color = c;\n"
    "}\n";

int gltest_make_current(struct gltest *t)
{
    eglBindAPI(t->gles ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
    if (!eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, t->ctx))
        return -1;
    if (t->prog)
        return 0;
    const char *r = (const char *)t->gl.glGetString(GL_RENDERER);
    snprintf(t->renderer, sizeof(t->renderer), "%s", r ? r : "?");
    t->gl.glGenRenderbuffers(1, &t->rb);
    t->gl.glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
    t->gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, t->width, t->height);
    t->gl.glGenFramebuffers(1, &t->fbo);
    t->gl.glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    t->gl.glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
    if (t->gl.glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
        return -1;
    t->gl.glViewport(0, 0, t->width, t->height);
    t->gl.glDisable(GL_DEPTH_TEST);
    t->gl.glDisable(GL_CULL_FACE);
    GLuint vs = compile(t, GL_VERTEX_SHADER, vs_body);
    GLuint fs = compile(t, GL_FRAGMENT_SHADER, fs_body);
    t->prog = t->gl.glCreateProgram();
    t->gl.glAttachShader(t->prog, vs);
    t->gl.glAttachShader(t->prog, fs);
    t->gl.glLinkProgram(t->prog);
    t->gl.glDeleteShader(vs);
    t->gl.glDeleteShader(fs);
    GLint ok = 0;
    t->gl.glGetProgramiv(t->prog, GL_LINK_STATUS, &ok);
    if (!ok)
        return -1;
    t->gl.glUseProgram(t->prog);
    t->iters_loc = t->gl.glGetUniformLocation(t->prog, "iters");
    t->gl.glGenVertexArrays(1, &t->vao);
    t->gl.glBindVertexArray(t->vao);
    t->gl.glGenBuffers(1, &t->vbo);
    t->gl.glBindBuffer(GL_ARRAY_BUFFER, t->vbo);
    t->gl.glVertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    t->gl.glEnableVertexAttribArray(0);
    t->gl.glFinish();
    return t->gl.glGetError() == GL_NO_ERROR ? 0 : -1;
}

void gltest_release(struct gltest *t)
{
    eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

void gltest_destroy(struct gltest *t)
{
    if (t->ctx != EGL_NO_CONTEXT) {
        if (t->prog && eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, t->ctx)) {
            t->gl.glDeleteBuffers(1, &t->vbo);
            t->gl.glDeleteVertexArrays(1, &t->vao);
            t->gl.glDeleteProgram(t->prog);
            t->gl.glDeleteFramebuffers(1, &t->fbo);
            t->gl.glDeleteRenderbuffers(1, &t->rb);
        }
        eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(t->dpy, t->ctx);
    }
    t->ctx = EGL_NO_CONTEXT;
}

static void draw(struct gltest *t, const float *xy, int vertices, int iterations)
{
    t->gl.glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)vertices * 2 * sizeof(float), xy,
                       GL_STREAM_DRAW);
    t->gl.glUniform1i(t->iters_loc, iterations);
    t->gl.glDrawArrays(GL_TRIANGLES, 0, vertices);
}

void gltest_draw_triangles(struct gltest *t, int n, int iterations)
{
    float *xy = malloc((size_t)n * 6 * sizeof(float));
    if (!xy)
        return;
    /* Small triangles on a grid, inside the viewport, none degenerate. */
    for (int i = 0; i < n; i++) {
        float x = -0.9f + 0.05f * (float)(i % 36), y = -0.9f + 0.05f * (float)((i / 36) % 36);
        float tri[6] = {x, y, x + 0.04f, y, x, y + 0.04f};
        memcpy(xy + i * 6, tri, sizeof(tri));
    }
    draw(t, xy, n * 3, iterations);
    free(xy);
}

void gltest_draw_quad(struct gltest *t, int iterations)
{
    static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    draw(t, quad, 6, iterations);
}

int gltest_has_extension(struct gltest *t, const char *name)
{
    GLint n = 0;
    t->gl.glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)t->gl.glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0)
            return 1;
    }
    return 0;
}

GLuint gltest_query_id(struct gltest *t, const char *name)
{
    GLuint id = 0;
    t->gl.glGetPerfQueryIdByNameINTEL((GLchar *)name, &id);
    while (t->gl.glGetError() != GL_NO_ERROR)
        ;
    return id;
}

int gltest_counter_index(struct gltest *t, GLuint query_id, const char *name)
{
    GLuint n = 0;
    t->gl.glGetPerfQueryInfoINTEL(query_id, 0, NULL, NULL, &n, NULL, NULL);
    for (GLuint c = 1; c <= n; c++) {
        char buf[256];
        t->gl.glGetPerfCounterInfoINTEL(query_id, c, sizeof(buf), buf, 0, NULL, NULL, NULL,
                                        NULL, NULL, NULL);
        if (strcmp(buf, name) == 0)
            return (int)c - 1;
    }
    return -1;
}

uint64_t gltest_counter_u64(struct gltest *t, GLuint query_id, const char *name,
                            const void *data)
{
    int i = gltest_counter_index(t, query_id, name);
    if (i < 0)
        return UINT64_MAX;
    GLuint offset = 0, size = 0;
    t->gl.glGetPerfCounterInfoINTEL(query_id, (GLuint)i + 1, 0, NULL, 0, NULL, &offset, &size,
                                    NULL, NULL, NULL);
    if (size == 4) {
        uint32_t v;
        memcpy(&v, (const char *)data + offset, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)data + offset, 8);
    return v;
}

GLuint gltest_result_wait(struct gltest *t, GLuint handle, void *data, GLuint size)
{
    GLuint written = 0;
    t->gl.glGetPerfQueryDataINTEL(handle, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data,
                                  &written);
    return written;
}
