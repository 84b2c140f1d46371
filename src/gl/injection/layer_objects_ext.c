/*
 * More storage calls, reported to object observers like those of layer_objects.c (issue 8):
 * EXT_direct_state_access's texture forms (the texture named, the target given), the GLES
 * extension forms (OES_texture_3D, EXT_buffer_storage, OES/EXT_texture_buffer), and the calls that
 * give a texture or renderbuffer an EGLImage's storage (OES_EGL_image, EXT_EGL_image_storage:
 * event EXTERNAL, the object then holds no storage of its own; docs/nv-query-resource.md).
 */
#include "gl/injection/layer_objects.h"

/* ---- EXT_direct_state_access ----------------------------------------------------------------- */

/* The texture-unit forms (glMultiTex*EXT: the texture bound to `target` on `texunit`): the object
 * is named once the driver accepted the call (the unit then exists); the unit's default texture
 * (name 0) is no object the accounting names. */
#define OBSERVED_MULTITEX(fn, args, texunit, ...) \
    do { \
        __typeof__(perfq_gl_real_table.fn) real_fn = PERFQ_GL_WRAPPED_REAL(fn); \
        if (!real_fn) \
            return; \
        struct perfq_gl_ctx *c = observer_context(); \
        real_fn args; \
        if (!c) \
            return; \
        GLenum error = perfq_gl_call_repeatable_end(c); \
        if (__builtin_expect(error != GL_NO_ERROR, 0)) \
            error = RUN_AGAIN_FOR_ANSWER(c, real_fn args); \
        struct perfq_gl_object_call call = {.function = #fn, .error = error, __VA_ARGS__}; \
        if (error == GL_NO_ERROR && \
            !(call.name = perfq_gl_texture_on_unit(c, (texunit) - GL_TEXTURE0, call.target))) \
            return; \
        perfq_gl_observe_object(c, &call); \
    } while (0)

void glMultiTexImage1DEXT(GLenum texunit, GLenum target, GLint level, GLint internalformat,
                          GLsizei width, GLint border, GLenum format, GLenum type,
                          const void *pixels)
{
    OBSERVED_MULTITEX(glMultiTexImage1DEXT,
                      (texunit, target, level, internalformat, width, border, format, type,
                       pixels), texunit,
                      TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
                      .internalformat = (GLenum)internalformat, DIMS(width, 1, 1),
                      .format = format, .type = type);
}

void glMultiTexImage2DEXT(GLenum texunit, GLenum target, GLint level, GLint internalformat,
                          GLsizei width, GLsizei height, GLint border, GLenum format,
                          GLenum type, const void *pixels)
{
    OBSERVED_MULTITEX(glMultiTexImage2DEXT,
                      (texunit, target, level, internalformat, width, height, border, format,
                       type, pixels), texunit,
                      TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
                      .internalformat = (GLenum)internalformat, DIMS(width, height, 1),
                      .format = format, .type = type);
}

void glMultiTexImage3DEXT(GLenum texunit, GLenum target, GLint level, GLint internalformat,
                          GLsizei width, GLsizei height, GLsizei depth, GLint border,
                          GLenum format, GLenum type, const void *pixels)
{
    OBSERVED_MULTITEX(glMultiTexImage3DEXT,
                      (texunit, target, level, internalformat, width, height, depth, border,
                       format, type, pixels), texunit,
                      TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
                      .internalformat = (GLenum)internalformat, DIMS(width, height, depth),
                      .format = format, .type = type);
}

void glCompressedMultiTexImage1DEXT(GLenum texunit, GLenum target, GLint level,
                                    GLenum internalformat, GLsizei width, GLint border,
                                    GLsizei imageSize, const void *bits)
{
    OBSERVED_MULTITEX(glCompressedMultiTexImage1DEXT,
                      (texunit, target, level, internalformat, width, border, imageSize, bits),
                      texunit, TEX_ALLOC, .target = target, .level = level, .levels = 1,
                      .internalformat = internalformat, DIMS(width, 1, 1), .size = imageSize);
}

void glCompressedMultiTexImage2DEXT(GLenum texunit, GLenum target, GLint level,
                                    GLenum internalformat, GLsizei width, GLsizei height,
                                    GLint border, GLsizei imageSize, const void *bits)
{
    OBSERVED_MULTITEX(glCompressedMultiTexImage2DEXT,
                      (texunit, target, level, internalformat, width, height, border, imageSize,
                       bits), texunit,
                      TEX_ALLOC, .target = target, .level = level, .levels = 1,
                      .internalformat = internalformat, DIMS(width, height, 1),
                      .size = imageSize);
}

void glCompressedMultiTexImage3DEXT(GLenum texunit, GLenum target, GLint level,
                                    GLenum internalformat, GLsizei width, GLsizei height,
                                    GLsizei depth, GLint border, GLsizei imageSize,
                                    const void *bits)
{
    OBSERVED_MULTITEX(glCompressedMultiTexImage3DEXT,
                      (texunit, target, level, internalformat, width, height, depth, border,
                       imageSize, bits), texunit,
                      TEX_ALLOC, .target = target, .level = level, .levels = 1,
                      .internalformat = internalformat, DIMS(width, height, depth),
                      .size = imageSize);
}

void glGenerateMultiTexMipmapEXT(GLenum texunit, GLenum target)
{
    OBSERVED_MULTITEX(glGenerateMultiTexMipmapEXT, (texunit, target), texunit,
                      TEX_EVENT(PERFQ_GL_OBJECT_MIPMAPS), .target = target);
}

void glMultiTexBufferEXT(GLenum texunit, GLenum target, GLenum internalformat, GLuint buffer)
{
    OBSERVED_MULTITEX(glMultiTexBufferEXT, (texunit, target, internalformat, buffer), texunit,
                      TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target,
                      .source = buffer, .internalformat = internalformat);
}


void glTextureImage1DEXT(GLuint texture, GLenum target, GLint level, GLint internalformat,
                         GLsizei width, GLint border, GLenum format, GLenum type,
                         const void *pixels)
{
    OBSERVED_REPEATABLE(glTextureImage1DEXT,
             (texture, target, level, internalformat, width, border, format, type, pixels),
             TEX_ALLOC, .size = -1, .name = texture, .target = target, .level = level,
             .levels = 1, .internalformat = (GLenum)internalformat, DIMS(width, 1, 1),
             .format = format, .type = type, .border = border);
}

void glTextureImage2DEXT(GLuint texture, GLenum target, GLint level, GLint internalformat,
                         GLsizei width, GLsizei height, GLint border, GLenum format, GLenum type,
                         const void *pixels)
{
    OBSERVED_REPEATABLE(glTextureImage2DEXT,
             (texture, target, level, internalformat, width, height, border, format, type,
              pixels),
             TEX_ALLOC, .size = -1, .name = texture, .target = target, .level = level,
             .levels = 1, .internalformat = (GLenum)internalformat, DIMS(width, height, 1),
             .format = format, .type = type, .border = border);
}

void glTextureImage3DEXT(GLuint texture, GLenum target, GLint level, GLint internalformat,
                         GLsizei width, GLsizei height, GLsizei depth, GLint border,
                         GLenum format, GLenum type, const void *pixels)
{
    OBSERVED_REPEATABLE(glTextureImage3DEXT,
             (texture, target, level, internalformat, width, height, depth, border, format,
              type, pixels),
             TEX_ALLOC, .size = -1, .name = texture, .target = target, .level = level,
             .levels = 1, .internalformat = (GLenum)internalformat, DIMS(width, height, depth),
             .format = format, .type = type, .border = border);
}

void glCompressedTextureImage1DEXT(GLuint texture, GLenum target, GLint level,
                                   GLenum internalformat, GLsizei width, GLint border,
                                   GLsizei imageSize, const void *bits)
{
    OBSERVED_REPEATABLE(glCompressedTextureImage1DEXT,
             (texture, target, level, internalformat, width, border, imageSize, bits), TEX_ALLOC,
             .name = texture, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, 1, 1), .size = imageSize,
             .border = border);
}

