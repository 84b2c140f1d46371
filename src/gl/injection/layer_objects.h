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

/* Calls gl->fn args; then, when observed, reports the call described by the designated
 * initialisers that follow. */
#define OBSERVED(fn, args, ...) \
    do { \
        const struct perfq_gl_dispatch *gl = perfq_gl_dispatch(); \
        if (!gl->fn) \
            return; \
        struct perfq_gl_ctx *c = observer_context(); \
        if (!c) { \
            gl->fn args; \
            return; \
        } \
        perfq_gl_call_checked_begin(c); \
        gl->fn args; \
        GLenum error = perfq_gl_call_checked_end(c); \
        struct perfq_gl_object_call call = {.function = #fn, .error = error, __VA_ARGS__}; \
        perfq_gl_observe_object(c, &call); \
    } while (0)

/* The same with one read of the driver's error flag instead of two, for calls that running twice
 * leaves as running once (storage re-specified with the same arguments: glBufferData,
 * glTexImage*, glRenderbufferStorage, ...; never glGen*, immutable storage, copies from the
 * framebuffer). The read after the call finds nothing in the common case: then no earlier error
 * was pending and the call was accepted. If it finds an error, that error is the program's first
 * (kept for it), but it may be an earlier call's: the flag is clear now, so the call runs again
 * and the second read is its own answer (docs/nv-query-resource.md, "The error check"). */
#define OBSERVED_REPEATABLE(fn, args, ...) \
    do { \
        const struct perfq_gl_dispatch *gl = perfq_gl_dispatch(); \
        if (!gl->fn) \
            return; \
        struct perfq_gl_ctx *c = observer_context(); \
        gl->fn args; \
        if (!c) \
            return; \
        GLenum error = perfq_gl_call_repeatable_end(c); \
        if (__builtin_expect(error != GL_NO_ERROR, 0)) { \
            gl->fn args; \
            error = perfq_gl_call_repeat_end(c); \
        } \
        struct perfq_gl_object_call call = {.function = #fn, .error = error, __VA_ARGS__}; \
        perfq_gl_observe_object(c, &call); \
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
