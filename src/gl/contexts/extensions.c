/*
 * Extension strings and glGet values: the layer adds the extensions it implements to
 * glGetString(GL_EXTENSIONS), glGetStringi(GL_EXTENSIONS, i) and GL_NUM_EXTENSIONS, only in
 * contexts where their predicate says the layer can honour them, and answers the glGet values
 * front ends register (their struct perfq_gl_frontend's gl_extensions and integers). Everything
 * else is the driver's.
 */
#include "gl/contexts/layer_internal.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

int perfq_gl_has_driver_extension(const struct perfq_gl_context *pub, const char *name)
{
    const struct perfq_gl_ctx *c = (const struct perfq_gl_ctx *)pub;
    for (GLint i = 0; i < c->n_driver_extensions; i++)
        if (strcmp(c->driver_extensions[i], name) == 0)
            return 1;
    return 0;
}

static void add_driver_extension(struct perfq_gl_ctx *c, const char *name, size_t len,
                                 GLint *cap)
{
    if (c->n_driver_extensions == *cap) {
        GLint ncap = *cap ? *cap * 2 : 256;
        char **n = realloc(c->driver_extensions, (size_t)ncap * sizeof *n);
        if (!n)
            return;
        c->driver_extensions = n;
        *cap = ncap;
    }
    char *s = malloc(len + 1);
    if (!s)
        return;
    memcpy(s, name, len);
    s[len] = '\0';
    c->driver_extensions[c->n_driver_extensions++] = s;
}

void perfq_gl_extensions_init(struct perfq_gl_ctx *c)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    GLint cap = 0;
    int indexed = gl->glGetStringi && perfq_gl_version_at_least(&c->pub, 3, 0);
    if (indexed) {
        GLint n = 0;
        gl->glGetIntegerv(GL_NUM_EXTENSIONS, &n);
        for (GLint i = 0; i < n; i++) {
            const char *e = (const char *)gl->glGetStringi(GL_EXTENSIONS, (GLuint)i);
            if (e)
                add_driver_extension(c, e, strlen(e), &cap);
        }
    } else if (gl->glGetString) {
        const char *s = (const char *)gl->glGetString(GL_EXTENSIONS);
        while (s && *s) {
            while (*s == ' ')
                s++;
            size_t len = strcspn(s, " ");
            if (len)
                add_driver_extension(c, s, len, &cap);
            s += len;
        }
    }
}

void perfq_gl_extensions_evaluate(struct perfq_gl_ctx *c)
{
    c->n_layer_extensions = 0;
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        for (const struct perfq_gl_extension *e = perfq_gl_frontend_at(i)->gl_extensions;
             e && e->name && c->n_layer_extensions < PERFQ_GL_MAX_LAYER_EXTENSIONS; e++) {
            if (perfq_gl_has_driver_extension(&c->pub, e->name))
                continue;
            if (e->available && e->available(&c->pub))
                c->layer_extensions[c->n_layer_extensions++] = e->name;
        }
    }
}

void perfq_gl_extensions_free(struct perfq_gl_ctx *c)
{
    for (GLint i = 0; i < c->n_driver_extensions; i++)
        free(c->driver_extensions[i]);
    free(c->driver_extensions);
    c->driver_extensions = NULL;
    c->n_driver_extensions = 0;
    c->n_layer_extensions = 0;
    free(c->extension_string);
    c->extension_string = NULL;
}

int perfq_gl_integer_lookup(struct perfq_gl_ctx *c, GLenum pname, int64_t *value)
{
    if (!c || !c->initialized || c->finalized)
        return 0;
    int n = perfq_gl_frontend_count();
    for (int i = 0; i < n; i++) {
        for (const struct perfq_gl_integer *v = perfq_gl_frontend_at(i)->integers; v && v->pname;
             v++) {
            if (v->pname != pname || !v->value)
                continue;
            if (v->available && !v->available(&c->pub))
                return 0;
            *value = v->value(&c->pub, pname);
            return 1;
        }
    }
    return 0;
}

static struct perfq_gl_ctx *active_context(void)
{
    struct perfq_gl_ctx *c = perfq_gl_tls_current;
    return c && c->initialized && !c->finalized ? c : NULL;
}

