#include "gl/virtualization/name_table.h"

#include <stdlib.h>

static size_t home(const struct perfq_gl_name_table *t, uint32_t key)
{
    return (size_t)(key * 2654435761u) & (t->capacity - 1);
}

void *perfq_gl_name_table_get(const struct perfq_gl_name_table *t, uint32_t key)
{
    if (!t->capacity || !key)
        return NULL;
    for (size_t i = home(t, key);; i = (i + 1) & (t->capacity - 1)) {
        if (t->keys[i] == key)
            return t->values[i];
        if (t->keys[i] == 0)
            return NULL;
    }
}

static int grow(struct perfq_gl_name_table *t)
{
    size_t cap = t->capacity ? t->capacity * 2 : 16;
    uint32_t *keys = calloc(cap, sizeof *keys);
    void **values = calloc(cap, sizeof *values);
    if (!keys || !values) {
        free(keys);
        free(values);
        return -1;
    }
    struct perfq_gl_name_table old = *t;
    t->keys = keys;
    t->values = values;
    t->capacity = cap;
    t->count = 0;
    for (size_t i = 0; i < old.capacity; i++)
        if (old.keys[i])
            perfq_gl_name_table_put(t, old.keys[i], old.values[i]);
    free(old.keys);
    free(old.values);
    return 0;
}

int perfq_gl_name_table_put(struct perfq_gl_name_table *t, uint32_t key, void *value)
{
    if (!key || !value)
        return -1;
    if ((t->count + 1) * 4 > t->capacity * 3 && grow(t) != 0)
        return -1;
    for (size_t i = home(t, key);; i = (i + 1) & (t->capacity - 1)) {
        if (t->keys[i] == key) {
            t->values[i] = value;
            return 0;
        }
        if (t->keys[i] == 0) {
            t->keys[i] = key;
            t->values[i] = value;
            t->count++;
            return 0;
        }
    }
}

void *perfq_gl_name_table_remove(struct perfq_gl_name_table *t, uint32_t key)
{
    if (!t->capacity || !key)
        return NULL;
    size_t mask = t->capacity - 1;
    size_t i = home(t, key);
    while (t->keys[i] != key) {
        if (t->keys[i] == 0)
            return NULL;
        i = (i + 1) & mask;
    }
    void *v = t->values[i];
    /* Backward shift: move later entries of the cluster into the hole when their home allows. */
    size_t hole = i;
    for (size_t j = (i + 1) & mask; t->keys[j]; j = (j + 1) & mask) {
        size_t h = home(t, t->keys[j]);
        if (((j - h) & mask) >= ((j - hole) & mask)) {
            t->keys[hole] = t->keys[j];
            t->values[hole] = t->values[j];
            hole = j;
        }
    }
    t->keys[hole] = 0;
    t->values[hole] = NULL;
    t->count--;
    return v;
}

void perfq_gl_name_table_each(const struct perfq_gl_name_table *t,
                              void (*fn)(uint32_t key, void *value, void *arg), void *arg)
{
    for (size_t i = 0; i < t->capacity; i++)
        if (t->keys[i])
            fn(t->keys[i], t->values[i], arg);
}

void perfq_gl_name_table_free(struct perfq_gl_name_table *t)
{
    free(t->keys);
    free(t->values);
    t->keys = NULL;
    t->values = NULL;
    t->capacity = t->count = 0;
}
