/*
 * GL_NV_query_resource(_tag) through the layer, as an unmodified program uses it (every function
 * from eglGetProcAddress), on llvmpipe (compat, core, GLES 3): exact KiB of known allocations of
 * each object type, deletion and re-specification, refused calls leaving the accounting alone,
 * tags (attribution, tagId -1/0/positive/unknown, rename, delete, tagging off, ids never reused),
 * share groups (counted once; contexts destroyed with objects alive), every error clause, and
 * for every report: the NULL-buffer size equal to the ints written, a canary past them intact,
 * a buffer one int short left untouched, and the decoder walking it to its end.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"
#include "../test_util.h"
#include "gl/gl_layer.h"
#include "gl/nvres/nvres_report.h"

#define MIB (1024 * 1024)
#define VIDMEM 0x9540
#define OBJ_TEXTURE 0x9545
#define OBJ_RENDERBUFFER 0x9546
#define OBJ_BUFFER 0x9547

static enum glt_kind kind;
static EGLDisplay dpy;
static EGLConfig config = EGL_NO_CONFIG_KHR;
static EGLContext main_ctx;

typedef void (*t_teximage2d)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                             const void *);
typedef void (*t_gentextures)(GLsizei, GLuint *);
typedef void (*t_bindtexture)(GLenum, GLuint);
typedef void (*t_deletetextures)(GLsizei, const GLuint *);

static struct {
    PFNGLQUERYRESOURCENVPROC query;
    PFNGLGENQUERYRESOURCETAGNVPROC gen;
    PFNGLDELETEQUERYRESOURCETAGNVPROC del;
    PFNGLQUERYRESOURCETAGNVPROC tag;
    t_teximage2d tex_image_2d;
    t_gentextures gen_textures;
    t_bindtexture bind_texture;
    t_deletetextures delete_textures;
    PFNGLTEXIMAGE3DPROC tex_image_3d;
    PFNGLTEXSTORAGE2DPROC tex_storage_2d;
    PFNGLTEXSTORAGE3DPROC tex_storage_3d;
    PFNGLCOMPRESSEDTEXIMAGE2DPROC compressed_2d;
    PFNGLGENERATEMIPMAPPROC generate_mipmap;
    PFNGLRENDERBUFFERSTORAGEMULTISAMPLEPROC rb_storage_ms;
    PFNGLGETRENDERBUFFERPARAMETERIVPROC get_rb_param;
    PFNGLTEXTUREVIEWPROC texture_view;
    PFNGLTEXBUFFERPROC tex_buffer;
    PFNGLBUFFERSTORAGEPROC buffer_storage;
    PFNGLNAMEDBUFFERDATAPROC named_buffer_data;
    PFNGLCREATEBUFFERSPROC create_buffers;
    PFNGLTEXTURESTORAGE2DPROC texture_storage_2d;
    PFNGLCREATETEXTURESPROC create_textures;
    PFNGLMAPBUFFERRANGEPROC map_buffer_range;
    PFNGLUNMAPBUFFERPROC unmap_buffer;
} f;

#define LOAD(member, name) f.member = (__typeof__(f.member))eglGetProcAddress(name)

static void load(void)
{
    LOAD(query, "glQueryResourceNV");
    LOAD(gen, "glGenQueryResourceTagNV");
    LOAD(del, "glDeleteQueryResourceTagNV");
    LOAD(tag, "glQueryResourceTagNV");
    LOAD(tex_image_2d, "glTexImage2D");
    LOAD(gen_textures, "glGenTextures");
    LOAD(bind_texture, "glBindTexture");
    LOAD(delete_textures, "glDeleteTextures");
    LOAD(tex_image_3d, "glTexImage3D");
    LOAD(tex_storage_2d, "glTexStorage2D");
    LOAD(tex_storage_3d, "glTexStorage3D");
    LOAD(compressed_2d, "glCompressedTexImage2D");
    LOAD(generate_mipmap, "glGenerateMipmap");
    LOAD(rb_storage_ms, "glRenderbufferStorageMultisample");
    LOAD(get_rb_param, "glGetRenderbufferParameteriv");
    LOAD(texture_view, "glTextureView");
    LOAD(tex_buffer, "glTexBuffer");
    LOAD(buffer_storage, "glBufferStorage");
    LOAD(named_buffer_data, "glNamedBufferData");
    LOAD(create_buffers, "glCreateBuffers");
    LOAD(texture_storage_2d, "glTextureStorage2D");
    LOAD(create_textures, "glCreateTextures");
    LOAD(map_buffer_range, "glMapBufferRange");
    LOAD(unmap_buffer, "glUnmapBuffer");
}

/* A context of this run's kind, sharing with `share` (or nothing), made current. */
static EGLContext make_context(EGLContext share)
{
    EGLint attrs[16], n = 0;
    if (kind == GLT_GLES3) {
        eglBindAPI(EGL_OPENGL_ES_API);
        attrs[n++] = EGL_CONTEXT_MAJOR_VERSION;
        attrs[n++] = 3;
    } else {
        eglBindAPI(EGL_OPENGL_API);
        attrs[n++] = EGL_CONTEXT_MAJOR_VERSION;
        attrs[n++] = kind == GLT_CORE ? 4 : 3;
        attrs[n++] = EGL_CONTEXT_MINOR_VERSION;
        attrs[n++] = kind == GLT_CORE ? 5 : 0;
        if (kind == GLT_CORE) {
            attrs[n++] = EGL_CONTEXT_OPENGL_PROFILE_MASK;
            attrs[n++] = EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT;
        }
    }
    attrs[n++] = EGL_NONE;
    EGLContext c = eglCreateContext(dpy, config, share, attrs);
    if (c != EGL_NO_CONTEXT && !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) {
        eglDestroyContext(dpy, c);
        c = EGL_NO_CONTEXT;
    }
    return c;
}

static void make_current(EGLContext c)
{
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, c));
}

static int version_at_least(int major, int minor)
{
    GLint ma = 0, mi = 0;
    gl.glGetIntegerv(GL_MAJOR_VERSION, &ma);
    gl.glGetIntegerv(GL_MINOR_VERSION, &mi);
    return ma > major || (ma == major && mi >= minor);
}

/* ---- reports ---- */

struct rep {
    struct perfq_nvres_decoded d;
    int32_t ints[512];
    int n;
};

/* Queries a report with every check that holds for all of them: size query == ints written,
 * a canary past them intact, no GL error, a buffer one int short untouched (0, INVALID_VALUE),
 * the decoder walking exactly to the end. */
static void query(GLint tag_id, struct rep *r)
{
    GLint need = f.query(VIDMEM, tag_id, 0, NULL);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(need >= 9 && need < 500);
    GLint *b = malloc((size_t)(need + 16) * sizeof *b);
    for (int i = 0; i < need + 16; i++)
        b[i] = 0x7f7f7f7f;
    GLint wrote = f.query(VIDMEM, tag_id, (GLuint)need + 16, b);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(wrote, need);
    for (int i = need; i < need + 16; i++)
        assert_int_equal(b[i], 0x7f7f7f7f);
    GLint *s = malloc((size_t)need * sizeof *s);
    for (int i = 0; i < need; i++)
        s[i] = 0x5a5a5a5a;
    assert_int_equal(f.query(VIDMEM, tag_id, (GLuint)need - 1, s), 0);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    for (int i = 0; i < need; i++)
        assert_int_equal(s[i], 0x5a5a5a5a);
    free(s);
    memcpy(r->ints, b, (size_t)need * sizeof *b);
    r->n = need;
    free(b);
    assert_int_equal(perfq_nvres_report_decode(r->ints, (size_t)r->n, &r->d), 0);
    assert_int_equal(r->d.ints_walked, r->n);
    assert_int_equal(r->d.version, 2);
    assert_int_equal(r->d.n_devices, 1);
    assert_int_equal(r->d.has_tag_section, tag_id != 0);
    /* the device totals are the sums of the details */
    int32_t allocs = 0, kib = 0;
    for (int j = 0; j < r->d.devices[0].n_details; j++) {
        allocs += r->d.devices[0].details[j].allocs;
        kib += r->d.devices[0].details[j].kib;
        assert_true(r->d.devices[0].details[j].allocs > 0);
    }
    assert_int_equal(r->d.devices[0].allocs, allocs);
    assert_int_equal(r->d.devices[0].kib, kib);
}

static void rep_free(struct rep *r)
{
    perfq_nvres_decoded_free(&r->d);
}

/* allocs and KiB of one object type in a report (0, 0 when it has no detail block) */
static void type_in(const struct rep *r, int32_t obj, int32_t *allocs, int32_t *kib)
{
    *allocs = *kib = 0;
    for (int j = 0; j < r->d.devices[0].n_details; j++) {
        if (r->d.devices[0].details[j].obj_type == obj) {
            *allocs = r->d.devices[0].details[j].allocs;
            *kib = r->d.devices[0].details[j].kib;
        }
    }
}

static void expect_type(int32_t obj, int32_t allocs, int32_t kib)
{
    struct rep r;
    query(0, &r);
    int32_t a, k;
    type_in(&r, obj, &a, &k);
    assert_int_equal(a, allocs);
    assert_int_equal(k, kib);
    rep_free(&r);
}

static const struct perfq_nvres_decoded_tag *tag_in(const struct rep *r, int32_t id)
{
    for (int k = 0; k < r->d.n_tags; k++)
        if (r->d.tags[k].id == id)
            return &r->d.tags[k];
    return NULL;
}

