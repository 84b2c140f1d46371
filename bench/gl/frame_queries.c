/*
 * bench-frame-queries [FRAMES [ROUNDS [SPAN_US [VARIANTS]]]]: what `perfq stat`'s per-frame
 * queries cost the driver, without perfq (issue 12, docs/gl-layer-performance.md "The frame's
 * queries on the NVIDIA driver" and "The frame's timer: query buffer objects and the reads").
 * One process renders the GL example's frame (a 64x64 texture upload, a clear, four textured
 * quads, eglSwapBuffers) FRAMES times (default 3000) per variant, the variants in an order that
 * rotates every round (default 7 rounds), and at each swap makes the driver calls that the GL
 * layer's frame front end would (src/gl/stat/stat_frames.c), by hand:
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
 *   timer-after  timer, its end and begin (and the reads) right after eglSwapBuffers
 *   qbo          timer, and after its end the GPU writes its result into a persistently mapped
 *                coherent buffer (ARB_query_buffer_object: glGetQueryBufferObjectui64v,
 *                GL_QUERY_RESULT); the CPU reads the buffer, no driver call (a slot is filled
 *                with all ones before: a half still all ones is "not written yet"); a full ring
 *                waits for its oldest with the classic read
 *   qbo-nowait   qbo with GL_QUERY_RESULT_NO_WAIT (not written if not available then: the
 *                classic read when the ring is full)
 *   qbo-bind     qbo through glBindBuffer(GL_QUERY_BUFFER) + glGetQueryObjectui64v(offset)
 *   qbo-after    qbo right after eglSwapBuffers
 *   stamp-qbo    stamp, its result written by the GPU as in qbo
 *   timer-lazy   timer, nothing asked: only a full ring reads (its oldest, GL_QUERY_RESULT)
 *   timer-old    timer, read as above but only frames ended two swaps ago or earlier
 *   timer-batch  timer; when at least 4 frames wait, the availability of the newest one ended
 *                two swaps ago or earlier; if it is in, it and every older one read without
 *                asking (else nothing until the next swap)
 *   timer-half   timer, nothing asked: a full ring reads its oldest half (GL_QUERY_RESULT; the
 *                first read makes the driver submit what it holds, the others find their
 *                results in: one submission per RING/2 frames, if that is what costs)
 *   timer-most   timer-half, but a full ring reads its oldest 7 of 8 (one submission per 7
 *                frames; the newest read ended one swap ago)
 *   timer-flush-half timer-half, a glFlush before the reads (the submission made explicitly)
 *   timer-half16 timer-half with a ring of 16: a full ring reads its oldest 8 (one submission per
 *                8 frames, never fewer than 8 frames in flight)
 *
 * The qbo variants need GL 4.5 or GL_ARB_query_buffer_object with GL_ARB_buffer_storage and
 * GL_ARB_direct_state_access; without them they print n/a. Before the timed rounds each qbo
 * variant runs once with every result read both ways (buffer and glGetQueryObjectui64v):
 * "qbo check" lines count results equal, different and not written by the time the ring was
 * full. VARIANTS (a comma-separated list of names) runs those only (bare always).
 *
 * Per variant it prints the median over rounds of: wall per frame, the process's CPU per frame
 * (the driver's threads included), the CPU time inside the swap's query calls and inside the
 * reads (CLOCK_THREAD_CPUTIME_ID around them), the wall time inside each kind of driver call
 * (CLOCK_MONOTONIC: end, begin, the result written to a buffer, query counter), the wall added
 * to a frame against the bare run of the same round, and per call the wall time of the timer's
 * (or stamp's) availability questions answered yes and no and of its result reads, with the
 * number of each a frame; for the batch variants (timer-half, timer-most, timer-flush-half,
 * timer-half16) also the wall of a batch's first result read (waited) and of its others, per
 * call. A full ring's reads are in "swap CPU" (they come before the swap's queries, as the
 * layer's). An unmodified program: links only libEGL, GL through eglGetProcAddress;
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
#define RING_MAX 16
#define NSTATS 11
#define NVARIANTS 22
#define NCOLS 16

static const GLenum stat_targets[NSTATS] = {
    GL_VERTICES_SUBMITTED_ARB, GL_PRIMITIVES_SUBMITTED_ARB, GL_VERTEX_SHADER_INVOCATIONS_ARB,
    GL_TESS_CONTROL_SHADER_PATCHES_ARB, GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB,
    GL_GEOMETRY_SHADER_INVOCATIONS, GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB,
    GL_FRAGMENT_SHADER_INVOCATIONS_ARB, GL_COMPUTE_SHADER_INVOCATIONS_ARB,
    GL_CLIPPING_INPUT_PRIMITIVES_ARB, GL_CLIPPING_OUTPUT_PRIMITIVES_ARB,
};

enum { V_BARE, V_STATS, V_STATS_NOREAD, V_TIMER, V_LAYER, V_STAMP, V_SPAN, V_SPAN_STAMP,
       V_SPAN_BATCH, V_TIMER_AFTER, V_QBO, V_QBO_NOWAIT, V_QBO_BIND, V_QBO_AFTER, V_STAMP_QBO,
       V_TIMER_LAZY, V_TIMER_OLD, V_TIMER_BATCH, V_TIMER_HALF, V_TIMER_MOST,
       V_TIMER_FLUSH_HALF, V_TIMER_HALF16 };
static const char *const variant_names[NVARIANTS] = {
    "bare", "stats", "stats-noread", "timer", "layer", "stamp", "span", "span-stamp",
    "span-batch", "timer-after", "qbo", "qbo-nowait", "qbo-bind", "qbo-after", "stamp-qbo",
    "timer-lazy", "timer-old", "timer-batch", "timer-half", "timer-most", "timer-flush-half",
    "timer-half16",
};

static int is_qbo(int v)
{
    return v == V_QBO || v == V_QBO_NOWAIT || v == V_QBO_BIND || v == V_QBO_AFTER ||
           v == V_STAMP_QBO;
}

/* Nothing asked; a full ring reads several of its oldest frames, waiting. */
static int is_batch(int v)
{
    return v == V_TIMER_HALF || v == V_TIMER_MOST || v == V_TIMER_FLUSH_HALF ||
           v == V_TIMER_HALF16;
}

