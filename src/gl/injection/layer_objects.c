/*
 * Program calls on buffer, texture and renderbuffer objects, reported to the front ends that
 * observe them (gl_layer.h, struct perfq_gl_observers.object): creation, storage, deletion.
 * Where no front end observes objects, a wrapper costs one load and a branch and forwards.
 * Where one does, the driver's error for the call is learned (GL 4.6 section 2.3.1: the first
 * error stays pending for the program) so that observers count only what the driver accepted.
 */
#include "gl/injection/layer_objects.h"

/* After an observed delete: bindings of the deleted names revert to 0 (layer_bindings.c). */
static void forget_deleted(perfq_gl_object_kind_t kind, GLsizei n, const GLuint *names)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (c)
        perfq_gl_bindings_deleted(c, kind, n, names);
}

/* ---- buffers --------------------------------------------------------------------------------- */

void glGenBuffers(GLsizei n, GLuint *names)
{
    OBSERVED(glGenBuffers, (n, names), NAMES(PERFQ_GL_OBJECT_BUFFER, PERFQ_GL_OBJECT_CREATE));
}

void glCreateBuffers(GLsizei n, GLuint *names)
{
    OBSERVED(glCreateBuffers, (n, names), NAMES(PERFQ_GL_OBJECT_BUFFER, PERFQ_GL_OBJECT_CREATE));
}

void glDeleteBuffers(GLsizei n, const GLuint *names)
{
    OBSERVED(glDeleteBuffers, (n, names), NAMES(PERFQ_GL_OBJECT_BUFFER, PERFQ_GL_OBJECT_DELETE));
    forget_deleted(PERFQ_GL_OBJECT_BUFFER, n, names);
}


void glBufferData(GLenum target, GLsizeiptr size, const void *data, GLenum usage)
{
    OBSERVED_REPEATABLE(glBufferData, (target, size, data, usage), BUFFER_ALLOC, .target = target,
             .size = size, .format = usage);
}

void glBufferStorage(GLenum target, GLsizeiptr size, const void *data, GLbitfield flags)
{
    OBSERVED(glBufferStorage, (target, size, data, flags), BUFFER_ALLOC, .target = target,
             .size = size);
}

void glNamedBufferData(GLuint buffer, GLsizeiptr size, const void *data, GLenum usage)
{
    OBSERVED_REPEATABLE(glNamedBufferData, (buffer, size, data, usage), BUFFER_ALLOC, .name = buffer,
             .size = size, .format = usage);
}

void glNamedBufferStorage(GLuint buffer, GLsizeiptr size, const void *data, GLbitfield flags)
{
    OBSERVED(glNamedBufferStorage, (buffer, size, data, flags), BUFFER_ALLOC, .name = buffer,
             .size = size);
}

/* ---- textures -------------------------------------------------------------------------------- */

void glGenTextures(GLsizei n, GLuint *names)
{
    OBSERVED(glGenTextures, (n, names), NAMES(PERFQ_GL_OBJECT_TEXTURE, PERFQ_GL_OBJECT_CREATE));
}

void glCreateTextures(GLenum target, GLsizei n, GLuint *names)
{
    OBSERVED(glCreateTextures, (target, n, names),
             NAMES(PERFQ_GL_OBJECT_TEXTURE, PERFQ_GL_OBJECT_CREATE), .target = target);
}

void glDeleteTextures(GLsizei n, const GLuint *names)
{
    OBSERVED(glDeleteTextures, (n, names),
             NAMES(PERFQ_GL_OBJECT_TEXTURE, PERFQ_GL_OBJECT_DELETE));
    forget_deleted(PERFQ_GL_OBJECT_TEXTURE, n, names);
}


void glTexImage1D(GLenum target, GLint level, GLint internalformat, GLsizei width, GLint border,
                  GLenum format, GLenum type, const void *pixels)
{
    OBSERVED_REPEATABLE(glTexImage1D, (target, level, internalformat, width, border, format, type, pixels),
             TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = (GLenum)internalformat, DIMS(width, 1, 1), .format = format,
             .type = type, .border = border);
}

