/*
 * GL_NV_query_resource's accounting fed by the layer's object observer (gl_layer.h, struct
 * perfq_gl_object_call): every storage call the driver accepted becomes an update of the share
 * group's table (nvres_accounting.c). Calls by target name the object bound there; the layer's
 * own lookups (bindings, a DSA texture's target, a renderbuffer's samples) are bracketed so that
 * nothing reaches the program's error flag.
 */
#include "gl/nvres/nv_query_resource.h"

#include <string.h>

#include "gl/nvres/nvres_accounting.h"
#include "gl/nvres/nvres_stat.h"

static GLenum texture_binding(GLenum target)
{
    switch (target) {
    case GL_TEXTURE_1D: return GL_TEXTURE_BINDING_1D;
    case GL_TEXTURE_2D: return GL_TEXTURE_BINDING_2D;
    case GL_TEXTURE_3D: return GL_TEXTURE_BINDING_3D;
    case GL_TEXTURE_1D_ARRAY: return GL_TEXTURE_BINDING_1D_ARRAY;
    case GL_TEXTURE_2D_ARRAY: return GL_TEXTURE_BINDING_2D_ARRAY;
    case GL_TEXTURE_RECTANGLE: return GL_TEXTURE_BINDING_RECTANGLE;
    case GL_TEXTURE_CUBE_MAP:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_X: case GL_TEXTURE_CUBE_MAP_NEGATIVE_X:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_Y: case GL_TEXTURE_CUBE_MAP_NEGATIVE_Y:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_Z: case GL_TEXTURE_CUBE_MAP_NEGATIVE_Z:
        return GL_TEXTURE_BINDING_CUBE_MAP;
    case GL_TEXTURE_CUBE_MAP_ARRAY: return GL_TEXTURE_BINDING_CUBE_MAP_ARRAY;
    case GL_TEXTURE_2D_MULTISAMPLE: return GL_TEXTURE_BINDING_2D_MULTISAMPLE;
    case GL_TEXTURE_2D_MULTISAMPLE_ARRAY: return GL_TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY;
    case GL_TEXTURE_BUFFER: return GL_TEXTURE_BINDING_BUFFER;
    default: return 0;      /* proxies: no object, no storage */
    }
}

static GLenum buffer_binding(GLenum target)
{
    switch (target) {
    case GL_ARRAY_BUFFER: return GL_ARRAY_BUFFER_BINDING;
    case GL_ELEMENT_ARRAY_BUFFER: return GL_ELEMENT_ARRAY_BUFFER_BINDING;
    case GL_PIXEL_PACK_BUFFER: return GL_PIXEL_PACK_BUFFER_BINDING;
    case GL_PIXEL_UNPACK_BUFFER: return GL_PIXEL_UNPACK_BUFFER_BINDING;
    case GL_COPY_READ_BUFFER: return GL_COPY_READ_BUFFER_BINDING;
    case GL_COPY_WRITE_BUFFER: return GL_COPY_WRITE_BUFFER_BINDING;
    case GL_TRANSFORM_FEEDBACK_BUFFER: return GL_TRANSFORM_FEEDBACK_BUFFER_BINDING;
    case GL_UNIFORM_BUFFER: return GL_UNIFORM_BUFFER_BINDING;
    case GL_TEXTURE_BUFFER: return GL_TEXTURE_BUFFER_BINDING;
    case GL_DRAW_INDIRECT_BUFFER: return GL_DRAW_INDIRECT_BUFFER_BINDING;
    case GL_DISPATCH_INDIRECT_BUFFER: return GL_DISPATCH_INDIRECT_BUFFER_BINDING;
    case GL_SHADER_STORAGE_BUFFER: return GL_SHADER_STORAGE_BUFFER_BINDING;
    case GL_ATOMIC_COUNTER_BUFFER: return GL_ATOMIC_COUNTER_BUFFER_BINDING;
    case GL_QUERY_BUFFER: return GL_QUERY_BUFFER_BINDING;
    case GL_PARAMETER_BUFFER_ARB: return GL_PARAMETER_BUFFER_BINDING_ARB;
    default: return 0;
    }
}

