/*
 * perfq-example-gl: a small headless GL program, unmodified (it links only libEGL and gets every
 * GL function through eglGetProcAddress), for `perfq stat --layers`. It renders FRAMES frames
 * (default 300) into a 256x256 EGL pbuffer: per frame one 64x64 RGBA texture upload
 * (glTexSubImage2D), a clear and DRAWS textured quads (glDrawArrays(GL_TRIANGLES, 0, 6) each,
 * default 4), then eglSwapBuffers, which delimits the frame. So each frame submits exactly
 * 6 * DRAWS vertices. Where the context has GL_NV_query_resource_tag (perfq's GL layer gives it
 * everywhere) its vertex buffer is allocated under the tag "scene-vertices" and its texture under
 * "scene-texture", so that `perfq stat --layers` shows GL memory by tag. It prints what it did on
 * stdout; exit 0, 1 on a GL/EGL failure, 77 when there is no EGL display or no desktop GL.
 *
 *   perfq-example-gl [FRAMES [DRAWS]]
 */
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEX 64

static struct {
    PFNGLGENBUFFERSPROC GenBuffers;
    PFNGLBINDBUFFERPROC BindBuffer;
    PFNGLBUFFERDATAPROC BufferData;
    PFNGLCREATESHADERPROC CreateShader;
    PFNGLSHADERSOURCEPROC ShaderSource;
    PFNGLCOMPILESHADERPROC CompileShader;
    PFNGLGETSHADERIVPROC GetShaderiv;
    PFNGLCREATEPROGRAMPROC CreateProgram;
    PFNGLATTACHSHADERPROC AttachShader;
    PFNGLBINDATTRIBLOCATIONPROC BindAttribLocation;
    PFNGLLINKPROGRAMPROC LinkProgram;
    PFNGLGETPROGRAMIVPROC GetProgramiv;
    PFNGLUSEPROGRAMPROC UseProgram;
    PFNGLGETUNIFORMLOCATIONPROC GetUniformLocation;
    PFNGLUNIFORM2FPROC Uniform2f;
    PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
    PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;
    void (*GenTextures)(GLsizei, GLuint *);
    void (*BindTexture)(GLenum, GLuint);
    void (*TexImage2D)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                       const void *);
    void (*TexSubImage2D)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum,
                          const void *);
    void (*TexParameteri)(GLenum, GLenum, GLint);
    void (*ClearColor)(GLfloat, GLfloat, GLfloat, GLfloat);
    void (*Clear)(GLbitfield);
    void (*Viewport)(GLint, GLint, GLsizei, GLsizei);
    void (*DrawArrays)(GLenum, GLint, GLsizei);
    GLenum (*GetError)(void);
    const GLubyte *(*GetString)(GLenum);
    void (*GenQueryResourceTagNV)(GLsizei, GLint *);      /* GL_NV_query_resource_tag, or NULL */
    void (*QueryResourceTagNV)(GLint, const GLchar *);
} gl;

/* Makes a new tag current (GL_NV_query_resource_tag): what is allocated next belongs to it. */
static void tag(const char *name)
{
    GLint id = 0;
    if (!gl.GenQueryResourceTagNV)
        return;
    gl.GenQueryResourceTagNV(1, &id);
    gl.QueryResourceTagNV(id, name);
}

static int load(void)
{
#define L(member, name) if (!(*(void **)&gl.member = (void *)eglGetProcAddress(name))) return -1
    L(GenBuffers, "glGenBuffers"); L(BindBuffer, "glBindBuffer"); L(BufferData, "glBufferData");
    L(CreateShader, "glCreateShader"); L(ShaderSource, "glShaderSource");
    L(CompileShader, "glCompileShader"); L(GetShaderiv, "glGetShaderiv");
    L(CreateProgram, "glCreateProgram"); L(AttachShader, "glAttachShader");
    L(BindAttribLocation, "glBindAttribLocation"); L(LinkProgram, "glLinkProgram");
    L(GetProgramiv, "glGetProgramiv"); L(UseProgram, "glUseProgram");
    L(GetUniformLocation, "glGetUniformLocation"); L(Uniform2f, "glUniform2f");
    L(VertexAttribPointer, "glVertexAttribPointer");
    L(EnableVertexAttribArray, "glEnableVertexAttribArray");
    L(GenTextures, "glGenTextures"); L(BindTexture, "glBindTexture");
    L(TexImage2D, "glTexImage2D"); L(TexSubImage2D, "glTexSubImage2D");
    L(TexParameteri, "glTexParameteri"); L(ClearColor, "glClearColor"); L(Clear, "glClear");
    L(Viewport, "glViewport"); L(DrawArrays, "glDrawArrays"); L(GetError, "glGetError");
#undef L
    return 0;
}

