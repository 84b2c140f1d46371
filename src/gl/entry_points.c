/*
 * The names eglGetProcAddress / glXGetProcAddress(ARB) answer with the layer's own functions:
 * the wrapped GL/EGL/GLX functions (so a program that gets them by address still goes through
 * the layer) and the extensions' entry points, built in or registered by front ends. The driver
 * answers every other name.
 */
#include "gl/layer_internal.h"
#include "gl/query_virtualization.h"

#include <string.h>

struct entry {
    const char *name;
    void (*fn)(void);
};

/* The wrapped functions, from the one list (dispatch.h's W lines). */
#define WRAPPED(type, name) {#name, (void (*)(void))name},
#define NOT_WRAPPED(type, name)
static const struct entry builtin[] = {PERFQ_GL_FUNCTIONS(NOT_WRAPPED, WRAPPED)};
#undef NOT_WRAPPED
#undef WRAPPED

#define MAX_REGISTERED 64
static pthread_mutex_t registered_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry registered[MAX_REGISTERED];
static int n_registered;

int perfq_gl_register_entry_point(const char *name, void (*fn)(void))
{
    int rc = -1;
    if (!name || !fn)
        return -1;
    pthread_mutex_lock(&registered_lock);
    if (n_registered < MAX_REGISTERED) {
        registered[n_registered++] = (struct entry){name, fn};
        rc = 0;
    }
    pthread_mutex_unlock(&registered_lock);
    return rc;
}

void (*perfq_gl_entry_point(const char *name))(void)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (strcmp(builtin[i].name, name) == 0)
            return builtin[i].fn;
    void (*fn)(void) = NULL;
    pthread_mutex_lock(&registered_lock);
    for (int i = 0; i < n_registered && !fn; i++)
        if (strcmp(registered[i].name, name) == 0)
            fn = registered[i].fn;
    pthread_mutex_unlock(&registered_lock);
    return fn;
}

void perfq_gl_timer_stats(struct perfq_gl_layer_stats *out);
void perfq_gl_angle_stats(struct perfq_gl_layer_stats *out);

void perfq_gl_layer_stats(struct perfq_gl_layer_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    perfq_gl_context_stats(out);
    perfq_gl_timer_stats(out);
    perfq_gl_angle_stats(out);
    out->vqueries = atomic_load(&perfq_gl_vq_live_vqueries);
    out->segments = atomic_load(&perfq_gl_vq_live_segments);
    out->program_records = atomic_load(&perfq_gl_vq_live_records);
}
