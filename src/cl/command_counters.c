/*
 * Every enqueue entry point of the dispatch table: what the layer knows of the command (bytes
 * it moves, work-items and work-groups it runs), recorded for the event the program gets back.
 *
 * A command is counted when its queue was created with counters and the program asked for an
 * event: the results are read from that event, so a command without one could never be read.
 * For those the layer makes no internal event and adds nothing but one table lookup.
 *
 * Bytes Transferred, from the arguments (OpenCL gives no other source):
 *   read/write/copy/fill buffer: size; *Rect: region[0]*region[1]*region[2];
 *   image read/write/copy/fill and image<->buffer copies: region pixels * CL_IMAGE_ELEMENT_SIZE;
 *   map: the mapped size (0 with CL_MAP_WRITE_INVALIDATE_REGION: nothing must reach the host);
 *   unmap: the mapped size when the mapping was writable (data must reach the device), else 0;
 *   migrate: the objects' CL_MEM_SIZE (0 with CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED);
 *   SVM memcpy/memfill/map/unmap likewise; kernels, tasks, native kernels, markers, barriers,
 *   GL/EGL acquire and release, SVM free: 0.
 * A copy counts its bytes once (what is copied), not once read and once written.
 */
#include <stdlib.h>
#include <string.h>

#include "cl/layer.h"

/* Mappings the layer saw, so that an unmap knows what it writes back: keyed by the mapped
 * pointer; entries of the same pointer (two mappings of one region) are chained. */
struct map_entry {
    cl_mem mem;            /* NULL for SVM */
    uint64_t bytes;
    int writable;
    struct map_entry *next;
};
struct perfq_cl_table perfq_cl_maps = PERFQ_CL_TABLE_INIT;

int perfq_cl_command_begin(cl_command_queue queue, cl_event *event,
                           struct perfq_cl_command *cmd, cl_device_id *device)
{
    if (!event || perfq_cl_table_count_hint(&perfq_cl_queues) == 0)
        return 0;
    pthread_mutex_lock(&perfq_cl_queues.lock);
    struct perfq_cl_queue *q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
    if (q) {
        memset(cmd, 0, sizeof(*cmd));
        cmd->config = perfq_cl_config_ref(q->config);
        cmd->program_profiling = q->program_profiling;
        cmd->bytes_known = 1;
        if (device)
            *device = q->device;
    }
    pthread_mutex_unlock(&perfq_cl_queues.lock);
    return q != NULL;
}

cl_int perfq_cl_command_end(struct perfq_cl_command *cmd, cl_int err, cl_event *event)
{
    /* The record takes over the config reference; without one (the command failed, or no
     * memory for the record: its counters then read CL_PROFILING_INFO_NOT_AVAILABLE) it goes. */
    if (err != CL_SUCCESS || !*event || perfq_cl_event_record(*event, cmd) != 0)
        perfq_cl_config_unref(cmd->config);
    cmd->config = NULL;
    return err;
}

/* The usual shape: forward untouched unless counted; when counted, learn, forward, record. */
#define FORWARD_COUNTED(call, learn)                                   \
    do {                                                               \
        struct perfq_cl_command cmd;                                   \
        cl_device_id device = NULL;                                    \
        if (!perfq_cl_command_begin(queue, event, &cmd, &device))      \
            return call;                                               \
        (void)device;                                                  \
        learn;                                                         \
        return perfq_cl_command_end(&cmd, call, event);                \
    } while (0)

static uint64_t region_volume(const size_t *region)
{
    return (uint64_t)region[0] * region[1] * region[2];
}

static void image_bytes(struct perfq_cl_command *cmd, cl_mem image, const size_t *region)
{
    size_t element = 0;
    if (!region || perfq_cl_next.clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof(element),
                                                &element, NULL) != CL_SUCCESS) {
        cmd->bytes_known = 0;   /* the driver will refuse the command anyway */
        return;
    }
    cmd->bytes = region_volume(region) * element;
}

static void rect_bytes(struct perfq_cl_command *cmd, const size_t *region)
{
    if (region)
        cmd->bytes = region_volume(region);
    else
        cmd->bytes_known = 0;
}

/* --- buffers --------------------------------------------------------------------------- */

