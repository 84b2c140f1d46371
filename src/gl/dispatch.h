/*
 * The real driver functions, looked up once (pthread_once) and called through this table
 * (apitrace's lookup order: dlsym(RTLD_NEXT), then the library sonames, then the real
 * eglGetProcAddress / glXGetProcAddressARB). Members are named exactly as the GL/EGL/GLX entry
 * points. A member is NULL where no library provides the function.
 *
 * Front ends may add a function they need by adding a line to PERFQ_GL_FUNCTIONS (any owner may:
 * keep it sorted by group).
 */
#ifndef PERFQ_GL_DISPATCH_H
#define PERFQ_GL_DISPATCH_H

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

/* Typedefs the Khronos headers lack or name differently. */
typedef void (*perfq_PFNGLGETBOOLEANVPROC)(GLenum, GLboolean *);
typedef void (*perfq_PFNGLGETINTEGERVPROC)(GLenum, GLint *);
typedef void (*perfq_PFNGLGETFLOATVPROC)(GLenum, GLfloat *);
typedef void (*perfq_PFNGLGETDOUBLEVPROC)(GLenum, GLdouble *);
typedef void (*perfq_PFNGLGETINTEGER64VEXTPROC)(GLenum, GLint64 *);
typedef const GLubyte *(*perfq_PFNGLGETSTRINGPROC)(GLenum);
typedef GLenum (*perfq_PFNGLGETERRORPROC)(void);
typedef void (*perfq_PFNGLFLUSHPROC)(void);
typedef void (*perfq_PFNGLFINISHPROC)(void);
typedef void (*perfq_PFNGLDRAWARRAYSPROC)(GLenum, GLint, GLsizei);
typedef void (*perfq_PFNGLCLEARPROC)(GLbitfield);
typedef void (*perfq_PFNGLCLEARCOLORPROC)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*perfq_PFNGLCOLORMASKPROC)(GLboolean, GLboolean, GLboolean, GLboolean);
typedef GLboolean (*perfq_PFNGLISENABLEDPROC)(GLenum);
typedef void (*perfq_PFNGLENABLEPROC)(GLenum);
typedef void (*perfq_PFNGLDRAWELEMENTSPROC)(GLenum, GLsizei, GLenum, const void *);
typedef void (*perfq_PFNVOIDFN)(void);
typedef perfq_PFNVOIDFN (*perfq_PFNGLXGETPROCADDRESSPROC)(const GLubyte *);
/* GLX handles as opaque pointers so that this header needs no Xlib. */
typedef void *(*perfq_PFNGLXCREATECONTEXTPROC)(void *dpy, void *vis, void *share, int direct);
typedef void *(*perfq_PFNGLXCREATENEWCONTEXTPROC)(void *dpy, void *config, int type, void *share,
                                                  int direct);
typedef void *(*perfq_PFNGLXCREATECONTEXTATTRIBSARBPROC)(void *dpy, void *config, void *share,
                                                         int direct, const int *attribs);
typedef void (*perfq_PFNGLXDESTROYCONTEXTPROC)(void *dpy, void *ctx);
typedef int (*perfq_PFNGLXMAKECURRENTPROC)(void *dpy, unsigned long drawable, void *ctx);
typedef int (*perfq_PFNGLXMAKECONTEXTCURRENTPROC)(void *dpy, unsigned long draw,
                                                  unsigned long read, void *ctx);
typedef void *(*perfq_PFNGLXGETCURRENTCONTEXTPROC)(void);
typedef void *(*perfq_PFNGLXGETCURRENTDISPLAYPROC)(void);

