/*
 * gl-glx-frames N: an unmodified GLX program (links libGL and libX11 only) that renders N frames
 * and ends each with glXSwapBuffers, for `perfq stat` on GLX (tests/test_cli_profiler.c): a GL 3.3
 * compatibility context on a 64x64 pbuffer (glx_test.c: $DISPLAY, or an Xvfb of its own), each
 * frame a clear and 2 triangles (glDrawArrays(GL_TRIANGLES, 0, 6) from a client-side array, all
 * inside the viewport), then the swap; at the end the context is released before it is
 * destroyed, as most programs do (the layer reads the last frames there).
 * gl-glx-frames N exit: the same frames, then exit(0) with the context still current (no
 * release, no destroy), as many programs end (the layer reads the last frames at the exit).
 * gl-glx-frames N close: the same frames, then XCloseDisplay with the context still current,
 * then exit(0), as glmark2 ends: the display's close unbinds the context behind the layer.
 * gl-glx-frames N switch: the same frames, then a second context (glXCreateNewContext, the
 * pbuffer's config: glx_test.c's) made current on the pbuffer and N more frames on it, then XCloseDisplay
 * with the second current and the first left, never destroyed, as a program that makes a new
 * context per scene and ends with XCloseDisplay does.
 * Exit 0: rendered; 1: a GL or GLX failure; 77: no X display, pbuffer config or context.
 */
#include <GL/gl.h>
#include <GL/glx.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "glx_test.h"

int main(int argc, char **argv)
{
    long frames = argc > 1 ? strtol(argv[1], NULL, 10) : 60;
    int exit_current = argc > 2 && strcmp(argv[2], "exit") == 0;
    int close_current = argc > 2 && strcmp(argv[2], "close") == 0;
    int switch_then_close = argc > 2 && strcmp(argv[2], "switch") == 0;
    if (frames < 1 || frames > 1000000 ||
        (argc > 2 && !exit_current && !close_current && !switch_then_close)) {
        fprintf(stderr, "usage: %s [FRAMES (1 to 1000000) [exit|close|switch]]\n", argv[0]);
        return 1;
    }
    struct glxt t;
    int rc = glxt_create(&t, 0, 700, 900);
    if (rc != 0)
        return rc;
    static const GLfloat quad[] = {-0.5f, -0.5f, 0.5f, -0.5f, 0.5f, 0.5f,
                                   -0.5f, -0.5f, 0.5f, 0.5f,  -0.5f, 0.5f};
    glViewport(0, 0, 64, 64);
    glEnableClientState(GL_VERTEX_ARRAY);
    glVertexPointer(2, GL_FLOAT, 0, quad);
    for (int pass = 0; pass < (switch_then_close ? 2 : 1); pass++) {
        if (pass == 1) {
            /* The second context, on the pbuffer's config (glx_test.c's first of these); the
             * first context is left as it is. */
            GLXFBConfig config = NULL;
            int n = 0;
            const int attrs[] = {GLX_DRAWABLE_TYPE, GLX_PBUFFER_BIT, GLX_RENDER_TYPE,
                                 GLX_RGBA_BIT, GLX_RED_SIZE, 8, GLX_GREEN_SIZE, 8,
                                 GLX_BLUE_SIZE, 8, None};
            GLXFBConfig *configs = glXChooseFBConfig(t.dpy, DefaultScreen(t.dpy), attrs, &n);
            if (configs && n > 0)
                config = configs[0];
            GLXContext second =
                config ? glXCreateNewContext(t.dpy, config, GLX_RGBA_TYPE, NULL, True) : NULL;
            if (configs)
                XFree(configs);
            if (!second || !glXMakeContextCurrent(t.dpy, t.pb, t.pb, second)) {
                fprintf(stderr, "gl-glx-frames: the second context\n");
                return 1;
            }
            glViewport(0, 0, 64, 64);
            glEnableClientState(GL_VERTEX_ARRAY);
            glVertexPointer(2, GL_FLOAT, 0, quad);
        }
        for (long f = 0; f < frames; f++) {
            glClearColor((GLfloat)(f % 7) / 7.0f, 0.2f, 0.3f, 1.0f);
            glClear(GL_COLOR_BUFFER_BIT);
            glDrawArrays(GL_TRIANGLES, 0, 6);
            glXSwapBuffers(t.dpy, t.pb);
        }
    }
    GLenum e = glGetError();
    if (e != GL_NO_ERROR) {
        fprintf(stderr, "gl-glx-frames: GL error 0x%x\n", e);
        return 1;
    }
    if (exit_current)
        exit(0);
    if (close_current || switch_then_close) {
        XCloseDisplay(t.dpy);
        exit(0);
    }
    if (!glXMakeContextCurrent(t.dpy, None, None, NULL)) {
        fprintf(stderr, "gl-glx-frames: the release failed\n");
        return 1;
    }
    glXDestroyContext(t.dpy, t.ctx);
    glXDestroyPbuffer(t.dpy, t.pb);
    XCloseDisplay(t.dpy);
    return 0;
}
