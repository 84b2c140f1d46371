/*
 * Helpers for the GL_INTEL_performance_query tests: a headless EGL context (desktop GL core or
 * GLES 3) on the first EGL device that gives one (llvmpipe here, the NVIDIA driver on the GPU
 * machine), an offscreen framebuffer, known work (N small triangles, a full-viewport quad, heavy
 * fragment shading), and every GL function fetched through eglGetProcAddress, the way an
 * unmodified program gets them (so that the layer's entry points and wrappers are what runs).
 */
#ifndef PERFQ_TESTS_GL_INTEL_TEST_H
#define PERFQ_TESTS_GL_INTEL_TEST_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>

/* Context kinds (the command line's --gles, --compat; core profile otherwise). */
#define GLTEST_CORE 0
#define GLTEST_GLES 1
#define GLTEST_COMPAT 2

/* The exit status meson reads as "skipped". */
#define INTEL_TEST_SKIP 77

typedef void (*t_voidfn)(void);
typedef const GLubyte *(*t_getstring)(GLenum);
typedef GLenum (*t_geterror)(void);
typedef void (*t_getintegerv)(GLenum, GLint *);
typedef void (*t_getbooleanv)(GLenum, GLboolean *);
typedef void (*t_enum)(GLenum);
typedef void (*t_clearcolor)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*t_viewport)(GLint, GLint, GLsizei, GLsizei);
typedef void (*t_drawarrays)(GLenum, GLint, GLsizei);
typedef void (*t_clear)(GLbitfield);

#define INTEL_TEST_GL_FUNCTIONS(X) \
    X(t_geterror, glGetError) \
    X(t_getstring, glGetString) \
    X(PFNGLGETSTRINGIPROC, glGetStringi) \
    X(t_getintegerv, glGetIntegerv) \
    X(PFNGLGETINTEGER64VPROC, glGetInteger64v) \
    X(t_getbooleanv, glGetBooleanv) \
    X(t_voidfn, glFinish) \
    X(t_voidfn, glFlush) \
    X(t_enum, glDisable) \
    X(t_clear, glClear) \
    X(t_clearcolor, glClearColor) \
    X(t_viewport, glViewport) \
    X(t_drawarrays, glDrawArrays) \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) \
    X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
    X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers) \
    X(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) \
    X(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer) \
    X(PFNGLDELETERENDERBUFFERSPROC, glDeleteRenderbuffers) \
    X(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage) \
    X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer) \
    X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus) \
    X(PFNGLCREATESHADERPROC, glCreateShader) \
    X(PFNGLSHADERSOURCEPROC, glShaderSource) \
    X(PFNGLCOMPILESHADERPROC, glCompileShader) \
    X(PFNGLGETSHADERIVPROC, glGetShaderiv) \
    X(PFNGLGETSHADERINFOLOGPROC, glGetShaderInfoLog) \
    X(PFNGLDELETESHADERPROC, glDeleteShader) \
    X(PFNGLCREATEPROGRAMPROC, glCreateProgram) \
    X(PFNGLATTACHSHADERPROC, glAttachShader) \
    X(PFNGLLINKPROGRAMPROC, glLinkProgram) \
    X(PFNGLGETPROGRAMIVPROC, glGetProgramiv) \
    X(PFNGLUSEPROGRAMPROC, glUseProgram) \
    X(PFNGLDELETEPROGRAMPROC, glDeleteProgram) \
    X(PFNGLGETUNIFORMLOCATIONPROC, glGetUniformLocation) \
    X(PFNGLUNIFORM1IPROC, glUniform1i) \
    X(PFNGLGENVERTEXARRAYSPROC, glGenVertexArrays) \
    X(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray) \
    X(PFNGLDELETEVERTEXARRAYSPROC, glDeleteVertexArrays) \
    X(PFNGLGENBUFFERSPROC, glGenBuffers) \
    X(PFNGLBINDBUFFERPROC, glBindBuffer) \
    X(PFNGLBUFFERDATAPROC, glBufferData) \
    X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) \
    X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer) \
    X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray) \
    X(PFNGLGENQUERIESPROC, glGenQueries) \
    X(PFNGLDELETEQUERIESPROC, glDeleteQueries) \
    X(PFNGLBEGINQUERYPROC, glBeginQuery) \
    X(PFNGLENDQUERYPROC, glEndQuery) \
    X(PFNGLGETQUERYOBJECTUIVPROC, glGetQueryObjectuiv) \
    X(PFNGLGETFIRSTPERFQUERYIDINTELPROC, glGetFirstPerfQueryIdINTEL) \
    X(PFNGLGETNEXTPERFQUERYIDINTELPROC, glGetNextPerfQueryIdINTEL) \
    X(PFNGLGETPERFQUERYIDBYNAMEINTELPROC, glGetPerfQueryIdByNameINTEL) \
    X(PFNGLGETPERFQUERYINFOINTELPROC, glGetPerfQueryInfoINTEL) \
    X(PFNGLGETPERFCOUNTERINFOINTELPROC, glGetPerfCounterInfoINTEL) \
    X(PFNGLCREATEPERFQUERYINTELPROC, glCreatePerfQueryINTEL) \
    X(PFNGLDELETEPERFQUERYINTELPROC, glDeletePerfQueryINTEL) \
    X(PFNGLBEGINPERFQUERYINTELPROC, glBeginPerfQueryINTEL) \
    X(PFNGLENDPERFQUERYINTELPROC, glEndPerfQueryINTEL) \
    X(PFNGLGETPERFQUERYDATAINTELPROC, glGetPerfQueryDataINTEL)