static int is_after(int v)
{
    return v == V_TIMER_AFTER || v == V_QBO_AFTER;
}

static int has_timer(int v)
{
    return v == V_TIMER || v == V_LAYER || v == V_SPAN || v == V_SPAN_BATCH ||
           v == V_TIMER_AFTER || (is_qbo(v) && v != V_STAMP_QBO) || v == V_TIMER_LAZY ||
           v == V_TIMER_OLD || v == V_TIMER_BATCH || is_batch(v);
}

static int has_stamp(int v)
{
    return v == V_STAMP || v == V_SPAN_STAMP || v == V_STAMP_QBO;
}

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
    void (*Flush)(void);
    GLenum (*GetError)(void);
    const GLubyte *(*GetString)(GLenum);
    const GLubyte *(*GetStringi)(GLenum, GLuint);
    void (*GetIntegerv)(GLenum, GLint *);
    /* the qbo variants (NULL without them) */
    PFNGLCREATEBUFFERSPROC CreateBuffers;
    PFNGLNAMEDBUFFERSTORAGEPROC NamedBufferStorage;
    PFNGLMAPNAMEDBUFFERRANGEPROC MapNamedBufferRange;
    PFNGLGETQUERYBUFFEROBJECTUI64VPROC GetQueryBufferObjectui64v;
} gl;

/* The qbo variants' buffer: RING slots of 64 bits, persistently mapped, coherent. */
static GLuint qbo_buffer;
static volatile uint32_t *qbo_map;
static int validate;                    /* read every result both ways (not timed) */
static unsigned long long check_equal, check_differ, check_unwritten;

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
    L(DrawArrays, "glDrawArrays"); L(Finish, "glFinish"); L(Flush, "glFlush");
    L(GetError, "glGetError");
    L(GetString, "glGetString"); L(GetStringi, "glGetStringi"); L(GetIntegerv, "glGetIntegerv");
#undef L
    *(void **)&gl.CreateBuffers = (void *)eglGetProcAddress("glCreateBuffers");
    *(void **)&gl.NamedBufferStorage = (void *)eglGetProcAddress("glNamedBufferStorage");
    *(void **)&gl.MapNamedBufferRange = (void *)eglGetProcAddress("glMapNamedBufferRange");
    *(void **)&gl.GetQueryBufferObjectui64v =
        (void *)eglGetProcAddress("glGetQueryBufferObjectui64v");
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
    int qbo_slot;               /* its result's slot in qbo_map (-1: none) */
};

