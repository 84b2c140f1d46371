/*
 * Storage sizes of GL images from internal format, dimensions and samples (see nvres_format.h
 * for the rule). The format list is data: every sized format of GL 4.6 tables 8.12/8.13 and
 * GLES 3.2 table 8.10, the compatibility-profile legacy formats, and every compressed format
 * GL and GLES define (S3TC, RGTC, LATC, 3Dc, BPTC, FXT1, ETC1, ETC2/EAC, ASTC 2D and 3D, PVRTC,
 * ATC).
 */
#include "gl/nvres/nvres_format.h"

#include <stddef.h>

/* GLES-only tokens that GL/glext.h lacks (values from GLES2/gl2ext.h). */
#define NV_ETC1_RGB8_OES 0x8D64
#define NV_PVRTC_RGB_4BPP 0x8C00
#define NV_PVRTC_RGB_2BPP 0x8C01
#define NV_PVRTC_RGBA_4BPP 0x8C02
#define NV_PVRTC_RGBA_2BPP 0x8C03
#define NV_PVRTC2_RGBA_2BPP 0x9137
#define NV_PVRTC2_RGBA_4BPP 0x9138
#define NV_PVRTC_SRGB_2BPP 0x8A54
#define NV_PVRTC_SRGB_4BPP 0x8A55
#define NV_PVRTC_SRGB_ALPHA_2BPP 0x8A56
#define NV_PVRTC_SRGB_ALPHA_4BPP 0x8A57
#define NV_ATC_RGB_AMD 0x8C92
#define NV_ATC_RGBA_EXPLICIT_AMD 0x8C93
#define NV_ATC_RGBA_INTERPOLATED_AMD 0x87EE
#define NV_3DC_X_AMD 0x87F9
#define NV_3DC_XY_AMD 0x87FA
#define NV_ASTC_3D_RGBA_FIRST 0x93C0   /* GL_COMPRESSED_RGBA_ASTC_3x3x3_OES .. 6x6x6 (0x93C9) */
#define NV_ASTC_3D_SRGB_FIRST 0x93E0   /* GL_COMPRESSED_SRGB8_ALPHA8_ASTC_3x3x3_OES .. (0x93E9) */
#define NV_BGRA8_EXT 0x93A1            /* GLES EXT_texture_storage + BGRA8888 */
#define NV_R16_EXT 0x822A              /* same values as desktop; listed for clarity */

#define U(fmt, b) {fmt, b, 1, 1, 1, 1, 1, 0}
#define C(fmt, w, h, bytes) {fmt, 0, w, h, 1, 1, 1, bytes}

