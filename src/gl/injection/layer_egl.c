/*
 * EGL entry points the layer must see: eglGetProcAddress (so that the program gets the layer's
 * functions, also where the driver has a stub of the same name: glvnd returns one for any name)
 * and the context lifetime calls (share groups noted at creation: share_group.c). Display calls
 * are in egl_display.c. Each forwards to the real function and does its extra work
 * after success. glvnd's __egl_Main is never defined here.
 */
#include "gl/contexts/layer_internal.h"

#include <string.h>

PERFQ_GL_EXPORT __eglMustCastToProperFunctionPointerType eglGetProcAddress(const char *procname)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (procname) {
        void (*own)(void) = perfq_gl_entry_point(procname);
        if (own)
            return (__eglMustCastToProperFunctionPointerType)own;
    }
    if (!gl->eglGetProcAddress)
        return NULL;
    __eglMustCastToProperFunctionPointerType f = gl->eglGetProcAddress(procname);
    /* A NULL may be another interposer's, preloaded after perfq, whose dlsym(RTLD_NEXT) finds
     * no libEGL where the program loaded it itself, RTLD_LOCAL (ANGLE does): without perfq, the
     * program's lookup on its own handle never reached it (the fourteenth session's GL probe:
     * Chromium's GPU process failed so). libEGL's own answer is the program's then. */
    return f || !procname ? f : perfq_gl_egl_library_proc(procname);
}

PERFQ_GL_EXPORT EGLContext eglCreateContext(EGLDisplay dpy, EGLConfig config,
                                            EGLContext share_context, const EGLint *attrib_list)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->eglCreateContext)
        return EGL_NO_CONTEXT;
    perfq_gl_egl_call_wrapped();
    EGLContext c = gl->eglCreateContext(dpy, config, share_context, attrib_list);
    if (c != EGL_NO_CONTEXT)
        perfq_gl_share_group_join(perfq_gl_context_lookup(c, 1, PERFQ_GL_WS_EGL, dpy),
                                  perfq_gl_context_lookup(share_context, 0, PERFQ_GL_WS_EGL, dpy));
    return c;
}

PERFQ_GL_EXPORT EGLBoolean eglDestroyContext(EGLDisplay dpy, EGLContext ctx)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (!gl->eglDestroyContext)
        return EGL_FALSE;
    /* The layer finalises an idle context before the driver destroys it (its fences must not
     * outlive it), so it asks the driver first whether this call can succeed: eglQueryContext
     * makes the same display and context checks (EGL_BAD_DISPLAY, EGL_NOT_INITIALIZED,
     * EGL_BAD_CONTEXT). Where it fails, the layer leaves everything as it is and the driver's
     * call sets the error (issue 14 item 4: act on what the driver did). */
    EGLint unused = 0;
    int valid = !gl->eglQueryContext || gl->eglQueryContext(dpy, ctx, EGL_CONFIG_ID, &unused);
    int done = valid ? perfq_gl_context_destroy_if_idle(ctx) : 0;
    perfq_gl_egl_call_wrapped();    /* the driver's call sets the error, not the layer's calls */
    EGLBoolean ok = gl->eglDestroyContext(dpy, ctx);
    if (ok && !done)
        perfq_gl_context_destroyed(ctx);
    return ok;
}

PERFQ_GL_EXPORT EGLBoolean eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read,
                                          EGLContext ctx)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (!gl->eglMakeCurrent)
        return EGL_FALSE;
    perfq_gl_context_before_switch(ctx);
    perfq_gl_egl_call_wrapped();    /* the driver's call sets the error, not the layer's calls */
    EGLBoolean ok = gl->eglMakeCurrent(dpy, draw, read, ctx);
    if (ok)
        perfq_gl_context_made_current(ctx == EGL_NO_CONTEXT ? NULL : ctx, PERFQ_GL_WS_EGL, dpy);
    else
        perfq_gl_context_switch_failed();
    return ok;
}

PERFQ_GL_EXPORT EGLBoolean eglReleaseThread(void)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (!gl->eglReleaseThread)
        return EGL_FALSE;
    struct perfq_gl_ctx *cur = perfq_gl_tls_current;
    if (cur && cur->pub.window_system == PERFQ_GL_WS_EGL)
        perfq_gl_context_before_switch(NULL);
    perfq_gl_egl_call_wrapped();    /* the driver's call sets the error, not the layer's calls */
    EGLBoolean ok = gl->eglReleaseThread();
    if (ok && cur && cur->pub.window_system == PERFQ_GL_WS_EGL)
        perfq_gl_context_made_current(NULL, PERFQ_GL_WS_EGL, NULL);
    else if (cur && cur->pub.window_system == PERFQ_GL_WS_EGL)
        perfq_gl_context_switch_failed();
    return ok;
}

PERFQ_GL_EXPORT EGLBoolean eglTerminate(EGLDisplay dpy)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->eglTerminate)
        return EGL_FALSE;
    /* Contexts of the display that are current nowhere are finalised before the driver destroys
     * them; the others when they are released. */
    perfq_gl_egl_call_wrapped();
    perfq_gl_display_terminated(dpy);
    perfq_gl_display_destroyed(dpy);
    perfq_gl_egl_call_wrapped();    /* the driver's call sets the error, not the layer's calls */
    EGLBoolean ok = gl->eglTerminate(dpy);
    if (ok)
        perfq_gl_display_terminated_done(dpy);
    return ok;
}
