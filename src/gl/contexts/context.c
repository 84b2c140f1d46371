/*
 * Per-context state: one struct perfq_gl_ctx per EGL or GLX context the program creates, found
 * by handle; the current one per thread in a thread-local pointer.
 *
 * Lifetime: created (lazily) at eglCreateContext / glXCreate*Context or at the first make-current
 * of an unknown handle; initialised at its first make-current (GL callable: strings read,
 * front ends' created hooks run, extension predicates evaluated); finalised once (destroyed
 * hooks, services freed) when the program destroys it: at once if it is current nowhere (GL not
 * usable), else just before it stops being current (GL usable: EGL and GLX keep a destroyed
 * context alive until it is released). The struct is freed at finalisation unless still current
 * somewhere; then at release.
 */
#include "gl/contexts/layer_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

PERFQ_GL_TLS struct perfq_gl_ctx *perfq_gl_tls_current;
struct perfq_gl_context_services perfq_gl_context_services;

/* context_lock protects the context list and each context's lifetime fields. */
static pthread_mutex_t context_lock = PTHREAD_MUTEX_INITIALIZER;
static struct perfq_gl_ctx *contexts;
static uint64_t n_contexts;
static uint64_t context_serials;   /* the last perfq_gl_context.serial given (context_lock) */

struct perfq_gl_context *perfq_gl_current_context(void)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    return c ? &c->pub : NULL;
}

int perfq_gl_version_at_least(const struct perfq_gl_context *ctx, int major, int minor)
{
    return ctx->major > major || (ctx->major == major && ctx->minor >= minor);
}

struct perfq_gl_ctx *perfq_gl_context_lookup(void *handle, int create,
                                             perfq_gl_window_system_t ws, void *display)
{
    if (!handle)
        return NULL;
    pthread_mutex_lock(&context_lock);
    struct perfq_gl_ctx *c = contexts;
    while (c && c->pub.handle != handle)
        c = c->next;
    if (!c && create) {
        /* Aligned as the struct says (its repeat record, layer_internal.h). */
        if (posix_memalign((void **)&c, _Alignof(struct perfq_gl_ctx), sizeof *c) != 0)
            c = NULL;
        if (c) {
            memset(c, 0, sizeof *c);
            c->pub.gl = perfq_gl_dispatch();
            c->pub.handle = handle;
            c->pub.serial = ++context_serials;
            c->pub.display = display;
            c->pub.window_system = ws;
            c->group = perfq_gl_share_group_new();
            c->next = contexts;
            contexts = c;
            n_contexts++;
        }
    }
    pthread_mutex_unlock(&context_lock);
    return c;
}

static void repeat_flush_locked(struct perfq_gl_repeat *r)
{
    uint64_t n = __atomic_load_n(&r->pending, __ATOMIC_RELAXED);
    uint64_t *counter = __atomic_load_n(&r->counter, __ATOMIC_RELAXED);
    if (n && counter)
        __atomic_fetch_add(counter, n, __ATOMIC_RELAXED);
    __atomic_store_n(&r->pending, 0, __ATOMIC_RELAXED);
}

void perfq_gl_repeat_flush(struct perfq_gl_repeat *r)
{
    pthread_mutex_lock(&context_lock);
    repeat_flush_locked(r);
    pthread_mutex_unlock(&context_lock);
}

uint64_t perfq_gl_repeat_counter_read(const uint64_t *counter)
{
    /* Under the lock, as the flushes: a repeat's amount is seen once, in the counter or in
     * its context's record, never in both nor in neither. */
    pthread_mutex_lock(&context_lock);
    uint64_t v = __atomic_load_n(counter, __ATOMIC_RELAXED);
    for (struct perfq_gl_ctx *c = contexts; c; c = c->next)
        if (__atomic_load_n(&c->repeat.counter, __ATOMIC_RELAXED) == counter)
            v += __atomic_load_n(&c->repeat.pending, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&context_lock);
    return v;
}

