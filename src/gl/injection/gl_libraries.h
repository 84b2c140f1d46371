/*
 * The program-facing GL libraries a program may dlopen() itself, and the proxy the layer hands
 * back for each (layer_dlopen.c, src/gl/meson.build). Shared by the layer's dlopen wrapper and
 * the lazy preload stub (lazy_preload.c), which loads the layer when one of them is opened.
 * Only these sonames: glvnd's own loads of vendor libraries (libEGL_mesa.so.0,
 * libGLX_nvidia.so.0) are not the program's.
 */
#ifndef PERFQ_GL_LIBRARIES_H
#define PERFQ_GL_LIBRARIES_H

#include <string.h>

/* The proxy of a GL library's file name (a path or a bare name), or NULL for any other. */
static inline const char *perfq_gl_dlopen_proxy_of(const char *file)
{
    static const struct {
        const char *prefix, *proxy;
    } libraries[] = {
        {"libGL.so", "libperfq-gl-dlopen-gl.so"},
        {"libEGL.so", "libperfq-gl-dlopen-egl.so"},
        {"libGLESv2.so", "libperfq-gl-dlopen-glesv2.so"},
        {"libOpenGL.so", "libperfq-gl-dlopen-opengl.so"},
    };
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++) {
        size_t n = strlen(libraries[i].prefix);
        if (strncmp(base, libraries[i].prefix, n) == 0 && (base[n] == '\0' || base[n] == '.'))
            return libraries[i].proxy;
    }
    return NULL;
}

#endif