/* The object the call named: its name (DSA), else the one bound to its target. */
static GLuint object_of(struct perfq_gl_context *ctx, const struct perfq_gl_object_call *c)
{
    if (c->name)
        return c->name;
    GLenum pname = c->kind == PERFQ_GL_OBJECT_BUFFER ? buffer_binding(c->target)
                 : c->kind == PERFQ_GL_OBJECT_TEXTURE ? texture_binding(c->target)
                 : c->target == GL_RENDERBUFFER ? GL_RENDERBUFFER_BINDING : 0;
    if (!pname)
        return 0;
    /* The layer's record of the program's binds; where it has none, the driver is asked (not
     * bracketed: the driver just accepted a call on this target, so its binding exists in this
     * context and the query cannot raise an error). */
    return perfq_gl_bound(ctx, pname);
}

/* A DSA texture's target (GL 4.5 GetTextureParameteriv TEXTURE_TARGET), else the one it was
 * created with (Mesa 22's compatibility profile refuses TEXTURE_TARGET). */
static GLenum texture_target(struct perfq_gl_context *ctx, struct perfq_nvres_group *acc,
                             GLuint texture)
{
    GLint t = 0;
    if (ctx->gl->glGetTextureParameteriv) {
        perfq_gl_error_guard_begin(ctx);
        ctx->gl->glGetTextureParameteriv(texture, GL_TEXTURE_TARGET, &t);
        if (perfq_gl_error_guard_end(ctx) != GL_NO_ERROR)
            t = 0;
    }
    return t ? (GLenum)t : (GLenum)perfq_nvres_texture_target(acc, texture);
}

/* The samples the driver gave a multisample renderbuffer (it may round the request up). */
static GLsizei renderbuffer_samples(struct perfq_gl_context *ctx, const struct perfq_gl_object_call *c,
                                    GLuint rb)
{
    if (c->samples <= 0)
        return 0;
    GLint got = c->samples;
    perfq_gl_error_guard_begin(ctx);
    if (c->name && ctx->gl->glGetNamedRenderbufferParameteriv)
        ctx->gl->glGetNamedRenderbufferParameteriv(rb, GL_RENDERBUFFER_SAMPLES, &got);
    else if (!c->name && ctx->gl->glGetRenderbufferParameteriv)
        ctx->gl->glGetRenderbufferParameteriv(GL_RENDERBUFFER, GL_RENDERBUFFER_SAMPLES, &got);
    if (perfq_gl_error_guard_end(ctx) != GL_NO_ERROR)
        got = c->samples;
    return got;
}

/* The format tables are searched linearly; a program uploads the same format again and again,
 * so the thread's last answer is kept (the tables are constant). */
static int format_lookup(GLenum internalformat, GLenum format, GLenum type,
                         struct perfq_nvres_format *out)
{
    static __thread struct {
        int valid, known;
        GLenum internalformat, format, type;
        struct perfq_nvres_format f;
    } last;
    if (!last.valid || last.internalformat != internalformat || last.format != format ||
        last.type != type) {
        last.known = perfq_nvres_format_lookup(internalformat, format, type, &last.f);
        last.internalformat = internalformat;
        last.format = format;
        last.type = type;
        last.valid = 1;
    }
    if (last.known)
        *out = last.f;
    return last.known;
}

/* ---- the fast path -----------------------------------------------------------------------
 * A streaming program re-specifies the same object with the same storage call after call
 * (glBufferData orphaning, a video frame's glTexImage2D). Such a call changes nothing in the
 * table when this context's last applied call set the same object to the same storage under the
 * same tag and no object of the share group changed since (its generation still reads what that
 * change returned: any change by any context raises it, under the table's lock): each update
 * sets state from its arguments alone (a buffer's or renderbuffer's bytes and tag; one image of a
 * texture, its tag and level 0's format), so applying it again leaves the state it left. The
 * call then costs no lock, no lookup and no level sum; the totals stay exact. Only the calls
 * whose update depends on nothing but their arguments and the named object take it: buffer
 * data, single-sample renderbuffer storage, one texture image (TexImage*, CompressedTexImage*,
 * CopyTexImage*); not immutable storage (GL refuses it twice), multisample renderbuffers (the
 * driver's sample count is asked), views, mipmaps, deletes. */
