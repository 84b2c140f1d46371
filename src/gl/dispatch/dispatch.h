/*
 * The real driver functions, looked up once (pthread_once) and called through this table
 * (apitrace's lookup order: dlsym(RTLD_NEXT), then the library sonames, then the real
 * eglGetProcAddress / glXGetProcAddressARB). Members are named exactly as the GL/EGL/GLX entry
 * points. A member is NULL where no library provides the function.
 *
 * Front ends may add a function they need by adding a line to PERFQ_GL_FUNCTIONS (any owner may:
 * keep it sorted by group); a W line also makes the layer wrap it (see below).
 */
#ifndef PERFQ_GL_DISPATCH_H
#define PERFQ_GL_DISPATCH_H

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <stddef.h>

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
/* Compatibility-profile immediate mode (layer_immediate.c). */
typedef void (*perfq_PFNGLBEGINPROC)(GLenum);
typedef void (*perfq_PFNGLRECTDPROC)(GLdouble, GLdouble, GLdouble, GLdouble);
typedef void (*perfq_PFNGLRECTFPROC)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*perfq_PFNGLRECTIPROC)(GLint, GLint, GLint, GLint);
typedef void (*perfq_PFNGLRECTSPROC)(GLshort, GLshort, GLshort, GLshort);
typedef void (*perfq_PFNGLRECTDVPROC)(const GLdouble *, const GLdouble *);
typedef void (*perfq_PFNGLRECTFVPROC)(const GLfloat *, const GLfloat *);
typedef void (*perfq_PFNGLRECTIVPROC)(const GLint *, const GLint *);
typedef void (*perfq_PFNGLRECTSVPROC)(const GLshort *, const GLshort *);
typedef void (*perfq_PFNGLCALLLISTPROC)(GLuint);
typedef void (*perfq_PFNGLCALLLISTSPROC)(GLsizei, GLenum, const void *);
typedef void (*perfq_PFNGLNEWLISTPROC)(GLuint, GLenum);
typedef void (*perfq_PFNGLENDLISTPROC)(void);
typedef void (*perfq_PFNGLFINISHPROC)(void);
typedef void (*perfq_PFNGLDRAWARRAYSPROC)(GLenum, GLint, GLsizei);
typedef void (*perfq_PFNGLCLEARPROC)(GLbitfield);
typedef void (*perfq_PFNGLCLEARCOLORPROC)(GLfloat, GLfloat, GLfloat, GLfloat);
typedef void (*perfq_PFNGLCOLORMASKPROC)(GLboolean, GLboolean, GLboolean, GLboolean);
typedef GLboolean (*perfq_PFNGLISENABLEDPROC)(GLenum);
typedef void (*perfq_PFNGLENABLEPROC)(GLenum);
typedef void (*perfq_PFNGLDRAWELEMENTSPROC)(GLenum, GLsizei, GLenum, const void *);
typedef void (*perfq_PFNGLTEXSUBIMAGE2DPROC)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei,
                                             GLenum, GLenum, const void *);
typedef void (*perfq_PFNGLGENTEXTURESPROC)(GLsizei, GLuint *);
typedef void (*perfq_PFNGLDELETETEXTURESPROC)(GLsizei, const GLuint *);
typedef void (*perfq_PFNGLCOPYTEXIMAGE1DPROC)(GLenum, GLint, GLenum, GLint, GLint, GLsizei,
                                              GLint);
typedef void (*perfq_PFNGLCOPYTEXIMAGE2DPROC)(GLenum, GLint, GLenum, GLint, GLint, GLsizei,
                                              GLsizei, GLint);
typedef void (*perfq_PFNGLTEXIMAGE1DPROC)(GLenum, GLint, GLint, GLsizei, GLint, GLenum, GLenum,
                                          const void *);
typedef void (*perfq_PFNGLTEXIMAGE2DPROC)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum,
                                          GLenum, const void *);
