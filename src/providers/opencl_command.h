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
/* Counters of commands on NVIDIA devices, from the NVML sampler's history (listed by the layer
 * only on devices it matched to an NVML device). */
#define PERFQ_CL_NVIDIA_GROUP_NAME "opencl-command-nvidia"

/* perfq_counter_desc.code of each counter: what the layer computes for it. */
enum perfq_cl_counter_code {
    PERFQ_CL_COMMAND_DURATION = 1,   /* END - START of the command's event profiling */
    PERFQ_CL_BYTES_TRANSFERRED = 2,  /* from the command's arguments */
    PERFQ_CL_QUEUED_TO_START = 3,    /* START - QUEUED */
    PERFQ_CL_WORK_ITEMS = 4,         /* NDRange: product of the global sizes */
    PERFQ_CL_WORK_GROUPS = 5,        /* NDRange: product of ceil(global / local) */
    /* NVIDIA devices: over [START, END] of the command, placed on CLOCK_MONOTONIC. */
    PERFQ_CL_NV_ENERGY = 16,         /* J: integral of NVML's power */
    PERFQ_CL_NV_POWER = 17,          /* W: its mean */
    PERFQ_CL_NV_SM_CLOCK = 18,       /* Hz: mean SM clock */
    PERFQ_CL_NV_MEM_CLOCK = 19,      /* Hz: mean memory clock */
    PERFQ_CL_NV_SAMPLES = 20,        /* NVML samples taken within the command */
};
#define PERFQ_CL_NV_FIRST PERFQ_CL_NV_ENERGY

/* probe's arg: non-NULL (any pointer) when the OpenCL layer opens the instance, so that the
 * counters are available; NULL when listed by libperfq, where they are marked unavailable. */
PERFQ_API extern const struct perfq_provider_ops perfq_cl_command_provider;

#endif
