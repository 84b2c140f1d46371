/*
 * Query virtualisation, shared by the service (query_virtualization.c) and the program's own
 * query entry points (program_queries.c).
 *
 * A "slot" is one place where GL allows a single active query: the occlusion targets share one
 * (Mesa binds SAMPLES_PASSED, ANY_SAMPLES_PASSED and ANY_SAMPLES_PASSED_CONSERVATIVE to one
 * binding point), TIME_ELAPSED has one, PRIMITIVES_GENERATED one per vertex stream, and each
 * pipeline statistics target one. On a slot, the logical queries active at once (at most one of
 * the program's, any number of perfq's) share driver "segments": whenever the set of active
 * logical queries changes, the driver query is ended and a new segment begun, so every logical
 * query covers a whole number of segments, and its result is their sum (or OR).
 *
 * The program's query keeps its own driver object (its name) as its first piece: while nothing
 * else is active it is the driver's query, untouched; it becomes a "program record" (a logical
 * query with pieces) only if perfq begins a query on its slot meanwhile.
 */
#ifndef PERFQ_GL_QUERY_VIRTUALIZATION_H
#define PERFQ_GL_QUERY_VIRTUALIZATION_H

#include "gl/contexts/layer_internal.h"
#include "gl/virtualization/name_table.h"

#define PERFQ_GL_VQ_SLOTS 17
/* A slot's pool of driver query objects keeps every segment read while logical queries live on
 * the slot (a profiler with N queries outstanding reuses N objects instead of creating and
 * deleting one per query: issue 10), and goes back to this many when the last one is freed. */
#define PERFQ_GL_VQ_POOL_MAX 8

/* A piece of a slot's queue, in command order: a segment (a driver query object the layer
 * owns) not read yet, or a mark (the point between two segments where logical queries begin or
 * end). A logical query holds two marks, whatever the number of segments between them: its
 * value is the difference of the slot's running sum at its marks (issue 14 item 3: a list of
 * segments per query made N nested queries cost O(N^2) in time and memory). */
struct perfq_gl_segment {
    GLuint name;                    /* segment: its driver query object; mark: 0 */
    int mark;
    int queued;                     /* in the slot's queue (a segment not read yet; a mark whose
                                     * value is not known yet) */
    int refs;                       /* mark: logical queries that begin or end at it */
    uint64_t serial;                /* mark: segments begun on the slot before it */
    GLuint64 value;                 /* mark, once known: the running sum at it */
    struct perfq_gl_segment *prev, *next;  /* the queue; next: the slot's pool */
};

struct perfq_gl_vquery {
    GLenum target;                  /* the target the owner asked for */
    GLuint index;
    int slot;
    int active;
    int ended;
    int program;                    /* a program record */
    GLuint name;                    /* program record: the program's query name */
    GLuint native;                  /* program record: its own driver query, the first piece */
    int native_done;
    GLuint64 native_value;
    struct perfq_gl_segment *start, *end;   /* marks: where it began and ended on its slot */
    struct perfq_gl_vquery *next_active, *prev_active;
};

struct perfq_gl_vq_slot {
    GLenum seg_target;              /* target of the layer's segments on this slot */
    GLuint index;
    GLuint prog_name;               /* the program's active query here, 0 if none */
    GLenum prog_target;
    struct perfq_gl_vquery *prog_rec;   /* non-NULL once the program's active query was split */
    struct perfq_gl_segment *cur;   /* the layer's segment active at the driver (queued) */
    struct perfq_gl_vquery *active; /* active logical queries (perfq's and prog_rec) */
    struct perfq_gl_segment *head, *tail;   /* the queue: unread segments and pending marks */
    GLuint64 sum;                   /* running sum of the segments read off the queue */
    uint64_t serial;                /* segments begun on this slot */
    struct perfq_gl_segment *pool;  /* a stack: the object read last is reused first, so a
                                     * program with N queries outstanding cycles through N
                                     * objects however many the pool holds (issue 10) */
    int pool_n;
    int users;                      /* logical queries on the slot not freed yet (records too) */
    /* The program's targets on this slot whose driver query may be active now, one bit per
     * target (the occlusion slot's three: perfq_gl_vq_target_bit): set when the program begins
     * one while the layer has nothing active here (the call goes straight to the driver), cleared
     * when it ends one. The layer sees each glBeginQuery and glEndQuery call of the program, so a
     * clear bit means no such query is active, and the layer neither asks the driver
     * (GL_CURRENT_QUERY) nor brackets its own calls with glGetError there (issue 10). */
    unsigned prog_maybe;
    int suspended;                  /* the context left the thread with logical queries active
                                     * here: their driver segment was ended (perfq_gl_vq_suspend) */
};

