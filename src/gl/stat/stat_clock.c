/* GPU stamps on the CPU clock for the stat front ends' timeline (stat_clock.h). */
#include "gl/stat/stat_clock.h"

#include <string.h>

void perfq_stat_clock_correlate(struct perfq_stat_clock *k, struct perfq_gl_context *ctx)
{
    if (k->path != PERFQ_GL_TIMER_QUERY)
        return;
    void (*get64)(GLenum, GLint64 *) = ctx->gl->glGetInteger64v ? ctx->gl->glGetInteger64v
                                                                : ctx->gl->glGetInteger64vEXT;
    if (!get64)
        return;
    GLint64 gpu = 0;
    perfq_gl_error_guard_begin(ctx);
    uint64_t a = perfq_gl_now_ns();
    get64(GL_TIMESTAMP, &gpu);
    uint64_t b = perfq_gl_now_ns();
    if (perfq_gl_error_guard_end(ctx) != GL_NO_ERROR || gpu <= 0)
        return;
    k->offset_ns = (int64_t)(a / 2 + b / 2) - (int64_t)gpu;
    k->offset_err_ns = (b - a) / 2 + 1;
    k->have_offset = 1;
}

void perfq_stat_clock_init(struct perfq_stat_clock *k, struct perfq_gl_context *ctx)
{
    memset(k, 0, sizeof(*k));
    k->path = perfq_gl_timer_path(ctx);
    k->resolution_ns = perfq_gl_timer_resolution_ns(ctx);
    perfq_stat_clock_correlate(k, ctx);
}

uint64_t perfq_stat_clock_to_cpu(const struct perfq_stat_clock *k, uint64_t stamp,
                                 uint64_t *err)
{
    if (k->path == PERFQ_GL_TIMER_FENCE) {
        *err = k->resolution_ns;
        return stamp;
    }
    if (k->path == PERFQ_GL_TIMER_QUERY && k->have_offset) {
        *err = k->offset_err_ns;
        int64_t v = (int64_t)stamp + k->offset_ns;
        return v > 0 ? (uint64_t)v : 0;
    }
    return 0;
}

int perfq_stat_clock_span(const struct perfq_stat_clock *k, const struct perfq_gl_timer *t,
                          uint64_t *begin, uint64_t *end, uint64_t *err)
{
    uint64_t b, e;
    if (perfq_gl_timer_span(t, &b, &e) != PERFQ_OK)
        return -1;
    /* One offset for both ends (the latest measured): the interval keeps its measured length. */
    *begin = perfq_stat_clock_to_cpu(k, b, err);
    *end = perfq_stat_clock_to_cpu(k, e, err);
    return *begin && *end ? 0 : -1;
}

uint64_t perfq_stat_clock_error(const struct perfq_stat_clock *k)
{
    return k->path == PERFQ_GL_TIMER_FENCE ? k->resolution_ns : k->offset_err_ns;
}
