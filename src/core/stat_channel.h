/*
 * The channel from perfq's layers (inside the measured program) to `perfq stat` and `perfq record`
 * (docs/perfq-stat.md, "The channel").
 *
 * A bounded ring of fixed-size records in shared memory, written by many threads of many
 * processes and read by one thread of the CLI: no system call and no wake-up per record.
 * The CLI makes a memfd (struct perfq_stat_page, then the slots) and puts "PAGEFD:PAGEINO:PID"
 * (PID: perfq's own) in PERFQ_STAT_CHANNEL; the fd is inherited through fork and exec, so
 * children are followed. A layer checks that the fd still is that memfd (inode number: a program
 * that closed it and reused the number is never written to), maps it and closes nothing (the
 * mapping needs no fd). Where the fd is not that memfd any more (a program that closes the fds
 * it does not know before it starts its children: Python's subprocess by default, daemons), the
 * layer opens perfq's own copy, /proc/PID/fd/PAGEFD (perfq keeps it open until it ends; opening
 * it needs the same user, as ptrace's read mode), checks the inode, maps it and closes the fd
 * it opened. Where that open is refused (another user namespace, a sandbox's; fewer
 * capabilities than a perfq run as root: Chromium's GPU process), PERFQ_STAT_CHANNEL's fourth
 * field names perfq's socket, on which perfq hands the memfd over (stat_channel_socket.h).
 *
 * Writers (a bounded multi-producer queue with a sequence per slot, as Dmitry Vyukov's): position
 * pos lives in slot pos & (slots - 1), and a slot keeps its sequence less its index, so that a
 * memfd's zeros are every slot free for its first lap: with lap = pos & ~(slots - 1), the slot
 * is free for pos when its seq is lap. A writer reserves it with a CAS of the page's head from
 * pos to pos + 1, copies the record in and publishes it with a CAS of seq from lap to lap + 1.
 * A slot whose seq is below lap still holds the record of the previous lap: the ring is full
 * and the record is dropped and counted in the page's `dropped` (never blocks, never silent).
 * A writer reads nothing from the page that could hurt it: the slot count is checked once
 * against the memfd's size at attach, indices are masked, a retry loop is bounded (a head that
 * a program scribbled on makes records drop, counted, never a crash or a hang).
 *
 * The reader (perfq's drain thread, on a timer): takes the slot at its own tail when seq is
 * lap + 1 and frees it for the next lap (seq = lap + slots). A slot reserved but not published
 * (its writer was killed between the two, or is stopped) is waited for at most
 * PERFQ_STAT_RING_STUCK_NS while CMD runs, and not at all once CMD has exited: it is then given
 * up (seq set past it; counted as dropped; a writer that publishes later finds its CAS refused;
 * one stopped inside its copy while the ring laps could tear the next lap's record of that slot,
 * which the reader then checks as any record: magic, kind).
 * The tail lives in perfq's memory only: a program cannot move it.
 *
 * There is no socket: the CLI learns that CMD ended from waitid(), and records written before a
 * SIGKILL are in the CLI's own mapping. stat_channel.c is compiled into each layer (not
 * libperfq.so): each attaches on its own; perfq links it for the reader.
 */
#ifndef PERFQ_STAT_CHANNEL_H
#define PERFQ_STAT_CHANNEL_H

#include <stddef.h>
#include <stdint.h>

#define PERFQ_STAT_CHANNEL_ENV "PERFQ_STAT_CHANNEL"
#define PERFQ_STAT_RECORD_MAGIC 0x70667173u   /* "pfqs" */