/* The query entry points that work in a context (core, or *EXT in GLES 2). */
struct perfq_gl_query_fns {
    void (*gen)(GLsizei, GLuint *);
    void (*del)(GLsizei, const GLuint *);
    void (*begin)(GLenum, GLuint);
    void (*end)(GLenum);
    void (*begin_indexed)(GLenum, GLuint, GLuint);
    void (*end_indexed)(GLenum, GLuint);
    void (*counter)(GLuint, GLenum);
    void (*get_iv)(GLenum, GLenum, GLint *);
    void (*obj_uiv)(GLuint, GLenum, GLuint *);
    void (*obj_ui64v)(GLuint, GLenum, GLuint64 *);
};

/* Logical queries and marks freed in a context are kept for its next ones, up to this many of
 * each (issue 10: with thousands of queries outstanding, the allocator's slow paths were the
 * layer's largest cost per query; about 150 KiB per context at most). */
#define PERFQ_GL_VQ_FREE_MAX 1024

struct perfq_gl_vq_state {
    struct perfq_gl_vq_slot slots[PERFQ_GL_VQ_SLOTS];
    struct perfq_gl_segment *free_marks;        /* linked by next */
    struct perfq_gl_vquery *free_vqueries;      /* linked by next_active */
    int n_free_marks, n_free_vqueries;
    struct perfq_gl_name_table records;     /* program name -> split program record */
    struct perfq_gl_name_table internal;    /* the layer's driver names -> segment */
    /* The layer's other driver names (layer_names.c): timer stamps -> PERFQ_GL_VQ_TIMER_NAME,
     * the driver names of the program's aliases -> the program's name. */
    struct perfq_gl_name_table layer_names;
    /* Compatibility profile: a program's name that the layer held when the program first used
     * it -> the driver name that stands for it (layer_names.c). */
    struct perfq_gl_name_table aliases;
    struct perfq_gl_query_fns fn;
    signed char supported[16];              /* target_supported, cached: -1 unknown */
};

/* The context's state, made on first use (NULL: out of memory). Inline: it is asked on every
 * query (issue 10). */
struct perfq_gl_vq_state *perfq_gl_vq_make(struct perfq_gl_ctx *ctx);
static inline struct perfq_gl_vq_state *perfq_gl_vq(struct perfq_gl_ctx *ctx)
{
    return ctx->vq ? ctx->vq : perfq_gl_vq_make(ctx);
}
/* The slot of (target, index), or -1 for targets the layer never shares. */
int perfq_gl_vq_slot_of(GLenum target, GLuint index);
/* The target's bit in its slot's prog_maybe. */
unsigned perfq_gl_vq_target_bit(GLenum target);
/* A logical query (or program record) on the slot is made / freed. */
void perfq_gl_vq_slot_user(struct perfq_gl_ctx *ctx, int slot, int delta, int gl_usable);
/* Ends the segment active at the driver, gives `leaving` (just taken off the active list) its
 * end mark and `joining` (just put on it) its start mark (either may be NULL), and, if logical
 * queries remain active, begins a new segment, which all of them cover: O(1) in their number. */
void perfq_gl_vq_rotate(struct perfq_gl_ctx *ctx, int slot, struct perfq_gl_vquery *joining,
                        struct perfq_gl_vquery *leaving);
/* The slot's doubly linked list of active logical queries. */
void perfq_gl_vq_add_active(struct perfq_gl_vq_slot *sl, struct perfq_gl_vquery *q);
void perfq_gl_vq_remove_active(struct perfq_gl_vq_slot *sl, struct perfq_gl_vquery *q);
/* The program's unsplit active query on the slot becomes a record with its native piece. */
void perfq_gl_vq_split_program_now(struct perfq_gl_ctx *ctx, int slot);
static inline void perfq_gl_vq_split_program(struct perfq_gl_ctx *ctx, int slot)
{
    struct perfq_gl_vq_slot *sl = &ctx->vq->slots[slot];
    if (sl->prog_name && !sl->prog_rec)
        perfq_gl_vq_split_program_now(ctx, slot);
}
/* Summed/ORed value of a logical query. wait 0: PERFQ_NOT_READY while pending. */
perfq_status_t perfq_gl_vq_value(struct perfq_gl_ctx *ctx, struct perfq_gl_vquery *q, int wait,
                                 GLuint64 *value);
void perfq_gl_vq_release(struct perfq_gl_ctx *ctx, struct perfq_gl_vquery *q);
/* A zeroed logical query, from the context's free list or the heap (NULL: out of memory). */
struct perfq_gl_vquery *perfq_gl_vq_alloc(struct perfq_gl_vq_state *s);
void perfq_gl_vq_begin_driver(struct perfq_gl_ctx *ctx, GLenum target, GLuint index, GLuint id);
/* 1 if the program has a buffer bound to GL_QUERY_BUFFER (where the context has that binding):
 * the layer's own query reads unbind it around the read. */