/* Each test runs in a fresh context of its own (so nothing else is in its share group). */
static EGLContext test_ctx;

static int setup_each(void **state)
{
    (void)state;
    test_ctx = make_context(EGL_NO_CONTEXT);
    assert_true(test_ctx != EGL_NO_CONTEXT);
    glt_error();
    return 0;
}

static int teardown_each(void **state)
{
    (void)state;
    make_current(main_ctx);
    eglDestroyContext(dpy, test_ctx);
    return 0;
}

static GLuint buffer(GLsizeiptr size)
{
    GLuint b = 0;
    gl.glGenBuffers(1, &b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, b);
    gl.glBufferData(GL_ARRAY_BUFFER, size, NULL, GL_STATIC_DRAW);
    return b;
}

static GLuint texture_2d(GLsizei w, GLsizei h)
{
    GLuint t = 0;
    f.gen_textures(1, &t);
    f.bind_texture(GL_TEXTURE_2D, t);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    return t;
}

static GLuint renderbuffer(GLsizei w, GLsizei h)
{
    GLuint rb = 0;
    gl.glGenRenderbuffers(1, &rb);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, rb);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
    return rb;
}

/* ---- tests ---- */

static void test_extension_and_entry_points(void **state)
{
    (void)state;
    assert_true(glt_has_extension("GL_NV_query_resource"));
    assert_true(glt_has_extension("GL_NV_query_resource_tag"));
    assert_non_null(f.query);
    assert_non_null(f.gen);
    assert_non_null(f.del);
    assert_non_null(f.tag);
    /* an empty share group: header, device block, no details */
    struct rep r;
    query(0, &r);
    assert_int_equal(r.n, 9);
    const int32_t head[] = {3, 2, 1, 6, 6, 0, 0};
    assert_memory_equal(r.ints, head, sizeof head);
    assert_int_equal(r.ints[8], 0);
    rep_free(&r);
}

static void test_known_allocations(void **state)
{
    (void)state;
    /* two 8 MiB buffers: 16384 KiB and 2 allocations */
    GLuint b1 = buffer(8 * MIB), b2 = buffer(8 * MIB);
    expect_type(OBJ_BUFFER, 2, 16384);
    /* a 1024x1024 RGBA8 texture, level 0: 4096 KiB */
    GLuint t = texture_2d(1024, 1024);
    expect_type(OBJ_TEXTURE, 1, 4096);
    /* its full mip chain (GenerateMipmap): a third more, 5592404 bytes rounded up once */
    f.generate_mipmap(GL_TEXTURE_2D);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    expect_type(OBJ_TEXTURE, 1, 5462);
    /* the same chain as immutable storage */
    GLuint s = 0;
    f.gen_textures(1, &s);
    f.bind_texture(GL_TEXTURE_2D, s);
    f.tex_storage_2d(GL_TEXTURE_2D, 11, GL_RGBA8, 1024, 1024);
    expect_type(OBJ_TEXTURE, 2, 2 * 5462);
    /* a 2048x2048 RGBA8 renderbuffer: 16384 KiB */
    GLuint rb = renderbuffer(2048, 2048);
    expect_type(OBJ_RENDERBUFFER, 1, 16384);
    struct rep r;
    query(0, &r);
    assert_int_equal(r.d.devices[0].allocs, 5);
    assert_int_equal(r.d.devices[0].kib, 16384 + 2 * 5462 + 16384);
    /* detail blocks in token order: texture, renderbuffer, buffer object */
    assert_int_equal(r.d.devices[0].n_details, 3);
    assert_int_equal(r.d.devices[0].details[0].obj_type, OBJ_TEXTURE);
    assert_int_equal(r.d.devices[0].details[1].obj_type, OBJ_RENDERBUFFER);
    assert_int_equal(r.d.devices[0].details[2].obj_type, OBJ_BUFFER);
    assert_int_equal(r.ints[9 + 1], 0x9542);       /* memType: vidmem */
    rep_free(&r);
    GLuint bs[2] = {b1, b2}, ts[2] = {t, s};
    gl.glDeleteBuffers(2, bs);
    f.delete_textures(2, ts);
    gl.glDeleteRenderbuffers(1, &rb);
    query(0, &r);
    assert_int_equal(r.n, 9);
    rep_free(&r);
}

static void test_shapes(void **state)
{
    (void)state;
    GLuint t[4];
    f.gen_textures(4, t);
    /* a cube map, face by face: one allocation of 6 x 64 KiB */
    f.bind_texture(GL_TEXTURE_CUBE_MAP, t[0]);
    for (int face = 0; face < 6; face++)
        f.tex_image_2d(GL_TEXTURE_CUBE_MAP_POSITIVE_X + (GLenum)face, 0, GL_RGBA8, 128, 128, 0,
                       GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 6 * 64);
    /* a 2D array: 8 layers of 64x64 RGBA8, 2 levels (layers never halve) */
    f.bind_texture(GL_TEXTURE_2D_ARRAY, t[1]);
    f.tex_storage_3d(GL_TEXTURE_2D_ARRAY, 2, GL_RGBA8, 64, 64, 8);
    expect_type(OBJ_TEXTURE, 2, 6 * 64 + 8 * 16 + 8 * 4);
    /* 3D: 32x32x32 R8 by TexImage3D (32 KiB) */
    f.bind_texture(GL_TEXTURE_3D, t[2]);
    f.tex_image_3d(GL_TEXTURE_3D, 0, GL_R8, 32, 32, 32, 0, GL_RED, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 3, 6 * 64 + 8 * 16 + 8 * 4 + 32);
    /* compressed: ETC2 RGBA8 256x256, 16 bytes per 4x4 block = 64 KiB, by its imageSize */
    f.bind_texture(GL_TEXTURE_2D, t[3]);
    GLsizei size = (256 / 4) * (256 / 4) * 16;
    void *zeros = calloc(1, (size_t)size);
    f.compressed_2d(GL_TEXTURE_2D, 0, GL_COMPRESSED_RGBA8_ETC2_EAC, 256, 256, 0, size, zeros);
    free(zeros);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    expect_type(OBJ_TEXTURE, 4, 6 * 64 + 8 * 16 + 8 * 4 + 32 + 64);
    /* multisample renderbuffer: the samples the driver gave */
    GLuint rb;
    gl.glGenRenderbuffers(1, &rb);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, rb);
    f.rb_storage_ms(GL_RENDERBUFFER, 4, GL_RGBA8, 256, 256);
    GLint samples = 0;
    f.get_rb_param(GL_RENDERBUFFER, GL_RENDERBUFFER_SAMPLES, &samples);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(samples >= 4);
    expect_type(OBJ_RENDERBUFFER, 1, 256 * samples);
    /* depth-stencil renderbuffer: 4 bytes per pixel */
    GLuint ds;
    gl.glGenRenderbuffers(1, &ds);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, ds);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH24_STENCIL8, 512, 512);
    expect_type(OBJ_RENDERBUFFER, 2, 256 * samples + 1024);
    f.delete_textures(4, t);
    gl.glDeleteRenderbuffers(1, &rb);
    gl.glDeleteRenderbuffers(1, &ds);
    expect_type(OBJ_TEXTURE, 0, 0);
    expect_type(OBJ_RENDERBUFFER, 0, 0);
}

/* Views and buffer textures hold no storage of their own; DSA calls name their object. */
static void test_views_buffer_textures_dsa(void **state)
{
    (void)state;
    int views = kind != GLT_GLES3 && version_at_least(4, 3);
    int tbo = kind != GLT_GLES3 ? version_at_least(3, 1) : version_at_least(3, 2);
    int dsa = kind != GLT_GLES3 && version_at_least(4, 5);
    /* every kind runs at least the buffer textures part: llvmpipe has GL 4.5 and GLES 3.2 */
    assert_true(tbo);
    GLuint t = 0;
    f.gen_textures(1, &t);
    f.bind_texture(GL_TEXTURE_2D, t);
    f.tex_storage_2d(GL_TEXTURE_2D, 1, GL_RGBA8, 512, 512);
    if (views) {
        GLuint v = 0;
        f.gen_textures(1, &v);
        f.texture_view(v, GL_TEXTURE_2D, t, GL_RGBA8, 0, 1, 0, 1);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 1, 1024);
        /* the original deleted: GL keeps its storage for the view, still counted once */
        f.delete_textures(1, &t);
        expect_type(OBJ_TEXTURE, 1, 1024);
        f.delete_textures(1, &v);
    } else {
        f.delete_textures(1, &t);
    }
    expect_type(OBJ_TEXTURE, 0, 0);
    GLuint b = buffer(64 * 1024), bt = 0;
    f.gen_textures(1, &bt);
    f.bind_texture(GL_TEXTURE_BUFFER, bt);
    f.tex_buffer(GL_TEXTURE_BUFFER, GL_RGBA8, b);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    expect_type(OBJ_TEXTURE, 0, 0);
    expect_type(OBJ_BUFFER, 1, 64);
    f.delete_textures(1, &bt);
    gl.glDeleteBuffers(1, &b);
    if (dsa) {
        GLuint nb = 0, nt = 0;
        f.create_buffers(1, &nb);
        f.named_buffer_data(nb, 3 * MIB, NULL, GL_STATIC_DRAW);
        f.create_textures(GL_TEXTURE_CUBE_MAP, 1, &nt);
        f.texture_storage_2d(nt, 1, GL_RGBA8, 64, 64);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_BUFFER, 1, 3072);
        expect_type(OBJ_TEXTURE, 1, 6 * 16);    /* the texture's target: a cube map */
        gl.glDeleteBuffers(1, &nb);
        f.delete_textures(1, &nt);
    }
    if (kind == GLT_CORE || version_at_least(4, 4)) {
        GLuint sb = 0;
        gl.glGenBuffers(1, &sb);
        gl.glBindBuffer(GL_COPY_WRITE_BUFFER, sb);
        f.buffer_storage(GL_COPY_WRITE_BUFFER, 5000, NULL, 0);
        expect_type(OBJ_BUFFER, 1, 5);          /* 5000 bytes: 5 KiB rounded up */
        gl.glDeleteBuffers(1, &sb);
    }
    expect_type(OBJ_BUFFER, 0, 0);
}

