/*
 * The "opencl" provider: the counters perfq counts for each OpenCL command, as catalog data.
 * This file knows nothing of OpenCL, so that libperfq itself may list the counters (they are
 * then marked unavailable there: only the OpenCL layer, which sees each command, counts them).
 */
#ifndef PERFQ_PROVIDERS_OPENCL_COMMAND_H
#define PERFQ_PROVIDERS_OPENCL_COMMAND_H

#include "core/provider.h"

#define PERFQ_CL_PROVIDER_NAME "opencl"
#define PERFQ_CL_GROUP_NAME "opencl-command"

/* perfq_counter_desc.code of each counter: what the layer computes for it. */
enum perfq_cl_counter_code {
    PERFQ_CL_COMMAND_DURATION = 1,   /* END - START of the command's event profiling */
    PERFQ_CL_BYTES_TRANSFERRED = 2,  /* from the command's arguments */
    PERFQ_CL_QUEUED_TO_START = 3,    /* START - QUEUED */
    PERFQ_CL_WORK_ITEMS = 4,         /* NDRange: product of the global sizes */
    PERFQ_CL_WORK_GROUPS = 5,        /* NDRange: product of ceil(global / local) */
};

/* probe's arg: non-NULL (any pointer) when the OpenCL layer opens the instance, so that the
 * counters are available; NULL when listed by libperfq, where they are marked unavailable. */
PERFQ_API extern const struct perfq_provider_ops perfq_cl_command_provider;

#endif
