/*
 * bench-frame-queries [FRAMES [ROUNDS [SPAN_US]]]: what `perfq stat`'s per-frame queries cost
 * the driver, without perfq (issue 12, docs/gl-layer-performance.md "The frame's queries on the
 * driver"). One process renders the GL example's frame (a 64x64 texture upload, a clear, four
 * textured quads, eglSwapBuffers) FRAMES times (default 3000) per variant, the variants in an
 * order that rotates every round (default 7 rounds), and at each swap makes the driver calls
 * that the GL layer's frame front end would (src/gl/stat/stat_frames.c), by hand:
 *
 *   bare         nothing
 *   stats        the eleven GL_ARB_pipeline_statistics_query queries ended and the next
 *                frame's begun; frames read oldest first, up to 8 behind, without waiting (the
 *                last statistic's availability, then the eleven results)
 *   stats-noread the same ends and begins, never read (the objects reused after 8 frames)
 *   timer        a TIME_ELAPSED query ended and the next begun; read as above
 *   layer        stats then timer, read as the layer does (the timer's availability, then its
 *                result and the eleven without asking)
 *   stamp        one glQueryCounter(GL_TIMESTAMP) per swap (a frame's GPU time is the
 *                difference of two), read as above
 *   span         the statistics ended and begun only at the first swap at least SPAN_US
 *                (default 2000) after the span's start; the timer per frame
 *   span-stamp   the same statistics spans, a GL_TIMESTAMP per swap
 *   span-batch   span, read in batches: nothing asked while fewer than half the ring's frames
 *                wait; then the newest waiting frame's availability, and if it is in, every
 *                waiting frame read without asking (else the oldest asked one by one)
 *
 * Per variant it prints the median over rounds of: wall per frame, the process's CPU per frame
 * (the driver's threads included), the CPU time inside the swap's query calls and inside the
 * reads (CLOCK_THREAD_CPUTIME_ID around them), and the wall added to a frame against the bare
 * run of the same round. An unmodified program: links only libEGL, GL through eglGetProcAddress;
 * run it without perfq. Exit 0; 1 on a GL/EGL failure; 77 without an EGL display, desktop GL,
 * timer queries or pipeline statistics queries.
 */
#include "headless_display.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TEX 64
#define RING 8
#define NSTATS 11
#define NVARIANTS 9

static const GLenum stat_targets[NSTATS] = {
    GL_VERTICES_SUBMITTED_ARB, GL_PRIMITIVES_SUBMITTED_ARB, GL_VERTEX_SHADER_INVOCATIONS_ARB,
    GL_TESS_CONTROL_SHADER_PATCHES_ARB, GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB,
    GL_GEOMETRY_SHADER_INVOCATIONS, GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB,
    GL_FRAGMENT_SHADER_INVOCATIONS_ARB, GL_COMPUTE_SHADER_INVOCATIONS_ARB,
    GL_CLIPPING_INPUT_PRIMITIVES_ARB, GL_CLIPPING_OUTPUT_PRIMITIVES_ARB,
};

enum { V_BARE, V_STATS, V_STATS_NOREAD, V_TIMER, V_LAYER, V_STAMP, V_SPAN, V_SPAN_STAMP,
       V_SPAN_BATCH };