static void test_respecify_and_refused_calls(void **state)
{
    (void)state;
    GLuint b = buffer(4 * MIB);
    gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);     /* orphaning */
    expect_type(OBJ_BUFFER, 1, 4096);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STATIC_DRAW);     /* smaller */
    expect_type(OBJ_BUFFER, 1, 1024);
    /* refused by the driver: the program gets the driver's error, the accounting is unchanged */
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    gl.glBufferData(0x1234, 64, NULL, GL_STATIC_DRAW);
    assert_int_equal(glt_error(), GL_INVALID_ENUM);
    expect_type(OBJ_BUFFER, 1, 1024);
    GLuint t = texture_2d(256, 256);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 512, 512, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 1024);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, -4, 512, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    expect_type(OBJ_TEXTURE, 1, 1024);
    /* immutable storage cannot be re-specified: the driver refuses, nothing changes */
    GLuint s = 0;
    f.gen_textures(1, &s);
    f.bind_texture(GL_TEXTURE_2D, s);
    f.tex_storage_2d(GL_TEXTURE_2D, 1, GL_RGBA8, 64, 64);
    f.tex_storage_2d(GL_TEXTURE_2D, 1, GL_RGBA8, 128, 128);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    expect_type(OBJ_TEXTURE, 2, 1024 + 16);
    /* a proxy allocates nothing */
    if (kind != GLT_GLES3) {
        f.tex_image_2d(GL_PROXY_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                       NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 2, 1024 + 16);
    }
    /* deleting names never used, and 0, is harmless */
    GLuint junk[3] = {0, 4000, 4001};
    gl.glDeleteBuffers(3, junk);
    expect_type(OBJ_BUFFER, 1, 1024);
    gl.glDeleteBuffers(1, &b);
    f.delete_textures(1, &t);
    f.delete_textures(1, &s);
    expect_type(OBJ_BUFFER, 0, 0);
    expect_type(OBJ_TEXTURE, 0, 0);
}

/* The observer's fast path (nv_query_resource_observe.c): a context re-specifying an object
 * with the same storage as its last call skips the table while no object of the share group
 * changed since. Every way the skip could go stale is exercised: another context of the group
 * changing the same object between two identical calls, a new tag, a deletion and a new object
 * of the same name, another level of a texture. */
static void test_respecify_fast_path(void **state)
{
    (void)state;
    EGLContext a = test_ctx;
    GLuint x = buffer(4 * MIB);
    gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 4096);
    /* another context of the group sets the same buffer to 1 MiB ... */
    EGLContext b = make_context(a);
    assert_true(b != EGL_NO_CONTEXT);
    gl.glBindBuffer(GL_ARRAY_BUFFER, x);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* ... so a's call identical to its last one is a change again */
    make_current(a);
    gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 4096);
    /* and b's identical to its own last one too */
    make_current(b);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 1024);
    make_current(a);
    gl.glBindBuffer(GL_ARRAY_BUFFER, x);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* the same call under a tag moves the buffer to it */
    GLint tg = 0;
    f.gen(1, &tg);
    f.tag(tg, "streaming");
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    struct rep r;
    query(tg, &r);
    assert_int_equal(r.d.n_tags, 1);
    assert_int_equal(r.d.tags[0].allocs, 1);
    assert_int_equal(r.d.tags[0].kib, 1024);
    rep_free(&r);
    f.tag(0, NULL);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    query(tg, &r);
    assert_int_equal(r.d.tags[0].allocs, 0);
    rep_free(&r);
    /* deleted, and a new buffer (of the same name where the driver reuses it) given the same
     * storage: counted (b unbinds it first: a buffer deleted while bound in another context
     * lives on there, and llvmpipe never frees it when that context is destroyed) */
    make_current(b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, 0);
    make_current(a);
    gl.glDeleteBuffers(1, &x);
    expect_type(OBJ_BUFFER, 0, 0);
    GLuint y = buffer(1 * MIB);
    expect_type(OBJ_BUFFER, 1, 1024);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* textures: the same image again, another level, the first again */
    GLuint t = texture_2d(128, 128);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 64);
    f.tex_image_2d(GL_TEXTURE_2D, 1, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 80);
    /* b changes level 0 between a's identical calls */
    make_current(b);
    f.bind_texture(GL_TEXTURE_2D, t);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 256 + 16);
    make_current(a);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 1, 80);
    /* renderbuffers */
    GLuint rb = renderbuffer(512, 512);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 512, 512);
    expect_type(OBJ_RENDERBUFFER, 1, 1024);
    make_current(b);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, rb);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 256, 256);
    make_current(a);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 512, 512);
    expect_type(OBJ_RENDERBUFFER, 1, 1024);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    make_current(b);                                    /* unbound in b before they are deleted */
    f.bind_texture(GL_TEXTURE_2D, 0);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, 0);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    make_current(a);
    gl.glDeleteBuffers(1, &y);
    f.delete_textures(1, &t);
    gl.glDeleteRenderbuffers(1, &rb);
    eglDestroyContext(dpy, b);
    expect_type(OBJ_BUFFER, 0, 0);
    expect_type(OBJ_TEXTURE, 0, 0);
    expect_type(OBJ_RENDERBUFFER, 0, 0);
}

/* A storage call identical to the context's last accepted one is answered by the layer alone
 * (docs/nv-query-resource.md, "Repeats"): it must name the object bound now. Identical calls on
 * two buffers, on two texture units, on two renderbuffers, each counted on its own object; and
 * the same with the current tag changed between them. Fails when a bind, the active unit or a
 * tag change leaves the repeat record in place. */
static void test_repeats_follow_bindings(void **state)
{
    (void)state;
    GLuint x = buffer(1 * MIB), y = buffer(1 * MIB);
    gl.glBindBuffer(GL_ARRAY_BUFFER, x);
    for (int i = 0; i < 3; i++)
        gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 2, 4096 + 1024);
    gl.glBindBuffer(GL_ARRAY_BUFFER, y);
    for (int i = 0; i < 3; i++)
        gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    expect_type(OBJ_BUFFER, 2, 8192);
    PFNGLACTIVETEXTUREPROC active = (PFNGLACTIVETEXTUREPROC)eglGetProcAddress("glActiveTexture");
    assert_non_null(active);
    GLuint t0 = texture_2d(16, 16);             /* 1 KiB, unit 0 */
    active(GL_TEXTURE1);
    GLuint t1 = texture_2d(16, 16);
    active(GL_TEXTURE0);
    for (int i = 0; i < 3; i++)
        f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 2, 64 + 1);
    active(GL_TEXTURE1);
    for (int i = 0; i < 3; i++)
        f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 2, 128);
    active(GL_TEXTURE0);
    GLuint r0 = renderbuffer(64, 64), r1 = renderbuffer(64, 64);  /* 16 KiB each, r1 bound */
    for (int i = 0; i < 3; i++)
        gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 256, 256);
    expect_type(OBJ_RENDERBUFFER, 2, 256 + 16);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, r0);
    for (int i = 0; i < 3; i++)
        gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 256, 256);
    expect_type(OBJ_RENDERBUFFER, 2, 512);
    /* the current tag: the same call again under a new tag moves the buffer to it, and with
     * tagging off back out of it */
    GLint tg = 0;
    f.gen(1, &tg);
    f.tag(tg, "repeats");
    for (int i = 0; i < 3; i++)
        gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    struct rep r;
    query(tg, &r);
    assert_int_equal(r.d.n_tags, 1);
    assert_int_equal(r.d.tags[0].allocs, 1);
    assert_int_equal(r.d.tags[0].kib, 4096);
    rep_free(&r);
    f.tag(0, NULL);
    for (int i = 0; i < 3; i++)
        gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STREAM_DRAW);
    query(tg, &r);
    assert_int_equal(r.d.tags[0].allocs, 0);
    rep_free(&r);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glDeleteBuffers(1, &x);
    gl.glDeleteBuffers(1, &y);
    f.delete_textures(1, &t0);
    f.delete_textures(1, &t1);
    gl.glDeleteRenderbuffers(1, &r0);
    gl.glDeleteRenderbuffers(1, &r1);
    expect_type(OBJ_BUFFER, 0, 0);
    expect_type(OBJ_TEXTURE, 0, 0);
    expect_type(OBJ_RENDERBUFFER, 0, 0);
}

