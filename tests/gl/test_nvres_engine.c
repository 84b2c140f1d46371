/*
 * GL_NV_query_resource's accounting engine without GL: storage sizes of every format family,
 * levels, faces, layers and samples; the object table (re-specification, orphaning, deletion,
 * views and buffer textures without double counting); tags (ids from 1 never reused, state,
 * strings, deletion); the report encoder (exact layout, size query == written size, never past
 * count) and the decoder over perfq's reports and over the NVIDIA driver's own output
 * (recorded on an H200 for the oracle probe's scripted allocations).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "gl/nvres/nvres_accounting.h"
#include "gl/nvres/nvres_format.h"
#include "gl/nvres/nvres_report.h"

#define KIB 1024ull
#define MIB (1024ull * 1024ull)

static struct perfq_nvres_format fmt(GLenum ifmt, GLenum format, GLenum type)
{
    struct perfq_nvres_format f;
    assert_int_equal(perfq_nvres_format_lookup(ifmt, format, type, &f), 1);
    return f;
}

static uint64_t img(GLenum ifmt, uint64_t w, uint64_t h, uint64_t d, uint64_t samples)
{
    struct perfq_nvres_format f = fmt(ifmt, 0, 0);
    return perfq_nvres_image_bytes(&f, w, h, d, samples);
}

/* ---- formats ---- */

static void test_uncompressed_sizes(void **state)
{
    (void)state;
    assert_int_equal(img(GL_RGBA8, 1024, 1024, 1, 1), 4 * MIB);
    assert_int_equal(img(GL_RGB10_A2, 10, 10, 1, 1), 400);
    assert_int_equal(img(GL_R11F_G11F_B10F, 10, 10, 1, 1), 400);
    assert_int_equal(img(GL_RGB9_E5, 1, 1, 1, 1), 4);
    assert_int_equal(img(GL_RGB8, 10, 10, 1, 1), 300);
    assert_int_equal(img(GL_RGB565, 2, 2, 1, 1), 8);
    assert_int_equal(img(GL_RGBA4, 2, 2, 1, 1), 8);
    assert_int_equal(img(GL_R8, 3, 3, 1, 1), 9);
    assert_int_equal(img(GL_RG16F, 1, 1, 1, 1), 4);
    assert_int_equal(img(GL_RGB32F, 1, 1, 1, 1), 12);
    assert_int_equal(img(GL_RGBA32UI, 1, 1, 1, 1), 16);
    assert_int_equal(img(GL_RGB12, 1, 1, 1, 1), 5);            /* 36 bits: 5 bytes */
    assert_int_equal(img(GL_RGB4, 1, 1, 1, 1), 2);             /* 12 bits: 2 bytes */
    assert_int_equal(img(GL_ALPHA4, 4, 1, 1, 1), 4);           /* 4 bits: 1 byte per texel */
    assert_int_equal(img(GL_SRGB8_ALPHA8, 4, 4, 1, 1), 64);
    /* depth and stencil */
    assert_int_equal(img(GL_DEPTH_COMPONENT16, 4, 4, 1, 1), 32);
    assert_int_equal(img(GL_DEPTH_COMPONENT24, 1, 1, 1, 1), 3);
    assert_int_equal(img(GL_DEPTH_COMPONENT32F, 1, 1, 1, 1), 4);
    assert_int_equal(img(GL_DEPTH24_STENCIL8, 2048, 2048, 1, 1), 16 * MIB);
    assert_int_equal(img(GL_DEPTH32F_STENCIL8, 1, 1, 1, 1), 5);
    assert_int_equal(img(GL_STENCIL_INDEX8, 8, 8, 1, 1), 64);
    /* samples and depth multiply */
    assert_int_equal(img(GL_RGBA8, 16, 16, 1, 4), 16 * 16 * 4 * 4);
    assert_int_equal(img(GL_RGBA8, 16, 16, 6, 0), 16 * 16 * 4 * 6);   /* 0 samples = 1 */
    assert_int_equal(img(GL_RGBA8, 0, 16, 1, 1), 0);
}

