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
    /* Timeline mode only (`perfq record`, PERFQ_STAT_PAGE_TIMELINE), sent once per object:
     * a GL context: a = handle, b = timer path (perfq_gl_timer_path_t), c = the GPU clock's
     * correlation error in ns (fence path: the stamp resolution), name = GL_RENDERER. */
    PERFQ_STAT_GL_CONTEXT = 4,
    /* an OpenCL queue: a = queue, b = cl_device_id, name = CL_DEVICE_NAME. */
    PERFQ_STAT_CL_QUEUE = 5,
    /* an OpenCL enqueue call, sent from the calling thread when it returns: a = command type,
     * b = queue, t0/t1 = the call, name = kernel name. */
    PERFQ_STAT_CL_ENQUEUE = 6,
    /* GL memory of a share group (GL_NV_query_resource's accounting), sent when its total
     * reaches a new peak (timeline mode: at every change of the total): a = share group,
     * b/c/d = KiB of textures/renderbuffers/buffer objects, g0/g1/t1 = their object counts,
     * t0 = time. */
    PERFQ_STAT_GL_MEMORY = 7,
    /* --per-draw only (PERFQ_STAT_PAGE_PER_DRAW): a draw call ended on the GPU: a = context,
     * b = frame index it belongs to, c = GPU time in ns (flag GPU_TIME), d = vertices submitted
     * (flag VERTICES), t1 = primitives submitted (flag PRIMITIVES), name = the GL function;
     * timeline mode (perfq record --per-draw), flag INTERVAL: g0/g1 = its GPU interval on the
     * CPU clock, t0 = the correlation error in ns. A draw
     * whose results never came (context destroyed while not current) is sent without flags: the
     * count stays exact. */
    PERFQ_STAT_DRAW = 8,
    /* --per-draw only: the draws of one frame, sent at its swap: a = context, b = frame index,
     * c = draw calls in it. */
    PERFQ_STAT_FRAME_DRAWS = 9,
    /* GL memory of one GL_NV_query_resource_tag tag (a tag with state: glQueryResourceTagNV was
     * called on it), sent when the tag's total reaches a new peak: a = share group, b = tag id,
     * c = KiB, d = objects, t0 = time, name = the tag's string then (cut to 63 bytes). */
    PERFQ_STAT_GL_MEMORY_TAG = 10,
    /* The frame's pipeline statistics (GL_ARB_pipeline_statistics_query, the "Pipeline
     * Statistics" counters), sent just before its FRAME_GPU record where the driver has them.
     * Laid out as struct perfq_stat_pipeline (below), not as the fields of a record. */
    PERFQ_STAT_FRAME_PIPELINE = 11,
};

#define PERFQ_STAT_HAS_GPU_TIME 1u
#define PERFQ_STAT_HAS_VERTICES 2u
#define PERFQ_STAT_HAS_BYTES 4u
/* Timeline mode: FRAME_GPU: g0/g1 are the frame's GPU interval on the CPU clock, t0 its
 * correlation error in ns. CL_COMMAND: g0 = CL_PROFILING_COMMAND_QUEUED, g1 = ..._START (device
 * clock; END = START + c), t0/t1 = the enqueue call on the CPU clock (the CLI correlates). */
#define PERFQ_STAT_HAS_INTERVAL 8u
#define PERFQ_STAT_HAS_PRIMITIVES 16u

struct perfq_stat_record {
    uint32_t magic;
    uint16_t kind;
    uint16_t flags;
    uint32_t pid;
    uint32_t tid;               /* the sending thread (the enqueuing thread for CL commands) */
    uint64_t a, b, c, d;
    /* Timeline mode: CPU times are CLOCK_MONOTONIC ns. FRAME: t0 = frame start, t1 = swap. */
    uint64_t t0, t1, g0, g1;
    char name[64];              /* NUL-terminated, possibly truncated */
};

/* The statistics of PERFQ_STAT_FRAME_PIPELINE, in the order of ARB_pipeline_statistics_query's
 * targets (GL_VERTICES_SUBMITTED_ARB ... GL_CLIPPING_OUTPUT_PRIMITIVES_ARB). */
