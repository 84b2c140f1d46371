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

/* Dimensions a call does not have are 1 (gl_layer.h). */
#define DIMS(w, h, d) .width = (w), .height = (h), .depth = (d)
#define NAMES(k, e) .kind = (k), .event = (e), .n = n, .names = names, DIMS(1, 1, 1), .size = -1
#define BUFFER_ALLOC \
    .kind = PERFQ_GL_OBJECT_BUFFER, .event = PERFQ_GL_OBJECT_ALLOCATE, DIMS(1, 1, 1)
#define TEX_ALLOC .kind = PERFQ_GL_OBJECT_TEXTURE, .event = PERFQ_GL_OBJECT_ALLOCATE
#define RB_ALLOC .kind = PERFQ_GL_OBJECT_RENDERBUFFER, .event = PERFQ_GL_OBJECT_ALLOCATE, .size = -1
#define TEX_EVENT(e) .kind = PERFQ_GL_OBJECT_TEXTURE, .event = (e), DIMS(1, 1, 1), .size = -1

#endif
