/* perfq stat's queues (stat_commands.c): profiling turned on underneath every queue. */
#ifndef PERFQ_CL_STAT_COMMANDS_H
#define PERFQ_CL_STAT_COMMANDS_H

#include "cl/layer.h"

/* The program's list with CL_QUEUE_PROFILING_ENABLE added (in buf, cap entries), or `in` itself
 * when it does not fit; *program_profiling: whether the program asked for it. */
const cl_queue_properties *perfq_cl_stat_queue_properties(const cl_queue_properties *in,
                                                          cl_queue_properties *buf, size_t cap,
                                                          int *program_profiling);
void perfq_cl_stat_queue_created(cl_command_queue queue, int program_profiling);
/* 1 for a queue whose profiling only perfq stat turned on (hide it from the program). */
int perfq_cl_stat_hidden_profiling(cl_command_queue queue);
void perfq_cl_install_stat_commands(cl_icd_dispatch *d);
void perfq_cl_stat_commands_fini(void);

#endif