static cl_int CL_API_CALL EnqueueReadBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                                 cl_bool blocking, size_t offset, size_t size,
                                                 void *ptr, cl_uint n, const cl_event *wl,
                                                 cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueReadBuffer(queue, buffer, blocking, offset, size, ptr,
                                                      n, wl, event),
                    cmd.bytes = size);
}

static cl_int CL_API_CALL EnqueueWriteBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, size_t offset, size_t size,
                                                  const void *ptr, cl_uint n, const cl_event *wl,
                                                  cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueWriteBuffer(queue, buffer, blocking, offset, size,
                                                       ptr, n, wl, event),
                    cmd.bytes = size);
}

static cl_int CL_API_CALL EnqueueCopyBuffer_wrap(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                 size_t src_offset, size_t dst_offset,
                                                 size_t size, cl_uint n, const cl_event *wl,
                                                 cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyBuffer(queue, src, dst, src_offset, dst_offset,
                                                      size, n, wl, event),
                    cmd.bytes = size);
}

static cl_int CL_API_CALL EnqueueFillBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                                 const void *pattern, size_t pattern_size,
                                                 size_t offset, size_t size, cl_uint n,
                                                 const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueFillBuffer(queue, buffer, pattern, pattern_size,
                                                      offset, size, n, wl, event),
                    cmd.bytes = size);
}

static cl_int CL_API_CALL EnqueueReadBufferRect_wrap(
    cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, void *ptr,
    cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueReadBufferRect(
                        queue, buffer, blocking, buffer_origin, host_origin, region,
                        buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                        ptr, n, wl, event),
                    rect_bytes(&cmd, region));
}

static cl_int CL_API_CALL EnqueueWriteBufferRect_wrap(
    cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueWriteBufferRect(
                        queue, buffer, blocking, buffer_origin, host_origin, region,
                        buffer_row_pitch, buffer_slice_pitch, host_row_pitch, host_slice_pitch,
                        ptr, n, wl, event),
                    rect_bytes(&cmd, region));
}

static cl_int CL_API_CALL EnqueueCopyBufferRect_wrap(
    cl_command_queue queue, cl_mem src, cl_mem dst, const size_t *src_origin,
    const size_t *dst_origin, const size_t *region, size_t src_row_pitch,
    size_t src_slice_pitch, size_t dst_row_pitch, size_t dst_slice_pitch, cl_uint n,
    const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyBufferRect(
                        queue, src, dst, src_origin, dst_origin, region, src_row_pitch,
                        src_slice_pitch, dst_row_pitch, dst_slice_pitch, n, wl, event),
                    rect_bytes(&cmd, region));
}

/* --- images ---------------------------------------------------------------------------- */

static cl_int CL_API_CALL EnqueueReadImage_wrap(cl_command_queue queue, cl_mem image,
                                                cl_bool blocking, const size_t *origin,
                                                const size_t *region, size_t row_pitch,
                                                size_t slice_pitch, void *ptr, cl_uint n,
                                                const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueReadImage(queue, image, blocking, origin, region,
                                                     row_pitch, slice_pitch, ptr, n, wl, event),
                    image_bytes(&cmd, image, region));
}

static cl_int CL_API_CALL EnqueueWriteImage_wrap(cl_command_queue queue, cl_mem image,
                                                 cl_bool blocking, const size_t *origin,
                                                 const size_t *region, size_t row_pitch,
                                                 size_t slice_pitch, const void *ptr, cl_uint n,
                                                 const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueWriteImage(queue, image, blocking, origin, region,
                                                      row_pitch, slice_pitch, ptr, n, wl, event),
                    image_bytes(&cmd, image, region));
}

static cl_int CL_API_CALL EnqueueCopyImage_wrap(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                const size_t *src_origin,
                                                const size_t *dst_origin, const size_t *region,
                                                cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyImage(queue, src, dst, src_origin, dst_origin,
                                                     region, n, wl, event),
                    image_bytes(&cmd, src, region));
}

static cl_int CL_API_CALL EnqueueFillImage_wrap(cl_command_queue queue, cl_mem image,
                                                const void *fill_color, const size_t *origin,
                                                const size_t *region, cl_uint n,
                                                const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueFillImage(queue, image, fill_color, origin, region,
                                                     n, wl, event),
                    image_bytes(&cmd, image, region));
}