static void test_unsized_sizes(void **state)
{
    (void)state;
    struct perfq_nvres_format f;
    f = fmt(GL_RGBA, GL_RGBA, GL_UNSIGNED_BYTE);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 4);
    f = fmt(GL_RGBA, GL_RGBA, GL_FLOAT);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 16);
    f = fmt(GL_RGBA, GL_RGBA, GL_UNSIGNED_SHORT_4_4_4_4);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 2);
    f = fmt(GL_RGB, GL_RGB, GL_UNSIGNED_SHORT_5_6_5);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 2);
    f = fmt(GL_RGB, GL_RGB, GL_UNSIGNED_BYTE);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 3);
    f = fmt(GL_RGB, GL_RGB, GL_HALF_FLOAT);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 6);
    f = fmt(GL_LUMINANCE_ALPHA, GL_LUMINANCE_ALPHA, GL_UNSIGNED_BYTE);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 2);
    f = fmt(GL_ALPHA, GL_ALPHA, GL_UNSIGNED_BYTE);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 1);
    f = fmt(GL_DEPTH_COMPONENT, GL_DEPTH_COMPONENT, GL_UNSIGNED_INT);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 4);
    f = fmt(GL_DEPTH_COMPONENT, GL_DEPTH_COMPONENT, GL_UNSIGNED_SHORT);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 2);
    f = fmt(GL_DEPTH_STENCIL, GL_DEPTH_STENCIL, GL_UNSIGNED_INT_24_8);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 4);
    f = fmt(GL_DEPTH_STENCIL, GL_DEPTH_STENCIL, GL_FLOAT_32_UNSIGNED_INT_24_8_REV);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 8);
    f = fmt(4, GL_RGBA, GL_UNSIGNED_BYTE);                      /* legacy component count */
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 4);
    f = fmt(GL_RGBA, 0, 0);                                     /* renderbuffer: no type */
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 4);
    f = fmt(GL_DEPTH_COMPONENT, 0, 0);
    assert_int_equal(perfq_nvres_image_bytes(&f, 1, 1, 1, 1), 3);
    assert_int_equal(perfq_nvres_format_lookup(0x1234, GL_RGBA, GL_UNSIGNED_BYTE, &f), 0);
    assert_int_equal(perfq_nvres_format_lookup(GL_RGBA, GL_RGBA, 0x1234, &f), 1);
}

static void test_compressed_sizes(void **state)
{
    (void)state;
    assert_int_equal(img(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 1024, 1024, 1, 1), 512 * KIB);
    assert_int_equal(img(GL_COMPRESSED_RGBA_S3TC_DXT5_EXT, 1024, 1024, 1, 1), 1 * MIB);
    assert_int_equal(img(GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT, 4, 4, 1, 1), 16);
    assert_int_equal(img(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 1, 1, 1, 1), 8);   /* partial block */
    assert_int_equal(img(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 5, 5, 1, 1), 32);  /* 2x2 blocks */
    assert_int_equal(img(GL_COMPRESSED_RED_RGTC1, 8, 8, 1, 1), 32);
    assert_int_equal(img(GL_COMPRESSED_SIGNED_RG_RGTC2, 8, 8, 1, 1), 64);
    assert_int_equal(img(GL_COMPRESSED_RGBA_BPTC_UNORM, 8, 8, 1, 1), 64);
    assert_int_equal(img(GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT, 4, 4, 1, 1), 16);
    assert_int_equal(img(GL_COMPRESSED_RGB8_ETC2, 8, 8, 1, 1), 32);
    assert_int_equal(img(GL_COMPRESSED_RGBA8_ETC2_EAC, 8, 8, 1, 1), 64);
    assert_int_equal(img(GL_COMPRESSED_R11_EAC, 4, 4, 1, 1), 8);
    assert_int_equal(img(GL_COMPRESSED_SIGNED_RG11_EAC, 4, 4, 1, 1), 16);
    assert_int_equal(img(0x8D64 /* ETC1_RGB8_OES */, 4, 4, 1, 1), 8);
    assert_int_equal(img(GL_COMPRESSED_RGBA_ASTC_4x4_KHR, 4, 4, 1, 1), 16);
    assert_int_equal(img(GL_COMPRESSED_RGBA_ASTC_12x12_KHR, 100, 100, 1, 1), 9 * 9 * 16);
    assert_int_equal(img(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x5_KHR, 20, 20, 1, 1), 2 * 4 * 16);
    assert_int_equal(img(0x93C9 /* ASTC_6x6x6_OES */, 12, 12, 12, 1), 8 * 16);
    assert_int_equal(img(0x93E0 /* SRGB ASTC_3x3x3_OES */, 3, 3, 4, 1), 2 * 16);
    /* a 2D-block format on a 3D or array image: per slice */
    assert_int_equal(img(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 4, 4, 3, 1), 3 * 8);
    /* PVRTC: at least 2x2 blocks */
    assert_int_equal(img(0x8C01 /* RGB_PVRTC_2BPPV1 */, 4, 4, 1, 1), 32);
    assert_int_equal(img(0x8C02 /* RGBA_PVRTC_4BPPV1 */, 16, 16, 1, 1), 16 * 8);
    assert_int_equal(img(GL_COMPRESSED_RGB_FXT1_3DFX, 8, 4, 1, 1), 16);
    assert_int_equal(img(0x8C93 /* ATC_RGBA_EXPLICIT */, 4, 4, 1, 1), 16);
    assert_int_equal(img(GL_COMPRESSED_LUMINANCE_LATC1_EXT, 4, 4, 1, 1), 8);
}