void glTexImage2D(GLenum target, GLint level, GLint internalformat, GLsizei width,
                  GLsizei height, GLint border, GLenum format, GLenum type, const void *pixels)
{
    OBSERVED_REPEATABLE(glTexImage2D,
             (target, level, internalformat, width, height, border, format, type, pixels),
             TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = (GLenum)internalformat, DIMS(width, height, 1),
             .format = format, .type = type, .border = border);
}

void glTexImage3D(GLenum target, GLint level, GLint internalformat, GLsizei width,
                  GLsizei height, GLsizei depth, GLint border, GLenum format, GLenum type,
                  const void *pixels)
{
    OBSERVED_REPEATABLE(glTexImage3D,
             (target, level, internalformat, width, height, depth, border, format, type, pixels),
             TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = (GLenum)internalformat, DIMS(width, height, depth),
             .format = format, .type = type, .border = border);
}

void glCompressedTexImage1D(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                            GLint border, GLsizei imageSize, const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage1D,
             (target, level, internalformat, width, border, imageSize, data), TEX_ALLOC,
             .target = target, .level = level, .levels = 1, .internalformat = internalformat,
             DIMS(width, 1, 1), .size = imageSize, .border = border);
}

void glCompressedTexImage2D(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                            GLsizei height, GLint border, GLsizei imageSize, const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage2D,
             (target, level, internalformat, width, height, border, imageSize, data), TEX_ALLOC,
             .target = target, .level = level, .levels = 1, .internalformat = internalformat,
             DIMS(width, height, 1), .size = imageSize, .border = border);
}

void glCompressedTexImage3D(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                            GLsizei height, GLsizei depth, GLint border, GLsizei imageSize,
                            const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage3D,
             (target, level, internalformat, width, height, depth, border, imageSize, data),
             TEX_ALLOC, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth),
             .size = imageSize, .border = border);
}

void glTexImage2DMultisample(GLenum target, GLsizei samples, GLenum internalformat,
                             GLsizei width, GLsizei height, GLboolean fixedsamplelocations)
{
    OBSERVED_REPEATABLE(glTexImage2DMultisample,
             (target, samples, internalformat, width, height, fixedsamplelocations), TEX_ALLOC, .replaces_storage = 1,
             .size = -1,
             .target = target, .levels = 1, .internalformat = internalformat, DIMS(width, height,
             1), .samples = samples);
}

void glTexImage3DMultisample(GLenum target, GLsizei samples, GLenum internalformat,
                             GLsizei width, GLsizei height, GLsizei depth,
                             GLboolean fixedsamplelocations)
{
    OBSERVED_REPEATABLE(glTexImage3DMultisample,
             (target, samples, internalformat, width, height, depth, fixedsamplelocations),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .target = target, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth), .samples = samples);
}

void glTexStorage1D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width)
{
    OBSERVED(glTexStorage1D, (target, levels, internalformat, width), TEX_ALLOC, .replaces_storage = 1, .size = -1,
             .target = target, .levels = levels, .internalformat = internalformat, DIMS(width, 1,
             1));
}

void glTexStorage2D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width,
                    GLsizei height)
{
    OBSERVED(glTexStorage2D, (target, levels, internalformat, width, height), TEX_ALLOC, .replaces_storage = 1, .size = -1,
             .target = target, .levels = levels, .internalformat = internalformat, DIMS(width,
             height, 1));
}

void glTexStorage3D(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width,
                    GLsizei height, GLsizei depth)
{
    OBSERVED(glTexStorage3D, (target, levels, internalformat, width, height, depth), TEX_ALLOC, .replaces_storage = 1,
             .size = -1,
             .target = target, .levels = levels, .internalformat = internalformat, DIMS(width,
             height, depth));
}

void glTexStorage2DMultisample(GLenum target, GLsizei samples, GLenum internalformat,
                               GLsizei width, GLsizei height, GLboolean fixedsamplelocations)
{
    OBSERVED(glTexStorage2DMultisample,
             (target, samples, internalformat, width, height, fixedsamplelocations), TEX_ALLOC, .replaces_storage = 1,
             .size = -1,
             .target = target, .levels = 1, .internalformat = internalformat, DIMS(width, height,
             1), .samples = samples);
}

