/*
 * What the two CUPTI providers share (cupti_pm.c: PM sampling for "cupti"; cupti_range.c: the
 * range profiler, "cupti-range"): opening libcuda.so.1 and libcupti with dlopen, resolving the
 * functions of cupti_api.h's lists into a provider's table, the driver's first calls, and what a
 * refusal means to the user. Each provider keeps its own table and its own process state.
 */
#ifndef PERFQ_PROVIDERS_CUPTI_LIB_H
#define PERFQ_PROVIDERS_CUPTI_LIB_H

#include <stddef.h>

#include "providers/cupti_api.h"

/* The functions a provider calls, resolved by it: PM sampling fills the CUDA and CUPTI lists,
 * the range profiler all four (the *_RANGE lists are NULL in PM sampling's table). */
struct perfq_cupti_fns {
#define PERFQ_CUPTI_FN(name, ret, args) ret(*name) args;
    PERFQ_CUDA_FUNCTIONS(PERFQ_CUPTI_FN)
    PERFQ_CUDA_RANGE_FUNCTIONS(PERFQ_CUPTI_FN)
    PERFQ_CUPTI_FUNCTIONS(PERFQ_CUPTI_FN)
    PERFQ_CUPTI_RANGE_FUNCTIONS(PERFQ_CUPTI_FN)
#undef PERFQ_CUPTI_FN
};

/* libcuda.so.1 (the NVIDIA driver) and the CUDA functions into f, with the range profiler's
 * (PERFQ_CUDA_RANGE_FUNCTIONS) where `range`. The library stays loaded for the process's life
 * (CUPTI keeps threads). 0, or -1 with the reason. */
int perfq__cupti_load_cuda(struct perfq_cupti_fns *f, int range, char *reason, size_t size);
/* libcupti ($PERFQ_CUPTI_LIBRARY, else the CUDA toolkit's usual places) and the CUPTI functions
 * into f, with PERFQ_CUPTI_RANGE_FUNCTIONS where `range`; needs no driver. 0, or -1 with the
 * reason. */
int perfq__cupti_load_cupti(struct perfq_cupti_fns *f, int range, char *reason, size_t size);
/* With both loaded: cuInit, the device count (> 0) and cuptiProfilerInitialize. 0 and *count,
 * or -1 with the reason. */
int perfq__cupti_init_driver(const struct perfq_cupti_fns *f, int *count, char *reason,
                             size_t size);
/* "call: CUPTI's message (what it means to the user)" for a refusal. */
void perfq__cupti_explain(const struct perfq_cupti_fns *f, char *out, size_t size,
                          const char *call, CUptiResult rc);
/* Deinitialises a host object (NULL: nothing) and clears *host. */
void perfq__cupti_host_free(const struct perfq_cupti_fns *f, CUpti_Profiler_Host_Object **host);

#endif