typedef void (*perfq_PFNGLBINDTEXTUREPROC)(GLenum, GLuint);
typedef void (*perfq_PFNGLPOPATTRIBPROC)(void);
typedef void (*perfq_PFNGLBINDVERTEXARRAYOESPROC)(GLuint);
typedef void (*perfq_PFNGLTEXIMAGE3DOESPROC)(GLenum, GLint, GLenum, GLsizei, GLsizei, GLsizei,
                                             GLint, GLenum, GLenum, const void *);
typedef void (*perfq_PFNGLBUFFERSTORAGEEXTPROC)(GLenum, GLsizeiptr, const void *, GLbitfield);
typedef void (*perfq_PFNGLTEXBUFFEROESPROC)(GLenum, GLenum, GLuint);
typedef void (*perfq_PFNGLTEXBUFFERRANGEOESPROC)(GLenum, GLenum, GLuint, GLintptr, GLsizeiptr);
typedef void (*perfq_PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)(GLenum, GLeglImageOES);
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
typedef void (*perfq_PFNGLXSWAPBUFFERSPROC)(void *dpy, unsigned long drawable);

/*
 * The one list of GL/EGL/GLX functions the layer knows. Everything else comes from it:
 *   X(type, name)  a real function the layer calls (a member of struct perfq_gl_dispatch);
 *   W(type, name)  the same, and the layer also exports a wrapper of that name and type:
 *                  wrappers.h declares it (so the definition must match `type`), and
 *                  eglGetProcAddress / glXGetProcAddress(ARB) answer the name with it.
 *   L(type, name)  a W whose real function only its own wrapper calls, through
 *                  PERFQ_GL_WRAPPED_REAL: looked up at the wrapper's first call, not with the
 *                  table (most programs call few of these: the object, storage and draw
 *                  variants). Its member stays NULL until then: code other than its wrapper
 *                  must not read it (use W for a function the layer calls itself).
 * Adding a W or L line without defining the wrapper fails the link; defining an exported
 * wrapper without a W or L line fails -Wmissing-prototypes. Keep it sorted by group.
 */
