/*
 * The built-in providers' vtables, each defined in its own file and listed once in registry.c
 * (gl_memory.h and opencl_command.h declare the two that also carry catalog data). Each
 * provider's file includes this header, so a definition and its declaration cannot disagree.
 */
#ifndef PERFQ_PROVIDERS_BUILTIN_PROVIDERS_H
#define PERFQ_PROVIDERS_BUILTIN_PROVIDERS_H

#include "core/provider.h"

extern const struct perfq_provider_ops perfq_host_perf_provider;
extern const struct perfq_provider_ops perfq_host_rusage_provider;
extern const struct perfq_provider_ops perfq_host_procio_provider;
extern const struct perfq_provider_ops perfq_host_clock_provider;
extern const struct perfq_provider_ops perfq_nvml_provider;
extern const struct perfq_provider_ops perfq_gpm_provider;
extern const struct perfq_provider_ops perfq_cupti_provider;
extern const struct perfq_provider_ops perfq_cupti_range_provider;

#endif
