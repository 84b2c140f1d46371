/*
 * The layer's private state and the functions its files share (not for front ends: they use
 * gl_layer.h).
 */
#ifndef PERFQ_GL_LAYER_INTERNAL_H
#define PERFQ_GL_LAYER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "gl/gl_layer.h"
#include "gl/dispatch/wrappers.h"

#define PERFQ_GL_TLS __thread __attribute__((tls_model("initial-exec")))
#define PERFQ_GL_MAX_LAYER_EXTENSIONS 16

struct perfq_gl_vq_state;      /* query_virtualization.c */
struct perfq_gl_prog_state;    /* program_queries.c */
struct perfq_gl_timer_state;   /* gpu_timer.c */

/* The objects bound in a context as the layer knows them (bindings.c): a slot is used
 * only while its known bit is set. */
#define PERFQ_GL_BUFFER_SLOTS 11
#define PERFQ_GL_TEXTURE_SLOTS 11
#define PERFQ_GL_TRACKED_UNITS 32
struct perfq_gl_bindings {
    uint32_t buffers_known;                 /* bit per buffer slot */
    GLuint buffer[PERFQ_GL_BUFFER_SLOTS];
    int unit_known;
    GLuint unit;                            /* the active texture unit, 0-based */
    uint16_t textures_known[PERFQ_GL_TRACKED_UNITS];   /* bit per texture slot */
    GLuint texture[PERFQ_GL_TRACKED_UNITS][PERFQ_GL_TEXTURE_SLOTS];
    int renderbuffer_known;
    GLuint renderbuffer;
};

/* The last storage call the layer may answer again without its observers (layer_objects.h,
 * OBSERVED_REPEATABLE; docs/nv-query-resource.md, "Repeats"): set while every object observer
 * said of it that the same call again, on the same object, changes nothing of its state but
 * adds `amount` to *counter, as long as *generation reads `expected` (perfq_gl_object_repeatable),
 * and the layer knows the call names the same object: a DSA name, or a binding the layer tracks
 * that has not changed since (every binding change and every error read clears it).
 * The key holds the call's fields that come from its arguments, and its wrapper (the function's
 * name, by address): in OBSERVED_REPEATABLE's wrappers kind, event, replaces_storage and source
 * are the wrapper's constants. Two cache lines, both at fixed offsets in the context: a repeat
 * reads them side by side after the driver's call has evicted them. */
struct perfq_gl_repeat_key {
    const char *function;                   /* NULL: no record */
    int64_t size;
    GLuint name;
    GLenum target;
    GLint level;
    GLsizei levels;
    GLenum internalformat;
    GLsizei width, height, depth, samples;
    GLint border;
    GLenum format, type;
};

struct perfq_gl_repeat {
    struct perfq_gl_repeat_key key;
    const uint64_t *generation;             /* NULL: none */
    uint64_t expected;
    uint64_t *counter;                      /* NULL: none */
    uint64_t amount;
    /* The repeats' amounts not yet added to *counter: written by the context's thread alone
     * (a plain add, no locked instruction on the hot path), added to *counter under
     * context_lock when the record goes; perfq_gl_repeat_counter_read counts them meanwhile. */
    uint64_t pending;
    int collecting;                         /* observers' votes counted (one observed call) */
    int votes, vetoed;
};

/* context.c: the pending amount into its counter (under context_lock). */
void perfq_gl_repeat_flush(struct perfq_gl_repeat *r);

static inline void perfq_gl_repeat_clear(struct perfq_gl_repeat *r)
{
    r->key.function = NULL;
    if (__builtin_expect(__atomic_load_n(&r->pending, __ATOMIC_RELAXED) != 0, 0))
        perfq_gl_repeat_flush(r);
}

struct perfq_gl_ctx {
    struct perfq_gl_context pub;            /* first: front ends see only this */
    struct perfq_gl_ctx *next;              /* in the context list (context_lock) */
    int initialized;                        /* strings read, hooks run */
    int finalized;                          /* destroyed hooks run, services freed */
    int destroy_pending;                    /* the program destroyed it while current */
    int current_count;                      /* threads where it is current (0 or 1) */
    int gl_usable_in_finalize;              /* set while destroyed hooks run */

    /* Aligned (the context is allocated so): the key on one line, the rest on the next. */
    struct perfq_gl_repeat repeat __attribute__((aligned(64)));

