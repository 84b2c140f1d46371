/*
 * GL_NV_query_resource's accounting engine: one table per share group of the GL objects that hold
 * storage (textures, renderbuffers, buffer objects), their sizes, and the resource tags of
 * GL_NV_query_resource_tag. GL-independent: the GL layer's observers (nv_query_resource_observe.c)
 * tell it what the program allocated and freed; the entry points (nv_query_resource.c) ask it for
 * reports. Unit-tested without GL in tests/gl/test_nvres_engine.c.
 *
 * Rules (docs/nv-query-resource.md):
 * - An object is one allocation while it holds storage (more than 0 bytes); its KiB are its
 *   bytes rounded up to whole KiB, per object. Totals (per type, per tag, per device) are sums of
 *   the objects' KiB, so every total of a report is the sum of its parts.
 * - A texture's bytes are the sum of its images (every level of every face). A texture view and
 *   a buffer texture hold no storage of their own (no double counting); when a texture that views
 *   share is deleted, its storage passes to one of the views, as GL keeps it alive.
 * - An object belongs to the tag that was current when its storage was last specified.
 * - Tag ids are 1, 2, 3, ... per share group, never reused. A tag acquires state (and is
 *   reported) at its first glQueryResourceTagNV; a deleted tag is never reported again, though
 *   its objects still count in the totals.
 *
 * Threads: every function locks the group; any thread may call.
 */
#ifndef PERFQ_GL_NVRES_ACCOUNTING_H
#define PERFQ_GL_NVRES_ACCOUNTING_H

#include <stddef.h>
#include <stdint.h>

#include "gl/nvres/nvres_format.h"
#include "gl/nvres/nvres_report.h"
#include "perfq/perfq.h"

typedef enum perfq_nvres_type {
    PERFQ_NVRES_TEXTURE = 0,
    PERFQ_NVRES_RENDERBUFFER = 1,
    PERFQ_NVRES_BUFFER = 2,
} perfq_nvres_type_t;
#define PERFQ_NVRES_NTYPES 3

struct perfq_nvres_group;

struct perfq_nvres_group *perfq_nvres_group_new(void);
/* Frees the group and every object and tag in it (the share group's last context is gone). */
void perfq_nvres_group_free(struct perfq_nvres_group *g);

/* ---- Textures ---- */
/* One image (face, level) of texture `name` now holds `bytes` (TexImage*, CompressedTexImage*,
 * CopyTexImage*). face: 0..5 for a cube map face target, -1 for every other target. `fmt` and
 * the dimensions are kept for level 0 so that GenerateMipmap can size the chain; fmt may be NULL
 * (a compressed upload sized by imageSize). Returns the group's generation after the change, or
 * 0 when nothing was set (a view, out of memory, a level out of range). */
uint64_t perfq_nvres_texture_image(struct perfq_nvres_group *g, uint32_t name, int face,
                                   int level, uint64_t bytes,
                                   const struct perfq_nvres_format *fmt,
                                   perfq_nvres_shape_t shape, uint64_t w, uint64_t h, uint64_t d,
                                   int32_t tag);
/* Immutable storage (TexStorage*, TextureStorage*): every image replaced by `levels` levels of
 * the shape (6 faces for a cube map). */
void perfq_nvres_texture_storage(struct perfq_nvres_group *g, uint32_t name,
                                 const struct perfq_nvres_format *fmt, perfq_nvres_shape_t shape,
                                 int levels, uint64_t w, uint64_t h, uint64_t d, uint64_t samples,
                                 int32_t tag);
/* GenerateMipmap: levels 1..max of every face with a level 0, from level 0's format and size.
 * Nothing happens when level 0's format is unknown. */
void perfq_nvres_texture_generate_mipmap(struct perfq_nvres_group *g, uint32_t name, int32_t tag);
/* TextureView: `name` shares `origin`'s storage and holds none itself. */
void perfq_nvres_texture_view(struct perfq_nvres_group *g, uint32_t name, uint32_t origin);
/* CreateTextures: `name` was created for `target` (kept for TextureStorage* calls whose target
 * the driver does not report); perfq_nvres_texture_target returns it, or 0. */
void perfq_nvres_texture_created(struct perfq_nvres_group *g, uint32_t name, uint32_t target);
uint32_t perfq_nvres_texture_target(struct perfq_nvres_group *g, uint32_t name);
/* TexBuffer / TextureBuffer: the texture's storage is a buffer object's (counted there). */
void perfq_nvres_texture_buffer(struct perfq_nvres_group *g, uint32_t name);

/* ---- Renderbuffers and buffer objects ---- */
/* Both return the group's generation after the change, or 0 when nothing was set (out of
 * memory). */
uint64_t perfq_nvres_renderbuffer_storage(struct perfq_nvres_group *g, uint32_t name,
                                          uint64_t bytes, int32_t tag);
/* BufferData (re-specification and orphaning replace the old store), BufferStorage. */
uint64_t perfq_nvres_buffer_storage(struct perfq_nvres_group *g, uint32_t name, uint64_t bytes,
                                    int32_t tag);

