/*
 * The layer's query names, kept apart from the program's (query_virtualization.h, "The layer's
 * query names and the program's"; docs/gl-layer.md, "Query names").
 *
 * Query objects are per context and their names are one namespace: the program's and the
 * layer's driver names come from the same glGenQueries. A program that only uses names it
 * generated never meets one of the layer's, except by asking about names it never made
 * (glIsQuery over a range) or deleting them (glDeleteQueries of 1..N): those the layer answers.
 * A compatibility-profile program may also name a query it never generated; where the layer
 * holds that name, the program's object gets another driver name, unused at that moment, and
 * every program entry point maps the program's name to it (an alias). The driver decides, on
 * that unused name, exactly what it would have decided on the program's (GL 4.6 compatibility
 * 4.2: BeginQuery makes an object of an unused name; ARB_timer_query: QueryCounter refuses
 * one), so the program's errors stay the driver's.
 */
#include "gl/virtualization/query_virtualization.h"

int perfq_gl_vq_is_layer_name(const struct perfq_gl_vq_state *s, GLuint name)
{
    return (s->internal.count && perfq_gl_name_table_get(&s->internal, name)) ||
           (s->layer_names.count && perfq_gl_name_table_get(&s->layer_names, name));
}

GLuint perfq_gl_vq_gen_layer_name(struct perfq_gl_ctx *c)
{
    struct perfq_gl_vq_state *s = perfq_gl_vq(c);
    GLuint name = 0;
    if (!s)
        return 0;
    s->fn.gen(1, &name);
    if (name && perfq_gl_name_table_put(&s->layer_names, name, PERFQ_GL_VQ_TIMER_NAME) != 0) {
        s->fn.del(1, &name);
        name = 0;
    }
    return name;
}

void perfq_gl_vq_delete_layer_names(struct perfq_gl_ctx *c, GLsizei n, const GLuint *names)
{
    struct perfq_gl_vq_state *s = c->vq;
    if (!s || n <= 0)
        return;
    GLuint batch[64];
    GLsizei k = 0;
    for (GLsizei i = 0; i < n; i++) {
        if (perfq_gl_name_table_get(&s->layer_names, names[i]) == PERFQ_GL_VQ_TIMER_NAME)
            perfq_gl_name_table_remove(&s->layer_names, names[i]);
        /* A program's alias stands for this name: the driver must not give it out again while
         * the program uses it (perfq_gl_vq_alias_delete deletes it with the alias). */
        if (s->aliases.count && perfq_gl_name_table_get(&s->aliases, names[i]))
            continue;
        batch[k++] = names[i];
        if (k == 64) {
            s->fn.del(k, batch);
            k = 0;
        }
    }
    if (k)
        s->fn.del(k, batch);
}

GLuint perfq_gl_vq_program_name(const struct perfq_gl_vq_state *s, GLuint driver_name)
{
    if (!s->aliases.count || !driver_name)
        return driver_name;
    void *v = perfq_gl_name_table_get(&s->layer_names, driver_name);
    return v && v != PERFQ_GL_VQ_TIMER_NAME ? (GLuint)(uintptr_t)v : driver_name;
}

static int compatibility_profile(const struct perfq_gl_ctx *c)
{
    return c->pub.api == PERFQ_GL_API_GL && !c->pub.core_profile;
}

GLuint perfq_gl_vq_alias_for_new(struct perfq_gl_ctx *c, GLuint name, int *pending)
{
    struct perfq_gl_vq_state *s = c->vq;
    *pending = 0;
    GLuint d = perfq_gl_vq_driver_name(s, name);
    if (d || !name || !compatibility_profile(c))
        return d;
    /* A name unused now: generated, then deleted, before the program's call is given it. */
    GLuint fresh = 0;
    perfq_gl_error_guard_begin(&c->pub);
    s->fn.gen(1, &fresh);
    if (fresh)
        s->fn.del(1, &fresh);
    perfq_gl_error_guard_end(&c->pub);
    if (!fresh)
        return 0;
    if (perfq_gl_name_table_put(&s->aliases, name, (void *)(uintptr_t)fresh) != 0)
        return 0;
    if (perfq_gl_name_table_put(&s->layer_names, fresh, (void *)(uintptr_t)name) != 0) {
        perfq_gl_name_table_remove(&s->aliases, name);
        return 0;
    }
    *pending = 1;
    return fresh;
}

void perfq_gl_vq_alias_settle(struct perfq_gl_ctx *c, GLuint name, GLuint driver_name)
{
    struct perfq_gl_vq_state *s = c->vq;
    GLboolean made = GL_FALSE;
    perfq_gl_error_guard_begin(&c->pub);
    if (c->pub.gl->glIsQuery)
        made = c->pub.gl->glIsQuery(driver_name);
    perfq_gl_error_guard_end(&c->pub);
    if (made)
        return;
    perfq_gl_name_table_remove(&s->aliases, name);
    perfq_gl_name_table_remove(&s->layer_names, driver_name);
}

int perfq_gl_vq_alias_delete(struct perfq_gl_ctx *c, GLuint name, GLuint out[2])
{
    struct perfq_gl_vq_state *s = c->vq;
    void *d = s->aliases.count ? perfq_gl_name_table_remove(&s->aliases, name) : NULL;
    if (!d) {
        if (perfq_gl_vq_is_layer_name(s, name))
            return 0;       /* not the program's: "unused names are silently ignored" */
        out[0] = name;
        return 1;
    }
    GLuint driver_name = (GLuint)(uintptr_t)d;
    perfq_gl_name_table_remove(&s->layer_names, driver_name);
    out[0] = driver_name;
    /* The layer let the program's name go while the alias stood for it: it goes now. */
    if (!perfq_gl_vq_is_layer_name(s, name)) {
        out[1] = name;
        return 2;
    }
    return 1;
}
