/*
 * libperfq-cl.so: an OpenCL ICD-loader layer (cl_loader_layers) that adds
 * cl_codeplay_performance_counters to every platform. This file: the layer entry points
 * (clGetLayerInfo, clInitLayer, clInitLayerWithProperties, clDeinitLayer), the counters taken
 * from perfq's catalog, and helpers shared by the wrappers. Loaders:
 *   - ocl-icd 2.3.1 (Debian): OPENCL_LAYERS=a.so:b.so, calls clGetLayerInfo(CL_LAYER_API_VERSION)
 *     then clInitLayer with its master dispatch as the target; fills our NULL entries from the
 *     target.
 *   - Khronos OpenCL-ICD-Loader: the same variable; prefers clInitLayerWithProperties and calls
 *     clDeinitLayer when it unloads.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "providers/opencl_command.h"
#include "cl/stat_commands.h"
#include "cl/layer.h"
#include <CL/cl_layer.h>
#include "core/provider.h"
#include "providers/nvml_interval.h"

/* The installed cl_layer.h (2023) predates clInitLayerWithProperties (OpenCL-Headers 2024). */
typedef cl_properties perfq_cl_layer_properties;
#define PERFQ_CL_LAYER_PROPERTIES_LIST_END ((perfq_cl_layer_properties)0)
PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayerWithProperties(
    cl_uint num_entries, const cl_icd_dispatch *target_dispatch, cl_uint *num_entries_ret,
    const cl_icd_dispatch **layer_dispatch_ret, const perfq_cl_layer_properties *properties);
PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clDeinitLayer(void);

cl_icd_dispatch perfq_cl_next;
static cl_icd_dispatch layer_dispatch;
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;  /* protects init/deinit */
static int initialized;

static perfq_t *catalog_instance;
static struct perfq_cl_counter *counters;
const struct perfq_cl_counter *perfq_cl_counters;
uint32_t perfq_cl_counter_count;
uint32_t perfq_cl_base_counter_count;

static const char layer_name[] = "perfq: cl_codeplay_performance_counters";

cl_int perfq_cl_set_param(const void *value, size_t value_size, size_t param_value_size,
                          void *param_value, size_t *param_value_size_ret)
{
    if (param_value) {
        if (param_value_size < value_size)
            return CL_INVALID_VALUE;
        if (value_size)
            memcpy(param_value, value, value_size);
    }
    if (param_value_size_ret)
        *param_value_size_ret = value_size;
    return CL_SUCCESS;
}

struct perfq_cl_config *perfq_cl_config_ref(struct perfq_cl_config *c)
{
    __atomic_add_fetch(&c->refs, 1, __ATOMIC_RELAXED);
    return c;
}

void perfq_cl_config_unref(struct perfq_cl_config *c)
{
    if (c && __atomic_sub_fetch(&c->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        /* The last command of the queue read or released: the sampler may stop. */
        if (c->nvml_device >= 0)
            perfq__nvml_interval_release((unsigned)c->nvml_device);
        free(c);
    }
}

PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name,
                                                               size_t param_value_size,
                                                               void *param_value,
                                                               size_t *param_value_size_ret)
{
    switch (param_name) {
    case CL_LAYER_API_VERSION: {
        cl_layer_api_version v = CL_LAYER_API_VERSION_100;
        return perfq_cl_set_param(&v, sizeof(v), param_value_size, param_value,
                                  param_value_size_ret);
    }
    case CL_LAYER_NAME:
        return perfq_cl_set_param(layer_name, sizeof(layer_name), param_value_size, param_value,
                                  param_value_size_ret);
    default:
        return CL_INVALID_VALUE;
    }
}

static void copy_string(char *dst, size_t size, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= size)
        n = size - 1;   /* truncated, always NUL-terminated */
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

/* The counters of the "opencl" provider, as the catalog holds them (PERFQ_DISABLE applies). */
static cl_int load_counters(void)
{
    void *arg = &layer_dispatch;   /* any non-NULL: the layer counts these */
    const struct perfq_provider_ops *ops = &perfq_cl_command_provider;
    if (perfq__open_with(&ops, &arg, 1, 0, &catalog_instance) != PERFQ_OK)
        return CL_OUT_OF_HOST_MEMORY;
    uint32_t n = 0;
    perfq_counter_count(catalog_instance, &n);
    counters = calloc(n ? n : 1, sizeof(*counters));
    if (!counters)
        return CL_OUT_OF_HOST_MEMORY;
    uint32_t k = 0, base = 0;   /* the catalog lists the opencl-command group first */
    for (uint32_t id = 0; id < n; id++) {
        perfq_counter_info_t ci;
        perfq_group_info_t gi;
        const struct perfq_counter_desc *desc = perfq__counter_desc(catalog_instance, id);
        if (perfq_counter_info(catalog_instance, id, &ci) != PERFQ_OK || !ci.available ||
            perfq_group_info(catalog_instance, ci.group, &gi) != PERFQ_OK || !desc ||
            strcmp(gi.provider, PERFQ_CL_PROVIDER_NAME) != 0 ||
            ci.storage > PERFQ_STORAGE_FLOAT64)   /* the extension has no BOOL32 */
            continue;
        struct perfq_cl_counter *c = &counters[k++];
        /* The extension's units are perfq's 0..10; joules (perfq's own) has no token there:
         * GENERIC, the description naming joules (docs/nvidia-providers.md). */
        c->info.unit = ci.unit == PERFQ_UNIT_JOULES
                           ? CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY
                           : (cl_performance_counter_unit_codeplay)ci.unit;
        c->info.storage = (cl_performance_counter_storage_codeplay)ci.storage;
        c->info.uuid = ci.uuid;
        copy_string(c->info.name, sizeof(c->info.name), ci.name);
        copy_string(c->info.category, sizeof(c->info.category), ci.category);
        copy_string(c->info.description, sizeof(c->info.description), ci.description);
        c->code = (uint32_t)desc->code;
        if (c->code < PERFQ_CL_NV_FIRST)
            base = k;
    }
    perfq_cl_counters = counters;
    perfq_cl_counter_count = k;
    perfq_cl_base_counter_count = base;
    return CL_SUCCESS;
}

