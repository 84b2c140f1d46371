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
 * Only the program-facing sonames are redirected (libGL, libEGL, libGLESv2, libOpenGL); glvnd's
 * own loads of vendor libraries (libEGL_mesa.so.0, libGLX_nvidia.so.0) pass through untouched.
 */
#include "gl/contexts/layer_internal.h"

#include <dlfcn.h>
#include <string.h>

/* The program-facing GL libraries and the proxy of each (src/gl/meson.build). */
static const struct {
    const char *prefix, *proxy;
} libraries[] = {
    {"libGL.so", "libperfq-gl-dlopen-gl.so"},
    {"libEGL.so", "libperfq-gl-dlopen-egl.so"},
    {"libGLESv2.so", "libperfq-gl-dlopen-glesv2.so"},
    {"libOpenGL.so", "libperfq-gl-dlopen-opengl.so"},
};

/* The proxy of a GL library's file name, or NULL for any other library. */
static const char *proxy_of(const char *file)
{
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        size_t n = strlen(libraries[i].prefix);
        if (strncmp(base, libraries[i].prefix, n) == 0 && (base[n] == '\0' || base[n] == '.'))
            return libraries[i].proxy;
    }
    return NULL;
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
    return perfq_gl_real_dlopen(path, flags & ~RTLD_NOLOAD);
}

PERFQ_GL_EXPORT void *dlopen(const char *file, int flags)
{
    void *h = perfq_gl_real_dlopen(file, flags);
    const char *proxy = h && file && !(flags & RTLD_NOLOAD) ? proxy_of(file) : NULL;
    if (!proxy)
        return h;
    void *p = proxy_handle(proxy, flags);
    return p ? p : h;
}
