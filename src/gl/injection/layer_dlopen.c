/*
 * Programs that load GL themselves: dlopen("libEGL.so.1") + dlsym(handle, "eglGetProcAddress")
 * would reach the driver and bypass the layer. As apitrace does (wrappers/dlopen.hpp), the layer
 * wraps dlopen: for the GL libraries it loads the real library (so that it is there, with the
 * program's flags and errors) and returns a handle to libperfq-gl-dlopen.so, found beside the
 * layer. That library has no code; its dependencies are the layer, then the GL libraries
 * (src/gl/meson.build), so dlsym on its handle finds the layer's wrappers first and the driver's
 * everything else. Only programs that dlopen GL load it: the layer itself links no GL library,
 * so a process that never uses GL loads none. dlsym itself is not wrapped (a wrapper would
 * break RTLD_NEXT for the interposers after the layer). Where the proxy is missing, the
 * program gets the real library's handle (the layer is then bypassed for what it dlsyms).
 *
 * Only the program-facing sonames are redirected (libGL, libEGL, libGLESv2, libOpenGL); glvnd's
 * own loads of vendor libraries (libEGL_mesa.so.0, libGLX_nvidia.so.0) pass through untouched.
 */
#include "gl/contexts/layer_internal.h"

#include <dlfcn.h>
#include <string.h>

static int is_gl_library(const char *file)
{
    static const char *const prefixes[] = {"libGL.so", "libEGL.so", "libGLESv2.so",
                                           "libOpenGL.so", NULL};
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (int i = 0; prefixes[i]; i++) {
        size_t n = strlen(prefixes[i]);
        if (strncmp(base, prefixes[i], n) == 0 && (base[n] == '\0' || base[n] == '.'))
            return 1;
    }
    return 0;
}

static void *proxy_handle(int flags)
{
    Dl_info info;
    if (!dladdr((void *)&is_gl_library, &info) || !info.dli_fname)
        return NULL;
    const char *slash = strrchr(info.dli_fname, '/');
    size_t dir = slash ? (size_t)(slash - info.dli_fname) + 1 : 0;
    static const char proxy[] = "libperfq-gl-dlopen.so";
    char path[4096];
    if (dir + sizeof proxy > sizeof path)
        return NULL;
    memcpy(path, info.dli_fname, dir);
    memcpy(path + dir, proxy, sizeof proxy);
    return perfq_gl_real_dlopen(path, flags & ~RTLD_NOLOAD);
}

PERFQ_GL_EXPORT void *dlopen(const char *file, int flags)
{
    void *h = perfq_gl_real_dlopen(file, flags);
    if (!h || !file || !is_gl_library(file) || (flags & RTLD_NOLOAD))
        return h;
    void *proxy = proxy_handle(flags);
    return proxy ? proxy : h;
}