static const struct perfq_nvres_format formats[] = {
    /* Color, normalized (GL 4.6 table 8.12) */
    U(GL_R8, 8), U(GL_R8_SNORM, 8), U(GL_R16, 16), U(GL_R16_SNORM, 16),
    U(GL_RG8, 16), U(GL_RG8_SNORM, 16), U(GL_RG16, 32), U(GL_RG16_SNORM, 32),
    U(GL_R3_G3_B2, 8), U(GL_RGB4, 12), U(GL_RGB5, 15), U(GL_RGB565, 16),
    U(GL_RGB8, 24), U(GL_RGB8_SNORM, 24), U(GL_RGB10, 30), U(GL_RGB12, 36),
    U(GL_RGB16, 48), U(GL_RGB16_SNORM, 48), U(GL_RGBA2, 8), U(GL_RGBA4, 16),
    U(GL_RGB5_A1, 16), U(GL_RGBA8, 32), U(GL_RGBA8_SNORM, 32), U(GL_RGB10_A2, 32),
    U(GL_RGB10_A2UI, 32), U(GL_RGBA12, 48), U(GL_RGBA16, 64), U(GL_RGBA16_SNORM, 64),
    U(GL_SRGB8, 24), U(GL_SRGB8_ALPHA8, 32), U(GL_SR8_EXT, 8), U(GL_SRG8_EXT, 16),
    U(NV_BGRA8_EXT, 32),
    /* Color, float */
    U(GL_R16F, 16), U(GL_RG16F, 32), U(GL_RGB16F, 48), U(GL_RGBA16F, 64),
    U(GL_R32F, 32), U(GL_RG32F, 64), U(GL_RGB32F, 96), U(GL_RGBA32F, 128),
    U(GL_R11F_G11F_B10F, 32), U(GL_RGB9_E5, 32),
    /* Color, integer */
    U(GL_R8I, 8), U(GL_R8UI, 8), U(GL_R16I, 16), U(GL_R16UI, 16), U(GL_R32I, 32),
    U(GL_R32UI, 32), U(GL_RG8I, 16), U(GL_RG8UI, 16), U(GL_RG16I, 32), U(GL_RG16UI, 32),
    U(GL_RG32I, 64), U(GL_RG32UI, 64), U(GL_RGB8I, 24), U(GL_RGB8UI, 24), U(GL_RGB16I, 48),
    U(GL_RGB16UI, 48), U(GL_RGB32I, 96), U(GL_RGB32UI, 96), U(GL_RGBA8I, 32),
    U(GL_RGBA8UI, 32), U(GL_RGBA16I, 64), U(GL_RGBA16UI, 64), U(GL_RGBA32I, 128),
    U(GL_RGBA32UI, 128),
    /* Depth and stencil (table 8.13) */
    U(GL_DEPTH_COMPONENT16, 16), U(GL_DEPTH_COMPONENT24, 24), U(GL_DEPTH_COMPONENT32, 32),
    U(GL_DEPTH_COMPONENT32F, 32), U(GL_DEPTH24_STENCIL8, 32), U(GL_DEPTH32F_STENCIL8, 40),
    U(GL_STENCIL_INDEX1, 1), U(GL_STENCIL_INDEX4, 4), U(GL_STENCIL_INDEX8, 8),
    U(GL_STENCIL_INDEX16, 16),
    /* Compatibility-profile sized formats (GL 4.6 compatibility table 8.14) */
    U(GL_ALPHA4, 4), U(GL_ALPHA8, 8), U(GL_ALPHA12, 12), U(GL_ALPHA16, 16),
    U(GL_LUMINANCE4, 4), U(GL_LUMINANCE8, 8), U(GL_LUMINANCE12, 12), U(GL_LUMINANCE16, 16),
    U(GL_LUMINANCE4_ALPHA4, 8), U(GL_LUMINANCE6_ALPHA2, 8), U(GL_LUMINANCE8_ALPHA8, 16),
    U(GL_LUMINANCE12_ALPHA4, 16), U(GL_LUMINANCE12_ALPHA12, 24),
    U(GL_LUMINANCE16_ALPHA16, 32), U(GL_INTENSITY4, 4), U(GL_INTENSITY8, 8),
    U(GL_INTENSITY12, 12), U(GL_INTENSITY16, 16), U(GL_SLUMINANCE8, 8),
    U(GL_SLUMINANCE8_ALPHA8, 16),
    /* ARB_texture_float legacy formats */
    U(GL_ALPHA32F_ARB, 32), U(GL_INTENSITY32F_ARB, 32), U(GL_LUMINANCE32F_ARB, 32),
    U(GL_LUMINANCE_ALPHA32F_ARB, 64), U(GL_ALPHA16F_ARB, 16), U(GL_INTENSITY16F_ARB, 16),
    U(GL_LUMINANCE16F_ARB, 16), U(GL_LUMINANCE_ALPHA16F_ARB, 32),
    /* S3TC (EXT_texture_compression_s3tc, EXT_texture_sRGB) */
    C(GL_COMPRESSED_RGB_S3TC_DXT1_EXT, 4, 4, 8), C(GL_COMPRESSED_RGBA_S3TC_DXT1_EXT, 4, 4, 8),
    C(GL_COMPRESSED_RGBA_S3TC_DXT3_EXT, 4, 4, 16), C(GL_COMPRESSED_RGBA_S3TC_DXT5_EXT, 4, 4, 16),
    C(GL_COMPRESSED_SRGB_S3TC_DXT1_EXT, 4, 4, 8),
    C(GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT1_EXT, 4, 4, 8),
    C(GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT3_EXT, 4, 4, 16),
    C(GL_COMPRESSED_SRGB_ALPHA_S3TC_DXT5_EXT, 4, 4, 16),
    /* RGTC, LATC, 3Dc */
    C(GL_COMPRESSED_RED_RGTC1, 4, 4, 8), C(GL_COMPRESSED_SIGNED_RED_RGTC1, 4, 4, 8),
    C(GL_COMPRESSED_RG_RGTC2, 4, 4, 16), C(GL_COMPRESSED_SIGNED_RG_RGTC2, 4, 4, 16),
    C(GL_COMPRESSED_LUMINANCE_LATC1_EXT, 4, 4, 8),
    C(GL_COMPRESSED_SIGNED_LUMINANCE_LATC1_EXT, 4, 4, 8),
    C(GL_COMPRESSED_LUMINANCE_ALPHA_LATC2_EXT, 4, 4, 16),
    C(GL_COMPRESSED_SIGNED_LUMINANCE_ALPHA_LATC2_EXT, 4, 4, 16),
    C(NV_3DC_X_AMD, 4, 4, 8), C(NV_3DC_XY_AMD, 4, 4, 16),
    /* BPTC */
    C(GL_COMPRESSED_RGBA_BPTC_UNORM, 4, 4, 16), C(GL_COMPRESSED_SRGB_ALPHA_BPTC_UNORM, 4, 4, 16),
    C(GL_COMPRESSED_RGB_BPTC_SIGNED_FLOAT, 4, 4, 16),
    C(GL_COMPRESSED_RGB_BPTC_UNSIGNED_FLOAT, 4, 4, 16),
    /* FXT1 */
    C(GL_COMPRESSED_RGB_FXT1_3DFX, 8, 4, 16), C(GL_COMPRESSED_RGBA_FXT1_3DFX, 8, 4, 16),
    /* ETC1, ETC2/EAC */
    C(NV_ETC1_RGB8_OES, 4, 4, 8),
    C(GL_COMPRESSED_R11_EAC, 4, 4, 8), C(GL_COMPRESSED_SIGNED_R11_EAC, 4, 4, 8),
    C(GL_COMPRESSED_RG11_EAC, 4, 4, 16), C(GL_COMPRESSED_SIGNED_RG11_EAC, 4, 4, 16),
    C(GL_COMPRESSED_RGB8_ETC2, 4, 4, 8), C(GL_COMPRESSED_SRGB8_ETC2, 4, 4, 8),
    C(GL_COMPRESSED_RGB8_PUNCHTHROUGH_ALPHA1_ETC2, 4, 4, 8),
    C(GL_COMPRESSED_SRGB8_PUNCHTHROUGH_ALPHA1_ETC2, 4, 4, 8),
    C(GL_COMPRESSED_RGBA8_ETC2_EAC, 4, 4, 16), C(GL_COMPRESSED_SRGB8_ALPHA8_ETC2_EAC, 4, 4, 16),
    /* ASTC 2D (KHR_texture_compression_astc_ldr/hdr): 16 bytes per block */
    C(GL_COMPRESSED_RGBA_ASTC_4x4_KHR, 4, 4, 16), C(GL_COMPRESSED_RGBA_ASTC_5x4_KHR, 5, 4, 16),
    C(GL_COMPRESSED_RGBA_ASTC_5x5_KHR, 5, 5, 16), C(GL_COMPRESSED_RGBA_ASTC_6x5_KHR, 6, 5, 16),
    C(GL_COMPRESSED_RGBA_ASTC_6x6_KHR, 6, 6, 16), C(GL_COMPRESSED_RGBA_ASTC_8x5_KHR, 8, 5, 16),
    C(GL_COMPRESSED_RGBA_ASTC_8x6_KHR, 8, 6, 16), C(GL_COMPRESSED_RGBA_ASTC_8x8_KHR, 8, 8, 16),
    C(GL_COMPRESSED_RGBA_ASTC_10x5_KHR, 10, 5, 16),
    C(GL_COMPRESSED_RGBA_ASTC_10x6_KHR, 10, 6, 16),
    C(GL_COMPRESSED_RGBA_ASTC_10x8_KHR, 10, 8, 16),
    C(GL_COMPRESSED_RGBA_ASTC_10x10_KHR, 10, 10, 16),
    C(GL_COMPRESSED_RGBA_ASTC_12x10_KHR, 12, 10, 16),
    C(GL_COMPRESSED_RGBA_ASTC_12x12_KHR, 12, 12, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_4x4_KHR, 4, 4, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_5x4_KHR, 5, 4, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_5x5_KHR, 5, 5, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_6x5_KHR, 6, 5, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_6x6_KHR, 6, 6, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x5_KHR, 8, 5, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x6_KHR, 8, 6, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_8x8_KHR, 8, 8, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x5_KHR, 10, 5, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x6_KHR, 10, 6, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x8_KHR, 10, 8, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_10x10_KHR, 10, 10, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_12x10_KHR, 12, 10, 16),
    C(GL_COMPRESSED_SRGB8_ALPHA8_ASTC_12x12_KHR, 12, 12, 16),
    /* PVRTC (IMG_texture_compression_pvrtc, EXT_pvrtc_sRGB): an image is at least 2x2 blocks;
     * PVRTC2 (IMG_texture_compression_pvrtc2) has no such minimum. */
    {NV_PVRTC_RGB_4BPP, 0, 4, 4, 1, 2, 2, 8}, {NV_PVRTC_RGBA_4BPP, 0, 4, 4, 1, 2, 2, 8},
    {NV_PVRTC_RGB_2BPP, 0, 8, 4, 1, 2, 2, 8}, {NV_PVRTC_RGBA_2BPP, 0, 8, 4, 1, 2, 2, 8},
    {NV_PVRTC_SRGB_4BPP, 0, 4, 4, 1, 2, 2, 8}, {NV_PVRTC_SRGB_ALPHA_4BPP, 0, 4, 4, 1, 2, 2, 8},
    {NV_PVRTC_SRGB_2BPP, 0, 8, 4, 1, 2, 2, 8}, {NV_PVRTC_SRGB_ALPHA_2BPP, 0, 8, 4, 1, 2, 2, 8},
    C(NV_PVRTC2_RGBA_2BPP, 8, 4, 8), C(NV_PVRTC2_RGBA_4BPP, 4, 4, 8),
    /* ATC (AMD_compressed_ATC_texture) */
    C(NV_ATC_RGB_AMD, 4, 4, 8), C(NV_ATC_RGBA_EXPLICIT_AMD, 4, 4, 16),
    C(NV_ATC_RGBA_INTERPOLATED_AMD, 4, 4, 16),
};
#undef U
#undef C