struct run_state {
    struct entry ring[RING_MAX];
    unsigned head, count, size;   /* size: the ring's (RING, or RING_MAX for timer-half16) */
    struct entry cur;           /* the queries active now (stats, timer) */
    uint64_t span_start;
    uint64_t vertices, frames_read;   /* a check that the statistics count */
};

struct result {
    double wall_ns, cpu_ns, swap_ns, read_ns;   /* per frame */
    double end_ns, begin_ns, write_ns, counter_ns;  /* per frame, wall in those calls */
    double avail_yes_ns, avail_no_ns, result_ns;    /* per call */
    double avails, results;                         /* calls a frame */
    double first_ns, next_ns;   /* per call: a batch's first read (waited), the others */
};

/* Wall time inside each kind of driver call, summed over a run. */
static uint64_t t_end, t_begin, t_write, t_counter;
static uint64_t t_avail_yes, t_avail_no, t_result, n_avail_yes, n_avail_no, n_result;
static uint64_t t_first, n_first;   /* the batch variants' first read of a batch */
static int first_of_batch;          /* the next result read is a batch's first */

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
    if (e->qbo_slot >= 0) {
        volatile uint32_t *p = qbo_map + 2 * e->qbo_slot;
        uint32_t lo = __atomic_load_n(&p[0], __ATOMIC_ACQUIRE);
        uint32_t hi = __atomic_load_n(&p[1], __ATOMIC_ACQUIRE);
        int written = lo != UINT32_MAX && hi != UINT32_MAX;
        if (!written && !wait)
            return 0;
        GLuint q = e->has_timer ? e->timer : e->stamp;
        if (!written || validate) {
            gl.GetQueryObjectui64v(q, GL_QUERY_RESULT, &v);
            if (validate) {
                if (!written) {
                    check_unwritten++;
                } else {
                    lo = __atomic_load_n(&p[0], __ATOMIC_ACQUIRE);
                    hi = __atomic_load_n(&p[1], __ATOMIC_ACQUIRE);
                    if (((uint64_t)hi << 32 | lo) == v)
                        check_equal++;
                    else
                        check_differ++;
                }
            }
        }
    } else if (variant != V_STATS_NOREAD) {
        GLuint probe = e->has_timer ? e->timer : e->has_stamp ? e->stamp
                     : e->has_stats ? e->stats[NSTATS - 1] : 0;
        if (probe && !wait) {
            uint64_t c0 = clock_ns(CLOCK_MONOTONIC);
            gl.GetQueryObjectui64v(probe, GL_QUERY_RESULT_AVAILABLE, &avail);
            uint64_t c1 = clock_ns(CLOCK_MONOTONIC);
            if (e->has_timer || e->has_stamp) {
                if (avail) {
                    t_avail_yes += c1 - c0;
                    n_avail_yes++;
                } else {
                    t_avail_no += c1 - c0;
                    n_avail_no++;
                }
            }
        }
        if (!avail)
            return 0;
        if (e->has_timer || e->has_stamp) {
            uint64_t c0 = clock_ns(CLOCK_MONOTONIC);
            gl.GetQueryObjectui64v(e->has_timer ? e->timer : e->stamp, GL_QUERY_RESULT, &v);
            uint64_t dt = clock_ns(CLOCK_MONOTONIC) - c0;
            t_result += dt;
            n_result++;
            if (first_of_batch) {
                t_first += dt;
                n_first++;
                first_of_batch = 0;
            }
        }
        if (e->has_stats) {
            for (int i = 0; i < NSTATS; i++) {
                gl.GetQueryObjectui64v(e->stats[i], GL_QUERY_RESULT, &v);
                if (i == 0)
                    s->vertices += v;
            }
            s->frames_read++;
        }
    }
    s->head = (s->head + 1) % s->size;
    s->count--;
    return 1;
}

/* The GPU writes query q's result into slot pos of qbo_map (filled with ones first). */
static void write_result(int variant, GLuint q, int pos, struct entry *done)
{
    qbo_map[2 * pos] = UINT32_MAX;
    qbo_map[2 * pos + 1] = UINT32_MAX;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    GLintptr offset = (GLintptr)pos * 8;
    uint64_t c0 = clock_ns(CLOCK_MONOTONIC);
    if (variant == V_QBO_BIND) {
        gl.BindBuffer(GL_QUERY_BUFFER, qbo_buffer);
        gl.GetQueryObjectui64v(q, GL_QUERY_RESULT, (GLuint64 *)offset);
        gl.BindBuffer(GL_QUERY_BUFFER, 0);
    } else {
        gl.GetQueryBufferObjectui64v(q, qbo_buffer,
                                     variant == V_QBO_NOWAIT ? GL_QUERY_RESULT_NO_WAIT :
                                     GL_QUERY_RESULT, offset);
    }
    t_write += clock_ns(CLOCK_MONOTONIC) - c0;
    done->qbo_slot = pos;
}

