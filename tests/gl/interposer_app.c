/*
 * An unmodified program (libEGL only) run with perfq's layer or its preload stub first in
 * LD_PRELOAD and libgl-test-interposer.so after it. The layer must be active (its
 * GL_ANGLE_timer_query advertised) and its calls of real EGL functions must reach the
 * interposer, as they would without perfq: the program's eglMakeCurrent forwarded by the layer
 * (once per call) and the layer's own eglQueryContext in eglDestroyContext. Under the stub, the
 * layer is loaded with dlopen and finds the functions after the stub through
 * perfq_gl_lazy_next; a tail call there once made glibc search after the layer instead, past the
 * interposer (lazy_preload.c). And eglGetProcAddress answers the layer's own functions. Exit 0:
 * it works; 1: it does not; 77: no EGL display here.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "gl_test.h"

typedef void (*calls_fn)(int *make_current, int *query_context);

int main(int argc, char **argv)
{
    calls_fn calls = (calls_fn)dlsym(RTLD_DEFAULT, "perfq_test_interposer_calls");
    if (!calls) {
        fprintf(stderr, "FAIL: libgl-test-interposer.so is not preloaded\n");
        return 1;
    }
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    EGLContext ctx;
    int rc = glt_create_context(dpy, glt_kind_from_args(argc, argv), &ctx);
    if (rc != 0)
        return rc;
    int mc0, qc0;
    calls(&mc0, &qc0);
    /* The layer's own function, not the stub's trampoline of the same name (libperfq-gl.so is
     * linked with -Bsymbolic-functions: src/gl/meson.build). */
    Dl_info where;
    void *draw = (void *)eglGetProcAddress("glDrawArrays");
    const char *file = draw && dladdr(draw, &where) && where.dli_fname ? where.dli_fname : "";
    const char *base = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;
    int own = strcmp(base, "libperfq-gl.so") == 0;
    if (!own)
        fprintf(stderr, "FAIL: eglGetProcAddress(\"glDrawArrays\") is in %s, not the layer\n",
                file);
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent failed (0x%x)\n", eglGetError());
        return 1;
    }
    t_getintegerv getIntegerv = (t_getintegerv)eglGetProcAddress("glGetIntegerv");
    PFNGLGETSTRINGIPROC getStringi = (PFNGLGETSTRINGIPROC)eglGetProcAddress("glGetStringi");
    GLint n = 0;
    int layer = 0;
    getIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++)
        layer |= strcmp((const char *)getStringi(GL_EXTENSIONS, (GLuint)i),
                        "GL_ANGLE_timer_query") == 0;
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    int mc1, qc1;
    calls(&mc1, &qc1);
    eglDestroyContext(dpy, ctx);
    int mc2, qc2;
    calls(&mc2, &qc2);
    eglTerminate(dpy);
    printf("layer %s; interposer: eglMakeCurrent %d of 2 calls, eglQueryContext %d in "
           "eglDestroyContext\n", layer ? "active" : "absent", mc1 - mc0, qc2 - qc1);
    if (!layer)
        fprintf(stderr, "FAIL: the layer is not active (no GL_ANGLE_timer_query)\n");
    if (mc1 - mc0 != 2)
        fprintf(stderr, "FAIL: the layer's eglMakeCurrent did not reach the interposer\n");
    if (qc2 - qc1 < 1)
        fprintf(stderr, "FAIL: the layer's eglQueryContext did not reach the interposer\n");
    return layer && own && mc1 - mc0 == 2 && qc2 - qc1 >= 1 ? 0 : 1;
}
