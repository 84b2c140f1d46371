/*
 * GL_NV_query_resource benchmarks (issue 8), side by side in one process (llvmpipe here, NVIDIA on
 * the GPU machine). The layer's sources are compiled in, so that the driver's own functions
 * (perfq_gl_dispatch()) and the layer's wrappers run the same work.
 *
 * (1) glBufferData of 64 KiB (with data) through the layer against the driver's glBufferData: the
 *     same call on the same buffer again and again, which the layer answers as a repeat after the
 *     first (docs/nv-query-resource.md, "Repeats"). Target: < 2% added.
 * (2) glTexImage2D of 64 KiB (128x128 RGBA8, with data), the same way. Target: < 2% added.
 * (3) glQueryResourceNV(tagId -1: every tag) with 10,000 live objects and 100 tags: the size query
 *     and the write, per call. Target: < 100 us.
 * (0) the driver against itself (A/A): the spread of the side-by-side method on this machine.
 * (5) the driver's call and one glGetError against the call alone; (4) pieces alone; (6) the
 *     layer's own work per call with the driver's storage work replaced by a 64 KiB copy.
 * (0), (1), (2), (5): many short pairs of blocks (the two arms, alternating which runs first),
 * thread CPU time per call; the median of the pairs' differences over the median driver call,
 * and the same per round (the pairs split into consecutive rounds): the rounds' spread shows
 * what the machine's load moved. (6): short pairs, the median difference. (3): wall time,
 * median of blocks. No assertions: it prints ratios.
 * Usage: bench-nv-query-resource [--gles|--core] [--pairs=N] [--rows=DIGITS] [blocks]
 *   --pairs: pairs for (0), (1), (2), (5) (default 600, 5 rounds); --rows: the rows to run
 *   (default 0123456); blocks: for (3) and (6) (default 15).
 */
#define GL_GLEXT_PROTOTYPES 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gl_test.h"
#include "gl/contexts/layer_internal.h"
#include "gl/nvres/nv_query_resource.h"

#define MAX_BLOCKS 64
#define MAX_PAIRS 4000
#define ROUNDS 5

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof v[0], cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct glt T;

/* Thread CPU time: the calls run on this thread (llvmpipe copies the data here), and a shared,
 * loaded machine takes the CPU away for whole time slices, which wall time would count. */
static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
static unsigned char pixels[64 * 1024];

typedef void (*t_teximage2d)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                             const void *);

/* calls: glBufferData of 64 KiB on one buffer, n times (re-specification: the table entry is
 * replaced, as a streaming program does). */
static double block_buffer(int calls, int wrapped)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    PFNGLBUFFERDATAPROC fn = wrapped ? glBufferData : real->glBufferData;
    gl.glFinish();
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++)
        fn(GL_ARRAY_BUFFER, sizeof pixels, pixels, GL_STREAM_DRAW);
    gl.glFinish();
    return (double)(cpu_ns() - t0) / calls;
}

static double block_texture(int calls, int wrapped)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    t_teximage2d fn = wrapped ? glTexImage2D : real->glTexImage2D;
    gl.glFinish();
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++)
        fn(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    gl.glFinish();
    return (double)(cpu_ns() - t0) / calls;
}

/* (5) The error check alone: the driver's glBufferData / glTexImage2D followed by one driver
 * glGetError (what the layer's check costs after a queued call, where it may cost more than
 * alone) against the call alone. */
static double block_buffer_read(int calls, int read)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    gl.glFinish();
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++) {
        real->glBufferData(GL_ARRAY_BUFFER, sizeof pixels, pixels, GL_STREAM_DRAW);
        if (read)
            real->glGetError();
    }
    gl.glFinish();
    return (double)(cpu_ns() - t0) / calls;
}

static double block_texture_read(int calls, int read)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    gl.glFinish();
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++) {
        real->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                           pixels);
        if (read)
            real->glGetError();
    }
    gl.glFinish();
    return (double)(cpu_ns() - t0) / calls;
}

/* The driver against the driver: the same function in both arms, to show the method's own
 * spread beside the figures it qualifies. */
