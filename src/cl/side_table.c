/* Side tables keyed by driver handles (see side_table.h). */
#include <stdint.h>
#include <stdlib.h>

#include "cl/side_table.h"

static size_t slot_of(const void *key, size_t cap)
{
    /* Handles are heap pointers: drop the alignment bits, then spread (Fibonacci hashing). */
    uint64_t h = ((uint64_t)(uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (cap - 1);
}

void *perfq_cl_table_find_locked(const struct perfq_cl_table *t, const void *key)
{
    if (!t->cap || !key)
        return NULL;
    for (size_t i = slot_of(key, t->cap);; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i].key == key)
            return t->slots[i].value;
        if (!t->slots[i].key)
            return NULL;
    }
}

static void place(struct perfq_cl_table_slot *slots, size_t cap, const void *key, void *value)
{
    size_t i = slot_of(key, cap);
    while (slots[i].key)
        i = (i + 1) & (cap - 1);
    slots[i].key = key;
    slots[i].value = value;
}

static int grow(struct perfq_cl_table *t)
{
    size_t ncap = t->cap ? t->cap * 2 : 64;
    struct perfq_cl_table_slot *n = calloc(ncap, sizeof(*n));
    if (!n)
        return -1;
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key)
            place(n, ncap, t->slots[i].key, t->slots[i].value);
    free(t->slots);
    t->slots = n;
    t->cap = ncap;
    return 0;
}

int perfq_cl_table_put_locked(struct perfq_cl_table *t, const void *key, void *value,
                              void **old)
{
    *old = NULL;
    if (!key)
        return -1;
    if (t->cap) {
        for (size_t i = slot_of(key, t->cap); t->slots[i].key; i = (i + 1) & (t->cap - 1)) {
            if (t->slots[i].key == key) {
                *old = t->slots[i].value;
                t->slots[i].value = value;
                return 0;
            }
        }
    }
    /* Load factor at most 1/2: probes stay short. */
    if ((t->count + 1) * 2 > t->cap && grow(t) != 0)
        return -1;
    place(t->slots, t->cap, key, value);
    __atomic_store_n(&t->count, t->count + 1, __ATOMIC_RELEASE);
    return 0;
}

void *perfq_cl_table_remove_locked(struct perfq_cl_table *t, const void *key)
{
    if (!t->cap || !key)
        return NULL;
    size_t mask = t->cap - 1, i = slot_of(key, t->cap);
    while (t->slots[i].key != key) {
        if (!t->slots[i].key)
            return NULL;
        i = (i + 1) & mask;
    }
    void *value = t->slots[i].value;
    /* Backward-shift deletion: move later members of the probe run into the hole when their
     * home slot does not lie (cyclically) between the hole and their position. */
    for (size_t j = (i + 1) & mask; t->slots[j].key; j = (j + 1) & mask) {
        size_t home = slot_of(t->slots[j].key, t->cap);
        if (((j - home) & mask) >= ((j - i) & mask)) {
            t->slots[i] = t->slots[j];
            i = j;
        }
    }
    t->slots[i].key = NULL;
    t->slots[i].value = NULL;
    __atomic_store_n(&t->count, t->count - 1, __ATOMIC_RELEASE);
    return value;
}

void perfq_cl_table_clear(struct perfq_cl_table *t, void (*free_value)(void *))
{
    for (size_t i = 0; i < t->cap; i++)
        if (t->slots[i].key && free_value)
            free_value(t->slots[i].value);
    free(t->slots);
    t->slots = NULL;
    t->cap = 0;
    __atomic_store_n(&t->count, 0, __ATOMIC_RELEASE);
}

int perfq_cl_table_get_or_build(struct perfq_cl_table *t, const void *key,
                                int (*build)(const void *key, void **value),
                                void (*free_value)(void *), int out_of_memory, void **out)
{
    pthread_mutex_lock(&t->lock);
    void *v = perfq_cl_table_find_locked(t, key);
    pthread_mutex_unlock(&t->lock);
    if (!v) {
        void *built = NULL, *old = NULL;
        int err = build(key, &built);
        if (err)
            return err;
        pthread_mutex_lock(&t->lock);
        v = perfq_cl_table_find_locked(t, key);
        if (!v && perfq_cl_table_put_locked(t, key, built, &old) != 0) {
            pthread_mutex_unlock(&t->lock);
            free_value(built);
            return out_of_memory;
        }
        pthread_mutex_unlock(&t->lock);
        if (v)
            free_value(built);   /* another thread built it first: keep theirs */
        else
            v = built;
    }
    *out = v;
    return 0;
}
