/*
 * More program calls the layer wraps, for the draw observers and the layer's Driver Counters:
 * every glDraw* variant beyond glDrawArrays/glDrawElements (layer_draw.c), reported to the draw
 * observers like those two; and the sub-uploads (glBufferSubData,
 * glNamedBufferSubData, glTexSubImage2D/3D, glCompressedTexSubImage2D), which have no object
 * event (they change no storage), so their bytes go to the Driver Counters directly
 * (driver_counters.h). The layer's own GL calls use the real table and are never seen here.
 */
#include "gl/providers/driver_counters.h"
#include "gl/contexts/layer_internal.h"

#define FORWARD(name, ...)                                                              \
    do {                                                                                \
        __typeof__(perfq_gl_real_table.name) real_fn = PERFQ_GL_WRAPPED_REAL(name);     \
        if (real_fn)                                                                    \
            real_fn(__VA_ARGS__);                                                       \
    } while (0)

/* After the real call, as layer_draw.c does. */
static void observed(const char *function)
{
    if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAWS, 0)) {
        struct perfq_gl_ctx *c = perfq_gl_active_context();
        if (c)
            perfq_gl_observe_draw(c, function);
    }
}

#define DRAW(name, ...)                                                     \
    do {                                                                    \
        perfq_gl_count_draw();                                              \
        if (__builtin_expect(perfq_gl_observing & PERFQ_GL_OBSERVE_DRAW_BEGIN, 0)) \
            perfq_gl_observe_draw_begin(#name);                             \
        FORWARD(name, __VA_ARGS__);                                         \
        observed(#name);                                                    \
    } while (0)

PERFQ_GL_EXPORT void glDrawArraysInstanced(GLenum mode, GLint first, GLsizei count,
                                           GLsizei instancecount)
{
    DRAW(glDrawArraysInstanced, mode, first, count, instancecount);
}

PERFQ_GL_EXPORT void glDrawElementsInstanced(GLenum mode, GLsizei count, GLenum type,
                                             const void *indices, GLsizei instancecount)
{
    DRAW(glDrawElementsInstanced, mode, count, type, indices, instancecount);
}

PERFQ_GL_EXPORT void glDrawRangeElements(GLenum mode, GLuint start, GLuint end, GLsizei count,
                                         GLenum type, const void *indices)
{
    DRAW(glDrawRangeElements, mode, start, end, count, type, indices);
}

PERFQ_GL_EXPORT void glDrawArraysIndirect(GLenum mode, const void *indirect)
{
    DRAW(glDrawArraysIndirect, mode, indirect);
}

PERFQ_GL_EXPORT void glDrawElementsIndirect(GLenum mode, GLenum type, const void *indirect)
{
    DRAW(glDrawElementsIndirect, mode, type, indirect);
}

PERFQ_GL_EXPORT void glDrawElementsBaseVertex(GLenum mode, GLsizei count, GLenum type,
                                              const void *indices, GLint basevertex)
{
    DRAW(glDrawElementsBaseVertex, mode, count, type, indices, basevertex);
}

PERFQ_GL_EXPORT void glDrawRangeElementsBaseVertex(GLenum mode, GLuint start, GLuint end,
                                                   GLsizei count, GLenum type,
                                                   const void *indices, GLint basevertex)
{
    DRAW(glDrawRangeElementsBaseVertex, mode, start, end, count, type, indices, basevertex);
}

PERFQ_GL_EXPORT void glDrawElementsInstancedBaseVertex(GLenum mode, GLsizei count, GLenum type,
                                                       const void *indices,
                                                       GLsizei instancecount, GLint basevertex)
{
    DRAW(glDrawElementsInstancedBaseVertex, mode, count, type, indices, instancecount,
         basevertex);
}

PERFQ_GL_EXPORT void glDrawArraysInstancedBaseInstance(GLenum mode, GLint first, GLsizei count,
                                                       GLsizei instancecount,
                                                       GLuint baseinstance)
{
    DRAW(glDrawArraysInstancedBaseInstance, mode, first, count, instancecount, baseinstance);
}

PERFQ_GL_EXPORT void glDrawElementsInstancedBaseInstance(GLenum mode, GLsizei count,
                                                         GLenum type, const void *indices,
                                                         GLsizei instancecount,
                                                         GLuint baseinstance)
{
    DRAW(glDrawElementsInstancedBaseInstance, mode, count, type, indices, instancecount,
         baseinstance);
}

PERFQ_GL_EXPORT void glDrawElementsInstancedBaseVertexBaseInstance(
    GLenum mode, GLsizei count, GLenum type, const void *indices, GLsizei instancecount,
    GLint basevertex, GLuint baseinstance)
{
    DRAW(glDrawElementsInstancedBaseVertexBaseInstance, mode, count, type, indices,
         instancecount, basevertex, baseinstance);
}

/* Sub-uploads: the bytes the program hands over (NULL data: nothing). */

PERFQ_GL_EXPORT void glBufferSubData(GLenum target, GLintptr offset, GLsizeiptr size,
                                     const void *data)
{
    if (data && size > 0)
        perfq_gl_driver_add(PERFQ_GL_DRIVER_BUFFER_BYTES, (uint64_t)size);
    FORWARD(glBufferSubData, target, offset, size, data);
}

PERFQ_GL_EXPORT void glNamedBufferSubData(GLuint buffer, GLintptr offset, GLsizeiptr size,
                                          const void *data)
{
    if (data && size > 0)
        perfq_gl_driver_add(PERFQ_GL_DRIVER_BUFFER_BYTES, (uint64_t)size);
    FORWARD(glNamedBufferSubData, buffer, offset, size, data);
}

PERFQ_GL_EXPORT void glTexSubImage2D(GLenum target, GLint level, GLint xoffset, GLint yoffset,
                                     GLsizei width, GLsizei height, GLenum format, GLenum type,
                                     const void *pixels)
{
    if (pixels)
        perfq_gl_driver_add(PERFQ_GL_DRIVER_TEXTURE_BYTES,
                            perfq_gl_upload_bytes(format, type, width, height, 1));
    FORWARD(glTexSubImage2D, target, level, xoffset, yoffset, width, height, format, type,
            pixels);
}

PERFQ_GL_EXPORT void glTexSubImage3D(GLenum target, GLint level, GLint xoffset, GLint yoffset,
                                     GLint zoffset, GLsizei width, GLsizei height,
                                     GLsizei depth, GLenum format, GLenum type,
                                     const void *pixels)
{
    if (pixels)
        perfq_gl_driver_add(PERFQ_GL_DRIVER_TEXTURE_BYTES,
                            perfq_gl_upload_bytes(format, type, width, height, depth));
    FORWARD(glTexSubImage3D, target, level, xoffset, yoffset, zoffset, width, height, depth,
            format, type, pixels);
}

PERFQ_GL_EXPORT void glCompressedTexSubImage2D(GLenum target, GLint level, GLint xoffset,
                                               GLint yoffset, GLsizei width, GLsizei height,
                                               GLenum format, GLsizei imageSize,
                                               const void *data)
{
    if (data && imageSize > 0)
        perfq_gl_driver_add(PERFQ_GL_DRIVER_TEXTURE_BYTES, (uint64_t)imageSize);
    FORWARD(glCompressedTexSubImage2D, target, level, xoffset, yoffset, width, height, format,
            imageSize, data);
}
