/*
 * clGetEventProfilingInfo(CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY): the results of
 * one command, from its event. Each counted command's event has a record (what the layer knew
 * of the command when it was enqueued, and the queue's counters), kept while the program holds
 * a reference to the event: clRetainEvent/clReleaseEvent count them, and the last release
 * removes the record before the driver may reuse the handle.
 *
 * The program's own profiling stays as it was: on a queue where only the layer turned
 * profiling on, the standard CL_PROFILING_COMMAND_* queries still answer
 * CL_PROFILING_INFO_NOT_AVAILABLE, as the driver would have.
 */
#include <stdlib.h>
#include <string.h>

#include "providers/nvml_interval.h"
#include "providers/opencl_command.h"
#include "cl/layer.h"
#include "cl/command_counters.h"
#include "cl/stat_commands.h"

struct event_record {
    uint32_t program_refs;          /* under perfq_cl_events.lock */
    struct perfq_cl_command cmd;    /* owns a reference to cmd.config */
};

struct perfq_cl_table perfq_cl_events = PERFQ_CL_TABLE_INIT;

static void free_record(void *v)
{
    struct event_record *r = v;
    if (!r)
        return;
    perfq_cl_config_unref(r->cmd.config);
    free(r);
}

int perfq_cl_event_record(cl_event event, const struct perfq_cl_command *cmd)
{
    struct event_record *r = malloc(sizeof(*r));
    if (!r)
        return -1;
    r->program_refs = 1;
    r->cmd = *cmd;
    void *old = NULL;
    pthread_mutex_lock(&perfq_cl_events.lock);
    int put = perfq_cl_table_put_locked(&perfq_cl_events, event, r, &old);
    pthread_mutex_unlock(&perfq_cl_events.lock);
    free_record(old);   /* left by a handle the driver reused (the program leaked it) */
    if (put != 0) {
        free(r);        /* the caller still owns cmd->config */
        return -1;
    }
    return 0;
}

/* A copy of an event's record taken under the lock (with its own config reference). */
static int find_record(cl_event event, struct perfq_cl_command *out)
{
    int found = 0;
    pthread_mutex_lock(&perfq_cl_events.lock);
    struct event_record *r = perfq_cl_table_find_locked(&perfq_cl_events, event);
    if (r) {
        *out = r->cmd;
        perfq_cl_config_ref(out->config);
        found = 1;
    }
    pthread_mutex_unlock(&perfq_cl_events.lock);
    return found;
}

/* An event without a record: who made it? CL_SUCCESS and *queue_has_counters / *native, or the
 * driver's error for a bad event. */
static cl_int classify_unrecorded(cl_event event, cl_command_queue *queue_out,
                                  int *queue_has_counters, int *native)
{
    cl_command_queue queue = NULL;
    *queue_has_counters = 0;
    *native = 0;
    cl_int err = perfq_cl_next.clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(queue),
                                              &queue, NULL);
    if (err != CL_SUCCESS)
        return err;
    *queue_out = queue;
    if (!queue)
        return CL_SUCCESS;   /* a user event */
    pthread_mutex_lock(&perfq_cl_queues.lock);
    *queue_has_counters = perfq_cl_table_find_locked(&perfq_cl_queues, queue) != NULL;
    pthread_mutex_unlock(&perfq_cl_queues.lock);
    if (!*queue_has_counters) {
        cl_device_id device = NULL;
        if (perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device,
                                                NULL) == CL_SUCCESS)
            perfq_cl_device_native(device, native);
    }
    return CL_SUCCESS;
}

/* d: the value for the floating-point storages (the NVIDIA counters' doubles; v otherwise). */
static void store(cl_performance_counter_result_codeplay *r, cl_int storage, uint64_t v, double d)
{
    memset(r, 0, sizeof(*r));
    switch (storage) {
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT32_CODEPLAY: r->float32 = (cl_float)d; return;
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY: r->float64 = (cl_double)d; return;
    default: break;
    }
    switch (storage) {
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT32_CODEPLAY: r->int32 = (cl_int)v; break;
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT64_CODEPLAY: r->int64 = (cl_long)v; break;
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT32_CODEPLAY: r->uint32 = (cl_uint)v; break;
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT32_CODEPLAY: r->float32 = (cl_float)v; break;
    case CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY: r->float64 = (cl_double)v; break;
    default: r->uint64 = v; break;
    }
}