/* ASTC 3D (OES_texture_compression_astc): 10 block sizes in this order, RGBA then sRGB. */
static const uint8_t astc3d[10][3] = {
    {3, 3, 3}, {4, 3, 3}, {4, 4, 3}, {4, 4, 4}, {5, 4, 4},
    {5, 5, 4}, {5, 5, 5}, {6, 5, 5}, {6, 6, 5}, {6, 6, 6},
};

/* Components of an unsized (base) internal format; 0 for anything else. Legacy 1..4 are the
 * compatibility profile's component counts. */
static int base_components(GLenum f)
{
    switch (f) {
    case 1: case GL_RED: case GL_ALPHA: case GL_LUMINANCE: case GL_INTENSITY:
    case GL_SLUMINANCE: case GL_DEPTH_COMPONENT: case GL_STENCIL_INDEX:
    case GL_COMPRESSED_RED: case GL_COMPRESSED_ALPHA: case GL_COMPRESSED_LUMINANCE:
    case GL_COMPRESSED_INTENSITY: case GL_COMPRESSED_SLUMINANCE:
        return 1;
    case 2: case GL_RG: case GL_LUMINANCE_ALPHA: case GL_SLUMINANCE_ALPHA:
    case GL_COMPRESSED_RG: case GL_COMPRESSED_LUMINANCE_ALPHA:
    case GL_COMPRESSED_SLUMINANCE_ALPHA:
        return 2;
    case 3: case GL_RGB: case GL_SRGB: case GL_COMPRESSED_RGB: case GL_COMPRESSED_SRGB:
        return 3;
    case 4: case GL_RGBA: case GL_BGRA: case GL_SRGB_ALPHA: case GL_COMPRESSED_RGBA:
    case GL_COMPRESSED_SRGB_ALPHA:
        return 4;
    default:
        return 0;
    }
}

