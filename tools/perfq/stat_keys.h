/* The distinct (process, handle, id) keys the layers' channel brings: perfq stat's GL contexts,
 * processes, GL share groups, GL_NV_query_resource_tag tags (id 0 where a key has two parts);
 * perfq record's GPU tracks (process, context or queue, 1 for a queue) and named threads. Each key has
 * an entry of the caller's size that begins with struct stat_key, kept in order of arrival in a
 * growable array, with an open-addressing index over it, so that a record finds its key in
 * constant time however many there are (a test suite run under perfq stat starts thousands of
 * processes). Exact up to STAT_KEYS_MAX keys, or until memory runs out: past that a new key is
 * refused (NULL) and counted, so that the report says "at least" instead of a number that is
 * silently short. */
#ifndef PERFQ_TOOLS_STAT_KEYS_H
#define PERFQ_TOOLS_STAT_KEYS_H

#include <stddef.h>
#include <stdint.h>

#define STAT_KEYS_MAX (1u << 20)

struct stat_key {
    uint32_t pid;
    uint64_t handle, id;
};

struct stat_keys {
    size_t entry_size;
    unsigned char *entries;   /* n entries of entry_size, in order of arrival */
    size_t n, cap;
    uint32_t *index;          /* 0: free; otherwise an entry's position + 1 */
    size_t index_cap;         /* 0 or a power of two, at least twice n */
    uint64_t refused;         /* notes of new keys that could not be kept */
};

/* entry_size: at least sizeof(struct stat_key), the key first. */
void stat_keys_init(struct stat_keys *s, size_t entry_size);
/* The key's entry, added (zeroed past the key) if new; NULL when it cannot be kept. *added
 * (where added is not NULL): 1 when this call added it, 0 otherwise. */
void *stat_keys_note(struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id,
                     int *added);
/* The key's entry, or NULL when it was never kept. */
void *stat_keys_find(const struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id);
/* The entry in position i (< n); its position is the order its key first came in. */
void *stat_keys_at(const struct stat_keys *s, size_t i);
/* The key's position (what stat_keys_at takes), or n when it was never kept. */
size_t stat_keys_position(const struct stat_keys *s, uint32_t pid, uint64_t handle, uint64_t id);
void stat_keys_free(struct stat_keys *s);

#endif