static EGLDisplay open_display(void)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    EGLDisplay dpy = EGL_NO_DISPLAY;
    /* An NVIDIA device first (EGL_EXT_platform_device), else Mesa's surfaceless platform. */
    if (gpd && cext && strstr(cext, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC qd =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT dev;
        EGLint n = 0;
        if (qd && qd(1, &dev, &n) && n > 0)
            dpy = gpd(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY && gpd && cext && strstr(cext, "EGL_MESA_platform_surfaceless")) {
        dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    return dpy;
}

static GLuint shader(GLenum type, const char *src)
{
    GLuint s = gl.CreateShader(type);
    GLint ok = 0;
    gl.ShaderSource(s, 1, &src, NULL);
    gl.CompileShader(s);
    gl.GetShaderiv(s, GL_COMPILE_STATUS, &ok);
    return ok ? s : 0;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 300;
    int draws = argc > 2 ? atoi(argv[2]) : 4;
    if (frames < 0 || draws < 1 || draws > 64) {
        fprintf(stderr, "usage: perfq-example-gl [FRAMES [DRAWS 1..64]]\n");
        return 2;
    }
    EGLDisplay dpy = open_display();
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "perfq-example-gl: no EGL display\n");
        return 77;
    }
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLint sattrs[] = {EGL_WIDTH, 256, EGL_HEIGHT, 256, EGL_NONE};
    EGLConfig config;
    EGLint nc = 0;
    if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
        fprintf(stderr, "perfq-example-gl: no desktop GL pbuffer config\n");
        return 77;
    }
    EGLSurface surf = eglCreatePbufferSurface(dpy, config, sattrs);
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, NULL);
    if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx) ||
        load() != 0) {
        fprintf(stderr, "perfq-example-gl: cannot create a GL context on a pbuffer\n");
        return 1;
    }

    static const char *vs =
        "#version 120\n"
        "attribute vec2 pos; uniform vec2 offset; varying vec2 uv;\n"
        "void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos * 0.4 + offset, 0.0, 1.0); }\n";
    static const char *fs =
        "#version 120\n"
        "varying vec2 uv; uniform sampler2D tex;\n"
        "void main() { gl_FragColor = texture2D(tex, uv); }\n";
    GLuint v = shader(GL_VERTEX_SHADER, vs), f = shader(GL_FRAGMENT_SHADER, fs);
    GLuint prog = gl.CreateProgram();
    GLint linked = 0;
    if (v && f) {
        gl.AttachShader(prog, v);
        gl.AttachShader(prog, f);
        gl.BindAttribLocation(prog, 0, "pos");
        gl.LinkProgram(prog);
        gl.GetProgramiv(prog, GL_LINK_STATUS, &linked);
    }
    if (!linked) {
        fprintf(stderr, "perfq-example-gl: shaders do not compile or link\n");
        return 1;
    }
    gl.UseProgram(prog);
    *(void **)&gl.GetString = (void *)eglGetProcAddress("glGetString");
    const char *ext = gl.GetString ? (const char *)gl.GetString(GL_EXTENSIONS) : NULL;
    if (ext && strstr(ext, "GL_NV_query_resource_tag")) {
        *(void **)&gl.GenQueryResourceTagNV = (void *)eglGetProcAddress("glGenQueryResourceTagNV");
        *(void **)&gl.QueryResourceTagNV = (void *)eglGetProcAddress("glQueryResourceTagNV");
        if (!gl.GenQueryResourceTagNV || !gl.QueryResourceTagNV)
            gl.GenQueryResourceTagNV = NULL;
    }
    GLint offset = gl.GetUniformLocation(prog, "offset");

    static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    GLuint vbo, tex;
    tag("scene-vertices");
    gl.GenBuffers(1, &vbo);
    gl.BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl.BufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
    gl.VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    gl.EnableVertexAttribArray(0);
    tag("scene-texture");
    gl.GenTextures(1, &tex);
    gl.BindTexture(GL_TEXTURE_2D, tex);
    gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, TEX, TEX, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    if (gl.QueryResourceTagNV && gl.GenQueryResourceTagNV)
        gl.QueryResourceTagNV(0, NULL);   /* tagging off */
    gl.Viewport(0, 0, 256, 256);

    static unsigned char pixels[TEX * TEX * 4];
    for (int frame = 0; frame < frames; frame++) {
        for (int i = 0; i < TEX * TEX * 4; i++)   /* a new texture every frame */
            pixels[i] = (unsigned char)(i * 7 + frame * 13);
        gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, TEX, TEX, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        gl.ClearColor(0.1f, 0.1f, 0.2f, 1.0f);
        gl.Clear(GL_COLOR_BUFFER_BIT);
        for (int d = 0; d < draws; d++) {
            gl.Uniform2f(offset, -0.5f + (float)(d % 2), -0.5f + (float)((d / 2) % 2));
            gl.DrawArrays(GL_TRIANGLES, 0, 6);
        }
        if (!eglSwapBuffers(dpy, surf)) {
            fprintf(stderr, "perfq-example-gl: eglSwapBuffers failed: 0x%x\n", eglGetError());
            return 1;
        }
    }
    GLenum err = gl.GetError();
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surf);
    eglTerminate(dpy);
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "perfq-example-gl: GL error 0x%x\n", err);
        return 1;
    }
    printf("perfq-example-gl: %d frames, %d draws and %d vertices per frame, one %dx%d texture "
           "upload per frame\n", frames, draws, 6 * draws, TEX, TEX);
    return 0;
}