enum perfq_stat_record_kind {
    /* A frame ended (eglSwapBuffers / glXSwapBuffers): a = context (the GL layer numbers its
     * process's contexts from 1, perfq_gl_context.serial: a destroyed context's handle is often
     * the next one's, so handles do not tell contexts apart), b = frame index in
     * that context (0-based), c = CPU frame time in ns (since the previous swap, or since the
     * return of the context's first make-current for frame 0). */
    PERFQ_STAT_FRAME = 1,
    /* The GPU side of that frame, when its results came: a = context, b = frame index,
     * c = GPU time in ns (flag GPU_TIME). Vertices come in FRAME_PIPELINE (before statistics
     * spans, d = vertices with flag VERTICES: no layer sends that now). */
    PERFQ_STAT_FRAME_GPU = 2,
    /* An OpenCL command completed: a = cl_command_type, c = duration (END - START) in ns
     * (flag GPU_TIME), d = bytes moved (flag BYTES); name = kernel name for kernels. */
    PERFQ_STAT_CL_COMMAND = 3,
    /* Timeline mode only (`perfq record`, PERFQ_STAT_PAGE_TIMELINE), sent once per object:
     * a GL context: a = context (as in FRAME), b = timer path (perfq_gl_timer_path_t), c = the GPU clock's
     * correlation error in ns (fence path: the stamp resolution), t0 = when its frame 0 began
     * (CLOCK_MONOTONIC ns), name = GL_RENDERER. */
    PERFQ_STAT_GL_CONTEXT = 4,
    /* an OpenCL queue: a = queue (the layer's number for it in its process, 1, 2, ...: a
     * released queue's handle is often the next one's), b = cl_device_id, c = its CL_QUEUE_PROPERTIES (the
     * driver's), name = CL_DEVICE_NAME. */
    PERFQ_STAT_CL_QUEUE = 5,
    /* an OpenCL enqueue call, sent from the calling thread when it returns: a = command type,
     * b = queue (as in CL_QUEUE), t0/t1 = the call, name = kernel name. */
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
    /* The pipeline statistics (GL_ARB_pipeline_statistics_query, the "Pipeline Statistics"
     * counters) of a statistics span: the frames of one context from the one after the previous
     * span's to `frame` (frames: how many; the span rule: the page's stats_span_ns), sent just
     * before the FRAME_GPU record of its last frame where the driver has them. Laid out as
     * struct perfq_stat_pipeline (below), not as the fields of a record. */
    PERFQ_STAT_FRAME_PIPELINE = 11,
    /* How many OpenCL commands this process's layer has counted so far (cumulative: a = the
     * count, b = those of them it gave up and counted as dropped itself), sent every
     * PERFQ_STAT_CL_COUNT_STEP commands and at its exit handler (flag FINAL), so that the CLI
     * can tell the commands of a process that ended (_exit, a signal) before its layer read
     * them. */
    PERFQ_STAT_CL_COUNTED = 12,
};
#define PERFQ_STAT_CL_COUNT_STEP 32

#define PERFQ_STAT_HAS_GPU_TIME 1u
#define PERFQ_STAT_HAS_VERTICES 2u
#define PERFQ_STAT_HAS_BYTES 4u
/* Timeline mode: FRAME_GPU: g0/g1 are the frame's GPU interval on the CPU clock, t0 its
 * correlation error in ns. CL_COMMAND: g0 = CL_PROFILING_COMMAND_QUEUED, g1 = ..._START (device
 * clock; END = START + c), t0/t1 = the enqueue call on the CPU clock (the CLI correlates). */
#define PERFQ_STAT_HAS_INTERVAL 8u
#define PERFQ_STAT_HAS_PRIMITIVES 16u
/* CL_COUNTED: the process's last count (its exit handler ran). */
#define PERFQ_STAT_FINAL 32u

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
 * with memcpy). mask bit i: statistic i was measured for the whole span (value[i] is valid: its
 * total over the span's frames). frames: the frames the span covers (frame - frames + 1 to
 * frame); 0 from a layer before spans, read as 1. */
