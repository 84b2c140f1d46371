/*
 * EGL displays and the EGL calls display-scoped front ends need: eglInitialize and eglTerminate
 * bound a display's life (EGL 1.5 section 3.2), eglQueryString(dpy, EGL_EXTENSIONS) gains the
 * front ends' display extensions (section 3.3), eglGetError returns a front end's error
 * (section 3.1), eglSwapBuffers is observed (section 3.10.1).
 */
#include "gl/contexts/layer_internal.h"

#include <stdlib.h>
#include <string.h>

struct display {
    void *dpy;
    struct display *next;
    int n_frontends;                            /* front ends whose created hook ran */
    void *data[PERFQ_GL_MAX_FRONTENDS];
    char *extensions;                           /* driver's + the front ends', built once */
};

/* displays_lock protects the list and each record's string cache. */
static pthread_mutex_t displays_lock = PTHREAD_MUTEX_INITIALIZER;
static struct display *displays;

static struct display *find_locked(void *dpy)
{
    struct display *d = displays;
    while (d && d->dpy != dpy)
        d = d->next;
    return d;
}

void *perfq_gl_frontend_display_data(int id, void *dpy)
{
    if (id < 0 || id >= PERFQ_GL_MAX_FRONTENDS)
        return NULL;
    pthread_mutex_lock(&displays_lock);
    struct display *d = find_locked(dpy);
    void *data = d && id < d->n_frontends ? d->data[id] : NULL;
    pthread_mutex_unlock(&displays_lock);
    return data;
}

static void destroy_record(struct display *d)
{
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_DISPLAY, NULL, NULL, d->dpy};
    for (int i = d->n_frontends - 1; i >= 0; i--) {
        const struct perfq_gl_frontend *fe = perfq_gl_frontend_at(i);
        if (fe->scope == PERFQ_GL_SCOPE_DISPLAY && fe->destroyed)
            fe->destroyed(&at, d->data[i], 0);
    }
    free(d->extensions);
    free(d);
}

/* A display was initialised: its record and the display-scoped front ends' data (hooks run
 * outside the lock: they may ask for display data). */
static void display_initialized(void *dpy)
{
    pthread_mutex_lock(&displays_lock);
    struct display *known = find_locked(dpy);
    pthread_mutex_unlock(&displays_lock);
    if (known)
        return;     /* initialising an initialised display changes nothing (section 3.2) */
    struct display *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->dpy = dpy;
    int n = perfq_gl_frontend_count();
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_DISPLAY, NULL, NULL, dpy};
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_frontend *fe = perfq_gl_frontend_at(i);
        if (fe->scope == PERFQ_GL_SCOPE_DISPLAY && fe->created)
            d->data[i] = fe->created(&at);
    }
    d->n_frontends = n;
    pthread_mutex_lock(&displays_lock);
    int raced = find_locked(dpy) != NULL;
    if (!raced) {
        d->next = displays;
        displays = d;
    }
    pthread_mutex_unlock(&displays_lock);
    if (raced)
        destroy_record(d);
}

void perfq_gl_display_destroyed(void *dpy)
{
    pthread_mutex_lock(&displays_lock);
    struct display **p = &displays;
    while (*p && (*p)->dpy != dpy)
        p = &(*p)->next;
    struct display *d = *p;
    if (d)
        *p = d->next;
    pthread_mutex_unlock(&displays_lock);
    if (d)
        destroy_record(d);
}

/* ---- errors ---------------------------------------------------------------------------------- */

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

void perfq_gl_egl_own_call(void)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    EGLint driver = gl->eglGetError ? gl->eglGetError() : EGL_SUCCESS;
    if (driver != EGL_SUCCESS)
        taken_error = driver;
}

EGLint eglGetError(void)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    EGLint driver = gl->eglGetError ? gl->eglGetError() : EGL_SUCCESS;
    EGLint taken = taken_error;
    taken_error = EGL_SUCCESS;
    /* A front end's entry point ran after the driver's last call: its error is the last one
     * (the driver's pending one was read above, so it is cleared too, as the spec says). */
    if (egl_error != EGL_SUCCESS) {
        EGLint e = egl_error;
        egl_error = EGL_SUCCESS;
        return e;
    }
    /* The driver's, from a call of the program's since the layer's own: the last one. Else the
     * one the layer took before its own calls. */
    return driver != EGL_SUCCESS ? driver : taken;
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
        display_initialized(dpy);
    return ok;
}

static int has_name(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return 1;
    return 0;
}

/* The display's extension string with the front ends' own, built once per initialised display
 * (the predicates run outside the lock), or NULL when there is nothing to add. */
static const char *display_extensions(void *dpy, const char *driver)
{
    pthread_mutex_lock(&displays_lock);
    struct display *d = find_locked(dpy);
    const char *cached = d ? d->extensions : NULL;
    int n = d ? d->n_frontends : 0;
    pthread_mutex_unlock(&displays_lock);
    if (!d || cached)
        return cached;
    size_t len = strlen(driver) + 1;
    for (int i = 0; i < n; i++)
        for (const struct perfq_egl_extension *e = perfq_gl_frontend_at(i)->egl_extensions;
             e && e->name; e++)
            len += strlen(e->name) + 1;
    char *all = malloc(len);
    if (!all)
        return NULL;
    strcpy(all, driver);
    int added = 0;
    for (int i = 0; i < n; i++) {
        for (const struct perfq_egl_extension *e = perfq_gl_frontend_at(i)->egl_extensions;
             e && e->name; e++) {
            if (has_name(driver, e->name) || (e->available && !e->available(dpy)))
                continue;
            size_t cur = strlen(all);
            if (cur && all[cur - 1] != ' ')
                strcat(all, " ");
            strcat(all, e->name);
            added = 1;
        }
    }
    if (!added) {
        free(all);
        return NULL;
    }
    /* The display may have been terminated or built by another thread meanwhile. */
    pthread_mutex_lock(&displays_lock);
    d = find_locked(dpy);
    const char *out = NULL;
    if (d && !d->extensions) {
        d->extensions = all;
        all = NULL;
    }
    if (d)
        out = d->extensions;
    pthread_mutex_unlock(&displays_lock);
    free(all);
    return out;
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
    const char *all = display_extensions(dpy, s);
    return all ? all : s;
}

EGLBoolean eglSwapBuffers(EGLDisplay dpy, EGLSurface surface)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    perfq_gl_egl_call_wrapped();
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_SWAPS, 0)) {
        struct perfq_gl_ctx *c = perfq_gl_active_context();
        if (c && c->pub.window_system == PERFQ_GL_WS_EGL)
            perfq_gl_observe_swap(c);
    }
    return gl->eglSwapBuffers ? gl->eglSwapBuffers(dpy, surface) : EGL_FALSE;
}
