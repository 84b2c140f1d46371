/*
 * GL_INTEL_performance_query driven by call sequences with arbitrary arguments on llvmpipe:
 * query ids and handles from the layer or arbitrary, any buffer sizes, begin/end/get/delete in
 * any order. Checked: every error is one GL defines; a handle never returned by
 * glCreatePerfQueryINTEL (or deleted) gets INVALID_VALUE from Delete and Begin (the spec's
 * words) and an error from End and GetData (the spec names none); bytesWritten never exceeds
 * dataSize and nothing is written past dataSize or past the name lengths given (canaries).
 */
#include "fuzz_gl.h"
#include "fuzz_input.h"

#define LIVE 16
static GLuint live[LIVE];
static int n_live;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_gl_init();
    if (!gl.glGetFirstPerfQueryIdINTEL || !gl.glCreatePerfQueryINTEL ||
        !gl.glGetPerfQueryDataINTEL)
        abort();
    return 0;
}

static int is_live(GLuint h)
{
    return fuzz_gl_name_in(live, n_live, h);
}

static void forget(GLuint h)
{
    for (int i = 0; i < n_live; i++)
        if (live[i] == h) {
            live[i] = live[--n_live];
            return;
        }
}

static GLuint pick_query_id(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    if (sel < 220)
        return 1 + sel % 8;          /* the layer numbers its query types from 1 */
    return fz_u32(f);
}

static GLuint pick_handle(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    if (n_live && sel < 200)
        return live[sel % n_live];
    return sel < 230 ? (GLuint)(sel % 8) : fz_u32(f);
}

static void op(struct fz *f)
{
    uint8_t o = fz_u8(f) % 10;
    switch (o) {
    case 0: {
        GLuint id = 0;
        gl.glGetFirstPerfQueryIdINTEL(fz_u8(f) < 250 ? &id : NULL);
        FUZZ_CHECK(fuzz_gl_legal_error_drained(), "GetFirst");
        GLuint next = 0;
        gl.glGetNextPerfQueryIdINTEL(fz_u8(f) < 128 ? id : pick_query_id(f), &next);
        FUZZ_CHECK(fuzz_gl_legal_error_drained(), "GetNext");
        break;
    }
    case 1: {
        char name[257];
        fz_str(f, name, 256);
        GLuint id = 7;
        gl.glGetPerfQueryIdByNameINTEL(name, &id);
        FUZZ_CHECK(fuzz_gl_legal_error_drained(), "GetIdByName");
        break;
    }
    case 2: {   /* query info into arbitrary name lengths */
        char name[300];
        GLuint len = (GLuint)fz_size(f, 280), size = 0, counters = 0, instances = 0, caps = 0;
        memset(name, FUZZ_CANARY, sizeof name);
        GLuint safe = len < 280 ? len : 280;
        gl.glGetPerfQueryInfoINTEL(pick_query_id(f), safe, name, &size, &counters, &instances,
                                   &caps);
        FUZZ_CHECK(fuzz_gl_legal_error_drained(), "GetQueryInfo");
        FUZZ_CHECK(fz_canary_intact(name, safe, sizeof name), "name written past %u", safe);
        break;
    }
    case 3: {   /* counter info into arbitrary lengths */
        char name[300], desc[300];
        GLuint nl = (GLuint)fz_u8(f) % 280, dl = (GLuint)fz_u8(f) % 280;
        GLuint off = 0, dsize = 0, type = 0, dtype = 0;
        GLuint64 max = 0;
        memset(name, FUZZ_CANARY, sizeof name);
        memset(desc, FUZZ_CANARY, sizeof desc);
        gl.glGetPerfCounterInfoINTEL(pick_query_id(f), fz_u8(f) < 230 ? fz_u8(f) % 40 : fz_u32(f),
                                     nl, name, dl, desc, &off, &dsize, &type, &dtype, &max);
        FUZZ_CHECK(fuzz_gl_legal_error_drained(), "GetCounterInfo");
        FUZZ_CHECK(fz_canary_intact(name, nl, sizeof name) &&
                       fz_canary_intact(desc, dl, sizeof desc), "counter strings past length");
        break;
    }
    case 4: {
        GLuint h = 0;
        gl.glCreatePerfQueryINTEL(pick_query_id(f), &h);
        GLenum e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "Create: 0x%x", e);
        if (h) {
            FUZZ_CHECK(e == GL_NO_ERROR, "a handle with error 0x%x", e);
            FUZZ_CHECK(!is_live(h), "handle %u given twice", h);
            if (n_live < LIVE)
                live[n_live++] = h;
            else
                gl.glDeletePerfQueryINTEL(h);
        }
        break;
    }
    case 5: case 6: case 7: {
        GLuint h = pick_handle(f);
        int valid = is_live(h);
        if (o == 5)
            gl.glBeginPerfQueryINTEL(h);
        else if (o == 6)
            gl.glEndPerfQueryINTEL(h);
        else {
            gl.glDeletePerfQueryINTEL(h);
        }
        GLenum e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "0x%x", e);
        /* Delete and Begin: INVALID_VALUE (spec); End: the spec names only INVALID_OPERATION
         * (not started), so any error. */
        if (!valid && o != 6)
            FUZZ_CHECK(e == GL_INVALID_VALUE, "op %u on handle %u never created: 0x%x", o, h, e);
        if (!valid && o == 6)
            FUZZ_CHECK(e != GL_NO_ERROR, "End on handle %u never created: no error", h);
        if (o == 7 && valid && e == GL_NO_ERROR)
            forget(h);
        break;
    }
    case 8: {   /* results into an arbitrary size */
        GLuint h = pick_handle(f);
        int valid = is_live(h);
        static unsigned char data[4096 + 64];
        GLsizei size = fz_size(f, 4096);
        GLsizei safe = size < 0 ? 0 : size > 4096 ? 4096 : size;
        GLuint written = 0xdeadbeef;
        GLuint flags = fz_u8(f) < 128 ? GL_PERFQUERY_DONOT_FLUSH_INTEL
                       : fz_u8(f) < 200 ? GL_PERFQUERY_FLUSH_INTEL
                       : fz_u8(f) < 250 ? GL_PERFQUERY_WAIT_INTEL : fz_u32(f);
        memset(data, FUZZ_CANARY, sizeof data);
        gl.glGetPerfQueryDataINTEL(h, flags, safe, data, &written);
        GLenum e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "GetData: 0x%x", e);
        if (!valid)   /* the spec names no error here: any error, never success */
            FUZZ_CHECK(e != GL_NO_ERROR, "GetData on %u never created: no error", h);
        if (e == GL_NO_ERROR)
            FUZZ_CHECK(written <= (GLuint)safe, "bytesWritten %u > dataSize %d", written, safe);
        FUZZ_CHECK(fz_canary_intact(data, (size_t)safe, sizeof data), "written past %d", safe);
        break;
    }
    default:
        glt_draw_triangles(&fuzz_T, 1 + fz_u8(f) % 4);
        FUZZ_CHECK(fuzz_gl_error() == GL_NO_ERROR, "draw");
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    for (int calls = 0; fz_more(&f) && calls < 64; calls++)
        op(&f);
    while (n_live) {
        gl.glEndPerfQueryINTEL(live[n_live - 1]);
        gl.glDeletePerfQueryINTEL(live[--n_live]);
    }
    fuzz_gl_error();
    gl.glFinish();
    return 0;
}
