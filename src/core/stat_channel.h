/*
 * The channel from perfq's layers (inside the measured program) to `perfq stat` (docs/perfq-stat.md).
 *
 * `perfq stat --layers` makes an AF_UNIX SOCK_SEQPACKET socket pair and a one-page memfd, and
 * puts "SOCKFD:SOCKINO:PAGEFD:PAGEINO" in PERFQ_STAT_CHANNEL; both fds are inherited through
 * fork and exec, so children are followed. A layer checks that the fds still are that socket and
 * that page (inode numbers: a program that closed them and reused the numbers is never written
 * to), keeps close-on-exec duplicates, and sends one fixed-size record per message with
 * MSG_DONTWAIT | MSG_NOSIGNAL: a full socket buffer drops the record (never blocks), a CLI that
 * died gives EPIPE (never SIGPIPE). Every drop is counted in the shared page, which the CLI reads
 * at the end: drops are reported, never silent. The socket buffer bounds the memory in flight.
 * stat_channel.c is compiled into each layer (not libperfq.so): each attaches on its own.
 */
#ifndef PERFQ_STAT_CHANNEL_H
#define PERFQ_STAT_CHANNEL_H

#include <stdint.h>

#define PERFQ_STAT_CHANNEL_ENV "PERFQ_STAT_CHANNEL"
#define PERFQ_STAT_RECORD_MAGIC 0x70667173u   /* "pfqs" */

enum perfq_stat_record_kind {
    /* A frame ended (eglSwapBuffers / glXSwapBuffers): a = context handle, b = frame index in
     * that context (0-based), c = CPU frame time in ns (since the previous swap, or since the
     * context's first make-current for frame 0). */
    PERFQ_STAT_FRAME = 1,
    /* The GPU side of that frame, when its results came: a = context, b = frame index,
     * c = GPU time in ns (flag GPU_TIME), d = vertices submitted (flag VERTICES). */
    PERFQ_STAT_FRAME_GPU = 2,
    /* An OpenCL command completed: a = cl_command_type, c = duration (END - START) in ns
     * (flag GPU_TIME), d = bytes moved (flag BYTES); name = kernel name for kernels. */
    PERFQ_STAT_CL_COMMAND = 3,
};

#define PERFQ_STAT_HAS_GPU_TIME 1u
#define PERFQ_STAT_HAS_VERTICES 2u
#define PERFQ_STAT_HAS_BYTES 4u

struct perfq_stat_record {
    uint32_t magic;
    uint16_t kind;
    uint16_t flags;
    uint32_t pid;
    uint32_t reserved;
    uint64_t a, b, c, d;
    char name[64];              /* NUL-terminated, possibly truncated */
};

/* The shared page: counters the layers add to atomically. */
struct perfq_stat_page {
    uint64_t dropped;           /* records that could not be sent */
    uint64_t attached;          /* layer instances (one per process and layer) that attached */
};

/* Layer side. Attaches once per process (thread safe); 1 when the channel is there and valid,
 * 0 otherwise (then nothing is ever sent). */
int perfq_stat_channel_active(void);
/* Sends one record (magic and pid are filled in). Never blocks; a drop is counted. */
void perfq_stat_channel_send(struct perfq_stat_record *r);
/* Counts n records that will never be sent (results still pending at exit). */
void perfq_stat_channel_count_drops(uint64_t n);

#endif
