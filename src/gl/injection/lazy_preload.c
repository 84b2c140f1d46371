/*
 * libperfq-gl-lazy.so: what `perfq run` and `perfq stat` preload in place of libperfq-gl.so.
 * It exports the same names as the layer (the trampolines scripts/gen-gl-lazy-trampolines.py
 * writes from the built layer's exports, and dlopen), so the program's GL, EGL and GLX calls bind
 * to it exactly as they bound to the layer, but it holds almost no state and relocations, and
 * its one constructor copies a variable (exec_follow.c: the exec wrappers, which put perfq's
 * environment back into a child's cleaned one), and it needs no library but libc: a process
 * that never calls one of those
 * functions (a shell, a compiler under a build) no longer maps the layer and libperfq.so, nor
 * runs their relocations, constructors and the stat channel's attach (docs/gl-layer.md,
 * "Loaded at the first GL call").
 *
 * The first call of any of them loads the layer from the stub's own folder (RTLD_LOCAL) and
 * fills that name's slot with the layer's function; later calls jump through the slot. The
 * layer sees the program's wrapped calls from the first one, as when it was preloaded itself.
 * A program that dlopen()s a GL library itself gets the layer's proxy handle (layer_dlopen.c):
 * the stub loads the layer then and forwards the call to the layer's dlopen.
 *
 * The layer, loaded with dlopen, is not in the program's symbol scope, so its dlsym(RTLD_NEXT)
 * would no longer find the driver: it asks perfq_gl_lazy_next (dispatch.c) instead, which looks
 * the name up after the stub, where the layer was when it was preloaded (the driver, or another
 * interposer preloaded after perfq's). Where the layer was already loaded when the stub first
 * needed it (LD_PRELOAD holds libperfq-gl.so too), the stub steps aside: every name resolves to
 * the next definition after the stub, so the calls reach the layer or the driver in the order
 * of LD_PRELOAD, never the layer twice. Where the layer cannot be loaded, the calls go to the
 * driver (the program runs unmeasured, never broken).
 */
#include "gl/injection/gl_libraries.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define LAZY_EXPORT __attribute__((visibility("default")))

typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);

/* glibc's own dlsym and dlopen (this library exports a dlopen; another preloaded library may
 * wrap dlsym: a wrapper would make RTLD_NEXT relative to itself). */
static dlsym_fn real_dlsym;
static dlopen_fn real_dlopen;
static pthread_once_t dl_once = PTHREAD_ONCE_INIT;

static void resolve_dl(void)
{
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", NULL};
    for (int i = 0; versions[i] && !real_dlsym; i++)
        real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    if (!real_dlsym)
        real_dlsym = dlsym;
    for (int i = 0; versions[i] && !real_dlopen; i++)
        real_dlopen = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", versions[i]);
    if (!real_dlopen)
        real_dlopen = (dlopen_fn)real_dlsym(RTLD_NEXT, "dlopen");
}

/* The layer, once loaded by the stub (NULL: not loaded, or the stub steps aside). */
static void *layer;
static int loaded_by_stub;
static pthread_once_t layer_once = PTHREAD_ONCE_INIT;
/* The thread loading the layer: a call of the stub's functions from inside that load (the
 * layer's or libperfq's constructors) goes to the next definition, never waits for itself. */
static __thread int loading;

static void load_layer(void)
{
    pthread_once(&dl_once, resolve_dl);
    Dl_info info;
    if (!dladdr((void *)&load_layer, &info) || !info.dli_fname)
        return;
    static const char file[] = "libperfq-gl.so";
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
    char path[4096];
    if (dir + sizeof file > sizeof path)
        return;
    memcpy(path, info.dli_fname, dir);
    memcpy(path + dir, file, sizeof file);
    /* Already loaded (preloaded beside the stub): step aside, see above. */
    void *there = real_dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
    if (there)
        return;
    loading = 1;
    __atomic_store_n(&loaded_by_stub, 1, __ATOMIC_RELEASE);   /* before its constructors run */
    void *h = real_dlopen(path, RTLD_NOW | RTLD_LOCAL);
    loading = 0;
    if (!h)
        __atomic_store_n(&loaded_by_stub, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&layer, h, __ATOMIC_RELEASE);
}

