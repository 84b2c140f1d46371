/*
 * The layer's private state and the functions its files share (not for front ends: they use
 * gl_layer.h).
 */
#ifndef PERFQ_GL_LAYER_INTERNAL_H
#define PERFQ_GL_LAYER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "gl/gl_layer.h"
#include "gl/wrappers.h"

#define PERFQ_GL_TLS __thread __attribute__((tls_model("initial-exec")))
#define PERFQ_GL_MAX_LAYER_EXTENSIONS 16

struct perfq_gl_vq_state;      /* query_virtualization.c */
struct perfq_gl_prog_state;    /* program_queries.c */
struct perfq_gl_timer_state;   /* gpu_timer.c */
struct perfq_gl_angle_state;   /* angle_timer_query.c */

struct perfq_gl_ctx {
    struct perfq_gl_context pub;            /* first: front ends see only this */
    struct perfq_gl_ctx *next;              /* in the context list (context_lock) */
    int initialized;                        /* strings read, hooks run */
    int finalized;                          /* destroyed hooks run, services freed */
    int destroy_pending;                    /* the program destroyed it while current */
    int current_count;                      /* threads where it is current (0 or 1) */
    int gl_usable_in_finalize;              /* set while destroyed hooks run */

    /* errors (error.c) */
    GLenum pending_error;                   /* the first error not yet returned to the program */
    int guard_depth;

    /* extensions (extensions.c) */
    char **driver_extensions;               /* the driver's own list */
    GLint n_driver_extensions;
    const char *layer_extensions[PERFQ_GL_MAX_LAYER_EXTENSIONS];
    GLint n_layer_extensions;
    char *extension_string;                 /* driver's GL_EXTENSIONS + the layer's, cached */

    /* front ends' data (context.c) */
    void *slot_data[PERFQ_GL_MAX_SLOTS];

    /* counters the layer keeps */
    uint64_t draw_calls;

    /* services */
    struct perfq_gl_vq_state *vq;
    struct perfq_gl_timer_state *timer;
    struct perfq_gl_angle_state *angle;
    int has_query_buffer;                   /* ARB_query_buffer_object: unbind around reads */
    int conditional_render_emulated;        /* program_queries.c: a BeginConditionalRender on a
                                             * split query the layer answered itself */
    int query_buffer_bound;                 /* the program bound a buffer to GL_QUERY_BUFFER
                                             * (layer_draw.c): only then is it checked */
    int use_ext_queries;                    /* GLES 2: the *EXT query entry points */
};

static inline struct perfq_gl_ctx *perfq_gl_ctx(struct perfq_gl_context *pub)
{
    return (struct perfq_gl_ctx *)pub;
}

/* context.c */
extern PERFQ_GL_TLS struct perfq_gl_ctx *perfq_gl_tls_current;
struct perfq_gl_ctx *perfq_gl_context_lookup(void *handle, int create,
                                             perfq_gl_window_system_t ws, void *display);
/* After a successful real make-current on this thread (handle NULL: none current). */
void perfq_gl_context_made_current(void *handle, perfq_gl_window_system_t ws, void *display);
/* Before the real make-current: finalize a destroy-pending context that is leaving. */
void perfq_gl_context_before_switch(void *new_handle);
/* The program is destroying `handle` (before the real call): if it is current nowhere, its
 * state is finalised and freed now and 1 is returned; else 0 (call perfq_gl_context_destroyed
 * after the real call succeeds). */
int perfq_gl_context_destroy_if_idle(void *handle);
/* eglTerminate(display) is about to run: the same for every context of the display. */
/* The program destroyed `handle` (after the real call succeeded). */
void perfq_gl_context_destroyed(void *handle);
/* eglTerminate(display) succeeded. */
void perfq_gl_display_terminated(void *display);
void perfq_gl_context_stats(struct perfq_gl_layer_stats *out);

/* error.c: run a program's call and learn whether the driver accepted it (its error, if any,
 * stays pending for the program). */
void perfq_gl_call_checked_begin(struct perfq_gl_ctx *c);
GLenum perfq_gl_call_checked_end(struct perfq_gl_ctx *c);

/* extensions.c */
void perfq_gl_extensions_init(struct perfq_gl_ctx *ctx);
void perfq_gl_extensions_free(struct perfq_gl_ctx *ctx);
void perfq_gl_extensions_evaluate(struct perfq_gl_ctx *ctx);
/* A registered integer for pname in ctx: 1 and *value, else 0. */
int perfq_gl_integer_lookup(struct perfq_gl_ctx *ctx, GLenum pname, int64_t *value);

/* entry_points.c: the layer's own function for a GL/EGL/GLX name, or NULL. */
void (*perfq_gl_entry_point(const char *name))(void);

/* query_virtualization.c */
void perfq_gl_vq_free_context(struct perfq_gl_ctx *ctx, int gl_usable);
/* Reads a driver query object's 64-bit result, unbinding a query buffer first. */
void perfq_gl_read_query(struct perfq_gl_ctx *ctx, GLuint name, GLenum pname, GLuint64 *value);

/* gpu_timer.c */
void perfq_gl_timer_free_context(struct perfq_gl_ctx *ctx, int gl_usable);
/* The CLOCK_MONOTONIC time in ns. */
uint64_t perfq_gl_now_ns(void);

/* angle_timer_query.c */
void perfq_gl_angle_free_context(struct perfq_gl_ctx *ctx, int gl_usable);
int perfq_gl_angle_available(struct perfq_gl_context *ctx);

#endif
