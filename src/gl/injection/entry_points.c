/*
 * The names eglGetProcAddress / glXGetProcAddress(ARB) answer with the layer's own functions:
 * the wrapped GL/EGL/GLX functions (so a program that gets them by address still goes through
 * the layer, from dispatch.h's one list) and the entry points of the registered front ends. The
 * driver answers every other name.
 */
#include "gl/contexts/layer_internal.h"
#include "gl/timing/gpu_timer.h"
#include "gl/virtualization/query_virtualization.h"

#include <string.h>

struct entry {
    const char *name;
    void (*fn)(void);
};

/* The wrapped functions, from the one list (dispatch.h's W and L lines). */
#define WRAPPED(type, name) {#name, (void (*)(void))name},
#define NOT_WRAPPED(type, name)
static const struct entry builtin[] = {PERFQ_GL_FUNCTIONS(NOT_WRAPPED, WRAPPED, WRAPPED)};
#undef NOT_WRAPPED
#undef WRAPPED

void (*perfq_gl_entry_point(const char *name))(void)
{
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++) {
        if (strcmp(builtin[i].name, name) != 0)
            continue;
        /* A wrapped EGL function is answered only where the driver has it: a program may take
         * a non-NULL answer for an EGL extension's function as the function being there (the
         * damage swaps, egl_display.c). */
        if (strncmp(name, "egl", 3) == 0 && !perfq_gl_resolve(name))
            return NULL;
        return builtin[i].fn;
    }
    return perfq_gl_frontend_entry_point(name);
}

void perfq_gl_layer_stats(struct perfq_gl_layer_stats *out)
{
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    perfq_gl_context_stats(out);
    perfq_gl_timer_stats(out);
    out->frontend_objects = perfq_gl_frontends_live_objects();
    out->segments = atomic_load(&perfq_gl_vq_live_segments);
    out->program_records = atomic_load(&perfq_gl_vq_live_records);
}