/* Bits of one texel of client data of `type` with n components; 0 if the type is unknown. */
static unsigned type_texel_bits(GLenum type, int n)
{
    switch (type) {
    case GL_UNSIGNED_BYTE: case GL_BYTE:
        return 8u * (unsigned)n;
    case GL_UNSIGNED_SHORT: case GL_SHORT: case GL_HALF_FLOAT: case 0x8D61 /* HALF_FLOAT_OES */:
        return 16u * (unsigned)n;
    case GL_UNSIGNED_INT: case GL_INT: case GL_FLOAT:
        return 32u * (unsigned)n;
    case GL_UNSIGNED_BYTE_3_3_2: case GL_UNSIGNED_BYTE_2_3_3_REV:
        return 8;
    case GL_UNSIGNED_SHORT_5_6_5: case GL_UNSIGNED_SHORT_5_6_5_REV:
    case GL_UNSIGNED_SHORT_4_4_4_4: case GL_UNSIGNED_SHORT_4_4_4_4_REV:
    case GL_UNSIGNED_SHORT_5_5_5_1: case GL_UNSIGNED_SHORT_1_5_5_5_REV:
        return 16;
    case GL_UNSIGNED_INT_8_8_8_8: case GL_UNSIGNED_INT_8_8_8_8_REV:
    case GL_UNSIGNED_INT_10_10_10_2: case GL_UNSIGNED_INT_2_10_10_10_REV:
    case GL_UNSIGNED_INT_24_8: case GL_UNSIGNED_INT_10F_11F_11F_REV:
    case GL_UNSIGNED_INT_5_9_9_9_REV:
        return 32;
    case GL_FLOAT_32_UNSIGNED_INT_24_8_REV:
        return 64;
    default:
        return 0;
    }
}

