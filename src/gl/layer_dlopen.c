/*
 * Programs that load GL themselves: dlopen("libEGL.so.1") + dlsym(handle, "eglGetProcAddress")
 * would reach the driver and bypass the layer. As apitrace does (wrappers/dlopen.hpp), the layer
 * wraps dlopen: for the GL libraries it loads the real library (so that it is there, with the
 * program's flags and errors) and returns a handle to the layer itself. dlsym on that handle
 * searches the layer first, then its dependencies, which are the GL libraries
 * (src/gl/meson.build links them --no-as-needed): the program gets the layer's wrappers and the
 * driver's everything else. dlsym itself is not wrapped.
 *
 * Only the program-facing sonames are redirected (libGL, libEGL, libGLESv2, libOpenGL); glvnd's
 * own loads of vendor libraries (libEGL_mesa.so.0, libGLX_nvidia.so.0) pass through untouched.
 */
#include "gl/layer_internal.h"

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

static void *self_handle(int flags)
{
    Dl_info info;
    if (!dladdr((void *)&is_gl_library, &info) || !info.dli_fname)
        return NULL;
    return perfq_gl_real_dlopen(info.dli_fname, RTLD_NOLOAD | (flags & ~RTLD_NOLOAD));
}

PERFQ_GL_EXPORT void *dlopen(const char *file, int flags)
{
    void *h = perfq_gl_real_dlopen(file, flags);
    if (!h || !file || !is_gl_library(file) || (flags & RTLD_NOLOAD))
        return h;
    void *self = self_handle(flags);
    return self ? self : h;
}
