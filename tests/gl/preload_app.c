/*
 * An unmodified program: it links only libEGL, knows nothing of perfq, and gets every GL
 * function through eglGetProcAddress. Run with LD_PRELOAD=libperfq-gl.so (as `perfq run` does),
 * it must see GL_ANGLE_timer_query and get working results from it. Exit 0: it works; 1: it does
 * not; 77: no EGL display here. Arguments: --core / --gles (default compatibility).
 */
#include <stdio.h>
#include <string.h>

#include "gl_test.h"

static void *get(const char *name)
{
    return (void *)eglGetProcAddress(name);
}

int main(int argc, char **argv)
{
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    EGLContext ctx;
    int rc = glt_create_context(dpy, glt_kind_from_args(argc, argv), &ctx);
    if (rc != 0)
        return rc;
    /* The layer wraps eglMakeCurrent: its failure is the layer's (or the driver's) defect. */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new context failed (0x%x)\n", eglGetError());
        return 1;
    }
    t_getintegerv getIntegerv = get("glGetIntegerv");
    PFNGLGETSTRINGIPROC getStringi = get("glGetStringi");
    t_getstring getString = get("glGetString");
    t_geterror getError = get("glGetError");
    t_voidfn finish = get("glFinish");
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