/* Draw calls of the contexts that left the list (unlink_context, under context_lock). */
static uint64_t retired_draw_calls;

uint64_t perfq_gl_context_draw_calls(void)
{
    /* Under the lock: a context's count is seen once, in its context or in the retired sum. */
    pthread_mutex_lock(&context_lock);
    uint64_t n = retired_draw_calls;
    for (struct perfq_gl_ctx *c = contexts; c; c = c->next)
        n += atomic_load_explicit(&c->draw_calls, memory_order_relaxed);
    pthread_mutex_unlock(&context_lock);
    return n;
}

uint64_t perfq_gl_context_own_draw_calls(const struct perfq_gl_context *ctx)
{
    const struct perfq_gl_ctx *c = perfq_gl_ctx((struct perfq_gl_context *)ctx);
    return atomic_load_explicit(&c->draw_calls, memory_order_relaxed);
}

static void unlink_context(struct perfq_gl_ctx *c)
{
    repeat_flush_locked(&c->repeat);        /* before it leaves the list the readers walk */
    retired_draw_calls += atomic_load_explicit(&c->draw_calls, memory_order_relaxed);
    for (struct perfq_gl_ctx **p = &contexts; *p; p = &(*p)->next) {
        if (*p == c) {
            *p = c->next;
            n_contexts--;
            return;
        }
    }
}

static char *copy_string(const GLubyte *s)
{
    return strdup(s ? (const char *)s : "");
}

/* "4.5 (Core Profile) Mesa 22.3.6", "OpenGL ES 3.2 Mesa 22.3.6", "OpenGL ES-CM 1.1 ..." */
static void parse_version(struct perfq_gl_ctx *c)
{
    const char *v = c->pub.version;
    c->pub.api = PERFQ_GL_API_GL;
    if (strncmp(v, "OpenGL ES", 9) == 0) {
        c->pub.api = PERFQ_GL_API_GLES;
        v += 9;
        while (*v && (*v < '0' || *v > '9'))
            v++;
    }
    int major = 0, minor = 0;
    if (sscanf(v, "%d.%d", &major, &minor) != 2)
        major = minor = 0;
    c->pub.major = major;
    c->pub.minor = minor;
}

/* PERFQ_GL_DEBUG: what a context's initialisation took, part by part (issue 12: it is a
 * fixed cost of every program under the layers). */
static void say_initialized(const struct perfq_gl_ctx *c, const uint64_t *t,
                            const uint64_t *frontend_ns)
{
    char parts[512];
    size_t used = 0;
    for (int i = 0; i < c->n_frontends && used < sizeof(parts); i++) {
        int k = snprintf(parts + used, sizeof(parts) - used, "; %s %.0f us",
                         perfq_gl_frontend_at(i)->name, (double)frontend_ns[i] / 1e3);
        used += k > 0 ? (size_t)k : 0;
    }
    fprintf(stderr, "perfq-gl: context %" PRIu64 " initialised in %.0f us (GL strings and "
            "extensions %.0f us%s; extensions evaluated %.0f us)\n", c->pub.serial,
            (double)(t[3] - t[0]) / 1e3, (double)(t[1] - t[0]) / 1e3,
            used < sizeof(parts) ? parts : "", (double)(t[3] - t[2]) / 1e3);
}

