/* The GLX fence waiter of the timer's helper thread (glx_fence.c). */
#ifndef PERFQ_GL_GLX_FENCE_H
#define PERFQ_GL_GLX_FENCE_H

#include "gl/contexts/layer_internal.h"

struct perfq_gl_glx_waiter;

/* 1 if a GLX context can have sync objects (GL_ARB_sync, GL 3.2, GLES 3.0) waited by a helper
 * thread. */
int perfq_gl_glx_fences_possible(struct perfq_gl_ctx *c);
/* On the program's thread, its context current: a connection, a context sharing the program's
 * and a 1x1 pbuffer for the helper. NULL if any of it fails. */
struct perfq_gl_glx_waiter *perfq_gl_glx_waiter_create(struct perfq_gl_ctx *c);
/* On the helper thread: make the waiter's context current (0) or not. */
int perfq_gl_glx_waiter_bind(struct perfq_gl_glx_waiter *w, const struct perfq_gl_dispatch *gl);
void perfq_gl_glx_waiter_unbind(struct perfq_gl_glx_waiter *w, const struct perfq_gl_dispatch *gl);
/* Once the helper has unbound it and exited. */
void perfq_gl_glx_waiter_destroy(struct perfq_gl_glx_waiter *w,
                                 const struct perfq_gl_dispatch *gl);

#endif
