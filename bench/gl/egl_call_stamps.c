/*
 * libegl-call-stamps.so (and libegl-call-stamps-driver.so, the same built with
 * EGL_CALL_STAMPS_DRIVER), preloaded by bench/egl_phases.py: the wall time a program spends in
 * each EGL call the GL example makes, summed per call, and the phases around them. The first
 * library is preloaded before perfq's GL layer (what the program waits for: the layer and the
 * driver), the second after it (the driver alone). At the process's last destructor it appends
 * one line to $STAMP_FILE (the first) or $STAMP_FILE_DRIVER (the second): its constructor's
 * CLOCK_MONOTONIC, the time from there to the first EGL call, from the first swap's end to the
 * last's, from the last EGL call's end to this destructor, the destructor's time, then the
 * summed time in eglInitialize, eglChooseConfig, eglCreateContext, eglCreatePbufferSurface,
 * eglMakeCurrent, eglSwapBuffers, eglDestroyContext, eglDestroySurface, eglTerminate and
 * eglBindAPI (ns). Only calls made through the dynamic linker are seen (not those through
 * eglGetProcAddress). Not thread safe: for single-threaded programs.
 */
#include <EGL/egl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { C_INIT, C_CHOOSE, C_CONTEXT, C_SURFACE, C_MAKE, C_SWAP, C_DESTROY_CONTEXT,
       C_DESTROY_SURFACE, C_TERMINATE, C_BIND, N_CALLS };

static long long in_call[N_CALLS], constructed, first_call, last_call_end, first_swap_end,
    last_swap_end;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void called(int which, long long begin, long long end)
{
    if (!first_call)
        first_call = begin;
    in_call[which] += end - begin;
    last_call_end = end;
    if (which == C_SWAP) {
        if (!first_swap_end)
            first_swap_end = end;
        last_swap_end = end;
    }
}

/* Each wrapper: the next definition's call, timed (exported: the build hides symbols). */
#define STAMPED(ret, name, which, params, args)                                                \
    __attribute__((visibility("default"))) ret name params                                     \
    {                                                                                          \
        static ret(*next) params;                                                              \
        if (!next)                                                                             \
            *(void **)&next = dlsym(RTLD_NEXT, #name);                                         \
        long long begin_ns = now_ns();                                                         \
        ret r = next args;                                                                     \
        called(which, begin_ns, now_ns());                                                     \
        return r;                                                                              \
    }

STAMPED(EGLBoolean, eglInitialize, C_INIT, (EGLDisplay d, EGLint *major, EGLint *minor),
        (d, major, minor))
STAMPED(EGLBoolean, eglChooseConfig, C_CHOOSE,
        (EGLDisplay d, const EGLint *attrs, EGLConfig *configs, EGLint size, EGLint *n),
        (d, attrs, configs, size, n))
STAMPED(EGLContext, eglCreateContext, C_CONTEXT,
        (EGLDisplay d, EGLConfig config, EGLContext share, const EGLint *attrs),
        (d, config, share, attrs))
STAMPED(EGLSurface, eglCreatePbufferSurface, C_SURFACE,
        (EGLDisplay d, EGLConfig config, const EGLint *attrs), (d, config, attrs))
STAMPED(EGLBoolean, eglMakeCurrent, C_MAKE,
        (EGLDisplay d, EGLSurface draw, EGLSurface read, EGLContext ctx), (d, draw, read, ctx))
STAMPED(EGLBoolean, eglSwapBuffers, C_SWAP, (EGLDisplay d, EGLSurface s), (d, s))
STAMPED(EGLBoolean, eglDestroyContext, C_DESTROY_CONTEXT, (EGLDisplay d, EGLContext ctx),
        (d, ctx))
STAMPED(EGLBoolean, eglDestroySurface, C_DESTROY_SURFACE, (EGLDisplay d, EGLSurface s), (d, s))
STAMPED(EGLBoolean, eglTerminate, C_TERMINATE, (EGLDisplay d), (d))
STAMPED(EGLBoolean, eglBindAPI, C_BIND, (EGLenum api), (api))

__attribute__((constructor(101))) static void on_start(void)
{
    constructed = now_ns();
}

__attribute__((destructor(101))) static void on_end(void)
{
    long long end = now_ns();
#ifdef EGL_CALL_STAMPS_DRIVER
    const char *file = getenv("STAMP_FILE_DRIVER");
#else
    const char *file = getenv("STAMP_FILE");
#endif
    if (!file || !first_call)
        return;
    FILE *out = fopen(file, "a");
    if (!out)
        return;
    fprintf(out, "%lld %lld %lld %lld %lld", constructed, first_call - constructed,
            last_swap_end - first_swap_end, end - last_call_end, end);
    for (int i = 0; i < N_CALLS; i++)
        fprintf(out, " %lld", in_call[i]);
    fprintf(out, "\n");
    fclose(out);
}