/* The swap's queries for the variant. */
static void at_swap(struct run_state *s, int variant, uint64_t span_ns, struct entry *done)
{
    memset(done, 0, sizeof(*done));
    done->qbo_slot = -1;
    int stats = variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER;
    int timer = has_timer(variant);
    int stamp = has_stamp(variant);
    uint64_t c0, c1;
    if (variant == V_SPAN || variant == V_SPAN_STAMP || variant == V_SPAN_BATCH) {
        uint64_t now = clock_ns(CLOCK_MONOTONIC);
        if (now - s->span_start >= span_ns) {
            stats = 1;
            s->span_start = now;
        }
    }
    /* The next entry's objects: the ring slot that the done entry will take, swapped with cur so
     * that each object is reused only after it was read. */
    int pos = (int)((s->head + s->count) % s->size);
    struct entry *slot = &s->ring[pos];
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
        c0 = clock_ns(CLOCK_MONOTONIC);
        gl.EndQuery(GL_TIME_ELAPSED);
        c1 = clock_ns(CLOCK_MONOTONIC);
        t_end += c1 - c0;
        done->timer = s->cur.timer;
        done->has_timer = 1;
        s->cur.timer = slot->timer;
        if (is_qbo(variant))
            write_result(variant, done->timer, pos, done);
        c0 = clock_ns(CLOCK_MONOTONIC);
        gl.BeginQuery(GL_TIME_ELAPSED, s->cur.timer);
        c1 = clock_ns(CLOCK_MONOTONIC);
        t_begin += c1 - c0;
    } else {
        done->timer = slot->timer;
    }
    done->stamp = slot->stamp;
    if (stamp) {
        c0 = clock_ns(CLOCK_MONOTONIC);
        gl.QueryCounter(done->stamp, GL_TIMESTAMP);
        c1 = clock_ns(CLOCK_MONOTONIC);
        t_counter += c1 - c0;
        done->has_stamp = 1;
        if (is_qbo(variant))
            write_result(variant, done->stamp, pos, done);
    }
}