static int fast_path_kind(const struct perfq_gl_object_call *c)
{
    if (c->event != PERFQ_GL_OBJECT_ALLOCATE)
        return 0;
    if (c->kind == PERFQ_GL_OBJECT_RENDERBUFFER)
        return c->samples == 0;
    return c->kind == PERFQ_GL_OBJECT_BUFFER || !c->replaces_storage;
}

static int same_storage(const struct perfq_gl_object_call *a, const struct perfq_gl_object_call *b)
{
    return a->kind == b->kind && a->event == b->event && a->target == b->target &&
           a->size == b->size && a->level == b->level && a->levels == b->levels &&
           a->internalformat == b->internalformat && a->width == b->width &&
           a->height == b->height && a->depth == b->depth && a->samples == b->samples &&
           a->format == b->format && a->type == b->type &&
           a->replaces_storage == b->replaces_storage;
}

static int unchanged(const struct perfq_nv_context_state *st, struct perfq_nvres_group *acc,
                     const struct perfq_gl_object_call *c, GLuint obj, int32_t tag)
{
    const struct perfq_nv_last_storage *l = &st->last;
    return l->generation != 0 && l->object == obj && l->tag == tag && same_storage(&l->call, c) &&
           perfq_nvres_group_generation(acc) == l->generation;
}

static void remember(struct perfq_nv_context_state *st, const struct perfq_gl_object_call *c,
                     GLuint obj, int32_t tag, uint64_t generation)
{
    st->last.generation = generation;
    st->last.object = obj;
    st->last.tag = tag;
    st->last.call = *c;
    st->last.call.function = NULL;      /* not kept: only the sizing fields are compared */
    st->last.call.names = NULL;
}

/* Returns the group's generation after the change, or 0 (nothing applied, or not one image). */
static uint64_t texture_allocate(struct perfq_gl_context *ctx, struct perfq_nvres_group *acc,
                                 const struct perfq_gl_object_call *c, GLuint t, int32_t tag)
{
    if (c->width < 0 || c->height < 0 || c->depth < 0 || c->samples < 0)
        return 0;
    struct perfq_nvres_format f;
    /* Immutable and multisample storage replace every image; TexImage-style calls set one. */
    if (c->replaces_storage) {
        if (!format_lookup(c->internalformat, 0, 0, &f))
            return 0;
        /* TextureStorage* names no target; the EXT_direct_state_access forms do. */
        GLenum target = c->target ? c->target : texture_target(ctx, acc, t);
        perfq_nvres_texture_storage(acc, t, &f, perfq_nvres_target_shape(target), c->levels,
                                    (uint64_t)c->width, (uint64_t)c->height,
                                    (uint64_t)c->depth, (uint64_t)c->samples, tag);
        return 0;
    }
    perfq_nvres_shape_t shape = perfq_nvres_target_shape(c->target);
    if (shape == PERFQ_NVRES_SHAPE_NONE)
        return 0;
    int known = format_lookup(c->internalformat, c->format, c->type, &f);
    uint64_t bytes;
    if (c->size >= 0)
        bytes = (uint64_t)c->size;          /* compressed: the bytes the program gave */
    else if (known)
        bytes = perfq_nvres_image_bytes(&f, (uint64_t)c->width, (uint64_t)c->height,
                                        (uint64_t)c->depth, 1);
    else
        return 0;                           /* a format no table knows: left out */
    int face = c->target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X &&
               c->target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z ? perfq_nvres_cube_face(c->target) : -1;
    return perfq_nvres_texture_image(acc, t, face, c->level, bytes, known ? &f : NULL, shape,
                                     (uint64_t)c->width, (uint64_t)c->height, (uint64_t)c->depth,
                                     tag);
}

