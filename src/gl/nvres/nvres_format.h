/*
 * Storage sizes of GL images, for GL_NV_query_resource's accounting: bytes of one image from its
 * internal format, dimensions and samples, and of a whole immutable storage (every level, every
 * face). GL-independent (token values only, no GL calls): unit-tested in tests/gl/test_nvres_engine.c.
 *
 * The rule (docs/nv-query-resource.md): an uncompressed texel takes the bits GL's format tables
 * give its components, rounded up to whole bytes (RGB8 3, RGB10_A2 4, DEPTH24_STENCIL8 4,
 * DEPTH32F_STENCIL8 5); a compressed format takes its block's bytes per block, partial blocks
 * counted whole. No driver padding, alignment or tiling is guessed.
 */
#ifndef PERFQ_GL_NVRES_FORMAT_H
#define PERFQ_GL_NVRES_FORMAT_H

#include <stdint.h>

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <GL/gl.h>
#include <GL/glext.h>

/* Levels an image table keeps per face: GL_MAX_TEXTURE_SIZE is at most 32768 on every driver
 * (16 levels); a level past this is refused by the driver before it reaches the accounting. */
#define PERFQ_NVRES_MAX_LEVELS 20

struct perfq_nvres_format {
    GLenum internal_format;
    uint16_t bits;              /* uncompressed: bits per texel (block 1x1x1) */
    uint8_t bw, bh, bd;         /* compressed: block dimensions in texels */
    uint8_t min_bw, min_bh;     /* compressed: least blocks per image (PVRTC: 2x2) */
    uint16_t block_bytes;       /* compressed: bytes per block; 0 for uncompressed formats */
};

/* How a texture target lays out its images (GL 4.6 section 8.5, 8.19). */
typedef enum perfq_nvres_shape {
    PERFQ_NVRES_SHAPE_NONE = 0, /* not a texture image target (proxy, buffer, unknown) */
    PERFQ_NVRES_SHAPE_1D,       /* width; levels halve it */
    PERFQ_NVRES_SHAPE_1D_ARRAY, /* width x layers(height); layers never halve */
    PERFQ_NVRES_SHAPE_2D,       /* 2D, rectangle, one cube face */
    PERFQ_NVRES_SHAPE_2D_ARRAY, /* width x height x layers(depth) */
    PERFQ_NVRES_SHAPE_3D,       /* all three halve */
    PERFQ_NVRES_SHAPE_CUBE,     /* a cube map as a whole (TexStorage2D): 6 faces of width x height */
    PERFQ_NVRES_SHAPE_CUBE_ARRAY, /* width x height x layer-faces(depth) */
    PERFQ_NVRES_SHAPE_2D_MS,    /* one level, x samples */
    PERFQ_NVRES_SHAPE_2D_MS_ARRAY,
} perfq_nvres_shape_t;

/* The format entry for a sized or compressed internal format, or for an unsized one
 * (GL_RGBA, GL_DEPTH_COMPONENT, legacy 1..4) resolved with the (format, type) of the upload as
 * GLES 3.0 table 3.3 does (type 0: 8 bits per component; depth 24 bits; depth-stencil 32).
 * Returns 1 and fills *out, or 0 for a format it does not know. */
int perfq_nvres_format_lookup(GLenum internal_format, GLenum format, GLenum type,
                              struct perfq_nvres_format *out);

/* Bytes of one image of w x h x d texels (d: depth or layers) with `samples` samples per texel
 * (0 counts as 1). Saturates at UINT64_MAX. */
uint64_t perfq_nvres_image_bytes(const struct perfq_nvres_format *f, uint64_t w, uint64_t h,
                                 uint64_t d, uint64_t samples);

/* The shape of a texture target as the target of TexImage* (a cube face is 2D) or of
 * TexStorage* (GL_TEXTURE_CUBE_MAP is CUBE). */
perfq_nvres_shape_t perfq_nvres_target_shape(GLenum target);

/* The face index (0..5) of a cube face target, else 0. */
int perfq_nvres_cube_face(GLenum target);

/* Dimensions of `level` for an image whose level 0 is w x h x d in that shape. */
void perfq_nvres_level_dims(perfq_nvres_shape_t shape, int level, uint64_t w, uint64_t h,
                            uint64_t d, uint64_t *lw, uint64_t *lh, uint64_t *ld);

/* Bytes of one face of level `level` of a storage (TexStorage*) in that shape; a CUBE storage
 * has 6 such faces. */
uint64_t perfq_nvres_storage_level_bytes(const struct perfq_nvres_format *f,
                                         perfq_nvres_shape_t shape, int level, uint64_t w,
                                         uint64_t h, uint64_t d, uint64_t samples);

/* Faces per level of a shape: 6 for CUBE, else 1. */
int perfq_nvres_shape_faces(perfq_nvres_shape_t shape);

#endif