int perfq_nvres_format_lookup(GLenum internal_format, GLenum format, GLenum type,
                              struct perfq_nvres_format *out)
{
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
        if (formats[i].internal_format == internal_format) {
            *out = formats[i];
            return 1;
        }
    }
    if ((internal_format >= NV_ASTC_3D_RGBA_FIRST && internal_format < NV_ASTC_3D_RGBA_FIRST + 10) ||
        (internal_format >= NV_ASTC_3D_SRGB_FIRST && internal_format < NV_ASTC_3D_SRGB_FIRST + 10)) {
        unsigned k = internal_format - (internal_format >= NV_ASTC_3D_SRGB_FIRST
                                            ? NV_ASTC_3D_SRGB_FIRST : NV_ASTC_3D_RGBA_FIRST);
        *out = (struct perfq_nvres_format){internal_format, 0, astc3d[k][0], astc3d[k][1],
                                            astc3d[k][2], 1, 1, 16};
        return 1;
    }
    if (internal_format == GL_DEPTH_STENCIL) {
        /* The only types DEPTH_STENCIL data has: 24_8 (32 bits), 32F_24_8_REV (64 bits). */
        unsigned bits = type == GL_FLOAT_32_UNSIGNED_INT_24_8_REV ? 64 : 32;
        *out = (struct perfq_nvres_format){internal_format, (uint16_t)bits, 1, 1, 1, 1, 1, 0};
        return 1;
    }
    int n = base_components(internal_format);
    if (n == 0)
        return 0;
    /* GL_BGRA as internal format (GLES EXT_texture_format_BGRA8888) is always 8-bit. */
    unsigned bits = internal_format == GL_BGRA ? 32 : type_texel_bits(type, n);
    if (bits == 0) {
        /* No client type (renderbuffers, TexStorage never takes unsized formats): 8 bits per
         * component, 24 for depth. */
        bits = internal_format == GL_DEPTH_COMPONENT ? 24 : 8u * (unsigned)n;
    }
    (void)format;
    *out = (struct perfq_nvres_format){internal_format, (uint16_t)bits, 1, 1, 1, 1, 1, 0};
    return 1;
}

static uint64_t mul_sat(uint64_t a, uint64_t b)
{
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        return UINT64_MAX;
    return r;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
    return a / b + (a % b != 0);
}

uint64_t perfq_nvres_image_bytes(const struct perfq_nvres_format *f, uint64_t w, uint64_t h,
                                 uint64_t d, uint64_t samples)
{
    if (samples == 0)
        samples = 1;
    if (w == 0 || h == 0 || d == 0)
        return 0;
    uint64_t per;
    uint64_t n;
    if (f->block_bytes) {
        uint64_t bx = ceil_div(w, f->bw), by = ceil_div(h, f->bh), bz = ceil_div(d, f->bd);
        if (bx < f->min_bw)
            bx = f->min_bw;
        if (by < f->min_bh)
            by = f->min_bh;
        n = mul_sat(mul_sat(bx, by), bz);
        per = f->block_bytes;
    } else {
        n = mul_sat(mul_sat(w, h), d);
        per = ceil_div(f->bits, 8);
    }
    return mul_sat(mul_sat(n, per), samples);
}

