/*
 * CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY on clCreateCommandQueueWithPropertiesKHR and the core
 * clCreateCommandQueueWithProperties; what clGetCommandQueueInfo answers for such a queue; the
 * queue's record, kept while the program holds a reference.
 *
 * The property is removed before the driver sees it, and CL_QUEUE_PROFILING_ENABLE is added
 * underneath when the program did not ask for it (the counters are read from the driver's
 * event profiling): the program still sees the properties it passed.
 */
#include <stdlib.h>
#include <string.h>

#include "providers/opencl_command.h"
#include "cl/command_counters.h"
#include "cl/stat_commands.h"
#include "cl/layer.h"
#include "providers/nvml_interval.h"

struct perfq_cl_table perfq_cl_queues = PERFQ_CL_TABLE_INIT;
uint32_t perfq_cl_hidden_profiling_queues;

static void free_queue(void *v)
{
    struct perfq_cl_queue *q = v;
    if (!q)
        return;
    if (q->hidden_profiling)
        __atomic_sub_fetch(&perfq_cl_hidden_profiling_queues, 1, __ATOMIC_RELAXED);
    perfq_cl_config_unref(q->config);
    free(q->properties);
    free(q);
}

/* Among the first `count` counters: those the device lists. */
static const struct perfq_cl_counter *counter_by_uuid(cl_uint uuid, uint32_t count)
{
    for (uint32_t i = 0; i < count; i++)
        if (perfq_cl_counters[i].info.uuid == uuid)
            return &perfq_cl_counters[i];
    return NULL;
}

/* Validates the program's config and builds the layer's. CL_SUCCESS or CL_INVALID_VALUE. */
static cl_int make_config(const cl_performance_counter_config_codeplay *config,
                          cl_device_id device, struct perfq_cl_config **out)
{
    /* "This property value is a pointer to a cl_performance_counter_config_codeplay structure":
     * a NULL pointer is no such structure (OCK: CL_INVALID_VALUE). */
    if (!config)
        return CL_INVALID_VALUE;
    /* "...containing a count specifying the number of enabled counters and the descs array":
     * not in spec: a config that enables no counter, or has no descs array, is refused with
     * CL_INVALID_VALUE as OCK does for NULL descs. */
    if (config->count == 0 || !config->descs)
        return CL_INVALID_VALUE;
    int nvml_device = -1;
    uint32_t listed = 0;
    cl_int err = perfq_cl_device_nvml(device, &nvml_device, &listed);
    if (err != CL_SUCCESS)
        return err;
    struct perfq_cl_config *c = calloc(1, sizeof(*c) + config->count * sizeof(c->counters[0]));
    if (!c)
        return CL_OUT_OF_HOST_MEMORY;
    c->refs = 1;
    c->count = config->count;
    c->nvml_device = -1;
    int nvidia = 0;
    for (cl_uint i = 0; i < config->count; i++) {
        /* "...specifying which performance counters are to be enabled defined by uuid the
         * unique identifier of the counter attained using the CL_DEVICE_PERFORMANCE_COUNTERS_
         * CODEPLAY clGetDeviceInfo query": any other uuid is CL_INVALID_VALUE. A uuid given
         * twice is allowed and gives two equal results. The data member is an optional
         * extension point that perfq does not read. */
        const struct perfq_cl_counter *k = counter_by_uuid(config->descs[i].uuid, listed);
        if (!k) {
            free(c);
            return CL_INVALID_VALUE;
        }
        c->counters[i] = k;
        if (k->code == PERFQ_CL_COMMAND_DURATION)
            c->needs_times |= 1;
        if (k->code == PERFQ_CL_QUEUED_TO_START)
            c->needs_times |= 2;
        if (k->code == PERFQ_CL_BYTES_TRANSFERRED)
            c->needs_bytes = 1;
        if (k->code >= PERFQ_CL_NV_FIRST) {
            nvidia = 1;
            c->needs_times |= 3;   /* START/END, placed on the host clock through QUEUED */
        }
    }
    /* NVIDIA counters: the NVML sampler runs (keeping its history) while the queue or any of
     * its counted commands' events lives; the config's last reference lets it go. */
    if (nvidia) {
        if (perfq__nvml_interval_hold((unsigned)nvml_device) != 0) {
            free(c);
            return CL_OUT_OF_RESOURCES;   /* NVML listed the device but cannot sample it now */
        }
        c->nvml_device = nvml_device;
    }
    *out = c;
    return CL_SUCCESS;
}