/* Optional: NULL where the context lacks them. */
#define INTEL_TEST_GL_OPTIONAL(X) \
    X(PFNGLGETQUERYOBJECTUI64VPROC, glGetQueryObjectui64v) \
    X(PFNGLGETQUERYOBJECTUI64VEXTPROC, glGetQueryObjectui64vEXT)

struct gl_fns {
#define T_MEMBER(type, name) type name;
    INTEL_TEST_GL_FUNCTIONS(T_MEMBER)
    INTEL_TEST_GL_OPTIONAL(T_MEMBER)
#undef T_MEMBER
};

struct gltest {
    EGLDisplay dpy;
    EGLContext ctx;
    int gles;
    int compat;
    int width, height;
    GLuint fbo, rb, prog, vao, vbo;
    GLint iters_loc;
    char renderer[128];
    struct gl_fns gl;
};

/* The context kind from argv: "--gles", "--compat", else desktop core profile. */
int gltest_want_gles(int argc, char **argv);

/* "GLES", "desktop GL core" or "desktop GL compatibility". */
const char *gltest_kind_name(const struct gltest *t);

/* Opens a display (once per process) and creates a context; does not make it current.
 * Returns 0, or INTEL_TEST_SKIP when no EGL device gives the requested API. */
int gltest_create(struct gltest *t, int kind, int width, int height);
/* Makes it current and builds the framebuffer, shaders and buffers (idempotent per thread). */
int gltest_make_current(struct gltest *t);
void gltest_release(struct gltest *t);
void gltest_destroy(struct gltest *t);

/* Known work. Iterations: fragment shader loop count (0: trivial shading). */
void gltest_draw_triangles(struct gltest *t, int n, int iterations);
void gltest_draw_quad(struct gltest *t, int iterations);

/* 1 if the current context lists `name` in glGetStringi(GL_EXTENSIONS). */
int gltest_has_extension(struct gltest *t, const char *name);

/* INTEL helpers: the query id of a type by name (0 if absent, error cleared); the index (0-based)
 * of a counter by name in a type, -1 if absent; read one UINT64 / UINT32 counter from a result
 * using the offsets GetPerfCounterInfo gives. */
GLuint gltest_query_id(struct gltest *t, const char *name);
int gltest_counter_index(struct gltest *t, GLuint query_id, const char *name);
uint64_t gltest_counter_u64(struct gltest *t, GLuint query_id, const char *name,
                            const void *data);
/* The result with WAIT into data (size bytes); returns bytesWritten. */
GLuint gltest_result_wait(struct gltest *t, GLuint handle, void *data, GLuint size);

/* Monotonic clock, ns. */
uint64_t gltest_now_ns(void);

#endif
