/*
 * Side tables: the layer's own data about the driver's objects, keyed by the driver's handles
 * (the layer never wraps handles, so a program's handle is the driver's). An open-addressing
 * hash map from a pointer to a record, with linear probing and backward-shift deletion (no
 * tombstones: a table that saw a million commands and holds none is as fast as a new one).
 * The caller takes `lock` around find/put/remove, so that it can change a record atomically.
 */
#ifndef PERFQ_CL_SIDE_TABLE_H
#define PERFQ_CL_SIDE_TABLE_H

#include <pthread.h>
#include <stddef.h>

struct perfq_cl_table_slot {
    const void *key;     /* NULL: empty */
    void *value;
};

struct perfq_cl_table {
    pthread_mutex_t lock;                 /* protects slots, cap and count */
    struct perfq_cl_table_slot *slots;
    size_t cap;                           /* a power of two, or 0 before the first put */
    size_t count;                         /* written under lock; read unlocked as a hint */
};

#define PERFQ_CL_TABLE_INIT {PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0}

/* The number of records, read without the lock: a hint for fast paths ("no queue has
 * counters: skip the lookup"), exact only when no other thread changes the table. */
static inline size_t perfq_cl_table_count_hint(struct perfq_cl_table *t)
{
    return __atomic_load_n(&t->count, __ATOMIC_ACQUIRE);
}

/* With t->lock held. */
void *perfq_cl_table_find_locked(const struct perfq_cl_table *t, const void *key);
/* Inserts or replaces; *old gets the replaced value (or NULL). Returns 0, or -1 when out of
 * memory (nothing changed). */
int perfq_cl_table_put_locked(struct perfq_cl_table *t, const void *key, void *value,
                              void **old);
/* Removes key and returns its value, or NULL when absent. */
void *perfq_cl_table_remove_locked(struct perfq_cl_table *t, const void *key);

/* The record of key, built by build(key, &value) on first use and kept (a cache of objects
 * whose data never changes). Takes the lock itself; build runs without it, and when two threads
 * race, the first record put wins and the other is freed with free_value. Returns 0, build's
 * nonzero error, or out_of_memory when the table cannot grow. */
int perfq_cl_table_get_or_build(struct perfq_cl_table *t, const void *key,
                                int (*build)(const void *key, void **value),
                                void (*free_value)(void *), int out_of_memory, void **out);

/* Removes every record, calling free_value on each, and frees the slots. Takes no lock:
 * clDeinitLayer calls it alone; anyone else holds t->lock around it. */
void perfq_cl_table_clear(struct perfq_cl_table *t, void (*free_value)(void *));

#endif
