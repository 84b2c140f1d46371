/*
 * GL_NV_query_resource's accounting engine (rules in nvres_accounting.h): an open-addressing
 * table of objects keyed by (type, GL name), running totals per type and per tag kept as objects
 * change (so a report costs O(types + tags), not O(objects)), and a tag table indexed by id (ids
 * are dense and never reused).
 */
#include "gl/nvres/nvres_accounting.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct object {
    uint32_t name;
    uint8_t type;
    uint8_t is_view;
    uint8_t faces;                  /* textures: image table faces (1, or 6 for cube maps) */
    int32_t tag;
    uint64_t bytes;
    uint64_t *images;               /* textures: [faces * PERFQ_NVRES_MAX_LEVELS] bytes */
    uint32_t view_of;               /* views: the texture whose storage they share */
    uint32_t views;                 /* textures: live views of this one */
    uint32_t target;                /* textures made by CreateTextures: their target */
    /* level 0 of the texture, for GenerateMipmap */
    int has_base;
    struct perfq_nvres_format base_fmt;
    perfq_nvres_shape_t base_shape;
    uint64_t base_w, base_h, base_d;
};

struct tag {
    int state;                      /* 0 generated, 1 has state, -1 deleted; unused slots: -2 */
    char *string;
    uint64_t allocs, kib;
};

struct perfq_nvres_group {
    pthread_mutex_t lock;           /* everything below */
    struct object **slots;          /* open addressing, linear probing; NULL empty */
    size_t cap, count;
    struct perfq_nvres_totals types[PERFQ_NVRES_NTYPES];
    struct tag *tags;               /* indexed by id; [0] unused */
    size_t tags_cap;
    int32_t next_tag;
    /* Bumped (under the lock) by every change of an object; read without the lock by
     * perfq_nvres_group_generation. */
    uint64_t generation;
};

#define TAG_UNUSED (-2)
#define TAG_DELETED (-1)

struct perfq_nvres_group *perfq_nvres_group_new(void)
{
    struct perfq_nvres_group *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    pthread_mutex_init(&g->lock, NULL);
    g->next_tag = 1;
    return g;
}

static void object_free(struct object *o)
{
    if (!o)
        return;
    free(o->images);
    free(o);
}

void perfq_nvres_group_free(struct perfq_nvres_group *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->cap; i++)
        object_free(g->slots[i]);
    free(g->slots);
    for (size_t i = 0; i < g->tags_cap; i++)
        free(g->tags[i].string);
    free(g->tags);
    pthread_mutex_destroy(&g->lock);
    free(g);
}

/* Under the lock, after a change of an object: the new generation. */
static uint64_t changed(struct perfq_nvres_group *g)
{
    uint64_t v = g->generation + 1;
    __atomic_store_n(&g->generation, v, __ATOMIC_RELEASE);
    return v;
}

uint64_t perfq_nvres_group_generation(struct perfq_nvres_group *g)
{
    return __atomic_load_n(&g->generation, __ATOMIC_ACQUIRE);
}

const uint64_t *perfq_nvres_group_generation_word(const struct perfq_nvres_group *g)
{
    return &g->generation;
}

/* ---- the object table ---- */

static size_t hash(uint8_t type, uint32_t name)
{
    uint64_t k = ((uint64_t)type << 32) | name;
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return (size_t)k;
}

static struct object **find_slot(struct perfq_nvres_group *g, uint8_t type, uint32_t name)
{
    if (!g->cap)
        return NULL;
    size_t mask = g->cap - 1;
    for (size_t i = hash(type, name) & mask;; i = (i + 1) & mask) {
        struct object *o = g->slots[i];
        if (!o || (o->type == type && o->name == name))
            return &g->slots[i];
    }
}

static int grow(struct perfq_nvres_group *g)
{
    size_t ncap = g->cap ? g->cap * 2 : 64;
    struct object **ns = calloc(ncap, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < g->cap; i++) {
        struct object *o = g->slots[i];
        if (!o)
            continue;
        size_t j = hash(o->type, o->name) & (ncap - 1);
        while (ns[j])
            j = (j + 1) & (ncap - 1);
        ns[j] = o;
    }
    free(g->slots);
    g->slots = ns;
    g->cap = ncap;
    return 0;
}

static struct object *lookup(struct perfq_nvres_group *g, uint8_t type, uint32_t name)
{
    struct object **s = find_slot(g, type, name);
    return s ? *s : NULL;
}

