/*
 * The one harness of every GL test (tests/gl, tests/gl/intel, the stress, soak and fuzz suites,
 * bench/gl): an EGL display chosen in one order, a headless context of one of three kinds, an
 * offscreen framebuffer, known work, and every GL function fetched through eglGetProcAddress as
 * an unmodified program would, so that the layer's entry points are what runs.
 *
 * Use:
 *     struct glt t;
 *     int rc = glt_create_from_args(&t, argc, argv, 64, 64);  // --core, --gles, else compat:
 *     if (rc != 0)                                            // current on this thread
 *         return rc;                                          // GLT_SKIP (77) or a failure
 *     (or glt_open_display(&dpy), then glt_create(&t, dpy, kind, 64, 64) for more contexts)
 *     gl.glBeginQuery(...); glt_draw_triangles(&t, 10); ...    // `gl`: the one function table
 *     glt_destroy(&t);
 *
 * The unmodified programs run under LD_PRELOAD (preload_app, linked_app, memory_app,
 * brcm_preload_app) take only the display and the context from it (glt_choose_display,
 * glt_create_context) and fetch their own functions; dlopen_app, which opens libEGL itself, none.
 *
 * Skips: GLT_SKIP only where the machine lacks the piece (no EGL display, no context of the
 * kind), and the message names it. A wrapped EGL call that fails (eglMakeCurrent) or a GL
 * error while building the framebuffer and program is the layer broken: a failure (1).
 */
#ifndef PERFQ_TESTS_GL_TEST_H
#define PERFQ_TESTS_GL_TEST_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>

#include "perfq/angle_timer_query.h"
#include "perfq/egl_brcm_performance_counters.h"

/* The exit status meson reads as "skipped". */
#define GLT_SKIP 77

/* 1 in a ThreadSanitizer build: its runtime opens descriptors of its own (the symbolizer's
 * pipes, at the first suppressed report), which a descriptor count must allow for. */
#if defined(__SANITIZE_THREAD__)
#define PERFQ_TEST_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFQ_TEST_UNDER_TSAN 1
#endif
#endif
#ifndef PERFQ_TEST_UNDER_TSAN
#define PERFQ_TEST_UNDER_TSAN 0
#endif

typedef void (*t_voidfn)(void);
typedef const GLubyte *(*t_getstring)(GLenum);
typedef GLenum (*t_geterror)(void);
typedef void (*t_getintegerv)(GLenum, GLint *);
typedef void (*t_getbooleanv)(GLenum, GLboolean *);
typedef void (*t_enum)(GLenum);
typedef GLboolean (*t_isenabled)(GLenum);
typedef void (*t_clearcolor)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*t_viewport)(GLint, GLint, GLsizei, GLsizei);
typedef void (*t_drawarrays)(GLenum, GLint, GLsizei);
typedef void (*t_clear)(GLbitfield);
typedef void (*t_getqueryobjectui64v)(GLuint, GLenum, GLuint64 *);

/* Functions every context kind has (desktop GL 3.3 core and compatibility, GLES 3.0):
 * glt_open_display fails where eglGetProcAddress gives NULL for one. */
#define GLT_FUNCTIONS(X) \
    X(t_geterror, glGetError) \
    X(t_getstring, glGetString) \
    X(PFNGLGETSTRINGIPROC, glGetStringi) \
    X(t_getintegerv, glGetIntegerv) \
    X(PFNGLGETINTEGER64VPROC, glGetInteger64v) \
    X(t_getbooleanv, glGetBooleanv) \
    X(t_voidfn, glFinish) \
    X(t_voidfn, glFlush) \
    X(t_enum, glDisable) \
    X(t_enum, glEnable) \
    X(t_isenabled, glIsEnabled) \
    X(t_clear, glClear) \
    X(t_clearcolor, glClearColor) \
    X(t_viewport, glViewport) \
    X(t_drawarrays, glDrawArrays) \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) \
    X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
    X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers) \
    X(PFNGLCHECKFRAMEBUFFERSTATUSPROC, glCheckFramebufferStatus) \
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
    X(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) \
    X(PFNGLVERTEXATTRIBPOINTERPROC, glVertexAttribPointer) \
    X(PFNGLENABLEVERTEXATTRIBARRAYPROC, glEnableVertexAttribArray) \
    X(PFNGLGENQUERIESPROC, glGenQueries) \
    X(PFNGLDELETEQUERIESPROC, glDeleteQueries) \
    X(PFNGLISQUERYPROC, glIsQuery) \
    X(PFNGLBEGINQUERYPROC, glBeginQuery) \
    X(PFNGLENDQUERYPROC, glEndQuery) \
    X(PFNGLGETQUERYIVPROC, glGetQueryiv) \
    X(PFNGLGETQUERYOBJECTUIVPROC, glGetQueryObjectuiv)