static void test_level_dims(void **state)
{
    (void)state;
    uint64_t w, h, d;
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_3D, 2, 16, 8, 4, &w, &h, &d);
    assert_true(w == 4 && h == 2 && d == 1);
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_3D, 4, 16, 8, 4, &w, &h, &d);
    assert_true(w == 1 && h == 1 && d == 1);
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_2D_ARRAY, 3, 16, 16, 7, &w, &h, &d);
    assert_true(w == 2 && h == 2 && d == 7);            /* layers never halve */
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_1D_ARRAY, 3, 16, 5, 1, &w, &h, &d);
    assert_true(w == 2 && h == 5 && d == 1);
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_CUBE_ARRAY, 1, 32, 32, 12, &w, &h, &d);
    assert_true(w == 16 && h == 16 && d == 12);
    assert_int_equal(perfq_nvres_target_shape(GL_PROXY_TEXTURE_2D), PERFQ_NVRES_SHAPE_NONE);
    assert_int_equal(perfq_nvres_target_shape(GL_TEXTURE_CUBE_MAP_NEGATIVE_Z),
                     PERFQ_NVRES_SHAPE_2D);
    assert_int_equal(perfq_nvres_cube_face(GL_TEXTURE_CUBE_MAP_NEGATIVE_Z), 5);
}

/* ---- the engine ---- */

static struct perfq_nvres_totals type_totals(struct perfq_nvres_group *g, perfq_nvres_type_t t)
{
    struct perfq_nvres_totals r;
    perfq_nvres_type_totals(g, t, &r);
    return r;
}

static struct perfq_nvres_totals tag_totals(struct perfq_nvres_group *g, int32_t id)
{
    struct perfq_nvres_totals r;
    perfq_nvres_tag_totals(g, id, &r);
    return r;
}

#define ASSERT_TOTALS(t, a, k) do { struct perfq_nvres_totals t_ = (t); \
    assert_int_equal(t_.allocs, (a)); assert_int_equal(t_.kib, (k)); } while (0)

static void tex_image(struct perfq_nvres_group *g, uint32_t name, int face, int level,
                      GLenum ifmt, uint64_t w, uint64_t h, int32_t tag)
{
    struct perfq_nvres_format f = fmt(ifmt, 0, 0);
    uint64_t lw, lh, ld;
    perfq_nvres_level_dims(PERFQ_NVRES_SHAPE_2D, 0, w, h, 1, &lw, &lh, &ld);
    perfq_nvres_texture_image(g, name, face, level, perfq_nvres_image_bytes(&f, w, h, 1, 1), &f,
                              PERFQ_NVRES_SHAPE_2D, w, h, 1, tag);
}

static void test_issue_examples(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    /* two 8 MiB buffers: 16384 KiB and 2 allocations */
    perfq_nvres_buffer_storage(g, 1, 8 * MIB, 0);
    perfq_nvres_buffer_storage(g, 2, 8 * MIB, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 2, 16384);
    /* a 1024x1024 RGBA8 texture, level 0: 4096 KiB */
    tex_image(g, 1, -1, 0, GL_RGBA8, 1024, 1024, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 4096);
    /* its full mip chain: a third more, 5592404 bytes rounded up once for the object */
    for (int l = 1; l <= 10; l++)
        tex_image(g, 1, -1, l, GL_RGBA8, 1024u >> l, 1024u >> l, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 5462);
    assert_int_equal(perfq_nvres_kib(5592404), 5462);
    /* the same chain by immutable storage and by GenerateMipmap */
    struct perfq_nvres_format f = fmt(GL_RGBA8, 0, 0);
    perfq_nvres_texture_storage(g, 2, &f, PERFQ_NVRES_SHAPE_2D, 11, 1024, 1024, 1, 0, 0);
    tex_image(g, 3, -1, 0, GL_RGBA8, 1024, 1024, 0);
    perfq_nvres_texture_generate_mipmap(g, 3, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 3, 3 * 5462);
    /* a 2048x2048 RGBA8 renderbuffer: 16384 KiB */
    perfq_nvres_renderbuffer_storage(g, 1, img(GL_RGBA8, 2048, 2048, 1, 1), 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_RENDERBUFFER), 1, 16384);
    perfq_nvres_group_free(g);
}

