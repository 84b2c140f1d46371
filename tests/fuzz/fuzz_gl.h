/*
 * The GL fuzzers' context: one headless EGL context on llvmpipe (tests/gl's harness: the layer
 * linked first, every function through eglGetProcAddress as an unmodified program gets it),
 * made current once. Desktop core by default; PERFQ_FUZZ_GL_KIND=compat or gles picks another.
 * Between inputs the fuzzer deletes what it created, so each input starts from the same state.
 */
#ifndef PERFQ_TESTS_FUZZ_GL_H
#define PERFQ_TESTS_FUZZ_GL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"

static struct glt fuzz_T;

static inline void fuzz_gl_init(void)
{
    EGLDisplay dpy;
    const char *k = getenv("PERFQ_FUZZ_GL_KIND");
    enum glt_kind kind = k && !strcmp(k, "compat") ? GLT_COMPAT
                         : k && !strcmp(k, "gles") ? GLT_GLES3 : GLT_CORE;
    if (glt_open_display(&dpy) || glt_create(&fuzz_T, dpy, kind, 64, 64)) {
        fprintf(stderr, "fuzz: no EGL context of kind %s\n", glt_kind_name(kind));
        abort();
    }
}

/* 1 if id is one of the first n names of set (the names an input generated, the handles it
 * holds). */
static inline int fuzz_gl_name_in(const GLuint *set, int n, GLuint id)
{
    for (int i = 0; i < n; i++)
        if (set[i] == id)
            return 1;
    return 0;
}

/* The GL errors a call may raise at all. */
static inline int fuzz_gl_error_legal(GLenum e)
{
    return e == GL_NO_ERROR || e == GL_INVALID_ENUM || e == GL_INVALID_VALUE ||
           e == GL_INVALID_OPERATION || e == GL_OUT_OF_MEMORY;
}

/* The one error the call raised (the flag holds the first; it is drained). */
static inline GLenum fuzz_gl_error(void)
{
    GLenum first = gl.glGetError(), e;
    int guard = 0;
    while ((e = gl.glGetError()) != GL_NO_ERROR && ++guard < 16)
        ;
    return first;
}

/* 1 when the error flag holds nothing GL does not define (drained). */
static inline int fuzz_gl_legal_error_drained(void)
{
    return fuzz_gl_error_legal(fuzz_gl_error());
}

#endif