/* Queue property keys: the core ones and the extensions' of the Khronos registry (cl.h,
 * cl_ext.h), each a key followed by one value. */
static int queue_property_key(cl_queue_properties key)
{
    switch (key) {
    case CL_QUEUE_PROPERTIES:
    case CL_QUEUE_SIZE:
    case CL_QUEUE_PRIORITY_KHR:
    case CL_QUEUE_THROTTLE_KHR:
    case CL_QUEUE_FAMILY_INTEL:
    case CL_QUEUE_INDEX_INTEL:
    case CL_QUEUE_JOB_SLOT_ARM:
    case CL_QUEUE_KERNEL_BATCHING_ARM:
    case CL_QUEUE_DEFERRED_FLUSH_ARM:
    case CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY:
        return 1;
    default:
        return 0;
    }
}

/* Walks the program's list only as far as a driver does: to the terminator, or to the first
 * key that is no queue property, where drivers stop with CL_INVALID_VALUE ("values specified in
 * properties are not valid"; PoCL's clCreateCommandQueueWithProperties returns at its switch's
 * default). Nothing past that key is read, so a list without its terminator cannot make the
 * layer read beyond it where the driver would have refused (issue 14 item 7). Returns the
 * key/value entries walked; *terminated is 0 when the walk stopped at an unknown key. */
static size_t walk_properties(const cl_queue_properties *p, int *terminated)
{
    size_t n = 0;
    while (p[n] && queue_property_key(p[n]))
        n += 2;
    *terminated = p[n] == 0;
    return n;
}

/* The driver's queue creation. A loader table from before OpenCL 2.0 has no
 * clCreateCommandQueueWithProperties: the 1.x entry point then takes a list that holds only
 * CL_QUEUE_PROPERTIES (what cl_khr_create_command_queue adds beyond it needs a 2.0 driver). */
static cl_command_queue next_create_driver(cl_context context, cl_device_id device,
                                           const cl_queue_properties *properties,
                                           cl_int *errcode_ret);

/* Under perfq stat every queue gets profiling underneath (stat_commands.c). */
static cl_command_queue next_create(cl_context context, cl_device_id device,
                                    const cl_queue_properties *properties, cl_int *errcode_ret)
{
    if (!perfq_cl_stat_on)
        return next_create_driver(context, device, properties, errcode_ret);
    cl_queue_properties buf[64];
    int program_profiling = 0;
    const cl_queue_properties *down =
        perfq_cl_stat_queue_properties(properties, buf, 64, &program_profiling);
    cl_command_queue q = next_create_driver(context, device, down, errcode_ret);
    if (!q && down == buf) {
        /* Refused with profiling added (PoCL: CL_QUEUE_SIZE without CL_QUEUE_ON_DEVICE is
         * refused once CL_QUEUE_PROPERTIES is in the list): the program's own list decides, and
         * the queue's commands are counted without GPU time. */
        q = next_create_driver(context, device, properties, errcode_ret);
        if (q)
            perfq_cl_stat_queue_created(q, properties, 0, program_profiling);
        return q;
    }
    if (q && down == buf)
        perfq_cl_stat_queue_created(q, properties, 1, program_profiling);
    return q;
}

static cl_command_queue next_create_driver(cl_context context, cl_device_id device,
                                           const cl_queue_properties *properties,
                                           cl_int *errcode_ret)
{
    if (perfq_cl_next.clCreateCommandQueueWithProperties)
        return perfq_cl_next.clCreateCommandQueueWithProperties(context, device, properties,
                                                                errcode_ret);
    cl_command_queue_properties bits = 0;
    for (size_t i = 0; properties && properties[i]; i += 2) {
        if (properties[i] != CL_QUEUE_PROPERTIES) {
            if (errcode_ret)
                *errcode_ret = CL_INVALID_PROPERTY;
            return NULL;
        }
        bits = properties[i + 1];
    }
    return perfq_cl_next.clCreateCommandQueue(context, device, bits, errcode_ret);
}

