/*
 * A GL context's GPU stamps on the CPU clock (CLOCK_MONOTONIC), for `perfq record`'s timeline
 * (docs/perfq-record.md, "GPU time on the CPU clock"); used by the frames (stat_frames.c) and,
 * with --per-draw, the draws (stat_draws.c) of each context.
 *  - fence path: a stamp already is CLOCK_MONOTONIC (the helper thread's); the error is the
 *    stamp resolution;
 *  - query path: stamps are in the driver's GL_TIMESTAMP domain; the offset to CLOCK_MONOTONIC
 *    comes from glGetInteger64v(GL_TIMESTAMP) between two CPU clock reads (ARB_timer_query:
 *    the GL's current time, the domain of glQueryCounter stamps); error: half the bracket.
 *    Measured when the context is first seen and again when the caller asks (clock drift).
 */
#ifndef PERFQ_GL_STAT_CLOCK_H
#define PERFQ_GL_STAT_CLOCK_H

#include <stdint.h>

#include "gl/gl_layer.h"

struct perfq_stat_clock {
    perfq_gl_timer_path_t path;
    int have_offset;                      /* query path: offset measured */
    int64_t offset_ns;                    /* CLOCK_MONOTONIC - GL_TIMESTAMP */
    uint64_t offset_err_ns;
    uint64_t resolution_ns;
};

/* The context's path and resolution, and a first correlation (the context is current). */
void perfq_stat_clock_init(struct perfq_stat_clock *k, struct perfq_gl_context *ctx);
/* Measures the query path's offset again (the context is current); nothing on the fence path. */
void perfq_stat_clock_correlate(struct perfq_stat_clock *k, struct perfq_gl_context *ctx);
/* A stamp on the CPU clock, with its error in *err; 0 when it cannot be told. */
uint64_t perfq_stat_clock_to_cpu(const struct perfq_stat_clock *k, uint64_t stamp,
                                 uint64_t *err);
/* An interval's begin and end stamps (perfq_gl_timer_span, its result read) on the CPU clock,
 * with their error in *err: 0; -1 where the timer has none (TIME_ELAPSED) or they cannot be
 * converted. */
int perfq_stat_clock_span(const struct perfq_stat_clock *k, const struct perfq_gl_timer *t,
                          uint64_t *begin, uint64_t *end, uint64_t *err);
/* The error a context's GL_CONTEXT record announces. */
uint64_t perfq_stat_clock_error(const struct perfq_stat_clock *k);

#endif
