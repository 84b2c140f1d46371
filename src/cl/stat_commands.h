/* perfq stat's queues (stat_commands.c): profiling turned on underneath every queue. */
#ifndef PERFQ_CL_STAT_COMMANDS_H
#define PERFQ_CL_STAT_COMMANDS_H

#include "cl/layer.h"

/* The program's list with CL_QUEUE_PROFILING_ENABLE added (in buf, cap entries), or `in` itself
 * when it does not fit; *program_profiling: whether the program asked for it. */
const cl_queue_properties *perfq_cl_stat_queue_properties(const cl_queue_properties *in,
                                                          cl_queue_properties *buf, size_t cap,
                                                          int *program_profiling);
/* A queue made under perfq stat: the program's own list (NULL: clCreateCommandQueue, or a NULL
 * list), whether the layer added profiling to it, and whether the program asked for profiling.
 * The record lives until the program's last clReleaseCommandQueue of it. */
void perfq_cl_stat_queue_created(cl_command_queue queue, const cl_queue_properties *program,
                                 int profiling_underneath, int program_profiling);
/* clRetainCommandQueue by the program. */
void perfq_cl_stat_queue_retained(cl_command_queue queue);
/* The deprecated clSetCommandQueueProperty: for a queue made under perfq stat (1; 0 for
 * another), whether the layer added profiling under it and whether the program has it on now;
 * and the program's new setting once the driver accepted it. */
int perfq_cl_stat_queue_profiling(cl_command_queue queue, int *underneath,
                                  int *program_profiling);
void perfq_cl_stat_queue_set_program_profiling(cl_command_queue queue, int on);
/* How many queues the table holds (tests: a long run's released queues leave none). */
size_t perfq_cl_stat_queue_count(void);
/* 1 for a queue whose profiling only perfq stat turned on (hide it from the program). */
int perfq_cl_stat_hidden_profiling(cl_command_queue queue);
/* The program releases a queue (before the driver's release): the pending commands that are complete are read now, so that
 * the layer's references to their events do not keep the queue and its context alive after the
 * program let them go (a program that learns completion by event callbacks or polling never
 * makes a call after which the layer reads them). */
void perfq_cl_stat_queue_releasing(cl_command_queue queue);
/* For CL_QUEUE_PROPERTIES_ARRAY: 1 for a queue made under perfq stat, with a copy of the
 * program's list in *array (malloc'ed; NULL and size 0 where it passed none); 0 for another
 * queue; -1 out of memory. */
int perfq_cl_stat_queue_array(cl_command_queue queue, cl_queue_properties **array,
                              size_t *array_size);
void perfq_cl_install_stat_commands(cl_icd_dispatch *d);
void perfq_cl_stat_commands_fini(void);

#endif
