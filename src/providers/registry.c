/* The built-in providers, in the order they are probed and listed. Adding a source of counters
 * is one file and one line here. */
#include "core/instance.h"
#include "providers/builtin_providers.h"
#include "providers/gl_memory.h"
#include "providers/opencl_command.h"

const struct perfq_provider_ops *const perfq__builtin_providers[] = {
    &perfq_host_perf_provider,
    &perfq_host_rusage_provider,
    &perfq_host_procio_provider,
    &perfq_host_clock_provider,
    &perfq_cl_command_provider,
    &perfq_gl_memory_catalog_provider,
    &perfq_nvml_provider, &perfq_gpm_provider,
    &perfq_cupti_provider,
    &perfq_cupti_range_provider,
};
const size_t perfq__builtin_provider_count =
    sizeof(perfq__builtin_providers) / sizeof(perfq__builtin_providers[0]);
