/*
 * An unmodified OpenGL ES 3 program for perfq stat (tests/test_cli_profiler.c): one 64x64
 * pbuffer and an ES 3.0 context, FRAMES frames (default 50) of a clear and DRAWS draws (default
 * 2) of glDrawArrays(GL_TRIANGLES, 0, 3) with a shader that places the vertices by gl_VertexID
 * (no buffer), then eglSwapBuffers. It links only libEGL and gets every GL function through
 * eglGetProcAddress. END `release` (the default): the context released, destroyed, the display
 * terminated; `destroy-current`: glmark2's end, the context destroyed while current, a second
 * one made current and rendering as many frames, its display terminated while it is current,
 * and a return from main without a release. Exit 0; 1 on a GL/EGL failure; 77 with no EGL
 * display or no ES 3 pbuffer config or context.
 *
 *   gl-gles-frames-app [FRAMES [DRAWS [release|destroy-current]]]
 */
#include <GLES3/gl3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"

static struct {
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLGETSHADERIVPROC GetShaderiv;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGENVERTEXARRAYSPROC GenVertexArrays;
    PFNGLBINDVERTEXARRAYPROC BindVertexArray;
    PFNGLCLEARPROC Clear;
    PFNGLDRAWARRAYSPROC DrawArrays;
    PFNGLGETERRORPROC GetError;
} es;

static int load(void)
{
#define L(member, name) if (!(*(void **)&es.member = (void *)eglGetProcAddress(name))) return -1
    L(CreateShader, "glCreateShader"); L(ShaderSource, "glShaderSource");
    L(CompileShader, "glCompileShader"); L(GetShaderiv, "glGetShaderiv");
    L(CreateProgram, "glCreateProgram"); L(AttachShader, "glAttachShader");
    L(LinkProgram, "glLinkProgram"); L(GetProgramiv, "glGetProgramiv");
    L(UseProgram, "glUseProgram"); L(GenVertexArrays, "glGenVertexArrays");
    L(BindVertexArray, "glBindVertexArray"); L(Clear, "glClear");
    L(DrawArrays, "glDrawArrays"); L(GetError, "glGetError");
#undef L
    return 0;
}

static GLuint shader(GLenum type, const char *source)
{
    GLuint s = es.CreateShader(type);
    GLint ok = 0;
    es.ShaderSource(s, 1, &source, NULL);
    es.CompileShader(s);
    es.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    return ok ? s : 0;
}

static int program(void)
{
    static const char *vs = "#version 300 es\n"
                            "void main() {\n"
                            "    vec2 p[3] = vec2[3](vec2(-1, -1), vec2(3, -1), vec2(-1, 3));\n"
                            "    gl_Position = vec4(p[gl_VertexID % 3], 0, 1);\n"
                            "}\n";
    static const char *fs = "#version 300 es\n"
                            "precision mediump float;\n"
                            "out vec4 color;\n"
                            "void main() { color = vec4(0.2, 0.6, 0.9, 1); }\n";
    GLuint v = shader(GL_VERTEX_SHADER, vs), f = shader(GL_FRAGMENT_SHADER, fs);
    if (!v || !f)
        return -1;
    GLuint p = es.CreateProgram();
    GLint ok = 0;
    es.AttachShader(p, v);
    es.AttachShader(p, f);
    es.LinkProgram(p);
    es.GetProgramiv(p, GL_LINK_STATUS, &ok);
    if (!ok)
        return -1;
    es.UseProgram(p);
    GLuint vao = 0;
    es.GenVertexArrays(1, &vao);
    es.BindVertexArray(vao);
    return 0;
}

/* Renders `frames` frames in a new ES 3 context on a new pbuffer, made current here; the
 * context stays current. 0, GLT_SKIP (no ES 3 context) or 1 on a failure. */
static int render(EGLDisplay dpy, EGLConfig config, int frames, int draws, EGLContext *ctx,
                  EGLSurface *surf)
{
    static const EGLint sattrs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
    static const EGLint xattrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_NONE};
    *ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, xattrs);
    if (*ctx == EGL_NO_CONTEXT) {
        fprintf(stderr, "no OpenGL ES 3 context (EGL error 0x%x): skipping\n", eglGetError());
        return GLT_SKIP;
    }
    *surf = eglCreatePbufferSurface(dpy, config, sattrs);
    if (*surf == EGL_NO_SURFACE || !eglMakeCurrent(dpy, *surf, *surf, *ctx) || load() != 0 ||
        program() != 0) {
        fprintf(stderr, "FAIL: a pbuffer, eglMakeCurrent, a GL ES function or the program\n");
        return 1;
    }
    for (int f = 0; f < frames; f++) {
        es.Clear(GL_COLOR_BUFFER_BIT);
        for (int d = 0; d < draws; d++)
            es.DrawArrays(GL_TRIANGLES, 0, 3);
        if (!eglSwapBuffers(dpy, *surf)) {
            fprintf(stderr, "FAIL: eglSwapBuffers (EGL error 0x%x)\n", eglGetError());
            return 1;
        }
    }
    GLenum err = es.GetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "FAIL: GL error 0x%x\n", err);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 50;
    int draws = argc > 2 ? atoi(argv[2]) : 2;
    const char *end = argc > 3 ? argv[3] : "release";
    int destroy_current = strcmp(end, "destroy-current") == 0;
    if (frames < 0 || draws < 1 || (!destroy_current && strcmp(end, "release") != 0)) {
        fprintf(stderr, "usage: gl-gles-frames-app [FRAMES [DRAWS [release|destroy-current]]]\n");
        return 2;
    }
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    static const EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_ES3_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                    EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    if (!eglBindAPI(EGL_OPENGL_ES_API) || !eglChooseConfig(dpy, cattrs, &config, 1, &n) ||
        n < 1) {
        fprintf(stderr, "no OpenGL ES 3 pbuffer config: skipping\n");
        return GLT_SKIP;
    }
    EGLContext ctx;
    EGLSurface surf;
    int rc = render(dpy, config, frames, draws, &ctx, &surf);
    if (rc == 0 && destroy_current) {
        /* As glmark2 ends its first context: destroyed while current, then another made
         * current (the first leaves then); the second one's display is terminated while it is
         * current, and the program returns from main without releasing it. */
        eglDestroyContext(dpy, ctx);
        eglDestroySurface(dpy, surf);
        rc = render(dpy, config, frames, draws, &ctx, &surf);
        eglTerminate(dpy);
        if (rc == 0)
            printf("gl-gles-frames-app: 2 contexts, %d frames each, %d vertices per frame\n",
                   frames, 3 * draws);
        return rc;
    }
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surf);
    eglTerminate(dpy);
    if (rc == 0)
        printf("gl-gles-frames-app: %d frames, %d vertices per frame\n", frames, 3 * draws);
    return rc;
}