struct perfq_stat_pipeline {
    uint32_t magic;
    uint16_t kind;
    uint16_t flags;
    uint32_t pid;
    uint32_t tid;
    uint64_t context, frame, mask;
    uint64_t value[PERFQ_STAT_PIPE_COUNT];
    uint64_t frames;
    uint8_t unused[sizeof(struct perfq_stat_record) - 16 - 32 - 8 * PERFQ_STAT_PIPE_COUNT];
};
_Static_assert(sizeof(struct perfq_stat_pipeline) == sizeof(struct perfq_stat_record),
               "a pipeline record travels as a record");

/* The shared page (the memfd's first PERFQ_STAT_PAGE_BYTES; the slots follow). The counters are
 * added to atomically; head is on a cache line of its own (every writer's CAS hits it). */
struct perfq_stat_page {
    uint64_t dropped;           /* records that could not be written (ring full, or no ring) */
    uint64_t attached;          /* layer instances (one per process and layer) that attached */
    uint64_t flags;             /* set by the CLI before CMD starts: PERFQ_STAT_PAGE_* */
    uint64_t slots;             /* set by the CLI before CMD starts: a power of two */
    /* set by the CLI before CMD starts: a context's pipeline statistics queries stay open
     * across swaps until the span has lasted at least this long (CPU time from the swap that
     * began it); 0: a span per frame (docs/perfq-stat.md, "Statistics spans") */
    uint64_t stats_span_ns;
    uint8_t pad0[24];
    uint64_t head;              /* the next position to reserve (writers' CAS) */
    uint8_t pad1[56];
};

/* One record and its sequence, less the slot's index (see above). */
struct perfq_stat_slot {
    uint64_t seq;
    uint64_t pad;
    struct perfq_stat_record record;
};

#define PERFQ_STAT_PAGE_BYTES 4096u
_Static_assert(sizeof(struct perfq_stat_page) == 128, "head on a cache line of its own");
_Static_assert(sizeof(struct perfq_stat_slot) == 160, "slots of 16-byte multiples");
/* 32768 slots of 160 bytes: 5 MiB. The drain thread reads every PERFQ_STAT_DRAIN_MS (after 1 ms
 * when it found the ring a quarter full), so the ring absorbs 1.6 million records a second
 * (per-draw records of 2000 draws a frame at 800 frames a second; `--per-draw` costs about 17 us
 * a draw on the H100, 60 000 records a second) and a drain thread kept off the CPU for 20 ms
 * more by an overloaded machine; a frame trickle (3 records a frame) never comes near. 20 ms:
 * 50 wake-ups a second of perfq on the program's cores (docs/perfq-stat.md: the drain thread's
 * CPU over 3000 frames of the GL example, 16 ms; 26 ms at 10 ms; 45-63 ms with the socket). */
#define PERFQ_STAT_RING_SLOTS 32768u
#define PERFQ_STAT_RING_MAX_SLOTS (1u << 20)
#define PERFQ_STAT_DRAIN_MS 20

/* The most frames of one GL context whose FRAME_GPU record may still come: the GL layer reads a
 * frame's results at most this many swaps after it (src/gl/stat/stat_frames.c), and perfq
 * record holds each context's pending frame starts for as many (record_timeline.c). */
#define PERFQ_STAT_GL_FRAMES_IN_FLIGHT 128u
/* While CMD runs, how long a reserved slot is waited for before it is given up. */
#define PERFQ_STAT_RING_STUCK_NS 500000000u

/* `perfq record`: the layers also send what a timeline needs (object records, enqueue calls,
 * CPU and GPU times); `perfq stat` leaves it clear and pays nothing for it. */
#define PERFQ_STAT_PAGE_TIMELINE 1u
/* `perfq stat --per-draw`: the GL layer times every draw call and counts its vertices and
 * primitives (src/gl/stat/stat_draws.c); without it the layer registers no draw observer. */
#define PERFQ_STAT_PAGE_PER_DRAW 2u
/* `--no-stats`: the GL layer keeps no pipeline statistics query active (frames are still
 * counted and timed). On llvmpipe any query active in a scene turns its overdraw elimination
 * off (docs/perfq-stat.md, "Pipeline statistics and llvmpipe's overdraw elimination"). */
