/*
 * GL_NV_query_resource(_tag) driven by call sequences with arbitrary arguments on llvmpipe:
 * tags generated, deleted and selected with arbitrary ids and strings, buffers and
 * renderbuffers allocated and freed, reports asked for with any type, tag, count and buffer.
 * Checked against the spec and perfq's decisions (docs/nv-query-resource.md): an unknown
 * queryType is INVALID_ENUM and returns 0; a NULL buffer returns the report's size; a buffer of
 * that size receives exactly that many ints and decodes (nvres_report.c) to a walk of that size;
 * a smaller one gets nothing, 0 and INVALID_VALUE; Gen/Delete with n < 0 INVALID_VALUE; selecting
 * an id never generated (or deleted, or negative) INVALID_OPERATION, id 0 no error; nothing is
 * written past count (canary).
 */
#include "fuzz_gl.h"
#include "fuzz_input.h"
#include "gl/nvres/nvres_report.h"

static PFNGLQUERYRESOURCENVPROC QueryResource;
static PFNGLGENQUERYRESOURCETAGNVPROC GenTags;
static PFNGLDELETEQUERYRESOURCETAGNVPROC DeleteTags;
static PFNGLQUERYRESOURCETAGNVPROC SelectTag;

/* Calls an input makes at most, and every tag they can generate (Gen of 4 at most each): the
 * list holds them all, so a tag generated is never missing from the model (with 32, tags past
 * the 32nd were live but unlisted, outlived the input, and a later select of one read as "never
 * generated": CI, clang ASan; corpus regress-tags-list-full). */
#define MAXCALLS 48
#define MAXTAGS (MAXCALLS * 4)
static GLint tags[MAXTAGS];
static int n_tags;
#define MAXOBJ 16
static GLuint buffers[MAXOBJ], rbs[MAXOBJ];
static int n_buffers, n_rbs;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_gl_init();
    QueryResource = (PFNGLQUERYRESOURCENVPROC)eglGetProcAddress("glQueryResourceNV");
    GenTags = (PFNGLGENQUERYRESOURCETAGNVPROC)eglGetProcAddress("glGenQueryResourceTagNV");
    DeleteTags = (PFNGLDELETEQUERYRESOURCETAGNVPROC)eglGetProcAddress("glDeleteQueryResourceTagNV");
    SelectTag = (PFNGLQUERYRESOURCETAGNVPROC)eglGetProcAddress("glQueryResourceTagNV");
    if (!QueryResource || !GenTags || !DeleteTags || !SelectTag)
        abort();
    return 0;
}

static int tag_live(GLint id)
{
    for (int i = 0; i < n_tags; i++)
        if (tags[i] == id)
            return 1;
    return 0;
}

static GLint pick_tag(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    if (n_tags && sel < 180)
        return tags[sel % n_tags];
    return sel < 240 ? (GLint)(sel % 6) - 1 : (GLint)fz_u32(f);
}

static void query(struct fz *f)
{
    GLenum type = fz_u8(f) < 230 ? GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV : fz_u32(f);
    GLint tag = pick_tag(f);
    GLint size = QueryResource(type, tag, 0, NULL);
    GLenum e = fuzz_gl_error();
    if (type != GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV) {
        FUZZ_CHECK(e == GL_INVALID_ENUM && size == 0, "type 0x%x: %d, 0x%x", type, size, e);
        return;
    }
    FUZZ_CHECK(e == GL_NO_ERROR && size > 0 && size < 1 << 20, "size query: %d, 0x%x", size, e);
    static GLint buf[65536 + 16];
    uint8_t sel = fz_u8(f);
    GLuint count = sel < 150 ? (GLuint)size : sel < 230 ? (GLuint)(fz_u8(f) % (size + 4))
                                                        : fz_u32(f);
    GLuint room = count < 65536 ? count : 65536;   /* what the buffer really holds */
    if (count > room && (GLint)room < size)
        count = room;   /* never tell the layer of room the buffer does not have */
    memset(buf, FUZZ_CANARY, sizeof buf);
    GLint got = QueryResource(type, tag, count, buf);
    e = fuzz_gl_error();
    if (count < (GLuint)size) {
        FUZZ_CHECK(got == 0 && e == GL_INVALID_VALUE, "count %u < %d: %d, 0x%x", count, size,
                   got, e);
        FUZZ_CHECK(fz_canary_intact(buf, 0, sizeof buf), "a short buffer was written");
        return;
    }
    FUZZ_CHECK(got == size && e == GL_NO_ERROR, "count %u: %d of %d, 0x%x", count, got, size, e);
    FUZZ_CHECK(fz_canary_intact(buf, (size_t)size * sizeof buf[0], sizeof buf),
               "written past the size %d", size);
    struct perfq_nvres_decoded d;
    FUZZ_CHECK(perfq_nvres_report_decode((const int32_t *)buf, (size_t)size, &d) == 0,
               "report does not decode");
    FUZZ_CHECK(d.ints_walked == (size_t)size, "walked %zu of %d", d.ints_walked, size);
    perfq_nvres_decoded_free(&d);
}

