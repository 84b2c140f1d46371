/*
 * The layer's object wrappers' shared machinery (layer_objects.c, layer_objects_ext.c): a wrapper
 * forwards the program's call and, where a front end observes objects, learns the driver's error
 * for it and reports it (gl_layer.h, struct perfq_gl_object_call).
 */
#ifndef PERFQ_GL_INJECTION_LAYER_OBJECTS_H
#define PERFQ_GL_INJECTION_LAYER_OBJECTS_H

#include "gl/contexts/layer_internal.h"

/* The current context when objects are observed, else NULL. */
static inline struct perfq_gl_ctx *observer_context(void)
{
    if (__builtin_expect(!(perfq_gl_observing & PERFQ_GL_OBSERVE_OBJECTS), 1))
        return NULL;
    return perfq_gl_active_context();
}

/* Calls the real fn (PERFQ_GL_WRAPPED_REAL) with args; then, when observed, reports the call
 * described by the designated initialisers that follow. */
#define OBSERVED(fn, args, ...) \
    do { \
        __typeof__(perfq_gl_real_table.fn) real_fn = PERFQ_GL_WRAPPED_REAL(fn); \
        if (!real_fn) \
            return; \
        struct perfq_gl_ctx *c = observer_context(); \
        if (!c) { \
            real_fn args; \
            return; \
        } \
        perfq_gl_call_checked_begin(c); \
        real_fn args; \
        GLenum error = perfq_gl_call_checked_end(c); \
        struct perfq_gl_object_call call = {.function = #fn, .error = error, __VA_ARGS__}; \
        perfq_gl_observe_object(c, &call); \
    } while (0)

/* What a repeat is compared on: the wrapper's own description of its call, in a struct that
 * takes the same designated initialisers as struct perfq_gl_object_call (those of
 * OBSERVED_REPEATABLE's wrappers) but holds only the key's fields and the wrapper's constants,
 * small enough that the compiler keeps it in registers. */
struct repeat_probe {
    const char *function;
    int64_t size;
    GLuint name;
    GLenum target;
    GLint level;
    GLsizei levels;
    GLenum internalformat;
    GLsizei width, height, depth, samples;
    GLint border;
    GLenum format, type;
    unsigned kind : 2, event : 3, replaces_storage : 1;     /* the wrapper's: not compared */
};

/* A repeat of the context's recorded call (struct perfq_gl_repeat): the same wrapper and
 * arguments, on the same object (no binding changed), while no object of the share group
 * changed (the generation) and no error is held for the program. GL then accepts it as it
 * accepted the recorded call (docs/nv-query-resource.md, "Repeats": what GL's errors for these
 * calls depend on is the arguments, the object and its storage, all unchanged), and it leaves
 * the observers' state as it is: their per-call count is added here, the driver's error flag is
 * not read (it stays exactly what the driver set), and the call is answered without them. */
static inline int repeat_answered(struct perfq_gl_ctx *c, const struct repeat_probe probe)
{
    const struct repeat_probe *p = &probe;

    struct perfq_gl_repeat *r = &c->repeat;
    const struct perfq_gl_repeat_key *k = &r->key;
    if (c->pending_error != GL_NO_ERROR)
        return 0;               /* the read keeps GL's first-error rule for the program */
    /* One difference of all the fields, not a chain of comparisons: the compiler merges
     * adjacent comparisons into wide loads of both sides, which puts the probe in memory. */
    uint64_t diff = ((uintptr_t)k->function ^ (uintptr_t)p->function) |
                    ((uint64_t)k->size ^ (uint64_t)p->size) |
                    (uint64_t)(k->name ^ p->name) | (uint64_t)(k->target ^ p->target) |
                    (uint64_t)(uint32_t)(k->level ^ p->level) |
                    (uint64_t)(uint32_t)(k->levels ^ p->levels) |
                    (uint64_t)(k->internalformat ^ p->internalformat) |
                    (uint64_t)(uint32_t)(k->width ^ p->width) |
                    (uint64_t)(uint32_t)(k->height ^ p->height) |
                    (uint64_t)(uint32_t)(k->depth ^ p->depth) |
                    (uint64_t)(uint32_t)(k->samples ^ p->samples) |
                    (uint64_t)(uint32_t)(k->border ^ p->border) |
                    (uint64_t)(k->format ^ p->format) | (uint64_t)(k->type ^ p->type);
    if (diff)
        return 0;
    if (r->generation && __atomic_load_n(r->generation, __ATOMIC_ACQUIRE) != r->expected)
        return 0;
    if (r->counter)     /* one writer: no locked instruction (struct perfq_gl_repeat) */
        __atomic_store_n(&r->pending, r->pending + r->amount, __ATOMIC_RELAXED);
    return 1;
}

/* After one read found an error: the call runs again and its own error is read. The program's
 * KHR_debug output is off meanwhile, so that its callback or log sees the call's error once
 * (debug_output.c). */
#define RUN_AGAIN_FOR_ANSWER(c, call) \
    __extension__({ \
        int debug_paused_ = perfq_gl_debug_output_pause(c); \
        call; \
        GLenum again_error_ = perfq_gl_call_repeat_end(c); \
        if (debug_paused_) \
            perfq_gl_debug_output_resume(c); \
        again_error_; \
    })

/* The same with one read of the driver's error flag instead of two, for calls that running twice
 * leaves as running once (storage re-specified with the same arguments: glBufferData,
 * glTexImage*, glRenderbufferStorage, ...; never glGen*, immutable storage, copies from the
 * framebuffer). The read after the call finds nothing in the common case: then no earlier error
 * was pending and the call was accepted. If it finds an error, that error is the program's first
 * (kept for it), but it may be an earlier call's: the flag is clear now, so the call runs again
 * and the second read is its own answer (docs/nv-query-resource.md, "The error check").
 * A call that repeats the context's repeat record is answered before any of that
 * (repeat_answered; docs/nv-query-resource.md, "Repeats"). */
#define OBSERVED_REPEATABLE(fn, args, ...) \
    do { \
        __typeof__(perfq_gl_real_table.fn) real_fn = PERFQ_GL_WRAPPED_REAL(fn); \
        if (!real_fn) \
            return; \
        struct perfq_gl_ctx *c = observer_context(); \
        real_fn args; \
        if (!c) \
            return; \
        static const char function[] = #fn;     /* one address: the record's key */ \
        if (repeat_answered(c, (const struct repeat_probe){.function = function, __VA_ARGS__})) \
            return; \
        GLenum error = perfq_gl_call_repeatable_end(c); \
        if (__builtin_expect(error != GL_NO_ERROR, 0)) \
            error = RUN_AGAIN_FOR_ANSWER(c, real_fn args); \
        struct perfq_gl_object_call call = {.function = function, .error = error, __VA_ARGS__}; \
        perfq_gl_observe_object_repeatable(c, &call); \
    } while (0)

/* Dimensions a call does not have are 1 (gl_layer.h). */
#define DIMS(w, h, d) .width = (w), .height = (h), .depth = (d)
#define NAMES(k, e) .kind = (k), .event = (e), .n = n, .names = names, DIMS(1, 1, 1), .size = -1
#define BUFFER_ALLOC \
    .kind = PERFQ_GL_OBJECT_BUFFER, .event = PERFQ_GL_OBJECT_ALLOCATE, DIMS(1, 1, 1)
#define TEX_ALLOC .kind = PERFQ_GL_OBJECT_TEXTURE, .event = PERFQ_GL_OBJECT_ALLOCATE
#define RB_ALLOC .kind = PERFQ_GL_OBJECT_RENDERBUFFER, .event = PERFQ_GL_OBJECT_ALLOCATE, .size = -1
#define TEX_EVENT(e) .kind = PERFQ_GL_OBJECT_TEXTURE, .event = (e), DIMS(1, 1, 1), .size = -1

#endif