static int run_variant(int variant, int frames, uint64_t span_ns, GLint offset,
                       struct result *out)
{
    static unsigned char pixels[TEX * TEX * 4];
    static struct run_state s;
    static int made;
    if (!made) {
        for (int k = 0; k < RING_MAX; k++) {
            gl.GenQueries(NSTATS, s.ring[k].stats);
            gl.GenQueries(1, &s.ring[k].timer);
            gl.GenQueries(1, &s.ring[k].stamp);
        }
        gl.GenQueries(NSTATS, s.cur.stats);
        gl.GenQueries(1, &s.cur.timer);
        made = 1;
    }
    s.head = s.count = 0;
    s.size = variant == V_TIMER_HALF16 ? RING_MAX : RING;
    s.vertices = s.frames_read = 0;
    gl.Finish();
    int span = variant == V_SPAN || variant == V_SPAN_STAMP || variant == V_SPAN_BATCH;
    if (variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER || span)
        begin_stats(&s.cur);
    if (has_timer(variant))
        gl.BeginQuery(GL_TIME_ELAPSED, s.cur.timer);
    uint64_t swap_ns = 0, read_ns = 0;
    t_end = t_begin = t_write = t_counter = 0;
    t_avail_yes = t_avail_no = t_result = n_avail_yes = n_avail_no = n_result = 0;
    t_first = n_first = 0;
    first_of_batch = 0;
    int after = is_after(variant);
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
        if (after && !eglSwapBuffers(eglGetCurrentDisplay(), eglGetCurrentSurface(EGL_DRAW))) {
            fprintf(stderr, "bench-frame-queries: eglSwapBuffers: 0x%x\n", eglGetError());
            return -1;
        }
        if (variant != V_BARE) {
            uint64_t t0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            struct entry done;
            /* A full ring waits for its oldest first, as the layer does. */
            if (s.count == s.size && is_batch(variant)) {
                unsigned keep = variant == V_TIMER_MOST ? 1 : s.size / 2;
                if (variant == V_TIMER_FLUSH_HALF)
                    gl.Flush();
                first_of_batch = 1;
                while (s.count > keep)
                    read_one(&s, variant, 1);
            } else if (s.count == s.size) {
                read_one(&s, variant, 1);
            }
            at_swap(&s, variant, span_ns, &done);
            uint64_t t1 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
            if (variant == V_TIMER_LAZY || is_batch(variant)) {
                /* nothing: the full ring reads */
            } else if (variant == V_TIMER_OLD) {
                while (s.count >= 2 && read_one(&s, variant, 0))
                    ;
            } else if (variant == V_TIMER_BATCH) {
                if (s.count >= 4) {
                    unsigned k = s.count - 2;     /* the newest ended two swaps ago */
                    struct entry *e = &s.ring[(s.head + k) % s.size];
                    GLuint64 avail = 0;
                    uint64_t c0 = clock_ns(CLOCK_MONOTONIC);
                    gl.GetQueryObjectui64v(e->timer, GL_QUERY_RESULT_AVAILABLE, &avail);
                    uint64_t c1 = clock_ns(CLOCK_MONOTONIC);
                    if (avail) {
                        t_avail_yes += c1 - c0;
                        n_avail_yes++;
                        while (s.count > 1)
                            read_one(&s, variant, 1);
                    } else {
                        t_avail_no += c1 - c0;
                        n_avail_no++;
                    }
                }
            } else if (variant != V_SPAN_BATCH) {
                while (s.count && read_one(&s, variant, 0))
                    ;
            } else if (s.count >= RING / 2) {
                GLuint64 avail = 0;
                struct entry *newest = &s.ring[(s.head + s.count - 1) % s.size];
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
            s.ring[(s.head + s.count) % s.size] = done;
            s.count++;
            swap_ns += t1 - t0;
            read_ns += t2 - t1;
        }
        if (!after && !eglSwapBuffers(eglGetCurrentDisplay(), eglGetCurrentSurface(EGL_DRAW))) {
            fprintf(stderr, "bench-frame-queries: eglSwapBuffers: 0x%x\n", eglGetError());
            return -1;
        }
    }
    uint64_t w1 = clock_ns(CLOCK_MONOTONIC), c1 = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
    if (variant == V_STATS || variant == V_STATS_NOREAD || variant == V_LAYER || span)
        end_stats();
    if (has_timer(variant))
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
    out->end_ns = (double)t_end / frames;
    out->begin_ns = (double)t_begin / frames;
    out->write_ns = (double)t_write / frames;
    out->counter_ns = (double)t_counter / frames;
    out->avail_yes_ns = n_avail_yes ? (double)t_avail_yes / (double)n_avail_yes : 0;
    out->avail_no_ns = n_avail_no ? (double)t_avail_no / (double)n_avail_no : 0;
    out->result_ns = n_result ? (double)t_result / (double)n_result : 0;
    out->avails = (double)(n_avail_yes + n_avail_no) / frames;
    out->results = (double)n_result / frames;
    out->first_ns = n_first ? (double)t_first / (double)n_first : 0;
    out->next_ns = n_result > n_first && n_first ? (double)(t_result - t_first) /
                   (double)(n_result - n_first) : 0;
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
    int chosen[NVARIANTS];
    for (int k = 0; k < NVARIANTS; k++)
        chosen[k] = argc <= 4 || k == V_BARE;
    if (argc > 4) {
        char *list = strdup(argv[4]);
        for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
            int k = 0;
            while (k < NVARIANTS && strcmp(variant_names[k], tok) != 0)
                k++;
            if (k == NVARIANTS) {
                fprintf(stderr, "bench-frame-queries: no variant '%s'\n", tok);
                return 2;
            }
            chosen[k] = 1;
        }
        free(list);
    }
    if (frames < RING + 1 || rounds < 1 || rounds > 1000 || span_us < 0) {
        fprintf(stderr, "usage: bench-frame-queries [FRAMES [ROUNDS [SPAN_US [VARIANTS]]]]\n");
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

    /* The qbo variants' buffer. */
    int qbo_ok = gl.CreateBuffers && gl.NamedBufferStorage && gl.MapNamedBufferRange &&
                 gl.GetQueryBufferObjectui64v &&
                 ((major == 4 && minor >= 5) || major > 4 ||
                  (has_extension("GL_ARB_query_buffer_object") &&
                   has_extension("GL_ARB_buffer_storage") &&
                   has_extension("GL_ARB_direct_state_access")));
    if (qbo_ok) {
        GLbitfield flags = GL_MAP_READ_BIT | GL_MAP_WRITE_BIT | GL_MAP_PERSISTENT_BIT |
                           GL_MAP_COHERENT_BIT;
        gl.CreateBuffers(1, &qbo_buffer);
        gl.NamedBufferStorage(qbo_buffer, RING * 8, NULL, flags);
        qbo_map = gl.MapNamedBufferRange(qbo_buffer, 0, RING * 8, flags);
        if (!qbo_map || gl.GetError() != GL_NO_ERROR) {
            fprintf(stderr, "bench-frame-queries: cannot map a query buffer: no qbo variants\n");
            qbo_ok = 0;
        }
    }
    struct result r;
    double *vals[NVARIANTS][NCOLS];
    for (int k = 0; k < NVARIANTS; k++) {
        if (is_qbo(k) && !qbo_ok)
            chosen[k] = 0;
        for (int m = 0; m < NCOLS; m++)
            vals[k][m] = calloc((size_t)rounds, sizeof(double));
    }
    if (run_variant(V_BARE, frames, 0, offset, &r) != 0)   /* warm up */
        goto failed;
    /* The qbo variants' results against the classic read, untimed. */
    for (int k = 0; k < NVARIANTS; k++) {
        if (!chosen[k] || !is_qbo(k))
            continue;
        validate = 1;
        check_equal = check_differ = check_unwritten = 0;
        if (run_variant(k, frames, (uint64_t)span_us * 1000u, offset, &r) != 0)
            goto failed;
        validate = 0;
        printf("qbo check %-11s %llu equal, %llu different, %llu not written when the ring "
               "was full\n", variant_names[k], check_equal, check_differ, check_unwritten);
    }
    for (int round = 0; round < rounds; round++) {
        double bare = 0, wall[NVARIANTS] = {0};
        for (int k = 0; k < NVARIANTS; k++) {
            int var = (round + k) % NVARIANTS;
            if (!chosen[var])
                continue;
            if (run_variant(var, frames, (uint64_t)span_us * 1000u, offset, &r) != 0)
                goto failed;
            wall[var] = r.wall_ns;
            vals[var][1][round] = r.cpu_ns;
            vals[var][2][round] = r.swap_ns;
            vals[var][3][round] = r.read_ns;
            vals[var][5][round] = r.end_ns;
            vals[var][6][round] = r.begin_ns;
            vals[var][7][round] = r.write_ns;
            vals[var][8][round] = r.counter_ns;
            vals[var][9][round] = r.avail_yes_ns;
            vals[var][10][round] = r.avail_no_ns;
            vals[var][11][round] = r.result_ns;
            vals[var][12][round] = r.avails * 1e3;     /* printed / 1e3 */
            vals[var][13][round] = r.results * 1e3;
            vals[var][14][round] = r.first_ns;
            vals[var][15][round] = r.next_ns;
            if (var == V_BARE)
                bare = r.wall_ns;
        }
        for (int k = 0; k < NVARIANTS; k++) {
            vals[k][0][round] = wall[k];
            vals[k][4][round] = wall[k] - bare;
        }
    }
    printf("%-16s %8s %8s %8s %8s %8s %8s %8s %8s %8s | %8s %8s %8s | %7s %7s | %8s %8s\n"
           "(medians of %d rounds; us a frame, then us a call, then calls a frame, then us a "
           "call: a batch's first read and its others)\n",
           "variant", "wall", "proc CPU", "swap CPU", "read CPU", "-bare", "end", "begin",
           "to buffer", "counter", "avail+", "avail-", "result", "avails", "results", "1st read",
           "next", rounds);
    for (int k = 0; k < NVARIANTS; k++) {
        if (!chosen[k]) {
            if (is_qbo(k) && !qbo_ok)
                printf("%-16s n/a\n", variant_names[k]);
            continue;
        }
        printf("%-16s", variant_names[k]);
        for (int m = 0; m < NCOLS; m++)
            printf(m == 9 || m == 12 || m == 14 ? (m == 12 ? " | %7.2f" : " | %8.2f")
                   : m == 13 ? " %7.2f" : " %8.2f",
                   median(vals[k][m], rounds) / 1e3);
        printf("\n");
    }
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglDestroySurface(dpy, surf);
    eglTerminate(dpy);
    return 0;
failed:
    return 1;
}