PERFQ_GL_EXPORT const GLubyte *glGetString(GLenum name)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    struct perfq_gl_ctx *c = active_context();
    const GLubyte *s = gl->glGetString ? gl->glGetString(name) : NULL;
    if (name != GL_EXTENSIONS || !c || !s || c->n_layer_extensions == 0)
        return s;
    if (!c->extension_string) {
        size_t len = strlen((const char *)s) + 1;
        for (GLint i = 0; i < c->n_layer_extensions; i++)
            len += strlen(c->layer_extensions[i]) + 1;
        char *all = malloc(len + 1);
        if (!all)
            return s;
        strcpy(all, (const char *)s);
        for (GLint i = 0; i < c->n_layer_extensions; i++) {
            size_t cur = strlen(all);
            if (cur && all[cur - 1] != ' ')
                strcat(all, " ");
            strcat(all, c->layer_extensions[i]);
        }
        c->extension_string = all;
    }
    return (const GLubyte *)c->extension_string;
}

PERFQ_GL_EXPORT const GLubyte *glGetStringi(GLenum name, GLuint index)
{
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    struct perfq_gl_ctx *c = active_context();
    if (name == GL_EXTENSIONS && c && c->n_layer_extensions > 0 &&
        index >= (GLuint)c->n_driver_extensions &&
        index < (GLuint)(c->n_driver_extensions + c->n_layer_extensions))
        return (const GLubyte *)c->layer_extensions[index - (GLuint)c->n_driver_extensions];
    if (name == GL_EXTENSIONS && c && index >= (GLuint)c->n_driver_extensions) {
        /* GL 4.6 section 22.2: "INVALID_VALUE is generated if index is outside the valid
         * range". Past the layer's own: the driver would say so too, but its range is shorter. */
        perfq_gl_record_error(&c->pub, GL_INVALID_VALUE);
        return NULL;
    }
    return gl->glGetStringi ? gl->glGetStringi(name, index) : NULL;
}

/* The layer's answer for pname, if any: 1 and *v. */
static int layer_value(GLenum pname, int64_t *v)
{
    struct perfq_gl_ctx *c = active_context();
    if (!c)
        return 0;
    if (pname == GL_NUM_EXTENSIONS && c->n_layer_extensions > 0 &&
        perfq_gl_version_at_least(&c->pub, 3, 0)) {
        *v = c->n_driver_extensions + c->n_layer_extensions;
        return 1;
    }
    return perfq_gl_integer_lookup(c, pname, v);
}

PERFQ_GL_EXPORT void glGetIntegerv(GLenum pname, GLint *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (GLint)v;
        return;
    }
    perfq_gl_dispatch()->glGetIntegerv(pname, data);
}

PERFQ_GL_EXPORT void glGetInteger64v(GLenum pname, GLint64 *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = v;
        return;
    }
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (gl->glGetInteger64v)
        gl->glGetInteger64v(pname, data);
    else if (gl->glGetInteger64vEXT)
        gl->glGetInteger64vEXT(pname, data);
}

PERFQ_GL_EXPORT void glGetInteger64vEXT(GLenum pname, GLint64 *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = v;
        return;
    }
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (gl->glGetInteger64vEXT)
        gl->glGetInteger64vEXT(pname, data);
    else if (gl->glGetInteger64v)
        gl->glGetInteger64v(pname, data);
}

PERFQ_GL_EXPORT void glGetBooleanv(GLenum pname, GLboolean *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = v != 0 ? GL_TRUE : GL_FALSE;
        return;
    }
    perfq_gl_dispatch()->glGetBooleanv(pname, data);
}

PERFQ_GL_EXPORT void glGetFloatv(GLenum pname, GLfloat *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = (GLfloat)v;
        return;
    }
    perfq_gl_dispatch()->glGetFloatv(pname, data);
}

PERFQ_GL_EXPORT void glGetDoublev(GLenum pname, GLdouble *data)
{
    int64_t v;
    if (layer_value(pname, &v)) {
        if (data)
            *data = (GLdouble)v;
        return;
    }
    const struct perfq_gl_dispatch *gl = perfq_gl_dispatch();
    if (gl->glGetDoublev)
        gl->glGetDoublev(pname, data);
}
