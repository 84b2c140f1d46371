/* The one GL test harness (see gl_test.h). */
#include "gl_test.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct glt_fns gl;

enum glt_kind glt_kind_from_args(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--core") == 0)
            return GLT_CORE;
        if (strcmp(argv[i], "--gles") == 0)
            return GLT_GLES3;
        if (strcmp(argv[i], "--compat") == 0)
            return GLT_COMPAT;
    }
    return GLT_COMPAT;
}

const char *glt_kind_name(enum glt_kind kind)
{
    return kind == GLT_CORE ? "core" : kind == GLT_GLES3 ? "gles3" : "compat";
}

uint64_t glt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Returns the number of GLT_FUNCTIONS that are missing (each named on stderr). */
static int load(void)
{
    void *p;
    int missing = 0;
#define GLT_LOAD(type, name) \
    p = (void *)eglGetProcAddress(#name); \
    memcpy(&gl.name, &p, sizeof p);
#define GLT_REQUIRE(type, name) \
    GLT_LOAD(type, name) \
    if (!p) { \
        fprintf(stderr, "eglGetProcAddress(\"%s\") is NULL\n", #name); \
        missing++; \
    }
    GLT_FUNCTIONS(GLT_REQUIRE)
    GLT_OPTIONAL_FUNCTIONS(GLT_LOAD)
#undef GLT_REQUIRE
#undef GLT_LOAD
    return missing;
}

static int initialized(EGLDisplay dpy, int (*accept)(EGLDisplay, void *), void *arg)
{
    if (dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL))
        return 0;
    return !accept || accept(dpy, arg);
}

EGLDisplay glt_choose_display(int (*accept)(EGLDisplay dpy, void *arg), void *arg)
{
    const char *ext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    const char *want = getenv("GLT_PLATFORM");  /* "device" or "surfaceless": only that one */
    int devices = !want || strcmp(want, "surfaceless") != 0;
    int surfaceless = !want || strcmp(want, "device") != 0;
    if (devices && gpd && ext && strstr(ext, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC qd =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT devs[16];
        EGLint n = 0;
        if (qd && qd(16, devs, &n)) {
            for (EGLint i = 0; i < n; i++) {
                EGLDisplay dpy = gpd(EGL_PLATFORM_DEVICE_EXT, devs[i], NULL);
                if (initialized(dpy, accept, arg))
                    return dpy;
            }
        }
    }
    if (surfaceless && gpd && ext && strstr(ext, "EGL_MESA_platform_surfaceless")) {
        EGLDisplay dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (initialized(dpy, accept, arg))
            return dpy;
    }
    if (!want) {
        EGLDisplay dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
        if (initialized(dpy, accept, arg))
            return dpy;
    }
    return EGL_NO_DISPLAY;
}

static pthread_mutex_t display_lock = PTHREAD_MUTEX_INITIALIZER;

EGLDisplay glt_other_display(EGLDisplay dpy)
{
    PFNEGLQUERYDEVICESEXTPROC query_devices =
        (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
    PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    if (!query_devices || !platform_display) {
        fprintf(stderr, "glt_other_display: no eglQueryDevicesEXT or eglGetPlatformDisplayEXT\n");
        return EGL_NO_DISPLAY;
    }
    EGLDeviceEXT dev;
    EGLint n = 0;
    if (!query_devices(1, &dev, &n) || n != 1) {
        fprintf(stderr, "glt_other_display: no EGL device\n");
        return EGL_NO_DISPLAY;
    }
    EGLDisplay other = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if (other == dpy || other == EGL_NO_DISPLAY)
        other = platform_display(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
    if (other == dpy) {
        fprintf(stderr, "glt_other_display: EGL gives no display other than the tests' own\n");
        return EGL_NO_DISPLAY;
    }
    return other;
}

int glt_open_display(EGLDisplay *out)
{
    static EGLDisplay cached = EGL_NO_DISPLAY;
    static int missing;   /* functions eglGetProcAddress did not give */
    pthread_mutex_lock(&display_lock);
    if (cached == EGL_NO_DISPLAY) {
        cached = glt_choose_display(NULL, NULL);
        if (cached != EGL_NO_DISPLAY)
            missing = load();
    }
    EGLDisplay dpy = cached;
    pthread_mutex_unlock(&display_lock);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display (no EGL device, no Mesa surfaceless platform, no default "
                "display): skipping\n");
        return GLT_SKIP;
    }
    if (missing) {
        fprintf(stderr, "FAIL: eglGetProcAddress gave NULL for %d GL functions\n", missing);
        return 1;
    }
    *out = dpy;
    return 0;
}

static GLuint shader(GLenum type, const char *src)
{
    GLuint s = gl.glCreateShader(type);
    gl.glShaderSource(s, 1, &src, NULL);
    gl.glCompileShader(s);
    GLint ok = 0;
    gl.glGetShaderiv(s, GL_COMPILE_STATUS, &ok);
    if (!ok) {
        char log[1024];
        gl.glGetShaderInfoLog(s, sizeof log, NULL, log);
        fprintf(stderr, "shader: %s\n", log);
    }
    return s;
}

/* mode 0: quad from gl_VertexID 0..5 covering the viewport; mode 1: triangle k = id / 3 in its
 * cell of a 36x36 grid (0.05 apart from -0.9, legs 0.04: none overlaps another). */
static const char *vs_body =
    "uniform int mode;\n"
    "void main() {\n"
    "  int id = gl_VertexID;\n"
    "  if (mode == 0) {\n"
    "    int v = id % 6;\n"
    "    vec2 p = vec2((v == 1 || v == 2 || v == 4) ? 1.0 : -1.0,\n"
    "                  (v == 2 || v == 4 || v == 5) ? 1.0 : -1.0);\n"
    "    gl_Position = vec4(p, 0.0, 1.0);\n"
    "  } else {\n"
    "    int k = id / 3, v = id % 3;\n"
    "    vec2 cell = vec2(float(k % 36), float((k / 36) % 36)) * 0.05 - 0.9;\n"
    "    vec2 off = v == 0 ? vec2(0.0) : v == 1 ? vec2(0.04, 0.0) : vec2(0.0, 0.04);\n"
    "    gl_Position = vec4(cell + off, 0.0, 1.0);\n"
    "  }\n"
    "}\n";

static const char *fs_body =
    "uniform int iters;\n"
    "void main() {\n"
    "  vec4 c = vec4(gl_FragCoord.xy * 0.001, 0.0, 1.0);\n"
    "  for (int i = 0; i < iters; i++)\n"
    "    c = vec4(sin(c.x + 0.1), cos(c.y + c.x), sin(c.z * 1.01 + 0.3), 1.0);\n"
    "  frag = c;\n"
    "}\n";

int glt_egl_refusal(EGLint error, const char *call)
{
    if (error == EGL_BAD_MATCH || error == EGL_BAD_CONFIG || error == EGL_BAD_ATTRIBUTE)
        return 1;
    fprintf(stderr, "FAIL: %s gave no context, error 0x%x: not a driver's refusal\n", call,
            (unsigned)error);
    return 0;
}

int glt_create_context(EGLDisplay dpy, enum glt_kind kind, EGLContext *out)
{
    return glt_create_context_sharing(dpy, kind, EGL_NO_CONTEXT, out);
}

int glt_create_context_sharing(EGLDisplay dpy, enum glt_kind kind, EGLContext share,
                               EGLContext *out)
{
    *out = EGL_NO_CONTEXT;
    EGLint attrs[16], n = 0;
    if (!eglBindAPI(kind == GLT_GLES3 ? EGL_OPENGL_ES_API : EGL_OPENGL_API)) {
        fprintf(stderr, "this EGL has no %s API: skipping\n",
                kind == GLT_GLES3 ? "OpenGL ES" : "desktop OpenGL");
        return GLT_SKIP;
    }
    attrs[n++] = EGL_CONTEXT_MAJOR_VERSION;
    attrs[n++] = 3;
    attrs[n++] = EGL_CONTEXT_MINOR_VERSION;
    attrs[n++] = kind == GLT_GLES3 ? 0 : 3;
    if (kind != GLT_GLES3) {
        attrs[n++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
        attrs[n++] = kind == GLT_CORE ? EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT
                                      : EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT;
    }
    attrs[n++] = EGL_NONE;
    EGLConfig config = EGL_NO_CONFIG_KHR;
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!ext || !strstr(ext, "EGL_KHR_no_config_context")) {
        EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                           kind == GLT_GLES3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
        EGLint nc = 0;
        if (!eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
            fprintf(stderr, "the EGL display has no config for a %s context: skipping\n",
                    glt_kind_name(kind));
            return GLT_SKIP;
        }
    }
    *out = eglCreateContext(dpy, config, share, attrs);
    if (*out == EGL_NO_CONTEXT) {
        /* The layer wraps eglCreateContext: a context the driver cannot give is refused with the
         * driver's error (EGL 1.5 section 3.7.1: BAD_MATCH, BAD_CONFIG or BAD_ATTRIBUTE);
         * anything else is the layer (or the driver) broken, not a missing piece. */
        if (!glt_egl_refusal(eglGetError(), "eglCreateContext"))
            return 1;
        fprintf(stderr, "the EGL display gives no %s context (GL %s 3.%d): skipping\n",
                glt_kind_name(kind), kind == GLT_GLES3 ? "ES" : kind == GLT_CORE ? "core" :
                "compatibility", kind == GLT_GLES3 ? 0 : 3);
        return GLT_SKIP;
    }
    return 0;
}

int glt_create(struct glt *t, EGLDisplay dpy, enum glt_kind kind, int width, int height)
{
    memset(t, 0, sizeof *t);
    t->dpy = dpy;
    t->kind = kind;
    t->width = width;
    t->height = height;
    int rc = glt_create_context(dpy, kind, &t->ctx);
    if (rc != 0)
        return rc;
    /* The layer wraps eglMakeCurrent and the GL calls below: a failure is a defect, not a
     * missing piece of the machine. */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, t->ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new %s context (0x%x)\n", glt_kind_name(kind),
                eglGetError());
        eglDestroyContext(dpy, t->ctx);
        t->ctx = EGL_NO_CONTEXT;
        return 1;
    }
    const char *r = (const char *)gl.glGetString(GL_RENDERER);
    snprintf(t->renderer, sizeof t->renderer, "%s", r ? r : "?");
    gl.glGenFramebuffers(1, &t->fbo);
    gl.glBindFramebuffer(GL_FRAMEBUFFER, t->fbo);
    gl.glGenRenderbuffers(1, &t->rb);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, t->rb);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
    gl.glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, t->rb);
    if (gl.glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
        fprintf(stderr, "FAIL: the %s context's framebuffer is incomplete\n",
                glt_kind_name(kind));
        glt_destroy(t);
        return 1;
    }
    gl.glViewport(0, 0, width, height);
    gl.glDisable(GL_DEPTH_TEST);
    gl.glDisable(GL_CULL_FACE);
    char vs[2048], fs[2048];
    const char *head = kind == GLT_GLES3
        ? "#version 300 es\nprecision highp float;\nprecision highp int;\n"
        : "#version 330 core\n";
    snprintf(vs, sizeof vs, "%s%s", head, vs_body);
    snprintf(fs, sizeof fs, "%sout vec4 frag;\n%s", head, fs_body);
    GLuint v = shader(GL_VERTEX_SHADER, vs), f = shader(GL_FRAGMENT_SHADER, fs);
    t->prog = gl.glCreateProgram();
    gl.glAttachShader(t->prog, v);
    gl.glAttachShader(t->prog, f);
    gl.glLinkProgram(t->prog);
    gl.glDeleteShader(v);
    gl.glDeleteShader(f);
    GLint linked = 0;
    gl.glGetProgramiv(t->prog, GL_LINK_STATUS, &linked);
    gl.glUseProgram(t->prog);
    t->u_mode = gl.glGetUniformLocation(t->prog, "mode");
    t->u_iters = gl.glGetUniformLocation(t->prog, "iters");
    gl.glGenVertexArrays(1, &t->vao);
    gl.glBindVertexArray(t->vao);
    gl.glFinish();
    GLenum err = gl.glGetError();
    if (err != GL_NO_ERROR || !linked) {
        fprintf(stderr, "FAIL: %s setting up the %s context\n",
                linked ? "a GL error" : "the program did not link", glt_kind_name(kind));
        glt_destroy(t);
        return 1;
    }
    return 0;
}

