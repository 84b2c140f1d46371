/*
 * GL_NV_query_resource's report stream: encoder and decoder (layout in nvres_report.h).
 * Walking rules are the tag spec's "Stepping through the buffer": deviceBlk[0] = header +
 * fixedBlkSize; summary = deviceBlk; detailBlk[0] = summary + summaryBlkSize; detailBlk[j+1] =
 * detailBlk[j] + detailBlkSize; deviceBlk[i+1] = deviceBlk[i] + devBlkSize; tagCount =
 * deviceBlk[devCount]; tagRecord[0] = tagCount + 1. A tag record's size does not include its
 * string ints (the NVIDIA driver's records: size 6, then strlen ints).
 */
#include "gl/nvres/nvres_report.h"

#include <stdlib.h>
#include <string.h>

static int64_t string_ints(const char *s)
{
    if (!s || !*s)
        return 0;
    return (int64_t)((strlen(s) + 1 + 3) / 4);
}

int64_t perfq_nvres_report_size(const struct perfq_nvres_report *r)
{
    int64_t n = PERFQ_NVRES_HEADER_INTS + PERFQ_NVRES_SUMMARY_INTS +
                (int64_t)PERFQ_NVRES_DETAIL_INTS * r->n_details;
    if (r->has_tag_section) {
        n += 1;
        for (size_t i = 0; i < r->n_tags; i++)
            n += PERFQ_NVRES_TAG_INTS + string_ints(r->tags[i].string);
    }
    return n;
}

static int32_t clamp_add(int32_t a, int32_t b)
{
    int32_t r;
    if (__builtin_add_overflow(a, b, &r))
        return INT32_MAX;
    return r;
}

int64_t perfq_nvres_report_encode(const struct perfq_nvres_report *r, int32_t *buf,
                                  uint64_t count)
{
    int64_t size = perfq_nvres_report_size(r);
    if (!buf || count < (uint64_t)size)
        return size;
    int32_t allocs = 0, kib = 0;
    for (int j = 0; j < r->n_details; j++) {
        allocs = clamp_add(allocs, r->details[j].allocs);
        kib = clamp_add(kib, r->details[j].kib);
    }
    int32_t *p = buf;
    *p++ = PERFQ_NVRES_HEADER_INTS;
    *p++ = PERFQ_NVRES_VERSION;
    *p++ = 1;                               /* devCount: one device per share group */
    *p++ = PERFQ_NVRES_SUMMARY_INTS + PERFQ_NVRES_DETAIL_INTS * r->n_details;
    *p++ = PERFQ_NVRES_SUMMARY_INTS;
    *p++ = allocs;
    *p++ = kib;
    *p++ = r->vidmem_free_kib;
    *p++ = r->n_details;
    for (int j = 0; j < r->n_details; j++) {
        *p++ = PERFQ_NVRES_DETAIL_INTS;
        *p++ = PERFQ_NVRES_MEMTYPE_VIDMEM;
        *p++ = r->details[j].obj_type;
        *p++ = r->details[j].allocs;
        *p++ = r->details[j].kib;
    }
    if (r->has_tag_section) {
        *p++ = (int32_t)r->n_tags;
        for (size_t i = 0; i < r->n_tags; i++) {
            const struct perfq_nvres_report_tag *t = &r->tags[i];
            int64_t si = string_ints(t->string);
            *p++ = PERFQ_NVRES_TAG_INTS;
            *p++ = t->id;
            *p++ = t->dev;
            *p++ = t->allocs;
            *p++ = t->kib;
            *p++ = (int32_t)si;
            if (si) {
                /* The string, NUL-terminated and zero padded to whole ints. */
                memset(p, 0, (size_t)si * sizeof *p);
                memcpy(p, t->string, strlen(t->string));
                p += si;
            }
        }
    }
    return size;
}

/* ---- Decoder ---- */