/* The object, created when new; NULL when memory runs out (that allocation goes uncounted). */
static struct object *get(struct perfq_nvres_group *g, uint8_t type, uint32_t name)
{
    struct object *o = lookup(g, type, name);
    if (o)
        return o;
    if ((g->count + 1) * 4 > g->cap * 3 && grow(g) != 0)
        return NULL;
    o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->type = type;
    o->name = name;
    *find_slot(g, type, name) = o;
    g->count++;
    return o;
}

/* Removes the object from the table (backward-shift deletion keeps probe chains whole). */
static void unlink_object(struct perfq_nvres_group *g, struct object *o)
{
    size_t mask = g->cap - 1;
    size_t i = (size_t)(find_slot(g, o->type, o->name) - g->slots);
    g->slots[i] = NULL;
    g->count--;
    for (size_t j = (i + 1) & mask; g->slots[j]; j = (j + 1) & mask) {
        size_t home = hash(g->slots[j]->type, g->slots[j]->name) & mask;
        /* Move slots[j] into the hole when its home is not in (i, j] (cyclically). */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            g->slots[i] = g->slots[j];
            g->slots[j] = NULL;
            i = j;
        }
    }
}

/* ---- totals ---- */

static struct tag *tag_entry(struct perfq_nvres_group *g, int32_t id)
{
    if (id <= 0 || (size_t)id >= g->tags_cap || g->tags[id].state == TAG_UNUSED)
        return NULL;
    return &g->tags[id];
}

/* Adds (sign 1) or removes (sign -1) the object's share of the totals. */
static void account(struct perfq_nvres_group *g, const struct object *o, int sign)
{
    if (o->bytes == 0)
        return;
    uint64_t kib = perfq_nvres_kib(o->bytes);
    struct perfq_nvres_totals *t = &g->types[o->type];
    struct tag *tg = tag_entry(g, o->tag);
    if (sign > 0) {
        t->allocs++;
        t->kib += kib;
        if (tg) {
            tg->allocs++;
            tg->kib += kib;
        }
    } else {
        t->allocs--;
        t->kib -= kib;
        if (tg) {
            tg->allocs--;
            tg->kib -= kib;
        }
    }
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
    return a + b < a ? UINT64_MAX : a + b;
}

static void recompute_texture_bytes(struct object *o)
{
    uint64_t sum = 0;
    if (o->images)
        for (int i = 0; i < o->faces * PERFQ_NVRES_MAX_LEVELS; i++)
            sum = add_sat(sum, o->images[i]);
    o->bytes = sum;
}

/* The image table of a texture with `faces` faces, (re)made when the face count changes. */
static int texture_images(struct object *o, int faces)
{
    if (o->images && o->faces == faces)
        return 0;
    uint64_t *im = calloc((size_t)faces * PERFQ_NVRES_MAX_LEVELS, sizeof *im);
    if (!im)
        return -1;
    free(o->images);
    o->images = im;
    o->faces = (uint8_t)faces;
    return 0;
}

/* ---- textures ---- */

uint64_t perfq_nvres_texture_image(struct perfq_nvres_group *g, uint32_t name, int face, int level,
                                   uint64_t bytes, const struct perfq_nvres_format *fmt,
                                   perfq_nvres_shape_t shape, uint64_t w, uint64_t h, uint64_t d,
                                   int32_t tag)
{
    if (level < 0 || level >= PERFQ_NVRES_MAX_LEVELS || face < -1 || face > 5)
        return 0;
    uint64_t gen = 0;
    pthread_mutex_lock(&g->lock);
    struct object *o = get(g, PERFQ_NVRES_TEXTURE, name);
    if (o) {
        account(g, o, -1);
        /* A cube face target (face >= 0) makes a 6-face image table; any other target 1. */
        int faces = face >= 0 ? 6 : 1;
        if (face < 0)
            face = 0;
        if (o->is_view) {
            /* TexImage on a view is refused by GL (immutable); nothing changes. */
        } else if (texture_images(o, faces) == 0) {
            o->images[face * PERFQ_NVRES_MAX_LEVELS + level] = bytes;
            recompute_texture_bytes(o);
            o->tag = tag;
            if (level == 0 && face == 0) {
                o->has_base = fmt != NULL;
                if (fmt)
                    o->base_fmt = *fmt;
                o->base_shape = shape;
                o->base_w = w;
                o->base_h = h;
                o->base_d = d;
            }
            gen = changed(g);
        }
        account(g, o, 1);
    }
    pthread_mutex_unlock(&g->lock);
    return gen;
}

