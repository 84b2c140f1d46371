/*
 * Programs that load GL themselves: dlopen("libEGL.so.1") + dlsym(handle, "eglGetProcAddress")
 * would reach the driver and bypass the layer. As apitrace does (wrappers/dlopen.hpp), the layer
 * wraps dlopen: for the GL libraries it loads the real library (so that it is there, with the
 * program's flags and errors) and returns a handle to that library's proxy,
 * libperfq-gl-dlopen-{gl,egl,glesv2,opengl}.so, found beside the layer. A proxy has no code; its
 * dependencies are the layer, then that one GL library (src/gl/meson.build), so dlsym on its
 * handle finds the layer's wrappers first and the driver's everything else. Only programs that
 * dlopen GL load one, and only the ones of the libraries they open: the layer itself links no GL
 * library, so a process loads no GL library the program does not use. dlsym itself is not wrapped (a wrapper would
 * break RTLD_NEXT for the interposers after the layer). Where the proxy is missing, the
 * program gets the real library's handle (the layer is then bypassed for what it dlsyms).
 *
 * A program's RTLD_GLOBAL applies to the real library only; the proxy is opened RTLD_LOCAL, so
 * the layer never joins the global scope (proxy_handle).
 *
 * Only the program-facing sonames are redirected (libGL, libEGL, libGLESv2, libOpenGL); glvnd's
 * own loads of vendor libraries (libEGL_mesa.so.0, libGLX_nvidia.so.0) pass through untouched.
 */
#include "gl/contexts/layer_internal.h"
#include "gl/injection/gl_libraries.h"

#include <dlfcn.h>
#include <string.h>

/* The proxy of a GL library's file name, or NULL for any other library. */
static const char *proxy_of(const char *file)
{
    return perfq_gl_dlopen_proxy_of(file);
}

static void *proxy_handle(const char *proxy, int flags)
{
    Dl_info info;
    if (!dladdr((void *)&proxy_of, &info) || !info.dli_fname)
        return NULL;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0, len = strlen(proxy) + 1;
    char path[4096];
    if (dir + len > sizeof path)
        return NULL;
    memcpy(path, info.dli_fname, dir);
    memcpy(path + dir, proxy, len);
    /* Never RTLD_GLOBAL, whatever the program asked (the real library above has its flags):
     * the proxy's first dependency is the layer, which would then join the global scope, where
     * the stub looks the driver's functions up after itself (lazy_preload.c) and found the
     * layer's own instead: the table's resolution waited for itself, glGetError called itself
     * (PyOpenGL's ctypes.CDLL("libGL.so.1", RTLD_GLOBAL); test dlopen-global-*). */
    return perfq_gl_real_dlopen(path, flags & ~(RTLD_NOLOAD | RTLD_GLOBAL));
}

/* dlopen calls of this thread in progress. The table is refreshed only by the outermost one,
 * once the real dlopen returned: a library's constructor may call dlopen while the library is
 * not initialised yet (libEGL's calls dlopen(NULL)), and the refresh's own lookups may load
 * libraries (glvnd's eglGetProcAddress loads its vendor's) while it holds the table's lock. */
static PERFQ_GL_TLS int dlopen_depth;

PERFQ_GL_EXPORT void *dlopen(const char *file, int flags)
{
    dlopen_depth++;
    void *h = perfq_gl_real_dlopen(file, flags);
    if (dlopen_depth == 1 && h)
        perfq_gl_dispatch_refresh();
    dlopen_depth--;
    const char *proxy = h && file && !(flags & RTLD_NOLOAD) ? proxy_of(file) : NULL;
    if (!proxy)
        return h;
    void *p = proxy_handle(proxy, flags);
    return p ? p : h;
}