static cl_int CL_API_CALL EnqueueCopyImageToBuffer_wrap(cl_command_queue queue, cl_mem src,
                                                        cl_mem dst, const size_t *src_origin,
                                                        const size_t *region, size_t dst_offset,
                                                        cl_uint n, const cl_event *wl,
                                                        cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyImageToBuffer(queue, src, dst, src_origin, region,
                                                             dst_offset, n, wl, event),
                    image_bytes(&cmd, src, region));
}

static cl_int CL_API_CALL EnqueueCopyBufferToImage_wrap(cl_command_queue queue, cl_mem src,
                                                        cl_mem dst, size_t src_offset,
                                                        const size_t *dst_origin,
                                                        const size_t *region, cl_uint n,
                                                        const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyBufferToImage(queue, src, dst, src_offset,
                                                             dst_origin, region, n, wl, event),
                    image_bytes(&cmd, dst, region));
}

/* --- map, unmap, migrate --------------------------------------------------------------- */

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
        image_bytes(&probe, image, region);
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

static void migrate_bytes(struct perfq_cl_command *cmd, cl_uint count, const cl_mem *mems,
                          cl_mem_migration_flags flags)
{
    /* CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED: only the placement moves, not the contents. */
    if (flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)
        return;
    for (cl_uint i = 0; mems && i < count; i++) {
        size_t size = 0;
        if (perfq_cl_next.clGetMemObjectInfo(mems[i], CL_MEM_SIZE, sizeof(size), &size, NULL) !=
            CL_SUCCESS) {
            cmd->bytes_known = 0;
            return;
        }
        cmd->bytes += size;
    }
}

static cl_int CL_API_CALL EnqueueMigrateMemObjects_wrap(cl_command_queue queue, cl_uint count,
                                                        const cl_mem *mems,
                                                        cl_mem_migration_flags flags, cl_uint n,
                                                        const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueMigrateMemObjects(queue, count, mems, flags, n, wl,
                                                             event),
                    migrate_bytes(&cmd, count, mems, flags));
}

/* --- kernels --------------------------------------------------------------------------- */

static void ndrange_sizes(struct perfq_cl_command *cmd, cl_kernel kernel, cl_device_id device,
                          cl_uint dims, const size_t *global, const size_t *local)
{
    if (dims < 1 || dims > 3 || !global)
        return;   /* the driver refuses the command */
    size_t compiled[3] = {0, 0, 0};
    if (!local && perfq_cl_next.clGetKernelWorkGroupInfo(
                      kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE, sizeof(compiled),
                      compiled, NULL) == CL_SUCCESS && compiled[0] && compiled[1] && compiled[2])
        local = compiled;   /* reqd_work_group_size: the driver must use it */
    uint64_t items = 1, groups = 1;
    for (cl_uint i = 0; i < dims; i++) {
        items *= global[i];
        if (local && local[i])
            groups *= (global[i] + local[i] - 1) / local[i];   /* non-uniform: the last is partial */
        else
            groups = 0;
    }
    cmd->work_items = items;
    /* NULL local size and no reqd_work_group_size: the driver chose the work-group size and
     * OpenCL has no query for the size it chose. 0 says "not known", never a guess. */
    cmd->work_groups = local ? groups : 0;
}

static cl_int CL_API_CALL EnqueueNDRangeKernel_wrap(cl_command_queue queue, cl_kernel kernel,
                                                    cl_uint dims, const size_t *offset,
                                                    const size_t *global, const size_t *local,
                                                    cl_uint n, const cl_event *wl,
                                                    cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueNDRangeKernel(queue, kernel, dims, offset, global,
                                                         local, n, wl, event),
                    ndrange_sizes(&cmd, kernel, device, dims, global, local));
}

static cl_int CL_API_CALL EnqueueTask_wrap(cl_command_queue queue, cl_kernel kernel, cl_uint n,
                                           const cl_event *wl, cl_event *event)
{
    /* "equivalent to calling clEnqueueNDRangeKernel with work_dim = 1, global_work_offset =
     * NULL, global_work_size[0] set to 1 and local_work_size[0] set to 1". */
    FORWARD_COUNTED(perfq_cl_next.clEnqueueTask(queue, kernel, n, wl, event),
                    (cmd.work_items = 1, cmd.work_groups = 1));
}