/* X(type, name): every function the layer calls for real. */
#define PERFQ_GL_FUNCTIONS(X) \
    /* EGL */ \
    X(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress) \
    X(PFNEGLCREATECONTEXTPROC, eglCreateContext) \
    X(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext) \
    X(PFNEGLMAKECURRENTPROC, eglMakeCurrent) \
    X(PFNEGLRELEASETHREADPROC, eglReleaseThread) \
    X(PFNEGLTERMINATEPROC, eglTerminate) \
    X(PFNEGLGETCURRENTCONTEXTPROC, eglGetCurrentContext) \
    X(PFNEGLGETCURRENTDISPLAYPROC, eglGetCurrentDisplay) \
    X(PFNEGLQUERYSTRINGPROC, eglQueryString) \
    X(PFNEGLQUERYCONTEXTPROC, eglQueryContext) \
    X(PFNEGLGETERRORPROC, eglGetError) \
    X(PFNEGLCREATESYNCKHRPROC, eglCreateSyncKHR) \
    X(PFNEGLDESTROYSYNCKHRPROC, eglDestroySyncKHR) \
    X(PFNEGLCLIENTWAITSYNCKHRPROC, eglClientWaitSyncKHR) \
    /* GLX */ \
    X(perfq_PFNGLXGETPROCADDRESSPROC, glXGetProcAddress) \
    X(perfq_PFNGLXGETPROCADDRESSPROC, glXGetProcAddressARB) \
    X(perfq_PFNGLXCREATECONTEXTPROC, glXCreateContext) \
    X(perfq_PFNGLXCREATENEWCONTEXTPROC, glXCreateNewContext) \
    X(perfq_PFNGLXCREATECONTEXTATTRIBSARBPROC, glXCreateContextAttribsARB) \
    X(perfq_PFNGLXDESTROYCONTEXTPROC, glXDestroyContext) \
    X(perfq_PFNGLXMAKECURRENTPROC, glXMakeCurrent) \
    X(perfq_PFNGLXMAKECONTEXTCURRENTPROC, glXMakeContextCurrent) \
    X(perfq_PFNGLXGETCURRENTCONTEXTPROC, glXGetCurrentContext) \
    X(perfq_PFNGLXGETCURRENTDISPLAYPROC, glXGetCurrentDisplay) \
    /* GL state and errors */ \
    X(perfq_PFNGLGETERRORPROC, glGetError) \
    X(perfq_PFNGLGETSTRINGPROC, glGetString) \
    X(PFNGLGETSTRINGIPROC, glGetStringi) \
    X(perfq_PFNGLGETBOOLEANVPROC, glGetBooleanv) \
    X(perfq_PFNGLGETINTEGERVPROC, glGetIntegerv) \
    X(PFNGLGETINTEGER64VPROC, glGetInteger64v) \
    X(perfq_PFNGLGETINTEGER64VEXTPROC, glGetInteger64vEXT) \
    X(perfq_PFNGLGETFLOATVPROC, glGetFloatv) \
    X(perfq_PFNGLGETDOUBLEVPROC, glGetDoublev) \
    X(perfq_PFNGLFLUSHPROC, glFlush) \
    X(perfq_PFNGLFINISHPROC, glFinish) \
    X(PFNGLBINDBUFFERPROC, glBindBuffer) \
    X(PFNGLBINDBUFFERARBPROC, glBindBufferARB) \
    X(perfq_PFNGLCLEARPROC, glClear) \
    X(perfq_PFNGLCLEARCOLORPROC, glClearColor) \
    X(perfq_PFNGLCOLORMASKPROC, glColorMask) \
    X(perfq_PFNGLISENABLEDPROC, glIsEnabled) \
    X(perfq_PFNGLENABLEPROC, glEnable) \
    X(perfq_PFNGLENABLEPROC, glDisable) \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) \
    X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers) \
    X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
    X(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) \
    X(PFNGLDELETERENDERBUFFERSPROC, glDeleteRenderbuffers) \
    X(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer) \
    X(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage) \
    X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer) \
    X(PFNGLBUFFERSUBDATAPROC, glBufferSubData) \
    X(PFNGLNAMEDBUFFERSUBDATAPROC, glNamedBufferSubData) \
    /* draws (counted) */ \
    X(perfq_PFNGLDRAWARRAYSPROC, glDrawArrays) \
    X(perfq_PFNGLDRAWELEMENTSPROC, glDrawElements) \
    /* conditional rendering */ \
    X(PFNGLBEGINCONDITIONALRENDERPROC, glBeginConditionalRender) \
    X(PFNGLENDCONDITIONALRENDERPROC, glEndConditionalRender) \
    /* queries: core / ARB */ \
    X(PFNGLGENQUERIESPROC, glGenQueries) \
    X(PFNGLCREATEQUERIESPROC, glCreateQueries) \
    X(PFNGLDELETEQUERIESPROC, glDeleteQueries) \
    X(PFNGLISQUERYPROC, glIsQuery) \
    X(PFNGLBEGINQUERYPROC, glBeginQuery) \
    X(PFNGLENDQUERYPROC, glEndQuery) \
    X(PFNGLBEGINQUERYINDEXEDPROC, glBeginQueryIndexed) \
    X(PFNGLENDQUERYINDEXEDPROC, glEndQueryIndexed) \
    X(PFNGLQUERYCOUNTERPROC, glQueryCounter) \
    X(PFNGLGETQUERYIVPROC, glGetQueryiv) \
    X(PFNGLGETQUERYINDEXEDIVPROC, glGetQueryIndexediv) \
    X(PFNGLGETQUERYOBJECTIVPROC, glGetQueryObjectiv) \
    X(PFNGLGETQUERYOBJECTUIVPROC, glGetQueryObjectuiv) \
    X(PFNGLGETQUERYOBJECTI64VPROC, glGetQueryObjecti64v) \
    X(PFNGLGETQUERYOBJECTUI64VPROC, glGetQueryObjectui64v) \
    X(PFNGLGETQUERYBUFFEROBJECTIVPROC, glGetQueryBufferObjectiv) \
    X(PFNGLGETQUERYBUFFEROBJECTUIVPROC, glGetQueryBufferObjectuiv) \
    X(PFNGLGETQUERYBUFFEROBJECTI64VPROC, glGetQueryBufferObjecti64v) \
    X(PFNGLGETQUERYBUFFEROBJECTUI64VPROC, glGetQueryBufferObjectui64v) \
    X(PFNGLGENQUERIESARBPROC, glGenQueriesARB) \
    X(PFNGLDELETEQUERIESARBPROC, glDeleteQueriesARB) \
    X(PFNGLISQUERYARBPROC, glIsQueryARB) \
    X(PFNGLBEGINQUERYARBPROC, glBeginQueryARB) \
    X(PFNGLENDQUERYARBPROC, glEndQueryARB) \
    X(PFNGLGETQUERYIVARBPROC, glGetQueryivARB) \
    X(PFNGLGETQUERYOBJECTIVARBPROC, glGetQueryObjectivARB) \
    X(PFNGLGETQUERYOBJECTUIVARBPROC, glGetQueryObjectuivARB) \
    /* queries: GLES EXT_occlusion_query_boolean / EXT_disjoint_timer_query */ \
    X(PFNGLGENQUERIESARBPROC, glGenQueriesEXT) \
    X(PFNGLDELETEQUERIESARBPROC, glDeleteQueriesEXT) \
    X(PFNGLISQUERYARBPROC, glIsQueryEXT) \
    X(PFNGLBEGINQUERYARBPROC, glBeginQueryEXT) \
    X(PFNGLENDQUERYARBPROC, glEndQueryEXT) \
    X(PFNGLQUERYCOUNTERPROC, glQueryCounterEXT) \
    X(PFNGLGETQUERYIVARBPROC, glGetQueryivEXT) \
    X(PFNGLGETQUERYOBJECTIVARBPROC, glGetQueryObjectivEXT) \
    X(PFNGLGETQUERYOBJECTUIVARBPROC, glGetQueryObjectuivEXT) \
    X(PFNGLGETQUERYOBJECTI64VEXTPROC, glGetQueryObjecti64vEXT) \
    X(PFNGLGETQUERYOBJECTUI64VEXTPROC, glGetQueryObjectui64vEXT) \
    /* sync */ \
    X(PFNGLFENCESYNCPROC, glFenceSync) \
    X(PFNGLCLIENTWAITSYNCPROC, glClientWaitSync) \
    X(PFNGLDELETESYNCPROC, glDeleteSync)

struct perfq_gl_dispatch {
#define PERFQ_GL_MEMBER(type, name) type name;
    PERFQ_GL_FUNCTIONS(PERFQ_GL_MEMBER)
#undef PERFQ_GL_MEMBER
};

/* The table, resolved on first call (thread-safe). Never NULL. The check is inline: wrapped
 * draw calls pay one load and a branch for it. */
extern struct perfq_gl_dispatch perfq_gl_real_table;
extern int perfq_gl_real_table_ready;
const struct perfq_gl_dispatch *perfq_gl_dispatch_slow(void);
static inline const struct perfq_gl_dispatch *perfq_gl_dispatch(void)
{
    if (__builtin_expect(__atomic_load_n(&perfq_gl_real_table_ready, __ATOMIC_ACQUIRE), 1))
        return &perfq_gl_real_table;
    return perfq_gl_dispatch_slow();
}

/* Resolves one more name the same way (for front ends' own needs). NULL if nowhere. */
void (*perfq_gl_resolve(const char *name))(void);

/* The real dlopen/dlsym, never the layer's wrapper. */
void *perfq_gl_real_dlopen(const char *file, int flags);
void *perfq_gl_real_dlsym(void *handle, const char *name);

#endif