/* The generation: a number that every change of any object of the group (storage, views,
 * deletion) raises, read without the lock. A caller that made a change and was returned
 * generation G knows, while the generation still reads G, that no object changed since: setting
 * the same object to the same storage again would change nothing (the observer's fast path,
 * nv_query_resource_observe.c). */
uint64_t perfq_nvres_group_generation(struct perfq_nvres_group *g);
/* Where the generation is, for a reader that loads it itself (atomically, acquire): the GL
 * layer's repeat record (perfq_gl_object_repeatable). */
const uint64_t *perfq_nvres_group_generation_word(const struct perfq_nvres_group *g);

/* Delete*: the object of that type and name is gone (unknown names are ignored). */
void perfq_nvres_delete(struct perfq_nvres_group *g, perfq_nvres_type_t type, uint32_t name);

/* ---- Tags (GL_NV_query_resource_tag) ---- */
/* Reserves n new ids (1, 2, 3, ... never reused). PERFQ_ENOMEM (nothing reserved) when memory or
 * the id space runs out. */
perfq_status_t perfq_nvres_tags_gen(struct perfq_nvres_group *g, int n, int32_t *ids);
/* Deletes the ids; unused ids and 0 are ignored. */
void perfq_nvres_tags_delete(struct perfq_nvres_group *g, int n, const int32_t *ids);
/* 1 if id was generated and not deleted. */
int perfq_nvres_tag_valid(struct perfq_nvres_group *g, int32_t id);
/* QueryResourceTagNV on a valid id: the tag acquires state; a non-NULL string replaces its string
 * (NULL keeps the string it has). PERFQ_EINVAL for an invalid id, PERFQ_ENOMEM. */
perfq_status_t perfq_nvres_tag_set(struct perfq_nvres_group *g, int32_t id, const char *string);

/* ---- Reports ---- */
/* Fills `rep` for tag filter `tag_id` (0: no tag section; -1: every tag with state; another id:
 * that tag if it has state, else an empty tag section) and encodes it into buf (see
 * nvres_report.h): returns the ints the report takes; writes only if buf and count suffice. */
int64_t perfq_nvres_group_report(struct perfq_nvres_group *g, int32_t tag_id,
                                 int32_t vidmem_free_kib, int32_t *buf, uint64_t count);

/* Totals of one type, for counters and tests. */
struct perfq_nvres_totals {
    uint64_t allocs;
    uint64_t kib;
};
void perfq_nvres_type_totals(struct perfq_nvres_group *g, perfq_nvres_type_t type,
                             struct perfq_nvres_totals *out);
/* Totals of one tag (0s for an unknown tag). */
void perfq_nvres_tag_totals(struct perfq_nvres_group *g, int32_t id,
                            struct perfq_nvres_totals *out);
/* Totals of tags first .. first + n - 1 in one consistent read, each as glQueryResourceNV reports
 * that id: 0s for an id that has no state (never generated, never named by
 * glQueryResourceTagNV, deleted). */
void perfq_nvres_tags_reported_totals(struct perfq_nvres_group *g, int32_t first, int n,
                                      struct perfq_nvres_totals *out);
/* A consistent copy of a group's totals per type and of every tag with state (taken under the
 * group's lock, in id order), for `perfq memory` (nvres_server.c). Tag strings longer than
 * PERFQ_NVRES_SNAPSHOT_STRING - 1 bytes are cut there (truncated = 1). */
#define PERFQ_NVRES_SNAPSHOT_STRING 256
struct perfq_nvres_snapshot_tag {
    int32_t id;
    int truncated;
    uint64_t allocs, kib;
    char string[PERFQ_NVRES_SNAPSHOT_STRING];
};
struct perfq_nvres_snapshot {
    struct perfq_nvres_totals types[PERFQ_NVRES_NTYPES];
    size_t n_tags;
    struct perfq_nvres_snapshot_tag *tags;  /* malloc'ed; perfq_nvres_snapshot_free */
};
/* 0, or -1 (out of memory: *out is empty). */
int perfq_nvres_group_snapshot(struct perfq_nvres_group *g, struct perfq_nvres_snapshot *out);
void perfq_nvres_snapshot_free(struct perfq_nvres_snapshot *s);
/* Live objects in the table (textures with no storage included), for leak checks. */
uint64_t perfq_nvres_object_count(struct perfq_nvres_group *g);

/* The tags with state, in id order, for perfq stat (nvres_stat.c): up to max of them, each with
 * its totals now and its string cut to 63 bytes; returns how many were filled. */
struct perfq_nvres_tag_brief {
    int32_t id;
    uint64_t allocs, kib;
    char string[64];
};
size_t perfq_nvres_tag_briefs(struct perfq_nvres_group *g, struct perfq_nvres_tag_brief *out,
                              size_t max);

/* KiB of a byte count: rounded up (the per-object rounding rule). */
static inline uint64_t perfq_nvres_kib(uint64_t bytes)
{
    return bytes / 1024 + (bytes % 1024 != 0);
}

#endif