/* Functions of one kind or one extension (the desktop-only ones, EXT_disjoint_timer_query's,
 * the layer's extensions): NULL where eglGetProcAddress has none; a test checks before use
 * where the kind may lack them. */
#define GLT_OPTIONAL_FUNCTIONS(X) \
    X(PFNGLGETBUFFERSUBDATAPROC, glGetBufferSubData) \
    X(t_getqueryobjectui64v, glGetQueryObjectui64v) \
    X(PFNGLGETQUERYOBJECTUI64VEXTPROC, glGetQueryObjectui64vEXT) \
    X(PFNGLQUERYCOUNTERPROC, glQueryCounter) \
    X(PFNGLBEGINCONDITIONALRENDERPROC, glBeginConditionalRender) \
    X(PFNGLENDCONDITIONALRENDERPROC, glEndConditionalRender) \
    X(PFNGLBEGINCONDITIONALRENDERNVPROC, glBeginConditionalRenderNV) \
    X(PFNGLENDCONDITIONALRENDERNVPROC, glEndConditionalRenderNV) \
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
    X(PFNGLGETQUERYOBJECTUI64VANGLEPROC, glGetQueryObjectui64vANGLE) \
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

struct glt_fns {
#define GLT_MEMBER(type, name) type name;
    GLT_FUNCTIONS(GLT_MEMBER)
    GLT_OPTIONAL_FUNCTIONS(GLT_MEMBER)
#undef GLT_MEMBER
};

/* Loaded once by glt_open_display(); valid in any context and on any thread (the entry points
 * eglGetProcAddress gives dispatch on the current context). */
extern struct glt_fns gl;

/* Desktop GL 3.3 compatibility profile, desktop GL 3.3 core profile, OpenGL ES 3.0 (at least:
 * drivers give the highest version of the kind). */
enum glt_kind { GLT_COMPAT = 0, GLT_CORE = 1, GLT_GLES3 = 2 };

struct glt {
    EGLDisplay dpy;
    EGLContext ctx;
    enum glt_kind kind;
    int width, height;
    GLuint fbo, rb, vao, prog;
    GLint u_mode, u_iters;
    char renderer[128];          /* GL_RENDERER */
};

/* The kind named by argv ("--core", "--gles", "--compat"; default compatibility). */
enum glt_kind glt_kind_from_args(int argc, char **argv);
/* "compat", "core" or "gles3". */
const char *glt_kind_name(enum glt_kind kind);

/* The one order every GL test picks its EGL display in: each EGL device
 * (EGL_EXT_platform_device: the GPUs, and Mesa's software device), then Mesa's surfaceless
 * platform, then the default display; GLT_PLATFORM=device or =surfaceless keeps only that kind.
 * Returns the first display that initialises and that accept(dpy, arg) takes (NULL: any), or
 * EGL_NO_DISPLAY. */
EGLDisplay glt_choose_display(int (*accept)(EGLDisplay dpy, void *arg), void *arg);
/* The process's display: the first in that order that initialises (chosen once, thread safe),
 * and the function table loaded. 0; GLT_SKIP where this machine has no EGL display; 1 where a
 * function every kind has is missing. */
int glt_open_display(EGLDisplay *out);
/* Another display than dpy (for tests of a second display): Mesa's surfaceless display, or
 * else the first EGL device's (Mesa has a software device). Not initialised. EGL_NO_DISPLAY,
 * with the reason on stderr, where EGL offers no other. */
EGLDisplay glt_other_display(EGLDisplay dpy);
/* Creates a context of the kind on dpy (sharing nothing, not made current; the API bound on this
 * thread): what glt_create starts with, for the unmodified programs that set up the rest as a
 * program would. 0 and *out; GLT_SKIP (the missing piece named) where the display gives none. */
/* 1 where error is how EGL refuses a context the driver does not offer (EGL_BAD_MATCH,
 * EGL_BAD_CONFIG, EGL_BAD_ATTRIBUTE: the test may skip, naming it); else 0 and a FAIL line naming
 * the call. */