void glCompressedTextureImage2DEXT(GLuint texture, GLenum target, GLint level,
                                   GLenum internalformat, GLsizei width, GLsizei height,
                                   GLint border, GLsizei imageSize, const void *bits)
{
    OBSERVED_REPEATABLE(glCompressedTextureImage2DEXT,
             (texture, target, level, internalformat, width, height, border, imageSize, bits),
             TEX_ALLOC, .name = texture, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, 1), .size = imageSize,
             .border = border);
}

void glCompressedTextureImage3DEXT(GLuint texture, GLenum target, GLint level,
                                   GLenum internalformat, GLsizei width, GLsizei height,
                                   GLsizei depth, GLint border, GLsizei imageSize,
                                   const void *bits)
{
    OBSERVED_REPEATABLE(glCompressedTextureImage3DEXT,
             (texture, target, level, internalformat, width, height, depth, border, imageSize,
              bits),
             TEX_ALLOC, .name = texture, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth), .size = imageSize,
             .border = border);
}

void glTextureStorage1DEXT(GLuint texture, GLenum target, GLsizei levels, GLenum internalformat,
                           GLsizei width)
{
    OBSERVED(glTextureStorage1DEXT, (texture, target, levels, internalformat, width), TEX_ALLOC,
             .replaces_storage = 1, .size = -1, .name = texture, .target = target,
             .levels = levels, .internalformat = internalformat, DIMS(width, 1, 1));
}