static const char *const variant_names[NVARIANTS] = {
    "bare", "stats", "stats-noread", "timer", "layer", "stamp", "span", "span-stamp",
    "span-batch",
};

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
    PFNGLVERTEXATTRIBPOINTERPROC VertexAttribPointer;
    PFNGLENABLEVERTEXATTRIBARRAYPROC EnableVertexAttribArray;
    PFNGLGENQUERIESPROC GenQueries;
    PFNGLBEGINQUERYPROC BeginQuery;
    PFNGLENDQUERYPROC EndQuery;
    PFNGLQUERYCOUNTERPROC QueryCounter;
    PFNGLGETQUERYOBJECTUI64VPROC GetQueryObjectui64v;
    void (*GenTextures)(GLsizei, GLuint *);
    void (*BindTexture)(GLenum, GLuint);
    void (*TexImage2D)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                       const void *);
    void (*TexSubImage2D)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum,
                          const void *);
    void (*TexParameteri)(GLenum, GLenum, GLint);
    void (*Clear)(GLbitfield);
    void (*Viewport)(GLint, GLint, GLsizei, GLsizei);
    void (*DrawArrays)(GLenum, GLint, GLsizei);
    void (*Finish)(void);
    GLenum (*GetError)(void);
    const GLubyte *(*GetString)(GLenum);
    const GLubyte *(*GetStringi)(GLenum, GLuint);
    void (*GetIntegerv)(GLenum, GLint *);
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
    L(Uniform2f, "glUniform2f"); L(VertexAttribPointer, "glVertexAttribPointer");
    L(EnableVertexAttribArray, "glEnableVertexAttribArray");
    L(GenQueries, "glGenQueries"); L(BeginQuery, "glBeginQuery"); L(EndQuery, "glEndQuery");
    L(QueryCounter, "glQueryCounter"); L(GetQueryObjectui64v, "glGetQueryObjectui64v");
    L(GenTextures, "glGenTextures"); L(BindTexture, "glBindTexture");
    L(TexImage2D, "glTexImage2D"); L(TexSubImage2D, "glTexSubImage2D");
    L(TexParameteri, "glTexParameteri"); L(Clear, "glClear"); L(Viewport, "glViewport");
    L(DrawArrays, "glDrawArrays"); L(Finish, "glFinish"); L(GetError, "glGetError");
    L(GetString, "glGetString"); L(GetStringi, "glGetStringi"); L(GetIntegerv, "glGetIntegerv");
#undef L
    return 0;
}

static int has_extension(const char *name)
{
    GLint n = 0;
    gl.GetIntegerv(GL_NUM_EXTENSIONS, &n);
    for (GLint i = 0; i < n; i++) {
        const char *e = (const char *)gl.GetStringi(GL_EXTENSIONS, (GLuint)i);
        if (e && strcmp(e, name) == 0)
            return 1;
    }
    return 0;
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* One frame's (or span's) query objects, and what was made of them. */
struct entry {
    GLuint stats[NSTATS];
    GLuint timer;               /* TIME_ELAPSED */
    GLuint stamp;               /* TIMESTAMP (a query object keeps its first target) */
    int has_stats, has_timer, has_stamp;
};

struct run_state {
    struct entry ring[RING];
    unsigned head, count;
    struct entry cur;           /* the queries active now (stats, timer) */
    uint64_t span_start;
    uint64_t vertices, frames_read;   /* a check that the statistics count */
};

struct result {
    double wall_ns, cpu_ns, swap_ns, read_ns;   /* per frame */
};

static void begin_stats(struct entry *e)
{
    for (int i = 0; i < NSTATS; i++)
        gl.BeginQuery(stat_targets[i], e->stats[i]);
    e->has_stats = 1;
}

static void end_stats(void)
{
    for (int i = 0; i < NSTATS; i++)
        gl.EndQuery(stat_targets[i]);
}

/* Reads the oldest entry if ready (wait: always). 1 when it was read. */
static int read_one(struct run_state *s, int variant, int wait)
{
    struct entry *e = &s->ring[s->head];
    GLuint64 avail = 1, v = 0;
    if (variant != V_STATS_NOREAD) {
        GLuint probe = e->has_timer ? e->timer : e->has_stamp ? e->stamp
                     : e->has_stats ? e->stats[NSTATS - 1] : 0;
        if (probe && !wait)
            gl.GetQueryObjectui64v(probe, GL_QUERY_RESULT_AVAILABLE, &avail);
        if (!avail)
            return 0;
        if (e->has_timer || e->has_stamp)
            gl.GetQueryObjectui64v(e->has_timer ? e->timer : e->stamp, GL_QUERY_RESULT, &v);
        if (e->has_stats) {
            for (int i = 0; i < NSTATS; i++) {
                gl.GetQueryObjectui64v(e->stats[i], GL_QUERY_RESULT, &v);
                if (i == 0)
                    s->vertices += v;
            }
            s->frames_read++;
        }
    }
    s->head = (s->head + 1) % RING;
    s->count--;
    return 1;
}

