/*
 * Hot-path calls the layer wraps (glBindBuffer: layer_bindings.c). Draw calls and glClear the
 * layer wraps: reported to front ends that observe them (`perfq stat --per-draw`), and draws
 * counted per context for the Driver Counters (perfq_gl_count_draw). The measure of the
 * layer's cost on the hot path (bench/gl: a wrapped draw with no draw observer costs a
 * thread-local load, a plain increment of its context's count and the forward).
 */
#include "gl/contexts/layer_internal.h"

/* Front ends observing draws or clears see them after the real call (gl_layer.h); those with a
 * draw_begin observer also just before it. */
static void observe_draw(const char *function)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (c)
        perfq_gl_observe_draw(c, function);
}

PERFQ_GL_EXPORT void glDrawArrays(GLenum mode, GLint first, GLsizei count)
{
    perfq_gl_count_draw();
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAW_BEGIN, 0))
        perfq_gl_observe_draw_begin("glDrawArrays");
    perfq_gl_dispatch()->glDrawArrays(mode, first, count);
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAWS, 0))
        observe_draw("glDrawArrays");
}

PERFQ_GL_EXPORT void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void *indices)
{
    perfq_gl_count_draw();
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAW_BEGIN, 0))
        perfq_gl_observe_draw_begin("glDrawElements");
    perfq_gl_dispatch()->glDrawElements(mode, count, type, indices);
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAWS, 0))
        observe_draw("glDrawElements");
}

PERFQ_GL_EXPORT void glClear(GLbitfield mask)
{
    perfq_gl_dispatch()->glClear(mask);
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_CLEARS, 0)) {
        struct perfq_gl_ctx *c = perfq_gl_active_context();
        if (c)
            perfq_gl_observe_clear(c, mask);
    }
}
