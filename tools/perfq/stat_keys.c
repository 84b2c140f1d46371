/* Distinct (process, handle, id) keys with an entry each: see stat_keys.h. */
#include "stat_keys.h"

#include <stdlib.h>
#include <string.h>

void stat_keys_init(struct stat_keys *s, size_t entry_size)
{
    memset(s, 0, sizeof(*s));
    s->entry_size = entry_size < sizeof(struct stat_key) ? sizeof(struct stat_key) : entry_size;
}

static size_t slot_of(uint32_t pid, uint64_t handle, uint64_t id, size_t mask)
{
    uint64_t h = handle * 0x9E3779B97F4A7C15ull ^ (uint64_t)pid * 0xC2B2AE3D27D4EB4Full ^
                 id * 0x165667B19E3779F9ull;
    h ^= h >> 29;
    return (size_t)h & mask;
}

void *stat_keys_at(const struct stat_keys *s, size_t i)
{
    return s->entries + i * s->entry_size;
}

static int same(const struct stat_keys *s, size_t i, uint32_t pid, uint64_t handle, uint64_t id)
{
    const struct stat_key *k = stat_keys_at(s, i);
    return k->pid == pid && k->handle == handle && k->id == id;
}

/* The index slot of the key, or of the free slot where it would go. */
static size_t probe(const struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id)
{
    size_t mask = s->index_cap - 1, at = slot_of(pid, handle, id, mask);
    while (s->index[at] && !same(s, s->index[at] - 1, pid, handle, id))
        at = (at + 1) & mask;
    return at;
}

void *stat_keys_find(const struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id)
{
    if (!s->index_cap)
        return NULL;
    size_t at = probe(s, pid, handle, id);
    return s->index[at] ? stat_keys_at(s, s->index[at] - 1) : NULL;
}

size_t stat_keys_position(const struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id)
{
    if (!s->index_cap)
        return s->n;
    size_t at = probe(s, pid, handle, id);
    return s->index[at] ? s->index[at] - 1 : s->n;
}

/* Room for one more key: the array and an index kept at most half full. */
static int grow(struct stat_keys *s)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        unsigned char *e = realloc(s->entries, cap * s->entry_size);
        if (!e)
            return -1;
        s->entries = e;
        s->cap = cap;
    }
    if (2 * (s->n + 1) > s->index_cap) {
        size_t cap = s->index_cap ? s->index_cap * 2 : 32;
        uint32_t *index = calloc(cap, sizeof(*index));
        if (!index)
            return -1;
        uint32_t *old = s->index;
        s->index = index;
        s->index_cap = cap;
        for (size_t i = 0; i < s->n; i++) {
            const struct stat_key *k = stat_keys_at(s, i);
            s->index[probe(s, k->pid, k->handle, k->id)] = (uint32_t)i + 1;
        }
        free(old);
    }
    return 0;
}

void *stat_keys_note(struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id,
                     int *added)
{
    if (added)
        *added = 0;
    void *known = stat_keys_find(s, pid, handle, id);
    if (known)
        return known;
    if (s->n >= STAT_KEYS_MAX || grow(s) != 0) {
        s->refused++;
        return NULL;
    }
    unsigned char *e = stat_keys_at(s, s->n);
    memset(e, 0, s->entry_size);
    struct stat_key key = {pid, handle, id};
    memcpy(e, &key, sizeof(key));
    s->index[probe(s, pid, handle, id)] = (uint32_t)++s->n;
    if (added)
        *added = 1;
    return e;
}

void stat_keys_free(struct stat_keys *s)
{
    free(s->entries);
    free(s->index);
    stat_keys_init(s, s->entry_size);
}
