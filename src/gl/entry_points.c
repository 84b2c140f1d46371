/*
 * The names eglGetProcAddress / glXGetProcAddress(ARB) answer with the layer's own functions:
 * the wrapped GL/EGL/GLX functions (so a program that gets them by address still goes through
 * the layer) and the extensions' entry points, built in or registered by front ends. The driver
 * answers every other name.
 */
#include "gl/layer_internal.h"
#include "gl/query_virtualization.h"
#include "perfq/angle_timer_query.h"

#include <string.h>

/* GLX wrappers (layer_glx.c) are declared there without Xlib. */
void *glXCreateContext(void *dpy, void *vis, void *share, int direct);
void *glXCreateNewContext(void *dpy, void *config, int type, void *share, int direct);
void *glXCreateContextAttribsARB(void *dpy, void *config, void *share, int direct,
                                 const int *attribs);
void glXDestroyContext(void *dpy, void *ctx);
int glXMakeCurrent(void *dpy, unsigned long drawable, void *ctx);
int glXMakeContextCurrent(void *dpy, unsigned long draw, unsigned long read, void *ctx);
void (*glXGetProcAddressARB(const GLubyte *name))(void);
void (*glXGetProcAddress(const GLubyte *name))(void);

struct entry {
    const char *name;
    void (*fn)(void);
};

#define E(f) {#f, (void (*)(void))f}
static const struct entry builtin[] = {
    E(eglGetProcAddress), E(eglCreateContext), E(eglDestroyContext), E(eglMakeCurrent),
    E(eglReleaseThread), E(eglTerminate),
    E(glXGetProcAddress), E(glXGetProcAddressARB), E(glXCreateContext), E(glXCreateNewContext),
    E(glXCreateContextAttribsARB), E(glXDestroyContext), E(glXMakeCurrent),
    E(glXMakeContextCurrent),
    E(glGetError), E(glGetString), E(glGetStringi), E(glGetIntegerv), E(glGetInteger64v),
    E(glGetInteger64vEXT), E(glGetBooleanv), E(glGetFloatv), E(glGetDoublev),
    E(glDrawArrays), E(glDrawElements), E(glBindBuffer), E(glBindBufferARB),
    E(glBeginQuery), E(glEndQuery), E(glBeginQueryIndexed), E(glEndQueryIndexed),
    E(glGetQueryiv), E(glGetQueryIndexediv), E(glGetQueryObjectiv), E(glGetQueryObjectuiv),
    E(glGetQueryObjecti64v), E(glGetQueryObjectui64v), E(glDeleteQueries), E(glIsQuery),
    E(glQueryCounter), E(glBeginConditionalRender), E(glEndConditionalRender),
    E(glGetQueryBufferObjectiv), E(glGetQueryBufferObjectuiv),
    E(glGetQueryBufferObjecti64v), E(glGetQueryBufferObjectui64v),
    E(glBeginQueryARB), E(glEndQueryARB), E(glGetQueryivARB), E(glGetQueryObjectivARB),
    E(glGetQueryObjectuivARB), E(glDeleteQueriesARB), E(glIsQueryARB),
    E(glBeginQueryEXT), E(glEndQueryEXT), E(glGetQueryivEXT), E(glGetQueryObjectivEXT),
    E(glGetQueryObjectuivEXT), E(glGetQueryObjecti64vEXT), E(glGetQueryObjectui64vEXT),
    E(glDeleteQueriesEXT), E(glIsQueryEXT), E(glQueryCounterEXT),
    E(glGenQueriesANGLE), E(glDeleteQueriesANGLE), E(glIsQueryANGLE), E(glBeginQueryANGLE),
    E(glEndQueryANGLE), E(glQueryCounterANGLE), E(glGetQueryivANGLE),
    E(glGetQueryObjectivANGLE), E(glGetQueryObjectuivANGLE), E(glGetQueryObjecti64vANGLE),
    E(glGetQueryObjectui64vANGLE),
};
#undef E

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