#define PERFQ_GL_FUNCTIONS(X, W, L) \
    /* EGL */ \
    W(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress) \
    W(PFNEGLCREATECONTEXTPROC, eglCreateContext) \
    W(PFNEGLDESTROYCONTEXTPROC, eglDestroyContext) \
    W(PFNEGLMAKECURRENTPROC, eglMakeCurrent) \
    W(PFNEGLRELEASETHREADPROC, eglReleaseThread) \
    W(PFNEGLTERMINATEPROC, eglTerminate) \
    X(PFNEGLGETCURRENTCONTEXTPROC, eglGetCurrentContext) \
    X(PFNEGLGETCURRENTDISPLAYPROC, eglGetCurrentDisplay) \
    W(PFNEGLQUERYSTRINGPROC, eglQueryString) \
    X(PFNEGLQUERYCONTEXTPROC, eglQueryContext) \
    W(PFNEGLGETERRORPROC, eglGetError) \
    W(PFNEGLINITIALIZEPROC, eglInitialize) \
    W(PFNEGLSWAPBUFFERSPROC, eglSwapBuffers) \
    L(PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC, eglSwapBuffersWithDamageKHR) \
    L(PFNEGLSWAPBUFFERSWITHDAMAGEEXTPROC, eglSwapBuffersWithDamageEXT) \
    X(PFNEGLCREATESYNCKHRPROC, eglCreateSyncKHR) \
    X(PFNEGLDESTROYSYNCKHRPROC, eglDestroySyncKHR) \
    X(PFNEGLCLIENTWAITSYNCKHRPROC, eglClientWaitSyncKHR) \
    /* GLX */ \
    W(perfq_PFNGLXGETPROCADDRESSPROC, glXGetProcAddress) \
    W(perfq_PFNGLXGETPROCADDRESSPROC, glXGetProcAddressARB) \
    W(perfq_PFNGLXCREATECONTEXTPROC, glXCreateContext) \
    W(perfq_PFNGLXCREATENEWCONTEXTPROC, glXCreateNewContext) \
    W(perfq_PFNGLXCREATECONTEXTATTRIBSARBPROC, glXCreateContextAttribsARB) \
    W(perfq_PFNGLXDESTROYCONTEXTPROC, glXDestroyContext) \
    W(perfq_PFNGLXMAKECURRENTPROC, glXMakeCurrent) \
    W(perfq_PFNGLXMAKECONTEXTCURRENTPROC, glXMakeContextCurrent) \
    X(perfq_PFNGLXGETCURRENTCONTEXTPROC, glXGetCurrentContext) \
    X(perfq_PFNGLXGETCURRENTDISPLAYPROC, glXGetCurrentDisplay) \
    W(perfq_PFNGLXSWAPBUFFERSPROC, glXSwapBuffers) \
    /* GL state and errors */ \
    W(perfq_PFNGLGETERRORPROC, glGetError) \
    W(perfq_PFNGLGETSTRINGPROC, glGetString) \
    W(PFNGLGETSTRINGIPROC, glGetStringi) \
    W(perfq_PFNGLGETBOOLEANVPROC, glGetBooleanv) \
    W(perfq_PFNGLGETINTEGERVPROC, glGetIntegerv) \
    W(PFNGLGETINTEGER64VPROC, glGetInteger64v) \
    W(perfq_PFNGLGETINTEGER64VEXTPROC, glGetInteger64vEXT) \
    W(perfq_PFNGLGETFLOATVPROC, glGetFloatv) \
    W(perfq_PFNGLGETDOUBLEVPROC, glGetDoublev) \
    X(perfq_PFNGLFLUSHPROC, glFlush) \
    X(perfq_PFNGLFINISHPROC, glFinish) \
    W(PFNGLBINDBUFFERPROC, glBindBuffer) \
    L(PFNGLBINDBUFFERARBPROC, glBindBufferARB) \
    /* bindings the layer tracks (contexts/bindings.c, injection/layer_bindings.c): storage calls by target need no query */ \
    L(PFNGLBINDRENDERBUFFEREXTPROC, glBindRenderbufferEXT) \
    W(PFNGLACTIVETEXTUREPROC, glActiveTexture) \
    L(PFNGLACTIVETEXTUREARBPROC, glActiveTextureARB) \
    L(perfq_PFNGLBINDTEXTUREPROC, glBindTexture) \
    L(PFNGLBINDTEXTUREEXTPROC, glBindTextureEXT) \
    L(PFNGLBINDTEXTURESPROC, glBindTextures) \
    L(PFNGLBINDTEXTUREUNITPROC, glBindTextureUnit) \
    L(PFNGLBINDMULTITEXTUREEXTPROC, glBindMultiTextureEXT) \
    L(PFNGLBINDVERTEXARRAYPROC, glBindVertexArray) \
    L(PFNGLBINDVERTEXARRAYAPPLEPROC, glBindVertexArrayAPPLE) \
    L(perfq_PFNGLBINDVERTEXARRAYOESPROC, glBindVertexArrayOES) \
    L(perfq_PFNGLPOPATTRIBPROC, glPopAttrib) \
    L(perfq_PFNGLPOPATTRIBPROC, glPopClientAttrib) \
    W(perfq_PFNGLCLEARPROC, glClear) \
    X(perfq_PFNGLCLEARCOLORPROC, glClearColor) \
    X(perfq_PFNGLCOLORMASKPROC, glColorMask) \
    X(perfq_PFNGLISENABLEDPROC, glIsEnabled) \
    X(perfq_PFNGLENABLEPROC, glEnable) \
    X(perfq_PFNGLENABLEPROC, glDisable) \
    X(PFNGLDEBUGMESSAGEINSERTPROC, glDebugMessageInsert) \
    X(PFNGLDEBUGMESSAGEINSERTPROC, glDebugMessageInsertKHR) \
    X(PFNGLGENFRAMEBUFFERSPROC, glGenFramebuffers) \
    X(PFNGLDELETEFRAMEBUFFERSPROC, glDeleteFramebuffers) \
    X(PFNGLBINDFRAMEBUFFERPROC, glBindFramebuffer) \
    W(PFNGLBINDRENDERBUFFERPROC, glBindRenderbuffer) \
    X(PFNGLFRAMEBUFFERRENDERBUFFERPROC, glFramebufferRenderbuffer) \
    /* sub-uploads (bytes counted in the Driver Counters: injection/layer_draws_uploads.c) */ \
    W(PFNGLBUFFERSUBDATAPROC, glBufferSubData) \
    W(PFNGLNAMEDBUFFERSUBDATAPROC, glNamedBufferSubData) \
    L(perfq_PFNGLTEXSUBIMAGE2DPROC, glTexSubImage2D) \
    L(PFNGLTEXSUBIMAGE3DPROC, glTexSubImage3D) \
    L(PFNGLCOMPRESSEDTEXSUBIMAGE2DPROC, glCompressedTexSubImage2D) \
    /* objects (observed: buffers, textures, renderbuffers) */ \
    L(PFNGLGENBUFFERSPROC, glGenBuffers) \
    L(PFNGLCREATEBUFFERSPROC, glCreateBuffers) \
    L(PFNGLDELETEBUFFERSPROC, glDeleteBuffers) \
    L(PFNGLBUFFERDATAPROC, glBufferData) \
    L(PFNGLBUFFERSTORAGEPROC, glBufferStorage) \
    L(PFNGLNAMEDBUFFERDATAPROC, glNamedBufferData) \
    L(PFNGLNAMEDBUFFERSTORAGEPROC, glNamedBufferStorage) \
    L(perfq_PFNGLGENTEXTURESPROC, glGenTextures) \
    L(PFNGLCREATETEXTURESPROC, glCreateTextures) \
    L(perfq_PFNGLDELETETEXTURESPROC, glDeleteTextures) \
    L(perfq_PFNGLTEXIMAGE1DPROC, glTexImage1D) \
    L(perfq_PFNGLTEXIMAGE2DPROC, glTexImage2D) \
    L(PFNGLTEXIMAGE3DPROC, glTexImage3D) \
    L(PFNGLCOMPRESSEDTEXIMAGE1DPROC, glCompressedTexImage1D) \
    L(PFNGLCOMPRESSEDTEXIMAGE2DPROC, glCompressedTexImage2D) \
    L(PFNGLCOMPRESSEDTEXIMAGE3DPROC, glCompressedTexImage3D) \
    L(PFNGLTEXIMAGE2DMULTISAMPLEPROC, glTexImage2DMultisample) \
    L(PFNGLTEXIMAGE3DMULTISAMPLEPROC, glTexImage3DMultisample) \
    L(PFNGLTEXSTORAGE1DPROC, glTexStorage1D) \
    L(PFNGLTEXSTORAGE2DPROC, glTexStorage2D) \
    L(PFNGLTEXSTORAGE3DPROC, glTexStorage3D) \
    L(PFNGLTEXSTORAGE2DMULTISAMPLEPROC, glTexStorage2DMultisample) \
    L(PFNGLTEXSTORAGE3DMULTISAMPLEPROC, glTexStorage3DMultisample) \
    L(PFNGLTEXTURESTORAGE1DPROC, glTextureStorage1D) \
    L(PFNGLTEXTURESTORAGE2DPROC, glTextureStorage2D) \
    L(PFNGLTEXTURESTORAGE3DPROC, glTextureStorage3D) \
    L(PFNGLTEXTURESTORAGE2DMULTISAMPLEPROC, glTextureStorage2DMultisample) \
    L(PFNGLTEXTURESTORAGE3DMULTISAMPLEPROC, glTextureStorage3DMultisample) \
    W(PFNGLGENRENDERBUFFERSPROC, glGenRenderbuffers) \
    L(PFNGLCREATERENDERBUFFERSPROC, glCreateRenderbuffers) \
    W(PFNGLDELETERENDERBUFFERSPROC, glDeleteRenderbuffers) \
    W(PFNGLRENDERBUFFERSTORAGEPROC, glRenderbufferStorage) \
    L(PFNGLRENDERBUFFERSTORAGEMULTISAMPLEPROC, glRenderbufferStorageMultisample) \
    L(PFNGLNAMEDRENDERBUFFERSTORAGEPROC, glNamedRenderbufferStorage) \
    L(PFNGLNAMEDRENDERBUFFERSTORAGEMULTISAMPLEPROC, glNamedRenderbufferStorageMultisample) \
    /* more storage calls (ARB/EXT aliases; seen by the object observers) */ \
    L(PFNGLBUFFERDATAARBPROC, glBufferDataARB) \
    L(PFNGLDELETEBUFFERSARBPROC, glDeleteBuffersARB) \
    L(PFNGLNAMEDBUFFERDATAEXTPROC, glNamedBufferDataEXT) \
    L(PFNGLNAMEDBUFFERSTORAGEEXTPROC, glNamedBufferStorageEXT) \
    L(PFNGLCOMPRESSEDTEXIMAGE1DARBPROC, glCompressedTexImage1DARB) \
    L(PFNGLCOMPRESSEDTEXIMAGE2DARBPROC, glCompressedTexImage2DARB) \
    L(PFNGLCOMPRESSEDTEXIMAGE3DARBPROC, glCompressedTexImage3DARB) \
    L(perfq_PFNGLCOPYTEXIMAGE1DPROC, glCopyTexImage1D) \
    L(perfq_PFNGLCOPYTEXIMAGE2DPROC, glCopyTexImage2D) \
    L(PFNGLTEXSTORAGE1DEXTPROC, glTexStorage1DEXT) \
    L(PFNGLTEXSTORAGE2DEXTPROC, glTexStorage2DEXT) \
    L(PFNGLTEXSTORAGE3DEXTPROC, glTexStorage3DEXT) \
    L(PFNGLTEXTUREVIEWPROC, glTextureView) \
    L(PFNGLTEXBUFFERPROC, glTexBuffer) \
    L(PFNGLTEXBUFFERARBPROC, glTexBufferARB) \
    L(PFNGLTEXBUFFEREXTPROC, glTexBufferEXT) \
    L(PFNGLTEXBUFFERRANGEPROC, glTexBufferRange) \
    L(PFNGLTEXTUREBUFFERPROC, glTextureBuffer) \
    L(PFNGLTEXTUREBUFFERRANGEPROC, glTextureBufferRange) \
    L(PFNGLGENERATEMIPMAPPROC, glGenerateMipmap) \
    L(PFNGLGENERATEMIPMAPEXTPROC, glGenerateMipmapEXT) \
    L(PFNGLGENERATETEXTUREMIPMAPPROC, glGenerateTextureMipmap) \
    L(PFNGLRENDERBUFFERSTORAGEEXTPROC, glRenderbufferStorageEXT) \
    L(PFNGLRENDERBUFFERSTORAGEMULTISAMPLEEXTPROC, glRenderbufferStorageMultisampleEXT) \
    L(PFNGLDELETERENDERBUFFERSEXTPROC, glDeleteRenderbuffersEXT) \
    /* EXT_direct_state_access, GLES extension forms, EGLImage storage (layer_objects_ext.c) */ \
    L(PFNGLTEXTUREIMAGE1DEXTPROC, glTextureImage1DEXT) \
    L(PFNGLTEXTUREIMAGE2DEXTPROC, glTextureImage2DEXT) \
    L(PFNGLTEXTUREIMAGE3DEXTPROC, glTextureImage3DEXT) \
    L(PFNGLCOMPRESSEDTEXTUREIMAGE1DEXTPROC, glCompressedTextureImage1DEXT) \
    L(PFNGLCOMPRESSEDTEXTUREIMAGE2DEXTPROC, glCompressedTextureImage2DEXT) \
    L(PFNGLCOMPRESSEDTEXTUREIMAGE3DEXTPROC, glCompressedTextureImage3DEXT) \
    L(PFNGLTEXTURESTORAGE1DEXTPROC, glTextureStorage1DEXT) \
    L(PFNGLTEXTURESTORAGE2DEXTPROC, glTextureStorage2DEXT) \
    L(PFNGLTEXTURESTORAGE3DEXTPROC, glTextureStorage3DEXT) \
    L(PFNGLMULTITEXIMAGE1DEXTPROC, glMultiTexImage1DEXT) \
    L(PFNGLMULTITEXIMAGE2DEXTPROC, glMultiTexImage2DEXT) \
    L(PFNGLMULTITEXIMAGE3DEXTPROC, glMultiTexImage3DEXT) \
    L(PFNGLCOMPRESSEDMULTITEXIMAGE1DEXTPROC, glCompressedMultiTexImage1DEXT) \
    L(PFNGLCOMPRESSEDMULTITEXIMAGE2DEXTPROC, glCompressedMultiTexImage2DEXT) \
    L(PFNGLCOMPRESSEDMULTITEXIMAGE3DEXTPROC, glCompressedMultiTexImage3DEXT) \
    L(PFNGLGENERATEMULTITEXMIPMAPEXTPROC, glGenerateMultiTexMipmapEXT) \
    L(PFNGLMULTITEXBUFFEREXTPROC, glMultiTexBufferEXT) \
    L(perfq_PFNGLTEXIMAGE3DOESPROC, glTexImage3DOES) \
    L(perfq_PFNGLBUFFERSTORAGEEXTPROC, glBufferStorageEXT) \
    L(perfq_PFNGLTEXBUFFEROESPROC, glTexBufferOES) \
    L(perfq_PFNGLTEXBUFFERRANGEOESPROC, glTexBufferRangeOES) \
    L(perfq_PFNGLTEXBUFFERRANGEOESPROC, glTexBufferRangeEXT) \
    L(perfq_PFNGLEGLIMAGETARGETTEXTURE2DOESPROC, glEGLImageTargetTexture2DOES) \
    L(perfq_PFNGLEGLIMAGETARGETTEXTURE2DOESPROC, glEGLImageTargetRenderbufferStorageOES) \
    L(PFNGLEGLIMAGETARGETTEXSTORAGEEXTPROC, glEGLImageTargetTexStorageEXT) \
    L(PFNGLEGLIMAGETARGETTEXTURESTORAGEEXTPROC, glEGLImageTargetTextureStorageEXT) \
    X(PFNGLGETTEXTUREPARAMETERIVPROC, glGetTextureParameteriv) \
    X(PFNGLGETRENDERBUFFERPARAMETERIVPROC, glGetRenderbufferParameteriv) \
    X(PFNGLGETNAMEDRENDERBUFFERPARAMETERIVPROC, glGetNamedRenderbufferParameteriv) \
    /* immediate mode: the context's stamp points flush its buffered vertices first */ \
    L(perfq_PFNGLBEGINPROC, glBegin) \
    L(perfq_PFNGLRECTDPROC, glRectd) \
    L(perfq_PFNGLRECTFPROC, glRectf) \
    L(perfq_PFNGLRECTIPROC, glRecti) \
    L(perfq_PFNGLRECTSPROC, glRects) \
    L(perfq_PFNGLRECTDVPROC, glRectdv) \
    L(perfq_PFNGLRECTFVPROC, glRectfv) \
    L(perfq_PFNGLRECTIVPROC, glRectiv) \
    L(perfq_PFNGLRECTSVPROC, glRectsv) \
    L(perfq_PFNGLCALLLISTPROC, glCallList) \
    L(perfq_PFNGLCALLLISTSPROC, glCallLists) \
    /* display lists compiled: draws and clears in them are not observed (layer_immediate.c) */ \
    L(perfq_PFNGLNEWLISTPROC, glNewList) \
    L(perfq_PFNGLENDLISTPROC, glEndList) \
    /* draws (counted, observed) */ \
    W(perfq_PFNGLDRAWARRAYSPROC, glDrawArrays) \
    W(perfq_PFNGLDRAWELEMENTSPROC, glDrawElements) \
    L(PFNGLDRAWARRAYSINSTANCEDPROC, glDrawArraysInstanced) \
    L(PFNGLDRAWELEMENTSINSTANCEDPROC, glDrawElementsInstanced) \
    L(PFNGLDRAWRANGEELEMENTSPROC, glDrawRangeElements) \
    L(PFNGLDRAWARRAYSINDIRECTPROC, glDrawArraysIndirect) \
    L(PFNGLDRAWELEMENTSINDIRECTPROC, glDrawElementsIndirect) \
    L(PFNGLDRAWELEMENTSBASEVERTEXPROC, glDrawElementsBaseVertex) \
    L(PFNGLDRAWRANGEELEMENTSBASEVERTEXPROC, glDrawRangeElementsBaseVertex) \
    L(PFNGLDRAWELEMENTSINSTANCEDBASEVERTEXPROC, glDrawElementsInstancedBaseVertex) \
    L(PFNGLDRAWARRAYSINSTANCEDBASEINSTANCEPROC, glDrawArraysInstancedBaseInstance) \
    L(PFNGLDRAWELEMENTSINSTANCEDBASEINSTANCEPROC, glDrawElementsInstancedBaseInstance) \
    L(PFNGLDRAWELEMENTSINSTANCEDBASEVERTEXBASEINSTANCEPROC, \
      glDrawElementsInstancedBaseVertexBaseInstance) \
    /* conditional rendering */ \
    W(PFNGLBEGINCONDITIONALRENDERPROC, glBeginConditionalRender) \
    W(PFNGLENDCONDITIONALRENDERPROC, glEndConditionalRender) \
    W(PFNGLBEGINCONDITIONALRENDERNVPROC, glBeginConditionalRenderNV) \
    W(PFNGLENDCONDITIONALRENDERNVPROC, glEndConditionalRenderNV) \
    /* queries: core / ARB */ \
    X(PFNGLGENQUERIESPROC, glGenQueries) \
    X(PFNGLCREATEQUERIESPROC, glCreateQueries) \
    W(PFNGLDELETEQUERIESPROC, glDeleteQueries) \
    W(PFNGLISQUERYPROC, glIsQuery) \
    W(PFNGLBEGINQUERYPROC, glBeginQuery) \
    W(PFNGLENDQUERYPROC, glEndQuery) \
    W(PFNGLBEGINQUERYINDEXEDPROC, glBeginQueryIndexed) \
    W(PFNGLENDQUERYINDEXEDPROC, glEndQueryIndexed) \
    W(PFNGLQUERYCOUNTERPROC, glQueryCounter) \
    W(PFNGLGETQUERYIVPROC, glGetQueryiv) \
    W(PFNGLGETQUERYINDEXEDIVPROC, glGetQueryIndexediv) \
    W(PFNGLGETQUERYOBJECTIVPROC, glGetQueryObjectiv) \
    W(PFNGLGETQUERYOBJECTUIVPROC, glGetQueryObjectuiv) \
    W(PFNGLGETQUERYOBJECTI64VPROC, glGetQueryObjecti64v) \
    W(PFNGLGETQUERYOBJECTUI64VPROC, glGetQueryObjectui64v) \
    W(PFNGLGETQUERYBUFFEROBJECTIVPROC, glGetQueryBufferObjectiv) \
    W(PFNGLGETQUERYBUFFEROBJECTUIVPROC, glGetQueryBufferObjectuiv) \
    W(PFNGLGETQUERYBUFFEROBJECTI64VPROC, glGetQueryBufferObjecti64v) \
    W(PFNGLGETQUERYBUFFEROBJECTUI64VPROC, glGetQueryBufferObjectui64v) \
    X(PFNGLGENQUERIESARBPROC, glGenQueriesARB) \
    W(PFNGLDELETEQUERIESARBPROC, glDeleteQueriesARB) \
    W(PFNGLISQUERYARBPROC, glIsQueryARB) \
    W(PFNGLBEGINQUERYARBPROC, glBeginQueryARB) \
    W(PFNGLENDQUERYARBPROC, glEndQueryARB) \
    W(PFNGLGETQUERYIVARBPROC, glGetQueryivARB) \
    W(PFNGLGETQUERYOBJECTIVARBPROC, glGetQueryObjectivARB) \
    W(PFNGLGETQUERYOBJECTUIVARBPROC, glGetQueryObjectuivARB) \
    /* queries: GLES EXT_occlusion_query_boolean / EXT_disjoint_timer_query */ \
    X(PFNGLGENQUERIESARBPROC, glGenQueriesEXT) \
    W(PFNGLDELETEQUERIESARBPROC, glDeleteQueriesEXT) \
    W(PFNGLISQUERYARBPROC, glIsQueryEXT) \
    W(PFNGLBEGINQUERYARBPROC, glBeginQueryEXT) \
    W(PFNGLENDQUERYARBPROC, glEndQueryEXT) \
    W(PFNGLQUERYCOUNTERPROC, glQueryCounterEXT) \
    W(PFNGLGETQUERYIVARBPROC, glGetQueryivEXT) \
    W(PFNGLGETQUERYOBJECTIVARBPROC, glGetQueryObjectivEXT) \
    W(PFNGLGETQUERYOBJECTUIVARBPROC, glGetQueryObjectuivEXT) \
    W(PFNGLGETQUERYOBJECTI64VEXTPROC, glGetQueryObjecti64vEXT) \
    W(PFNGLGETQUERYOBJECTUI64VEXTPROC, glGetQueryObjectui64vEXT) \
    /* sync */ \
    X(PFNGLFENCESYNCPROC, glFenceSync) \
    X(PFNGLCLIENTWAITSYNCPROC, glClientWaitSync) \
    X(PFNGLDELETESYNCPROC, glDeleteSync)