static void initialize(struct perfq_gl_ctx *c)
{
    int debug = getenv("PERFQ_GL_DEBUG") != NULL;   /* once a context: asked each time */
    uint64_t t[4] = {debug ? perfq_gl_debug_now_ns() : 0, 0, 0, 0};
    uint64_t frontend_ns[PERFQ_GL_MAX_FRONTENDS] = {0};
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    perfq_gl_error_guard_begin(&c->pub);
    c->pub.vendor = copy_string(gl->glGetString ? gl->glGetString(GL_VENDOR) : NULL);
    c->pub.renderer = copy_string(gl->glGetString ? gl->glGetString(GL_RENDERER) : NULL);
    c->pub.version = copy_string(gl->glGetString ? gl->glGetString(GL_VERSION) : NULL);
    parse_version(c);
    if (c->pub.api == PERFQ_GL_API_GL && perfq_gl_version_at_least(&c->pub, 3, 2)) {
        GLint mask = 0;
        gl->glGetIntegerv(GL_CONTEXT_PROFILE_MASK, &mask);
        c->pub.core_profile = (mask & GL_CONTEXT_CORE_PROFILE_BIT) != 0;
    }
    perfq_gl_extensions_init(c);
    c->use_ext_queries = c->pub.api == PERFQ_GL_API_GLES && c->pub.major < 3;
    perfq_gl_error_guard_end(&c->pub);
    c->initialized = 1;

    if (debug)
        t[1] = perfq_gl_debug_now_ns();
    perfq_gl_frontends_context_created(c, debug ? frontend_ns : NULL);
    if (debug)
        t[2] = perfq_gl_debug_now_ns();
    perfq_gl_extensions_evaluate(c);
    if (debug) {
        t[3] = perfq_gl_debug_now_ns();
        say_initialized(c, t, frontend_ns);
    }
}

/* Runs the destroyed hooks and frees the services. GL calls only when gl_usable. */
static void finalize(struct perfq_gl_ctx *c, int gl_usable)
{
    if (c->finalized)
        return;
    c->gl_usable_in_finalize = gl_usable;
    if (c->initialized)
        perfq_gl_frontends_context_destroyed(c, gl_usable);
    if (perfq_gl_context_services.timer_free_context)
        perfq_gl_context_services.timer_free_context(c, gl_usable);
    if (perfq_gl_context_services.vq_free_context)
        perfq_gl_context_services.vq_free_context(c, gl_usable);
    perfq_gl_extensions_free(c);
    c->finalized = 1;
}

/* Counts of live objects left by destroyed contexts (their services normally free every one,
 * leaving 0; a leak stays visible here). */
static atomic_ullong retired_vqueries, retired_links, retired_timers;

static void free_context(struct perfq_gl_ctx *c)
{
    atomic_fetch_add(&retired_vqueries, atomic_load(&c->live_vqueries));
    atomic_fetch_add(&retired_links, atomic_load(&c->live_links));
    atomic_fetch_add(&retired_timers, atomic_load(&c->live_timers));
    free((void *)c->pub.vendor);
    free((void *)c->pub.renderer);
    free((void *)c->pub.version);
    perfq_gl_share_group_leave(c->group);
    free(c);
}

/* A context unlinked from the list and current nowhere: its front ends and services told it is
 * destroyed (GL not usable: no context of it is current), then freed. */
static void retire(struct perfq_gl_ctx *c)
{
    finalize(c, 0);
    free_context(c);
}

void perfq_gl_context_before_switch(void *new_handle)
{
    struct perfq_gl_ctx *old = perfq_gl_tls_current;
    if (!old || old->pub.handle == new_handle)
        return;
    /* Front ends first (perfq stat ends its statistics span at a release), then, leaving this
     * thread: no perfq query stays active at the driver in a context that is current nowhere
     * (perfq_gl_vq_suspend says why). */
    if (old->initialized && !old->finalized)
        perfq_gl_observe_leave(old, old->destroy_pending ? PERFQ_GL_LEAVE_FINAL
                                    : new_handle == NULL ? PERFQ_GL_LEAVE_RELEASE
                                                         : PERFQ_GL_LEAVE_SWITCH);
    if (old->initialized && !old->finalized && perfq_gl_context_services.vq_suspend)
        perfq_gl_context_services.vq_suspend(old);
    if (!old->destroy_pending)
        return;
    /* Destroyed while current, and about to leave: finish its GPU work while it is still current
     * here, so that every fence the timer's helper waits on signals. The layer's state is
     * finalised only once the switch succeeded (perfq_gl_context_made_current, GL not usable:
     * its GL objects die with it); a switch that fails leaves it current and whole (issue 14
     * item 4: finalising here made the extensions silent no-ops in a context still current). */
    if (old->initialized && old->pub.gl->glFinish) {
        perfq_gl_error_guard_begin(&old->pub);
        old->pub.gl->glFinish();
        perfq_gl_error_guard_end(&old->pub);
    }
}