static uint64_t difference(cl_ulong later, cl_ulong earlier)
{
    /* A driver whose later timestamp precedes the earlier one reports no time, not 2^64-x. */
    return later > earlier ? later - earlier : 0;
}

static cl_int counter_results(cl_event event, const struct perfq_cl_command *cmd,
                              size_t param_value_size, void *param_value,
                              size_t *param_value_size_ret)
{
    const struct perfq_cl_config *c = cmd->config;
    size_t size = (size_t)c->count * sizeof(cl_performance_counter_result_codeplay);
    /* OpenCL's clGetEventProfilingInfo: "CL_INVALID_VALUE if ... param_value_size is < size of
     * return type ... and param_value is not NULL". */
    if (param_value && param_value_size < size)
        return CL_INVALID_VALUE;
    if (!param_value) {
        if (param_value_size_ret)
            *param_value_size_ret = size;
        return CL_SUCCESS;
    }
    /* OpenCL: "CL_PROFILING_INFO_NOT_AVAILABLE if ... the execution status of the command
     * identified by event is not CL_COMPLETE". The results are of the finished command. */
    cl_int status = CL_QUEUED;
    cl_int err = perfq_cl_next.clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                              sizeof(status), &status, NULL);
    if (err != CL_SUCCESS)
        return err;
    if (status != CL_COMPLETE || (c->needs_bytes && !cmd->bytes_known))
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    cl_ulong queued = 0, start = 0, end = 0;
    if (c->needs_times)
        err = perfq_cl_next.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START,
                                                    sizeof(start), &start, NULL);
    if (err == CL_SUCCESS && (c->needs_times & 1))
        err = perfq_cl_next.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END,
                                                    sizeof(end), &end, NULL);
    if (err == CL_SUCCESS && (c->needs_times & 2))
        err = perfq_cl_next.clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_QUEUED,
                                                    sizeof(queued), &queued, NULL);
    if (err != CL_SUCCESS)
        return err;
    /* NVIDIA counters: [START, END] on CLOCK_MONOTONIC through QUEUED, stamped during the
     * enqueue call that began at host_t0; then integrated from the NVML sampler's history
     * (waiting up to a sampling period for the sample after END). An interval the history no
     * longer holds (read over a minute after the command) has no value to give. */
    struct perfq_nvml_interval nv = {0};
    if (c->nvml_device >= 0) {
        uint64_t a = cmd->host_t0 + difference(start, queued);
        uint64_t b = cmd->host_t0 + difference(end, queued);
        if (perfq__nvml_interval_read((unsigned)c->nvml_device, a, b > a ? b : a, 1, &nv) != 0)
            return CL_PROFILING_INFO_NOT_AVAILABLE;
    }
    /* "...the order of results matches the order the counters were enabled at command queue
     * creation. Each item in the list contains a result value in one of the union members
     * defined by the storage type of the associated ... performance counter". */
    cl_performance_counter_result_codeplay *out = param_value;
    for (uint32_t i = 0; i < c->count; i++) {
        uint64_t v = 0;
        double d = 0;
        switch (c->counters[i]->code) {
        case PERFQ_CL_NV_ENERGY: d = nv.energy_j; break;
        case PERFQ_CL_NV_POWER: d = nv.power_w; break;
        case PERFQ_CL_NV_SM_CLOCK: d = nv.sm_clock_hz; break;
        case PERFQ_CL_NV_MEM_CLOCK: d = nv.mem_clock_hz; break;
        case PERFQ_CL_NV_SAMPLES: v = nv.samples; break;
        case PERFQ_CL_COMMAND_DURATION: v = difference(end, start); break;
        case PERFQ_CL_BYTES_TRANSFERRED: v = cmd->bytes; break;
        case PERFQ_CL_QUEUED_TO_START: v = difference(start, queued); break;
        case PERFQ_CL_WORK_ITEMS: v = cmd->work_items; break;
        case PERFQ_CL_WORK_GROUPS: v = cmd->work_groups; break;
        default: break;
        }
        if (c->counters[i]->code < PERFQ_CL_NV_FIRST)
            d = (double)v;
        cl_performance_counter_result_codeplay r;
        store(&r, c->counters[i]->info.storage, v, d);
        memcpy(&out[i], &r, sizeof(r));
    }
    if (param_value_size_ret)
        *param_value_size_ret = size;
    return CL_SUCCESS;
}

