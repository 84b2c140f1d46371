/*
 * An interposer preloaded after perfq's (LD_PRELOAD=perfq's library:this one), as another
 * tool's wrapper library would be: it counts the calls of two EGL functions that reach it and
 * forwards them to the next definition. Where perfq's layer forwards the program's
 * eglMakeCurrent and makes its own eglQueryContext (before eglDestroyContext), both must reach
 * this library, not the driver past it (docs/gl-layer.md, "Real functions").
 */
#include <dlfcn.h>
#include <EGL/egl.h>

#define INTERPOSER_EXPORT __attribute__((visibility("default")))

static int make_current_calls, query_context_calls;

INTERPOSER_EXPORT void perfq_test_interposer_calls(int *make_current, int *query_context);
void perfq_test_interposer_calls(int *make_current, int *query_context)
{
    *make_current = __atomic_load_n(&make_current_calls, __ATOMIC_RELAXED);
    *query_context = __atomic_load_n(&query_context_calls, __ATOMIC_RELAXED);
}

typedef EGLBoolean (*make_current_fn)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
typedef EGLBoolean (*query_context_fn)(EGLDisplay, EGLContext, EGLint, EGLint *);

INTERPOSER_EXPORT EGLBoolean eglMakeCurrent(EGLDisplay dpy, EGLSurface draw, EGLSurface read,
                                            EGLContext ctx)
{
    make_current_fn next = (make_current_fn)dlsym(RTLD_NEXT, "eglMakeCurrent");
    __atomic_add_fetch(&make_current_calls, 1, __ATOMIC_RELAXED);
    return next ? next(dpy, draw, read, ctx) : EGL_FALSE;
}

INTERPOSER_EXPORT EGLBoolean eglQueryContext(EGLDisplay dpy, EGLContext ctx, EGLint attribute,
                                             EGLint *value)
{
    query_context_fn next = (query_context_fn)dlsym(RTLD_NEXT, "eglQueryContext");
    __atomic_add_fetch(&query_context_calls, 1, __ATOMIC_RELAXED);
    return next ? next(dpy, ctx, attribute, value) : EGL_FALSE;
}
