/*
 * Disjoint tracking of the GPU timer (gpu_timer.c): on the QUERY path, the driver's
 * GL_GPU_DISJOINT_EXT (EXT_disjoint_timer_query), read by the layer and remembered for the
 * program and for the timers in flight; on the FENCE path a failed or late stamp makes its timer
 * disjoint (perfq_gl_timer_result).
 */
#include "gl/timing/timer_internal.h"
#include "perfq/angle_timer_query.h"   /* GL_GPU_DISJOINT_EXT */

/* GPU_DISJOINT_EXT: reading it clears it, so a read by the layer is remembered for the program
 * (perfq_gl_timer_disjoint_for_program) and for every timer that was in flight. */
void perfq_gl_timer_read_disjoint(struct perfq_gl_ctx *c)
{
    struct perfq_gl_timer_state *s = c->timer;
    GLint d = 0;
    perfq_gl_error_guard_begin(&c->pub);
    c->pub.gl->glGetIntegerv(GL_GPU_DISJOINT_EXT, &d);
    perfq_gl_error_guard_end(&c->pub);
    if (d) {
        s->disjoint_epoch++;
        s->disjoint_for_program = 1;
    }
}

int perfq_gl_timer_disjoint_for_program(struct perfq_gl_context *pub)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    if (!c->timer)
        return 0;
    int d = c->timer->disjoint_for_program;
    c->timer->disjoint_for_program = 0;
    return d;
}

int perfq_gl_timer_disjoint(const struct perfq_gl_timer *t)
{
    return t ? t->disjoint : 0;
}