/* The layer reads the driver's error flag once after a repeatable storage call
 * (docs/nv-query-resource.md, "The error check"): with an earlier error still pending (the
 * driver's or one the layer holds for the program), a call the driver accepts is counted and one
 * it refuses is not, and the program reads its first error once, then nothing. */
static void test_error_pending_at_storage_call(void **state)
{
    (void)state;
    static unsigned char bytes[4096];
    for (size_t i = 0; i < sizeof bytes; i++)
        bytes[i] = (unsigned char)(i * 7 + 1);
    GLuint b = buffer(1 * MIB);
    GLuint t = texture_2d(64, 64);
    GLuint rb = renderbuffer(64, 64);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* the driver's error pending, the call accepted */
    gl.glBindBuffer(0x1234, 0);
    gl.glBufferData(GL_ARRAY_BUFFER, 2 * MIB, NULL, GL_STATIC_DRAW);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 128, 128);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 1, 2048);
    expect_type(OBJ_TEXTURE, 1, 64);
    expect_type(OBJ_RENDERBUFFER, 1, 64);
    /* the driver's error pending, the calls refused */
    gl.glBindBuffer(0x1234, 0);
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, -4, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, -1, 128);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 1, 2048);
    expect_type(OBJ_TEXTURE, 1, 64);
    expect_type(OBJ_RENDERBUFFER, 1, 64);
    /* nothing pending: a refused call's own error, once */
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 1, 2048);
    /* an error the layer holds for the program (a tag never generated) comes first */
    f.tag(777, NULL);
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    gl.glBufferData(GL_ARRAY_BUFFER, 3 * MIB, NULL, GL_STATIC_DRAW);
    assert_int_equal(gl.glGetError(), GL_INVALID_OPERATION);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 1, 3072);
    /* an accepted call the layer ran again leaves the program's data as given */
    gl.glBindBuffer(0x1234, 0);
    gl.glBufferData(GL_ARRAY_BUFFER, sizeof bytes, bytes, GL_STATIC_DRAW);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    expect_type(OBJ_BUFFER, 1, 4);
    const unsigned char *m = f.map_buffer_range(GL_ARRAY_BUFFER, 0, sizeof bytes,
                                                GL_MAP_READ_BIT);
    assert_non_null(m);
    assert_memory_equal(m, bytes, sizeof bytes);
    f.unmap_buffer(GL_ARRAY_BUFFER);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    gl.glDeleteBuffers(1, &b);
    f.delete_textures(1, &t);
    gl.glDeleteRenderbuffers(1, &rb);
    expect_type(OBJ_BUFFER, 0, 0);
}

/* KHR_debug: the program's debug callback sees each error once (a repeatable storage call the
 * layer runs again for its answer runs with debug output off), and an error the layer raises
 * itself reaches it as a THIRD_PARTY error message (src/gl/contexts/debug_output.c). */
static int debug_api_errors, debug_layer_errors;
static GLenum debug_layer_id;

static void APIENTRY count_debug_message(GLenum source, GLenum type, GLuint id,
                                            GLenum severity, GLsizei length,
                                            const GLchar *message, const void *user)
{
    (void)severity, (void)length, (void)message, (void)user;
    if (getenv("PERFQ_TEST_DEBUG_MESSAGES"))   /* to see them: set it */
        printf("# debug 0x%x 0x%x %u: %s\n", source, type, id, message);
    if (type != GL_DEBUG_TYPE_ERROR)
        return;
    if (source == GL_DEBUG_SOURCE_THIRD_PARTY) {
        debug_layer_errors++;
        debug_layer_id = id;
    } else {
        debug_api_errors++;
    }
}

static void test_debug_output_sees_each_error_once(void **state)
{
    (void)state;
    if (!(kind == GLT_GLES3 ? version_at_least(3, 2) : version_at_least(4, 3))) {
        /* llvmpipe (CI) has both: there it is a failure, not a skip. */
        assert_true(test_may_lack("GL debug output (GL 4.3 / ES 3.2)"));
        skip();
    }
    PFNGLDEBUGMESSAGECALLBACKPROC set_callback =
        (PFNGLDEBUGMESSAGECALLBACKPROC)eglGetProcAddress("glDebugMessageCallback");
    assert_non_null(set_callback);
    set_callback(count_debug_message, NULL);
    gl.glEnable(GL_DEBUG_OUTPUT);
    gl.glEnable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    GLuint b = buffer(1 * MIB);
    /* an earlier error pending, the storage call accepted: one message, the earlier error's */
    debug_api_errors = debug_layer_errors = 0;
    gl.glBindBuffer(0x1234, 0);
    gl.glBufferData(GL_ARRAY_BUFFER, 2 * MIB, NULL, GL_STATIC_DRAW);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(debug_api_errors, 1);
    expect_type(OBJ_BUFFER, 1, 2048);
    /* an earlier error pending, the call refused: two messages, not three */
    debug_api_errors = debug_layer_errors = 0;
    gl.glBindBuffer(0x1234, 0);
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_int_equal(debug_api_errors, 2);
    expect_type(OBJ_BUFFER, 1, 2048);
    /* the program's debug output is left on */
    assert_true(gl.glIsEnabled(GL_DEBUG_OUTPUT));
    /* an error the layer raises: a tag never generated (expect_type's size query raised one) */
    debug_api_errors = debug_layer_errors = 0;
    f.tag(12345, "never generated");
    assert_int_equal(gl.glGetError(), GL_INVALID_OPERATION);
    assert_int_equal(debug_layer_errors, 1);
    assert_int_equal(debug_layer_id, GL_INVALID_OPERATION);
    assert_int_equal(debug_api_errors, 0);
    /* with debug output off, nothing */
    gl.glDisable(GL_DEBUG_OUTPUT);
    f.tag(12345, NULL);
    assert_int_equal(gl.glGetError(), GL_INVALID_OPERATION);
    assert_int_equal(debug_layer_errors, 1);
    set_callback(NULL, NULL);
    gl.glDisable(GL_DEBUG_OUTPUT_SYNCHRONOUS);
    gl.glDeleteBuffers(1, &b);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 0, 0);
}

/* Storage calls by target name the object the program bound: the layer's record of the binds
 * (src/gl/injection/layer_bindings.c) follows refused binds, deletions, texture units, DSA unit
 * binds and vertex array objects (ELEMENT_ARRAY_BUFFER is VAO state). */
static void test_bindings_tracked(void **state)
{
    (void)state;
    PFNGLACTIVETEXTUREPROC active = (PFNGLACTIVETEXTUREPROC)eglGetProcAddress("glActiveTexture");
    PFNGLBINDTEXTUREUNITPROC bind_unit =
        (PFNGLBINDTEXTUREUNITPROC)eglGetProcAddress("glBindTextureUnit");
    PFNGLGENVERTEXARRAYSPROC gen_vao =
        (PFNGLGENVERTEXARRAYSPROC)eglGetProcAddress("glGenVertexArrays");
    PFNGLBINDVERTEXARRAYPROC bind_vao =
        (PFNGLBINDVERTEXARRAYPROC)eglGetProcAddress("glBindVertexArray");
    PFNGLDELETEVERTEXARRAYSPROC delete_vao =
        (PFNGLDELETEVERTEXARRAYSPROC)eglGetProcAddress("glDeleteVertexArrays");
    assert_non_null(active);
    assert_non_null(gen_vao);
    assert_non_null(bind_vao);
    GLuint a = buffer(1 * MIB), b = 0;
    gl.glGenBuffers(1, &b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, b);
    gl.glBufferData(GL_ARRAY_BUFFER, 2 * MIB, NULL, GL_STATIC_DRAW);
    expect_type(OBJ_BUFFER, 2, 1024 + 2048);
    if (kind == GLT_CORE) {
        /* A name never generated: the core profile refuses the bind, b stays bound. */
        gl.glBindBuffer(GL_ARRAY_BUFFER, 777);
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        gl.glBufferData(GL_ARRAY_BUFFER, 4 * MIB, NULL, GL_STATIC_DRAW);
        expect_type(OBJ_BUFFER, 2, 1024 + 4096);
        /* The same with the bind's error still pending at the storage call. */
        gl.glBindBuffer(GL_ARRAY_BUFFER, 778);
        gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STATIC_DRAW);
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_BUFFER, 2, 1024 + 1024);
    }
    /* Deleting the bound buffer unbinds it: the next storage call is refused, not counted. */
    gl.glDeleteBuffers(1, &b);
    gl.glBufferData(GL_ARRAY_BUFFER, 1 * MIB, NULL, GL_STATIC_DRAW);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* Texture units: each keeps its bindings. */
    GLuint t0 = texture_2d(64, 64), t3 = 0;
    f.gen_textures(1, &t3);
    active(GL_TEXTURE3);
    f.bind_texture(GL_TEXTURE_2D, t3);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    active(GL_TEXTURE0);
    f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    expect_type(OBJ_TEXTURE, 2, 256 + 64);
    if (kind == GLT_CORE && bind_unit) {
        /* DSA: t0 bound to unit 3 without glBindTexture. */
        bind_unit(3, t0);
        active(GL_TEXTURE3);
        f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 32, 32, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        expect_type(OBJ_TEXTURE, 2, 4 + 64);
        active(GL_TEXTURE0);
    }
    /* Deleting a bound texture: unit 0's 2D binding reverts to the default texture (0). */
    f.delete_textures(1, &t0);
    if (kind == GLT_COMPAT) {
        /* The compatibility profile's default texture holds storage: texture 0 is no object
         * the accounting names. */
        f.tex_image_2d(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 16, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
    }
    expect_type(OBJ_TEXTURE, 1, 64);
    /* Vertex array objects: ELEMENT_ARRAY_BUFFER is theirs. */
    GLuint vao[2], e[2];
    gen_vao(2, vao);
    gl.glGenBuffers(2, e);
    bind_vao(vao[0]);
    gl.glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, e[0]);
    gl.glBufferData(GL_ELEMENT_ARRAY_BUFFER, 1 * MIB, NULL, GL_STATIC_DRAW);
    bind_vao(vao[1]);
    gl.glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, e[1]);
    gl.glBufferData(GL_ELEMENT_ARRAY_BUFFER, 1 * MIB, NULL, GL_STATIC_DRAW);
    bind_vao(vao[0]);
    gl.glBufferData(GL_ELEMENT_ARRAY_BUFFER, 2 * MIB, NULL, GL_STATIC_DRAW);   /* e[0] */
    assert_int_equal(glt_error(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 3, 1024 + 2048 + 1024);
    gl.glDeleteBuffers(1, &e[1]);
    expect_type(OBJ_BUFFER, 2, 1024 + 2048);
    bind_vao(0);
    if (delete_vao)
        delete_vao(2, vao);
    gl.glDeleteBuffers(1, &e[0]);
    gl.glDeleteBuffers(1, &a);
    f.delete_textures(1, &t3);
    expect_type(OBJ_BUFFER, 0, 0);
    expect_type(OBJ_TEXTURE, 0, 0);
}

