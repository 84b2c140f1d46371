/*
 * The fence path for GLX contexts (gpu_timer.c): GL_ARB_sync fences are shared by a share group,
 * so the timer's helper thread waits on them with glClientWaitSync in a context of its own that
 * shares the program's context, current on a 1x1 pbuffer. To keep the program's X connection to
 * the program's threads (Xlib is not thread-safe without XInitThreads), the helper opens its own
 * connection to the same display. Mesa's GLX shares direct-rendering contexts across
 * connections of one process.
 *
 * OpenGL ES contexts made through GLX (GLX_EXT_create_context_es2_profile: eglretrace over
 * waffle/GLX, glxinfo's GLES section) have the same sync objects from ES 3.0 (glFenceSync,
 * glClientWaitSync, glDeleteSync are core there). Their helper context is an ES 3.0 context made
 * with glXCreateContextAttribsARB, so that it shares with the program's across the same API
 * (issue 14 item 13: without it such contexts had no GPU timer).
 *
 * Every GLX and Xlib function is the real one (the layer's own wrappers would take the helper's
 * context for a program context). Xlib is reached through libX11.so.6, which libGL loads.
 */
#include "gl/timing/glx_fence.h"

#include <stdlib.h>
#include <string.h>

/* GLX tokens (GL/glx.h would need Xlib's headers). */
#define PQ_GLX_FBCONFIG_ID 0x8013
#define PQ_GLX_DRAWABLE_TYPE 0x8010
#define PQ_GLX_RENDER_TYPE 0x8011
#define PQ_GLX_PBUFFER_BIT 0x00000004
#define PQ_GLX_RGBA_BIT 0x00000001
#define PQ_GLX_RGBA_TYPE 0x8014
#define PQ_GLX_PBUFFER_WIDTH 0x8041
#define PQ_GLX_PBUFFER_HEIGHT 0x8040
#define PQ_GLX_SCREEN 0x800C
#define PQ_GLX_CONTEXT_MAJOR_VERSION_ARB 0x2091
#define PQ_GLX_CONTEXT_MINOR_VERSION_ARB 0x2092
#define PQ_GLX_CONTEXT_PROFILE_MASK_ARB 0x9126
#define PQ_GLX_CONTEXT_ES2_PROFILE_BIT_EXT 0x0004

typedef void *(*x_open_fn)(const char *);
typedef int (*x_close_fn)(void *);
typedef char *(*x_string_fn)(void *);
typedef int (*x_free_fn)(void *);
typedef int (*glx_query_context_fn)(void *, void *, int, int *);
typedef void **(*glx_choose_fn)(void *, int, const int *, int *);
typedef unsigned long (*glx_pbuffer_fn)(void *, void *, const int *);
typedef void (*glx_destroy_pbuffer_fn)(void *, unsigned long);

struct perfq_gl_glx_waiter {
    void *dpy;              /* the helper's own X connection */
    void *ctx;              /* shares the program's context */
    unsigned long pbuffer;
    x_close_fn close_display;
    glx_destroy_pbuffer_fn destroy_pbuffer;
};

static void *glx_symbol(const char *name)
{
    void (*fn)(void) = perfq_gl_resolve(name);
    void *p;
    memcpy(&p, &fn, sizeof p);
    return p;
}

static int is_gles(const struct perfq_gl_ctx *c)
{
    return c->pub.api == PERFQ_GL_API_GLES;
}

int perfq_gl_glx_fences_possible(struct perfq_gl_ctx *c)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    int syncs = is_gles(c) ? perfq_gl_version_at_least(&c->pub, 3, 0)
                           : c->pub.api == PERFQ_GL_API_GL &&
                                 (perfq_gl_version_at_least(&c->pub, 3, 2) ||
                                  perfq_gl_has_driver_extension(&c->pub, "GL_ARB_sync"));
    return c->pub.window_system == PERFQ_GL_WS_GLX && syncs &&
           gl->glFenceSync && gl->glClientWaitSync && gl->glDeleteSync &&
           (is_gles(c) ? gl->glXCreateContextAttribsARB != NULL
                       : gl->glXCreateNewContext != NULL) &&
           gl->glXMakeContextCurrent && gl->glXDestroyContext;
}