int glt_egl_refusal(EGLint error, const char *call);

int glt_create_context(EGLDisplay dpy, enum glt_kind kind, EGLContext *out);
/* The same, in share's share group (EGL_NO_CONTEXT: sharing nothing). */
int glt_create_context_sharing(EGLDisplay dpy, enum glt_kind kind, EGLContext share,
                               EGLContext *out);
/* Creates a context of the kind on dpy (sharing nothing), makes it current on this thread and
 * builds the framebuffer (width x height, RGBA8), the program and a vertex array. 0; GLT_SKIP
 * where the display gives no context of the kind; 1 on a failure (eglMakeCurrent refused, a GL
 * error during the setup). */
int glt_create(struct glt *t, EGLDisplay dpy, enum glt_kind kind, int width, int height);
/* The usual start of a test: the process's display (glt_open_display), then glt_create of the
 * kind argv names (glt_kind_from_args). 0, GLT_SKIP or 1 as those return. */
int glt_create_from_args(struct glt *t, int argc, char **argv, int width, int height);
/* Makes t current on this thread (for a context released on another): 0, or -1 if refused. */
int glt_make_current(struct glt *t);
/* Makes no context current on this thread. */
void glt_release(struct glt *t);
/* Deletes the objects (making t current here) and destroys the context; releases this thread. */
void glt_destroy(struct glt *t);

/* Known work. n full-viewport quads (2 triangles each, one draw each); iters > 0 makes each
 * fragment loop that many times (a dependent chain the compiler cannot drop). */
void glt_draw_quads(struct glt *t, int n, int iters);
/* n small triangles in one draw (3n vertices, no vertex buffer: gl_VertexID), each in its cell
 * of a 36 x 36 grid, so none overlaps another (below 1296), all inside the viewport. */
void glt_draw_triangles(struct glt *t, int n);
/* Drains the GL error flag; returns the first error. */
GLenum glt_error(void);
/* 1 if the current context lists name in glGetStringi(GL_EXTENSIONS). */
int glt_has_extension(const char *name);
/* 1 if the current context has pipeline statistics queries (desktop GL 4.6, or
 * GL_ARB_pipeline_statistics_query): where it has none, a test of them asserts this is 0 before
 * it skips, so that a skip never hides the layer's failure to offer them. */
int glt_has_pipeline_statistics(void);
/* CLOCK_MONOTONIC, ns. */
uint64_t glt_now_ns(void);

/* GL_INTEL_performance_query helpers (current context): the query id of a type by name (0 if
 * absent, the error it raised drained); a type's data size (glGetPerfQueryInfoINTEL's
 * dataSize); the 0-based index of a counter by name in a type, -1 if
 * absent; one UINT32/UINT64 counter of a result read at the offset GetPerfCounterInfo gives
 * (UINT64_MAX if absent); the result with GL_PERFQUERY_WAIT_INTEL, returning bytesWritten. */
GLuint glt_intel_query_id(const char *name);
GLuint glt_intel_data_size(GLuint query_id);
int glt_intel_counter_index(GLuint query_id, const char *name);
uint64_t glt_intel_counter_u64(GLuint query_id, const char *name, const void *data);
GLuint glt_intel_result_wait(GLuint handle, void *data, GLuint size);

/* EGL_BRCM_performance_counters' six entry points, as the BRCM tests, the stress suite and the
 * fuzzer call them. */
struct glt_brcm {
    PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC GetConstant;
    PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC GetGroupInfo;
    PFNEGLGETPERFCOUNTERINFOBRCMPROC GetCounterInfo;
    PFNEGLSETPERFCOUNTINGBRCMPROC SetCounting;
    PFNEGLCHOOSEPERFCOUNTERSBRCMPROC Choose;
    PFNEGLGETPERFCOUNTERDATABRCMPROC GetData;
};

/* Fetches them through eglGetProcAddress (EGL functions: no display or context needed); NULL
 * where there is none, for the caller to check. */
void glt_brcm_load(struct glt_brcm *b);
/* The index of a group by name, and of a counter by name in group g: -1 where there is none, or
 * where the info call of any index below the count failed (the layer broken: every one is
 * asked). */
EGLint glt_brcm_group(const struct glt_brcm *b, const char *name);
EGLint glt_brcm_counter(const struct glt_brcm *b, EGLint g, const char *name);

#endif
