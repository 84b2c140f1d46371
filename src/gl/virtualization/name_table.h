/*
 * A map from GL object names (non-zero GLuint) to pointers: open addressing, linear probing,
 * backward-shift deletion, so that thousands of insert/remove cycles never grow it.
 */
#ifndef PERFQ_GL_NAME_TABLE_H
#define PERFQ_GL_NAME_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct perfq_gl_name_table {
    uint32_t *keys;     /* 0: empty */
    void **values;
    size_t capacity;    /* a power of two, or 0 */
    size_t count;
};

void *perfq_gl_name_table_get(const struct perfq_gl_name_table *t, uint32_t key);
/* Inserts or replaces. Returns 0, or -1 when out of memory. value must not be NULL. */
int perfq_gl_name_table_put(struct perfq_gl_name_table *t, uint32_t key, void *value);
/* Removes and returns the value, or NULL. */
void *perfq_gl_name_table_remove(struct perfq_gl_name_table *t, uint32_t key);
/* Calls fn for each entry (the table must not change meanwhile). */
void perfq_gl_name_table_each(const struct perfq_gl_name_table *t,
                              void (*fn)(uint32_t key, void *value, void *arg), void *arg);
void perfq_gl_name_table_free(struct perfq_gl_name_table *t);

#endif