void glTextureStorage2DEXT(GLuint texture, GLenum target, GLsizei levels, GLenum internalformat,
                           GLsizei width, GLsizei height)
{
    OBSERVED(glTextureStorage2DEXT, (texture, target, levels, internalformat, width, height),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .name = texture, .target = target,
             .levels = levels, .internalformat = internalformat, DIMS(width, height, 1));
}

void glTextureStorage3DEXT(GLuint texture, GLenum target, GLsizei levels, GLenum internalformat,
                           GLsizei width, GLsizei height, GLsizei depth)
{
    OBSERVED(glTextureStorage3DEXT,
             (texture, target, levels, internalformat, width, height, depth), TEX_ALLOC,
             .replaces_storage = 1, .size = -1, .name = texture, .target = target,
             .levels = levels, .internalformat = internalformat, DIMS(width, height, depth));
}

/* ---- GLES extension forms -------------------------------------------------------------------- */

void glTexImage3DOES(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                     GLsizei height, GLsizei depth, GLint border, GLenum format, GLenum type,
                     const void *pixels)
{
    OBSERVED_REPEATABLE(glTexImage3DOES,
             (target, level, internalformat, width, height, depth, border, format, type, pixels),
             TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth), .format = format,
             .type = type, .border = border);
}

void glBufferStorageEXT(GLenum target, GLsizeiptr size, const void *data, GLbitfield flags)
{
    OBSERVED(glBufferStorageEXT, (target, size, data, flags), BUFFER_ALLOC, .target = target,
             .size = size);
}

void glTexBufferOES(GLenum target, GLenum internalformat, GLuint buffer)
{
    OBSERVED(glTexBufferOES, (target, internalformat, buffer),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTexBufferRangeOES(GLenum target, GLenum internalformat, GLuint buffer, GLintptr offset,
                         GLsizeiptr size)
{
    OBSERVED(glTexBufferRangeOES, (target, internalformat, buffer, offset, size),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTexBufferRangeEXT(GLenum target, GLenum internalformat, GLuint buffer, GLintptr offset,
                         GLsizeiptr size)
{
    OBSERVED(glTexBufferRangeEXT, (target, internalformat, buffer, offset, size),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

/* ---- EGLImage storage: counted once, where the image's source was allocated ------------------- */

void glEGLImageTargetTexture2DOES(GLenum target, GLeglImageOES image)
{
    OBSERVED(glEGLImageTargetTexture2DOES, (target, image),
             TEX_EVENT(PERFQ_GL_OBJECT_EXTERNAL), .target = target);
}

void glEGLImageTargetTexStorageEXT(GLenum target, GLeglImageOES image, const GLint *attrib_list)
{
    OBSERVED(glEGLImageTargetTexStorageEXT, (target, image, attrib_list),
             TEX_EVENT(PERFQ_GL_OBJECT_EXTERNAL), .target = target);
}

void glEGLImageTargetTextureStorageEXT(GLuint texture, GLeglImageOES image,
                                       const GLint *attrib_list)
{
    OBSERVED(glEGLImageTargetTextureStorageEXT, (texture, image, attrib_list),
             TEX_EVENT(PERFQ_GL_OBJECT_EXTERNAL), .name = texture);
}

void glEGLImageTargetRenderbufferStorageOES(GLenum target, GLeglImageOES image)
{
    OBSERVED(glEGLImageTargetRenderbufferStorageOES, (target, image),
             .kind = PERFQ_GL_OBJECT_RENDERBUFFER, .event = PERFQ_GL_OBJECT_EXTERNAL,
             DIMS(1, 1, 1), .size = -1, .target = target);
}
