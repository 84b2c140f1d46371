/*
 * The OpenCL side of `perfq stat --layers` (docs/perfq-stat.md): when PERFQ_STAT_CHANNEL names a
 * valid channel, every NDRange/task/native kernel, transfer, fill, marker and barrier command
 * (the FORWARD_COUNTED wrappers) is sent to the CLI once it completes: its command type, the
 * kernel's name, the bytes it moves (the same rules as Bytes Transferred) and END - START from
 * the driver's event profiling.
 *
 * For that every queue gets CL_QUEUE_PROFILING_ENABLE underneath (next_create in
 * queue_properties.c, and clCreateCommandQueue here); clGetCommandQueueInfo(CL_QUEUE_PROPERTIES)
 * still answers the program's own bits. A command enqueued without an event gets an internal one,
 * released by the layer when read. Results are read in a CL_COMPLETE callback (on the driver's
 * thread) and sent without blocking; the event is retained until then.
 *
 * Timeline mode (`perfq record`, docs/perfq-record.md): each queue is announced once (its
 * device's name); each enqueue call is sent from the calling thread as it returns (CPU start and
 * end); each completed command also carries CL_PROFILING_COMMAND_QUEUED and START on the device
 * clock with the enqueue call's CPU bracket, from which the CLI correlates the two clocks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cl/command_counters.h"
#include "cl/stat_commands.h"
#include "core/stat_channel.h"

int perfq_cl_stat_on;

/* Queues created under perfq stat: value 1 when the program did not ask for profiling (the
 * layer turned it on), 2 when it did. */
static struct perfq_cl_table stat_queues = PERFQ_CL_TABLE_INIT;

struct pending {
    struct perfq_stat_record r;
    int internal;
};

uint64_t perfq_cl_stat_clock(void)
{
    return perfq_stat_now_ns();
}

/* Commands whose CL_COMPLETE callback has not run yet. */
static uint64_t in_flight;

static void CL_CALLBACK completed(cl_event ev, cl_int status, void *user)
{
    struct pending *p = user;
    cl_ulong start = 0, end = 0;
    if (status == CL_COMPLETE &&
        perfq_cl_next.clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(start),
                                              &start, NULL) == CL_SUCCESS &&
        perfq_cl_next.clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(end), &end,
                                              NULL) == CL_SUCCESS &&
        end >= start) {
        p->r.flags |= PERFQ_STAT_HAS_GPU_TIME;
        p->r.c = end - start;
        cl_ulong queued = 0;
        if (p->r.t1 &&
            perfq_cl_next.clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED,
                                                  sizeof(queued), &queued, NULL) ==
                CL_SUCCESS &&
            queued && queued <= start) {
            p->r.flags |= PERFQ_STAT_HAS_INTERVAL;
            p->r.g0 = queued;
            p->r.g1 = start;
        }
    }
    perfq_stat_channel_send(&p->r);
    perfq_cl_next.clReleaseEvent(ev);   /* the reference taken in perfq_cl_stat_command */
    free(p);
    __atomic_sub_fetch(&in_flight, 1, __ATOMIC_RELEASE);
}

/* At exit, a driver may still be about to run the callbacks of commands that completed just
 * before: give them up to 500 ms, then count what is left as dropped (never silently lost). */
__attribute__((destructor)) static void wait_in_flight(void)
{
    if (!perfq_cl_stat_on)
        return;
    for (int i = 0; i < 500 && __atomic_load_n(&in_flight, __ATOMIC_ACQUIRE); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    perfq_stat_channel_count_drops(__atomic_load_n(&in_flight, __ATOMIC_ACQUIRE));
}

static void kernel_name(cl_kernel kernel, char *out, size_t size)
{
    size_t need = 0;
    if (perfq_cl_next.clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, NULL, &need) !=
            CL_SUCCESS || need == 0)
        return;
    char *name = malloc(need);
    if (name && perfq_cl_next.clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, need, name,
                                              NULL) == CL_SUCCESS)
        snprintf(out, size, "%s", name);
    free(name);
}

