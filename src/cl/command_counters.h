/*
 * Shared by the enqueue wrappers (command_counters.c, transfer_commands.c, map_commands.c,
 * kernel_commands.c): the usual wrapper shape and the byte helpers.
 */
#ifndef PERFQ_CL_COMMAND_COUNTERS_H
#define PERFQ_CL_COMMAND_COUNTERS_H

#include "cl/layer.h"

/* The usual shape: forward untouched unless counted; when counted, learn, forward, record.
 * Expects `queue` and `event` parameters in the wrapper; `cmd` and `device` are in scope for
 * `learn`. */
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

/* region[0] * region[1] * region[2]. */
uint64_t perfq_cl_region_volume(const size_t *region);
/* Image commands: region pixels * CL_IMAGE_ELEMENT_SIZE of image (bytes_known 0 if unknown). */
void perfq_cl_image_bytes(struct perfq_cl_command *cmd, cl_mem image, const size_t *region);

void perfq_cl_install_transfer_commands(cl_icd_dispatch *d);
void perfq_cl_install_map_commands(cl_icd_dispatch *d);
void perfq_cl_install_kernel_commands(cl_icd_dispatch *d);
void perfq_cl_map_commands_fini(void);

#endif