static cl_int CL_API_CALL EnqueueNativeKernel_wrap(cl_command_queue queue,
                                                   void(CL_CALLBACK *user_func)(void *),
                                                   void *args, size_t cb_args,
                                                   cl_uint num_mem_objects, const cl_mem *mem_list,
                                                   const void **args_mem_loc, cl_uint n,
                                                   const cl_event *wl, cl_event *event)
{
    /* A host function, not an NDRange: no work-items, no bytes the layer can know. */
    FORWARD_COUNTED(perfq_cl_next.clEnqueueNativeKernel(queue, user_func, args, cb_args,
                                                        num_mem_objects, mem_list, args_mem_loc,
                                                        n, wl, event),
                    (void)0);
}

/* --- synchronisation and interop: nothing moved, nothing run --------------------------- */

static cl_int CL_API_CALL EnqueueMarker_wrap(cl_command_queue queue, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueMarker(queue, event), (void)0);
}

static cl_int CL_API_CALL EnqueueMarkerWithWaitList_wrap(cl_command_queue queue, cl_uint n,
                                                         const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueMarkerWithWaitList(queue, n, wl, event), (void)0);
}

static cl_int CL_API_CALL EnqueueBarrierWithWaitList_wrap(cl_command_queue queue, cl_uint n,
                                                          const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueBarrierWithWaitList(queue, n, wl, event), (void)0);
}

static cl_int CL_API_CALL EnqueueAcquireGLObjects_wrap(cl_command_queue queue, cl_uint count,
                                                       const cl_mem *mems, cl_uint n,
                                                       const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueAcquireGLObjects(queue, count, mems, n, wl, event),
                    (void)0);
}

static cl_int CL_API_CALL EnqueueReleaseGLObjects_wrap(cl_command_queue queue, cl_uint count,
                                                       const cl_mem *mems, cl_uint n,
                                                       const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueReleaseGLObjects(queue, count, mems, n, wl, event),
                    (void)0);
}

static cl_int CL_API_CALL EnqueueAcquireEGLObjectsKHR_wrap(cl_command_queue queue, cl_uint count,
                                                           const cl_mem *mems, cl_uint n,
                                                           const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueAcquireEGLObjectsKHR(queue, count, mems, n, wl, event),
                    (void)0);
}

static cl_int CL_API_CALL EnqueueReleaseEGLObjectsKHR_wrap(cl_command_queue queue, cl_uint count,
                                                           const cl_mem *mems, cl_uint n,
                                                           const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueReleaseEGLObjectsKHR(queue, count, mems, n, wl, event),
                    (void)0);
}

/* --- shared virtual memory (2.0, 2.1) -------------------------------------------------- */

static cl_int CL_API_CALL EnqueueSVMFree_wrap(
    cl_command_queue queue, cl_uint count, void **ptrs,
    void(CL_CALLBACK *pfn)(cl_command_queue, cl_uint, void **, void *), void *user_data,
    cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueSVMFree(queue, count, ptrs, pfn, user_data, n, wl,
                                                   event),
                    (void)0);
}

static cl_int CL_API_CALL EnqueueSVMMemcpy_wrap(cl_command_queue queue, cl_bool blocking,
                                                void *dst, const void *src, size_t size,
                                                cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueSVMMemcpy(queue, blocking, dst, src, size, n, wl,
                                                     event),
                    cmd.bytes = size);
}

static cl_int CL_API_CALL EnqueueSVMMemFill_wrap(cl_command_queue queue, void *ptr,
                                                 const void *pattern, size_t pattern_size,
                                                 size_t size, cl_uint n, const cl_event *wl,
                                                 cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueSVMMemFill(queue, ptr, pattern, pattern_size, size, n,
                                                      wl, event),
                    cmd.bytes = size);
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