static void ensure_layer(void)
{
    if (!loading)
        pthread_once(&layer_once, load_layer);
}

/* What a name resolves to when no layer takes it: the first definition after the stub. */
static int missing(void)
{
    return 0;
}

/* Called by the trampolines' first call (r10, r11): the function for name, kept in its slot. */
__attribute__((visibility("hidden"))) void *perfq_gl_lazy_resolve(void **slot, const char *name);
void *perfq_gl_lazy_resolve(void **slot, const char *name)
{
    ensure_layer();
    void *h = __atomic_load_n(&layer, __ATOMIC_ACQUIRE);
    void *f = h ? real_dlsym(h, name) : NULL;
    if (!f)
        f = real_dlsym(RTLD_NEXT, name);
    if (!f)
        return (void *)(uintptr_t)&missing;   /* not kept: a later load may define it */
    if (!loading)
        __atomic_store_n(slot, f, __ATOMIC_RELEASE);
    return f;
}

/* The layer's dlsym(RTLD_NEXT) when the stub loaded it (dispatch.c): NULL otherwise. A NULL
 * name asks only whether the stub loaded the layer (non-NULL: it did), so that the layer skips
 * its own dlsym(RTLD_NEXT), which then searches only the layer's own dependencies. */
LAZY_EXPORT void *perfq_gl_lazy_next(const char *name);
void *perfq_gl_lazy_next(const char *name)
{
    if (!__atomic_load_n(&loaded_by_stub, __ATOMIC_ACQUIRE))
        return NULL;
    if (!name)
        return (void *)(uintptr_t)&perfq_gl_lazy_next;
    pthread_once(&dl_once, resolve_dl);
    void *p = real_dlsym(RTLD_NEXT, name);
    /* Never a tail call: glibc takes RTLD_NEXT relative to the code that called dlsym, and a
     * jump to it from here made that the layer (this function's caller), whose own scope holds
     * no GL library: every name then fell through to the layer's soname and GetProcAddress
     * lookups, past any interposer preloaded after the stub (test interposer-after-lazy). */
    __asm__ volatile("" : "+r"(p));
    return p;
}

/* The next definition of name after the stub, for its exec wrappers (exec_follow.c). */
__attribute__((visibility("hidden"))) void *perfq_gl_lazy_after_stub(const char *name);
void *perfq_gl_lazy_after_stub(const char *name)
{
    pthread_once(&dl_once, resolve_dl);
    void *p = real_dlsym(RTLD_NEXT, name);
    __asm__ volatile("" : "+r"(p));   /* never a tail call: see perfq_gl_lazy_next */
    return p;
}

LAZY_EXPORT void *dlopen(const char *file, int flags);
void *dlopen(const char *file, int flags)
{
    pthread_once(&dl_once, resolve_dl);
    if (file && !(flags & RTLD_NOLOAD) && perfq_gl_dlopen_proxy_of(file)) {
        ensure_layer();
        void *h = __atomic_load_n(&layer, __ATOMIC_ACQUIRE);
        dlopen_fn layer_dlopen = h ? (dlopen_fn)real_dlsym(h, "dlopen") : NULL;
        /* Stepping aside (the layer preloaded after the stub): the next dlopen is the
         * layer's. */
        if (!layer_dlopen && !h)
            layer_dlopen = (dlopen_fn)real_dlsym(RTLD_NEXT, "dlopen");
        if (layer_dlopen)
            return layer_dlopen(file, flags);
    }
    return real_dlopen ? real_dlopen(file, flags) : NULL;
}
