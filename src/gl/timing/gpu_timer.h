/*
 * The GPU timer's calls for the rest of the layer (front ends use gl_layer.h): its per-context
 * work (contexts/layer_internal.h, struct perfq_gl_context_services: registered there at load,
 * run by context.c) and its diagnostics (injection/entry_points.c).
 */
#ifndef PERFQ_GL_TIMING_GPU_TIMER_H
#define PERFQ_GL_TIMING_GPU_TIMER_H

#include "gl/contexts/layer_internal.h"

/* Stops the context's fence helper and frees its timer state. */
void perfq_gl_timer_free_context(struct perfq_gl_ctx *ctx, int gl_usable);
void perfq_gl_timer_stats(struct perfq_gl_layer_stats *out);

#endif
