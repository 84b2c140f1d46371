/*
 * An unmodified program that loads EGL itself: dlopen("libEGL.so.1"), dlsym(eglGetProcAddress)
 * and the few EGL calls it needs, then everything else through eglGetProcAddress. Run with
 * LD_PRELOAD=libperfq-gl.so, the layer's dlopen redirection must put GL_ANGLE_timer_query in
 * front of it, and load no GL library besides the one it opened (libGL, libOpenGL, libGLESv2
 * stay out of its maps). Exit 0: it works; 1: it does not; 77: no EGL here.
 * --global: as PyOpenGL and other ctypes programs do, libEGL and the GL library (libOpenGL, or
 * libGLESv2 with --gles) opened RTLD_GLOBAL, glGetError and glFinish taken from the GL library's
 * handle: the layer's proxies must not put the layer into the global scope, where its lookup of
 * the driver's functions found its own (a hang in the table's resolution, or glGetError calling
 * itself until the stack ended).
 * --glx-first: as waffle in eglretrace does, libGL opened and glXGetProcAddressARB called before
 * libEGL is loaded: the layer resolved its table then, without EGL, and its EGL wrappers and
 * eglGetProcAddress answered NULL for every name it does not wrap ("unavailable function
 * glXGetCurrentDisplay"); they must find libEGL once the program loads it.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "perfq/angle_timer_query.h"
#include "../test_util.h"

typedef void (*PFNGLGETINTEGERVPROC)(GLenum, GLint *);
typedef const GLubyte *(*PFNGLGETSTRINGPROC)(GLenum);
typedef GLenum (*PFNGLGETERRORPROC)(void);
typedef void (*PFNGLFINISHPROC)(void);

static PFNEGLGETPROCADDRESSPROC gpa;

static void *get(const char *name)
{
    return (void *)gpa(name);
}

int main(int argc, char **argv)
{
    int kind = argc > 1 ? (strcmp(argv[1], "--core") == 0 ? 1 : 2 * !strcmp(argv[1], "--gles"))
                        : 0;
    /* --deepbind: as programs that isolate their libraries' symbols do (issue 13): libEGL and
     * what it loads resolve their own symbols first, before the layer's preloaded wrappers. */
    int deepbind = 0, global = 0, glx_first = 0;
    for (int i = 1; i < argc; i++) {
        deepbind |= strcmp(argv[i], "--deepbind") == 0;
        global |= strcmp(argv[i], "--global") == 0;
        glx_first |= strcmp(argv[i], "--glx-first") == 0;
    }
    if (glx_first) {
        void *libgl = dlopen("libGL.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (!libgl)
            return test_may_lack("libGL.so.1") ? 77 : 1;   /* Mesa's glvnd has it (CI) */
        typedef void (*(*glx_gpa)(const GLubyte *))(void);
        glx_gpa glx = (glx_gpa)dlsym(libgl, "glXGetProcAddressARB");
        if (!glx || !glx((const GLubyte *)"glXGetCurrentDisplay")) {
            fprintf(stderr, "FAIL: libGL's glXGetProcAddressARB missing or NULL\n");
            return 1;
        }
    }
    void *egl = dlopen("libEGL.so.1", RTLD_NOW | (global ? RTLD_GLOBAL : RTLD_LOCAL) |
                                          (deepbind ? RTLD_DEEPBIND : 0));
    if (!egl) {
        fprintf(stderr, "no libEGL.so.1: skipping\n");
        return 77;
    }
    gpa = (PFNEGLGETPROCADDRESSPROC)dlsym(egl, "eglGetProcAddress");
    PFNEGLQUERYSTRINGPROC queryString = (PFNEGLQUERYSTRINGPROC)dlsym(egl, "eglQueryString");
    PFNEGLINITIALIZEPROC initialize = (PFNEGLINITIALIZEPROC)dlsym(egl, "eglInitialize");
    PFNEGLBINDAPIPROC bindApi = (PFNEGLBINDAPIPROC)dlsym(egl, "eglBindAPI");
    PFNEGLCREATECONTEXTPROC createContext = (PFNEGLCREATECONTEXTPROC)dlsym(egl, "eglCreateContext");
    PFNEGLMAKECURRENTPROC makeCurrent = (PFNEGLMAKECURRENTPROC)dlsym(egl, "eglMakeCurrent");
    PFNEGLCHOOSECONFIGPROC chooseConfig = (PFNEGLCHOOSECONFIGPROC)dlsym(egl, "eglChooseConfig");
    if (!gpa || !queryString || !initialize || !bindApi || !createContext || !makeCurrent)
        return 1;
    if (glx_first) {
        /* Names the layer does not wrap: the driver's answer (glvnd's libEGL gives one for
         * each, with no display yet). */
        static const char *const unwrapped[] = {"glXGetCurrentDisplay", "glDebugMessageControlKHR",
                                                "eglCreateImageKHR"};
        for (size_t i = 0; i < sizeof unwrapped / sizeof unwrapped[0]; i++)
            if (!get(unwrapped[i])) {
                fprintf(stderr, "FAIL: eglGetProcAddress(%s) is NULL\n", unwrapped[i]);
                return 1;
            }
    }
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd = get("eglGetPlatformDisplayEXT");
    const char *cext = queryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (gpd && cext && strstr(cext, "EGL_MESA_platform_surfaceless"))
        dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
    if ((dpy == EGL_NO_DISPLAY || !initialize(dpy, NULL, NULL)) && gpd && cext &&
        strstr(cext, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC qd = get("eglQueryDevicesEXT");
        EGLDeviceEXT dev;
        EGLint n = 0;
        if (qd && qd(1, &dev, &n) && n > 0)
            dpy = gpd(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
        if (dpy != EGL_NO_DISPLAY && !initialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return 77;
    }
    bindApi(kind == 2 ? EGL_OPENGL_ES_API : EGL_OPENGL_API);
    EGLint core[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
                     EGL_NONE};
    EGLint es3[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    EGLConfig config = EGL_NO_CONFIG_KHR;
    EGLint nc = 0;
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                       kind == 2 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    const char *dext = queryString(dpy, EGL_EXTENSIONS);
    if ((!dext || !strstr(dext, "EGL_KHR_no_config_context")) && chooseConfig)
        chooseConfig(dpy, cattrs, &config, 1, &nc);
    EGLContext ctx = createContext(dpy, config, EGL_NO_CONTEXT,
                                   kind == 1 ? core : kind == 2 ? es3 : NULL);
    if (ctx == EGL_NO_CONTEXT) {
        /* The layer wraps eglCreateContext: only the driver's refusal (EGL 1.5 section 3.7.1:
         * BAD_MATCH, BAD_CONFIG, BAD_ATTRIBUTE) means the context kind is missing here. */
        PFNEGLGETERRORPROC getError = (PFNEGLGETERRORPROC)dlsym(egl, "eglGetError");
        EGLint err = getError ? getError() : EGL_SUCCESS;
        if (err != EGL_BAD_MATCH && err != EGL_BAD_CONFIG && err != EGL_BAD_ATTRIBUTE) {
            fprintf(stderr, "FAIL: eglCreateContext gave no context, error 0x%x\n", (unsigned)err);
            return 1;
        }
        fprintf(stderr, "the driver has no context of this kind: skipping\n");
        return 77;
    }
    /* The layer wraps eglMakeCurrent: its failure is the layer's (or the driver's) defect. */
    if (!makeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent of a new context failed\n");
        return 1;
    }
    PFNGLGETSTRINGPROC getString = get("glGetString");
    PFNGLGETINTEGERVPROC getIntegerv = get("glGetIntegerv");
    PFNGLGETSTRINGIPROC getStringi = get("glGetStringi");
    GLint n = 0;
    int found = 0;
    getIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++)
        found |= strcmp((const char *)getStringi(GL_EXTENSIONS, (GLuint)i),
                        "GL_ANGLE_timer_query") == 0;
    PFNGLGENQUERIESANGLEPROC gen = get("glGenQueriesANGLE");
    PFNGLQUERYCOUNTERANGLEPROC counter = get("glQueryCounterANGLE");
    PFNGLGETQUERYOBJECTUI64VANGLEPROC result = get("glGetQueryObjectui64vANGLE");
    printf("%s: GL_ANGLE_timer_query %s\n", getString(GL_RENDERER), found ? "advertised" : "absent");
    if (!found || !gen || !counter || !result)
        return 1;
    GLuint q = 0;
    gen(1, &q);
    counter(q, GL_TIMESTAMP_ANGLE);
    GLuint64 t = 0;
    result(q, GL_QUERY_RESULT_ANGLE, &t);
    printf("timestamp %llu\n", (unsigned long long)t);
    if (t == 0)
        return 1;
    if (global) {
        const char *lib = kind == 2 ? "libGLESv2.so.2" : "libOpenGL.so.0";
        void *gl = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
        PFNGLGETERRORPROC getError = gl ? (PFNGLGETERRORPROC)dlsym(gl, "glGetError") : NULL;
        PFNGLFINISHPROC finish = gl ? (PFNGLFINISHPROC)dlsym(gl, "glFinish") : NULL;
        if (!getError || !finish) {
            fprintf(stderr, "FAIL: %s or its glGetError, glFinish missing\n", lib);
            return 1;
        }
        finish();
        GLenum err = getError();
        if (err != GL_NO_ERROR) {
            fprintf(stderr, "FAIL: glGetError 0x%x\n", (unsigned)err);
            return 1;
        }
        printf("%s opened RTLD_GLOBAL: glFinish, glGetError GL_NO_ERROR\n", lib);
    }
    /* The program opened libEGL only (and libGL with --glx-first): the layer's answer to that
     * dlopen loads no other GL library (one proxy per library). */
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps)
        return 1;
    char line[4096];
    int others = 0;
    while (fgets(line, sizeof line, maps))
        if ((!glx_first && strstr(line, "/libGL.so")) ||
            (!global && (strstr(line, "/libOpenGL.so") ||
                                                      strstr(line, "/libGLESv2.so")))) {
            fprintf(stderr, "FAIL: a GL library the program did not open is loaded: %s", line);
            others = 1;
            break;
        }
    fclose(maps);
    return others;
}
