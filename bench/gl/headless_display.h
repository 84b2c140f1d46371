/* The headless EGL display the GL benches draw on (bench-draw-heavy, bench-frame-queries). */
#ifndef PERFQ_BENCH_GL_HEADLESS_DISPLAY_H
#define PERFQ_BENCH_GL_HEADLESS_DISPLAY_H

#include <EGL/egl.h>

/* An EGL device first (NVIDIA), else Mesa's surfaceless platform, initialised: as
 * perfq-example-gl (examples/gl_frames.c, which keeps its own copy: an example stands alone).
 * EGL_NO_DISPLAY when neither is there. */
EGLDisplay bench_headless_display(void);

#endif
