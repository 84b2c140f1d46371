/*
 * bench-draw-heavy [FRAMES [DRAWS [fill]]]: a draw-heavy synthetic load for bench-stat-layers
 * (the slowdown `perfq stat` causes where draw calls, not pixels, are the work). An unmodified
 * headless GL program (links only libEGL, every GL function through eglGetProcAddress): FRAMES
 * frames (default 100) of DRAWS draw calls each (default 2000), each one glDrawArrays of a
 * single small triangle with a uniform changed before it, into a 64x64 pbuffer, then
 * eglSwapBuffers. No texture upload, almost no fragments: per-call cost dominates, which is
 * where a layer that wraps draw calls (and `--per-draw`, which times each) costs most.
 * `fill`: the opposite, pixels are the work: each draw one opaque triangle covering the whole
 * 1024x1024 pbuffer, which has no depth buffer (overdraw that llvmpipe drops while no query
 * is active: docs/perfq-stat.md, "Pipeline statistics and llvmpipe's overdraw elimination").
 * Exit 0; 1 on a GL/EGL failure; 77 when there is no EGL display or no desktop GL.
 */
#include "headless_display.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct {
    PFNGLGENBUFFERSPROC GenBuffers;
    PFNGLBINDBUFFERPROC BindBuffer;
    PFNGLBUFFERDATAPROC BufferData;
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLBINDATTRIBLOCATIONPROC BindAttribLocation;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
    PFNGLUNIFORM2FPROC Uniform2f;
    PFNGLUNIFORM1FPROC Uniform1f;
    PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
    PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;
    void (*Clear)(GLbitfield);
    void (*Viewport)(GLint, GLint, GLsizei, GLsizei);
    void (*DrawArrays)(GLenum, GLint, GLsizei);
    GLenum (*GetError)(void);
} gl;

static int load(void)
{
#define L(member, name) if (!(*(void **)&gl.member = (void *)eglGetProcAddress(name))) return -1
    L(GenBuffers, "glGenBuffers"); L(BindBuffer, "glBindBuffer"); L(BufferData, "glBufferData");
    L(CreateShader, "glCreateShader"); L(ShaderSource, "glShaderSource");
    L(CompileShader, "glCompileShader"); L(CreateProgram, "glCreateProgram");
    L(AttachShader, "glAttachShader"); L(BindAttribLocation, "glBindAttribLocation");
    L(LinkProgram, "glLinkProgram"); L(GetProgramiv, "glGetProgramiv");
    L(UseProgram, "glUseProgram"); L(GetUniformLocation, "glGetUniformLocation");
    L(Uniform2f, "glUniform2f"); L(Uniform1f, "glUniform1f");
    L(VertexAttribPointer, "glVertexAttribPointer");
    L(EnableVertexAttribArray, "glEnableVertexAttribArray"); L(Clear, "glClear");
    L(Viewport, "glViewport"); L(DrawArrays, "glDrawArrays"); L(GetError, "glGetError");
#undef L
    return 0;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 100;
    int draws = argc > 2 ? atoi(argv[2]) : 2000;
    int fill = argc > 3 && strcmp(argv[3], "fill") == 0;
    if (frames < 1 || draws < 1 || (argc > 3 && !fill) || argc > 4) {
        fprintf(stderr, "usage: bench-draw-heavy [FRAMES [DRAWS [fill]]]\n");
        return 2;
    }
    const EGLint size = fill ? 1024 : 64;
    EGLDisplay dpy = bench_headless_display();
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "bench-draw-heavy: no EGL display\n");
        return 77;
    }
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLint sattrs[] = {EGL_WIDTH, size, EGL_HEIGHT, size, EGL_NONE};
    EGLConfig config;
    EGLint nc = 0;
    if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
        fprintf(stderr, "bench-draw-heavy: no desktop GL pbuffer config\n");
        return 77;
    }
    EGLSurface surf = eglCreatePbufferSurface(dpy, config, sattrs);
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, NULL);
    if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx) ||
        load() != 0) {
        fprintf(stderr, "bench-draw-heavy: cannot create a GL context on a pbuffer\n");
        return 1;
    }
    static const char *vs =
        "#version 120\n"
        "attribute vec2 pos; uniform vec2 offset; uniform float scale;\n"
        "void main() { gl_Position = vec4(pos * scale + offset, 0.0, 1.0); }\n";
    static const char *fs = "#version 120\nvoid main() { gl_FragColor = vec4(1.0); }\n";
    GLuint v = gl.CreateShader(GL_VERTEX_SHADER), f = gl.CreateShader(GL_FRAGMENT_SHADER);
    gl.ShaderSource(v, 1, &vs, NULL);
    gl.CompileShader(v);
    gl.ShaderSource(f, 1, &fs, NULL);
    gl.CompileShader(f);
    GLuint prog = gl.CreateProgram();
    gl.AttachShader(prog, v);
    gl.AttachShader(prog, f);
    gl.BindAttribLocation(prog, 0, "pos");
    gl.LinkProgram(prog);
    GLint linked = 0;
    gl.GetProgramiv(prog, GL_LINK_STATUS, &linked);
    if (!linked) {
        fprintf(stderr, "bench-draw-heavy: shaders do not compile or link\n");
        return 1;
    }
    gl.UseProgram(prog);
    GLint offset = gl.GetUniformLocation(prog, "offset");
    /* fill: a triangle over the whole viewport (its corners past the edges) */
    static const float small[6] = {-1, -1, 1, -1, 0, 1}, whole[6] = {-1, -1, 3, -1, -1, 3};
    const float *tri = fill ? whole : small;
    gl.Uniform1f(gl.GetUniformLocation(prog, "scale"), fill ? 1.0f : 0.02f);
    GLuint vbo;
    gl.GenBuffers(1, &vbo);
    gl.BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl.BufferData(GL_ARRAY_BUFFER, sizeof(small), tri, GL_STATIC_DRAW);
    gl.VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    gl.EnableVertexAttribArray(0);
    gl.Viewport(0, 0, size, size);
    for (int frame = 0; frame < frames; frame++) {
        gl.Clear(GL_COLOR_BUFFER_BIT);
        for (int d = 0; d < draws; d++) {
            if (!fill)
                gl.Uniform2f(offset, -0.9f + 1.8f * (float)(d % 37) / 37.0f,
                             -0.9f + 1.8f * (float)(d % 41) / 41.0f);
            gl.DrawArrays(GL_TRIANGLES, 0, 3);
        }
        if (!eglSwapBuffers(dpy, surf)) {
            fprintf(stderr, "bench-draw-heavy: eglSwapBuffers failed: 0x%x\n", eglGetError());
            return 1;
        }
    }
    GLenum err = gl.GetError();
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surf);
    eglTerminate(dpy);
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "bench-draw-heavy: GL error 0x%x\n", err);
        return 1;
    }
    printf("bench-draw-heavy: %d frames of %d draw calls%s\n", frames, draws,
           fill ? ", each over the whole 1024x1024 pbuffer" : "");
    return 0;
}