    /* errors (error.c) */
    GLenum pending_error;                   /* the first error not yet returned to the program */
    int guard_depth;
    signed char debug_output;               /* debug_output.c: 0 not asked yet, 1 has it, -1 not */

    /* extensions (extensions.c) */
    char **driver_extensions;               /* the driver's own list */
    GLint n_driver_extensions;
    const char *layer_extensions[PERFQ_GL_MAX_LAYER_EXTENSIONS];
    GLint n_layer_extensions;
    char *extension_string;                 /* driver's GL_EXTENSIONS + the layer's, cached */

    /* front ends (frontend.c) */
    void *frontend_data[PERFQ_GL_MAX_FRONTENDS];    /* context-scoped front ends' data */
    int n_frontends;                        /* front ends whose context hooks ran */
    struct perfq_gl_share_group *group;     /* share_group.c: never NULL once created */

    struct perfq_gl_bindings bindings;      /* bindings.c */

    /* The Driver Counters' Draw Calls of this context (perfq_gl_count_draw): written only by
     * the thread it is current on, without a locked instruction (a process-wide atomic add per
     * draw was a full barrier after the driver's stores, and the observer fan-out ~100
     * instructions more per draw in every layered program); read under context_lock by
     * perfq_gl_context_draw_calls, which adds what destroyed contexts left. */
    atomic_ullong draw_calls;
    /* The program called glBegin, glRect* or glCallList(s) in this context (layer_immediate.c):
     * Mesa may hold vertices in its immediate-mode buffer, which glQueryCounter does not flush,
     * so a stamp point flushes first (timer_points.c). Written by the context's thread only. */
    int immediate_mode_seen;
    /* A display list is being compiled (glNewList to glEndList, layer_immediate.c): the mode
     * (GL_COMPILE or GL_COMPILE_AND_EXECUTE), 0 otherwise. The layer's own calls at a draw
     * (--per-draw's queries) would be compiled into the list and replayed by each glCallList,
     * so draws and clears are not observed meanwhile; under GL_COMPILE they do not run, and
     * draw_calls is put back at glEndList to what it was at glNewList. Written by the
     * context's thread only. */
    GLenum compiling_list;
    unsigned long long draw_calls_at_new_list;

    /* services */
    struct perfq_gl_vq_state *vq;
    struct perfq_gl_timer_state *timer;
    /* Live-object counts of this context's services for perfq_gl_layer_stats (issue 10: a
     * process-wide atomic add per object was a locked instruction per query and per piece).
     * Written only by the thread the context is current on (or the one finalising it), read by
     * perfq_gl_context_stats under context_lock; what is left when the context is freed goes
     * to the process-wide counts. */
    atomic_ullong live_vqueries, live_links, live_timers;
    /* Its EGL display was terminated while it stayed current (EGL 1.5 3.2: it lives until
     * released; set by the terminating thread, context.c). Its EGL sync objects went with the
     * display and no new one can be made: the timer's fence path makes no EGL call for it from
     * then on, and an interval not yet stamped, or begun or ended since, fails (disjoint, no
     * time) instead of raising an error (timer_fence.c). */
    atomic_int display_terminated;
    int has_query_buffer;                   /* 0 not known yet, 1 no, 2 yes: the query
                                             * virtualisation's (perfq_gl_vq_query_buffer_bound) */
    int conditional_render_emulated;        /* program_queries.c: a BeginConditionalRender on a
                                             * split query the layer answered itself */
    int conditional_render_forwarded;       /* program_queries.c: a BeginConditionalRender went
                                             * to the driver and no EndConditionalRender since:
                                             * the driver's may be active */
    int query_buffer_bound;                 /* the program bound a buffer to GL_QUERY_BUFFER
                                             * (layer_draw.c): only then is it checked */
    int use_ext_queries;                    /* GLES 2: the *EXT query entry points */
};

static inline struct perfq_gl_ctx *perfq_gl_ctx(struct perfq_gl_context *pub)
{
    return (struct perfq_gl_ctx *)pub;
}

/* The current context if it is initialised and not finalised (what front ends may use). */
static inline struct perfq_gl_ctx *perfq_gl_active_context(void);

/* context.c */
extern PERFQ_GL_TLS struct perfq_gl_ctx *perfq_gl_tls_current;
struct perfq_gl_ctx *perfq_gl_context_lookup(void *handle, int create,
                                             perfq_gl_window_system_t ws, void *display);