static cl_command_queue create_queue(cl_context context, cl_device_id device,
                                     const cl_queue_properties *properties, cl_int *errcode_ret)
{
    const cl_queue_properties *counters_value = NULL;
    int terminated = 1;
    size_t n = properties ? walk_properties(properties, &terminated) : 0;
    int repeated = 0;
    for (size_t i = 0; i < n; i += 2) {
        if (properties[i] == CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY) {
            repeated |= counters_value != NULL;
            counters_value = &properties[i + 1];
        }
    }
    if (!counters_value)
        return next_create(context, device, properties, errcode_ret);
    int native = 0;
    cl_int err = perfq_cl_device_native(device, &native);
    if (err == CL_SUCCESS && native)
        return next_create(context, device, properties, errcode_ret);
    struct perfq_cl_config *config = NULL;
    /* Not in spec: the property given twice is CL_INVALID_VALUE, as core properties are.
     * A list with a key that is no queue property is CL_INVALID_VALUE as the driver would say:
     * the layer cannot take its property out of a list whose end it cannot find. */
    if (err == CL_SUCCESS)
        err = repeated || !terminated ? CL_INVALID_VALUE
                       : make_config((const cl_performance_counter_config_codeplay *)(uintptr_t)
                                         *counters_value, device, &config);
    struct perfq_cl_queue *q = NULL;
    cl_queue_properties *down = NULL;
    if (err == CL_SUCCESS) {
        q = calloc(1, sizeof(*q));
        if (q) {
            q->properties_size = (n + 1) * sizeof(cl_queue_properties);
            q->properties = malloc(q->properties_size);
        }
        down = malloc((n + 3) * sizeof(*down));
        if (!q || !q->properties || !down)
            err = CL_OUT_OF_HOST_MEMORY;
    }
    if (err != CL_SUCCESS) {
        perfq_cl_config_unref(config);
        if (q)
            free(q->properties);
        free(q);
        free(down);
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    /* The driver's list: the program's, without our property, with profiling turned on. */
    memcpy(q->properties, properties, q->properties_size);
    size_t m = 0;
    int has_props = 0;
    for (size_t i = 0; i < n; i += 2) {
        if (properties[i] == CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY)
            continue;
        down[m] = properties[i];
        down[m + 1] = properties[i + 1];
        if (properties[i] == CL_QUEUE_PROPERTIES) {
            has_props = 1;
            q->program_profiling = (properties[i + 1] & CL_QUEUE_PROFILING_ENABLE) != 0;
            if (config->needs_times)
                down[m + 1] |= CL_QUEUE_PROFILING_ENABLE;
        }
        m += 2;
    }
    /* Profiling is turned on only for counters read from the event's timestamps: bytes and
     * work sizes need none, and profiling costs the driver time per command. */
    if (!has_props && config->needs_times) {
        down[m++] = CL_QUEUE_PROPERTIES;
        down[m++] = CL_QUEUE_PROFILING_ENABLE;
    }
    down[m] = 0;
    cl_command_queue queue = next_create(context, device, down, &err);
    free(down);
    if (!queue) {
        perfq_cl_config_unref(config);
        free(q->properties);
        free(q);
        if (errcode_ret)
            *errcode_ret = err;
        return NULL;
    }
    q->program_refs = 1;
    q->device = device;
    q->config = config;
    q->hidden_profiling = !q->program_profiling && config->needs_times;
    if (q->hidden_profiling)
        __atomic_add_fetch(&perfq_cl_hidden_profiling_queues, 1, __ATOMIC_RELAXED);
    void *old = NULL;
    pthread_mutex_lock(&perfq_cl_queues.lock);
    int put = perfq_cl_table_put_locked(&perfq_cl_queues, queue, q, &old);
    pthread_mutex_unlock(&perfq_cl_queues.lock);
    free_queue(old);   /* a record left by a handle the driver has reused */
    if (put != 0) {
        free_queue(q);
        perfq_cl_next.clReleaseCommandQueue(queue);
        if (errcode_ret)
            *errcode_ret = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    if (errcode_ret)
        *errcode_ret = CL_SUCCESS;
    return queue;
}

static cl_command_queue CL_API_CALL CreateCommandQueueWithProperties_wrap(
    cl_context context, cl_device_id device, const cl_queue_properties *properties,
    cl_int *errcode_ret)
{
    return create_queue(context, device, properties, errcode_ret);
}

/* Returned by clGetExtensionFunctionAddress(ForPlatform): the same entry point as the core one
 * (cl_khr_create_command_queue is the 1.2 spelling of clCreateCommandQueueWithProperties). */
cl_command_queue CL_API_CALL perfq_clCreateCommandQueueWithPropertiesKHR(
    cl_context context, cl_device_id device, const cl_queue_properties *properties,
    cl_int *errcode_ret)
{
    return create_queue(context, device, properties, errcode_ret);
}

/* A queue without counters: the driver's answer, less the profiling perfq stat turned on. */
static cl_int stat_queue_info(cl_command_queue queue, cl_command_queue_info param_name,
                              size_t param_value_size, void *param_value,
                              size_t *param_value_size_ret)
{
    if (param_name == CL_QUEUE_PROPERTIES_ARRAY && perfq_cl_stat_on) {
        /* The driver holds the list the layer gave it: the program's is answered, once the
         * driver has said the query is valid (an OpenCL 2 driver does not know it). */
        size_t driver_size = 0;
        cl_int err = perfq_cl_next.clGetCommandQueueInfo(queue, param_name, 0, NULL,
                                                         &driver_size);
        cl_queue_properties *array = NULL;
        size_t array_size = 0;
        int found = err == CL_SUCCESS ? perfq_cl_stat_queue_array(queue, &array, &array_size) : 0;
        if (found == 0)
            return perfq_cl_next.clGetCommandQueueInfo(queue, param_name, param_value_size,
                                                       param_value, param_value_size_ret);
        if (found < 0)
            return CL_OUT_OF_HOST_MEMORY;
        err = perfq_cl_set_param(array, array_size, param_value_size, param_value,
                                 param_value_size_ret);
        free(array);
        return err;
    }
    if (param_name != CL_QUEUE_PROPERTIES || !perfq_cl_stat_hidden_profiling(queue))
        return perfq_cl_next.clGetCommandQueueInfo(queue, param_name, param_value_size,
                                                   param_value, param_value_size_ret);
    cl_command_queue_properties props = 0;
    cl_int err = perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(props),
                                                     &props, NULL);
    if (err != CL_SUCCESS)
        return err;
    props &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
    return perfq_cl_set_param(&props, sizeof(props), param_value_size, param_value,
                              param_value_size_ret);
}

static cl_int CL_API_CALL GetCommandQueueInfo_wrap(cl_command_queue queue,
                                                   cl_command_queue_info param_name,
                                                   size_t param_value_size, void *param_value,
                                                   size_t *param_value_size_ret)
{
    if ((param_name != CL_QUEUE_PROPERTIES && param_name != CL_QUEUE_PROPERTIES_ARRAY) ||
        perfq_cl_table_count_hint(&perfq_cl_queues) == 0)
        return stat_queue_info(queue, param_name, param_value_size, param_value,
                               param_value_size_ret);
    cl_queue_properties array[64];
    size_t array_size = 0;
    int found = 0, program_profiling = 0;
    pthread_mutex_lock(&perfq_cl_queues.lock);
    struct perfq_cl_queue *q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
    cl_queue_properties *big = NULL;
    if (q) {
        found = 1;
        program_profiling = q->program_profiling;
        array_size = q->properties_size;
        if (param_name == CL_QUEUE_PROPERTIES_ARRAY) {
            big = array_size > sizeof(array) ? malloc(array_size) : NULL;
            if (big || array_size <= sizeof(array))
                memcpy(big ? big : array, q->properties, array_size);
            else
                array_size = (size_t)-1;
        }
    }
    pthread_mutex_unlock(&perfq_cl_queues.lock);
    if (!found)
        return stat_queue_info(queue, param_name, param_value_size, param_value,
                               param_value_size_ret);
    if (param_name == CL_QUEUE_PROPERTIES_ARRAY) {
        /* The properties the program passed, ours included, as it passed them. */
        if (array_size == (size_t)-1)
            return CL_OUT_OF_HOST_MEMORY;
        cl_int err = perfq_cl_set_param(big ? big : array, array_size, param_value_size,
                                        param_value, param_value_size_ret);
        free(big);
        return err;
    }
    cl_command_queue_properties props = 0;
    cl_int err = perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_PROPERTIES, sizeof(props),
                                                     &props, NULL);
    if (err != CL_SUCCESS)
        return err;
    if (!program_profiling)
        props &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
    return perfq_cl_set_param(&props, sizeof(props), param_value_size, param_value,
                              param_value_size_ret);
}