static void test_shapes_in_engine(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    struct perfq_nvres_format f = fmt(GL_RGBA8, 0, 0);
    /* cube map storage: 6 faces x (64x64 + 32x32) */
    perfq_nvres_texture_storage(g, 1, &f, PERFQ_NVRES_SHAPE_CUBE, 2, 64, 64, 1, 0, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 6 * (16 + 4));
    /* cube faces one by one with TexImage: one allocation of 6 images */
    for (int face = 0; face < 6; face++)
        tex_image(g, 2, face, 0, GL_RGBA8, 64, 64, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 2, 6 * 20 + 6 * 16);
    /* a face re-specified replaces only itself */
    tex_image(g, 2, 3, 0, GL_RGBA8, 128, 128, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 2, 6 * 20 + 5 * 16 + 64);
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 1);
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 2);
    /* 2D array: 3 levels of 8 layers */
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_2D_ARRAY, 3, 64, 64, 8, 0, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 8 * (16 + 4 + 1));
    /* 3D: depth halves */
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_3D, 2, 64, 64, 8, 0, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 8 * 16 + 4 * 4);
    /* multisample: one level, x samples (the levels argument of TexStorage*Multisample is 1) */
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_2D_MS, 1, 64, 64, 1, 4, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 64);
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_2D_MS_ARRAY, 1, 64, 64, 3, 2, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 3 * 2 * 16);
    /* cube map array: 12 layer-faces */
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_CUBE_ARRAY, 1, 32, 32, 12, 0, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 12 * 4);
    /* 1D array: layers never halve */
    perfq_nvres_texture_storage(g, 3, &f, PERFQ_NVRES_SHAPE_1D_ARRAY, 2, 1024, 16, 1, 0, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 16 * 4 + 16 * 2);
    /* compressed mip chain: DXT1 256x256 full chain (9 levels, blocks of at least 4x4) */
    struct perfq_nvres_format c = fmt(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 0, 0);
    perfq_nvres_texture_storage(g, 3, &c, PERFQ_NVRES_SHAPE_2D, 9, 256, 256, 1, 0, 0);
    uint64_t bytes = 0;
    for (int l = 0; l < 9; l++) {
        uint64_t s = 256u >> l;
        bytes += perfq_nvres_image_bytes(&c, s, s, 1, 1);
    }
    assert_int_equal(bytes, 32768 + 8192 + 2048 + 512 + 128 + 32 + 8 + 8 + 8);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, perfq_nvres_kib(bytes));
    perfq_nvres_group_free(g);
}

static void test_respecify_orphan_delete(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    perfq_nvres_buffer_storage(g, 7, 4 * MIB, 0);
    perfq_nvres_buffer_storage(g, 7, 4 * MIB, 0);          /* orphaning: same size again */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 1, 4096);
    perfq_nvres_buffer_storage(g, 7, 1 * MIB, 0);          /* re-specified smaller */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 1, 1024);
    perfq_nvres_buffer_storage(g, 7, 0, 0);                /* BufferData of size 0 */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 0, 0);
    perfq_nvres_buffer_storage(g, 7, 1, 0);                /* 1 byte: 1 KiB (per object) */
    perfq_nvres_buffer_storage(g, 8, 512, 0);
    perfq_nvres_buffer_storage(g, 9, 512, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 3, 3);
    perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, 8);
    perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, 8);          /* twice: ignored */
    perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, 12345);      /* unknown: ignored */
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 9);         /* other type: ignored */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 2, 2);
    /* texture level re-specified */
    tex_image(g, 1, -1, 0, GL_RGBA8, 256, 256, 0);
    tex_image(g, 1, -1, 0, GL_RGBA8, 512, 512, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    tex_image(g, 1, -1, 0, GL_RGBA8, 0, 0, 0);             /* a 0x0 image frees the level */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 0, 0);
    /* renderbuffer re-specified */
    perfq_nvres_renderbuffer_storage(g, 1, 4 * MIB, 0);
    perfq_nvres_renderbuffer_storage(g, 1, 1 * MIB, 0);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_RENDERBUFFER), 1, 1024);
    perfq_nvres_delete(g, PERFQ_NVRES_RENDERBUFFER, 1);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_RENDERBUFFER), 0, 0);
    /* the same name in two types is two objects */
    assert_int_equal(perfq_nvres_object_count(g), 3);
    perfq_nvres_group_free(g);
}

/* The generation (the observer's fast path): every change of an object raises it and the
 * change returns the new value; reports, totals and tags leave it. */