/* After a successful real make-current on this thread (handle NULL: none current). */
void perfq_gl_context_made_current(void *handle, perfq_gl_window_system_t ws, void *display);
/* XCloseDisplay of display has begun (x_close.c's callback, before the GLX libraries' own): a
 * GLX context of that display current on this thread leaves as at an exit (LEAVE_FINAL). */
void perfq_gl_context_display_closing(void *display);
/* x_close.c: watch display's XCloseDisplay (once per display; GLX contexts, where a front end
 * wants the leave). */
void perfq_gl_watch_display_close(void *dpy);
/* Before the real make-current: the context leaving this thread gets its perfq driver queries
 * ended (perfq_gl_vq_suspend), and a destroy-pending one its GPU work finished. */
void perfq_gl_context_before_switch(void *new_handle);
/* The real make-current failed after perfq_gl_context_before_switch: the context still current
 * here gets its queries back. */
void perfq_gl_context_switch_failed(void);
/* The program is destroying `handle` (before the real call): if it is current nowhere, its
 * state is finalised and freed now and 1 is returned; else 0 (call perfq_gl_context_destroyed
 * after the real call succeeds). */
int perfq_gl_context_destroy_if_idle(void *handle);
/* eglTerminate(display) is about to run: the same for every context of the display. */
/* The program destroyed `handle` (after the real call succeeded). */
void perfq_gl_context_destroyed(void *handle);
/* eglTerminate(display) succeeded. */
void perfq_gl_display_terminated(void *display);
/* eglTerminate(display) succeeded: the display's contexts still current (destroyed when released)
 * lost its EGL objects (struct perfq_gl_ctx, display_terminated). */
void perfq_gl_display_terminated_done(void *display);
void perfq_gl_context_stats(struct perfq_gl_layer_stats *out);

/* One writer: a plain load and store, no locked instruction (see live_vqueries). */
static inline void perfq_gl_ctx_count(atomic_ullong *n, long long delta)
{
    atomic_store_explicit(n, atomic_load_explicit(n, memory_order_relaxed) +
                                 (unsigned long long)delta, memory_order_relaxed);
}

/* A program's draw call through the layer's wrappers, on this thread's current context. */
static inline void perfq_gl_count_draw(void);

/* error.c: run a program's call and learn whether the driver accepted it (its error, if any,
 * stays pending for the program). */
void perfq_gl_call_checked_begin(struct perfq_gl_ctx *c);
GLenum perfq_gl_call_checked_end(struct perfq_gl_ctx *c);
/* The same with one read, for calls the layer may run again with the same effect: the call ran,
 * then perfq_gl_call_repeatable_end; if that returned an error, the call runs again and
 * perfq_gl_call_repeat_end says whether it is refused (layer_objects.h, OBSERVED_REPEATABLE). */
static inline GLenum perfq_gl_call_repeatable_end(struct perfq_gl_ctx *c);
GLenum perfq_gl_call_repeat_end(struct perfq_gl_ctx *c);
/* debug_output.c: KHR_debug output is turned off around a call the layer runs again (1: it
 * was on, perfq_gl_debug_output_resume turns it back on), and an error the layer raises is
 * inserted as a THIRD_PARTY message where the program has debug output on. */
int perfq_gl_debug_output_pause(struct perfq_gl_ctx *c);
void perfq_gl_debug_output_resume(struct perfq_gl_ctx *c);
void perfq_gl_debug_output_error(struct perfq_gl_ctx *c, GLenum error);
/* The driver returned `error` to a read of the layer's: kept for the program (first one wins),
 * bindings asked again. */
void perfq_gl_call_error_seen(struct perfq_gl_ctx *c, GLenum error);

/* bindings.c: every binding is asked again (a GL error was read: a bind may have failed). */
static inline void perfq_gl_bindings_forget(struct perfq_gl_ctx *c)
{
    perfq_gl_repeat_clear(&c->repeat);
    c->bindings.buffers_known = 0;
    c->bindings.unit_known = 0;
    for (int u = 0; u < PERFQ_GL_TRACKED_UNITS; u++)
        c->bindings.textures_known[u] = 0;
    c->bindings.renderbuffer_known = 0;
}
/* The texture bound to `target` (a texture target or cube face) on texture unit `unit`
 * (0-based), as glBindTexture on that unit would name it; asked of the driver where the layer
 * does not know it (only after a call on that unit was accepted: the unit exists). */
