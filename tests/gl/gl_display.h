/* The EGL display choice every GL test shares (tests/gl/gl_test.c; see gl_test.h). */
#ifndef PERFQ_TESTS_GL_DISPLAY_H
#define PERFQ_TESTS_GL_DISPLAY_H

#include <EGL/egl.h>

EGLDisplay glt_choose_display(int (*accept)(EGLDisplay dpy, void *arg), void *arg);

#endif
