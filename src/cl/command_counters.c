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

#include "cl/command_counters.h"

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
    /* The host time just before the driver call: the driver stamps the event's QUEUED during
     * the call, so QUEUED is this time plus the few microseconds it takes to get there (taken
     * before, not after: a blocking call returns only once the command has run). */
    if (q && cmd->config->nvml_device >= 0)
        cmd->host_t0 = perfq_cl_stat_clock();
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

uint64_t perfq_cl_region_volume(const size_t *region)
{
    return (uint64_t)region[0] * region[1] * region[2];
}

void perfq_cl_image_bytes(struct perfq_cl_command *cmd, cl_mem image, const size_t *region)
{
    size_t element = 0;
    if (!region || perfq_cl_next.clGetImageInfo(image, CL_IMAGE_ELEMENT_SIZE, sizeof(element),
                                                &element, NULL) != CL_SUCCESS) {
        cmd->bytes_known = 0;   /* the driver will refuse the command anyway */
        return;
    }
    cmd->bytes = perfq_cl_region_volume(region) * element;
}

void perfq_cl_install_command_counters(cl_icd_dispatch *d)
{
    perfq_cl_install_transfer_commands(d);
    perfq_cl_install_map_commands(d);
    perfq_cl_install_kernel_commands(d);
}

void perfq_cl_command_counters_fini(void)
{
    perfq_cl_map_commands_fini();
}
