/*
 * The objects bound in a context, as the program's glBind* calls set them (the wrappers:
 * injection/layer_bindings.c), so that a storage call
 * by target (glBufferData, glTexImage2D, glRenderbufferStorage) names its object without a
 * driver query (perfq_gl_bound, gl_layer.h; the cost: bench-nv-query-resource).
 *
 * Exactness: a binding is used only while the layer knows it; everything else asks the driver
 * (glGetIntegerv) and remembers the answer.
 * - Tracked: buffer targets that only glBindBuffer(ARB) sets (ARRAY, ELEMENT_ARRAY, PIXEL_PACK,
 *   PIXEL_UNPACK, COPY_READ, COPY_WRITE, TEXTURE_BUFFER, DRAW_INDIRECT, DISPATCH_INDIRECT,
 *   QUERY, PARAMETER); the active texture unit and each texture target of units 0..31; the
 *   renderbuffer. Indexed buffer targets (uniform, transform feedback, storage, atomic counter:
 *   glBindBufferBase/Range and their aliases also set them) are always asked.
 * - Forgotten (asked again): ELEMENT_ARRAY at glBindVertexArray(APPLE/OES) (it is vertex array
 *   state); every buffer at glPopClientAttrib and every texture and the unit at glPopAttrib
 *   (compatibility attribute stacks); the units glBindTextures, glBindTextureUnit and
 *   glBindMultiTextureEXT name; everything at any GL error the layer or the program reads: a
 *   bind the driver refused raised one, and until it is read it is still pending at the next
 *   storage call, whose error check then sees it (GL 4.6 section 2.3.1).
 * - Deleting a bound object unbinds it in the current context (GL 4.6 section 5.1.2): the
 *   delete wrappers set those bindings to 0.
 * Every change of a binding the layer knows (and every forgetting) clears the context's repeat
 * record (struct perfq_gl_repeat): a repeated call by target names the object bound now.
 */
#include "gl/contexts/layer_internal.h"

#include <string.h>

int perfq_gl_buffer_slot(GLenum target)
{
    switch (target) {
    case GL_ARRAY_BUFFER: return 0;
    case GL_ELEMENT_ARRAY_BUFFER: return 1;
    case GL_PIXEL_PACK_BUFFER: return 2;
    case GL_PIXEL_UNPACK_BUFFER: return 3;
    case GL_COPY_READ_BUFFER: return 4;
    case GL_COPY_WRITE_BUFFER: return 5;
    case GL_TEXTURE_BUFFER: return 6;
    case GL_DRAW_INDIRECT_BUFFER: return 7;
    case GL_DISPATCH_INDIRECT_BUFFER: return 8;
    case GL_QUERY_BUFFER: return 9;
    case GL_PARAMETER_BUFFER_ARB: return 10;
    default: return -1;
    }
}

static int buffer_slot_of_binding(GLenum pname)
{
    switch (pname) {
    case GL_ARRAY_BUFFER_BINDING: return 0;
    case GL_ELEMENT_ARRAY_BUFFER_BINDING: return 1;
    case GL_PIXEL_PACK_BUFFER_BINDING: return 2;
    case GL_PIXEL_UNPACK_BUFFER_BINDING: return 3;
    case GL_COPY_READ_BUFFER_BINDING: return 4;
    case GL_COPY_WRITE_BUFFER_BINDING: return 5;
    case GL_TEXTURE_BUFFER_BINDING: return 6;
    case GL_DRAW_INDIRECT_BUFFER_BINDING: return 7;
    case GL_DISPATCH_INDIRECT_BUFFER_BINDING: return 8;
    case GL_QUERY_BUFFER_BINDING: return 9;
    case GL_PARAMETER_BUFFER_BINDING_ARB: return 10;
    default: return -1;
    }
}

