/*
 * When perfq stat's frame front end reads an ended frame's results (stat_frames.c): at a swap,
 * the oldest pending frame is read once PERFQ_GL_FRAMES_WAIT frames ended after it and it ended
 * PERFQ_GL_FRAMES_READ_AGE_NS ago, or when PERFQ_STAT_GL_FRAMES_IN_FLIGHT frames are pending. So
 * a program of long frames (0.5 ms or more) keeps 8 in flight and one of short frames keeps
 * those of the last 4 ms, up to 128: on the NVIDIA driver a read 8 frames after a 17 us frame
 * waited for the GPU (docs/perfq-stat.md, "Frames in flight").
 *
 * Such a read asks first, without waiting: a frame whose results are not there yet stays
 * pending, and is waited for only when PERFQ_STAT_GL_FRAMES_IN_FLIGHT are pending (the ring is
 * full). Several contexts rendering at once on one GPU (threads of a program, each its own
 * context) take turns on it: the NVIDIA driver ran a context's frame up to 60 ms after its
 * swap, and a waited read at 8 frames stalled each thread until the GPU came back to its
 * context, 6.4 times the program's time with 8 threads (docs/perfq-stat.md, "Several threads
 * rendering at once").
 */
#ifndef PERFQ_GL_STAT_FRAMES_IN_FLIGHT_H
#define PERFQ_GL_STAT_FRAMES_IN_FLIGHT_H

#include <stdint.h>

#include "core/stat_channel.h"

#define PERFQ_GL_FRAMES_WAIT 8u
#define PERFQ_GL_FRAMES_READ_AGE_NS 4000000u

/* Whether the swap reads the oldest of `pending` ended frames, which ended `age_ns` ago. */
static inline int perfq_gl_frames_read_oldest(unsigned pending, uint64_t age_ns)
{
    return pending >= PERFQ_STAT_GL_FRAMES_IN_FLIGHT ||
           (pending >= PERFQ_GL_FRAMES_WAIT && age_ns >= PERFQ_GL_FRAMES_READ_AGE_NS);
}

/* Whether the oldest of `pending` ended frames, due to be read but not done on the GPU, is
 * waited for (the ring is full); otherwise it stays pending until a later swap. */
static inline int perfq_gl_frames_wait_oldest(unsigned pending)
{
    return pending >= PERFQ_STAT_GL_FRAMES_IN_FLIGHT;
}

#endif