void glTexStorage3DMultisample(GLenum target, GLsizei samples, GLenum internalformat,
                               GLsizei width, GLsizei height, GLsizei depth,
                               GLboolean fixedsamplelocations)
{
    OBSERVED(glTexStorage3DMultisample,
             (target, samples, internalformat, width, height, depth, fixedsamplelocations),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .target = target, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth), .samples = samples);
}

void glTextureStorage1D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width)
{
    OBSERVED(glTextureStorage1D, (texture, levels, internalformat, width), TEX_ALLOC, .replaces_storage = 1, .size = -1,
             .name = texture, .levels = levels, .internalformat = internalformat, DIMS(width, 1,
             1));
}

void glTextureStorage2D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width,
                        GLsizei height)
{
    OBSERVED(glTextureStorage2D, (texture, levels, internalformat, width, height), TEX_ALLOC, .replaces_storage = 1,
             .size = -1,
             .name = texture, .levels = levels, .internalformat = internalformat, DIMS(width,
             height, 1));
}

void glTextureStorage3D(GLuint texture, GLsizei levels, GLenum internalformat, GLsizei width,
                        GLsizei height, GLsizei depth)
{
    OBSERVED(glTextureStorage3D, (texture, levels, internalformat, width, height, depth),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .name = texture, .levels = levels,
             .internalformat = internalformat, DIMS(width, height, depth));
}

void glTextureStorage2DMultisample(GLuint texture, GLsizei samples, GLenum internalformat,
                                   GLsizei width, GLsizei height,
                                   GLboolean fixedsamplelocations)
{
    OBSERVED(glTextureStorage2DMultisample,
             (texture, samples, internalformat, width, height, fixedsamplelocations), TEX_ALLOC, .replaces_storage = 1,
             .size = -1,
             .name = texture, .levels = 1, .internalformat = internalformat, DIMS(width, height,
             1), .samples = samples);
}

void glTextureStorage3DMultisample(GLuint texture, GLsizei samples, GLenum internalformat,
                                   GLsizei width, GLsizei height, GLsizei depth,
                                   GLboolean fixedsamplelocations)
{
    OBSERVED(glTextureStorage3DMultisample,
             (texture, samples, internalformat, width, height, depth, fixedsamplelocations),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .name = texture, .levels = 1, .internalformat = internalformat,
             DIMS(width, height, depth), .samples = samples);
}

/* ---- renderbuffers --------------------------------------------------------------------------- */

void glGenRenderbuffers(GLsizei n, GLuint *names)
{
    OBSERVED(glGenRenderbuffers, (n, names),
             NAMES(PERFQ_GL_OBJECT_RENDERBUFFER, PERFQ_GL_OBJECT_CREATE));
}

void glCreateRenderbuffers(GLsizei n, GLuint *names)
{
    OBSERVED(glCreateRenderbuffers, (n, names),
             NAMES(PERFQ_GL_OBJECT_RENDERBUFFER, PERFQ_GL_OBJECT_CREATE));
}

void glDeleteRenderbuffers(GLsizei n, const GLuint *names)
{
    OBSERVED(glDeleteRenderbuffers, (n, names),
             NAMES(PERFQ_GL_OBJECT_RENDERBUFFER, PERFQ_GL_OBJECT_DELETE));
    forget_deleted(PERFQ_GL_OBJECT_RENDERBUFFER, n, names);
}


void glRenderbufferStorage(GLenum target, GLenum internalformat, GLsizei width, GLsizei height)
{
    OBSERVED_REPEATABLE(glRenderbufferStorage, (target, internalformat, width, height), RB_ALLOC,
             .target = target, .levels = 1, .internalformat = internalformat, DIMS(width, height,
             1));
}

void glRenderbufferStorageMultisample(GLenum target, GLsizei samples, GLenum internalformat,
                                      GLsizei width, GLsizei height)
{
    OBSERVED_REPEATABLE(glRenderbufferStorageMultisample, (target, samples, internalformat, width, height),
             RB_ALLOC, .target = target, .levels = 1, .internalformat = internalformat, DIMS(width,
             height, 1), .samples = samples);
}

void glNamedRenderbufferStorage(GLuint renderbuffer, GLenum internalformat, GLsizei width,
                                GLsizei height)
{
    OBSERVED_REPEATABLE(glNamedRenderbufferStorage, (renderbuffer, internalformat, width, height),
             RB_ALLOC, .name = renderbuffer, .levels = 1, .internalformat = internalformat,
             DIMS(width, height, 1));
}

