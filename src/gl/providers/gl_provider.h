/*
 * Provider "gl": the counters of one GL context, from the GL layer's virtualised queries
 * (DESIGN.md layer 1; GPU_TIMELINE scope, asynchronous results). The INTEL front end opens, per GL
 * context, an instance of the context's own providers with perfq__open_with(), giving this
 * provider the context (the built-ins are in the process's one instance).
 *
 * Groups:
 *   "gl-pipeline"  ARB_pipeline_statistics_query's statistics the driver has, samples passed,
 *                  primitives generated, the layer's GPU timer, and two BOOL32 flags (GL_INTEL
 *                  issue 5): split-occurred and gpu-time-disjoint. Available where the driver
 *                  has the pipeline statistics queries.
 *   "gl-timer"     the layer's GPU timer alone (and its disjoint flag), where it works: also on
 *                  GLES drivers without pipeline statistics.
 *
 * Every value is a driver query result (summed over the pieces the layer split it into) or the
 * layer's timer; a query the driver lacks makes its counter unavailable, never zero.
 */
#ifndef PERFQ_GL_GL_PROVIDER_H
#define PERFQ_GL_GL_PROVIDER_H

#include <stdint.h>

#include "core/provider.h"

struct perfq_gl_context;

/* The provider's probe argument: the context (gl_layer.h), and a flag the owner sets when GL may
 * no longer be called (a context destroyed while not current): sessions then only free their
 * CPU memory. Owned by the caller; it must outlive the perfq instance. All provider calls run on
 * the thread where the context is current. */
struct gl_provider_link {
    struct perfq_gl_context *ctx;
    int gl_lost;
};

extern const struct perfq_provider_ops perfq_gl_provider;

#endif