void perfq_nv_query_resource_observe(struct perfq_gl_context *ctx, void *data,
                                     const struct perfq_gl_object_call *c)
{
    struct perfq_nvres_group *acc = perfq_nv_query_resource_table(data);
    if (!acc || c->error != GL_NO_ERROR)
        return;                             /* refused by the driver: "no effect" */
    perfq_nvres_type_t type = c->kind == PERFQ_GL_OBJECT_TEXTURE ? PERFQ_NVRES_TEXTURE
                            : c->kind == PERFQ_GL_OBJECT_RENDERBUFFER ? PERFQ_NVRES_RENDERBUFFER
                            : PERFQ_NVRES_BUFFER;
    switch (c->event) {
    case PERFQ_GL_OBJECT_CREATE:
        /* glCreateTextures: the target, for TextureStorage* where the driver will not say it */
        if (c->kind == PERFQ_GL_OBJECT_TEXTURE && c->target && c->names)
            for (GLsizei i = 0; i < c->n; i++)
                perfq_nvres_texture_created(acc, c->names[i], c->target);
        return;
    case PERFQ_GL_OBJECT_DELETE:
        if (c->names)
            for (GLsizei i = 0; i < c->n; i++)
                if (c->names[i])
                    perfq_nvres_delete(acc, type, c->names[i]);
        perfq_nvres_stat_changed(acc);
        return;
    default:
        break;
    }
    GLuint obj = object_of(ctx, c);
    if (!obj)
        return;
    struct perfq_nv_context_state *st = perfq_nv_query_resource_context(ctx);
    int32_t tag = st ? st->current_tag : 0;
    int fast = st && fast_path_kind(c);
    if (fast && unchanged(st, acc, c, obj, tag)) {
        /* the same storage again: nothing changes, nor will it for the next same call while
         * the generation stays (the layer may answer those itself) */
        perfq_gl_object_repeatable(ctx, perfq_nvres_group_generation_word(acc),
                                   st->last.generation, NULL, 0);
        return;
    }
    uint64_t generation = 0;
    switch (c->event) {
    case PERFQ_GL_OBJECT_ALLOCATE:
        if (c->kind == PERFQ_GL_OBJECT_BUFFER) {
            if (c->size >= 0)
                generation = perfq_nvres_buffer_storage(acc, obj, (uint64_t)c->size, tag);
        } else if (c->kind == PERFQ_GL_OBJECT_RENDERBUFFER) {
            struct perfq_nvres_format f;
            if (c->width < 0 || c->height < 0 ||
                !format_lookup(c->internalformat, 0, 0, &f))
                return;
            GLsizei samples = renderbuffer_samples(ctx, c, obj);
            generation = perfq_nvres_renderbuffer_storage(
                acc, obj, perfq_nvres_image_bytes(&f, (uint64_t)c->width, (uint64_t)c->height, 1,
                                                  (uint64_t)(samples > 0 ? samples : 0)),
                tag);
        } else {
            generation = texture_allocate(ctx, acc, c, obj, tag);
        }
        break;
    case PERFQ_GL_OBJECT_VIEW:
        perfq_nvres_texture_view(acc, obj, c->source);
        break;
    case PERFQ_GL_OBJECT_BUFFER_TEXTURE:
        perfq_nvres_texture_buffer(acc, obj);
        break;
    case PERFQ_GL_OBJECT_EXTERNAL:
        /* An EGLImage's storage: counted once, where the image's source was allocated (a GL
         * texture or renderbuffer of this layer stays counted there; a dma-buf, a pixmap or
         * another API's memory is outside GL's accounting). The object's own storage is gone. */
        if (c->kind == PERFQ_GL_OBJECT_RENDERBUFFER)
            perfq_nvres_renderbuffer_storage(acc, obj, 0, tag);
        else
            perfq_nvres_texture_buffer(acc, obj);
        break;
    case PERFQ_GL_OBJECT_MIPMAPS:
        perfq_nvres_texture_generate_mipmap(acc, obj, tag);
        break;
    default:
        break;
    }
    if (st)
        st->last.generation = 0;            /* until remembered below */
    if (fast && generation) {
        remember(st, c, obj, tag, generation);
        perfq_gl_object_repeatable(ctx, perfq_nvres_group_generation_word(acc), generation,
                                   NULL, 0);
    }
    perfq_nvres_stat_changed(acc);
}