static void test_generation(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    assert_int_equal(perfq_nvres_group_generation(g), 0);
    uint64_t g1 = perfq_nvres_buffer_storage(g, 1, 4 * MIB, 0);
    assert_true(g1 > 0);
    assert_int_equal(perfq_nvres_group_generation(g), g1);
    uint64_t g2 = perfq_nvres_buffer_storage(g, 1, 4 * MIB, 0);     /* the same again: a change */
    assert_true(g2 > g1);
    uint64_t g3 = perfq_nvres_renderbuffer_storage(g, 1, MIB, 0);
    assert_true(g3 > g2);
    struct perfq_nvres_format f;
    assert_true(perfq_nvres_format_lookup(GL_RGBA8, 0, 0, &f));
    uint64_t g4 = perfq_nvres_texture_image(g, 5, -1, 0, 64 * 1024, &f, PERFQ_NVRES_SHAPE_2D,
                                            128, 128, 1, 0);
    assert_true(g4 > g3);
    assert_int_equal(perfq_nvres_texture_image(g, 5, -1, 99, 1, &f, PERFQ_NVRES_SHAPE_2D, 1, 1,
                                               1, 0), 0);          /* no such level: no change */
    assert_int_equal(perfq_nvres_group_generation(g), g4);
    int32_t id = 0;
    assert_int_equal(perfq_nvres_tags_gen(g, 1, &id), PERFQ_OK);
    assert_int_equal(perfq_nvres_tag_set(g, id, "t"), PERFQ_OK);
    int32_t buf[64];
    perfq_nvres_group_report(g, -1, 0, buf, 64);
    assert_int_equal(perfq_nvres_group_generation(g), g4);
    uint64_t before = g4;
    perfq_nvres_texture_generate_mipmap(g, 5, 0);
    assert_true(perfq_nvres_group_generation(g) > before);
    before = perfq_nvres_group_generation(g);
    perfq_nvres_texture_view(g, 6, 5);
    assert_true(perfq_nvres_group_generation(g) > before);
    before = perfq_nvres_group_generation(g);
    perfq_nvres_texture_storage(g, 7, &f, PERFQ_NVRES_SHAPE_2D, 1, 4, 4, 1, 0, 0);
    assert_true(perfq_nvres_group_generation(g) > before);
    before = perfq_nvres_group_generation(g);
    perfq_nvres_texture_buffer(g, 7);
    assert_true(perfq_nvres_group_generation(g) > before);
    before = perfq_nvres_group_generation(g);
    perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, 1);
    assert_true(perfq_nvres_group_generation(g) > before);
    before = perfq_nvres_group_generation(g);
    perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, 1);                   /* unknown now: nothing */
    assert_int_equal(perfq_nvres_group_generation(g), before);
    perfq_nvres_group_free(g);
}

static void test_views_and_buffer_textures(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    struct perfq_nvres_format f = fmt(GL_RGBA8, 0, 0);
    perfq_nvres_texture_storage(g, 1, &f, PERFQ_NVRES_SHAPE_2D, 1, 512, 512, 1, 0, 0);
    perfq_nvres_texture_view(g, 2, 1);
    perfq_nvres_texture_view(g, 3, 2);                     /* a view of a view */
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    /* the original deleted: the storage lives on in a view, still counted once */
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 1);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 2);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 3);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 0, 0);
    /* a view deleted first leaves the original as it was */
    perfq_nvres_texture_storage(g, 4, &f, PERFQ_NVRES_SHAPE_2D, 1, 512, 512, 1, 0, 0);
    perfq_nvres_texture_view(g, 5, 4);
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 5);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    /* buffer texture: the buffer counts, the texture does not */
    perfq_nvres_buffer_storage(g, 1, 64 * KIB, 0);
    tex_image(g, 6, -1, 0, GL_RGBA8, 16, 16, 0);
    perfq_nvres_texture_buffer(g, 6);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_TEXTURE), 1, 1024);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 1, 64);
    perfq_nvres_group_free(g);
}

static void test_table_stress(void **state)
{
    (void)state;
    /* 20000 names inserted, half deleted in a scattered order, then re-added: totals follow a
     * plain array kept beside the table. */
    enum { N = 20000 };
    static uint64_t ref[N + 1];
    memset(ref, 0, sizeof ref);
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    uint64_t seed = 12345;
    for (uint32_t i = 1; i <= N; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        ref[i] = (seed >> 33) % (64 * KIB) + 1;
        perfq_nvres_buffer_storage(g, i, ref[i], 0);
    }
    for (uint32_t k = 0; k < N; k += 2) {
        uint32_t i = (k * 7919u) % N + 1;
        perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, i);
        ref[i] = 0;
    }
    for (uint32_t i = 1; i <= N; i += 3) {
        ref[i] = i;
        perfq_nvres_buffer_storage(g, i, ref[i], 0);
    }
    uint64_t allocs = 0, kib = 0, live = 0;
    for (uint32_t i = 1; i <= N; i++) {
        if (ref[i]) {
            allocs++;
            kib += perfq_nvres_kib(ref[i]);
        }
    }
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), allocs, kib);
    for (uint32_t i = 1; i <= N; i++) {
        if (ref[i])
            live++;
        perfq_nvres_delete(g, PERFQ_NVRES_BUFFER, i);
    }
    assert_true(live == allocs);
    ASSERT_TOTALS(type_totals(g, PERFQ_NVRES_BUFFER), 0, 0);
    assert_int_equal(perfq_nvres_object_count(g), 0);
    perfq_nvres_group_free(g);
}