GLuint perfq_gl_texture_on_unit(struct perfq_gl_ctx *c, GLuint unit, GLenum target);
/* Objects deleted in the current context: their bindings revert to 0. */
void perfq_gl_bindings_deleted(struct perfq_gl_ctx *c, perfq_gl_object_kind_t kind, GLsizei n,
                               const GLuint *names);

/* extensions.c */
void perfq_gl_extensions_init(struct perfq_gl_ctx *ctx);
void perfq_gl_extensions_free(struct perfq_gl_ctx *ctx);
void perfq_gl_extensions_evaluate(struct perfq_gl_ctx *ctx);
/* A registered integer for pname in ctx: 1 and *value, else 0. */
int perfq_gl_integer_lookup(struct perfq_gl_ctx *ctx, GLenum pname, int64_t *value);

/* entry_points.c: the layer's own function for a GL/EGL/GLX name, or NULL. */
void (*perfq_gl_entry_point(const char *name))(void);

/* frontend.c: the registry (append-only; entries below the count are stable). */
int perfq_gl_frontend_count(void);
const struct perfq_gl_frontend *perfq_gl_frontend_at(int i);
/* CLOCK_MONOTONIC in ns, for PERFQ_GL_DEBUG's timings here (the timer service's
 * perfq_gl_now_ns is a layer above the contexts: docs/design.md). */
static inline uint64_t perfq_gl_debug_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* took_ns (NULL, or PERFQ_GL_MAX_FRONTENDS entries): each front end's time, for
 * PERFQ_GL_DEBUG. */
void perfq_gl_frontends_context_created(struct perfq_gl_ctx *c, uint64_t *took_ns);
void perfq_gl_frontends_context_destroyed(struct perfq_gl_ctx *c, int gl_usable);
void (*perfq_gl_frontend_entry_point(const char *name))(void);
uint64_t perfq_gl_frontends_live_objects(void);
/* What registered front ends observe: wrappers test a bit before doing any work for them. */
#define PERFQ_GL_OBSERVE_OBJECTS 1
#define PERFQ_GL_OBSERVE_DRAWS 2
#define PERFQ_GL_OBSERVE_CLEARS 4
#define PERFQ_GL_OBSERVE_SWAPS 8
#define PERFQ_GL_OBSERVE_DRAW_BEGIN 16
extern int perfq_gl_observing;
void perfq_gl_observe_object(struct perfq_gl_ctx *c, const struct perfq_gl_object_call *call);
/* The same for a call that OBSERVED_REPEATABLE may answer again itself: if the driver accepted
 * it, every object observer voted (perfq_gl_object_repeatable) and the call names its object by
 * DSA name or by a binding the layer tracks, it becomes the context's repeat record. */
void perfq_gl_observe_object_repeatable(struct perfq_gl_ctx *c,
                                        const struct perfq_gl_object_call *call);
/* bindings.c: the slot of a tracked buffer target (GL_ARRAY_BUFFER...) or texture target
 * (GL_TEXTURE_2D...), -1 for one not tracked. */
int perfq_gl_buffer_slot(GLenum target);
int perfq_gl_texture_slot(GLenum target);
/* bindings.c: 1 if the object a call by target names is known to the layer without asking
 * the driver (a tracked binding it knows now). */
int perfq_gl_binding_tracked(struct perfq_gl_ctx *c, perfq_gl_object_kind_t kind, GLenum target);
/* 1 if no pixel unpack buffer is bound (asked of the driver once, then tracked): a texture
 * upload's data then comes from the program's memory, whatever its `pixels`. Call it only
 * right after an accepted call (the driver's flag clear). */
int perfq_gl_no_unpack_buffer(struct perfq_gl_ctx *c);
void perfq_gl_observe_draw(struct perfq_gl_ctx *c, const char *function);
/* Before the real draw call: for the wrappers, which test PERFQ_GL_OBSERVE_DRAW_BEGIN first. */
void perfq_gl_observe_draw_begin(const char *function);
void perfq_gl_observe_clear(struct perfq_gl_ctx *c, GLbitfield mask);
void perfq_gl_observe_swap(struct perfq_gl_ctx *c);
/* Before the context leaves this thread (perfq_gl_context_before_switch), GL usable; rare, so
 * no observe flag: every front end with a leave observer is called. */