void glNamedRenderbufferStorageMultisample(GLuint renderbuffer, GLsizei samples,
                                           GLenum internalformat, GLsizei width, GLsizei height)
{
    OBSERVED_REPEATABLE(glNamedRenderbufferStorageMultisample,
             (renderbuffer, samples, internalformat, width, height), RB_ALLOC,
             .name = renderbuffer, .levels = 1, .internalformat = internalformat, DIMS(width,
             height, 1), .samples = samples);
}

/* ---- more storage calls: ARB/EXT aliases, copies, views, buffer textures, mipmaps ---------- */

void glBufferDataARB(GLenum target, GLsizeiptrARB size, const void *data, GLenum usage)
{
    OBSERVED_REPEATABLE(glBufferDataARB, (target, size, data, usage), BUFFER_ALLOC, .target = target,
             .size = size, .format = usage);
}

void glDeleteBuffersARB(GLsizei n, const GLuint *names)
{
    OBSERVED(glDeleteBuffersARB, (n, names),
             NAMES(PERFQ_GL_OBJECT_BUFFER, PERFQ_GL_OBJECT_DELETE));
    forget_deleted(PERFQ_GL_OBJECT_BUFFER, n, names);
}

void glNamedBufferDataEXT(GLuint buffer, GLsizeiptr size, const void *data, GLenum usage)
{
    OBSERVED_REPEATABLE(glNamedBufferDataEXT, (buffer, size, data, usage), BUFFER_ALLOC, .name = buffer,
             .size = size, .format = usage);
}

void glNamedBufferStorageEXT(GLuint buffer, GLsizeiptr size, const void *data, GLbitfield flags)
{
    OBSERVED(glNamedBufferStorageEXT, (buffer, size, data, flags), BUFFER_ALLOC, .name = buffer,
             .size = size);
}

void glCompressedTexImage1DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                               GLint border, GLsizei imageSize, const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage1DARB,
             (target, level, internalformat, width, border, imageSize, data), TEX_ALLOC,
             .size = imageSize, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, 1, 1), .border = border);
}

void glCompressedTexImage2DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                               GLsizei height, GLint border, GLsizei imageSize, const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage2DARB,
             (target, level, internalformat, width, height, border, imageSize, data), TEX_ALLOC,
             .size = imageSize, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, 1), .border = border);
}

void glCompressedTexImage3DARB(GLenum target, GLint level, GLenum internalformat, GLsizei width,
                               GLsizei height, GLsizei depth, GLint border, GLsizei imageSize,
                               const void *data)
{
    OBSERVED_REPEATABLE(glCompressedTexImage3DARB,
             (target, level, internalformat, width, height, depth, border, imageSize, data),
             TEX_ALLOC, .size = imageSize, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, depth), .border = border);
}

void glCopyTexImage1D(GLenum target, GLint level, GLenum internalformat, GLint x, GLint y,
                      GLsizei width, GLint border)
{
    OBSERVED(glCopyTexImage1D, (target, level, internalformat, x, y, width, border), TEX_ALLOC,
             .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, 1, 1));
}

void glCopyTexImage2D(GLenum target, GLint level, GLenum internalformat, GLint x, GLint y,
                      GLsizei width, GLsizei height, GLint border)
{
    OBSERVED(glCopyTexImage2D, (target, level, internalformat, x, y, width, height, border),
             TEX_ALLOC, .size = -1, .target = target, .level = level, .levels = 1,
             .internalformat = internalformat, DIMS(width, height, 1));
}

void glTexStorage1DEXT(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width)
{
    OBSERVED(glTexStorage1DEXT, (target, levels, internalformat, width), TEX_ALLOC, .replaces_storage = 1, .size = -1,
             .target = target, .levels = levels, .internalformat = internalformat,
             DIMS(width, 1, 1));
}

void glTexStorage2DEXT(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width,
                       GLsizei height)
{
    OBSERVED(glTexStorage2DEXT, (target, levels, internalformat, width, height), TEX_ALLOC, .replaces_storage = 1,
             .size = -1, .target = target, .levels = levels, .internalformat = internalformat,
             DIMS(width, height, 1));
}

