/*
 * Share groups: the contexts that share objects (EGL 1.5 section 3.7.1, eglCreateContext's
 * share_context; GLX 1.4 section 3.3.7, the share list). Every context the layer tracks is in
 * one group: its own from the start, its share context's once its creation names one. A group
 * lives while any of its contexts does (its objects do too); share-group-scoped front ends keep
 * their data on it (frontend.c).
 */
#include "gl/contexts/layer_internal.h"

#include <stdlib.h>

struct perfq_gl_share_group {
    int contexts;                               /* member contexts alive (groups_lock) */
    int created[PERFQ_GL_MAX_FRONTENDS];        /* front end's created hook ran */
    void *data[PERFQ_GL_MAX_FRONTENDS];
};

/* groups_lock protects membership counts and the front ends' data creation. */
static pthread_mutex_t groups_lock = PTHREAD_MUTEX_INITIALIZER;

struct perfq_gl_share_group *perfq_gl_share_group_new(void)
{
    struct perfq_gl_share_group *g = calloc(1, sizeof *g);
    if (g)
        g->contexts = 1;
    return g;
}

static void release(struct perfq_gl_share_group *g)
{
    /* The last context is gone, and the group's objects with it: CPU memory only. */
    int n = perfq_gl_frontend_count();
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_SHARE_GROUP, NULL, g, NULL};
    for (int i = n - 1; i >= 0; i--) {
        const struct perfq_gl_frontend *fe = perfq_gl_frontend_at(i);
        if (g->created[i] && fe->destroyed)
            fe->destroyed(&at, g->data[i], 0);
    }
    free(g);
}

void perfq_gl_share_group_leave(struct perfq_gl_share_group *g)
{
    if (!g)
        return;
    pthread_mutex_lock(&groups_lock);
    int last = --g->contexts == 0;
    pthread_mutex_unlock(&groups_lock);
    if (last)
        release(g);
}

void perfq_gl_share_group_join(struct perfq_gl_ctx *c, struct perfq_gl_ctx *share)
{
    if (!c || !share || share == c || !share->group || c->group == share->group)
        return;
    pthread_mutex_lock(&groups_lock);
    struct perfq_gl_share_group *old = c->group;
    c->group = share->group;
    c->group->contexts++;
    pthread_mutex_unlock(&groups_lock);
    perfq_gl_share_group_leave(old);
}

void perfq_gl_share_group_create_data(struct perfq_gl_ctx *c, int id,
                                      const struct perfq_gl_frontend *fe)
{
    struct perfq_gl_share_group *g = c->group;
    if (!g)
        return;
    pthread_mutex_lock(&groups_lock);
    if (!g->created[id]) {
        g->created[id] = 1;
        struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_SHARE_GROUP, &c->pub, g,
                                           c->pub.display};
        g->data[id] = fe->created ? fe->created(&at) : NULL;
    }
    pthread_mutex_unlock(&groups_lock);
}

void *perfq_gl_share_group_data(const struct perfq_gl_share_group *g, int id)
{
    return g ? g->data[id] : NULL;
}

struct perfq_gl_share_group *perfq_gl_context_share_group(const struct perfq_gl_context *pub)
{
    return pub ? ((const struct perfq_gl_ctx *)pub)->group : NULL;
}

int perfq_gl_share_group_contexts(const struct perfq_gl_share_group *g)
{
    if (!g)
        return 0;
    pthread_mutex_lock(&groups_lock);
    int n = g->contexts;
    pthread_mutex_unlock(&groups_lock);
    return n;
}
