/*
 * Draw calls the layer wraps: counted per context (a "layer" counter front ends may expose), and
 * the measure of the layer's cost on the hot path (bench/gl: a wrapped draw with no query
 * active costs a thread-local load, an increment and the forward).
 */
#include "gl/layer_internal.h"

PERFQ_GL_EXPORT void glDrawArrays(GLenum mode, GLint first, GLsizei count)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c)
        c->draw_calls++;
    perfq_gl_dispatch()->glDrawArrays(mode, first, count);
}

PERFQ_GL_EXPORT void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void *indices)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c)
        c->draw_calls++;
    perfq_gl_dispatch()->glDrawElements(mode, count, type, indices);
}
