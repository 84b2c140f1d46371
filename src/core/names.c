/* Names of the enumerations, as `perfq list` and the JSON output print them. */
#include "perfq/perfq.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const unit_names[] = {
    [PERFQ_UNIT_GENERIC] = "count",       [PERFQ_UNIT_PERCENTAGE] = "%",
    [PERFQ_UNIT_NANOSECONDS] = "ns",      [PERFQ_UNIT_BYTES] = "bytes",
    [PERFQ_UNIT_BYTES_PER_SECOND] = "bytes/s", [PERFQ_UNIT_KELVIN] = "K",
    [PERFQ_UNIT_WATTS] = "W",             [PERFQ_UNIT_VOLTS] = "V",
    [PERFQ_UNIT_AMPS] = "A",              [PERFQ_UNIT_HERTZ] = "Hz",
    [PERFQ_UNIT_CYCLES] = "cycles",       [PERFQ_UNIT_JOULES] = "J",
};
static const char *const storage_names[] = {
    [PERFQ_STORAGE_INT32] = "int32",   [PERFQ_STORAGE_INT64] = "int64",
    [PERFQ_STORAGE_UINT32] = "uint32", [PERFQ_STORAGE_UINT64] = "uint64",
    [PERFQ_STORAGE_FLOAT32] = "float32", [PERFQ_STORAGE_FLOAT64] = "float64",
    [PERFQ_STORAGE_BOOL32] = "bool32",
};
static const size_t storage_sizes[] = {
    [PERFQ_STORAGE_INT32] = 4, [PERFQ_STORAGE_INT64] = 8, [PERFQ_STORAGE_UINT32] = 4,
    [PERFQ_STORAGE_UINT64] = 8, [PERFQ_STORAGE_FLOAT32] = 4, [PERFQ_STORAGE_FLOAT64] = 8,
    [PERFQ_STORAGE_BOOL32] = 4,
};
static const char *const intel_type_names[] = {
    [PERFQ_INTEL_EVENT] = "event",         [PERFQ_INTEL_DURATION_NORM] = "duration-norm",
    [PERFQ_INTEL_DURATION_RAW] = "duration-raw", [PERFQ_INTEL_THROUGHPUT] = "throughput",
    [PERFQ_INTEL_RAW] = "raw",             [PERFQ_INTEL_TIMESTAMP] = "timestamp",
};
static const char *const scope_names[] = {
    [PERFQ_SCOPE_PROCESS] = "process", [PERFQ_SCOPE_DEVICE] = "device",
    [PERFQ_SCOPE_SYSTEM] = "system",   [PERFQ_SCOPE_GPU_TIMELINE] = "gpu-timeline",
};

_Static_assert(ARRAY_SIZE(unit_names) == PERFQ_UNIT_COUNT, "unit names");
_Static_assert(ARRAY_SIZE(storage_names) == PERFQ_STORAGE_COUNT, "storage names");
_Static_assert(ARRAY_SIZE(storage_sizes) == PERFQ_STORAGE_COUNT, "storage sizes");
_Static_assert(ARRAY_SIZE(intel_type_names) == PERFQ_INTEL_TYPE_COUNT, "intel type names");
_Static_assert(ARRAY_SIZE(scope_names) == PERFQ_SCOPE_COUNT, "scope names");

/* Enum values come from callers: compare as unsigned so negative values are out of range too. */
const char *perfq_unit_name(perfq_unit_t unit)
{
    return (unsigned)unit < ARRAY_SIZE(unit_names) ? unit_names[unit] : NULL;
}

const char *perfq_storage_name(perfq_storage_t storage)
{
    return (unsigned)storage < ARRAY_SIZE(storage_names) ? storage_names[storage] : NULL;
}

size_t perfq_storage_size(perfq_storage_t storage)
{
    return (unsigned)storage < ARRAY_SIZE(storage_sizes) ? storage_sizes[storage] : 0;
}

const char *perfq_intel_type_name(perfq_intel_type_t type)
{
    return (unsigned)type < ARRAY_SIZE(intel_type_names) ? intel_type_names[type] : NULL;
}

const char *perfq_scope_name(perfq_scope_t scope)
{
    return (unsigned)scope < ARRAY_SIZE(scope_names) ? scope_names[scope] : NULL;
}

double perfq_value_as_double(const perfq_value_t *value, perfq_storage_t storage)
{
    if (!value)
        return 0.0;
    switch (storage) {
    case PERFQ_STORAGE_INT32: return value->v.i32;
    case PERFQ_STORAGE_INT64: return (double)value->v.i64;
    case PERFQ_STORAGE_UINT32:
    case PERFQ_STORAGE_BOOL32: return value->v.u32;
    case PERFQ_STORAGE_UINT64: return (double)value->v.u64;
    case PERFQ_STORAGE_FLOAT32: return value->v.f32;
    case PERFQ_STORAGE_FLOAT64: return value->v.f64;
    }
    return 0.0;
}
