/*
 * An unmodified EGL program for EGL_BRCM_performance_counters: it links only libEGL, knows
 * nothing of perfq and gets every function through eglGetProcAddress. Run with
 * LD_PRELOAD=libperfq-gl.so (as `perfq run` does), it must find the extension on its display,
 * get the six entry points, acquire, and read exactly the draws it makes as "Draw Calls".
 * Exit 0: it works; 1: it does not; 77: no EGL display or GLES context here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_test.h"
#include "perfq/egl_brcm_performance_counters.h"

#define CHECK(c)                                                   \
    do {                                                           \
        if (!(c)) {                                                \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, #c); \
            return 1;                                              \
        }                                                          \
    } while (0)

int main(void)
{
    char domain[64];
    snprintf(domain, sizeof domain, "brcm-preload-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    CHECK(ext && strstr(ext, "EGL_BRCM_performance_counters"));
    struct glt_brcm brcm;
    glt_brcm_load(&brcm);
    CHECK(brcm.GetConstant && brcm.GetGroupInfo && brcm.GetCounterInfo && brcm.SetCounting &&
          brcm.Choose && brcm.GetData);
    EGLint drv = glt_brcm_group(&brcm, "Driver Counters");
    CHECK(drv >= 0);
    EGLint draws = glt_brcm_counter(&brcm, drv, "Draw Calls");
    CHECK(draws >= 0);

    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_ES2_BIT,
                       EGL_NONE}, nc = 0;
    EGLConfig config;
    eglBindAPI(EGL_OPENGL_ES_API);
    if (!eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
        fprintf(stderr, "no GLES 2 pbuffer config: skipping\n");
        return 77;
    }
    EGLint attrs[] = {EGL_CONTEXT_CLIENT_VERSION, 2, EGL_NONE};
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, attrs);
    if (ctx == EGL_NO_CONTEXT) {
        if (!glt_egl_refusal(eglGetError(), "eglCreateContext"))   /* the layer wraps it */
            return 1;
        fprintf(stderr, "no surfaceless GLES 2 context: skipping\n");
        return 77;
    }
    /* The layer wraps eglMakeCurrent: its failure is the layer's (or the driver's) defect. */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new context failed (0x%x)\n", eglGetError());
        return 1;
    }
    t_drawarrays draw = (t_drawarrays)eglGetProcAddress("glDrawArrays");
    CHECK(draw);

    CHECK(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint list[] = {draws};
    CHECK(brcm.Choose(EGL_TRUE, drv, 1, list));
    CHECK(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    for (int i = 0; i < 7; i++)
        draw(GL_TRIANGLES, 0, 3);
    struct { uint32_t group, counter; uint64_t value; } rec[2];
    EGLint bytes = 0;
    CHECK(brcm.GetData(sizeof rec, rec, &bytes, EGL_TRUE));
    CHECK(bytes == 16 && rec[0].group == (uint32_t)drv && rec[0].counter == (uint32_t)draws);
    printf("Draw Calls after 7 draws: %llu\n", (unsigned long long)rec[0].value);
    CHECK(rec[0].value == 7);
    CHECK(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    CHECK(!brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM) && eglGetError() == EGL_BAD_ACCESS);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return 0;
}