/* Storage calls of extensions (EXT_direct_state_access, OES_texture_3D, EXT_buffer_storage,
 * OES_texture_buffer) and EGLImage storage (OES_EGL_image: counted once, at the image's source),
 * each where this context's driver has it: llvmpipe has EXT_direct_state_access in compat,
 * EXT_buffer_storage and OES_texture_buffer in GLES, OES_EGL_image everywhere. */
static void test_extension_storage_calls(void **state)
{
    (void)state;
    int tested = 0;
    if (glt_has_extension("GL_EXT_direct_state_access")) {
        PFNGLTEXTUREIMAGE2DEXTPROC image_2d =
            (PFNGLTEXTUREIMAGE2DEXTPROC)eglGetProcAddress("glTextureImage2DEXT");
        PFNGLTEXTUREIMAGE3DEXTPROC image_3d =
            (PFNGLTEXTUREIMAGE3DEXTPROC)eglGetProcAddress("glTextureImage3DEXT");
        PFNGLTEXTURESTORAGE2DEXTPROC storage_2d =
            (PFNGLTEXTURESTORAGE2DEXTPROC)eglGetProcAddress("glTextureStorage2DEXT");
        assert_non_null(image_2d);
        assert_non_null(image_3d);
        assert_non_null(storage_2d);
        GLuint t[3];
        f.gen_textures(3, t);
        /* Named, never bound: 256x256 RGBA8 (256 KiB); a cube face 64x64 (16 KiB); 3D 32^3
         * RGBA8 (128 KiB); immutable 128x128, 2 levels (64 + 16 KiB). */
        image_2d(t[0], GL_TEXTURE_2D, 0, GL_RGBA8, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        image_2d(t[1], GL_TEXTURE_CUBE_MAP_POSITIVE_Y, 0, GL_RGBA8, 64, 64, 0, GL_RGBA,
                 GL_UNSIGNED_BYTE, NULL);
        image_3d(t[2], GL_TEXTURE_3D, 0, GL_RGBA8, 32, 32, 32, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 3, 256 + 16 + 128);
        GLuint s2 = 0;
        f.gen_textures(1, &s2);
        storage_2d(s2, GL_TEXTURE_2D, 2, GL_RGBA8, 128, 128);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 4, 256 + 16 + 128 + 80);
        /* refused: a negative width changes nothing */
        image_2d(t[0], GL_TEXTURE_2D, 0, GL_RGBA8, -1, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_INVALID_VALUE);
        expect_type(OBJ_TEXTURE, 4, 256 + 16 + 128 + 80);
        f.delete_textures(3, t);
        f.delete_textures(1, &s2);
        expect_type(OBJ_TEXTURE, 0, 0);
        /* The texture-unit forms: the texture bound on the unit named, the active unit left as
         * the program set it. */
        PFNGLMULTITEXIMAGE2DEXTPROC mt_image_2d =
            (PFNGLMULTITEXIMAGE2DEXTPROC)eglGetProcAddress("glMultiTexImage2DEXT");
        PFNGLGENERATEMULTITEXMIPMAPEXTPROC mt_mipmap =
            (PFNGLGENERATEMULTITEXMIPMAPEXTPROC)eglGetProcAddress("glGenerateMultiTexMipmapEXT");
        PFNGLBINDMULTITEXTUREEXTPROC mt_bind =
            (PFNGLBINDMULTITEXTUREEXTPROC)eglGetProcAddress("glBindMultiTextureEXT");
        PFNGLACTIVETEXTUREPROC active = (PFNGLACTIVETEXTUREPROC)eglGetProcAddress("glActiveTexture");
        assert_non_null(mt_image_2d);
        assert_non_null(mt_mipmap);
        assert_non_null(mt_bind);
        assert_non_null(active);
        GLuint m[2];
        f.gen_textures(2, m);
        active(GL_TEXTURE1);
        mt_bind(GL_TEXTURE5, GL_TEXTURE_2D, m[0]);   /* unit 5: the layer asks the driver */
        mt_image_2d(GL_TEXTURE5, GL_TEXTURE_2D, 0, GL_RGBA8, 128, 128, 0, GL_RGBA,
                    GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 1, 64);
        GLint unit = 0;
        gl.glGetIntegerv(GL_ACTIVE_TEXTURE, &unit);
        assert_int_equal(unit, GL_TEXTURE1);
        mt_mipmap(GL_TEXTURE5, GL_TEXTURE_2D);      /* 87380 bytes: 86 KiB */
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 1, 86);
        active(GL_TEXTURE2);
        f.bind_texture(GL_TEXTURE_2D, m[1]);        /* unit 2: the layer's record */
        active(GL_TEXTURE1);
        mt_image_2d(GL_TEXTURE2, GL_TEXTURE_2D, 0, GL_RGBA8, 32, 32, 0, GL_RGBA,
                    GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 2, 86 + 4);
        /* refused: nothing changes; unit 6's default texture is no object */
        mt_image_2d(GL_TEXTURE5, GL_TEXTURE_2D, 0, GL_RGBA8, -1, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                    NULL);
        assert_int_equal(glt_error(), GL_INVALID_VALUE);
        mt_image_2d(GL_TEXTURE6, GL_TEXTURE_2D, 0, GL_RGBA8, 64, 64, 0, GL_RGBA, GL_UNSIGNED_BYTE,
                    NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 2, 86 + 4);
        gl.glGetIntegerv(GL_ACTIVE_TEXTURE, &unit);
        assert_int_equal(unit, GL_TEXTURE1);
        active(GL_TEXTURE0);
        f.delete_textures(2, m);
        expect_type(OBJ_TEXTURE, 0, 0);
        printf("tested: EXT_direct_state_access\n");
        tested++;
    }
    if (glt_has_extension("GL_OES_texture_3D")) {
        PFNGLTEXIMAGE3DPROC image_3d_oes = (PFNGLTEXIMAGE3DPROC)eglGetProcAddress("glTexImage3DOES");
        assert_non_null(image_3d_oes);
        GLuint t = 0;
        f.gen_textures(1, &t);
        f.bind_texture(GL_TEXTURE_3D, t);
        image_3d_oes(GL_TEXTURE_3D, 0, GL_RGBA, 16, 16, 16, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 1, 16);
        f.delete_textures(1, &t);
        printf("tested: OES_texture_3D\n");
        tested++;
    }
    if (glt_has_extension("GL_EXT_buffer_storage")) {
        PFNGLBUFFERSTORAGEPROC storage_ext =
            (PFNGLBUFFERSTORAGEPROC)eglGetProcAddress("glBufferStorageEXT");
        assert_non_null(storage_ext);
        GLuint b = 0;
        gl.glGenBuffers(1, &b);
        gl.glBindBuffer(GL_ARRAY_BUFFER, b);
        storage_ext(GL_ARRAY_BUFFER, 3 * MIB, NULL, 0);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_BUFFER, 1, 3072);
        storage_ext(GL_ARRAY_BUFFER, 1 * MIB, NULL, 0);       /* immutable: refused */
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        expect_type(OBJ_BUFFER, 1, 3072);
        gl.glDeleteBuffers(1, &b);
        printf("tested: EXT_buffer_storage\n");
        tested++;
    }
    if (glt_has_extension("GL_OES_texture_buffer")) {
        PFNGLTEXBUFFERPROC tex_buffer_oes =
            (PFNGLTEXBUFFERPROC)eglGetProcAddress("glTexBufferOES");
        assert_non_null(tex_buffer_oes);
        GLuint b = buffer(1 * MIB), t = 0;
        f.gen_textures(1, &t);
        f.bind_texture(GL_TEXTURE_BUFFER, t);
        tex_buffer_oes(GL_TEXTURE_BUFFER, GL_RGBA8, b);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        /* the buffer's storage, counted once, on the buffer */
        expect_type(OBJ_BUFFER, 1, 1024);
        expect_type(OBJ_TEXTURE, 0, 0);
        f.delete_textures(1, &t);
        gl.glDeleteBuffers(1, &b);
        printf("tested: OES_texture_buffer\n");
        tested++;
    }
    /* EGLImage: the source texture's 64x64 RGBA8 (16 KiB) counts once; the texture that takes
     * the image gives up its own 128x128 (64 KiB). */
    const char *egl_ext = eglQueryString(dpy, EGL_EXTENSIONS);
    PFNEGLCREATEIMAGEKHRPROC create_image =
        (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
    PFNEGLDESTROYIMAGEKHRPROC destroy_image =
        (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
    PFNGLEGLIMAGETARGETTEXTURE2DOESPROC target_2d =
        (PFNGLEGLIMAGETARGETTEXTURE2DOESPROC)eglGetProcAddress("glEGLImageTargetTexture2DOES");
    if (egl_ext && strstr(egl_ext, "EGL_KHR_gl_texture_2D_image") && create_image &&
        destroy_image && target_2d && glt_has_extension("GL_OES_EGL_image")) {
        GLuint src = texture_2d(64, 64), dst = texture_2d(128, 128);
        expect_type(OBJ_TEXTURE, 2, 16 + 64);
        EGLImageKHR image = create_image(dpy, eglGetCurrentContext(), EGL_GL_TEXTURE_2D_KHR,
                                         (EGLClientBuffer)(uintptr_t)src, NULL);
        assert_true(image != EGL_NO_IMAGE_KHR);
        f.bind_texture(GL_TEXTURE_2D, dst);
        target_2d(GL_TEXTURE_2D, image);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        expect_type(OBJ_TEXTURE, 1, 16);
        destroy_image(dpy, image);
        f.delete_textures(1, &dst);
        f.delete_textures(1, &src);
        expect_type(OBJ_TEXTURE, 0, 0);
        printf("tested: OES_EGL_image\n");
        tested++;
    }
    /* llvmpipe has some of them in every kind of context: never a silent pass. */
    printf("extension storage calls tested here: %d\n", tested);
    assert_true(tested > 0);
}

/* The oracle probe's sequence (the scripted allocations whose reports the NVIDIA driver gave on
 * an H200), checked against the
 * spec rather than against the NVIDIA driver's answers where those fail it. */
static void test_probe_sequence_tags(void **state)
{
    (void)state;
    GLint tags[3] = {0, 0, 0};
    f.gen(3, tags);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(tags[0] == 1 && tags[1] == 2 && tags[2] == 3);
    f.tag(tags[0], "textures");
    assert_int_equal(glt_error(), GL_NO_ERROR);
    GLuint tex[3];
    for (int i = 0; i < 3; i++)
        tex[i] = texture_2d(1024, 1024);
    f.tag(tags[1], "buffers");
    GLuint bufs[2] = {buffer(8 * MIB), buffer(8 * MIB)};
    f.tag(tags[2], NULL);
    GLuint rb = renderbuffer(2048, 2048);
    f.tag(0, NULL);                                         /* tagging off */
    GLuint ub = buffer(4 * MIB);
    assert_int_equal(glt_error(), GL_NO_ERROR);

    struct rep r;
    query(-1, &r);                                          /* every tag */
    assert_int_equal(r.d.devices[0].allocs, 7);
    assert_int_equal(r.d.devices[0].kib, 12288 + 16384 + 20480);
    assert_int_equal(r.d.n_tags, 3);
    const struct perfq_nvres_decoded_tag *t0 = tag_in(&r, 1), *t1 = tag_in(&r, 2),
                                         *t2 = tag_in(&r, 3);
    assert_true(t0 && t1 && t2);
    assert_true(t0->allocs == 3 && t0->kib == 12288 && t0->has_string);
    assert_string_equal(t0->string, "textures");
    assert_true(t1->allocs == 2 && t1->kib == 16384);
    assert_string_equal(t1->string, "buffers");
    assert_true(t2->allocs == 1 && t2->kib == 16384 && !t2->has_string);
    assert_int_equal(t0->dev, 0);
    rep_free(&r);

    query(tags[1], &r);                                     /* that tag only */
    assert_int_equal(r.d.n_tags, 1);
    assert_int_equal(r.d.tags[0].id, 2);
    assert_int_equal(r.d.tags[0].kib, 16384);
    rep_free(&r);
    query(0, &r);                                           /* no tag section */
    assert_int_equal(r.n, 3 + 6 + 15);
    rep_free(&r);
    query(999, &r);                                         /* unknown: tagCount 0 */
    assert_int_equal(r.n, 3 + 6 + 15 + 1);
    assert_int_equal(r.ints[r.n - 1], 0);
    rep_free(&r);
    query(-2, &r);                                          /* not -1, not an id: the same */
    assert_int_equal(r.d.n_tags, 0);
    assert_true(r.d.has_tag_section);
    rep_free(&r);

    f.tag(tags[0], "textures-renamed");                     /* a new string replaces */
    query(tags[0], &r);
    assert_string_equal(r.d.tags[0].string, "textures-renamed");
    assert_int_equal(r.ints[3 + 21 + 1 + 5], 5);            /* 17 bytes: 5 ints */
    rep_free(&r);
    f.tag(tags[0], NULL);                                   /* NULL keeps it */
    f.tag(0, NULL);
    query(tags[0], &r);
    assert_string_equal(r.d.tags[0].string, "textures-renamed");
    rep_free(&r);

    f.del(1, &tags[1]);                                     /* deleted: never reported */
    assert_int_equal(glt_error(), GL_NO_ERROR);
    query(-1, &r);
    assert_int_equal(r.d.n_tags, 2);
    assert_null(tag_in(&r, 2));
    assert_int_equal(r.d.devices[0].kib, 12288 + 16384 + 20480);   /* its objects still count */
    rep_free(&r);
    query(tags[1], &r);
    assert_int_equal(r.d.n_tags, 0);
    rep_free(&r);
    f.tag(tags[1], "again");                                /* a deleted id is not usable */
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);

    gl.glDeleteBuffers(2, bufs);
    expect_type(OBJ_BUFFER, 1, 4096);
    GLint more[2];
    f.gen(2, more);
    assert_true(more[0] == 4 && more[1] == 5);              /* never reused */
    f.delete_textures(3, tex);
    gl.glDeleteRenderbuffers(1, &rb);
    gl.glDeleteBuffers(1, &ub);
}