int glt_create_from_args(struct glt *t, int argc, char **argv, int width, int height)
{
    EGLDisplay dpy;
    int rc = glt_open_display(&dpy);
    return rc != 0 ? rc : glt_create(t, dpy, glt_kind_from_args(argc, argv), width, height);
}

int glt_make_current(struct glt *t)
{
    /* The bound API is per thread; a context made current on a new thread needs its own. */
    eglBindAPI(t->kind == GLT_GLES3 ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
    return eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, t->ctx) ? 0 : -1;
}

void glt_release(struct glt *t)
{
    eglMakeCurrent(t->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

void glt_destroy(struct glt *t)
{
    if (t->ctx == EGL_NO_CONTEXT)
        return;
    if (glt_make_current(t) == 0) {
        gl.glDeleteVertexArrays(1, &t->vao);
        gl.glDeleteProgram(t->prog);
        gl.glDeleteRenderbuffers(1, &t->rb);
        gl.glDeleteFramebuffers(1, &t->fbo);
    }
    glt_release(t);
    eglDestroyContext(t->dpy, t->ctx);
    t->ctx = EGL_NO_CONTEXT;
}

void glt_draw_quads(struct glt *t, int n, int iters)
{
    gl.glUniform1i(t->u_mode, 0);
    gl.glUniform1i(t->u_iters, iters);
    for (int i = 0; i < n; i++)
        gl.glDrawArrays(GL_TRIANGLES, 0, 6);
}

void glt_draw_triangles(struct glt *t, int n)
{
    gl.glUniform1i(t->u_mode, 1);
    gl.glUniform1i(t->u_iters, 0);
    gl.glDrawArrays(GL_TRIANGLES, 0, 3 * n);
}

GLenum glt_error(void)
{
    GLenum first = GL_NO_ERROR, e;
    int guard = 0;
    while ((e = gl.glGetError()) != GL_NO_ERROR && guard++ < 16)
        if (first == GL_NO_ERROR)
            first = e;
    return first;
}

int glt_has_extension(const char *name)
{
    GLint n = 0;
    gl.glGetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)gl.glGetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0)
            return 1;
    }
    return 0;
}

