/*
 * "Driver Counters": what the program asks of GL and EGL, counted by the layer itself from its
 * observers and wrappers (as Broadcom's driver counted draw calls and clears in user space). Process-wide:
 * every context and thread adds to the same counts; the layer's own GL calls go through the
 * real table and are never counted. The counts are a provider (driver_counters.c) that any
 * perfq instance of the layer can open beside the built-ins.
 */
#ifndef PERFQ_GL_DRIVER_COUNTERS_H
#define PERFQ_GL_DRIVER_COUNTERS_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/provider.h"

enum perfq_gl_driver_count {
    PERFQ_GL_DRIVER_DRAW_CALLS,     /* every glDraw* call */
    PERFQ_GL_DRIVER_CLEARS,         /* glClear calls */
    PERFQ_GL_DRIVER_SWAPS,          /* eglSwapBuffers / glXSwapBuffers calls */
    PERFQ_GL_DRIVER_BUFFER_BYTES,   /* glBufferData sizes, glBufferSubData bytes (and named) */
    PERFQ_GL_DRIVER_TEXTURE_BYTES,  /* client texel bytes of glTex(Sub)Image*, imageSize of
                                     * glCompressedTex(Sub)Image* (docs/egl-brcm-...md) */
    PERFQ_GL_DRIVER_COUNT_KINDS
};

extern _Atomic uint64_t perfq_gl_driver_counts[PERFQ_GL_DRIVER_COUNT_KINDS];

/* The observers' one call: a relaxed atomic add (the hot path of a wrapped draw). */
static inline void perfq_gl_driver_add(enum perfq_gl_driver_count which, uint64_t n)
{
    atomic_fetch_add_explicit(&perfq_gl_driver_counts[which], n, memory_order_relaxed);
}

/* Bytes of w x h x d texels of a client (format, type) upload; 0 for a pair it does not know
 * (then nothing is counted). No unpack row padding: the texels themselves. */
uint64_t perfq_gl_upload_bytes(uint32_t format, uint32_t type, int64_t w, int64_t h, int64_t d);

/* The provider: group "Driver Counters". */
extern const struct perfq_provider_ops perfq_gl_driver_counters_provider;

#endif