/* The swap's queries for the variant. */
static void at_swap(struct run_state *s, int variant, uint64_t span_ns, struct entry *done)
{
    memset(done, 0, sizeof(*done));
    int stats = variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER;
    int timer = variant == V_TIMER || variant == V_LAYER || variant == V_SPAN ||
                variant == V_SPAN_BATCH;
    int stamp = variant == V_STAMP || variant == V_SPAN_STAMP;
    if (variant == V_SPAN || variant == V_SPAN_STAMP || variant == V_SPAN_BATCH) {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now - s->span_start >= span_ns) {
            stats = 1;
            s->span_start = now;
        }
    }
    /* The next entry's objects: the ring slot that the done entry will take, swapped with cur so
     * that each object is reused only after it was read. */
    struct entry *slot = &s->ring[(s->head + s->count) % RING];
    if (stats) {
        end_stats();
        memcpy(done->stats, s->cur.stats, sizeof(done->stats));
        done->has_stats = 1;
        memcpy(s->cur.stats, slot->stats, sizeof(s->cur.stats));
        begin_stats(&s->cur);
    } else {
        memcpy(done->stats, slot->stats, sizeof(done->stats));
    }
    if (timer) {
        gl.EndQuery(GL_TIME_ELAPSED);
        done->timer = s->cur.timer;
        done->has_timer = 1;
        s->cur.timer = slot->timer;
        gl.BeginQuery(GL_TIME_ELAPSED, s->cur.timer);
    } else {
        done->timer = slot->timer;
    }
    done->stamp = slot->stamp;
    if (stamp) {
        gl.QueryCounter(done->stamp, GL_TIMESTAMP);
        done->has_stamp = 1;
    }
}

