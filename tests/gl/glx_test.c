/* The GLX programs' setup (glx_test.h). */
#include "glx_test.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t xvfb = 0;

static void stop_xvfb(void)
{
    if (xvfb > 0) {
        kill(xvfb, SIGTERM);
        waitpid(xvfb, NULL, 0);
        xvfb = 0;
    }
}

static int start_xvfb(int first, int last)
{
    if (access("/usr/bin/Xvfb", X_OK) != 0)
        return -1;
    for (int n = first + (int)(getpid() % 100); n < last; n += 7) {
        char lock[64], sock[64], disp[16];
        snprintf(lock, sizeof lock, "/tmp/.X%d-lock", n);
        snprintf(sock, sizeof sock, "/tmp/.X11-unix/X%d", n);
        if (access(lock, F_OK) == 0)
            continue;
        snprintf(disp, sizeof disp, ":%d", n);
        xvfb = fork();
        if (xvfb == 0) {
            /* Xvfb must not inherit the layer. */
            unsetenv("LD_PRELOAD");
            execl("/usr/bin/Xvfb", "Xvfb", disp, "-screen", "0", "256x256x24", "-nolisten",
                  "tcp", (char *)NULL);
            _exit(127);
        }
        for (int i = 0; i < 100; i++) {
            struct stat st;
            if (stat(sock, &st) == 0) {
                setenv("DISPLAY", disp, 1);
                usleep(100000);
                return 0;
            }
            usleep(50000);
        }
        stop_xvfb();
    }
    return -1;
}

int glxt_create(struct glxt *t, int gles, int first, int last)
{
    memset(t, 0, sizeof *t);
    if (!getenv("DISPLAY") && start_xvfb(first, last) != 0) {
        fprintf(stderr, "no X display and no Xvfb: skipping\n");
        return 77;
    }
    atexit(stop_xvfb);
    t->dpy = XOpenDisplay(NULL);
    if (!t->dpy) {
        fprintf(stderr, "cannot open the X display: skipping\n");
        return 77;
    }
    int attrs[] = {GLX_DRAWABLE_TYPE, GLX_PBUFFER_BIT, GLX_RENDER_TYPE, GLX_RGBA_BIT,
                   GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8, GLX_BLUE_SIZE, 8, None};
    int n = 0;
    GLXFBConfig *configs = glXChooseFBConfig(t->dpy, DefaultScreen(t->dpy), attrs, &n);
    if (!configs || n < 1) {
        fprintf(stderr, "no pbuffer config: skipping\n");
        return 77;
    }
    PFNGLXCREATECONTEXTATTRIBSARBPROC create = (PFNGLXCREATECONTEXTATTRIBSARBPROC)
        glXGetProcAddressARB((const GLubyte *)"glXCreateContextAttribsARB");
    int cattrs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB, 3, GLX_CONTEXT_MINOR_VERSION_ARB, 3,
                    GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_COMPATIBILITY_PROFILE_BIT_ARB,
                    None};
    int es_attrs[] = {GLX_CONTEXT_MAJOR_VERSION_ARB, 3, GLX_CONTEXT_MINOR_VERSION_ARB, 0,
                      GLX_CONTEXT_PROFILE_MASK_ARB, GLX_CONTEXT_ES2_PROFILE_BIT_EXT, None};
    if (gles && !strstr(glXQueryExtensionsString(t->dpy, DefaultScreen(t->dpy)),
                        "GLX_EXT_create_context_es2_profile")) {
        /* Mesa's and NVIDIA's GLX both have it: its absence is a broken setup, not a skip. */
        fprintf(stderr, "GLX without GLX_EXT_create_context_es2_profile: FAIL\n");
        XFree(configs);
        return 1;
    }
    t->ctx = create ? create(t->dpy, configs[0], NULL, True, gles ? es_attrs : cattrs) : NULL;
    int pattrs[] = {GLX_PBUFFER_WIDTH, 64, GLX_PBUFFER_HEIGHT, 64, None};
    t->pb = glXCreatePbuffer(t->dpy, configs[0], pattrs);
    XFree(configs);
    if (!t->ctx) {
        fprintf(stderr, "the driver has no GLX %s context for the config: skipping\n",
                gles ? "OpenGL ES 3.0" : "GL 3.3 compatibility");
        return 77;
    }
    /* The layer wraps glXMakeContextCurrent: its failure is the layer's (or the driver's). */
    if (!glXMakeContextCurrent(t->dpy, t->pb, t->pb, t->ctx)) {
        fprintf(stderr, "FAIL: glXMakeContextCurrent of a new context failed\n");
        return 1;
    }
    return 0;
}
