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

typedef void (*t_draw)(GLenum, GLint, GLsizei);

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
    PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC constant =
        (PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC)eglGetProcAddress("eglGetPerfCounterConstantBRCM");
    PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC group_info =
        (PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC)eglGetProcAddress("eglGetPerfCounterGroupInfoBRCM");
    PFNEGLGETPERFCOUNTERINFOBRCMPROC counter_info =
        (PFNEGLGETPERFCOUNTERINFOBRCMPROC)eglGetProcAddress("eglGetPerfCounterInfoBRCM");
    PFNEGLSETPERFCOUNTINGBRCMPROC counting =
        (PFNEGLSETPERFCOUNTINGBRCMPROC)eglGetProcAddress("eglSetPerfCountingBRCM");
    PFNEGLCHOOSEPERFCOUNTERSBRCMPROC choose =
        (PFNEGLCHOOSEPERFCOUNTERSBRCMPROC)eglGetProcAddress("eglChoosePerfCountersBRCM");
    PFNEGLGETPERFCOUNTERDATABRCMPROC data =
        (PFNEGLGETPERFCOUNTERDATABRCMPROC)eglGetProcAddress("eglGetPerfCounterDataBRCM");
    CHECK(constant && group_info && counter_info && counting && choose && data);
    EGLint drv = -1, draws = -1, groups = constant(EGL_NUM_COUNTER_GROUPS_BRCM);
    for (EGLint g = 0; g < groups; g++) {
        char name[64];
        CHECK(group_info(g, sizeof name, name, NULL, NULL));
        if (strcmp(name, "Driver Counters") == 0)
            drv = g;
    }
    CHECK(drv >= 0);
    for (EGLint c = 0; c < 5; c++) {
        char name[64];
        CHECK(counter_info(drv, c, NULL, NULL, NULL, sizeof name, name, 0, NULL));
        if (strcmp(name, "Draw Calls") == 0)
            draws = c;
    }
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
        fprintf(stderr, "no surfaceless GLES 2 context: skipping\n");
        return 77;
    }
    /* The layer wraps eglMakeCurrent: its failure is the layer's (or the driver's) defect. */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new context failed (0x%x)\n", eglGetError());
        return 1;
    }
    t_draw draw = (t_draw)eglGetProcAddress("glDrawArrays");
    CHECK(draw);

    CHECK(counting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint list[] = {draws};
    CHECK(choose(EGL_TRUE, drv, 1, list));
    CHECK(counting(EGL_START_COUNTERS_BRCM));
    for (int i = 0; i < 7; i++)
        draw(GL_TRIANGLES, 0, 3);
    struct { uint32_t group, counter; uint64_t value; } rec[2];
    EGLint bytes = 0;
    CHECK(data(sizeof rec, rec, &bytes, EGL_TRUE));
    CHECK(bytes == 16 && rec[0].group == (uint32_t)drv && rec[0].counter == (uint32_t)draws);
    printf("Draw Calls after 7 draws: %llu\n", (unsigned long long)rec[0].value);
    CHECK(rec[0].value == 7);
    CHECK(counting(EGL_RELEASE_COUNTERS_BRCM));
    CHECK(!counting(EGL_RELEASE_COUNTERS_BRCM) && eglGetError() == EGL_BAD_ACCESS);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return 0;
}