static int run_variant(int variant, int frames, uint64_t span_ns, GLint offset,
                       struct result *out)
{
    static unsigned char pixels[TEX * TEX * 4];
    static struct run_state s;
    static int made;
    if (!made) {
        for (int k = 0; k < RING; k++) {
            gl.GenQueries(NSTATS, s.ring[k].stats);
            gl.GenQueries(1, &s.ring[k].timer);
            gl.GenQueries(1, &s.ring[k].stamp);
        }
        gl.GenQueries(NSTATS, s.cur.stats);
        gl.GenQueries(1, &s.cur.timer);
        made = 1;
    }
    s.head = s.count = 0;
    s.vertices = s.frames_read = 0;
    gl.Finish();
    int span = variant == V_SPAN || variant == V_SPAN_STAMP || variant == V_SPAN_BATCH;
    if (variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER || span)
        begin_stats(&s.cur);
    if (variant == V_TIMER || variant == V_LAYER || variant == V_SPAN || variant == V_SPAN_BATCH)
        gl.BeginQuery(GL_TIME_ELAPSED, s.cur.timer);
    uint64_t swap_ns = 0, read_ns = 0;
    uint64_t w0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    s.span_start = w0;
    for (int frame = 0; frame < frames; frame++) {
        for (int i = 0; i < TEX * TEX * 4; i++)
            pixels[i] = (unsigned char)(i * 7 + frame * 13);
        gl.TexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, TEX, TEX, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
        gl.Clear(GL_COLOR_BUFFER_BIT);
        for (int d = 0; d < 4; d++) {
            gl.Uniform2f(offset, -0.5f + (float)(d % 2), -0.5f + (float)((d / 2) % 2));
            gl.DrawArrays(GL_TRIANGLES, 0, 6);
        }
        if (variant != V_BARE) {
            uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            struct entry done;
            /* A full ring waits for its oldest first, as the layer does. */
            if (s.count == RING)
                read_one(&s, variant, 1);
            at_swap(&s, variant, span_ns, &done);
            uint64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            if (variant != V_SPAN_BATCH) {
                while (s.count && read_one(&s, variant, 0))
                    ;
            } else if (s.count >= RING / 2) {
                GLuint64 avail = 0;
                struct entry *newest = &s.ring[(s.head + s.count - 1) % RING];
                gl.GetQueryObjectui64v(newest->timer, GL_QUERY_RESULT_AVAILABLE, &avail);
                if (avail) {
                    while (s.count)
                        read_one(&s, variant, 1);
                } else {
                    while (s.count && read_one(&s, variant, 0))
                        ;
                }
            }
            uint64_t t2 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            s.ring[(s.head + s.count) % RING] = done;
            s.count++;
            swap_ns += t1 - t0;
            read_ns += t2 - t1;
        }
        if (!eglSwapBuffers(eglGetCurrentDisplay(), eglGetCurrentSurface(EGL_DRAW))) {
            fprintf(stderr, "bench-frame-queries: eglSwapBuffers: 0x%x\n", eglGetError());
            return -1;
        }
    }
    uint64_t w1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER || span)
        end_stats();
    if (variant == V_TIMER || variant == V_LAYER || variant == V_SPAN || variant == V_SPAN_BATCH)
        gl.EndQuery(GL_TIME_ELAPSED);
    while (s.count)
        read_one(&s, variant, 1);
    if (variant != V_STATS_NOREAD && s.frames_read && s.vertices % 24 != 0) {
        fprintf(stderr, "bench-frame-queries: %s: %llu vertices in %llu reads: not 24 a frame\n",
                variant_names[variant], (unsigned long long)s.vertices,
                (unsigned long long)s.frames_read);
        return -1;
    }
    out->wall_ns = (double)(w1 - w0) / frames;
    out->cpu_ns = (double)(c1 - c0) / frames;
    out->swap_ns = (double)swap_ns / frames;
    out->read_ns = (double)read_ns / frames;
    GLenum err = gl.GetError();
    if (err != GL_NO_ERROR) {
        fprintf(stderr, "bench-frame-queries: %s: GL error 0x%x\n", variant_names[variant], err);
        return -1;
    }
    return 0;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    int frames = argc > 1 ? atoi(argv[1]) : 3000;
    int rounds = argc > 2 ? atoi(argv[2]) : 7;
    long span_us = argc > 3 ? atol(argv[3]) : 2000;
    if (frames < RING + 1 || rounds < 1 || rounds > 1000 || span_us < 0) {
        fprintf(stderr, "usage: bench-frame-queries [FRAMES [ROUNDS [SPAN_US]]]\n");
        return 2;
    }
    EGLDisplay dpy = bench_headless_display();
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "bench-frame-queries: no EGL display\n");
        return 77;
    }
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLint sattrs[] = {EGL_WIDTH, 256, EGL_HEIGHT, 256, EGL_NONE};
    EGLConfig config;
    EGLint nc = 0;
    if (!eglBindAPI(EGL_OPENGL_API) || !eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
        fprintf(stderr, "bench-frame-queries: no desktop GL pbuffer config\n");
        return 77;
    }
    EGLSurface surf = eglCreatePbufferSurface(dpy, config, sattrs);
    EGLContext ctx = eglCreateContext(dpy, config, EGL_NO_CONTEXT, NULL);
    if (surf == EGL_NO_SURFACE || ctx == EGL_NO_CONTEXT || !eglMakeCurrent(dpy, surf, surf, ctx) ||
        load() != 0) {
        fprintf(stderr, "bench-frame-queries: cannot create a GL context on a pbuffer\n");
        return 1;
    }
    GLint major = 0, minor = 0;
    gl.GetIntegerv(GL_MAJOR_VERSION, &major);
    gl.GetIntegerv(GL_MINOR_VERSION, &minor);
    if (!(major > 4 || (major == 4 && minor >= 6)) &&
        !has_extension("GL_ARB_pipeline_statistics_query")) {
        fprintf(stderr, "bench-frame-queries: no pipeline statistics queries\n");
        return 77;
    }
    printf("bench-frame-queries: %s, GL %d.%d, %d frames x %d rounds, span %ld us\n",
           (const char *)gl.GetString(GL_RENDERER), major, minor, frames, rounds, span_us);
    static const char *vs =
        "#version 120\n"
        "attribute vec2 pos; uniform vec2 offset; varying vec2 uv;\n"
        "void main() { uv = pos * 0.5 + 0.5; gl_Position = vec4(pos * 0.4 + offset, 0.0, 1.0); }\n";
    static const char *fs =
        "#version 120\n"
        "varying vec2 uv; uniform sampler2D tex;\n"
        "void main() { gl_FragColor = texture2D(tex, uv); }\n";
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
        fprintf(stderr, "bench-frame-queries: shaders do not compile or link\n");
        return 1;
    }
    gl.UseProgram(prog);
    GLint offset = gl.GetUniformLocation(prog, "offset");
    static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
    GLuint vbo, tex;
    gl.GenBuffers(1, &vbo);
    gl.BindBuffer(GL_ARRAY_BUFFER, vbo);
    gl.BufferData(GL_ARRAY_BUFFER, sizeof(quad), quad, GL_STATIC_DRAW);
    gl.VertexAttribPointer(0, 2, GL_FLOAT, GL_FALSE, 0, NULL);
    gl.EnableVertexAttribArray(0);
    gl.GenTextures(1, &tex);
    gl.BindTexture(GL_TEXTURE_2D, tex);
    gl.TexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
    gl.TexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, TEX, TEX, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gl.Viewport(0, 0, 256, 256);

    struct result r;
    double *vals[NVARIANTS][5];
    for (int k = 0; k < NVARIANTS; k++)
        for (int m = 0; m < 5; m++)
            vals[k][m] = calloc((size_t)rounds, sizeof(double));
    if (run_variant(V_BARE, frames, 0, offset, &r) != 0)   /* warm up */
        goto failed;
    for (int round = 0; round < rounds; round++) {
        double bare = 0, wall[NVARIANTS];
        for (int k = 0; k < NVARIANTS; k++) {
            int var = (round + k) % NVARIANTS;
            if (run_variant(var, frames, (uint64_t)span_us * 1000u, offset, &r) != 0)
                goto failed;
            wall[var] = r.wall_ns;
            vals[var][1][round] = r.cpu_ns;
            vals[var][2][round] = r.swap_ns;
            vals[var][3][round] = r.read_ns;
            if (var == V_BARE)
                bare = r.wall_ns;
        }
        for (int k = 0; k < NVARIANTS; k++) {
            vals[k][0][round] = wall[k];
            vals[k][4][round] = wall[k] - bare;
        }
    }
    printf("%-13s %12s %12s %12s %12s %14s  (us a frame, medians of %d rounds)\n", "variant",
           "wall", "process CPU", "swap calls", "reads", "wall - bare", rounds);
    for (int k = 0; k < NVARIANTS; k++)
        printf("%-13s %12.2f %12.2f %12.2f %12.2f %14.2f\n", variant_names[k],
               median(vals[k][0], rounds) / 1e3, median(vals[k][1], rounds) / 1e3,
               median(vals[k][2], rounds) / 1e3, median(vals[k][3], rounds) / 1e3,
               median(vals[k][4], rounds) / 1e3);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surf);
    eglTerminate(dpy);
    return 0;
failed:
    return 1;
}
