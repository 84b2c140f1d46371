/*
 * Map and unmap (buffers, images, SVM): a map's bytes from its size and flags; an unmap's from
 * the mapping the layer saw, remembered by mapped pointer while some queue has counters.
 */
#include <stdlib.h>

#include "cl/command_counters.h"

/* Mappings the layer saw, so that an unmap knows what it writes back: keyed by the mapped
 * pointer; entries of the same pointer (two mappings of one region) are chained. */
struct map_entry {
    cl_mem mem;            /* NULL for SVM */
    uint64_t bytes;
    int writable;
    struct map_entry *next;
};
struct perfq_cl_table perfq_cl_maps = PERFQ_CL_TABLE_INIT;

static int map_writable(cl_map_flags flags)
{
    return (flags & (CL_MAP_WRITE | CL_MAP_WRITE_INVALIDATE_REGION)) != 0;
}

static uint64_t map_bytes(cl_map_flags flags, uint64_t size)
{
    /* CL_MAP_WRITE_INVALIDATE_REGION: "the contents of the region being mapped are to be
     * discarded": nothing has to reach the host. */
    return (flags & CL_MAP_WRITE_INVALIDATE_REGION) ? 0 : size;
}

/* Remembers a mapping (only while some queue has counters: an unmap can be counted only on
 * such a queue). Best effort: without memory the later unmap's bytes are unknown. */
static void remember_map(void *ptr, cl_mem mem, uint64_t bytes, cl_map_flags flags)
{
    if (!ptr || perfq_cl_table_count_hint(&perfq_cl_queues) == 0)
        return;
    struct map_entry *e = malloc(sizeof(*e));
    if (!e)
        return;
    e->mem = mem;
    e->bytes = bytes;
    e->writable = map_writable(flags);
    void *old = NULL;
    pthread_mutex_lock(&perfq_cl_maps.lock);
    e->next = perfq_cl_table_find_locked(&perfq_cl_maps, ptr);
    if (perfq_cl_table_put_locked(&perfq_cl_maps, ptr, e, &old) != 0)
        free(e);
    pthread_mutex_unlock(&perfq_cl_maps.lock);
}

/* What an unmap of (mem, ptr) writes back; 0 and *known = 0 when the layer never saw the map. */
static uint64_t unmap_bytes(void *ptr, cl_mem mem, int *known)
{
    uint64_t bytes = 0;
    *known = 0;
    pthread_mutex_lock(&perfq_cl_maps.lock);
    for (struct map_entry *e = perfq_cl_table_find_locked(&perfq_cl_maps, ptr); e; e = e->next) {
        if (e->mem == mem) {
            bytes = e->writable ? e->bytes : 0;
            *known = 1;
            break;
        }
    }
    pthread_mutex_unlock(&perfq_cl_maps.lock);
    return bytes;
}

/* After a successful unmap: the mapping is gone. */
static void forget_map(void *ptr, cl_mem mem)
{
    if (perfq_cl_table_count_hint(&perfq_cl_maps) == 0)
        return;
    struct map_entry *gone = NULL;
    pthread_mutex_lock(&perfq_cl_maps.lock);
    struct map_entry *head = perfq_cl_table_find_locked(&perfq_cl_maps, ptr);
    for (struct map_entry **p = &head; *p; p = &(*p)->next) {
        if ((*p)->mem == mem) {
            gone = *p;
            *p = gone->next;
            break;
        }
    }
    if (gone) {
        void *old = NULL;
        if (head)
            perfq_cl_table_put_locked(&perfq_cl_maps, ptr, head, &old);  /* replaces: no growth */
        else
            perfq_cl_table_remove_locked(&perfq_cl_maps, ptr);
    }
    pthread_mutex_unlock(&perfq_cl_maps.lock);
    free(gone);
}

