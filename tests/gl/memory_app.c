/*
 * An unmodified GL program for `perfq memory` (tests/gl/test_cli_memory.c): it links only libEGL,
 * gets every GL function through eglGetProcAddress, and allocates known sizes: under tag
 * "buffers" two 8 MiB buffer objects (16384 KiB, 2 allocations); untagged a 1024x1024 RGBA8
 * texture level 0 (4096 KiB) and a 2048x2048 RGBA8 renderbuffer (16384 KiB); a second context
 * of its own share group with one 1 MiB buffer under that group's tag "other" (1024 KiB).
 * Then it prints "ready" and waits for a line on stdin; at "delete" it deletes one 8 MiB buffer
 * and prints "ready" again; at EOF or "exit" it exits 0. Exit 77: no EGL display here.
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <string.h>

typedef void (*PFNGLGENBUFFERSPROC_)(GLsizei, GLuint *);
typedef GLenum (*PFNGLGETERRORPROC_)(void);
typedef void (*PFNGLTEXIMAGE2DPROC_)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum,
                                     GLenum, const void *);
typedef void (*PFNGLGENTEXTURESPROC_)(GLsizei, GLuint *);
typedef void (*PFNGLBINDTEXTUREPROC_)(GLenum, GLuint);

static void *get(const char *name)
{
    return (void *)eglGetProcAddress(name);
}

static EGLDisplay open_display(void)
{
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
    return dpy;
}

static EGLContext make_context(EGLDisplay dpy)
{
    EGLConfig config = EGL_NO_CONFIG_KHR;
    EGLint nc = 0;
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_NONE};
    const char *dext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!dext || !strstr(dext, "EGL_KHR_no_config_context"))
        eglChooseConfig(dpy, cattrs, &config, 1, &nc);
    return eglCreateContext(dpy, config, EGL_NO_CONTEXT, NULL);
}

int main(void)
{
    EGLDisplay dpy = open_display();
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return 77;
    }
    eglBindAPI(EGL_OPENGL_API);
    EGLContext ctx = make_context(dpy), other = make_context(dpy);
    if (ctx == EGL_NO_CONTEXT || other == EGL_NO_CONTEXT) {
        fprintf(stderr, "no desktop GL context: skipping\n");
        return 77;
    }
    PFNGLGENQUERYRESOURCETAGNVPROC gen_tag;
    PFNGLQUERYRESOURCETAGNVPROC set_tag;
    PFNGLGENBUFFERSPROC_ gen_buffers;
    PFNGLBINDBUFFERPROC bind_buffer;
    PFNGLBUFFERDATAPROC buffer_data;
    PFNGLDELETEBUFFERSPROC delete_buffers;
    PFNGLGETERRORPROC_ get_error;
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