void perfq_nvres_texture_storage(struct perfq_nvres_group *g, uint32_t name,
                                 const struct perfq_nvres_format *fmt, perfq_nvres_shape_t shape,
                                 int levels, uint64_t w, uint64_t h, uint64_t d, uint64_t samples,
                                 int32_t tag)
{
    if (levels < 1 || shape == PERFQ_NVRES_SHAPE_NONE)
        return;
    if (levels > PERFQ_NVRES_MAX_LEVELS)
        levels = PERFQ_NVRES_MAX_LEVELS;
    int faces = perfq_nvres_shape_faces(shape);
    pthread_mutex_lock(&g->lock);
    struct object *o = get(g, PERFQ_NVRES_TEXTURE, name);
    if (o && !o->is_view) {
        account(g, o, -1);
        if (texture_images(o, faces) == 0) {
            memset(o->images, 0, (size_t)faces * PERFQ_NVRES_MAX_LEVELS * sizeof *o->images);
            for (int l = 0; l < levels; l++) {
                uint64_t b = perfq_nvres_storage_level_bytes(fmt, shape, l, w, h, d, samples);
                for (int f = 0; f < faces; f++)
                    o->images[f * PERFQ_NVRES_MAX_LEVELS + l] = b;
            }
            recompute_texture_bytes(o);
            o->tag = tag;
            o->has_base = 1;
            o->base_fmt = *fmt;
            o->base_shape = shape;
            o->base_w = w;
            o->base_h = h;
            o->base_d = d;
        }
        changed(g);
        account(g, o, 1);
    }
    pthread_mutex_unlock(&g->lock);
}

void perfq_nvres_texture_generate_mipmap(struct perfq_nvres_group *g, uint32_t name, int32_t tag)
{
    pthread_mutex_lock(&g->lock);
    struct object *o = lookup(g, PERFQ_NVRES_TEXTURE, name);
    if (o && o->images && o->has_base && !o->is_view) {
        account(g, o, -1);
        uint64_t w = o->base_w, h = o->base_h, d = o->base_d;
        perfq_nvres_shape_t shape = o->base_shape;
        /* GL 4.6 section 8.14.4: levels down to 1x1 (the halving dimensions of the shape). */
        uint64_t m = w;
        if (shape != PERFQ_NVRES_SHAPE_1D && shape != PERFQ_NVRES_SHAPE_1D_ARRAY && h > m)
            m = h;
        if (shape == PERFQ_NVRES_SHAPE_3D && d > m)
            m = d;
        int top = 0;
        while (m > 1 && top + 1 < PERFQ_NVRES_MAX_LEVELS) {
            m >>= 1;
            top++;
        }
        for (int f = 0; f < o->faces; f++) {
            if (!o->images[f * PERFQ_NVRES_MAX_LEVELS])
                continue;
            for (int l = 1; l <= top; l++)
                o->images[f * PERFQ_NVRES_MAX_LEVELS + l] =
                    perfq_nvres_storage_level_bytes(&o->base_fmt, shape, l, w, h, d, 1);
        }
        recompute_texture_bytes(o);
        o->tag = tag;
        changed(g);
        account(g, o, 1);
    }
    pthread_mutex_unlock(&g->lock);
}

void perfq_nvres_texture_view(struct perfq_nvres_group *g, uint32_t name, uint32_t origin)
{
    pthread_mutex_lock(&g->lock);
    struct object *orig = lookup(g, PERFQ_NVRES_TEXTURE, origin);
    /* A view of a view shares the first texture's storage. */
    if (orig && orig->is_view)
        origin = orig->view_of, orig = lookup(g, PERFQ_NVRES_TEXTURE, origin);
    struct object *o = get(g, PERFQ_NVRES_TEXTURE, name);
    if (o && !o->is_view) {
        account(g, o, -1);
        free(o->images);
        o->images = NULL;
        o->bytes = 0;
        o->has_base = 0;
        o->is_view = 1;
        o->view_of = origin;
        if (orig)
            orig->views++;
        changed(g);
    }
    pthread_mutex_unlock(&g->lock);
}

