/*
 * The EGL calls display-scoped front ends need: eglInitialize and eglTerminate (layer_egl.c)
 * bound a display's life (EGL 1.5 section 3.2: the records are contexts/display.c's),
 * eglQueryString(dpy, EGL_EXTENSIONS) gains the front ends' display extensions (section 3.3),
 * eglGetError returns a front end's error (section 3.1: the channel is contexts/error.c's),
 * eglSwapBuffers and its two damage variants are observed (section 3.10.1).
 */
#include "gl/contexts/layer_internal.h"

EGLint eglGetError(void)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    EGLint driver = gl->eglGetError ? gl->eglGetError() : EGL_SUCCESS;
    return perfq_gl_egl_take_error(driver);
}

/* ---- wrapped calls --------------------------------------------------------------------------- */

EGLBoolean eglInitialize(EGLDisplay dpy, EGLint *major, EGLint *minor)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (!gl->eglInitialize)
        return EGL_FALSE;
    EGLBoolean ok = gl->eglInitialize(dpy, major, minor);
    if (ok)
        perfq_gl_display_initialized(dpy);
    return ok;
}

const char *eglQueryString(EGLDisplay dpy, EGLint name)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (!gl->eglQueryString)
        return NULL;
    const char *s = gl->eglQueryString(dpy, name);
    /* Display extensions only: EGL_NO_DISPLAY's string is the client extensions. */
    if (!s || name != EGL_EXTENSIONS || dpy == EGL_NO_DISPLAY)
        return s;
    const char *all = perfq_gl_display_extensions(dpy, s);
    return all ? all : s;
}

/* A frame of the current context ends: the swap observers run before the real swap. */
static void swap_observed(void)
{
    perfq_gl_egl_call_wrapped();
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_SWAPS, 0)) {
        struct perfq_gl_ctx *c = perfq_gl_active_context();
        if (c && c->pub.window_system == PERFQ_GL_WS_EGL) {
            /* The observers' own EGL calls (a frame's fence) need not keep the program's
             * pending error: this call's is the one that counts. */
            perfq_gl_egl_error_moot(1);
            perfq_gl_observe_swap(c);
            perfq_gl_egl_error_moot(0);
        }
        perfq_gl_egl_call_wrapped();
    }
}

EGLBoolean eglSwapBuffers(EGLDisplay dpy, EGLSurface surface)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    swap_observed();
    return gl->eglSwapBuffers ? gl->eglSwapBuffers(dpy, surface) : EGL_FALSE;
}

/* The swaps with damage rectangles (EGL_KHR_swap_buffers_with_damage,
 * EGL_EXT_swap_buffers_with_damage) end a frame as eglSwapBuffers does: toolkits and browsers
 * (GTK 4, Qt on Wayland, Chromium, Firefox) present with them wherever the display has them,
 * and without these wrappers their frames went uncounted. eglGetProcAddress answers these names
 * with the wrappers only where the driver answers them too (entry_points.c). */
EGLBoolean eglSwapBuffersWithDamageKHR(EGLDisplay dpy, EGLSurface surface, const EGLint *rects,
                                       EGLint n_rects)
{
    __typeof__(perfq_gl_real_table.eglSwapBuffersWithDamageKHR) real =
        PERFQ_GL_WRAPPED_REAL(eglSwapBuffersWithDamageKHR);
    if (!real)
        return EGL_FALSE;
    swap_observed();
    return real(dpy, surface, rects, n_rects);
}

EGLBoolean eglSwapBuffersWithDamageEXT(EGLDisplay dpy, EGLSurface surface, const EGLint *rects,
                                       EGLint n_rects)
{
    __typeof__(perfq_gl_real_table.eglSwapBuffersWithDamageEXT) real =
        PERFQ_GL_WRAPPED_REAL(eglSwapBuffersWithDamageEXT);
    if (!real)
        return EGL_FALSE;
    swap_observed();
    return real(dpy, surface, rects, n_rects);
}
