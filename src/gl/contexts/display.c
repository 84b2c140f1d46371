/*
 * EGL displays' state: one record per display the program initialised (EGL 1.5 section 3.2:
 * eglInitialize and eglTerminate bound a display's life), holding the display-scoped front ends'
 * data and the display's extension string with the front ends' own (section 3.3). The EGL
 * wrappers that drive it are in injection/egl_display.c and injection/layer_egl.c.
 */
#include "gl/contexts/layer_internal.h"

#include <stdlib.h>
#include <string.h>

struct display {
    void *dpy;
    struct display *next;
    int n_frontends;                            /* front ends whose created hook ran */
    void *data[PERFQ_GL_MAX_FRONTENDS];
    char *extensions;                           /* driver's + the front ends', built once */
};

/* displays_lock protects the list and each record's string cache. */
static pthread_mutex_t displays_lock = PTHREAD_MUTEX_INITIALIZER;
static struct display *displays;

static struct display *find_locked(void *dpy)
{
    struct display *d = displays;
    while (d && d->dpy != dpy)
        d = d->next;
    return d;
}

void *perfq_gl_frontend_display_data(int id, void *dpy)
{
    if (id < 0 || id >= PERFQ_GL_MAX_FRONTENDS)
        return NULL;
    pthread_mutex_lock(&displays_lock);
    struct display *d = find_locked(dpy);
    void *data = d && id < d->n_frontends ? d->data[id] : NULL;
    pthread_mutex_unlock(&displays_lock);
    return data;
}

static void destroy_record(struct display *d)
{
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_DISPLAY, NULL, NULL, d->dpy};
    for (int i = d->n_frontends - 1; i >= 0; i--) {
        const struct perfq_gl_frontend *fe = perfq_gl_frontend_at(i);
        if (fe->scope == PERFQ_GL_SCOPE_DISPLAY && fe->destroyed)
            fe->destroyed(&at, d->data[i], 0);
    }
    free(d->extensions);
    free(d);
}

/* A display was initialised: its record and the display-scoped front ends' data (hooks run
 * outside the lock: they may ask for display data). */
void perfq_gl_display_initialized(void *dpy)
{
    pthread_mutex_lock(&displays_lock);
    struct display *known = find_locked(dpy);
    pthread_mutex_unlock(&displays_lock);
    if (known)
        return;     /* initialising an initialised display changes nothing (section 3.2) */
    struct display *d = calloc(1, sizeof *d);
    if (!d)
        return;
    d->dpy = dpy;
    int n = perfq_gl_frontend_count();
    struct perfq_gl_scope_object at = {PERFQ_GL_SCOPE_DISPLAY, NULL, NULL, dpy};
    for (int i = 0; i < n; i++) {
        const struct perfq_gl_frontend *fe = perfq_gl_frontend_at(i);
        if (fe->scope == PERFQ_GL_SCOPE_DISPLAY && fe->created)
            d->data[i] = fe->created(&at);
    }
    d->n_frontends = n;
    pthread_mutex_lock(&displays_lock);
    int raced = find_locked(dpy) != NULL;
    if (!raced) {
        d->next = displays;
        displays = d;
    }
    pthread_mutex_unlock(&displays_lock);
    if (raced)
        destroy_record(d);
}

void perfq_gl_display_destroyed(void *dpy)
{
    pthread_mutex_lock(&displays_lock);
    struct display **p = &displays;
    while (*p && (*p)->dpy != dpy)
        p = &(*p)->next;
    struct display *d = *p;
    if (d)
        *p = d->next;
    pthread_mutex_unlock(&displays_lock);
    if (d)
        destroy_record(d);
}

static int has_name(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; p && (p = strstr(p, name)); p += len)
        if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return 1;
    return 0;
}

/* The display's extension string with the front ends' own, built once per initialised display
 * (the predicates run outside the lock), or NULL when there is nothing to add. */
const char *perfq_gl_display_extensions(void *dpy, const char *driver)
{
    pthread_mutex_lock(&displays_lock);
    struct display *d = find_locked(dpy);
    const char *cached = d ? d->extensions : NULL;
    int n = d ? d->n_frontends : 0;
    pthread_mutex_unlock(&displays_lock);
    if (!d || cached)
        return cached;
    size_t len = strlen(driver) + 1;
    for (int i = 0; i < n; i++)
        for (const struct perfq_egl_extension *e = perfq_gl_frontend_at(i)->egl_extensions;
             e && e->name; e++)
            len += strlen(e->name) + 1;
    char *all = malloc(len);
    if (!all)
        return NULL;
    strcpy(all, driver);
    int added = 0;
    for (int i = 0; i < n; i++) {
        for (const struct perfq_egl_extension *e = perfq_gl_frontend_at(i)->egl_extensions;
             e && e->name; e++) {
            if (has_name(driver, e->name) || (e->available && !e->available(dpy)))
                continue;
            size_t cur = strlen(all);
            if (cur && all[cur - 1] != ' ')
                strcat(all, " ");
            strcat(all, e->name);
            added = 1;
        }
    }
    if (!added) {
        free(all);
        return NULL;
    }
    /* The display may have been terminated or built by another thread meanwhile. */
    pthread_mutex_lock(&displays_lock);
    d = find_locked(dpy);
    const char *out = NULL;
    if (d && !d->extensions) {
        d->extensions = all;
        all = NULL;
    }
    if (d)
        out = d->extensions;
    pthread_mutex_unlock(&displays_lock);
    free(all);
    return out;
}
