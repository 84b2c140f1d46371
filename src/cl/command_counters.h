/*
 * Shared by the enqueue wrappers (command_counters.c, transfer_commands.c, map_commands.c,
 * kernel_commands.c): the usual wrapper shape and the byte helpers.
 */
#ifndef PERFQ_CL_COMMAND_COUNTERS_H
#define PERFQ_CL_COMMAND_COUNTERS_H

#include <string.h>

#include "cl/layer.h"

/* The usual shape: forward untouched unless counted or under `perfq stat` (stat_commands.c);
 * when counted, learn, forward, record; under perfq stat also send the command to the CLI (with
 * an internal event when the program passed none: then the command is not counted for the
 * program, which could never read it). Expects `queue` and `event` parameters in the wrapper;
 * `cmd` and `device` are in scope for `learn`. */
#define FORWARD_COUNTED(call, learn) FORWARD_COUNTED_SYNC(call, learn, CL_FALSE)
/* The same for a command that may block (`blocking`: the command's blocking argument): once a
 * blocking call returned, perfq stat reads the commands that completed. */
#define FORWARD_COUNTED_SYNC(call, learn, blocking)                    \
    do {                                                               \
        struct perfq_cl_command cmd;                                   \
        cl_device_id device = NULL;                                    \
        cl_event stat_event_ = NULL;                                   \
        int stat_internal_ = 0;                                        \
        if (perfq_cl_stat_on && !event) {                              \
            event = &stat_event_;                                      \
            stat_internal_ = 1;                                        \
        }                                                              \
        int counted_ = !stat_internal_ &&                              \
                       perfq_cl_command_begin(queue, event, &cmd, &device); \
        if (!counted_ && !perfq_cl_stat_on)                            \
            return call;                                               \
        if (!counted_) {                                               \
            memset(&cmd, 0, sizeof(cmd));                              \
            cmd.bytes_known = 1;                                       \
        }                                                              \
        (void)device;                                                  \
        learn;                                                         \
        uint64_t stat_t0_ = perfq_cl_stat_on > 1 ? perfq_cl_stat_clock() : 0; \
        cl_int err_ = call;                                            \
        if (perfq_cl_stat_on)                                          \
            perfq_cl_stat_command(&cmd, err_, event, stat_internal_, queue, stat_t0_, \
                                  blocking);                           \
        return counted_ ? perfq_cl_command_end(&cmd, err_, event) : err_; \
    } while (0)

/* stat_commands.c: 1 when `perfq stat --layers` listens (PERFQ_STAT_CHANNEL), 2 when it is
 * `perfq record` (a timeline: the enqueue call's CPU time is taken too). */
extern int perfq_cl_stat_on;
/* CLOCK_MONOTONIC in ns. */
uint64_t perfq_cl_stat_clock(void);
/* After the driver call: on success sends the command (type, kernel name, bytes; its duration
 * from the event's profiling once it completes, read in batches: stat_commands.c). internal:
 * the event is the layer's own and is released once read. t0: the CPU time before the driver
 * call (timeline mode). blocking: the call was blocking (the completed commands are read now). */
void perfq_cl_stat_command(const struct perfq_cl_command *cmd, cl_int err, cl_event *event,
                           int internal, cl_command_queue queue, uint64_t t0, cl_bool blocking);

/* region[0] * region[1] * region[2]. */
uint64_t perfq_cl_region_volume(const size_t *region);
/* Image commands: region pixels * CL_IMAGE_ELEMENT_SIZE of image (bytes_known 0 if unknown). */
void perfq_cl_image_bytes(struct perfq_cl_command *cmd, cl_mem image, const size_t *region);

void perfq_cl_install_transfer_commands(cl_icd_dispatch *d);
void perfq_cl_install_map_commands(cl_icd_dispatch *d);
void perfq_cl_install_kernel_commands(cl_icd_dispatch *d);
void perfq_cl_map_commands_fini(void);

#endif