/* ---- tags ---- */

static void test_tag_ids(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    int32_t ids[3] = {0};
    assert_int_equal(perfq_nvres_tags_gen(g, 3, ids), PERFQ_OK);
    assert_true(ids[0] == 1 && ids[1] == 2 && ids[2] == 3);
    assert_int_equal(perfq_nvres_tags_gen(g, 0, ids), PERFQ_OK);
    perfq_nvres_tags_delete(g, 1, &ids[1]);
    int32_t more[2];
    assert_int_equal(perfq_nvres_tags_gen(g, 2, more), PERFQ_OK);
    assert_true(more[0] == 4 && more[1] == 5);             /* never reused */
    assert_true(perfq_nvres_tag_valid(g, 1));
    assert_false(perfq_nvres_tag_valid(g, 2));
    assert_false(perfq_nvres_tag_valid(g, 0));
    assert_false(perfq_nvres_tag_valid(g, -1));
    assert_false(perfq_nvres_tag_valid(g, 6));
    assert_int_equal(perfq_nvres_tag_set(g, 2, "x"), PERFQ_EINVAL);   /* deleted */
    assert_int_equal(perfq_nvres_tag_set(g, 99, "x"), PERFQ_EINVAL);  /* never generated */
    assert_int_equal(perfq_nvres_tag_set(g, 1, NULL), PERFQ_OK);
    /* delete ignores 0, unknown and repeated ids */
    int32_t junk[4] = {0, 77, 2, -5};
    perfq_nvres_tags_delete(g, 4, junk);
    assert_true(perfq_nvres_tag_valid(g, 1));
    /* many ids grow the table */
    int32_t *lots = malloc(1000 * sizeof *lots);
    assert_int_equal(perfq_nvres_tags_gen(g, 1000, lots), PERFQ_OK);
    assert_int_equal(lots[0], 6);
    assert_int_equal(lots[999], 1005);
    free(lots);
    perfq_nvres_group_free(g);
}

/* Encodes g's report for tag_id, checking size query == written size and the canary, and
 * decodes it. */
static int64_t report(struct perfq_nvres_group *g, int32_t tag_id, int32_t **out)
{
    int64_t need = perfq_nvres_group_report(g, tag_id, 777, NULL, 0);
    assert_true(need >= 9);
    int32_t *b = malloc((size_t)(need + 8) * sizeof *b);
    for (int64_t i = 0; i < need + 8; i++)
        b[i] = 0x7f7f7f7f;
    int64_t wrote = perfq_nvres_group_report(g, tag_id, 777, b, (uint64_t)need);
    assert_int_equal(wrote, need);
    for (int64_t i = need; i < need + 8; i++)
        assert_int_equal(b[i], 0x7f7f7f7f);
    /* one int short: nothing written at all */
    int32_t *s = malloc((size_t)need * sizeof *s);
    for (int64_t i = 0; i < need; i++)
        s[i] = 0x5a5a5a5a;
    perfq_nvres_group_report(g, tag_id, 777, s, (uint64_t)need - 1);
    for (int64_t i = 0; i < need; i++)
        assert_int_equal(s[i], 0x5a5a5a5a);
    free(s);
    *out = b;
    return need;
}

