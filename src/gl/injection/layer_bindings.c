/*
 * The program's glBind* calls (and glActiveTexture, glBindVertexArray, glPop*Attrib), wrapped so
 * that the layer knows what is bound in each context without asking the driver: the state and
 * its rules are in contexts/bindings.c.
 */
#include "gl/contexts/layer_internal.h"

#include <string.h>

/* ---- the program's binds ------------------------------------------------------------------ */

static void bound_buffer(GLenum target, GLuint buffer)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (!c)
        return;
    if (target == GL_QUERY_BUFFER && buffer)
        c->query_buffer_bound = 1;
    int s = perfq_gl_buffer_slot(target);
    if (s >= 0) {
        /* The same buffer again leaves the binding as it was, accepted or refused. */
        if (!(c->bindings.buffers_known & (1u << s)) || c->bindings.buffer[s] != buffer)
            perfq_gl_repeat_clear(&c->repeat);
        c->bindings.buffer[s] = buffer;
        c->bindings.buffers_known |= 1u << s;
    } else {
        perfq_gl_repeat_clear(&c->repeat);
    }
}

/* glBindBuffer: also notes a buffer bound to GL_QUERY_BUFFER (ARB_query_buffer_object), so
 * that the layer's own query reads check and unbind it only in programs that use one. */
PERFQ_GL_EXPORT void glBindBuffer(GLenum target, GLuint buffer)
{
    perfq_gl_dispatch()->glBindBuffer(target, buffer);
    bound_buffer(target, buffer);
}

PERFQ_GL_EXPORT void glBindBufferARB(GLenum target, GLuint buffer)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    __typeof__(perfq_gl_real_table.glBindBufferARB) real = PERFQ_GL_WRAPPED_REAL(glBindBufferARB);
    if (real)
        real(target, buffer);
    else
        gl->glBindBuffer(target, buffer);
    bound_buffer(target, buffer);
}

static void forget_element_array(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c) {
        c->bindings.buffers_known &= ~(1u << 1);
        perfq_gl_repeat_clear(&c->repeat);
    }
}

PERFQ_GL_EXPORT void glBindVertexArray(GLuint array)
{
    __typeof__(perfq_gl_real_table.glBindVertexArray) real =
        PERFQ_GL_WRAPPED_REAL(glBindVertexArray);
    if (!real)
        return;
    real(array);
    forget_element_array();
}

PERFQ_GL_EXPORT void glBindVertexArrayAPPLE(GLuint array)
{
    __typeof__(perfq_gl_real_table.glBindVertexArrayAPPLE) real =
        PERFQ_GL_WRAPPED_REAL(glBindVertexArrayAPPLE);
    if (!real)
        return;
    real(array);
    forget_element_array();
}

PERFQ_GL_EXPORT void glBindVertexArrayOES(GLuint array)
{
    __typeof__(perfq_gl_real_table.glBindVertexArrayOES) real =
        PERFQ_GL_WRAPPED_REAL(glBindVertexArrayOES);
    if (!real)
        return;
    real(array);
    forget_element_array();
}

PERFQ_GL_EXPORT void glPopClientAttrib(void)
{
    __typeof__(perfq_gl_real_table.glPopClientAttrib) real =
        PERFQ_GL_WRAPPED_REAL(glPopClientAttrib);
    if (!real)
        return;
    real();
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c) {
        c->bindings.buffers_known = 0;
        perfq_gl_repeat_clear(&c->repeat);
    }
}

PERFQ_GL_EXPORT void glPopAttrib(void)
{
    __typeof__(perfq_gl_real_table.glPopAttrib) real = PERFQ_GL_WRAPPED_REAL(glPopAttrib);
    if (!real)
        return;
    real();
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (c) {
        c->bindings.unit_known = 0;
        memset(c->bindings.textures_known, 0, sizeof c->bindings.textures_known);
        perfq_gl_repeat_clear(&c->repeat);
    }
}

static void active_unit(GLenum texture)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (!c)
        return;
    if (!c->bindings.unit_known || c->bindings.unit != texture - GL_TEXTURE0)
        perfq_gl_repeat_clear(&c->repeat);
    c->bindings.unit = texture - GL_TEXTURE0;   /* out of range: not tracked, asked */
    c->bindings.unit_known = 1;
}

PERFQ_GL_EXPORT void glActiveTexture(GLenum texture)
{
    perfq_gl_dispatch()->glActiveTexture(texture);
    active_unit(texture);
}