#define PERFQ_STAT_PAGE_NO_STATS 4u

/* Layer side. Attaches once per process (thread safe); 1 when the channel is there and valid,
 * 0 otherwise (then nothing is ever sent). */
int perfq_stat_channel_active(void);
/* 1 when the CLI asked for a timeline (perfq record). */
int perfq_stat_channel_timeline(void);
/* 1 when the CLI asked for every draw call (perfq stat --per-draw). */
int perfq_stat_channel_per_draw(void);
/* 1 unless the CLI asked for no pipeline statistics (perfq stat --no-stats). */
int perfq_stat_channel_pipeline_stats(void);
/* The statistics span the CLI asked for, in ns (0: one per frame). */
uint64_t perfq_stat_channel_stats_span_ns(void);
/* CLOCK_MONOTONIC in ns, and the calling thread's id (cached per thread; reset in a fork's
 * child). */
uint64_t perfq_stat_now_ns(void);
uint32_t perfq_stat_tid(void);
/* Writes one record to the ring (magic and pid are filled in; tid when it is 0). No system call:
 * pid and tid are cached (pid refreshed in a fork's child). Never blocks; a drop is counted. */
void perfq_stat_channel_send(struct perfq_stat_record *r);
/* The same, for the one record a process must not lose (the OpenCL layer's final count at
 * exit): a full ring is tried again every millisecond for up to max_ms before the drop is
 * counted. Blocks the caller that long at most; never call it on a hot path. */
void perfq_stat_channel_send_waiting(struct perfq_stat_record *r, unsigned max_ms);
/* Counts n records that will never be sent (results still pending at exit). */
void perfq_stat_channel_count_drops(uint64_t n);

/* CLI side: the ring's reader. One thread reads; the writers are the layers. */
struct perfq_stat_ring {
    struct perfq_stat_page *page;
    struct perfq_stat_slot *slots;
    uint64_t n;                 /* slots (a power of two) */
    size_t bytes;               /* the mapping */
    uint64_t tail;              /* the next position to read: ours only */
    uint64_t stuck_since;       /* when the slot at tail was first seen reserved, unpublished */
    uint64_t given_up;          /* reserved slots never published: dropped records */
    uint64_t corrupt;           /* reads that found the page's head out of [tail, tail + n] */
};
/* Makes the memfd (not close-on-exec: CMD inherits it) with `slots` slots (a power of two, at
 * most PERFQ_STAT_RING_MAX_SLOTS) and maps it. Returns the fd, or -1 with errno set. */
int perfq_stat_ring_create(struct perfq_stat_ring *ring, uint64_t slots);
/* The value of PERFQ_STAT_CHANNEL for the ring's fd: "FD:INO:PID", then ":SOCKET" where
 * socket_path is not NULL or empty (the memfd's inode, which a layer checks before it attaches;
 * this process's pid, whose /proc/PID/fd/FD a layer opens where the program closed its
 * inherited fd; the socket a layer asks where that open is refused). 0, or -1 with errno set
 * (fstat failed, or `size` too small). */
int perfq_stat_channel_env(int fd, const char *socket_path, char *out, size_t size);
/* The next record, in reservation order: 1 when one was copied to *out, 0 when there is none
 * now. now_ns (CLOCK_MONOTONIC) times a reserved slot's wait; with `final` (CMD has exited) a
 * reserved slot is given up at once. A call gives up at most `slots` slots (head - tail). */
int perfq_stat_ring_read(struct perfq_stat_ring *ring, struct perfq_stat_record *out,
                         uint64_t now_ns, int final);
/* Records lost: the writers' count in the page, plus the slots the reader gave up. */
uint64_t perfq_stat_ring_dropped(const struct perfq_stat_ring *ring);
void perfq_stat_ring_close(struct perfq_stat_ring *ring);

#endif
