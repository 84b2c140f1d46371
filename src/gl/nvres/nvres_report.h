/*
 * GL_NV_query_resource's report stream (QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV): the encoder the
 * entry point uses, and a decoder that walks any report by its embedded sizes (tests,
 * `perfq memory`). Layout, in GLints (the NVIDIA driver's, as it wrote it on an H200):
 *
 *   header  {3, 2, devCount}                 fixedBlkSize, version (the driver writes 2), devCount
 *   device  {devBlkSize, 6, numAllocs, vidmem, vidmemFree, detailCount}
 *           devBlkSize = 6 + 5 * detailCount
 *   detail  {5, memType, objType, numAllocs, vidmem}      one per object type in use
 *   tags    tagCount, then per tag {6, tagId, devId, numAllocs, vidmem, strInts} + strInts ints
 *           holding the NUL-terminated string, zero padded; absent when the query's tagId is 0
 *
 * Memory amounts are KiB. GL-independent.
 */
#ifndef PERFQ_GL_NVRES_REPORT_H
#define PERFQ_GL_NVRES_REPORT_H

#include <stddef.h>
#include <stdint.h>

#define PERFQ_NVRES_VERSION 2
#define PERFQ_NVRES_HEADER_INTS 3
#define PERFQ_NVRES_SUMMARY_INTS 6
#define PERFQ_NVRES_DETAIL_INTS 5
#define PERFQ_NVRES_TAG_INTS 6

/* Tokens of GL_NV_query_resource (glext.h values), repeated so that this file needs no GL. */
#define PERFQ_NVRES_MEMTYPE_VIDMEM 0x9542
#define PERFQ_NVRES_SYS_RESERVED 0x9544
#define PERFQ_NVRES_OBJ_TEXTURE 0x9545
#define PERFQ_NVRES_OBJ_RENDERBUFFER 0x9546
#define PERFQ_NVRES_OBJ_BUFFEROBJECT 0x9547

struct perfq_nvres_report_detail {
    int32_t obj_type;           /* PERFQ_NVRES_OBJ_* */
    int32_t allocs;
    int32_t kib;
};

struct perfq_nvres_report_tag {
    int32_t id;
    int32_t dev;
    int32_t allocs;
    int32_t kib;
    const char *string;         /* NULL or "": no string (strInts 0) */
};

/* One device's report (perfq accounts per share group: one device). */
struct perfq_nvres_report {
    int32_t vidmem_free_kib;
    int n_details;
    struct perfq_nvres_report_detail details[4];
    int has_tag_section;        /* 0 when the query's tagId was 0 */
    size_t n_tags;
    const struct perfq_nvres_report_tag *tags;
};

/* Ints the report takes. */
int64_t perfq_nvres_report_size(const struct perfq_nvres_report *r);
/* Writes the report into buf when buf != NULL and count >= its size; returns its size either
 * way (the caller compares). Never writes past count. Device numAllocs and vidmem are the sums
 * of the details. */
int64_t perfq_nvres_report_encode(const struct perfq_nvres_report *r, int32_t *buf,
                                  uint64_t count);

/* ---- Decoder ---- */
#define PERFQ_NVRES_DECODE_MAX_DEVICES 8
#define PERFQ_NVRES_DECODE_MAX_DETAILS 16
#define PERFQ_NVRES_DECODE_MAX_TAGS 4096
#define PERFQ_NVRES_DECODE_MAX_STRING 256

struct perfq_nvres_decoded_device {
    int32_t allocs, kib, free_kib;
    int n_details;
    struct perfq_nvres_report_detail details[PERFQ_NVRES_DECODE_MAX_DETAILS];
};

struct perfq_nvres_decoded_tag {
    int32_t id, dev, allocs, kib;
    int has_string;
    char string[PERFQ_NVRES_DECODE_MAX_STRING];     /* truncated if longer */
};

struct perfq_nvres_decoded {
    int32_t version;
    int n_devices;
    struct perfq_nvres_decoded_device devices[PERFQ_NVRES_DECODE_MAX_DEVICES];
    int has_tag_section;
    int n_tags;
    struct perfq_nvres_decoded_tag *tags;  /* malloc'ed (n_tags entries); perfq_nvres_decoded_free */
    size_t ints_walked;                    /* where the walk ended */
};

/* Walks the n ints of a report by the sizes it embeds (so that blocks larger than this decoder
 * knows are stepped over, as the spec intends). Returns 0, or -1 when the stream is malformed:
 * a size smaller than the fields it must hold, a block running past n, more entries than the
 * limits above. Ints after the walk are left alone (ints_walked says where it ended; perfq's own
 * reports end exactly at n). */
int perfq_nvres_report_decode(const int32_t *buf, size_t n, struct perfq_nvres_decoded *out);
void perfq_nvres_decoded_free(struct perfq_nvres_decoded *d);

#endif