int glt_has_pipeline_statistics(void)
{
    const char *version = (const char *)gl.glGetString(GL_VERSION);
    GLint major = 0, minor = 0;
    gl.glGetIntegerv(GL_MAJOR_VERSION, &major);
    gl.glGetIntegerv(GL_MINOR_VERSION, &minor);
    int desktop = version && strncmp(version, "OpenGL ES", 9) != 0;
    return (desktop && major * 10 + minor >= 46) ||
           glt_has_extension("GL_ARB_pipeline_statistics_query");
}

GLuint glt_intel_query_id(const char *name)
{
    GLuint id = 0;
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)name, &id);
    glt_error();
    return id;
}

GLuint glt_intel_data_size(GLuint query_id)
{
    GLuint size = 0;
    gl.glGetPerfQueryInfoINTEL(query_id, 0, NULL, &size, NULL, NULL, NULL);
    return size;
}

int glt_intel_counter_index(GLuint query_id, const char *name)
{
    GLuint n = 0;
    gl.glGetPerfQueryInfoINTEL(query_id, 0, NULL, NULL, &n, NULL, NULL);
    for (GLuint c = 1; c <= n; c++) {
        char buf[256] = "";
        gl.glGetPerfCounterInfoINTEL(query_id, c, sizeof buf, buf, 0, NULL, NULL, NULL, NULL,
                                     NULL, NULL);
        if (strcmp(buf, name) == 0)
            return (int)c - 1;
    }
    return -1;
}