static cl_int CL_API_CALL RetainCommandQueue_wrap(cl_command_queue queue)
{
    cl_int err = perfq_cl_next.clRetainCommandQueue(queue);
    if (err == CL_SUCCESS)
        perfq_cl_stat_queue_retained(queue);
    if (err != CL_SUCCESS || perfq_cl_table_count_hint(&perfq_cl_queues) == 0)
        return err;
    pthread_mutex_lock(&perfq_cl_queues.lock);
    struct perfq_cl_queue *q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
    if (q)
        q->program_refs++;
    pthread_mutex_unlock(&perfq_cl_queues.lock);
    return err;
}

static cl_int CL_API_CALL ReleaseCommandQueue_wrap(cl_command_queue queue)
{
    struct perfq_cl_queue *gone = NULL;
    if (perfq_cl_table_count_hint(&perfq_cl_queues) != 0) {
        /* The record goes before the driver may free the handle: a queue created at the same
         * address by another thread right after must not find it. */
        pthread_mutex_lock(&perfq_cl_queues.lock);
        struct perfq_cl_queue *q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
        if (q && --q->program_refs == 0)
            gone = perfq_cl_table_remove_locked(&perfq_cl_queues, queue);
        if (gone && perfq_cl_queues.count == 0)
            perfq_cl_maps_forget_all_locked();
        pthread_mutex_unlock(&perfq_cl_queues.lock);
    }
    perfq_cl_stat_queue_releasing(queue);
    cl_int err = perfq_cl_next.clReleaseCommandQueue(queue);
    free_queue(gone);
    return err;
}