/* The process exits (exit(), or a return from main) with a context still current on the
 * exiting thread: the front ends' leave observers run as at a release (perfq stat reads the
 * frames still pending), and the context stays current. Registered with atexit at the first
 * make-current, after the drivers' own exit handlers (registered at their display's
 * initialisation), so it runs before those: GL is still usable. Never for _exit, a signal, a
 * context current on another thread than the one that exits, or one the window system no
 * longer has current (still_current): its pending frames are then counted without GPU
 * results, as a context destroyed while not current. */
/* 1 if the window system still has c current on this thread. It may have unbound c behind
 * the layer: glvnd and Mesa unbind a display's current context at XCloseDisplay, and GL calls
 * then go to a no-op table that reads every query result as 0 with no error (glmark2 ends with
 * XCloseDisplay, its context current: its last 8 frames read GPU time 0 and 0 vertices). */
static int still_current(const struct perfq_gl_ctx *c)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    /* Not asked of EGL: eglGetCurrentContext answers for the thread's bound API, which the
     * program may have changed since (eglBindAPI); eglTerminate is followed where it happens
     * (perfq_gl_display_terminated). */
    if (c->pub.window_system != PERFQ_GL_WS_GLX || !gl->glXGetCurrentContext)
        return 1;
    return gl->glXGetCurrentContext() == c->pub.handle;
}

static void leave_at_exit(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized && still_current(c))
        perfq_gl_observe_leave(c, PERFQ_GL_LEAVE_FINAL);
}

void perfq_gl_context_display_closing(void *display)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized && c->pub.window_system == PERFQ_GL_WS_GLX &&
        c->pub.display == display && still_current(c))
        perfq_gl_observe_leave(c, PERFQ_GL_LEAVE_FINAL);
    /* The display's other GLX contexts, current nowhere, go with it (their GLX objects do; no
     * glXDestroyContext will come): destroyed now as a context destroyed while not current is,
     * so a front end sends what they had pending without results and their counts stay exact
     * (an outside probe: a program that switched to a new context at each scene and ended with
     * XCloseDisplay lost the last frame's draws of each one it left). */
    struct perfq_gl_ctx *gone = NULL;   /* unlinked under the lock, retired after it */
    pthread_mutex_lock(&context_lock);
    for (struct perfq_gl_ctx *o = contexts, *next; o; o = next) {
        next = o->next;
        if (o->pub.window_system == PERFQ_GL_WS_GLX && o->pub.display == display &&
            o->current_count == 0) {
            unlink_context(o);
            o->next = gone;
            gone = o;
        }
    }
    pthread_mutex_unlock(&context_lock);
    for (struct perfq_gl_ctx *next; gone; gone = next) {
        next = gone->next;
        retire(gone);
    }
}

static void register_leave_at_exit(void)
{
    if (perfq_gl_observe_leave_wanted())
        atexit(leave_at_exit);
}