static void test_tag_attribution_and_current_tag(void **state)
{
    (void)state;
    GLint a = 0, b = 0;
    f.gen(1, &a);
    f.gen(1, &b);
    f.tag(a, "a");
    GLuint x = buffer(1 * MIB);
    f.tag(b, "b");
    gl.glBindBuffer(GL_ARRAY_BUFFER, x);
    gl.glBufferData(GL_ARRAY_BUFFER, 2 * MIB, NULL, GL_STATIC_DRAW);   /* re-specified: moves */
    struct rep r;
    query(-1, &r);
    assert_int_equal(tag_in(&r, a)->allocs, 0);
    assert_int_equal(tag_in(&r, a)->kib, 0);
    assert_int_equal(tag_in(&r, b)->kib, 2048);
    rep_free(&r);
    /* deleting the current tag turns tagging off for this context */
    f.del(1, &b);
    GLuint y = buffer(1 * MIB);
    query(-1, &r);
    assert_int_equal(r.d.n_tags, 1);
    assert_int_equal(tag_in(&r, a)->kib, 0);
    rep_free(&r);
    GLuint xs[2] = {x, y};
    gl.glDeleteBuffers(2, xs);
}

/* NV_query_resource_tag, section 6.1.x: Gen's names "acquire state only when they are first
 * used by QueryResourceTagNV": a generated, never used id is no tag in a tagId -1 report and
 * answers tagCount 0 on its own. Delete: "Unused names in <states> are silently ignored, as is
 * the value zero" (no error, nothing else deleted); a deleted tag's allocations stay counted
 * ("there may still be memory allocations associated with the tagId") and the deleted id never
 * comes back from Gen. */
static void test_tag_state_and_silent_delete(void **state)
{
    (void)state;
    GLint used = 0, unused = 0;
    f.gen(1, &used);
    f.gen(1, &unused);
    f.tag(used, "used");
    GLuint b = buffer(1 * MIB);
    f.tag(0, NULL);
    struct rep r;
    query(-1, &r);
    assert_int_equal(r.d.n_tags, 1);
    assert_non_null(tag_in(&r, used));
    assert_null(tag_in(&r, unused));
    rep_free(&r);
    query(unused, &r);
    assert_true(r.d.has_tag_section);
    assert_int_equal(r.d.n_tags, 0);
    rep_free(&r);
    GLint junk[4] = {0, 4242, -7, unused};
    f.del(4, junk);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    query(used, &r);
    assert_int_equal(r.d.n_tags, 1);
    assert_int_equal(r.d.tags[0].kib, 1024);
    rep_free(&r);
    f.del(1, &used);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    expect_type(OBJ_BUFFER, 1, 1024);
    GLint next = 0;
    f.gen(1, &next);
    assert_true(next != used && next != unused && next > 0);
    gl.glDeleteBuffers(1, &b);
}

/* perfq's decision (docs/nv-query-resource.md): with no context current the four entry points
 * do nothing (no share group to answer for): 0 returned, no id or int written, no crash. */