static void op(struct fz *f)
{
    GLenum e;
    switch (fz_u8(f) % 8) {
    case 0: {
        GLsizei n = fz_size(f, 4);
        GLint out[4 + 4];
        if (n > 4)
            n = 4;
        memset(out, FUZZ_CANARY, sizeof out);
        GenTags(n, out);
        e = fuzz_gl_error();
        FUZZ_CHECK(n < 0 ? e == GL_INVALID_VALUE : e == GL_NO_ERROR, "Gen(%d): 0x%x", n, e);
        FUZZ_CHECK(fz_canary_intact(out, (size_t)(n > 0 ? n : 0) * 4, sizeof out), "Gen past");
        for (GLsizei i = 0; i < n; i++) {
            FUZZ_CHECK(out[i] > 0 && !tag_live(out[i]), "Gen gave %d", out[i]);
            if (n_tags < MAXTAGS)
                tags[n_tags++] = out[i];
        }
        break;
    }
    case 1: {
        GLsizei n = fz_size(f, 3);
        GLint del[3];
        if (n > 3)
            n = 3;
        for (int i = 0; i < 3; i++)
            del[i] = pick_tag(f);
        DeleteTags(n, del);
        e = fuzz_gl_error();
        FUZZ_CHECK(n < 0 ? e == GL_INVALID_VALUE : e == GL_NO_ERROR, "Delete(%d): 0x%x", n, e);
        for (GLsizei i = 0; i < n; i++)
            for (int j = 0; j < n_tags; j++)
                if (tags[j] == del[i]) {
                    tags[j] = tags[--n_tags];
                    break;
                }
        break;
    }
    case 2: {
        GLint id = pick_tag(f);
        char s[129];
        fz_str(f, s, 128);
        SelectTag(id, fz_u8(f) < 200 ? s : NULL);
        e = fuzz_gl_error();
        if (id == 0 || tag_live(id))
            FUZZ_CHECK(e == GL_NO_ERROR, "select %d: 0x%x", id, e);
        else
            FUZZ_CHECK(e == GL_INVALID_OPERATION, "select %d never generated: 0x%x", id, e);
        break;
    }
    case 3:
        if (n_buffers < MAXOBJ) {
            GLuint b;
            gl.glGenBuffers(1, &b);
            gl.glBindBuffer(GL_ARRAY_BUFFER, b);
            gl.glBufferData(GL_ARRAY_BUFFER, (GLsizeiptr)(fz_u32(f) % (1 << 18)), NULL,
                            GL_STATIC_DRAW);
            buffers[n_buffers++] = b;
            FUZZ_CHECK(fuzz_gl_error() == GL_NO_ERROR, "buffer");
        }
        break;
    case 4:
        if (n_rbs < MAXOBJ) {
            GLuint r;
            gl.glGenRenderbuffers(1, &r);
            gl.glBindRenderbuffer(GL_RENDERBUFFER, r);
            gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 1 + fz_u8(f), 1 + fz_u8(f));
            rbs[n_rbs++] = r;
            FUZZ_CHECK(fuzz_gl_error() == GL_NO_ERROR, "renderbuffer");
        }
        break;
    case 5:
        if (n_buffers) {
            gl.glDeleteBuffers(1, &buffers[--n_buffers]);
        }
        break;
    default:
        query(f);
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    for (int calls = 0; fz_more(&f) && calls < MAXCALLS; calls++)
        op(&f);
    SelectTag(0, NULL);
    if (n_tags)
        DeleteTags(n_tags, tags);
    n_tags = 0;
    if (n_buffers)
        gl.glDeleteBuffers(n_buffers, buffers);
    if (n_rbs)
        gl.glDeleteRenderbuffers(n_rbs, rbs);
    n_buffers = n_rbs = 0;
    gl.glBindRenderbuffer(GL_RENDERBUFFER, 0);
    gl.glBindBuffer(GL_ARRAY_BUFFER, 0);
    fuzz_gl_error();
    gl.glFinish();
    return 0;
}
