/*
 * Commands that move bytes the arguments name: buffer and image reads, writes, copies and
 * fills (rect variants by region), migrations, SVM memcpy/memfill/migrate. See
 * command_counters.c for what is counted and docs/opencl-layer.md for the table.
 */
#include "cl/command_counters.h"

static void rect_bytes(struct perfq_cl_command *cmd, const size_t *region)
{
    if (region)
        cmd->bytes = perfq_cl_region_volume(region);
    else
        cmd->bytes_known = 0;
}

/* --- buffers --------------------------------------------------------------------------- */

static cl_int CL_API_CALL EnqueueReadBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                                 cl_bool blocking, size_t offset, size_t size,
                                                 void *ptr, cl_uint n, const cl_event *wl,
                                                 cl_event *event)
{
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueReadBuffer(queue, buffer, blocking, offset, size,
                                                           ptr, n, wl, event),
                         cmd.bytes = size, blocking);
}

static cl_int CL_API_CALL EnqueueWriteBuffer_wrap(cl_command_queue queue, cl_mem buffer,
                                                  cl_bool blocking, size_t offset, size_t size,
                                                  const void *ptr, cl_uint n, const cl_event *wl,
                                                  cl_event *event)
{
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueWriteBuffer(queue, buffer, blocking, offset,
                                                            size, ptr, n, wl, event),
                         cmd.bytes = size, blocking);
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
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueReadBufferRect(
                             queue, buffer, blocking, buffer_origin, host_origin, region,
                             buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                             host_slice_pitch, ptr, n, wl, event),
                         rect_bytes(&cmd, region), blocking);
}

static cl_int CL_API_CALL EnqueueWriteBufferRect_wrap(
    cl_command_queue queue, cl_mem buffer, cl_bool blocking, const size_t *buffer_origin,
    const size_t *host_origin, const size_t *region, size_t buffer_row_pitch,
    size_t buffer_slice_pitch, size_t host_row_pitch, size_t host_slice_pitch, const void *ptr,
    cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueWriteBufferRect(
                             queue, buffer, blocking, buffer_origin, host_origin, region,
                             buffer_row_pitch, buffer_slice_pitch, host_row_pitch,
                             host_slice_pitch, ptr, n, wl, event),
                         rect_bytes(&cmd, region), blocking);
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
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueReadImage(queue, image, blocking, origin, region,
                                                          row_pitch, slice_pitch, ptr, n, wl,
                                                          event),
                         perfq_cl_image_bytes(&cmd, image, region), blocking);
}

static cl_int CL_API_CALL EnqueueWriteImage_wrap(cl_command_queue queue, cl_mem image,
                                                 cl_bool blocking, const size_t *origin,
                                                 const size_t *region, size_t row_pitch,
                                                 size_t slice_pitch, const void *ptr, cl_uint n,
                                                 const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueWriteImage(queue, image, blocking, origin,
                                                           region, row_pitch, slice_pitch, ptr,
                                                           n, wl, event),
                         perfq_cl_image_bytes(&cmd, image, region), blocking);
}

static cl_int CL_API_CALL EnqueueCopyImage_wrap(cl_command_queue queue, cl_mem src, cl_mem dst,
                                                const size_t *src_origin,
                                                const size_t *dst_origin, const size_t *region,
                                                cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyImage(queue, src, dst, src_origin, dst_origin,
                                                     region, n, wl, event),
                    perfq_cl_image_bytes(&cmd, src, region));
}

static cl_int CL_API_CALL EnqueueFillImage_wrap(cl_command_queue queue, cl_mem image,
                                                const void *fill_color, const size_t *origin,
                                                const size_t *region, cl_uint n,
                                                const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueFillImage(queue, image, fill_color, origin, region,
                                                     n, wl, event),
                    perfq_cl_image_bytes(&cmd, image, region));
}

static cl_int CL_API_CALL EnqueueCopyImageToBuffer_wrap(cl_command_queue queue, cl_mem src,
                                                        cl_mem dst, const size_t *src_origin,
                                                        const size_t *region, size_t dst_offset,
                                                        cl_uint n, const cl_event *wl,
                                                        cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyImageToBuffer(queue, src, dst, src_origin, region,
                                                             dst_offset, n, wl, event),
                    perfq_cl_image_bytes(&cmd, src, region));
}

static cl_int CL_API_CALL EnqueueCopyBufferToImage_wrap(cl_command_queue queue, cl_mem src,
                                                        cl_mem dst, size_t src_offset,
                                                        const size_t *dst_origin,
                                                        const size_t *region, cl_uint n,
                                                        const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueCopyBufferToImage(queue, src, dst, src_offset,
                                                             dst_origin, region, n, wl, event),
                    perfq_cl_image_bytes(&cmd, dst, region));
}

/* --- migration ------------------------------------------------------------------------ */

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

/* --- shared virtual memory (2.0, 2.1) -------------------------------------------------- */

static cl_int CL_API_CALL EnqueueSVMMemcpy_wrap(cl_command_queue queue, cl_bool blocking,
                                                void *dst, const void *src, size_t size,
                                                cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED_SYNC(perfq_cl_next.clEnqueueSVMMemcpy(queue, blocking, dst, src, size, n,
                                                          wl, event),
                         cmd.bytes = size, blocking);
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

void perfq_cl_install_transfer_commands(cl_icd_dispatch *d)
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
    d->clEnqueueMigrateMemObjects = EnqueueMigrateMemObjects_wrap;
    d->clEnqueueSVMMemcpy = EnqueueSVMMemcpy_wrap;
    d->clEnqueueSVMMemFill = EnqueueSVMMemFill_wrap;
    d->clEnqueueSVMMigrateMem = EnqueueSVMMigrateMem_wrap;
}