static void test_tags_in_reports(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    int32_t tags[3];
    assert_int_equal(perfq_nvres_tags_gen(g, 3, tags), PERFQ_OK);
    assert_int_equal(perfq_nvres_tag_set(g, tags[0], "textures"), PERFQ_OK);
    for (uint32_t i = 1; i <= 3; i++)
        tex_image(g, i, -1, 0, GL_RGBA8, 1024, 1024, tags[0]);
    assert_int_equal(perfq_nvres_tag_set(g, tags[1], "buffers"), PERFQ_OK);
    perfq_nvres_buffer_storage(g, 1, 8 * MIB, tags[1]);
    perfq_nvres_buffer_storage(g, 2, 8 * MIB, tags[1]);
    assert_int_equal(perfq_nvres_tag_set(g, tags[2], NULL), PERFQ_OK);
    perfq_nvres_renderbuffer_storage(g, 1, 16 * MIB, tags[2]);
    perfq_nvres_buffer_storage(g, 3, 4 * MIB, 0);           /* tagging off */

    int32_t *b;
    /* tagId -1: every tag, in the probe's layout */
    int64_t n = report(g, -1, &b);
    const int32_t want[] = {
        3, 2, 1, 21, 6, 7, 49152, 777, 3,
        5, 0x9542, 0x9545, 3, 12288,
        5, 0x9542, 0x9546, 1, 16384,
        5, 0x9542, 0x9547, 3, 20480,
        3,
        6, 1, 0, 3, 12288, 3, 0x74786574, 0x73657275, 0,     /* "textures" */
        6, 2, 0, 2, 16384, 2, 0x66667562, 0x00737265,        /* "buffers" */
        6, 3, 0, 1, 16384, 0,
    };
    assert_int_equal(n, (int64_t)(sizeof want / sizeof want[0]));
    assert_memory_equal(b, want, sizeof want);
    free(b);
    /* tagId 0: no tag section */
    n = report(g, 0, &b);
    assert_int_equal(n, 24);
    free(b);
    /* a positive id: that tag only */
    n = report(g, tags[1], &b);
    assert_int_equal(n, 24 + 1 + 6 + 2);
    assert_int_equal(b[24], 1);
    assert_int_equal(b[26], 2);
    free(b);
    /* unknown ids (never generated, generated without state, -2): tagCount 0 */
    int32_t fresh;
    assert_int_equal(perfq_nvres_tags_gen(g, 1, &fresh), PERFQ_OK);
    int32_t unknown[] = {999, fresh, -2};
    for (size_t i = 0; i < 3; i++) {
        n = report(g, unknown[i], &b);
        assert_int_equal(n, 25);
        assert_int_equal(b[24], 0);
        free(b);
    }
    /* renamed: the new string replaces the old; NULL keeps it */
    assert_int_equal(perfq_nvres_tag_set(g, tags[0], "textures-renamed"), PERFQ_OK);
    assert_int_equal(perfq_nvres_tag_set(g, tags[0], NULL), PERFQ_OK);
    n = report(g, tags[0], &b);
    assert_int_equal(n, 24 + 1 + 6 + 5);
    assert_string_equal((const char *)&b[31], "textures-renamed");
    free(b);
    /* deleted: not reported, though its objects still count in the totals */
    perfq_nvres_tags_delete(g, 1, &tags[1]);
    n = report(g, tags[1], &b);
    assert_int_equal(n, 25);
    free(b);
    n = report(g, -1, &b);
    assert_int_equal(b[24], 2);
    assert_int_equal(b[6], 49152);
    free(b);
    /* objects deleted leave their tag */
    perfq_nvres_delete(g, PERFQ_NVRES_TEXTURE, 2);
    ASSERT_TOTALS(tag_totals(g, tags[0]), 2, 8192);
    /* re-specified under another tag: moves */
    tex_image(g, 1, -1, 0, GL_RGBA8, 1024, 1024, tags[2]);
    ASSERT_TOTALS(tag_totals(g, tags[0]), 1, 4096);
    ASSERT_TOTALS(tag_totals(g, tags[2]), 2, 16384 + 4096);
    perfq_nvres_group_free(g);
}

static void test_empty_report(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    int32_t *b;
    int64_t n = report(g, 0, &b);
    const int32_t want[] = {3, 2, 1, 6, 6, 0, 0, 777, 0};
    assert_int_equal(n, 9);
    assert_memory_equal(b, want, sizeof want);
    free(b);
    n = report(g, -1, &b);
    assert_int_equal(n, 10);
    assert_int_equal(b[9], 0);
    free(b);
    perfq_nvres_group_free(g);
}

/* ---- decoder ---- */

static void test_decoder_roundtrip(void **state)
{
    (void)state;
    struct perfq_nvres_group *g = perfq_nvres_group_new();
    int32_t tags[2];
    assert_int_equal(perfq_nvres_tags_gen(g, 2, tags), PERFQ_OK);
    assert_int_equal(perfq_nvres_tag_set(g, tags[0], "abc"), PERFQ_OK);     /* 4 bytes: 1 int */
    assert_int_equal(perfq_nvres_tag_set(g, tags[1], "abcd"), PERFQ_OK);    /* 5 bytes: 2 ints */
    perfq_nvres_buffer_storage(g, 1, 3 * KIB, tags[0]);
    perfq_nvres_renderbuffer_storage(g, 1, 5 * KIB, tags[1]);
    int32_t ids[] = {0, -1, tags[0], tags[1], 55};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        int32_t *b;
        int64_t n = report(g, ids[i], &b);
        struct perfq_nvres_decoded d;
        assert_int_equal(perfq_nvres_report_decode(b, (size_t)n, &d), 0);
        assert_int_equal(d.ints_walked, n);
        assert_int_equal(d.version, 2);
        assert_int_equal(d.n_devices, 1);
        assert_int_equal(d.devices[0].allocs, 2);
        assert_int_equal(d.devices[0].kib, 8);
        assert_int_equal(d.devices[0].free_kib, 777);
        assert_int_equal(d.devices[0].n_details, 2);
        assert_int_equal(d.devices[0].details[0].obj_type, 0x9546);
        assert_int_equal(d.devices[0].details[1].obj_type, 0x9547);
        assert_int_equal(d.has_tag_section, ids[i] != 0);
        if (ids[i] == -1) {
            assert_int_equal(d.n_tags, 2);
            assert_string_equal(d.tags[0].string, "abc");
            assert_int_equal(d.tags[0].kib, 3);
            assert_string_equal(d.tags[1].string, "abcd");
            assert_int_equal(d.tags[1].kib, 5);
        }
        if (ids[i] == 55)
            assert_int_equal(d.n_tags, 0);
        /* every truncation of the report is refused or stops short, never read past */
        for (int64_t cut = 0; cut < n; cut++) {
            struct perfq_nvres_decoded t;
            int rc = perfq_nvres_report_decode(b, (size_t)cut, &t);
            assert_true(rc == -1 || t.ints_walked <= (size_t)cut);
            perfq_nvres_decoded_free(&t);
        }
        perfq_nvres_decoded_free(&d);
        free(b);
    }
    perfq_nvres_group_free(g);
}