void perfq_gl_observe_leave(struct perfq_gl_ctx *c, int released);
/* Whether a registered front end has a leave observer. */
int perfq_gl_observe_leave_wanted(void);

/* share_group.c */
struct perfq_gl_share_group *perfq_gl_share_group_new(void);
/* c joins share's group (eglCreateContext's share_context) and leaves its own. */
void perfq_gl_share_group_join(struct perfq_gl_ctx *c, struct perfq_gl_ctx *share);
void perfq_gl_share_group_leave(struct perfq_gl_share_group *g);
void perfq_gl_share_group_create_data(struct perfq_gl_ctx *c, int id,
                                      const struct perfq_gl_frontend *fe);
void *perfq_gl_share_group_data(const struct perfq_gl_share_group *g, int id);

/* display.c: a display's record, made at eglInitialize (the display-scoped front ends' created
 * hooks run), dropped at eglTerminate (their destroyed hooks); its extension string with the
 * front ends' display extensions (driver: the driver's string), NULL where none is added. */
void perfq_gl_display_initialized(void *display);
void perfq_gl_display_destroyed(void *display);
const char *perfq_gl_display_extensions(void *display, const char *driver);

/* error.c, EGL. A wrapped EGL call is running: it sets the thread's EGL error, not a front end.
 * Called again right before the driver's call where the layer made EGL calls of its own before
 * it. */
void perfq_gl_egl_call_wrapped(void);
/* The layer is about to call EGL itself on a program's thread inside a GL call (the fence
 * timer's syncs): EGL 1.5 3.1, "eglGetError returns the error of the last called EGL function
 * in the current thread", and GL calls are none. The program's pending EGL error is taken from
 * the driver first and kept for the program's next eglGetError. */
void perfq_gl_egl_own_call(void);
/* Set (1) while the layer calls EGL inside a program's EGL call before the real one, whose
 * error is the one the program reads next (eglSwapBuffers' observers): perfq_gl_egl_own_call
 * then keeps nothing; cleared (0) after. */
void perfq_gl_egl_error_moot(int moot);
/* What the wrapped eglGetError returns, given the driver's error just read: a front end's error
 * since the program's last EGL call first, then the driver's, then one perfq_gl_egl_own_call
 * took; the thread's state is cleared. */
EGLint perfq_gl_egl_take_error(EGLint driver);

/* The services' per-context work, which context.c runs at a context's switches and end. The
 * services (virtualization/, timing/) sit above contexts/, so each fills its own members from a
 * constructor at load (query_virtualization.c, gpu_timer.c) instead of context.c calling up
 * into them: calls point down the folders as includes do. A member left NULL does nothing. */
struct perfq_gl_context_services {
    /* The context (current on this thread) is about to stop being current, and is current again
     * (or a switch away from it failed): perfq_gl_vq_suspend and perfq_gl_vq_resume. */
    void (*vq_suspend)(struct perfq_gl_ctx *ctx);
    void (*vq_resume)(struct perfq_gl_ctx *ctx);
    /* Finalisation, in this order (a timer holds virtual queries); GL calls only when
     * gl_usable. */
    void (*timer_free_context)(struct perfq_gl_ctx *ctx, int gl_usable);
    void (*vq_free_context)(struct perfq_gl_ctx *ctx, int gl_usable);
};
extern struct perfq_gl_context_services perfq_gl_context_services;

static inline struct perfq_gl_ctx *perfq_gl_active_context(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    return c && c->initialized && !c->finalized ? c : NULL;
}

static inline void perfq_gl_count_draw(void)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (c)
        perfq_gl_ctx_count(&c->draw_calls, 1);
}

/* One read of the driver's error flag after a program's call (error.c, "one read"). */
static inline GLenum perfq_gl_call_repeatable_end(struct perfq_gl_ctx *c)
{
    /* The real table, which c->pub.gl points to, by its address: one load fewer after a call
     * that evicted both. */
    perfq_PFNGLGETERRORPROC get_error = perfq_gl_dispatch()->glGetError;
    if (!get_error)
        return GL_NO_ERROR;
    GLenum e = get_error();
    if (__builtin_expect(e != GL_NO_ERROR, 0))
        perfq_gl_call_error_seen(c, e);
    return e;
}

#endif