static double block_buffer_aa(int calls, int arm)
{
    (void)arm;
    return block_buffer(calls, 0);
}

static double block_texture_aa(int calls, int arm)
{
    (void)arm;
    return block_texture(calls, 0);
}

/* Many short pairs: the arms' difference per call, pair by pair, so that load that changes
 * between pairs cancels; its median over the median driver call. Then per round (consecutive
 * pairs), the same: the spread a reader should set a 2% target against. */
static void paired(const char *what, double (*block)(int, int), int calls, int pairs)
{
    static double d[MAX_PAIRS], r[MAX_PAIRS], tmp_d[MAX_PAIRS], tmp_r[MAX_PAIRS];
    block(calls, 0);
    block(calls, 1);
    for (int p = 0; p < pairs; p++) {
        double x, y;
        if (p % 2) {
            x = block(calls, 0);
            y = block(calls, 1);
        } else {
            y = block(calls, 1);
            x = block(calls, 0);
        }
        d[p] = y - x;
        r[p] = x;
    }
    double lo = 1e9, hi = -1e9;
    int per = pairs / ROUNDS;
    for (int k = 0; k < ROUNDS && per > 0; k++) {
        memcpy(tmp_d, d + k * per, (size_t)per * sizeof d[0]);
        memcpy(tmp_r, r + k * per, (size_t)per * sizeof r[0]);
        double pct = median(tmp_d, per) / median(tmp_r, per) * 100.0;
        lo = pct < lo ? pct : lo;
        hi = pct > hi ? pct : hi;
    }
    double md = median(d, pairs), mr = median(r, pairs);
    const char *adds = block == block_buffer || block == block_texture ? "the layer adds"
                     : block == block_buffer_aa || block == block_texture_aa ? "A/A"
                     : "one glGetError adds";
    printf("%s driver %8.1f ns/call, %s %+7.1f ns = %+.2f%% (median of %d pairs of %d calls;"
           " %d rounds: %+.2f to %+.2f%%)%s\n", what, mr, adds, md, md / mr * 100.0, pairs, calls,
           ROUNDS, lo, hi, block == block_buffer || block == block_texture ? " target < 2%" : "");
    fflush(stdout);
}

/* (6) The layer's own work per call, without the driver's storage work: the driver's
 * glBufferData / glTexImage2D in the table is replaced by a function that only copies the 64 KiB
 * (as a driver does: the copy evicts the layer's data from the L1 cache, as the real call does),
 * so the wrapper's time over the stub's is what the layer adds (dispatch, the driver's
 * glGetError, naming the object, the accounting). Side by side, thread CPU time; the driver's
 * glGetError stays real. The figure to set against (1) and (2): the layer's ns over the driver's
 * call's ns. */
static unsigned char stub_store[sizeof pixels];
static void stub_buffer_data(GLenum t, GLsizeiptr s, const void *d, GLenum u)
{
    (void)t, (void)u;
    memcpy(stub_store, d, (size_t)s);
    __asm__ __volatile__("" : : "r"(stub_store) : "memory");
}
static void stub_tex_image_2d(GLenum t, GLint l, GLint i, GLsizei w, GLsizei h, GLint b, GLenum f,
                              GLenum ty, const void *p)
{
    (void)t, (void)l, (void)i, (void)b, (void)f, (void)ty;
    memcpy(stub_store, p, (size_t)w * (size_t)h * 4);
    __asm__ __volatile__("" : : "r"(stub_store) : "memory");
}

static double block_buffer_stub(int calls, int wrapped)
{
    PFNGLBUFFERDATAPROC fn = wrapped ? glBufferData : stub_buffer_data;
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++)
        fn(GL_ARRAY_BUFFER, sizeof pixels, pixels, GL_STREAM_DRAW);
    return (double)(cpu_ns() - t0) / calls;
}

static double block_texture_stub(int calls, int wrapped)
{
    t_teximage2d fn = wrapped ? glTexImage2D : stub_tex_image_2d;
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < calls; i++)
        fn(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    return (double)(cpu_ns() - t0) / calls;
}

/* Many short pairs, alternating which runs first; the median of the pairs' differences (a
 * pair runs within a millisecond or two, so the machine's load changes little inside one). */