static void *CL_API_CALL EnqueueMapBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                               cl_bool blocking, cl_map_flags flags,
                                               size_t offset, size_t size, cl_uint n,
                                               const cl_event *wl, cl_event *event,
                                               cl_int *errcode_ret)
{
    struct perfq_cl_command cmd;
    int counted = perfq_cl_command_begin(queue, event, &cmd, NULL);
    cl_int err = CL_SUCCESS;
    void *ptr = perfq_cl_next.clEnqueueMapBuffer(queue, buffer, blocking, flags, offset, size,
                                                 n, wl, event, &err);
    if (err == CL_SUCCESS)
        remember_map(ptr, buffer, size, flags);
    if (counted) {
        cmd.bytes = map_bytes(flags, size);
        perfq_cl_command_end(&cmd, err, event);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return ptr;
}

static void *CL_API_CALL EnqueueMapImage_wrap(cl_command_queue queue, cl_mem image,
                                              cl_bool blocking, cl_map_flags flags,
                                              const size_t *origin, const size_t *region,
                                              size_t *row_pitch, size_t *slice_pitch,
                                              cl_uint n, const cl_event *wl, cl_event *event,
                                              cl_int *errcode_ret)
{
    struct perfq_cl_command cmd;
    int counted = perfq_cl_command_begin(queue, event, &cmd, NULL);
    struct perfq_cl_command probe = {.bytes_known = 1};
    if (counted || perfq_cl_table_count_hint(&perfq_cl_queues))
        perfq_cl_image_bytes(&probe, image, region);
    cl_int err = CL_SUCCESS;
    void *ptr = perfq_cl_next.clEnqueueMapImage(queue, image, blocking, flags, origin, region,
                                                row_pitch, slice_pitch, n, wl, event, &err);
    if (err == CL_SUCCESS && probe.bytes_known)
        remember_map(ptr, image, probe.bytes, flags);
    if (counted) {
        cmd.bytes_known = probe.bytes_known;
        cmd.bytes = map_bytes(flags, probe.bytes);
        perfq_cl_command_end(&cmd, err, event);
    }
    if (errcode_ret)
        *errcode_ret = err;
    return ptr;
}

static cl_int CL_API_CALL EnqueueUnmapMemObject_wrap(cl_command_queue queue, cl_mem mem,
                                                     void *ptr, cl_uint n, const cl_event *wl,
                                                     cl_event *event)
{
    struct perfq_cl_command cmd;
    int counted = perfq_cl_command_begin(queue, event, &cmd, NULL);
    if (counted)
        cmd.bytes = unmap_bytes(ptr, mem, &cmd.bytes_known);
    cl_int err = perfq_cl_next.clEnqueueUnmapMemObject(queue, mem, ptr, n, wl, event);
    if (err == CL_SUCCESS)
        forget_map(ptr, mem);
    if (counted)
        perfq_cl_command_end(&cmd, err, event);
    return err;
}

static cl_int CL_API_CALL EnqueueSVMMap_wrap(cl_command_queue queue, cl_bool blocking,
                                             cl_map_flags flags, void *ptr, size_t size,
                                             cl_uint n, const cl_event *wl, cl_event *event)
{
    struct perfq_cl_command cmd;
    int counted = perfq_cl_command_begin(queue, event, &cmd, NULL);
    cl_int err = perfq_cl_next.clEnqueueSVMMap(queue, blocking, flags, ptr, size, n, wl, event);
    if (err == CL_SUCCESS)
        remember_map(ptr, NULL, size, flags);
    if (counted) {
        cmd.bytes = map_bytes(flags, size);
        perfq_cl_command_end(&cmd, err, event);
    }
    return err;
}

static cl_int CL_API_CALL EnqueueSVMUnmap_wrap(cl_command_queue queue, void *ptr, cl_uint n,
                                               const cl_event *wl, cl_event *event)
{
    struct perfq_cl_command cmd;
    int counted = perfq_cl_command_begin(queue, event, &cmd, NULL);
    if (counted)
        cmd.bytes = unmap_bytes(ptr, NULL, &cmd.bytes_known);
    cl_int err = perfq_cl_next.clEnqueueSVMUnmap(queue, ptr, n, wl, event);
    if (err == CL_SUCCESS)
        forget_map(ptr, NULL);
    if (counted)
        perfq_cl_command_end(&cmd, err, event);
    return err;
}

void perfq_cl_install_map_commands(cl_icd_dispatch *d)
{
    d->clEnqueueMapBuffer = EnqueueMapBuffer_wrap;
    d->clEnqueueMapImage = EnqueueMapImage_wrap;
    d->clEnqueueUnmapMemObject = EnqueueUnmapMemObject_wrap;
    d->clEnqueueSVMMap = EnqueueSVMMap_wrap;
    d->clEnqueueSVMUnmap = EnqueueSVMUnmap_wrap;
}

static void free_map_chain(void *v)
{
    for (struct map_entry *e = v, *next; e; e = next) {
        next = e->next;
        free(e);
    }
}

/* Called with perfq_cl_queues.lock held when the program released its last queue with
 * counters: no unmap can be counted any more, so every record goes, also those of mappings the
 * program never unmapped (a buffer mapped, then released without an unmap: its record used to
 * stay until clDeinitLayer, issue 14 item 12). A queue with counters created later counts an
 * unmap of an older mapping as bytes unknown, like one the layer never saw. Lock order:
 * queues, then maps. */
void perfq_cl_maps_forget_all_locked(void)
{
    if (perfq_cl_table_count_hint(&perfq_cl_maps) == 0)
        return;
    pthread_mutex_lock(&perfq_cl_maps.lock);
    perfq_cl_table_clear(&perfq_cl_maps, free_map_chain);
    pthread_mutex_unlock(&perfq_cl_maps.lock);
}

void perfq_cl_map_commands_fini(void)
{
    perfq_cl_table_clear(&perfq_cl_maps, free_map_chain);
}