/* The NVIDIA driver's own reports (recorded on an H200 for the oracle probe, "after 16MiB
 * renderbuffer" and "only tag1"): the decoder walks them by their sizes. */
static void test_decoder_on_driver_output(void **state)
{
    (void)state;
    const int32_t all[] = {3, 2, 1, 26, 6, 37, 57849, 510, 4, 5, 38210, 38212, 32, 16889, 5,
                           38210, 38213, 2, 8192, 5, 38210, 38214, 1, 16384, 5, 38210, 38215,
                           2, 16384, 1, 6, 1, 0, 2, 8192, 3, 1954047348, 1936028277,
                           2139062016, 2139062143};
    struct perfq_nvres_decoded d;
    assert_int_equal(perfq_nvres_report_decode(all, sizeof all / sizeof all[0], &d), 0);
    assert_int_equal(d.devices[0].n_details, 4);
    assert_int_equal(d.devices[0].details[1].obj_type, 0x9545);
    assert_int_equal(d.n_tags, 1);
    assert_string_equal(d.tags[0].string, "textures");
    assert_int_equal(d.ints_walked, 39);        /* the driver said 38: see the decoder */
    perfq_nvres_decoded_free(&d);
    const int32_t tag1[] = {3, 2, 1, 26, 6, 38, 61945, 510, 4, 5, 38210, 38212, 32, 16889, 5,
                            38210, 38213, 2, 8192, 5, 38210, 38214, 1, 16384, 5, 38210, 38215, 3,
                            20480, 1, 6, 2, 0, 2, 16384, 2, 1717990754, 7565925};
    assert_int_equal(perfq_nvres_report_decode(tag1, sizeof tag1 / sizeof tag1[0], &d), 0);
    assert_string_equal(d.tags[0].string, "buffers");
    assert_int_equal(d.tags[0].kib, 16384);
    perfq_nvres_decoded_free(&d);
    /* malformed streams */
    const int32_t bad_dev[] = {3, 2, 1, 99, 6, 0, 0, 0, 0};
    assert_int_equal(perfq_nvres_report_decode(bad_dev, 9, &d), -1);
    const int32_t bad_str[] = {3, 2, 0, 1, 6, 1, 0, 0, 0, 1, 0x41414141};
    assert_int_equal(perfq_nvres_report_decode(bad_str, 11, &d), -1);
    const int32_t bad_detail[] = {3, 2, 1, 11, 6, 0, 0, 0, 1, 4, 0, 0, 0, 0};
    assert_int_equal(perfq_nvres_report_decode(bad_detail, 14, &d), -1);
    assert_int_equal(perfq_nvres_report_decode(NULL, 0, &d), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_uncompressed_sizes),
        cmocka_unit_test(test_unsized_sizes),
        cmocka_unit_test(test_compressed_sizes),
        cmocka_unit_test(test_level_dims),
        cmocka_unit_test(test_issue_examples),
        cmocka_unit_test(test_shapes_in_engine),
        cmocka_unit_test(test_respecify_orphan_delete),
        cmocka_unit_test(test_generation),
        cmocka_unit_test(test_views_and_buffer_textures),
        cmocka_unit_test(test_table_stress),
        cmocka_unit_test(test_tag_ids),
        cmocka_unit_test(test_tags_in_reports),
        cmocka_unit_test(test_empty_report),
        cmocka_unit_test(test_decoder_roundtrip),
        cmocka_unit_test(test_decoder_on_driver_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