void perfq_nvres_texture_created(struct perfq_nvres_group *g, uint32_t name, uint32_t target)
{
    pthread_mutex_lock(&g->lock);
    struct object *o = get(g, PERFQ_NVRES_TEXTURE, name);
    if (o) {
        o->target = target;
        changed(g);
    }
    pthread_mutex_unlock(&g->lock);
}

uint32_t perfq_nvres_texture_target(struct perfq_nvres_group *g, uint32_t name)
{
    pthread_mutex_lock(&g->lock);
    struct object *o = lookup(g, PERFQ_NVRES_TEXTURE, name);
    uint32_t t = o ? o->target : 0;
    pthread_mutex_unlock(&g->lock);
    return t;
}

void perfq_nvres_texture_buffer(struct perfq_nvres_group *g, uint32_t name)
{
    pthread_mutex_lock(&g->lock);
    struct object *o = lookup(g, PERFQ_NVRES_TEXTURE, name);
    if (o && !o->is_view) {
        account(g, o, -1);
        if (o->images)
            memset(o->images, 0, (size_t)o->faces * PERFQ_NVRES_MAX_LEVELS * sizeof *o->images);
        o->bytes = 0;
        o->has_base = 0;
        changed(g);
    }
    pthread_mutex_unlock(&g->lock);
}

/* ---- renderbuffers, buffers ---- */

static uint64_t set_bytes(struct perfq_nvres_group *g, uint8_t type, uint32_t name,
                          uint64_t bytes, int32_t tag)
{
    uint64_t gen = 0;
    pthread_mutex_lock(&g->lock);
    struct object *o = get(g, type, name);
    if (o) {
        account(g, o, -1);
        o->bytes = bytes;
        o->tag = tag;
        account(g, o, 1);
        gen = changed(g);
    }
    pthread_mutex_unlock(&g->lock);
    return gen;
}

uint64_t perfq_nvres_renderbuffer_storage(struct perfq_nvres_group *g, uint32_t name,
                                          uint64_t bytes, int32_t tag)
{
    return set_bytes(g, PERFQ_NVRES_RENDERBUFFER, name, bytes, tag);
}

uint64_t perfq_nvres_buffer_storage(struct perfq_nvres_group *g, uint32_t name, uint64_t bytes,
                                    int32_t tag)
{
    return set_bytes(g, PERFQ_NVRES_BUFFER, name, bytes, tag);
}

/* A texture with views is deleted: GL keeps the storage alive for the views (GL 4.6 section
 * 8.18), so it passes to one of them, which becomes the origin of the others. Returns the heir. */
static struct object *hand_storage_to_view(struct perfq_nvres_group *g, struct object *o)
{
    struct object *heir = NULL;
    for (size_t i = 0; i < g->cap; i++) {
        struct object *v = g->slots[i];
        if (!v || v->type != PERFQ_NVRES_TEXTURE || !v->is_view || v->view_of != o->name)
            continue;
        if (!heir) {
            heir = v;
            heir->is_view = 0;
            heir->view_of = 0;
            free(heir->images);
            heir->images = o->images;
            heir->faces = o->faces;
            heir->bytes = o->bytes;
            heir->tag = o->tag;
            heir->has_base = o->has_base;
            heir->base_fmt = o->base_fmt;
            heir->base_shape = o->base_shape;
            heir->base_w = o->base_w;
            heir->base_h = o->base_h;
            heir->base_d = o->base_d;
            o->images = NULL;
        } else {
            v->view_of = heir->name;
            heir->views++;
        }
    }
    return heir;
}

void perfq_nvres_delete(struct perfq_nvres_group *g, perfq_nvres_type_t type, uint32_t name)
{
    if ((unsigned)type >= PERFQ_NVRES_NTYPES)
        return;
    pthread_mutex_lock(&g->lock);
    struct object *o = lookup(g, (uint8_t)type, name);
    if (o) {
        account(g, o, -1);
        struct object *heir = NULL;
        if (o->is_view) {
            struct object *orig = lookup(g, PERFQ_NVRES_TEXTURE, o->view_of);
            if (orig && orig->views)
                orig->views--;
        } else if (o->views) {
            heir = hand_storage_to_view(g, o);
        }
        unlink_object(g, o);
        object_free(o);
        if (heir)
            account(g, heir, 1);
        changed(g);
    }
    pthread_mutex_unlock(&g->lock);
}

/* ---- tags ---- */

