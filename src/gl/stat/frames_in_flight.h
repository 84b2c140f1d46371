/*
 * When perfq stat's frame front end reads an ended frame's results (stat_frames.c): at a swap,
 * the oldest pending frame is read, waiting for its GPU work if need be, once
 * PERFQ_GL_FRAMES_WAIT frames ended after it and it ended PERFQ_GL_FRAMES_READ_AGE_NS ago, or
 * when PERFQ_STAT_GL_FRAMES_IN_FLIGHT frames are pending. So a program of long frames (0.5 ms or
 * more) keeps 8 in flight, as before this rule, and never waits for a younger frame than it
 * did; one of short frames keeps those of the last 4 ms, up to 128: on the NVIDIA driver a read
 * 8 frames after a 17 us frame waited for the GPU (docs/perfq-stat.md, "Frames in flight").
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

#endif