enum perfq_stat_pipeline_statistic {
    PERFQ_STAT_PIPE_VERTICES,                   /* GL_VERTICES_SUBMITTED_ARB */
    PERFQ_STAT_PIPE_PRIMITIVES,                 /* GL_PRIMITIVES_SUBMITTED_ARB */
    PERFQ_STAT_PIPE_VS_INVOCATIONS,             /* GL_VERTEX_SHADER_INVOCATIONS_ARB */
    PERFQ_STAT_PIPE_TCS_PATCHES,                /* GL_TESS_CONTROL_SHADER_PATCHES_ARB */
    PERFQ_STAT_PIPE_TES_INVOCATIONS,            /* GL_TESS_EVALUATION_SHADER_INVOCATIONS_ARB */
    PERFQ_STAT_PIPE_GS_INVOCATIONS,             /* GL_GEOMETRY_SHADER_INVOCATIONS */
    PERFQ_STAT_PIPE_GS_PRIMITIVES,              /* GL_GEOMETRY_SHADER_PRIMITIVES_EMITTED_ARB */
    PERFQ_STAT_PIPE_FS_INVOCATIONS,             /* GL_FRAGMENT_SHADER_INVOCATIONS_ARB */
    PERFQ_STAT_PIPE_CS_INVOCATIONS,             /* GL_COMPUTE_SHADER_INVOCATIONS_ARB */
    PERFQ_STAT_PIPE_CLIPPING_INPUT,             /* GL_CLIPPING_INPUT_PRIMITIVES_ARB */
    PERFQ_STAT_PIPE_CLIPPING_OUTPUT,            /* GL_CLIPPING_OUTPUT_PRIMITIVES_ARB */
    PERFQ_STAT_PIPE_COUNT
};

/* PERFQ_STAT_FRAME_PIPELINE: the same size as a record (it travels as one; copy it in and out
 * with memcpy). mask bit i: statistic i was measured for the whole frame (value[i] is valid). */
struct perfq_stat_pipeline {
    uint32_t magic;
    uint16_t kind;
    uint16_t flags;
    uint32_t pid;
    uint32_t tid;
    uint64_t context, frame, mask;
    uint64_t value[PERFQ_STAT_PIPE_COUNT];
    uint8_t unused[sizeof(struct perfq_stat_record) - 16 - 24 - 8 * PERFQ_STAT_PIPE_COUNT];
};
_Static_assert(sizeof(struct perfq_stat_pipeline) == sizeof(struct perfq_stat_record),
               "a pipeline record travels as a record");

/* The shared page: counters the layers add to atomically. */
struct perfq_stat_page {
    uint64_t dropped;           /* records that could not be sent */
    uint64_t attached;          /* layer instances (one per process and layer) that attached */
    uint64_t flags;             /* set by the CLI before CMD starts: PERFQ_STAT_PAGE_* */
};

/* `perfq record`: the layers also send what a timeline needs (object records, enqueue calls,
 * CPU and GPU times); `perfq stat` leaves it clear and pays nothing for it. */
#define PERFQ_STAT_PAGE_TIMELINE 1u
/* `perfq stat --per-draw`: the GL layer times every draw call and counts its vertices and
 * primitives (src/gl/stat/stat_draws.c); without it the layer registers no draw observer. */
#define PERFQ_STAT_PAGE_PER_DRAW 2u

/* Layer side. Attaches once per process (thread safe); 1 when the channel is there and valid,
 * 0 otherwise (then nothing is ever sent). */
int perfq_stat_channel_active(void);
/* 1 when the CLI asked for a timeline (perfq record). */
int perfq_stat_channel_timeline(void);
/* 1 when the CLI asked for every draw call (perfq stat --per-draw). */
int perfq_stat_channel_per_draw(void);
/* CLOCK_MONOTONIC in ns, and the calling thread's id. */
uint64_t perfq_stat_now_ns(void);
uint32_t perfq_stat_tid(void);
/* Sends one record (magic and pid are filled in; tid when it is 0). Never blocks; a drop is counted. */
void perfq_stat_channel_send(struct perfq_stat_record *r);
/* Counts n records that will never be sent (results still pending at exit). */
void perfq_stat_channel_count_drops(uint64_t n);

#endif