static void unload_counters(void)
{
    perfq_cl_counters = NULL;
    perfq_cl_counter_count = 0;
    perfq_cl_base_counter_count = 0;
    free(counters);
    counters = NULL;
    if (catalog_instance)
        perfq_close(&catalog_instance);
}

static cl_int init_layer(cl_uint num_entries, const cl_icd_dispatch *target_dispatch,
                         cl_uint *num_entries_ret, const cl_icd_dispatch **layer_dispatch_ret)
{
    const cl_uint ours = (cl_uint)(sizeof(cl_icd_dispatch) / sizeof(void *));
    /* A loader table too short to hold the 1.2 entry points we wrap cannot be served. */
    const cl_uint needed =
        (cl_uint)(offsetof(cl_icd_dispatch, clGetExtensionFunctionAddressForPlatform) /
                  sizeof(void *)) + 1;
    if (!target_dispatch || !num_entries_ret || !layer_dispatch_ret || num_entries < needed)
        return CL_INVALID_VALUE;
    cl_uint n = num_entries < ours ? num_entries : ours;
    pthread_mutex_lock(&init_lock);
    if (!initialized) {
        cl_int err = load_counters();
        if (err != CL_SUCCESS) {
            unload_counters();
            pthread_mutex_unlock(&init_lock);
            return err;
        }
        initialized = 1;
    }
    /* Entries past the loader's table stay NULL: the wrappers never call what is not there. */
    memset(&perfq_cl_next, 0, sizeof(perfq_cl_next));
    memcpy(&perfq_cl_next, target_dispatch, n * sizeof(void *));
    /* Everything we do not wrap goes straight to the target (both loaders would also fill NULL
     * entries from it; a full table does not depend on that). */
    layer_dispatch = perfq_cl_next;
    perfq_cl_install_platform_info(&layer_dispatch);
    perfq_cl_install_device_info(&layer_dispatch);
    perfq_cl_install_queue_properties(&layer_dispatch);
    perfq_cl_install_event_counters(&layer_dispatch);
    perfq_cl_install_command_counters(&layer_dispatch);
    perfq_cl_install_stat_commands(&layer_dispatch);
    /* Never hand out a wrapper whose next entry is missing (past the loader's table, or NULL
     * in it): the loader then falls through to its target, which has nothing either. */
    for (cl_uint i = 0; i < ours; i++)
        if (i >= n || !((void **)&perfq_cl_next)[i])
            ((void **)&layer_dispatch)[i] = NULL;
    pthread_mutex_unlock(&init_lock);
    *num_entries_ret = n;
    *layer_dispatch_ret = &layer_dispatch;
    return CL_SUCCESS;
}

PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayer(
    cl_uint num_entries, const cl_icd_dispatch *target_dispatch, cl_uint *num_entries_ret,
    const cl_icd_dispatch **layer_dispatch_ret)
{
    return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clInitLayerWithProperties(
    cl_uint num_entries, const cl_icd_dispatch *target_dispatch, cl_uint *num_entries_ret,
    const cl_icd_dispatch **layer_dispatch_ret, const perfq_cl_layer_properties *properties)
{
    /* No layer property is defined that this layer understands. */
    if (properties && properties[0] != PERFQ_CL_LAYER_PROPERTIES_LIST_END)
        return CL_INVALID_PROPERTY;
    return init_layer(num_entries, target_dispatch, num_entries_ret, layer_dispatch_ret);
}

PERFQ_CL_EXPORT CL_API_ENTRY cl_int CL_API_CALL clDeinitLayer(void)
{
    pthread_mutex_lock(&init_lock);
    if (initialized) {
        perfq_cl_command_counters_fini();
        perfq_cl_stat_commands_fini();
        perfq_cl_event_counters_fini();
        perfq_cl_queue_properties_fini();
        perfq_cl_device_info_fini();
        perfq_cl_platform_info_fini();
        unload_counters();
        initialized = 0;
    }
    pthread_mutex_unlock(&init_lock);
    return CL_SUCCESS;
}

/* Test hook (layer.h). */
PERFQ_CL_EXPORT void perfq_cl_layer_debug_counts(size_t *queues, size_t *events, size_t *maps)
{
    if (queues)
        *queues = perfq_cl_table_count_hint(&perfq_cl_queues);
    if (events)
        *events = perfq_cl_table_count_hint(&perfq_cl_events);
    if (maps)
        *maps = perfq_cl_table_count_hint(&perfq_cl_maps);
}

PERFQ_CL_EXPORT size_t perfq_cl_layer_debug_stat_queues(void)
{
    return perfq_cl_stat_queue_count();
}