/* Deprecated (OpenCL 1.0) but in the dispatch table: the program may turn profiling off on a
 * queue with counters, or on a queue under perfq stat; the layer keeps it on underneath and
 * remembers what the program asked (CL_QUEUE_PROPERTIES, *old and the event profiling it is
 * answered then follow the program's setting). */
static cl_int CL_API_CALL SetCommandQueueProperty_wrap(cl_command_queue queue,
                                                       cl_command_queue_properties properties,
                                                       cl_bool enable,
                                                       cl_command_queue_properties *old)
{
    int stat_underneath = 0, stat_program = 0;
    int stat_queue = perfq_cl_stat_queue_profiling(queue, &stat_underneath, &stat_program);
    struct perfq_cl_queue *q = NULL;
    int was = stat_program, needs_times = 0;
    if (perfq_cl_table_count_hint(&perfq_cl_queues) != 0) {
        pthread_mutex_lock(&perfq_cl_queues.lock);
        q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
        if (q) {
            was = q->program_profiling;
            needs_times = (int)q->config->needs_times;
        }
        pthread_mutex_unlock(&perfq_cl_queues.lock);
    }
    if (!q && !stat_queue)
        return perfq_cl_next.clSetCommandQueueProperty(queue, properties, enable, old);
    cl_command_queue_properties down = properties;
    if (!enable && (needs_times || stat_underneath))
        down &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
    cl_int err = perfq_cl_next.clSetCommandQueueProperty(queue, down, enable, old);
    if (err != CL_SUCCESS)
        return err;
    if (old && !was)
        *old &= ~(cl_command_queue_properties)CL_QUEUE_PROFILING_ENABLE;
    if (!(properties & CL_QUEUE_PROFILING_ENABLE))
        return CL_SUCCESS;
    if (stat_queue)
        perfq_cl_stat_queue_set_program_profiling(queue, enable != CL_FALSE);
    if (q) {
        pthread_mutex_lock(&perfq_cl_queues.lock);
        q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
        if (q) {
            int hidden = !enable && q->config->needs_times;
            q->program_profiling = enable != CL_FALSE;
            if (hidden && !q->hidden_profiling)
                __atomic_add_fetch(&perfq_cl_hidden_profiling_queues, 1, __ATOMIC_RELAXED);
            if (!hidden && q->hidden_profiling)
                __atomic_sub_fetch(&perfq_cl_hidden_profiling_queues, 1, __ATOMIC_RELAXED);
            q->hidden_profiling = hidden;
        }
        pthread_mutex_unlock(&perfq_cl_queues.lock);
    }
    return CL_SUCCESS;
}

void perfq_cl_install_queue_properties(cl_icd_dispatch *d)
{
    /* Left NULL when the loader's table has no such entry (clInitLayer clears past its end);
     * the KHR entry point then creates through clCreateCommandQueue. */
    d->clCreateCommandQueueWithProperties = CreateCommandQueueWithProperties_wrap;
    d->clGetCommandQueueInfo = GetCommandQueueInfo_wrap;
    d->clRetainCommandQueue = RetainCommandQueue_wrap;
    d->clReleaseCommandQueue = ReleaseCommandQueue_wrap;
    d->clSetCommandQueueProperty = SetCommandQueueProperty_wrap;
}

void perfq_cl_queue_properties_fini(void)
{
    perfq_cl_table_clear(&perfq_cl_queues, free_queue);
}