struct perfq_gl_glx_waiter *perfq_gl_glx_waiter_create(struct perfq_gl_ctx *c)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    x_open_fn open_display = (x_open_fn)perfq_gl_x11_symbol("XOpenDisplay");
    x_close_fn close_display = (x_close_fn)perfq_gl_x11_symbol("XCloseDisplay");
    x_string_fn display_string = (x_string_fn)perfq_gl_x11_symbol("XDisplayString");
    x_free_fn x_free = (x_free_fn)perfq_gl_x11_symbol("XFree");
    glx_query_context_fn query_context = (glx_query_context_fn)glx_symbol("glXQueryContext");
    glx_choose_fn choose = (glx_choose_fn)glx_symbol("glXChooseFBConfig");
    glx_pbuffer_fn create_pbuffer = (glx_pbuffer_fn)glx_symbol("glXCreatePbuffer");
    glx_destroy_pbuffer_fn destroy_pbuffer =
        (glx_destroy_pbuffer_fn)glx_symbol("glXDestroyPbuffer");
    if (!open_display || !close_display || !display_string || !x_free || !query_context ||
        !choose || !create_pbuffer || !destroy_pbuffer || !c->pub.display)
        return NULL;
    int screen = 0;
    if (query_context(c->pub.display, c->pub.handle, PQ_GLX_SCREEN, &screen) != 0)
        screen = 0;
    struct perfq_gl_glx_waiter *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->close_display = close_display;
    w->destroy_pbuffer = destroy_pbuffer;
    w->dpy = open_display(display_string(c->pub.display));
    if (!w->dpy)
        goto fail;
    int attrs[] = {PQ_GLX_DRAWABLE_TYPE, PQ_GLX_PBUFFER_BIT, PQ_GLX_RENDER_TYPE, PQ_GLX_RGBA_BIT,
                   0};
    int n = 0;
    void **configs = choose(w->dpy, screen, attrs, &n);
    if (!configs || n < 1) {
        if (configs)
            x_free(configs);
        goto fail;
    }
    int pattrs[] = {PQ_GLX_PBUFFER_WIDTH, 1, PQ_GLX_PBUFFER_HEIGHT, 1, 0};
    if (is_gles(c)) {
        int es3[] = {PQ_GLX_CONTEXT_MAJOR_VERSION_ARB, 3, PQ_GLX_CONTEXT_MINOR_VERSION_ARB, 0,
                     PQ_GLX_CONTEXT_PROFILE_MASK_ARB, PQ_GLX_CONTEXT_ES2_PROFILE_BIT_EXT, 0};
        w->ctx = gl->glXCreateContextAttribsARB(w->dpy, configs[0], c->pub.handle, 1, es3);
    } else {
        w->ctx = gl->glXCreateNewContext(w->dpy, configs[0], PQ_GLX_RGBA_TYPE, c->pub.handle,
                                         1);
    }
    if (w->ctx)
        w->pbuffer = create_pbuffer(w->dpy, configs[0], pattrs);
    x_free(configs);
    if (!w->ctx || !w->pbuffer)
        goto fail;
    return w;
fail:
    perfq_gl_glx_waiter_destroy(w, gl);
    return NULL;
}

int perfq_gl_glx_waiter_bind(struct perfq_gl_glx_waiter *w, const struct perfq_gl_dispatch *gl)
{
    return w && gl->glXMakeContextCurrent(w->dpy, w->pbuffer, w->pbuffer, w->ctx) ? 0 : -1;
}

void perfq_gl_glx_waiter_unbind(struct perfq_gl_glx_waiter *w, const struct perfq_gl_dispatch *gl)
{
    if (w)
        gl->glXMakeContextCurrent(w->dpy, 0, 0, NULL);
}

void perfq_gl_glx_waiter_destroy(struct perfq_gl_glx_waiter *w,
                                 const struct perfq_gl_dispatch *gl)
{
    if (!w)
        return;
    if (w->pbuffer)
        w->destroy_pbuffer(w->dpy, w->pbuffer);
    if (w->ctx)
        gl->glXDestroyContext(w->dpy, w->ctx);
    if (w->dpy)
        w->close_display(w->dpy);
    free(w);
}
