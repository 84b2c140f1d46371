// The real headers' side of the CUPTI ABI check (C++: cupti_profiler_host.h includes <string>).
// Also assigns every function perfq resolves to a pointer of perfq's declared type, written
// with the real headers' types: a signature that differs does not compile.
#include <cuda.h>
#include <cupti_activity.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#define PERFQ_CUPTI_REAL_HEADERS 1
#include "providers/cupti_api.h"
#include "cupti_abi_side.h"
#include "cupti_abi_facts.h"

extern "C" const struct cupti_fact perfq_cupti_facts_real[] = {PERFQ_CUPTI_FACTS};

#define PERFQ_CHECK_FN(name, ret, args) [[maybe_unused]] static ret(*const check_##name) args = &::name;
PERFQ_CUDA_FUNCTIONS(PERFQ_CHECK_FN)
PERFQ_CUPTI_FUNCTIONS(PERFQ_CHECK_FN)
PERFQ_CUDA_RANGE_FUNCTIONS(PERFQ_CHECK_FN)
PERFQ_CUPTI_RANGE_FUNCTIONS(PERFQ_CHECK_FN)