PERFQ_GL_EXPORT void glActiveTextureARB(GLenum texture)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    __typeof__(perfq_gl_real_table.glActiveTextureARB) real =
        PERFQ_GL_WRAPPED_REAL(glActiveTextureARB);
    if (real)
        real(texture);
    else
        gl->glActiveTexture(texture);
    active_unit(texture);
}

static void bound_texture(GLenum target, GLuint texture)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (!c)
        return;
    struct perfq_gl_bindings *b = &c->bindings;
    int s = perfq_gl_texture_slot(target);
    if (s < 0 || !b->unit_known || b->unit >= PERFQ_GL_TRACKED_UNITS) {
        perfq_gl_repeat_clear(&c->repeat);
        return;                             /* asked at the next storage call */
    }
    if (!(b->textures_known[b->unit] & (1u << s)) || b->texture[b->unit][s] != texture)
        perfq_gl_repeat_clear(&c->repeat);
    b->texture[b->unit][s] = texture;
    b->textures_known[b->unit] |= (uint16_t)(1u << s);
}

PERFQ_GL_EXPORT void glBindTexture(GLenum target, GLuint texture)
{
    PERFQ_GL_WRAPPED_REAL(glBindTexture)(target, texture);
    bound_texture(target, texture);
}

PERFQ_GL_EXPORT void glBindTextureEXT(GLenum target, GLuint texture)
{
    __typeof__(perfq_gl_real_table.glBindTextureEXT) real = PERFQ_GL_WRAPPED_REAL(glBindTextureEXT);
    if (real)
        real(target, texture);
    else
        PERFQ_GL_WRAPPED_REAL(glBindTexture)(target, texture);
    bound_texture(target, texture);
}

static void forget_units(GLuint first, GLsizei count)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (!c || count <= 0)
        return;
    perfq_gl_repeat_clear(&c->repeat);
    for (GLuint u = first; u < PERFQ_GL_TRACKED_UNITS && u - first < (GLuint)count; u++)
        c->bindings.textures_known[u] = 0;
}

PERFQ_GL_EXPORT void glBindTextures(GLuint first, GLsizei count, const GLuint *textures)
{
    __typeof__(perfq_gl_real_table.glBindTextures) real = PERFQ_GL_WRAPPED_REAL(glBindTextures);
    if (!real)
        return;
    real(first, count, textures);
    forget_units(first, count);
}

PERFQ_GL_EXPORT void glBindTextureUnit(GLuint unit, GLuint texture)
{
    __typeof__(perfq_gl_real_table.glBindTextureUnit) real =
        PERFQ_GL_WRAPPED_REAL(glBindTextureUnit);
    if (!real)
        return;
    real(unit, texture);
    forget_units(unit, 1);
}

PERFQ_GL_EXPORT void glBindMultiTextureEXT(GLenum texunit, GLenum target, GLuint texture)
{
    __typeof__(perfq_gl_real_table.glBindMultiTextureEXT) real =
        PERFQ_GL_WRAPPED_REAL(glBindMultiTextureEXT);
    if (!real)
        return;
    real(texunit, target, texture);
    forget_units(texunit - GL_TEXTURE0, 1);
}

static void bound_renderbuffer(GLenum target, GLuint rb)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    if (!c)
        return;
    if (target != GL_RENDERBUFFER) {
        perfq_gl_repeat_clear(&c->repeat);
        return;
    }
    if (!c->bindings.renderbuffer_known || c->bindings.renderbuffer != rb)
        perfq_gl_repeat_clear(&c->repeat);
    c->bindings.renderbuffer = rb;
    c->bindings.renderbuffer_known = 1;
}

PERFQ_GL_EXPORT void glBindRenderbuffer(GLenum target, GLuint renderbuffer)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (!gl->glBindRenderbuffer)
        return;
    gl->glBindRenderbuffer(target, renderbuffer);
    bound_renderbuffer(target, renderbuffer);
}

PERFQ_GL_EXPORT void glBindRenderbufferEXT(GLenum target, GLuint renderbuffer)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    __typeof__(perfq_gl_real_table.glBindRenderbufferEXT) real =
        PERFQ_GL_WRAPPED_REAL(glBindRenderbufferEXT);
    if (real)
        real(target, renderbuffer);
    else if (gl->glBindRenderbuffer)
        gl->glBindRenderbuffer(target, renderbuffer);
    else
        return;
    bound_renderbuffer(target, renderbuffer);
}