int perfq_gl_vq_query_buffer_bound(struct perfq_gl_ctx *c);
void perfq_gl_vq_end_driver(struct perfq_gl_ctx *ctx, GLenum target, GLuint index);

/* Live-object counts for perfq_gl_layer_stats (logical queries and their links: per context,
 * struct perfq_gl_ctx). */
extern atomic_ullong perfq_gl_vq_live_segments, perfq_gl_vq_live_records;

/* The service's per-context work (contexts/layer_internal.h, struct perfq_gl_context_services):
 * registered there at load, run by context.c. */
void perfq_gl_vq_free_context(struct perfq_gl_ctx *ctx, int gl_usable);
/* The context (current on this thread) is about to stop being current: the layer's driver
 * queries active in it are ended (their logical queries stay active, resumed at its next
 * make-current). Mesa's llvmpipe frees the queries of a destroyed context without waiting for
 * its rasterizer threads when a query was never ended, and they then write into freed memory:
 * a context that is current nowhere never has a perfq query active at the driver. */
void perfq_gl_vq_suspend(struct perfq_gl_ctx *ctx);
/* The context is current on this thread again (or a switch away from it failed): the logical
 * queries still active get a new driver segment each, so their results stay the exact sum. */
void perfq_gl_vq_resume(struct perfq_gl_ctx *ctx);
/* ---- The layer's query names and the program's (layer_names.c) ----
 * Query names are the context's, one namespace for the program and the layer: the layer's
 * driver names are kept out of the program's sight (glIsQuery false, glDeleteQueries skips them,
 * any other use is the driver's answer for a name that is no query object), and a
 * compatibility-profile program that names a query the layer holds (legal there: GL 4.6
 * compatibility 4.2, BeginQuery "with an unused name") gets another driver name standing for
 * its own (an alias) for the object's life. */
#define PERFQ_GL_VQ_TIMER_NAME ((void *)~(uintptr_t)0)
/* A new driver name for the layer's own use (a timer stamp), or 0. */
GLuint perfq_gl_vq_gen_layer_name(struct perfq_gl_ctx *ctx);
/* The layer is done with these names of its own (gen'ed above, or segments'): deleted at the
 * driver, except one a program's alias still stands for (kept until the program deletes it, so
 * that the driver never gives the program that name while the program names the alias so). */
void perfq_gl_vq_delete_layer_names(struct perfq_gl_ctx *ctx, GLsizei n, const GLuint *names);
/* 1 if `name` is a driver name of the layer's (segment, timer, alias). */
int perfq_gl_vq_is_layer_name(const struct perfq_gl_vq_state *s, GLuint name);
/* The driver name for a program's query name: its alias's, or 0 for a name of the layer's,
 * else the name itself. */
static inline GLuint perfq_gl_vq_driver_name(const struct perfq_gl_vq_state *s, GLuint name)
{
    if (s->aliases.count) {
        void *d = perfq_gl_name_table_get(&s->aliases, name);
        if (d)
            return (GLuint)(uintptr_t)d;
    }
    return perfq_gl_vq_is_layer_name(s, name) ? 0 : name;
}
/* The program's name for a driver name the driver reported (GL_CURRENT_QUERY). */
GLuint perfq_gl_vq_program_name(const struct perfq_gl_vq_state *s, GLuint driver_name);
/* Compatibility profile, before a call that may make a query object of an unused name
 * (glBeginQuery*, glQueryCounter): for a program name the layer holds, a driver name unused
 * now, to be given to the driver instead; then perfq_gl_vq_alias_settle after the call. Else
 * returns perfq_gl_vq_driver_name. */
GLuint perfq_gl_vq_alias_for_new(struct perfq_gl_ctx *ctx, GLuint name, int *pending);
/* After that call: the alias is kept where the driver made the object, dropped where not. */
void perfq_gl_vq_alias_settle(struct perfq_gl_ctx *ctx, GLuint name, GLuint driver_name);
/* The program deletes its name: the driver names to delete for it (its alias's, and the
 * program's own once the layer let it go), written to out[0..1]; returns how many. */
int perfq_gl_vq_alias_delete(struct perfq_gl_ctx *ctx, GLuint name, GLuint out[2]);

/* Reads a driver query object's 64-bit result, unbinding a query buffer first. */
void perfq_gl_read_query(struct perfq_gl_ctx *ctx, GLuint name, GLenum pname, GLuint64 *value);

#endif