perfq_nvres_shape_t perfq_nvres_target_shape(GLenum target)
{
    switch (target) {
    case GL_TEXTURE_1D:
        return PERFQ_NVRES_SHAPE_1D;
    case GL_TEXTURE_1D_ARRAY:
        return PERFQ_NVRES_SHAPE_1D_ARRAY;
    case GL_TEXTURE_2D: case GL_TEXTURE_RECTANGLE:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_X: case GL_TEXTURE_CUBE_MAP_NEGATIVE_X:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_Y: case GL_TEXTURE_CUBE_MAP_NEGATIVE_Y:
    case GL_TEXTURE_CUBE_MAP_POSITIVE_Z: case GL_TEXTURE_CUBE_MAP_NEGATIVE_Z:
    case 0x8D65 /* GL_TEXTURE_EXTERNAL_OES: no storage the program sizes, but never reached */:
        return PERFQ_NVRES_SHAPE_2D;
    case GL_TEXTURE_2D_ARRAY:
        return PERFQ_NVRES_SHAPE_2D_ARRAY;
    case GL_TEXTURE_3D:
        return PERFQ_NVRES_SHAPE_3D;
    case GL_TEXTURE_CUBE_MAP:
        return PERFQ_NVRES_SHAPE_CUBE;
    case GL_TEXTURE_CUBE_MAP_ARRAY:
        return PERFQ_NVRES_SHAPE_CUBE_ARRAY;
    case GL_TEXTURE_2D_MULTISAMPLE:
        return PERFQ_NVRES_SHAPE_2D_MS;
    case GL_TEXTURE_2D_MULTISAMPLE_ARRAY:
        return PERFQ_NVRES_SHAPE_2D_MS_ARRAY;
    default:
        return PERFQ_NVRES_SHAPE_NONE;      /* proxies among them: they allocate nothing */
    }
}

int perfq_nvres_cube_face(GLenum target)
{
    if (target >= GL_TEXTURE_CUBE_MAP_POSITIVE_X && target <= GL_TEXTURE_CUBE_MAP_NEGATIVE_Z)
        return (int)(target - GL_TEXTURE_CUBE_MAP_POSITIVE_X);
    return 0;
}

static uint64_t halve(uint64_t v, int level)
{
    v = level >= 64 ? 0 : v >> level;
    return v ? v : 1;
}

void perfq_nvres_level_dims(perfq_nvres_shape_t shape, int level, uint64_t w, uint64_t h,
                            uint64_t d, uint64_t *lw, uint64_t *lh, uint64_t *ld)
{
    *lw = halve(w, level);
    *lh = h;
    *ld = d;
    switch (shape) {
    case PERFQ_NVRES_SHAPE_1D:
        *lh = 1;
        *ld = 1;
        break;
    case PERFQ_NVRES_SHAPE_1D_ARRAY:
        *ld = 1;                            /* height is layers: never halved */
        break;
    case PERFQ_NVRES_SHAPE_2D: case PERFQ_NVRES_SHAPE_CUBE:
    case PERFQ_NVRES_SHAPE_2D_MS:
        *lh = halve(h, level);
        *ld = 1;
        break;
    case PERFQ_NVRES_SHAPE_2D_ARRAY: case PERFQ_NVRES_SHAPE_CUBE_ARRAY:
    case PERFQ_NVRES_SHAPE_2D_MS_ARRAY:
        *lh = halve(h, level);              /* depth is layers (layer-faces): never halved */
        break;
    case PERFQ_NVRES_SHAPE_3D:
        *lh = halve(h, level);
        *ld = halve(d, level);
        break;
    default:
        break;
    }
}

int perfq_nvres_shape_faces(perfq_nvres_shape_t shape)
{
    return shape == PERFQ_NVRES_SHAPE_CUBE ? 6 : 1;
}

uint64_t perfq_nvres_storage_level_bytes(const struct perfq_nvres_format *f,
                                         perfq_nvres_shape_t shape, int level, uint64_t w,
                                         uint64_t h, uint64_t d, uint64_t samples)
{
    uint64_t lw, lh, ld;
    perfq_nvres_level_dims(shape, level, w, h, d, &lw, &lh, &ld);
    if (shape != PERFQ_NVRES_SHAPE_2D_MS && shape != PERFQ_NVRES_SHAPE_2D_MS_ARRAY)
        samples = 1;
    return perfq_nvres_image_bytes(f, lw, lh, ld, samples);
}
