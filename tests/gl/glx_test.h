/*
 * The GLX programs' setup (glx_app, intel/test_intel_glx: unmodified programs that link libGL
 * and libX11 only, run with LD_PRELOAD=libperfq-gl.so): an X display, from $DISPLAY or an Xvfb
 * of their own, and a context on a pbuffer made current, as a GLX program makes them.
 */
#ifndef PERFQ_TESTS_GL_GLX_TEST_H
#define PERFQ_TESTS_GL_GLX_TEST_H

#include <GL/glx.h>
#include <X11/Xlib.h>

struct glxt {
    Display *dpy;
    GLXContext ctx;
    GLXPbuffer pb;   /* 64 x 64 */
};

/* Opens $DISPLAY, or where it is unset starts /usr/bin/Xvfb on the first free display number
 * from `first` to below `last` (stopped at exit; programs that may run at once take ranges
 * apart), then creates a GL 3.3 compatibility context, or an OpenGL ES 3.0 one where `gles`
 * (GLX_EXT_create_context_es2_profile), with glXCreateContextAttribsARB from
 * glXGetProcAddressARB, and makes it current on a pbuffer. 0; 77 (skip) where there is no X
 * display, pbuffer config or context of the kind, the reason on stderr; 1 where GLX lacks
 * GLX_EXT_create_context_es2_profile (Mesa's and NVIDIA's both have it) or
 * glXMakeContextCurrent fails (the layer wraps it). */
int glxt_create(struct glxt *t, int gles, int first, int last);

#endif
