/*
 * An unmodified GL program for `perfq memory` (tests/gl/test_cli_memory.c): it links only libEGL,
 * gets every GL function through eglGetProcAddress, and allocates known sizes: under tag
 * "buffers" two 8 MiB buffer objects (16384 KiB, 2 allocations); untagged a 1024x1024 RGBA8
 * texture level 0 (4096 KiB) and a 2048x2048 RGBA8 renderbuffer (16384 KiB); a second context
 * of its own share group with one 1 MiB buffer under that group's tag "other" (1024 KiB).
 * Then it prints "ready" and waits for a line on stdin; at "delete" it deletes one 8 MiB buffer
 * and prints "ready" again; at EOF or "exit" it exits 0. Exit 77: no EGL display here.
 */
#include <stdio.h>
#include <string.h>

#include "gl_test.h"

typedef void (*PFNGLTEXIMAGE2DPROC_)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum,
                                     GLenum, const void *);
typedef void (*PFNGLGENTEXTURESPROC_)(GLsizei, GLuint *);
typedef void (*PFNGLBINDTEXTUREPROC_)(GLenum, GLuint);

static void *get(const char *name)
{
    return (void *)eglGetProcAddress(name);
}

int main(void)
{
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    EGLContext ctx, other;
    int rc = glt_create_context(dpy, GLT_COMPAT, &ctx);
    if (rc == 0)
        rc = glt_create_context(dpy, GLT_COMPAT, &other);
    if (rc != 0)
        return rc;
    PFNGLGENQUERYRESOURCETAGNVPROC gen_tag;
    PFNGLQUERYRESOURCETAGNVPROC set_tag;
    PFNGLGENBUFFERSPROC gen_buffers;
    PFNGLBINDBUFFERPROC bind_buffer;
    PFNGLBUFFERDATAPROC buffer_data;
    PFNGLDELETEBUFFERSPROC delete_buffers;
    t_geterror get_error;
    /* The second share group first: 1 MiB under its own tag "other". */
    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, other)) {
        fprintf(stderr, "FAIL: eglMakeCurrent\n");
        return 1;
    }
    gen_tag = get("glGenQueryResourceTagNV");
    set_tag = get("glQueryResourceTagNV");
    gen_buffers = get("glGenBuffers");
    bind_buffer = get("glBindBuffer");
    buffer_data = get("glBufferData");
    delete_buffers = get("glDeleteBuffers");
    get_error = get("glGetError");
    PFNGLGENTEXTURESPROC_ gen_textures = get("glGenTextures");
    PFNGLBINDTEXTUREPROC_ bind_texture = get("glBindTexture");
    PFNGLTEXIMAGE2DPROC_ tex_image = get("glTexImage2D");
    PFNGLGENRENDERBUFFERSPROC gen_rbs = get("glGenRenderbuffers");
    PFNGLBINDRENDERBUFFERPROC bind_rb = get("glBindRenderbuffer");
    PFNGLRENDERBUFFERSTORAGEPROC rb_storage = get("glRenderbufferStorage");
    if (!gen_tag || !set_tag || !gen_buffers || !bind_buffer || !buffer_data ||
        !delete_buffers || !get_error || !gen_textures || !bind_texture || !tex_image ||
        !gen_rbs || !bind_rb || !rb_storage) {
        fprintf(stderr, "FAIL: a GL entry point is missing\n");
        return 1;
    }
    GLint tag;
    GLuint small;
    gen_tag(1, &tag);
    set_tag(tag, "other");
    gen_buffers(1, &small);
    bind_buffer(GL_ARRAY_BUFFER, small);
    buffer_data(GL_ARRAY_BUFFER, 1 << 20, NULL, GL_STATIC_DRAW);
    set_tag(0, NULL);

    if (!eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: eglMakeCurrent\n");
        return 1;
    }
    GLuint buf[2], tex, rb;
    gen_tag(1, &tag);
    set_tag(tag, "buffers");
    gen_buffers(2, buf);
    for (int i = 0; i < 2; i++) {
        bind_buffer(GL_ARRAY_BUFFER, buf[i]);
        buffer_data(GL_ARRAY_BUFFER, 8 << 20, NULL, GL_STATIC_DRAW);
    }
    set_tag(0, NULL);
    gen_textures(1, &tex);
    bind_texture(GL_TEXTURE_2D, tex);
    tex_image(GL_TEXTURE_2D, 0, GL_RGBA8, 1024, 1024, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gen_rbs(1, &rb);
    bind_rb(GL_RENDERBUFFER, rb);
    rb_storage(GL_RENDERBUFFER, GL_RGBA8, 2048, 2048);
    GLenum err = get_error();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "FAIL: GL error 0x%x\n", err);
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    char line[64];
    while (fgets(line, sizeof line, stdin)) {
        if (strncmp(line, "delete", 6) == 0) {
            delete_buffers(1, &buf[0]);
            printf("ready\n");
            fflush(stdout);
        } else if (strncmp(line, "exit", 4) == 0) {
            break;
        }
    }
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroyContext(dpy, other);
    eglTerminate(dpy);
    return 0;
}
