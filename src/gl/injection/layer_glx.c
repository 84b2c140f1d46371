/*
 * GLX entry points the layer must see: glXGetProcAddress(ARB) and the context lifetime calls.
 * Handles are kept opaque (void *, unsigned long: wrappers.h declares them from dispatch.h's
 * types) so that the layer needs no Xlib headers; the ABI is that of <GL/glx.h>. glvnd's
 * __glx_Main is never defined here.
 */
#include "gl/contexts/layer_internal.h"

typedef void (*glx_proc)(void);

static glx_proc get_proc(const GLubyte *name)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (name) {
        glx_proc own = perfq_gl_entry_point((const char *)name);
        if (own)
            return own;
    }
    if (gl->glXGetProcAddressARB)
        return gl->glXGetProcAddressARB(name);
    return gl->glXGetProcAddress ? gl->glXGetProcAddress(name) : NULL;
}

glx_proc glXGetProcAddressARB(const GLubyte *name)
{
    return get_proc(name);
}

glx_proc glXGetProcAddress(const GLubyte *name)
{
    return get_proc(name);
}

void *glXCreateContext(void *dpy, void *vis, void *share, int direct)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    void *c = gl->glXCreateContext ? gl->glXCreateContext(dpy, vis, share, direct) : NULL;
    if (c)
        perfq_gl_share_group_join(perfq_gl_context_lookup(c, 1, PERFQ_GL_WS_GLX, dpy),
                                  perfq_gl_context_lookup(share, 0, PERFQ_GL_WS_GLX, dpy));
    return c;
}

void *glXCreateNewContext(void *dpy, void *config, int type, void *share, int direct)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    void *c = gl->glXCreateNewContext ?
        gl->glXCreateNewContext(dpy, config, type, share, direct) : NULL;
    if (c)
        perfq_gl_share_group_join(perfq_gl_context_lookup(c, 1, PERFQ_GL_WS_GLX, dpy),
                                  perfq_gl_context_lookup(share, 0, PERFQ_GL_WS_GLX, dpy));
    return c;
}

void *glXCreateContextAttribsARB(void *dpy, void *config, void *share, int direct,
                                 const int *attribs)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    void *c = gl->glXCreateContextAttribsARB ?
        gl->glXCreateContextAttribsARB(dpy, config, share, direct, attribs) : NULL;
    if (c)
        perfq_gl_share_group_join(perfq_gl_context_lookup(c, 1, PERFQ_GL_WS_GLX, dpy),
                                  perfq_gl_context_lookup(share, 0, PERFQ_GL_WS_GLX, dpy));
    return c;
}

void glXDestroyContext(void *dpy, void *ctx)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->glXDestroyContext)
        return;
    int done = perfq_gl_context_destroy_if_idle(ctx);
    gl->glXDestroyContext(dpy, ctx);
    if (!done)
        perfq_gl_context_destroyed(ctx);
}

int glXMakeCurrent(void *dpy, unsigned long drawable, void *ctx)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->glXMakeCurrent)
        return 0;
    perfq_gl_context_before_switch(ctx);
    int ok = gl->glXMakeCurrent(dpy, drawable, ctx);
    if (ok)
        perfq_gl_context_made_current(ctx, PERFQ_GL_WS_GLX, dpy);
    else
        perfq_gl_context_switch_failed();
    return ok;
}

int glXMakeContextCurrent(void *dpy, unsigned long draw, unsigned long read, void *ctx)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->glXMakeContextCurrent)
        return 0;
    perfq_gl_context_before_switch(ctx);
    int ok = gl->glXMakeContextCurrent(dpy, draw, read, ctx);
    if (ok)
        perfq_gl_context_made_current(ctx, PERFQ_GL_WS_GLX, dpy);
    else
        perfq_gl_context_switch_failed();
    return ok;
}

void glXSwapBuffers(void *dpy, unsigned long drawable)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_SWAPS, 0)) {
        struct perfq_gl_ctx *c = perfq_gl_active_context();
        if (c && c->pub.window_system == PERFQ_GL_WS_GLX)
            perfq_gl_observe_swap(c);
    }
    if (gl->glXSwapBuffers)
        gl->glXSwapBuffers(dpy, drawable);
}
