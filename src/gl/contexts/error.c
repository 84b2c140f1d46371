/*
 * GL errors: the layer's own errors reach the program through the wrapped glGetError, and the
 * layer's internal GL calls never leak theirs nor swallow the program's.
 *
 * GL 4.6 section 2.3.1: "When an error is detected, a flag is set and the code is recorded.
 * Further errors, if they occur, do not affect this recorded code. When GetError is called, the
 * code is returned and the flag is cleared". The layer keeps one pending code per context: the
 * first error not yet returned, either its own or one it took from the driver (by calling the
 * real glGetError) before making calls of its own. With one held, the driver's flag (clear when
 * it was taken) may record a later error of the program's, which a single flag would have
 * dropped: the wrapped glGetError drops it as it returns the held one.
 */
#include "gl/contexts/layer_internal.h"

/* Takes the driver's pending error into the context's slot (first one wins). */
static void harvest(struct perfq_gl_ctx *c)
{
    if (!c->pub.gl->glGetError)
        return;
    GLenum e = c->pub.gl->glGetError();
    if (e != GL_NO_ERROR) {
        perfq_gl_bindings_forget(c);        /* a bind may be what failed */
        if (c->pending_error == GL_NO_ERROR)
            c->pending_error = e;
    }
}

void perfq_gl_record_error(struct perfq_gl_context *pub, GLenum error)
{
    if (!pub || error == GL_NO_ERROR)
        return;
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    /* Each error raised is a debug message, as the driver's are, kept for glGetError or not. */
    perfq_gl_debug_output_error(c, error);
    if (c->pending_error != GL_NO_ERROR)
        return;
    /* An error the driver recorded earlier came first. */
    harvest(c);
    if (c->pending_error == GL_NO_ERROR)
        c->pending_error = error;
}

void perfq_gl_error_guard_begin(struct perfq_gl_context *pub)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (c->guard_depth++ == 0)
        harvest(c);
}

GLenum perfq_gl_error_guard_end(struct perfq_gl_context *pub)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    GLenum first = GL_NO_ERROR;
    if (c->pub.gl->glGetError) {
        /* Drain: the bracketed calls' errors are the layer's, never the program's. */
        for (int i = 0; i < 8; i++) {
            GLenum e = c->pub.gl->glGetError();
            if (e == GL_NO_ERROR)
                break;
            if (first == GL_NO_ERROR)
                first = e;
        }
    }
    if (c->guard_depth > 0)
        c->guard_depth--;
    return first;
}

/* Runs a program's call through the driver and says whether the driver raised an error for it,
 * keeping that error for the program. Used where the layer must know whether a call was
 * accepted (program_queries.c). */
void perfq_gl_call_checked_begin(struct perfq_gl_ctx *c)
{
    harvest(c);
}

void perfq_gl_call_error_seen(struct perfq_gl_ctx *c, GLenum e)
{
    perfq_gl_bindings_forget(c);            /* the error may be an earlier bind's */
    if (c->pending_error == GL_NO_ERROR)
        c->pending_error = e;
}

GLenum perfq_gl_call_checked_end(struct perfq_gl_ctx *c)
{
    if (!c->pub.gl->glGetError)
        return GL_NO_ERROR;
    GLenum e = c->pub.gl->glGetError();
    if (e != GL_NO_ERROR)
        perfq_gl_call_error_seen(c, e);
    return e;
}

void perfq_gl_program_call_begin(struct perfq_gl_context *pub)
{
    perfq_gl_call_checked_begin(perfq_gl_ctx(pub));
}

GLenum perfq_gl_program_call_end(struct perfq_gl_context *pub)
{
    return perfq_gl_call_checked_end(perfq_gl_ctx(pub));
}

/* perfq_gl_call_repeatable_end (layer_internal.h, inline): one read instead of two, for a call
 * that the layer may run a second time with the same effect (docs/nv-query-resource.md, "The
 * error check"). The call has run; the driver's flag now holds either nothing (the call was
 * accepted and no earlier error was pending) or the first error since the flag was last read,
 * which may be the call's own or an earlier call's: it is kept for the program either way (first
 * one wins). */