void perfq_cl_stat_command(const struct perfq_cl_command *cmd, cl_int err, cl_event *event,
                           int internal, cl_command_queue queue, uint64_t t0)
{
    uint64_t t1 = t0 ? perfq_stat_now_ns() : 0;
    if (err != CL_SUCCESS || !event || !*event)
        return;
    struct pending *p = calloc(1, sizeof(*p));
    cl_command_type type = 0;
    if (p && perfq_cl_next.clGetEventInfo(*event, CL_EVENT_COMMAND_TYPE, sizeof(type), &type,
                                          NULL) == CL_SUCCESS) {
        p->r.kind = PERFQ_STAT_CL_COMMAND;
        p->r.a = type;
        if (cmd->bytes_known) {
            p->r.flags |= PERFQ_STAT_HAS_BYTES;
            p->r.d = cmd->bytes;
        }
        if (cmd->kernel)
            kernel_name(cmd->kernel, p->r.name, sizeof(p->r.name));
        if (t0) {
            /* The CPU side of the call, now, from this thread: a timeline's thread track. */
            struct perfq_stat_record call = p->r;
            call.kind = PERFQ_STAT_CL_ENQUEUE;
            call.flags = 0;
            call.b = (uint64_t)(uintptr_t)queue;
            call.t0 = t0;
            call.t1 = t1;
            perfq_stat_channel_send(&call);
            p->r.b = (uint64_t)(uintptr_t)queue;
            p->r.tid = perfq_stat_tid();
            p->r.t0 = t0;
            p->r.t1 = t1;
        }
        /* The program's event stays valid until our callback has read it. */
        if (internal || perfq_cl_next.clRetainEvent(*event) == CL_SUCCESS) {
            __atomic_add_fetch(&in_flight, 1, __ATOMIC_RELAXED);
            if (perfq_cl_next.clSetEventCallback(*event, CL_COMPLETE, completed, p) ==
                CL_SUCCESS) {
                if (internal)
                    *event = NULL;   /* the program passed no event: it gets none */
                return;
            }
            __atomic_sub_fetch(&in_flight, 1, __ATOMIC_RELAXED);
            perfq_stat_channel_send(&p->r);   /* counted, without time */
            perfq_cl_next.clReleaseEvent(*event);
            if (internal)
                *event = NULL;
            free(p);
            return;
        }
    }
    /* No memory or no command type: the command is still counted, as a drop. */
    struct perfq_stat_record lost;
    memset(&lost, 0, sizeof(lost));
    lost.kind = 0xffff;
    perfq_stat_channel_send(&lost);
    free(p);
    if (internal) {
        perfq_cl_next.clReleaseEvent(*event);
        *event = NULL;
    }
}

/* ---- queues: profiling underneath ------------------------------------------------------------ */

const cl_queue_properties *perfq_cl_stat_queue_properties(const cl_queue_properties *in,
                                                          cl_queue_properties *buf, size_t cap,
                                                          int *program_profiling)
{
    size_t n = 0;
    int has = 0;
    *program_profiling = 0;
    for (; in && in[n]; n += 2) {
        if (n + 3 >= cap)
            return in;   /* longer than any real list: passed as it is, without profiling */
        buf[n] = in[n];
        buf[n + 1] = in[n + 1];
        if (in[n] == CL_QUEUE_PROPERTIES) {
            has = 1;
            *program_profiling = (in[n + 1] & CL_QUEUE_PROFILING_ENABLE) != 0;
            buf[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
        }
    }
    if (!has) {
        buf[n++] = CL_QUEUE_PROPERTIES;
        buf[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    buf[n] = 0;
    return buf;
}

void perfq_cl_stat_queue_created(cl_command_queue queue, int program_profiling)
{
    void *old = NULL;
    pthread_mutex_lock(&stat_queues.lock);
    perfq_cl_table_put_locked(&stat_queues, queue, (void *)(uintptr_t)(program_profiling ? 2 : 1),
                              &old);
    pthread_mutex_unlock(&stat_queues.lock);
    if (perfq_cl_stat_on < 2)
        return;
    struct perfq_stat_record r;
    memset(&r, 0, sizeof(r));
    r.kind = PERFQ_STAT_CL_QUEUE;
    r.a = (uint64_t)(uintptr_t)queue;
    cl_device_id device = NULL;
    if (perfq_cl_next.clGetCommandQueueInfo(queue, CL_QUEUE_DEVICE, sizeof(device), &device,
                                            NULL) == CL_SUCCESS && device) {
        r.b = (uint64_t)(uintptr_t)device;
        char name[256] = "";
        if (perfq_cl_next.clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof(name) - 1, name,
                                          NULL) == CL_SUCCESS)
            snprintf(r.name, sizeof(r.name), "%.*s", (int)sizeof(r.name) - 1, name);
    }
    perfq_stat_channel_send(&r);
}

int perfq_cl_stat_hidden_profiling(cl_command_queue queue)
{
    if (!perfq_cl_stat_on)
        return 0;
    pthread_mutex_lock(&stat_queues.lock);
    uintptr_t v = (uintptr_t)perfq_cl_table_find_locked(&stat_queues, queue);
    pthread_mutex_unlock(&stat_queues.lock);
    return v == 1;
}

static cl_command_queue CL_API_CALL CreateCommandQueue_stat(cl_context context,
                                                            cl_device_id device,
                                                            cl_command_queue_properties props,
                                                            cl_int *errcode_ret)
{
    cl_command_queue q = perfq_cl_next.clCreateCommandQueue(
        context, device, props | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
    if (q)
        perfq_cl_stat_queue_created(q, (props & CL_QUEUE_PROFILING_ENABLE) != 0);
    return q;
}

void perfq_cl_install_stat_commands(cl_icd_dispatch *d)
{
    perfq_cl_stat_on = perfq_stat_channel_timeline() ? 2 : perfq_stat_channel_active();
    if (perfq_cl_stat_on && perfq_cl_next.clCreateCommandQueue)
        d->clCreateCommandQueue = CreateCommandQueue_stat;
}

void perfq_cl_stat_commands_fini(void)
{
    perfq_cl_table_clear(&stat_queues, NULL);
}