static void test_no_current_context(void **state)
{
    (void)state;
    make_current(EGL_NO_CONTEXT);
    GLint ids[2] = {77, 77}, buf[16];
    for (int i = 0; i < 16; i++)
        buf[i] = 0x3c3c3c3c;
    assert_int_equal(f.query(VIDMEM, -1, 0, NULL), 0);
    assert_int_equal(f.query(VIDMEM, -1, 16, buf), 0);
    f.gen(2, ids);
    f.tag(1, "none");
    f.del(2, ids);
    assert_true(ids[0] == 77 && ids[1] == 77);
    for (int i = 0; i < 16; i++)
        assert_int_equal(buf[i], 0x3c3c3c3c);
    make_current(test_ctx);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

static void test_errors(void **state)
{
    (void)state;
    GLint ids[2] = {0, 0};
    /* Gen: n < 0 (NVIDIA: INVALID_VALUE); NULL ids with n > 0 */
    f.gen(-1, ids);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    f.gen(1, NULL);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    f.gen(0, NULL);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    /* Delete: n < 0 */
    f.del(-1, ids);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    f.del(1, NULL);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    /* QueryResourceTag: never generated (NVIDIA: INVALID_OPERATION), negative */
    f.tag(12345, "never generated");
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    f.tag(-1, NULL);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    f.gen(1, ids);
    f.tag(ids[0], NULL);                    /* generated: fine, with or without a string */
    assert_int_equal(glt_error(), GL_NO_ERROR);
    /* QueryResource: unknown queryType (INVALID_ENUM, 0) */
    assert_int_equal(f.query(0x1234, -1, 0, NULL), 0);
    assert_int_equal(glt_error(), GL_INVALID_ENUM);
    /* a buffer too small: 0, INVALID_VALUE, nothing written (count 4 as in the probe, and 0) */
    GLint s[8];
    for (int i = 0; i < 8; i++)
        s[i] = 0x11111111;
    assert_int_equal(f.query(VIDMEM, -1, 4, s), 0);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    assert_int_equal(f.query(VIDMEM, 0, 0, s), 0);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    for (int i = 0; i < 8; i++)
        assert_int_equal(s[i], 0x11111111);
    /* GL's first-error rule: the program's earlier error comes first */
    gl.glBindBuffer(0x1234, 0);
    assert_int_equal(f.query(0x1234, 0, 0, NULL), 0);
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    f.tag(777, NULL);
    gl.glBindBuffer(0x1234, 0);
    assert_int_equal(gl.glGetError(), GL_INVALID_OPERATION);
    glt_error();
}

static void test_share_groups(void **state)
{
    (void)state;
    struct perfq_gl_layer_stats s0, s1;
    perfq_gl_layer_stats(&s0);
    EGLContext a = test_ctx;
    GLuint b = buffer(2 * MIB);
    GLint tg = 0;
    f.gen(1, &tg);
    EGLContext share = make_context(a);                 /* shares a's objects */
    assert_true(share != EGL_NO_CONTEXT);
    expect_type(OBJ_BUFFER, 1, 2048);                   /* counted once, in the share group */
    GLuint c = buffer(1 * MIB);
    f.tag(tg, "shared tag");                            /* tags are the group's */
    assert_int_equal(glt_error(), GL_NO_ERROR);
    EGLContext other = make_context(EGL_NO_CONTEXT);    /* shares nothing */
    assert_true(other != EGL_NO_CONTEXT);
    expect_type(OBJ_BUFFER, 0, 0);
    make_current(a);
    expect_type(OBJ_BUFFER, 2, 3072);
    perfq_gl_layer_stats(&s1);
    assert_int_equal(s1.frontend_objects, s0.frontend_objects + 1);   /* + other's */
    /* the context that made them is destroyed: the objects live on in the group */
    make_current(share);
    eglDestroyContext(dpy, a);
    expect_type(OBJ_BUFFER, 2, 3072);
    gl.glDeleteBuffers(1, &b);
    expect_type(OBJ_BUFFER, 1, 1024);
    /* the group's last context destroyed with objects alive: its table goes with it */
    make_current(other);
    eglDestroyContext(dpy, share);
    perfq_gl_layer_stats(&s1);
    assert_int_equal(s1.frontend_objects, s0.frontend_objects);   /* a's gone, other's in */
    (void)c;
    test_ctx = other;                                   /* teardown destroys it */
}

/* The same numbers through GL_INTEL_performance_query's "GL Memory" query type (the catalog
 * group gl-memory): levels at the end of the query. */
static int intel_find_counter(GLuint qid, const char *name, GLuint *offset_out)
{
    PFNGLGETPERFQUERYINFOINTELPROC info =
        (PFNGLGETPERFQUERYINFOINTELPROC)eglGetProcAddress("glGetPerfQueryInfoINTEL");
    PFNGLGETPERFCOUNTERINFOINTELPROC cinfo =
        (PFNGLGETPERFCOUNTERINFOINTELPROC)eglGetProcAddress("glGetPerfCounterInfoINTEL");
    GLuint size = 0, n = 0, inst = 0, caps = 0;
    char qname[256];
    info(qid, sizeof qname, qname, &size, &n, &inst, &caps);
    for (GLuint c = 1; c <= n; c++) {
        char cname[256], desc[1024];
        GLuint offset = 0, dsize = 0, type = 0, dtype = 0;
        GLuint64 raw_max = 0;
        cinfo(qid, c, sizeof cname, cname, sizeof desc, desc, &offset, &dsize, &type, &dtype,
              &raw_max);
        if (strcmp(cname, name) == 0) {
            assert_int_equal(dsize, 8);
            *offset_out = offset;
            return 1;
        }
    }
    return 0;
}

static uint64_t intel_counter(GLuint qid, const unsigned char *data, const char *name)
{
    GLuint offset = 0;
    if (!intel_find_counter(qid, name, &offset))
        fail_msg("no counter %s in GL Memory", name);
    uint64_t v;
    memcpy(&v, data + offset, sizeof v);
    return v;
}

static void test_intel_gl_memory(void **state)
{
    (void)state;
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC by_name =
        (PFNGLGETPERFQUERYIDBYNAMEINTELPROC)eglGetProcAddress("glGetPerfQueryIdByNameINTEL");
    PFNGLCREATEPERFQUERYINTELPROC create =
        (PFNGLCREATEPERFQUERYINTELPROC)eglGetProcAddress("glCreatePerfQueryINTEL");
    PFNGLBEGINPERFQUERYINTELPROC begin =
        (PFNGLBEGINPERFQUERYINTELPROC)eglGetProcAddress("glBeginPerfQueryINTEL");
    PFNGLENDPERFQUERYINTELPROC end =
        (PFNGLENDPERFQUERYINTELPROC)eglGetProcAddress("glEndPerfQueryINTEL");
    PFNGLGETPERFQUERYDATAINTELPROC get =
        (PFNGLGETPERFQUERYDATAINTELPROC)eglGetProcAddress("glGetPerfQueryDataINTEL");
    PFNGLDELETEPERFQUERYINTELPROC del =
        (PFNGLDELETEPERFQUERYINTELPROC)eglGetProcAddress("glDeletePerfQueryINTEL");
    PFNGLGETPERFQUERYINFOINTELPROC info =
        (PFNGLGETPERFQUERYINFOINTELPROC)eglGetProcAddress("glGetPerfQueryInfoINTEL");
    assert_true(glt_has_extension("GL_INTEL_performance_query"));
    GLuint qid = 0, h = 0;
    by_name((GLchar *)"GL Memory", &qid);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(qid != 0);
    GLint tg = 0;
    f.gen(1, &tg);
    f.tag(tg, "intel");
    create(qid, &h);
    begin(h);
    GLuint b1 = buffer(8 * MIB), b2 = buffer(8 * MIB);
    GLuint t = texture_2d(1024, 1024);
    GLuint rb = renderbuffer(2048, 2048);
    end(h);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    GLuint size = 0, n = 0, inst = 0, caps = 0;
    char qname[256];
    info(qid, sizeof qname, qname, &size, &n, &inst, &caps);
    assert_string_equal(qname, "GL Memory");
    unsigned char *data = calloc(1, size);
    GLuint written = 0;
    get(h, GL_PERFQUERY_WAIT_INTEL, size, data, &written);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(written, size);
    assert_int_equal(intel_counter(qid, data, "buffer-allocations"), 2);
    assert_int_equal(intel_counter(qid, data, "buffer-kib"), 16384);
    assert_int_equal(intel_counter(qid, data, "texture-kib"), 4096);
    assert_int_equal(intel_counter(qid, data, "renderbuffer-kib"), 16384);
    assert_int_equal(intel_counter(qid, data, "allocations"), 4);
    assert_int_equal(intel_counter(qid, data, "kib"), 16384 + 4096 + 16384);
    assert_int_equal(intel_counter(qid, data, "current-tag-allocations"), 4);
    assert_int_equal(intel_counter(qid, data, "current-tag-kib"), 16384 + 4096 + 16384);
    /* The device's memory where the context has a source (docs/nv-query-resource.md): llvmpipe's
     * video memory is system memory (/proc/meminfo), GL_NVX_gpu_memory_info elsewhere; there is
     * some, and free <= total. Without a source (NVIDIA's GLES contexts have no NVX) both
     * counters are left out. */
    const char *renderer = (const char *)gl.glGetString(GL_RENDERER);
    int source = glt_has_extension("GL_NVX_gpu_memory_info") ||
                 (renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe")));
    GLuint offset = 0;
    if (source) {
        uint64_t total = intel_counter(qid, data, "device-total-kib");
        uint64_t free_kib = intel_counter(qid, data, "device-free-kib");
        assert_true(total > 0 && free_kib > 0 && free_kib <= total);
    } else {
        assert_false(intel_find_counter(qid, "device-total-kib", &offset));
        if (!glt_has_extension("GL_ATI_meminfo"))     /* free memory only, there */
            assert_false(intel_find_counter(qid, "device-free-kib", &offset));
        printf("# no memory source in this context: device-total-kib, device-free-kib left out\n");
    }
    free(data);
    del(h);
    f.tag(0, NULL);
    GLuint bs[2] = {b1, b2};
    gl.glDeleteBuffers(2, bs);
    f.delete_textures(1, &t);
    gl.glDeleteRenderbuffers(1, &rb);
}

/* Per-tag counters of "GL Memory" (tag ids 1..16 of the share group; docs/nv-query-resource.md,
 * "Per-tag counters"): exact KiB and allocations per tag, 0 for an id generated but never named,
 * one never generated and a deleted one; no counter past the 16th id. */
static void test_intel_gl_memory_tags(void **state)
{
    (void)state;
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC by_name =
        (PFNGLGETPERFQUERYIDBYNAMEINTELPROC)eglGetProcAddress("glGetPerfQueryIdByNameINTEL");
    PFNGLCREATEPERFQUERYINTELPROC create =
        (PFNGLCREATEPERFQUERYINTELPROC)eglGetProcAddress("glCreatePerfQueryINTEL");
    PFNGLBEGINPERFQUERYINTELPROC begin =
        (PFNGLBEGINPERFQUERYINTELPROC)eglGetProcAddress("glBeginPerfQueryINTEL");
    PFNGLENDPERFQUERYINTELPROC end =
        (PFNGLENDPERFQUERYINTELPROC)eglGetProcAddress("glEndPerfQueryINTEL");
    PFNGLGETPERFQUERYDATAINTELPROC get =
        (PFNGLGETPERFQUERYDATAINTELPROC)eglGetProcAddress("glGetPerfQueryDataINTEL");
    PFNGLDELETEPERFQUERYINTELPROC del =
        (PFNGLDELETEPERFQUERYINTELPROC)eglGetProcAddress("glDeletePerfQueryINTEL");
    PFNGLGETPERFQUERYINFOINTELPROC info =
        (PFNGLGETPERFQUERYINFOINTELPROC)eglGetProcAddress("glGetPerfQueryInfoINTEL");
    GLuint qid = 0, h = 0;
    by_name((GLchar *)"GL Memory", &qid);
    assert_true(qid != 0);
    GLuint size = 0, n = 0, inst = 0, caps = 0;
    char qname[256];
    info(qid, sizeof qname, qname, &size, &n, &inst, &caps);
    /* 12 + 2 per tag id, less the device's total and free where the context has no source
     * of them (test_intel_gl_memory; NVIDIA's GLES contexts: no GL_NVX_gpu_memory_info) */
    const char *renderer = (const char *)gl.glGetString(GL_RENDERER);
    int source = glt_has_extension("GL_NVX_gpu_memory_info") ||
                 (renderer && (strstr(renderer, "llvmpipe") || strstr(renderer, "softpipe")));
    GLuint left_out = source ? 0 : glt_has_extension("GL_ATI_meminfo") ? 1 : 2;
    assert_int_equal(n, 12 + 2 * 16 - left_out);
    GLuint offset = 0;
    assert_true(intel_find_counter(qid, "tag-1-allocations", &offset));
    assert_true(intel_find_counter(qid, "tag-16-kib", &offset));
    assert_false(intel_find_counter(qid, "tag-17-kib", &offset));
    assert_false(intel_find_counter(qid, "tag-0-kib", &offset));
    /* a fresh share group: ids 1, 2, 3 */
    GLint tg[3] = {0, 0, 0};
    f.gen(3, tg);
    assert_int_equal(tg[0], 1);
    assert_int_equal(tg[1], 2);
    assert_int_equal(tg[2], 3);
    f.tag(tg[0], "buffers");
    GLuint b1 = buffer(8 * MIB), b2 = buffer(8 * MIB);
    f.tag(tg[1], NULL);                                 /* no string: still a tag with state */
    GLuint t = texture_2d(1024, 1024);
    f.generate_mipmap(GL_TEXTURE_2D);                   /* 5592404 bytes = 5462 KiB */
    f.tag(0, NULL);
    GLuint rb = renderbuffer(2048, 2048);               /* untagged */
    unsigned char *data = calloc(1, size);
    for (int round = 0; round < 2; round++) {
        create(qid, &h);
        begin(h);
        end(h);
        GLuint written = 0;
        memset(data, 0xa5, size);
        get(h, GL_PERFQUERY_WAIT_INTEL, size, data, &written);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        assert_int_equal(written, size);
        del(h);
        assert_int_equal(intel_counter(qid, data, "kib"), 16384 + 5462 + 16384);
        assert_int_equal(intel_counter(qid, data, "buffer-kib"), 16384);
        assert_int_equal(intel_counter(qid, data, "current-tag-kib"), 0);   /* tagging off */
        if (round == 0) {
            assert_int_equal(intel_counter(qid, data, "tag-1-allocations"), 2);
            assert_int_equal(intel_counter(qid, data, "tag-1-kib"), 16384);
        } else {                                        /* tag 1 deleted: not reported */
            assert_int_equal(intel_counter(qid, data, "tag-1-allocations"), 0);
            assert_int_equal(intel_counter(qid, data, "tag-1-kib"), 0);
        }
        assert_int_equal(intel_counter(qid, data, "tag-2-allocations"), 1);
        assert_int_equal(intel_counter(qid, data, "tag-2-kib"), 5462);
        assert_int_equal(intel_counter(qid, data, "tag-3-allocations"), 0);   /* never named */
        assert_int_equal(intel_counter(qid, data, "tag-3-kib"), 0);
        assert_int_equal(intel_counter(qid, data, "tag-4-kib"), 0);           /* never made */
        assert_int_equal(intel_counter(qid, data, "tag-16-kib"), 0);
        /* the same as glQueryResourceNV for each id */
        for (GLint id = 1; id <= 3; id++) {
            struct rep r;
            query(id, &r);
            char name[32];
            snprintf(name, sizeof name, "tag-%d-kib", id);
            assert_int_equal(intel_counter(qid, data, name), r.d.n_tags ? r.d.tags[0].kib : 0);
            rep_free(&r);
        }
        f.del(1, &tg[0]);
    }
    free(data);
    GLuint bs[2] = {b1, b2};
    gl.glDeleteBuffers(2, bs);
    f.delete_textures(1, &t);
    gl.glDeleteRenderbuffers(1, &rb);
}

static void test_many_cycles_no_growth(void **state)
{
    (void)state;
    struct perfq_gl_layer_stats s0, s1;
    make_current(main_ctx);
    perfq_gl_layer_stats(&s0);
    for (int i = 0; i < 50; i++) {
        EGLContext c = make_context(EGL_NO_CONTEXT);
        assert_true(c != EGL_NO_CONTEXT);
        buffer(4096);
        texture_2d(16, 16);
        GLint t;
        f.gen(1, &t);
        f.tag(t, "cycle");
        make_current(main_ctx);
        eglDestroyContext(dpy, c);
    }
    perfq_gl_layer_stats(&s1);
    assert_int_equal(s1.frontend_objects, s0.frontend_objects);
    assert_int_equal(s1.contexts, s0.contexts);
    make_current(test_ctx);
}

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    struct glt t;
    int rc = glt_open_display(&dpy);
    if (rc == 0)
        rc = glt_create(&t, dpy, kind, 64, 64);
    if (rc != 0)
        return rc;   /* GLT_SKIP naming the missing piece, or a failure */
    main_ctx = t.ctx;
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    if (!ext || !strstr(ext, "EGL_KHR_no_config_context")) {
        EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                           kind == GLT_GLES3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
        EGLint nc = 0;
        if (!eglChooseConfig(dpy, cattrs, &config, 1, &nc) || nc < 1) {
            /* glt_create just chose one with the same attributes. */
            fprintf(stderr, "FAIL: no EGL config for a second %s context\n",
                    glt_kind_name(kind));
            return 1;
        }
    }
    load();
    printf("# %s: %s | %s\n", glt_kind_name(kind), gl.glGetString(GL_RENDERER),
           gl.glGetString(GL_VERSION));
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_extension_and_entry_points, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_known_allocations, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_shapes, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_views_buffer_textures_dsa, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_respecify_and_refused_calls, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_respecify_fast_path, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_repeats_follow_bindings, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_error_pending_at_storage_call, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_debug_output_sees_each_error_once, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_bindings_tracked, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_extension_storage_calls, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_probe_sequence_tags, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_tag_attribution_and_current_tag, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_tag_state_and_silent_delete, setup_each,
                                        teardown_each),
        cmocka_unit_test_setup_teardown(test_no_current_context, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_errors, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_share_groups, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_intel_gl_memory, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_intel_gl_memory_tags, setup_each, teardown_each),
        cmocka_unit_test_setup_teardown(test_many_cycles_no_growth, setup_each, teardown_each),
    };
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&t);
    return rc;
}