int perfq_nvres_report_decode(const int32_t *buf, size_t n, struct perfq_nvres_decoded *out)
{
    memset(out, 0, sizeof *out);
    if (!buf || n < 3)
        return -1;
    int32_t fixed = buf[0];
    if (fixed < 3 || (size_t)fixed > n)
        return -1;
    out->version = buf[1];
    int32_t dev_count = buf[2];
    if (dev_count < 0 || dev_count > PERFQ_NVRES_DECODE_MAX_DEVICES)
        return -1;
    size_t pos = (size_t)fixed;
    for (int i = 0; i < dev_count; i++) {
        if (pos + 2 > n)
            return -1;
        size_t dev = pos;
        int32_t dev_size = buf[dev];
        int32_t summary = buf[dev + 1];
        if (summary < 6 || dev_size < summary || dev + (size_t)dev_size > n)
            return -1;
        struct perfq_nvres_decoded_device *d = &out->devices[i];
        d->allocs = buf[dev + 2];
        d->kib = buf[dev + 3];
        d->free_kib = buf[dev + 4];
        int32_t details = buf[dev + 5];
        if (details < 0 || details > PERFQ_NVRES_DECODE_MAX_DETAILS)
            return -1;
        size_t q = dev + (size_t)summary;
        size_t end = dev + (size_t)dev_size;
        for (int j = 0; j < details; j++) {
            if (q + 1 > end)
                return -1;
            int32_t dsize = buf[q];
            if (dsize < 5 || q + (size_t)dsize > end)
                return -1;
            d->details[j].obj_type = buf[q + 2];
            d->details[j].allocs = buf[q + 3];
            d->details[j].kib = buf[q + 4];
            /* memType buf[q + 1]: only MEMTYPE_VIDMEM exists; kept out of the struct. */
            q += (size_t)dsize;
        }
        d->n_details = details;
        pos = end;
        out->n_devices = i + 1;
    }
    if (pos == n) {
        out->ints_walked = pos;
        return 0;                           /* tagId 0: no tag section */
    }
    out->has_tag_section = 1;
    int32_t tag_count = buf[pos++];
    if (tag_count < 0 || tag_count > PERFQ_NVRES_DECODE_MAX_TAGS)
        return -1;
    if (tag_count) {
        out->tags = calloc((size_t)tag_count, sizeof *out->tags);
        if (!out->tags)
            return -1;
    }
    for (int k = 0; k < tag_count; k++) {
        if (pos + 6 > n)
            goto bad;
        int32_t rsize = buf[pos];
        int32_t str_ints = buf[pos + 5];
        if (rsize < 6 || str_ints < 0 || pos + (size_t)rsize + (size_t)str_ints > n)
            goto bad;
        struct perfq_nvres_decoded_tag *t = &out->tags[k];
        t->id = buf[pos + 1];
        t->dev = buf[pos + 2];
        t->allocs = buf[pos + 3];
        t->kib = buf[pos + 4];
        if (str_ints) {
            const char *s = (const char *)&buf[pos + (size_t)rsize];
            size_t max = (size_t)str_ints * 4;
            size_t len = strnlen(s, max);
            if (len == max)
                goto bad;                   /* not NUL-terminated within its ints */
            t->has_string = 1;
            size_t copy = len < sizeof t->string - 1 ? len : sizeof t->string - 1;
            memcpy(t->string, s, copy);
            t->string[copy] = '\0';
        }
        pos += (size_t)rsize + (size_t)str_ints;
        out->n_tags = k + 1;
    }
    /* Ints past the walk are not an error: the NVIDIA driver's return value counts one int more
     * than it writes after a tag record (its output on an H200). Callers compare ints_walked. */
    out->ints_walked = pos;
    return 0;
bad:
    perfq_nvres_decoded_free(out);
    return -1;
}

void perfq_nvres_decoded_free(struct perfq_nvres_decoded *d)
{
    if (!d)
        return;
    free(d->tags);
    d->tags = NULL;
    d->n_tags = 0;
}