static void svm_migrate_bytes(struct perfq_cl_command *cmd, cl_uint count, const size_t *sizes,
                              cl_mem_migration_flags flags)
{
    if (flags & CL_MIGRATE_MEM_OBJECT_CONTENT_UNDEFINED)
        return;
    /* A size of 0 (or no sizes) means "the whole allocation", whose size OpenCL cannot be
     * asked: the bytes are then unknown and the command's results are not available. */
    for (cl_uint i = 0; i < count; i++) {
        if (!sizes || !sizes[i]) {
            cmd->bytes_known = 0;
            return;
        }
        cmd->bytes += sizes[i];
    }
}

static cl_int CL_API_CALL EnqueueSVMMigrateMem_wrap(cl_command_queue queue, cl_uint count,
                                                    const void **ptrs, const size_t *sizes,
                                                    cl_mem_migration_flags flags, cl_uint n,
                                                    const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueSVMMigrateMem(queue, count, ptrs, sizes, flags, n, wl,
                                                         event),
                    svm_migrate_bytes(&cmd, count, sizes, flags));
}

void perfq_cl_install_command_counters(cl_icd_dispatch *d)
{
    d->clEnqueueReadBuffer = EnqueueReadBuffer_wrap;
    d->clEnqueueWriteBuffer = EnqueueWriteBuffer_wrap;
    d->clEnqueueCopyBuffer = EnqueueCopyBuffer_wrap;
    d->clEnqueueFillBuffer = EnqueueFillBuffer_wrap;
    d->clEnqueueReadBufferRect = EnqueueReadBufferRect_wrap;
    d->clEnqueueWriteBufferRect = EnqueueWriteBufferRect_wrap;
    d->clEnqueueCopyBufferRect = EnqueueCopyBufferRect_wrap;
    d->clEnqueueReadImage = EnqueueReadImage_wrap;
    d->clEnqueueWriteImage = EnqueueWriteImage_wrap;
    d->clEnqueueCopyImage = EnqueueCopyImage_wrap;
    d->clEnqueueFillImage = EnqueueFillImage_wrap;
    d->clEnqueueCopyImageToBuffer = EnqueueCopyImageToBuffer_wrap;
    d->clEnqueueCopyBufferToImage = EnqueueCopyBufferToImage_wrap;
    d->clEnqueueMapBuffer = EnqueueMapBuffer_wrap;
    d->clEnqueueMapImage = EnqueueMapImage_wrap;
    d->clEnqueueUnmapMemObject = EnqueueUnmapMemObject_wrap;
    d->clEnqueueMigrateMemObjects = EnqueueMigrateMemObjects_wrap;
    d->clEnqueueNDRangeKernel = EnqueueNDRangeKernel_wrap;
    d->clEnqueueTask = EnqueueTask_wrap;
    d->clEnqueueNativeKernel = EnqueueNativeKernel_wrap;
    d->clEnqueueMarker = EnqueueMarker_wrap;
    d->clEnqueueMarkerWithWaitList = EnqueueMarkerWithWaitList_wrap;
    d->clEnqueueBarrierWithWaitList = EnqueueBarrierWithWaitList_wrap;
    d->clEnqueueAcquireGLObjects = EnqueueAcquireGLObjects_wrap;
    d->clEnqueueReleaseGLObjects = EnqueueReleaseGLObjects_wrap;
    d->clEnqueueAcquireEGLObjectsKHR = EnqueueAcquireEGLObjectsKHR_wrap;
    d->clEnqueueReleaseEGLObjectsKHR = EnqueueReleaseEGLObjectsKHR_wrap;
    d->clEnqueueSVMFree = EnqueueSVMFree_wrap;
    d->clEnqueueSVMMemcpy = EnqueueSVMMemcpy_wrap;
    d->clEnqueueSVMMemFill = EnqueueSVMMemFill_wrap;
    d->clEnqueueSVMMap = EnqueueSVMMap_wrap;
    d->clEnqueueSVMUnmap = EnqueueSVMUnmap_wrap;
    d->clEnqueueSVMMigrateMem = EnqueueSVMMigrateMem_wrap;
}

static void free_map_chain(void *v)
{
    for (struct map_entry *e = v, *next; e; e = next) {
        next = e->next;
        free(e);
    }
}

void perfq_cl_command_counters_fini(void)
{
    perfq_cl_table_clear(&perfq_cl_maps, free_map_chain);
}
