/*
 * Helpers for the GL layer tests: a headless EGL context (surfaceless Mesa platform, else the
 * first EGL device through EGL_EXT_platform_device, else the default display) of one of three
 * kinds (desktop compatibility, desktop core, GLES 3), an offscreen framebuffer, known work, and
 * every GL function fetched through eglGetProcAddress as an unmodified program would, so that the
 * layer's entry points are what runs.
 */
#ifndef PERFQ_TESTS_GL_TEST_H
#define PERFQ_TESTS_GL_TEST_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>

#include "perfq/angle_timer_query.h"

#define GLT_SKIP 77

typedef void (*t_voidfn)(void);
typedef const GLubyte *(*t_getstring)(GLenum);
typedef GLenum (*t_geterror)(void);
typedef void (*t_getintegerv)(GLenum, GLint *);
typedef void (*t_enum)(GLenum);
typedef void (*t_clearcolor)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*t_viewport)(GLint, GLint, GLsizei, GLsizei);
typedef void (*t_drawarrays)(GLenum, GLint, GLsizei);
typedef void (*t_clear)(GLbitfield);
typedef void (*t_getqueryobjectui64v)(GLuint, GLenum, GLuint64 *);

#define GLT_FUNCTIONS(X) \
    X(t_geterror, glGetError) \
    X(t_getstring, glGetString) \
    X(PFNGLGETSTRINGIPROC, glGetStringi) \
    X(t_getintegerv, glGetIntegerv) \
    X(PFNGLGETINTEGER64VPROC, glGetInteger64v) \
    X(t_voidfn, glFinish) \
    X(t_voidfn, glFlush) \
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
    X(PFNGLGETBUFFERSUBDATAPROC, glGetBufferSubData) \
    X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) \
    X(PFNGLGENQUERIESPROC, glGenQueries) \
    X(PFNGLDELETEQUERIESPROC, glDeleteQueries) \
    X(PFNGLISQUERYPROC, glIsQuery) \
    X(PFNGLBEGINQUERYPROC, glBeginQuery) \
    X(PFNGLENDQUERYPROC, glEndQuery) \
    X(PFNGLGETQUERYIVPROC, glGetQueryiv) \
    X(PFNGLGETQUERYOBJECTUIVPROC, glGetQueryObjectuiv) \
    X(t_getqueryobjectui64v, glGetQueryObjectui64v) \
    X(PFNGLQUERYCOUNTERPROC, glQueryCounter) \
    X(PFNGLBEGINCONDITIONALRENDERPROC, glBeginConditionalRender) \
    X(PFNGLENDCONDITIONALRENDERPROC, glEndConditionalRender) \
    X(PFNGLGENQUERIESANGLEPROC, glGenQueriesANGLE) \
    X(PFNGLDELETEQUERIESANGLEPROC, glDeleteQueriesANGLE) \
    X(PFNGLISQUERYANGLEPROC, glIsQueryANGLE) \
    X(PFNGLBEGINQUERYANGLEPROC, glBeginQueryANGLE) \
    X(PFNGLENDQUERYANGLEPROC, glEndQueryANGLE) \
    X(PFNGLQUERYCOUNTERANGLEPROC, glQueryCounterANGLE) \
    X(PFNGLGETQUERYIVANGLEPROC, glGetQueryivANGLE) \
    X(PFNGLGETQUERYOBJECTIVANGLEPROC, glGetQueryObjectivANGLE) \
    X(PFNGLGETQUERYOBJECTUIVANGLEPROC, glGetQueryObjectuivANGLE) \
    X(PFNGLGETQUERYOBJECTI64VANGLEPROC, glGetQueryObjecti64vANGLE) \
    X(PFNGLGETQUERYOBJECTUI64VANGLEPROC, glGetQueryObjectui64vANGLE)

struct glt_fns {
#define GLT_MEMBER(type, name) type name;
    GLT_FUNCTIONS(GLT_MEMBER)
#undef GLT_MEMBER
};

/* Loaded once by glt_open_display(); valid for any context (glvnd dispatch). */
extern struct glt_fns gl;

enum glt_kind { GLT_COMPAT = 0, GLT_CORE = 1, GLT_GLES3 = 2 };

struct glt {
    EGLDisplay dpy;
    EGLContext ctx;
    enum glt_kind kind;
    int width, height;
    GLuint fbo, rb, vao, prog;
    GLint u_mode, u_iters, u_count;
};

/* The kind named by argv ("--core", "--gles"; default compatibility). */
enum glt_kind glt_kind_from_args(int argc, char **argv);
const char *glt_kind_name(enum glt_kind kind);

/* The one order every GL test (this harness and tests/gl/intel's) picks its EGL display in: each
 * EGL device (EGL_EXT_platform_device: the GPUs, and Mesa's software device), then Mesa's
 * surfaceless platform, then the default display; GLT_PLATFORM=device or =surfaceless keeps
 * only that kind. Returns the first display that initialises and that accept(dpy, arg) takes
 * (NULL: any), or EGL_NO_DISPLAY. In gl_display.h too, for harnesses that include only that. */
EGLDisplay glt_choose_display(int (*accept)(EGLDisplay dpy, void *arg), void *arg);
/* 0, or GLT_SKIP when this machine has no EGL display. */
int glt_open_display(EGLDisplay *out);
/* Creates a context (sharing nothing), makes it current, builds the framebuffer and program. */
int glt_create(struct glt *t, EGLDisplay dpy, enum glt_kind kind, int width, int height);
void glt_destroy(struct glt *t);

/* n full-viewport quads (2 triangles each); iters > 0 makes each fragment do that much work. */
void glt_draw_quads(struct glt *t, int n, int iters);
/* n small triangles (3n vertices) that do not overlap each other, inside the viewport. */
void glt_draw_triangles(struct glt *t, int n);
/* Drains the GL error flag; returns the first error. */
GLenum glt_error(void);
int glt_has_extension(const char *name);
uint64_t glt_now_ns(void);

#endif