/* 1 where perfq stat turned profiling on under the event's queue, which the program made
 * without it: the event's times are not the program's (CL_PROFILING_INFO_NOT_AVAILABLE, as
 * without perfq). A bad event is left to the driver's answer. */
static int stat_hides_profiling(cl_event event)
{
    cl_command_queue queue = NULL;
    if (!event || perfq_cl_next.clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof(queue),
                                               &queue, NULL) != CL_SUCCESS)
        return 0;
    return queue && perfq_cl_stat_hidden_profiling(queue);
}

static cl_int CL_API_CALL GetEventProfilingInfo_wrap(cl_event event,
                                                     cl_profiling_info param_name,
                                                     size_t param_value_size, void *param_value,
                                                     size_t *param_value_size_ret)
{
    int counters = param_name == CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY;
    if (!counters && perfq_cl_table_count_hint(&perfq_cl_events) == 0 &&
        __atomic_load_n(&perfq_cl_hidden_profiling_queues, __ATOMIC_RELAXED) == 0) {
        if (perfq_cl_stat_on && stat_hides_profiling(event))
            return CL_PROFILING_INFO_NOT_AVAILABLE;
        return perfq_cl_next.clGetEventProfilingInfo(event, param_name, param_value_size,
                                                     param_value, param_value_size_ret);
    }
    if (!event)
        return CL_INVALID_EVENT;
    struct perfq_cl_command cmd;
    if (find_record(event, &cmd)) {
        cl_int err;
        if (counters)
            err = counter_results(event, &cmd, param_value_size, param_value,
                                  param_value_size_ret);
        else if (!cmd.program_profiling)
            err = CL_PROFILING_INFO_NOT_AVAILABLE;   /* the program's queue is not profiling */
        else
            err = perfq_cl_next.clGetEventProfilingInfo(event, param_name, param_value_size,
                                                        param_value, param_value_size_ret);
        perfq_cl_config_unref(cmd.config);
        return err;
    }
    cl_command_queue queue = NULL;
    int has_counters = 0, native = 0;
    cl_int err = classify_unrecorded(event, &queue, &has_counters, &native);
    if (err != CL_SUCCESS)
        return err;
    if (!counters) {
        if (has_counters) {
            int hidden = 0;
            pthread_mutex_lock(&perfq_cl_queues.lock);
            struct perfq_cl_queue *q = perfq_cl_table_find_locked(&perfq_cl_queues, queue);
            hidden = q && !q->program_profiling;
            pthread_mutex_unlock(&perfq_cl_queues.lock);
            if (hidden)
                return CL_PROFILING_INFO_NOT_AVAILABLE;
        }
        /* perfq stat turned profiling on under the program's queue: not the program's. */
        if (queue && perfq_cl_stat_hidden_profiling(queue))
            return CL_PROFILING_INFO_NOT_AVAILABLE;
        return perfq_cl_next.clGetEventProfilingInfo(event, param_name, param_value_size,
                                                     param_value, param_value_size_ret);
    }
    if (native)
        return perfq_cl_next.clGetEventProfilingInfo(event, param_name, param_value_size,
                                                     param_value, param_value_size_ret);
    /* "If the event is a user event, or the command queue associated with the event was not
     * created with performance counters enabled CL_INVALID_VALUE will be returned." */
    if (!queue || !has_counters)
        return CL_INVALID_VALUE;
    /* A queue with counters, but a command the layer did not see (an extension's enqueue
     * entry point, outside the dispatch table), or whose record could not be allocated:
     * perfq knows nothing of it, so it reports nothing. */
    return CL_PROFILING_INFO_NOT_AVAILABLE;
}