static void layer_alone(const char *what, double (*block)(int, int), int blocks)
{
    enum { CALLS = 100, PAIRS_PER_BLOCK = 64 };
    static double d[MAX_BLOCKS * PAIRS_PER_BLOCK], r[MAX_BLOCKS * PAIRS_PER_BLOCK];
    int n = blocks * PAIRS_PER_BLOCK;
    block(CALLS, 1);
    for (int b = 0; b < n; b++) {
        double x, y;
        if (b % 2) {
            x = block(CALLS, 0);
            y = block(CALLS, 1);
        } else {
            y = block(CALLS, 1);
            x = block(CALLS, 0);
        }
        d[b] = y - x;
        r[b] = x;
    }
    printf("(6) %s the layer's own work: %.1f ns/call (median of %d pairs; the stub %.1f ns)\n",
           what, median(d, n), n, median(r, n));
}

static void bench_layer_alone(int blocks)
{
    /* Real table entries swapped for stubs while (6) runs, then put back. */
    struct perfq_gl_dispatch *table = (struct perfq_gl_dispatch *)perfq_gl_dispatch();
    PFNGLBUFFERDATAPROC bd = table->glBufferData;
    t_teximage2d ti = table->glTexImage2D;
    /* The object has storage first, as in (1) and (2): re-specification. */
    glBufferData(GL_ARRAY_BUFFER, sizeof pixels, pixels, GL_STREAM_DRAW);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    table->glBufferData = stub_buffer_data;
    table->glTexImage2D = stub_tex_image_2d;
    layer_alone("glBufferData 64 KiB ", block_buffer_stub, blocks);
    layer_alone("glTexImage2D 64 KiB ", block_texture_stub, blocks);
    table->glBufferData = bd;
    table->glTexImage2D = ti;
}

/* (4) Pieces, alone: the driver's glGetError (the layer reads it once after a storage call to
 * learn whether it was accepted) and glGetIntegerv of a binding (what naming the object would
 * cost if the layer did not track the binds). */
static void bench_pieces(void)
{
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    enum { N = 20000 };
    GLint v;
    uint64_t t0 = cpu_ns();
    for (int i = 0; i < N; i++)
        real->glGetError();
    uint64_t t1 = cpu_ns();
    for (int i = 0; i < N; i++)
        real->glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &v);
    uint64_t t2 = cpu_ns();
    printf("(4) pieces of the observed path: driver glGetError %.1f ns, glGetIntegerv(binding)"
           " %.1f ns\n", (double)(t1 - t0) / N, (double)(t2 - t1) / N);
}

static void bench_query(int blocks)
{
    /* 10,000 live objects: 5,000 buffers, 4,000 textures, 1,000 renderbuffers, spread over 100
     * tags (and untagged ones). */
    enum { BUFFERS = 5000, TEXTURES = 4000, RENDERBUFFERS = 1000, TAGS = 100 };
    static GLuint b[BUFFERS], t[TEXTURES], rb[RENDERBUFFERS];
    GLint tags[TAGS];
    glGenQueryResourceTagNV(TAGS, tags);
    gl.glGenBuffers(BUFFERS, b);
    glGenTextures(TEXTURES, t);
    gl.glGenRenderbuffers(RENDERBUFFERS, rb);
    char name[32];
    for (int i = 0; i < BUFFERS + TEXTURES + RENDERBUFFERS; i++) {
        if (i % 100 == 0) {
            snprintf(name, sizeof name, "subsystem-%d", i / 100);
            glQueryResourceTagNV(tags[i / 100], name);
        }
        if (i < BUFFERS) {
            gl.glBindBuffer(GL_ARRAY_BUFFER, b[i]);
            glBufferData(GL_ARRAY_BUFFER, 256 + i, NULL, GL_STATIC_DRAW);
        } else if (i < BUFFERS + TEXTURES) {
            glBindTexture(GL_TEXTURE_2D, t[i - BUFFERS]);
            glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 4, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        } else {
            gl.glBindRenderbuffer(GL_RENDERBUFFER, rb[i - BUFFERS - TEXTURES]);
            glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 4, 4);
        }
    }
    glQueryResourceTagNV(0, NULL);
    GLint need = glQueryResourceNV(GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV, -1, 0, NULL);
    GLint *buf = malloc((size_t)need * sizeof *buf);
    double us[MAX_BLOCKS];
    int calls = 200;
    for (int k = 0; k < blocks; k++) {
        uint64_t t0 = glt_now_ns();
        for (int i = 0; i < calls; i++) {
            GLint n = glQueryResourceNV(GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV, -1, 0, NULL);
            glQueryResourceNV(GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV, -1, (GLuint)n, buf);
        }
        us[k] = (double)(glt_now_ns() - t0) / calls / 1000.0;
    }
    printf("(3) glQueryResourceNV(-1) size query + write, %d live objects, %d tags, %d ints:"
           " %.1f us/query (median of %d blocks; target < 100 us); report: %d allocations, %d KiB,"
           " vidmemFree %d KiB\n", BUFFERS + TEXTURES + RENDERBUFFERS, TAGS, need,
           median(us, blocks), blocks, buf[5], buf[6], buf[7]);
    free(buf);
    gl.glDeleteBuffers(BUFFERS, b);
    glDeleteTextures(TEXTURES, t);
    gl.glDeleteRenderbuffers(RENDERBUFFERS, rb);
    glDeleteQueryResourceTagNV(TAGS, tags);
}