perfq_status_t perfq_nvres_tags_gen(struct perfq_nvres_group *g, int n, int32_t *ids)
{
    if (n <= 0)
        return PERFQ_OK;
    perfq_status_t rc = PERFQ_OK;
    pthread_mutex_lock(&g->lock);
    if ((int64_t)g->next_tag + n - 1 > INT32_MAX) {
        rc = PERFQ_ENOMEM;
        goto out;
    }
    size_t need = (size_t)g->next_tag + (size_t)n;
    if (need > g->tags_cap) {
        size_t ncap = g->tags_cap ? g->tags_cap : 16;
        while (ncap < need)
            ncap *= 2;
        struct tag *nt = realloc(g->tags, ncap * sizeof *nt);
        if (!nt) {
            rc = PERFQ_ENOMEM;
            goto out;
        }
        for (size_t i = g->tags_cap; i < ncap; i++)
            nt[i] = (struct tag){TAG_UNUSED, NULL, 0, 0};
        g->tags = nt;
        g->tags_cap = ncap;
    }
    for (int i = 0; i < n; i++) {
        int32_t id = g->next_tag++;
        g->tags[id].state = 0;
        ids[i] = id;
    }
out:
    pthread_mutex_unlock(&g->lock);
    return rc;
}

void perfq_nvres_tags_delete(struct perfq_nvres_group *g, int n, const int32_t *ids)
{
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < n; i++) {
        struct tag *t = tag_entry(g, ids[i]);
        if (!t || t->state == TAG_DELETED)
            continue;
        t->state = TAG_DELETED;
        free(t->string);
        t->string = NULL;
    }
    pthread_mutex_unlock(&g->lock);
}

int perfq_nvres_tag_valid(struct perfq_nvres_group *g, int32_t id)
{
    pthread_mutex_lock(&g->lock);
    struct tag *t = tag_entry(g, id);
    int ok = t && t->state != TAG_DELETED;
    pthread_mutex_unlock(&g->lock);
    return ok;
}

perfq_status_t perfq_nvres_tag_set(struct perfq_nvres_group *g, int32_t id, const char *string)
{
    perfq_status_t rc = PERFQ_OK;
    pthread_mutex_lock(&g->lock);
    struct tag *t = tag_entry(g, id);
    if (!t || t->state == TAG_DELETED) {
        rc = PERFQ_EINVAL;
    } else if (string) {
        char *copy = strdup(string);
        if (!copy) {
            rc = PERFQ_ENOMEM;
        } else {
            free(t->string);
            t->string = copy;
            t->state = 1;
        }
    } else {
        t->state = 1;
    }
    pthread_mutex_unlock(&g->lock);
    return rc;
}

/* ---- reports ---- */

static int32_t clamp32(uint64_t v)
{
    return v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

int64_t perfq_nvres_group_report(struct perfq_nvres_group *g, int32_t tag_id,
                                 int32_t vidmem_free_kib, int32_t *buf, uint64_t count)
{
    static const int32_t obj_types[PERFQ_NVRES_NTYPES] = {
        PERFQ_NVRES_OBJ_TEXTURE, PERFQ_NVRES_OBJ_RENDERBUFFER, PERFQ_NVRES_OBJ_BUFFEROBJECT,
    };
    struct perfq_nvres_report r;
    memset(&r, 0, sizeof r);
    r.vidmem_free_kib = vidmem_free_kib;
    pthread_mutex_lock(&g->lock);
    for (int t = 0; t < PERFQ_NVRES_NTYPES; t++) {
        if (!g->types[t].allocs)
            continue;
        r.details[r.n_details++] = (struct perfq_nvres_report_detail){
            obj_types[t], clamp32(g->types[t].allocs), clamp32(g->types[t].kib)};
    }
    struct perfq_nvres_report_tag one, *many = NULL;
    if (tag_id != 0) {
        r.has_tag_section = 1;
        if (tag_id == -1) {
            size_t n = 0;
            for (size_t i = 1; i < g->tags_cap; i++)
                n += g->tags[i].state == 1;
            if (n) {
                many = malloc(n * sizeof *many);
                if (!many) {
                    pthread_mutex_unlock(&g->lock);
                    return -1;
                }
                for (size_t i = 1; i < g->tags_cap; i++) {
                    struct tag *t = &g->tags[i];
                    if (t->state == 1)
                        many[r.n_tags++] = (struct perfq_nvres_report_tag){
                            (int32_t)i, 0, clamp32(t->allocs), clamp32(t->kib), t->string};
                }
                r.tags = many;
            }
        } else {
            struct tag *t = tag_entry(g, tag_id);
            if (t && t->state == 1) {
                one = (struct perfq_nvres_report_tag){tag_id, 0, clamp32(t->allocs),
                                                      clamp32(t->kib), t->string};
                r.tags = &one;
                r.n_tags = 1;
            }
        }
    }
    int64_t size = perfq_nvres_report_encode(&r, buf, count);
    pthread_mutex_unlock(&g->lock);
    free(many);
    return size;
}

void perfq_nvres_type_totals(struct perfq_nvres_group *g, perfq_nvres_type_t type,
                             struct perfq_nvres_totals *out)
{
    memset(out, 0, sizeof *out);
    if ((unsigned)type >= PERFQ_NVRES_NTYPES)
        return;
    pthread_mutex_lock(&g->lock);
    *out = g->types[type];
    pthread_mutex_unlock(&g->lock);
}

void perfq_nvres_tag_totals(struct perfq_nvres_group *g, int32_t id,
                            struct perfq_nvres_totals *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&g->lock);
    struct tag *t = tag_entry(g, id);
    if (t) {
        out->allocs = t->allocs;
        out->kib = t->kib;
    }
    pthread_mutex_unlock(&g->lock);
}