struct perfq_gl_dispatch {
#define PERFQ_GL_MEMBER(type, name) type name;
    PERFQ_GL_FUNCTIONS(PERFQ_GL_MEMBER, PERFQ_GL_MEMBER, PERFQ_GL_MEMBER)
#undef PERFQ_GL_MEMBER
};

/* Per wrapped function (W and L): nonzero once its real function was looked up (W: with the
 * table; L: at its wrapper's first call), so that a function the driver lacks is looked up
 * once, not at every call. */
struct perfq_gl_dispatch_looked_up {
#define PERFQ_GL_NO_FLAG(type, name)
#define PERFQ_GL_FLAG(type, name) int name;
    PERFQ_GL_FUNCTIONS(PERFQ_GL_NO_FLAG, PERFQ_GL_FLAG, PERFQ_GL_FLAG)
#undef PERFQ_GL_FLAG
#undef PERFQ_GL_NO_FLAG
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

/* A wrapper's real function (a W or L line's name; any other fails to compile): the table's
 * member, looked up now if it was not yet (L). The table is resolved first. */
extern struct perfq_gl_dispatch_looked_up perfq_gl_real_looked_up;
void perfq_gl_resolve_wrapped(const char *name, size_t offset, int *looked_up);
#define PERFQ_GL_WRAPPED_REAL(name) \
    (__builtin_expect(__atomic_load_n(&perfq_gl_real_looked_up.name, __ATOMIC_ACQUIRE), 1) \
         ? __atomic_load_n(&perfq_gl_real_table.name, __ATOMIC_ACQUIRE) \
         : (perfq_gl_resolve_wrapped(#name, offsetof(struct perfq_gl_dispatch, name), \
                                     &perfq_gl_real_looked_up.name), \
            __atomic_load_n(&perfq_gl_real_table.name, __ATOMIC_ACQUIRE)))

/* Looks every L line's function up now (for benchmarks that call the real functions beside the
 * wrappers: bench/gl). */
void perfq_gl_resolve_wrapped_all(void);

/* After the program loaded libraries (the layer's dlopen): where a GL, EGL or GLX library is
 * there now that was not when the table was resolved (a program that touched GLX, then loaded
 * libEGL: waffle in eglretrace, SDL), the members still NULL are looked up again. Cheap when
 * nothing was loaded (one dl_iterate_phdr step). */
void perfq_gl_dispatch_refresh(void);

/* Resolves one more name the same way (for front ends' own needs). NULL if nowhere. */
void (*perfq_gl_resolve(const char *name))(void);

/* The real dlopen/dlsym, never the layer's wrapper. */
void *perfq_gl_real_dlopen(const char *file, int flags);
/* libEGL's own eglGetProcAddress(name), where the table's is another (an interposer preloaded
 * after perfq) and answered NULL; NULL where there is no other (dispatch.c). */
void (*perfq_gl_egl_library_proc(const char *name))(void);
void *perfq_gl_real_dlsym(void *handle, const char *name);
/* An Xlib function of the libX11 the program loaded (never loaded by the layer), or NULL. */
void *perfq_gl_x11_symbol(const char *name);

#endif