void perfq_gl_context_made_current(void *handle, perfq_gl_window_system_t ws, void *display)
{
    struct perfq_gl_ctx *old = perfq_gl_tls_current;
    struct perfq_gl_ctx *new_ctx = perfq_gl_context_lookup(handle, 1, ws, display);
    if (old == new_ctx) {
        if (new_ctx)
            new_ctx->pub.display = display;
        return;
    }
    perfq_gl_tls_current = new_ctx;
    pthread_mutex_lock(&context_lock);
    int free_old = 0;
    if (old) {
        old->current_count--;
        if (old->destroy_pending && old->current_count == 0) {
            unlink_context(old);
            free_old = 1;
        }
    }
    if (new_ctx) {
        new_ctx->current_count++;
        new_ctx->pub.display = display;
    }
    pthread_mutex_unlock(&context_lock);
    if (free_old)
        retire(old);   /* it is current nowhere now */
    if (new_ctx && !new_ctx->initialized) {
        static pthread_once_t once = PTHREAD_ONCE_INIT;
        initialize(new_ctx);
        pthread_once(&once, register_leave_at_exit);
    } else if (new_ctx && !new_ctx->finalized && perfq_gl_context_services.vq_resume) {
        perfq_gl_context_services.vq_resume(new_ctx);
    }
    if (new_ctx && ws == PERFQ_GL_WS_GLX && display && perfq_gl_observe_leave_wanted())
        perfq_gl_watch_display_close(display);
}

void perfq_gl_context_switch_failed(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c && c->initialized && !c->finalized && perfq_gl_context_services.vq_resume)
        perfq_gl_context_services.vq_resume(c);
}

void perfq_gl_context_destroyed(void *handle)
{
    struct perfq_gl_ctx *c = perfq_gl_context_lookup(handle, 0, PERFQ_GL_WS_EGL, NULL);
    if (!c)
        return;
    pthread_mutex_lock(&context_lock);
    int now = c->current_count == 0;
    if (now)
        unlink_context(c);
    else
        c->destroy_pending = 1;
    pthread_mutex_unlock(&context_lock);
    if (now)
        retire(c);
}

int perfq_gl_context_destroy_if_idle(void *handle)
{
    struct perfq_gl_ctx *c = perfq_gl_context_lookup(handle, 0, PERFQ_GL_WS_EGL, NULL);
    if (!c)
        return 0;
    pthread_mutex_lock(&context_lock);
    int idle = c->current_count == 0;
    if (idle)
        unlink_context(c);
    pthread_mutex_unlock(&context_lock);
    if (idle) {
        /* Before the driver destroys it: the fences the timer's helper waits on belong to it,
         * and a destroyed context's pending fences may never signal. */
        retire(c);
    }
    return idle;
}

void perfq_gl_display_terminated(void *display)
{
    /* eglTerminate: every context of the display is destroyed once it is released. */
    for (;;) {
        void *handle = NULL;
        pthread_mutex_lock(&context_lock);
        for (struct perfq_gl_ctx *c = contexts; c; c = c->next) {
            if (c->pub.window_system == PERFQ_GL_WS_EGL && c->pub.display == display &&
                !c->destroy_pending) {
                handle = c->pub.handle;
                break;
            }
        }
        pthread_mutex_unlock(&context_lock);
        if (!handle)
            return;
        if (!perfq_gl_context_destroy_if_idle(handle))
            perfq_gl_context_destroyed(handle);
    }
}

void perfq_gl_display_terminated_done(void *display)
{
    pthread_mutex_lock(&context_lock);
    for (struct perfq_gl_ctx *c = contexts; c; c = c->next)
        if (c->pub.window_system == PERFQ_GL_WS_EGL && c->pub.display == display)
            atomic_store_explicit(&c->display_terminated, 1, memory_order_release);
    pthread_mutex_unlock(&context_lock);
}

void perfq_gl_context_stats(struct perfq_gl_layer_stats *out)
{
    uint64_t vq = atomic_load(&retired_vqueries), links = atomic_load(&retired_links);
    uint64_t timers = atomic_load(&retired_timers);
    pthread_mutex_lock(&context_lock);
    out->contexts = n_contexts;
    for (struct perfq_gl_ctx *c = contexts; c; c = c->next) {
        vq += atomic_load_explicit(&c->live_vqueries, memory_order_relaxed);
        links += atomic_load_explicit(&c->live_links, memory_order_relaxed);
        timers += atomic_load_explicit(&c->live_timers, memory_order_relaxed);
    }
    pthread_mutex_unlock(&context_lock);
    out->vqueries = vq;
    out->vquery_links = links;
    out->timers = timers;
}