void perfq_nvres_tags_reported_totals(struct perfq_nvres_group *g, int32_t first, int n,
                                      struct perfq_nvres_totals *out)
{
    if (n <= 0)
        return;
    memset(out, 0, (size_t)n * sizeof *out);
    pthread_mutex_lock(&g->lock);
    for (int i = 0; i < n; i++) {
        struct tag *t = tag_entry(g, (int32_t)((int64_t)first + i > INT32_MAX ? -1 : first + i));
        if (t && t->state == 1) {
            out[i].allocs = t->allocs;
            out[i].kib = t->kib;
        }
    }
    pthread_mutex_unlock(&g->lock);
}

uint64_t perfq_nvres_object_count(struct perfq_nvres_group *g)
{
    pthread_mutex_lock(&g->lock);
    uint64_t n = g->count;
    pthread_mutex_unlock(&g->lock);
    return n;
}

int perfq_nvres_group_snapshot(struct perfq_nvres_group *g, struct perfq_nvres_snapshot *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&g->lock);
    memcpy(out->types, g->types, sizeof out->types);
    size_t n = 0;
    for (size_t i = 1; i < g->tags_cap; i++)
        n += g->tags[i].state == 1;
    if (n && !(out->tags = calloc(n, sizeof *out->tags))) {
        pthread_mutex_unlock(&g->lock);
        memset(out, 0, sizeof *out);
        return -1;
    }
    for (size_t i = 1; i < g->tags_cap; i++) {
        const struct tag *t = &g->tags[i];
        if (t->state != 1)
            continue;
        struct perfq_nvres_snapshot_tag *st = &out->tags[out->n_tags++];
        st->id = (int32_t)i;
        st->allocs = t->allocs;
        st->kib = t->kib;
        if (t->string) {
            size_t len = strlen(t->string);
            st->truncated = len >= sizeof st->string;
            if (st->truncated)
                len = sizeof st->string - 1;
            memcpy(st->string, t->string, len);
        }
    }
    pthread_mutex_unlock(&g->lock);
    return 0;
}

size_t perfq_nvres_tag_briefs(struct perfq_nvres_group *g, struct perfq_nvres_tag_brief *out,
                              size_t max)
{
    size_t n = 0;
    pthread_mutex_lock(&g->lock);
    for (size_t i = 1; i < g->tags_cap && n < max; i++) {
        const struct tag *t = &g->tags[i];
        if (t->state != 1)
            continue;
        struct perfq_nvres_tag_brief *b = &out[n++];
        b->id = (int32_t)i;
        b->allocs = t->allocs;
        b->kib = t->kib;
        b->string[0] = '\0';
        if (t->string) {
            size_t len = strlen(t->string);
            if (len >= sizeof b->string)
                len = sizeof b->string - 1;
            memcpy(b->string, t->string, len);
            b->string[len] = '\0';
        }
    }
    pthread_mutex_unlock(&g->lock);
    return n;
}

void perfq_nvres_snapshot_free(struct perfq_nvres_snapshot *s)
{
    free(s->tags);
    memset(s, 0, sizeof *s);
}