/* After perfq_gl_call_repeatable_end returned an error and the layer ran the same call again
 * (the flag was clear before it): the second run's error is the call's own answer. It is the
 * layer's to read, never the program's (the program's first error is already kept). */
GLenum perfq_gl_call_repeat_end(struct perfq_gl_ctx *c)
{
    GLenum first = GL_NO_ERROR;
    if (!c->pub.gl->glGetError)
        return first;
    for (int i = 0; i < 8; i++) {
        GLenum e = c->pub.gl->glGetError();
        if (e == GL_NO_ERROR)
            break;
        if (first == GL_NO_ERROR)
            first = e;
    }
    return first;
}

PERFQ_GL_EXPORT GLenum glGetError(void)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->pending_error != GL_NO_ERROR) {
        GLenum e = c->pending_error;
        c->pending_error = GL_NO_ERROR;
        /* One flag, as the driver has: an error the driver recorded after the one held here
         * (the driver's flag was clear when it was taken) is one a single flag would have
         * dropped, so it is dropped now, with the held one returned. */
        if (gl->glGetError && gl->glGetError() != GL_NO_ERROR)
            perfq_gl_bindings_forget(c);    /* the dropped error may be a bind's */
        return e;
    }
    GLenum e = gl->glGetError ? gl->glGetError() : GL_NO_ERROR;
    if (c && e != GL_NO_ERROR)
        perfq_gl_bindings_forget(c);        /* the error may be a bind's (bindings.c) */
    return e;
}

/* ---- EGL ------------------------------------------------------------------------------------- */

/* The error a front end's EGL entry point left for this thread (EGL_SUCCESS: none). */
static PERFQ_GL_TLS EGLint egl_error = EGL_SUCCESS;

/* The program's EGL error the layer took from the driver before an EGL call of its own on this
 * thread (perfq_gl_egl_own_call; EGL_SUCCESS: none). Any EGL call of the program's the layer
 * sees replaces it. One it cannot see (an EGL function the layer does not wrap) that succeeds
 * after such a call leaves it standing, so the program's next eglGetError would return it
 * instead of EGL_SUCCESS: the one case this does not cover (docs/gl-layer.md). */
static PERFQ_GL_TLS EGLint taken_error = EGL_SUCCESS;

void perfq_gl_egl_record_error(EGLint error)
{
    egl_error = error;
    taken_error = EGL_SUCCESS;
}

void perfq_gl_egl_call_wrapped(void)
{
    egl_error = EGL_SUCCESS;
    taken_error = EGL_SUCCESS;
}

/* Nonzero while the layer works inside one of the program's EGL calls, before the real one
 * (eglSwapBuffers' observers): the real call sets the error the program reads next, so the
 * one pending before it is not kept (perfq_gl_egl_error_moot). */
static PERFQ_GL_TLS int egl_error_moot;

void perfq_gl_egl_error_moot(int moot)
{
    egl_error_moot = moot;
}

void perfq_gl_egl_own_call(void)
{
    if (egl_error_moot)
        return;     /* no eglGetError: one EGL call (and glvnd's getpid) less a frame */
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    EGLint driver = gl->eglGetError ? gl->eglGetError() : EGL_SUCCESS;
    if (driver != EGL_SUCCESS)
        taken_error = driver;
}

EGLint perfq_gl_egl_take_error(EGLint driver)
{
    EGLint taken = taken_error;
    taken_error = EGL_SUCCESS;
    /* A front end's entry point ran after the driver's last call: its error is the last one
     * (the driver's pending one was read by the caller, so it is cleared too, as the spec
     * says). */
    if (egl_error != EGL_SUCCESS) {
        EGLint e = egl_error;
        egl_error = EGL_SUCCESS;
        return e;
    }
    /* The driver's, from a call of the program's since the layer's own: the last one. Else the
     * one the layer took before its own calls. */
    return driver != EGL_SUCCESS ? driver : taken;
}
