/*
 * An unmodified program: it links only libEGL, knows nothing of perfq, and gets every GL
 * function through eglGetProcAddress. Run with LD_PRELOAD=libperfq-gl.so (as `perfq run` does),
 * it must see GL_ANGLE_timer_query and get working results from it. Exit 0: it works; 1: it does
 * not; 77: no EGL display here. Arguments: --core / --gles (default compatibility).
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <string.h>

#include "perfq/angle_timer_query.h"

typedef void (*PFNGLGETINTEGERVPROC)(GLenum, GLint *);
typedef const GLubyte *(*PFNGLGETSTRINGPROC)(GLenum);
typedef GLenum (*PFNGLGETERRORPROC)(void);
typedef void (*PFNGLFINISHPROC)(void);

static void *get(const char *name)
{
    return (void *)eglGetProcAddress(name);
}

int main(int argc, char **argv)
{
    int kind = argc > 1 ? (strcmp(argv[1], "--core") == 0 ? 1 : 2 * !strcmp(argv[1], "--gles"))
                        : 0;
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd = get("eglGetPlatformDisplayEXT");
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (gpd && cext && strstr(cext, "EGL_MESA_platform_surfaceless"))
        dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if ((dpy == EGL_NO_DISPLAY || !eglInitialize(dpy, NULL, NULL)) && gpd && cext &&
        strstr(cext, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC qd = get("eglQueryDevicesEXT");
        EGLDeviceEXT dev;
        EGLint n = 0;
        if (qd && qd(1, &dev, &n) && n > 0)
            dpy = gpd(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return 77;
    }
    eglBindAPI(kind == 2 ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
    EGLint core[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                     EGL_NONE};
    EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    EGLConfig config = EGL_NO_CONFIG_KHR;
    EGLint nc = 0;
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                       kind == 2 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    const char *dext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!dext || !strstr(dext, "EGL_KHR_no_config_context"))
        eglChooseConfig(dpy, cattrs, &config, 1, &nc);
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT,
                                      kind == 1 ? core : kind == 2 ? es3 : NULL);
    if (ctx == EGL_NO_CONTEXT) {
        fprintf(stderr, "the driver has no context of this kind: skipping\n");
        return 77;
    }
    /* The layer wraps eglMakeCurrent: its failure is the layer's (or the driver's) defect. */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new context failed (0x%x)\n", eglGetError());
        return 1;
    }
    PFNGLGETINTEGERVPROC getIntegerv = get("glGetIntegerv");
    PFNGLGETSTRINGIPROC getStringi = get("glGetStringi");
    PFNGLGETSTRINGPROC getString = get("glGetString");
    PFNGLGETERRORPROC getError = get("glGetError");
    PFNGLFINISHPROC finish = get("glFinish");
    GLint n = 0;
    int found = 0;
    getIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++)
        found |= strcmp((const char *)getStringi(GL_EXTENSIONS, (GLuint)i),
                        "GL_ANGLE_timer_query") == 0;
    printf("%s | %s: GL_ANGLE_timer_query %s\n", getString(GL_RENDERER), getString(GL_VERSION),
           found ? "advertised" : "absent");
    PFNGLGENQUERIESANGLEPROC gen = get("glGenQueriesANGLE");
    PFNGLBEGINQUERYANGLEPROC begin = get("glBeginQueryANGLE");
    PFNGLENDQUERYANGLEPROC end = get("glEndQueryANGLE");
    PFNGLQUERYCOUNTERANGLEPROC counter = get("glQueryCounterANGLE");
    PFNGLGETQUERYOBJECTUI64VANGLEPROC result = get("glGetQueryObjectui64vANGLE");
    if (!found || !gen || !begin || !end || !counter || !result)
        return 1;
    GLuint q[3];
    gen(3, q);
    counter(q[0], GL_TIMESTAMP_ANGLE);
    begin(GL_TIME_ELAPSED_ANGLE, q[1]);
    finish();
    end(GL_TIME_ELAPSED_ANGLE);
    counter(q[2], GL_TIMESTAMP_ANGLE);
    GLuint64 t0 = 0, el = 0, t1 = 0;
    result(q[0], GL_QUERY_RESULT_ANGLE, &t0);
    result(q[1], GL_QUERY_RESULT_ANGLE, &el);
    result(q[2], GL_QUERY_RESULT_ANGLE, &t1);
    GLenum err = getError();
    printf("timestamps %llu .. %llu, elapsed %llu ns, error 0x%x\n", (unsigned long long)t0,
           (unsigned long long)t1, (unsigned long long)el, err);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return err == GL_NO_ERROR && t0 > 0 && t1 > t0 && el <= t1 - t0 ? 0 : 1;
}