void glTexStorage3DEXT(GLenum target, GLsizei levels, GLenum internalformat, GLsizei width,
                       GLsizei height, GLsizei depth)
{
    OBSERVED(glTexStorage3DEXT, (target, levels, internalformat, width, height, depth),
             TEX_ALLOC, .replaces_storage = 1, .size = -1, .target = target, .levels = levels,
             .internalformat = internalformat, DIMS(width, height, depth));
}


void glTextureView(GLuint texture, GLenum target, GLuint origtexture, GLenum internalformat,
                   GLuint minlevel, GLuint numlevels, GLuint minlayer, GLuint numlayers)
{
    OBSERVED(glTextureView, (texture, target, origtexture, internalformat, minlevel, numlevels,
                             minlayer, numlayers),
             TEX_EVENT(PERFQ_GL_OBJECT_VIEW), .name = texture, .target = target,
             .source = origtexture, .internalformat = internalformat);
}

void glTexBuffer(GLenum target, GLenum internalformat, GLuint buffer)
{
    OBSERVED(glTexBuffer, (target, internalformat, buffer),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTexBufferARB(GLenum target, GLenum internalformat, GLuint buffer)
{
    OBSERVED(glTexBufferARB, (target, internalformat, buffer),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTexBufferEXT(GLenum target, GLenum internalformat, GLuint buffer)
{
    OBSERVED(glTexBufferEXT, (target, internalformat, buffer),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTexBufferRange(GLenum target, GLenum internalformat, GLuint buffer, GLintptr offset,
                      GLsizeiptr size)
{
    OBSERVED(glTexBufferRange, (target, internalformat, buffer, offset, size),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .target = target, .source = buffer,
             .internalformat = internalformat);
}

void glTextureBuffer(GLuint texture, GLenum internalformat, GLuint buffer)
{
    OBSERVED(glTextureBuffer, (texture, internalformat, buffer),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .name = texture, .source = buffer,
             .internalformat = internalformat);
}

void glTextureBufferRange(GLuint texture, GLenum internalformat, GLuint buffer, GLintptr offset,
                          GLsizeiptr size)
{
    OBSERVED(glTextureBufferRange, (texture, internalformat, buffer, offset, size),
             TEX_EVENT(PERFQ_GL_OBJECT_BUFFER_TEXTURE), .name = texture, .source = buffer,
             .internalformat = internalformat);
}

void glGenerateMipmap(GLenum target)
{
    OBSERVED(glGenerateMipmap, (target), TEX_EVENT(PERFQ_GL_OBJECT_MIPMAPS), .target = target);
}

void glGenerateMipmapEXT(GLenum target)
{
    OBSERVED(glGenerateMipmapEXT, (target), TEX_EVENT(PERFQ_GL_OBJECT_MIPMAPS),
             .target = target);
}

void glGenerateTextureMipmap(GLuint texture)
{
    OBSERVED(glGenerateTextureMipmap, (texture), TEX_EVENT(PERFQ_GL_OBJECT_MIPMAPS),
             .name = texture);
}

void glRenderbufferStorageEXT(GLenum target, GLenum internalformat, GLsizei width,
                              GLsizei height)
{
    OBSERVED_REPEATABLE(glRenderbufferStorageEXT, (target, internalformat, width, height), RB_ALLOC,
             .target = target, .levels = 1, .internalformat = internalformat,
             DIMS(width, height, 1));
}

void glRenderbufferStorageMultisampleEXT(GLenum target, GLsizei samples, GLenum internalformat,
                                         GLsizei width, GLsizei height)
{
    OBSERVED_REPEATABLE(glRenderbufferStorageMultisampleEXT,
             (target, samples, internalformat, width, height), RB_ALLOC, .target = target,
             .levels = 1, .internalformat = internalformat, DIMS(width, height, 1),
             .samples = samples);
}

void glDeleteRenderbuffersEXT(GLsizei n, const GLuint *names)
{
    OBSERVED(glDeleteRenderbuffersEXT, (n, names),
             NAMES(PERFQ_GL_OBJECT_RENDERBUFFER, PERFQ_GL_OBJECT_DELETE));
    forget_deleted(PERFQ_GL_OBJECT_RENDERBUFFER, n, names);
}