static cl_int CL_API_CALL RetainEvent_wrap(cl_event event)
{
    cl_int err = perfq_cl_next.clRetainEvent(event);
    if (err != CL_SUCCESS || perfq_cl_table_count_hint(&perfq_cl_events) == 0)
        return err;
    pthread_mutex_lock(&perfq_cl_events.lock);
    struct event_record *r = perfq_cl_table_find_locked(&perfq_cl_events, event);
    if (r)
        r->program_refs++;
    pthread_mutex_unlock(&perfq_cl_events.lock);
    return err;
}

static cl_int CL_API_CALL ReleaseEvent_wrap(cl_event event)
{
    struct event_record *gone = NULL;
    if (perfq_cl_table_count_hint(&perfq_cl_events) != 0) {
        /* Removed before the driver may free the handle and hand it out again. */
        pthread_mutex_lock(&perfq_cl_events.lock);
        struct event_record *r = perfq_cl_table_find_locked(&perfq_cl_events, event);
        if (r && --r->program_refs == 0)
            gone = perfq_cl_table_remove_locked(&perfq_cl_events, event);
        pthread_mutex_unlock(&perfq_cl_events.lock);
    }
    cl_int err = perfq_cl_next.clReleaseEvent(event);
    free_record(gone);
    return err;
}

/* A callback may read the counters of its event after the program released its own reference
 * (clSetEventCallback(ev, CL_COMPLETE, cb, ...); clReleaseEvent(ev); cb reads ev): the driver
 * keeps the event alive for the callback, so the record stays until the callback returned. */
struct callback_hold {
    void(CL_CALLBACK *fn)(cl_event, cl_int, void *);
    void *user_data;
};

static void drop_reference(cl_event event)
{
    struct event_record *gone = NULL;
    pthread_mutex_lock(&perfq_cl_events.lock);
    struct event_record *r = perfq_cl_table_find_locked(&perfq_cl_events, event);
    if (r && --r->program_refs == 0)
        gone = perfq_cl_table_remove_locked(&perfq_cl_events, event);
    pthread_mutex_unlock(&perfq_cl_events.lock);
    free_record(gone);
}

static void CL_CALLBACK callback_trampoline(cl_event event, cl_int status, void *data)
{
    struct callback_hold *h = data;
    h->fn(event, status, h->user_data);
    drop_reference(event);
    free(h);
}

static cl_int CL_API_CALL SetEventCallback_wrap(cl_event event, cl_int type,
                                                void(CL_CALLBACK *fn)(cl_event, cl_int, void *),
                                                void *user_data)
{
    if (!fn || perfq_cl_table_count_hint(&perfq_cl_events) == 0)
        return perfq_cl_next.clSetEventCallback(event, type, fn, user_data);
    struct callback_hold *h = malloc(sizeof(*h));
    int held = 0;
    if (h) {
        pthread_mutex_lock(&perfq_cl_events.lock);
        struct event_record *r = perfq_cl_table_find_locked(&perfq_cl_events, event);
        if (r) {
            r->program_refs++;
            held = 1;
        }
        pthread_mutex_unlock(&perfq_cl_events.lock);
    }
    if (!held) {
        free(h);
        return perfq_cl_next.clSetEventCallback(event, type, fn, user_data);
    }
    h->fn = fn;
    h->user_data = user_data;
    cl_int err = perfq_cl_next.clSetEventCallback(event, type, callback_trampoline, h);
    if (err != CL_SUCCESS) {
        drop_reference(event);
        free(h);
    }
    return err;
}

void perfq_cl_install_event_counters(cl_icd_dispatch *d)
{
    d->clGetEventProfilingInfo = GetEventProfilingInfo_wrap;
    d->clRetainEvent = RetainEvent_wrap;
    d->clReleaseEvent = ReleaseEvent_wrap;
    d->clSetEventCallback = SetEventCallback_wrap;
}

void perfq_cl_event_counters_fini(void)
{
    perfq_cl_table_clear(&perfq_cl_events, free_record);
}
