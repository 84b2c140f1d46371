/*
 * Commands that run work or only order it: NDRange kernels (Work Items, Work Groups), tasks,
 * native kernels, markers, barriers, GL/EGL acquire and release, SVM free. None moves bytes the
 * layer can know: Bytes Transferred 0.
 */
#include "cl/command_counters.h"

/* --- kernels --------------------------------------------------------------------------- */

static void ndrange_sizes(struct perfq_cl_command *cmd, cl_kernel kernel, cl_device_id device,
                          cl_uint dims, const size_t *global, const size_t *local)
{
    cmd->kernel = kernel;
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
                    (cmd.work_items = 1, cmd.work_groups = 1, cmd.kernel = kernel));
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

static cl_int CL_API_CALL EnqueueSVMFree_wrap(
    cl_command_queue queue, cl_uint count, void **ptrs,
    void(CL_CALLBACK *pfn)(cl_command_queue, cl_uint, void **, void *), void *user_data,
    cl_uint n, const cl_event *wl, cl_event *event)
{
    FORWARD_COUNTED(perfq_cl_next.clEnqueueSVMFree(queue, count, ptrs, pfn, user_data, n, wl,
                                                   event),
                    (void)0);
}

void perfq_cl_install_kernel_commands(cl_icd_dispatch *d)
{
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
}