int perfq_gl_texture_slot(GLenum target)
{
    switch (target) {
    case GL_TEXTURE_1D: return 0;
    case GL_TEXTURE_2D: return 1;
    case GL_TEXTURE_3D: return 2;
    case GL_TEXTURE_1D_ARRAY: return 3;
    case GL_TEXTURE_2D_ARRAY: return 4;
    case GL_TEXTURE_RECTANGLE: return 5;
    case GL_TEXTURE_CUBE_MAP: return 6;
    case GL_TEXTURE_CUBE_MAP_ARRAY: return 7;
    case GL_TEXTURE_2D_MULTISAMPLE: return 8;
    case GL_TEXTURE_2D_MULTISAMPLE_ARRAY: return 9;
    case GL_TEXTURE_BUFFER: return 10;
    default: return -1;
    }
}

static int texture_slot_of_binding(GLenum pname)
{
    switch (pname) {
    case GL_TEXTURE_BINDING_1D: return 0;
    case GL_TEXTURE_BINDING_2D: return 1;
    case GL_TEXTURE_BINDING_3D: return 2;
    case GL_TEXTURE_BINDING_1D_ARRAY: return 3;
    case GL_TEXTURE_BINDING_2D_ARRAY: return 4;
    case GL_TEXTURE_BINDING_RECTANGLE: return 5;
    case GL_TEXTURE_BINDING_CUBE_MAP: return 6;
    case GL_TEXTURE_BINDING_CUBE_MAP_ARRAY: return 7;
    case GL_TEXTURE_BINDING_2D_MULTISAMPLE: return 8;
    case GL_TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY: return 9;
    case GL_TEXTURE_BINDING_BUFFER: return 10;
    default: return -1;
    }
}

void perfq_gl_bindings_deleted(struct perfq_gl_ctx *c, perfq_gl_object_kind_t kind, GLsizei n,
                               const GLuint *names)
{
    struct perfq_gl_bindings *b = &c->bindings;
    if (n <= 0 || !names)
        return;
    perfq_gl_repeat_clear(&c->repeat);
    if (n > 8 && kind == PERFQ_GL_OBJECT_TEXTURE) {
        /* Many names against every unit: cheaper to ask again later. */
        memset(b->textures_known, 0, sizeof b->textures_known);
        return;
    }
    for (GLsizei i = 0; i < n; i++) {
        GLuint name = names[i];
        if (!name)
            continue;
        switch (kind) {
        case PERFQ_GL_OBJECT_BUFFER:
            for (int s = 0; s < PERFQ_GL_BUFFER_SLOTS; s++)
                if (b->buffer[s] == name)
                    b->buffer[s] = 0;       /* a slot not known stays not known */
            break;
        case PERFQ_GL_OBJECT_TEXTURE:
            for (int u = 0; u < PERFQ_GL_TRACKED_UNITS; u++)
                for (int s = 0; b->textures_known[u] && s < PERFQ_GL_TEXTURE_SLOTS; s++)
                    if (b->texture[u][s] == name)
                        b->texture[u][s] = 0;
            break;
        case PERFQ_GL_OBJECT_RENDERBUFFER:
            if (b->renderbuffer == name)
                b->renderbuffer = 0;
            break;
        }
    }
}

/* The driver's answer, remembered where the binding is tracked. */
static GLuint ask(struct perfq_gl_ctx *c, GLenum pname)
{
    GLint v = 0;
    if (c->pub.gl->glGetIntegerv)
        c->pub.gl->glGetIntegerv(pname, &v);
    return (GLuint)v;
}

int perfq_gl_binding_tracked(struct perfq_gl_ctx *c, perfq_gl_object_kind_t kind, GLenum target)
{
    const struct perfq_gl_bindings *b = &c->bindings;
    int s;
    switch (kind) {
    case PERFQ_GL_OBJECT_BUFFER:
        s = perfq_gl_buffer_slot(target);
        return s >= 0 && (b->buffers_known & (1u << s));
    case PERFQ_GL_OBJECT_TEXTURE:
        if (target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X && target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z)
            target = GL_TEXTURE_CUBE_MAP;
        s = perfq_gl_texture_slot(target);
        return s >= 0 && b->unit_known && b->unit < PERFQ_GL_TRACKED_UNITS &&
               (b->textures_known[b->unit] & (1u << s));
    case PERFQ_GL_OBJECT_RENDERBUFFER:
        return target == GL_RENDERBUFFER && b->renderbuffer_known;
    }
    return 0;
}