uint64_t glt_intel_counter_u64(GLuint query_id, const char *name, const void *data)
{
    int i = glt_intel_counter_index(query_id, name);
    if (i < 0)
        return UINT64_MAX;
    GLuint offset = 0, size = 0;
    gl.glGetPerfCounterInfoINTEL(query_id, (GLuint)i + 1, 0, NULL, 0, NULL, &offset, &size, NULL,
                                 NULL, NULL);
    if (size == 4) {
        uint32_t v;
        memcpy(&v, (const char *)data + offset, 4);
        return v;
    }
    uint64_t v;
    memcpy(&v, (const char *)data + offset, 8);
    return v;
}

GLuint glt_intel_result_wait(GLuint handle, void *data, GLuint size)
{
    GLuint written = 0;
    gl.glGetPerfQueryDataINTEL(handle, GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data, &written);
    return written;
}

void glt_brcm_load(struct glt_brcm *b)
{
#define GLT_BRCM_LOAD(member, name) b->member = (__typeof__(b->member))eglGetProcAddress(#name)
    GLT_BRCM_LOAD(GetConstant, eglGetPerfCounterConstantBRCM);
    GLT_BRCM_LOAD(GetGroupInfo, eglGetPerfCounterGroupInfoBRCM);
    GLT_BRCM_LOAD(GetCounterInfo, eglGetPerfCounterInfoBRCM);
    GLT_BRCM_LOAD(SetCounting, eglSetPerfCountingBRCM);
    GLT_BRCM_LOAD(Choose, eglChoosePerfCountersBRCM);
    GLT_BRCM_LOAD(GetData, eglGetPerfCounterDataBRCM);
#undef GLT_BRCM_LOAD
}

EGLint glt_brcm_group(const struct glt_brcm *b, const char *name)
{
    EGLint n = b->GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), found = -1;
    for (EGLint g = 0; g < n; g++) {
        char buf[64];
        if (!b->GetGroupInfo(g, sizeof buf, buf, NULL, NULL))
            return -1;
        if (found < 0 && strcmp(buf, name) == 0)
            found = g;
    }
    return found;
}

EGLint glt_brcm_counter(const struct glt_brcm *b, EGLint g, const char *name)
{
    EGLint n = 0, found = -1;
    if (!b->GetGroupInfo(g, 0, NULL, &n, NULL))
        return -1;
    for (EGLint c = 0; c < n; c++) {
        char buf[64];
        if (!b->GetCounterInfo(g, c, NULL, NULL, NULL, sizeof buf, buf, 0, NULL))
            return -1;
        if (found < 0 && strcmp(buf, name) == 0)
            found = c;
    }
    return found;
}
