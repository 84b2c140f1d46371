/*
 * Whether a release of a context (the front ends' leave observer, stat_frames.c and
 * stat_draws.c) waits for the results still pending. A program that hands its context from
 * thread to thread every frame releases it every frame: only a release a second or more after
 * the last one that waited does so (the others read what is ready), so such a program does not
 * wait for the GPU at every frame; the usual single release before eglDestroyContext always
 * waits.
 */
#ifndef PERFQ_GL_STAT_RELEASE_WAIT_H
#define PERFQ_GL_STAT_RELEASE_WAIT_H

#include <stdint.h>

#define PERFQ_GL_RELEASE_WAIT_EVERY_NS 1000000000ull

/* 1 when the release at now waits (now is then kept in *last_waited_ns, 0 before any). */
static inline int perfq_gl_release_waits(uint64_t *last_waited_ns, uint64_t now)
{
    if (*last_waited_ns && now - *last_waited_ns < PERFQ_GL_RELEASE_WAIT_EVERY_NS)
        return 0;
    *last_waited_ns = now;
    return 1;
}

#endif