int perfq_gl_no_unpack_buffer(struct perfq_gl_ctx *c)
{
    /* Pixel unpack buffers: GL 2.1, GLES 3.0; where the context has none, none is bound. */
    int has = c->pub.api == PERFQ_GL_API_GLES ? perfq_gl_version_at_least(&c->pub, 3, 0)
                                               : perfq_gl_version_at_least(&c->pub, 2, 1);
    return !has || perfq_gl_bound(&c->pub, GL_PIXEL_UNPACK_BUFFER_BINDING) == 0;
}

GLuint perfq_gl_bound(struct perfq_gl_context *pub, GLenum pname)
{
    struct perfq_gl_ctx *c = perfq_gl_ctx(pub);
    struct perfq_gl_bindings *b = &c->bindings;
    int s = buffer_slot_of_binding(pname);
    if (s >= 0) {
        if (!(b->buffers_known & (1u << s))) {
            b->buffer[s] = ask(c, pname);
            b->buffers_known |= 1u << s;
        }
        return b->buffer[s];
    }
    if (pname == GL_RENDERBUFFER_BINDING) {
        if (!b->renderbuffer_known) {
            b->renderbuffer = ask(c, pname);
            b->renderbuffer_known = 1;
        }
        return b->renderbuffer;
    }
    s = texture_slot_of_binding(pname);
    if (s < 0)
        return ask(c, pname);
    if (!b->unit_known) {
        b->unit = ask(c, GL_ACTIVE_TEXTURE) - GL_TEXTURE0;
        b->unit_known = 1;
    }
    if (b->unit >= PERFQ_GL_TRACKED_UNITS)
        return ask(c, pname);
    if (!(b->textures_known[b->unit] & (1u << s))) {
        b->texture[b->unit][s] = ask(c, pname);
        b->textures_known[b->unit] |= (uint16_t)(1u << s);
    }
    return b->texture[b->unit][s];
}

static GLenum texture_binding_of_slot(int s)
{
    static const GLenum pnames[PERFQ_GL_TEXTURE_SLOTS] = {
        GL_TEXTURE_BINDING_1D, GL_TEXTURE_BINDING_2D, GL_TEXTURE_BINDING_3D,
        GL_TEXTURE_BINDING_1D_ARRAY, GL_TEXTURE_BINDING_2D_ARRAY, GL_TEXTURE_BINDING_RECTANGLE,
        GL_TEXTURE_BINDING_CUBE_MAP, GL_TEXTURE_BINDING_CUBE_MAP_ARRAY,
        GL_TEXTURE_BINDING_2D_MULTISAMPLE, GL_TEXTURE_BINDING_2D_MULTISAMPLE_ARRAY,
        GL_TEXTURE_BINDING_BUFFER,
    };
    return pnames[s];
}

GLuint perfq_gl_texture_on_unit(struct perfq_gl_ctx *c, GLuint unit, GLenum target)
{
    struct perfq_gl_bindings *b = &c->bindings;
    if (target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X && target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z)
        target = GL_TEXTURE_CUBE_MAP;
    int s = perfq_gl_texture_slot(target);
    if (s < 0)
        return 0;                           /* proxies: no object */
    if (unit < PERFQ_GL_TRACKED_UNITS && (b->textures_known[unit] & (1u << s)))
        return b->texture[unit][s];
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    if (!gl->glActiveTexture || !gl->glGetIntegerv)
        return 0;
    /* GL has no query of another unit's binding (EXT_direct_state_access's indexed form is not
     * in every driver): select the unit, ask, select the program's unit again. The unit exists
     * (the program's call on it was accepted), so none of these raises an error. */
    GLuint active = b->unit_known ? b->unit : ask(c, GL_ACTIVE_TEXTURE) - GL_TEXTURE0;
    perfq_gl_repeat_clear(&c->repeat);
    gl->glActiveTexture(GL_TEXTURE0 + unit);
    GLuint name = ask(c, texture_binding_of_slot(s));
    gl->glActiveTexture(GL_TEXTURE0 + active);
    b->unit = active;
    b->unit_known = 1;
    if (unit < PERFQ_GL_TRACKED_UNITS) {
        b->texture[unit][s] = name;
        b->textures_known[unit] |= (uint16_t)(1u << s);
    }
    return name;
}