int main(int argc, char **argv)
{
    enum glt_kind kind = glt_kind_from_args(argc, argv);
    int blocks = 15, pairs = 600;
    const char *rows = "0123456";
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-')
            blocks = atoi(argv[i]);
        else if (strncmp(argv[i], "--pairs=", 8) == 0)
            pairs = atoi(argv[i] + 8);
        else if (strncmp(argv[i], "--rows=", 7) == 0)
            rows = argv[i] + 7;
    }
    if (pairs < ROUNDS || pairs > MAX_PAIRS)
        pairs = 600;
    if (blocks < 1 || blocks > MAX_BLOCKS)
        blocks = 15;
    EGLDisplay dpy;
    if (glt_open_display(&dpy) != 0 || glt_create(&T, dpy, kind, 64, 64) != 0)
        return GLT_SKIP;
    perfq_gl_resolve_wrapped_all();   /* real->glBufferData, glTexImage2D below (dispatch.h) */
    printf("bench-nv-query-resource: %s, %s | %s, %d blocks\n", glt_kind_name(kind),
           gl.glGetString(GL_RENDERER), gl.glGetString(GL_VERSION), blocks);
    memset(pixels, 0x5a, sizeof pixels);
    GLuint buffer, texture;
    gl.glGenBuffers(1, &buffer);
    gl.glBindBuffer(GL_ARRAY_BUFFER, buffer);
    glGenTextures(1, &texture);
    glBindTexture(GL_TEXTURE_2D, texture);
    /* The object has storage first: every timed call re-specifies it. */
    glBufferData(GL_ARRAY_BUFFER, sizeof pixels, pixels, GL_STREAM_DRAW);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
    if (strchr(rows, '1'))
        paired("(1) glBufferData 64 KiB ", block_buffer, 200, pairs);
    if (strchr(rows, '2'))
        paired("(2) glTexImage2D 64 KiB ", block_texture, 100, pairs);
    if (strchr(rows, '0')) {
        paired("(0) glBufferData 64 KiB ", block_buffer_aa, 200, pairs);
        paired("(0) glTexImage2D 64 KiB ", block_texture_aa, 100, pairs);
    }
    if (strchr(rows, '5')) {
        paired("(5) glBufferData 64 KiB ", block_buffer_read, 200, pairs);
        paired("(5) glTexImage2D 64 KiB ", block_texture_read, 100, pairs);
    }
    if (strchr(rows, '4'))
        bench_pieces();
    if (strchr(rows, '6'))
        bench_layer_alone(blocks);
    if (strchr(rows, '3'))
        bench_query(blocks);
    gl.glDeleteBuffers(1, &buffer);
    glDeleteTextures(1, &texture);
    glt_destroy(&T);
    return 0;
}
