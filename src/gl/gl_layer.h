/*
 * The GL layer's front-end module interface (libperfq-gl.so): what an extension front end built on
 * the layer (angle_timer_query.c, intel_performance_query_layer.c, ...) may use. A front end is
 * one struct perfq_gl_frontend registered from a constructor: its scope, entry points, extension
 * strings, glGet values, observers of program calls, hooks and stats; the layer's context,
 * injection and GetProcAddress code know no extension by name. docs/gl-layer-interface.md is the
 * design documentation of this header.
 *
 * Threads: every function taking a `struct perfq_gl_context *` must be called on the thread where
 * that context is current (GL's own rule), except perfq_gl_timer_result/_vquery_result with
 * wait == 0 on the fence path, which are safe anywhere. Registration functions are safe from any
 * thread at any time, constructors included (they use static storage and a lock, not the layer's
 * lazy init).
 *
 * GL state and errors: every service call below leaves the program's GL error flag and GL state
 * (bound queries, query buffer binding) as it found them. A service that fails returns a negative
 * perfq_status_t and records nothing for the program: the front end decides which GL error the
 * spec asks for and records it with perfq_gl_record_error().
 */
#ifndef PERFQ_GL_LAYER_H
#define PERFQ_GL_LAYER_H

#include <stddef.h>
#include <stdint.h>

#ifndef GL_GLEXT_PROTOTYPES
#define GL_GLEXT_PROTOTYPES 1
#endif
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include "perfq/perfq.h"
#include "gl/dispatch/dispatch.h"

#ifndef PERFQ_GL_EXPORT
#define PERFQ_GL_EXPORT __attribute__((visibility("default")))
#endif

/* ---- Contexts ------------------------------------------------------------------------------ */

typedef enum perfq_gl_api {
    PERFQ_GL_API_GL = 0,        /* desktop OpenGL (compatibility or core) */
    PERFQ_GL_API_GLES = 1,      /* OpenGL ES */
} perfq_gl_api_t;

typedef enum perfq_gl_window_system {
    PERFQ_GL_WS_EGL = 0,
    PERFQ_GL_WS_GLX = 1,
} perfq_gl_window_system_t;

/* Which timer the trustworthy timer service uses in a context (see gpu_timer.c and
 * docs/gl-layer.md for the rules). */
typedef enum perfq_gl_timer_path {
    PERFQ_GL_TIMER_NONE = 0,    /* neither trustworthy timer queries nor fences: no timer */
    PERFQ_GL_TIMER_QUERY = 1,   /* the driver's TIME_ELAPSED / TIMESTAMP queries */
    PERFQ_GL_TIMER_FENCE = 2,   /* EGL fences stamped with CLOCK_MONOTONIC by a helper thread */
} perfq_gl_timer_path_t;

#define PERFQ_GL_MAX_SLOTS 8

/* One GL context the program created. Fields are filled when the context is first made current
 * (before the context-created hooks run) and are read-only for front ends. */
struct perfq_gl_context {
    /* The real driver functions (never the layer's wrappers). Always non-NULL; a member is NULL
     * where the driver lacks that entry point. */
    const struct perfq_gl_dispatch *gl;
    perfq_gl_window_system_t window_system;
    void *handle;               /* the EGLContext or GLXContext */
    /* This process's contexts numbered from 1 in the order the layer first saw them: what
     * perfq stat and perfq record tell contexts apart by (a destroyed context's handle is often
     * the next one's). */
    uint64_t serial;
    void *display;              /* the EGLDisplay or X Display* */
    perfq_gl_api_t api;
    int major, minor;           /* from GL_VERSION */
    int core_profile;           /* desktop GL: 1 for a core profile context */
    const char *vendor;         /* GL_VENDOR, GL_RENDERER, GL_VERSION: copies owned by the layer */
    const char *renderer;
    const char *version;
    /* ... private layer state follows in context.c's definition; do not allocate this struct. */
};

/* The context current on the calling thread, or NULL. Cheap (a thread-local load). */
struct perfq_gl_context *perfq_gl_current_context(void);

/* 1 if the driver (not the layer) advertises `name` (e.g. "GL_ARB_pipeline_statistics_query")
 * in this context. */
int perfq_gl_has_driver_extension(const struct perfq_gl_context *ctx, const char *name);

/* 1 if the context's GL version is at least major.minor (GLES and GL compared as they are). */
int perfq_gl_version_at_least(const struct perfq_gl_context *ctx, int major, int minor);

/* The share group of a context: the contexts that share its objects (eglCreateContext's
 * share_context, glXCreate*Context's share list), tracked from context creation. */
struct perfq_gl_share_group;
struct perfq_gl_share_group *perfq_gl_context_share_group(const struct perfq_gl_context *ctx);
/* Contexts of the group alive now (>= 1 while any context of it is). */
int perfq_gl_share_group_contexts(const struct perfq_gl_share_group *group);


/* ---- Errors -------------------------------------------------------------------------------- */

/* Records a GL error for the program, as GL does: if an error is already pending (the layer's or
 * the driver's), this one is dropped; the program's next glGetError returns the first and clears
 * it. */
void perfq_gl_record_error(struct perfq_gl_context *ctx, GLenum error);

/* The object bound in the current context at a binding (GL_ARRAY_BUFFER_BINDING,
 * GL_TEXTURE_BINDING_2D of the active unit, GL_RENDERBUFFER_BINDING, ...) as glGetIntegerv would
 * return it, without asking the driver where the layer tracks the program's binds (the common
 * buffer targets, texture units 0..31, the renderbuffer: src/gl/contexts/bindings.c).
 * Call it right after a call the driver accepted on that binding's target. */
GLuint perfq_gl_bound(struct perfq_gl_context *ctx, GLenum binding);

/* For front ends that call the driver directly through ctx->gl: bracket the calls with these two
 * so the program's pending error survives and the calls' own errors are returned, not leaked.
 * perfq_gl_error_guard_end returns the first error the bracketed calls raised (GL_NO_ERROR if
 * none). Nesting is allowed. */
void perfq_gl_error_guard_begin(struct perfq_gl_context *ctx);
GLenum perfq_gl_error_guard_end(struct perfq_gl_context *ctx);

/* Around a call of the program's whose fate a front end must know (a draw under --per-draw):
 * begin, just before the real call, keeps the driver's pending error for the program (as a guard
 * does); end, as the first GL call after it, reads the call's own error, keeps it for the
 * program and returns it (GL_NO_ERROR: the call was accepted). */
void perfq_gl_program_call_begin(struct perfq_gl_context *ctx);
GLenum perfq_gl_program_call_end(struct perfq_gl_context *ctx);

/* ---- EGL errors ----------------------------------------------------------------------------- */

/* For a front end's EGL entry points (EGL 1.5 section 3.1: every EGL call sets the thread's
 * error): the program's next eglGetError on this thread returns `error` (EGL_SUCCESS for a call
 * that succeeded). A later EGL call the layer wraps replaces it with the driver's own. */
void perfq_gl_egl_record_error(EGLint error);

/* ---- Front ends ------------------------------------------------------------------------------ */

/* Where a front end's state lives: one per context, per share group, per EGL display, or one
 * for the process. */
typedef enum perfq_gl_scope {
    PERFQ_GL_SCOPE_CONTEXT = 0,
    PERFQ_GL_SCOPE_SHARE_GROUP = 1,
    PERFQ_GL_SCOPE_DISPLAY = 2,
    PERFQ_GL_SCOPE_PROCESS = 3,
} perfq_gl_scope_t;

/* What a scope hook is about. ctx: CONTEXT and SHARE_GROUP creation (the context being made
 * current for the first time, GL callable), else NULL. group: SHARE_GROUP. display: DISPLAY (the
 * EGLDisplay), and the context's display for CONTEXT. */
struct perfq_gl_scope_object {
    perfq_gl_scope_t scope;
    struct perfq_gl_context *ctx;
    struct perfq_gl_share_group *group;
    void *display;
};

/* An entry point eglGetProcAddress / glXGetProcAddress(ARB) answer with the front end's function
 * (also where the driver has a stub of that name). Exporting the symbol for programs that link
 * by name is the front end's job: PERFQ_GL_EXPORT on its definition. */
struct perfq_gl_entry_point {
    const char *name;               /* the GL/EGL name, e.g. "glBeginPerfQueryINTEL" */
    void (*fn)(void);
};

/* A GL extension name, added to GL_EXTENSIONS / glGetStringi / GL_NUM_EXTENSIONS in contexts
 * where available(ctx) is 1 (evaluated once, at the context's first make-current, after the
 * front ends' created hooks); never where the driver advertises it itself. */
typedef int (*perfq_gl_extension_predicate_fn)(struct perfq_gl_context *ctx);
struct perfq_gl_extension {
    const char *name;
    perfq_gl_extension_predicate_fn available;
};

/* An EGL display extension, added to eglQueryString(dpy, EGL_EXTENSIONS) of initialised
 * displays where available(display) is 1 (evaluated at each eglInitialize). */
struct perfq_egl_extension {
    const char *name;
    int (*available)(void *display);
};

/* A glGet value (glGetIntegerv / Integer64v / Booleanv / Floatv / Doublev of one scalar)
 * answered by the front end in contexts where available(ctx) is 1; the driver answers elsewhere. */
typedef int64_t (*perfq_gl_integer_fn)(struct perfq_gl_context *ctx, GLenum pname);
struct perfq_gl_integer {
    GLenum pname;
    perfq_gl_extension_predicate_fn available;
    perfq_gl_integer_fn value;
};

/* Program calls on buffer, texture and renderbuffer objects, reported after the driver ran them.
 * CREATE: glGen* / glCreate* (names, n); DELETE: glDelete* (names, n: names the program passed,
 * including unused ones and 0, as it passed them); ALLOCATE: storage given to the object bound
 * to `target` (name 0) or, for the DSA calls (glNamedBuffer*, glTextureStorage*,
 * glNamedRenderbuffer*), to `name`. */
typedef enum perfq_gl_object_kind {
    PERFQ_GL_OBJECT_BUFFER = 0,
    PERFQ_GL_OBJECT_TEXTURE = 1,
    PERFQ_GL_OBJECT_RENDERBUFFER = 2,
} perfq_gl_object_kind_t;

typedef enum perfq_gl_object_event {
    PERFQ_GL_OBJECT_CREATE = 0,
    PERFQ_GL_OBJECT_ALLOCATE = 1,
    PERFQ_GL_OBJECT_DELETE = 2,
    /* Textures only (appended; an observer that knows only the three above ignores them):
     * VIEW: glTextureView made `name` a view of `source` (no storage of its own);
     * BUFFER_TEXTURE: glTex(ture)Buffer(Range): the texture (by target or `name`) now uses buffer
     *   object `source`'s storage (0: detached);
     * MIPMAPS: glGenerateMipmap(EXT) / glGenerateTextureMipmap made levels 1..max of the texture
     *   (by target or `name`) from its base level. */
    PERFQ_GL_OBJECT_VIEW = 3,
    PERFQ_GL_OBJECT_BUFFER_TEXTURE = 4,
    PERFQ_GL_OBJECT_MIPMAPS = 5,
    /* Textures and renderbuffers (by target or `name`): the object now uses an EGLImage's storage
     * (glEGLImageTargetTexture2DOES, glEGLImageTargetTex(ture)StorageEXT,
     * glEGLImageTargetRenderbufferStorageOES): it holds none of its own. */
    PERFQ_GL_OBJECT_EXTERNAL = 6,
} perfq_gl_object_event_t;

struct perfq_gl_object_call {
    const char *function;           /* the GL name the program called, e.g. "glTexStorage2D" */
    perfq_gl_object_kind_t kind;
    perfq_gl_object_event_t event;
    GLenum error;                   /* the driver's error for this call: GL_NO_ERROR if it was
                                     * accepted (the program still gets it from glGetError) */
    GLsizei n;                      /* CREATE, DELETE */
    const GLuint *names;
    GLuint name;                    /* ALLOCATE by name (DSA); 0 when by target */
    GLenum target;                  /* ALLOCATE by target (GL_ARRAY_BUFFER, GL_TEXTURE_2D, ...) */
    GLint level;                    /* glTexImage*: the mip level; glTexStorage*: 0 */
    GLsizei levels;                 /* glTexStorage*: levels; glTexImage*: 1 */
    GLenum internalformat;
    GLsizei width, height, depth;   /* 1 where the call has no such dimension */
    GLsizei samples;                /* multisample calls; else 0 */
    GLint border;                   /* glTexImage*, glCompressedTexImage*: the border (GL
                                     * accepts only 0: a repeat's key); else 0 */
    GLenum format, type;            /* glTexImage*: the client data's; glBufferData and its
                                     * aliases: format is the usage (a repeat's key: GL refuses
                                     * a bad one), type 0; else 0 */
    int64_t size;                   /* buffers: bytes; glCompressedTexImage*: imageSize; else -1 */
    GLuint source;                  /* VIEW: the original texture; BUFFER_TEXTURE: the buffer */
    int replaces_storage;           /* ALLOCATE of a texture: 1 for immutable and multisample
                                     * storage (Tex(ture)Storage*, TexImage*Multisample), which
                                     * replaces every image; 0 for one image (TexImage*) */
};

/* The observers' leave: what follows on the thread (see leave below). */
#define PERFQ_GL_LEAVE_SWITCH 0
#define PERFQ_GL_LEAVE_RELEASE 1
#define PERFQ_GL_LEAVE_FINAL 2

/* Observers: called on the program's thread, after the real call, with the current context (a
 * call made with no context current is not reported). `data` is the front end's data at its
 * scope for that context (perfq_gl_frontend_data). Keep them cheap and GL-free, or bracket GL
 * calls with perfq_gl_error_guard_begin/end. */
struct perfq_gl_observers {
    void (*object)(struct perfq_gl_context *ctx, void *data, const struct perfq_gl_object_call *c);
    void (*draw)(struct perfq_gl_context *ctx, void *data, const char *function);
    void (*clear)(struct perfq_gl_context *ctx, void *data, GLbitfield mask);
    /* eglSwapBuffers / glXSwapBuffers, before the real swap (the frame's last commands). */
    void (*swap)(struct perfq_gl_context *ctx, void *data);
    /* Every glDraw* the draw observer sees, just before the real call (perfq stat --per-draw
     * brackets each draw with a timer; GL calls must be bracketed as above). */
    void (*draw_begin)(struct perfq_gl_context *ctx, void *data, const char *function);
    /* The context is about to stop being current on this thread (eglMakeCurrent,
     * glXMakeCurrent, glXMakeContextCurrent to another context or none, eglReleaseThread),
     * still current and usable: `released` is PERFQ_GL_LEAVE_SWITCH when another context
     * follows on the thread, PERFQ_GL_LEAVE_RELEASE when none does (a release, the usual step
     * before eglDestroyContext), PERFQ_GL_LEAVE_FINAL when this is the last moment GL can be
     * called in it: it was destroyed while current and now leaves (glmark2 destroys its first
     * context so, then makes another current), or the process exits (exit(), or a return from
     * main) with it current on the exiting thread (it then stays current, and the drivers' own
     * exit handlers have not run yet: contexts/context.c, leave_at_exit). The switch may still
     * fail. */
    void (*leave)(struct perfq_gl_context *ctx, void *data, int released);
};

/* Repeats (docs/gl-layer-interface.md): a program re-specifies the same object with the same
 * storage call again and again (glBufferData orphaning, a streamed glTexImage2D). From an object
 * observer, while it observes an accepted call of that kind (buffer data, a texture image,
 * renderbuffer storage: the calls GL lets a program run twice with the effect of once), this
 * vote says: the same call again, on the same object, changes nothing of this observer's state
 * as long as *generation (NULL: always) still reads `expected`, except that it adds `amount` to
 * *counter (NULL: nothing; read it with perfq_gl_repeat_counter_read). When every object observer votes, the layer answers the
 * accepted repeats of that call itself (it reads the driver's error for each) and does not report
 * them, until a binding, the call or the generation changes, or perfq_gl_object_repeat_forget.
 * Called outside an observer, or for another kind of call, it does nothing. */
void perfq_gl_object_repeatable(struct perfq_gl_context *ctx, const uint64_t *generation,
                                uint64_t expected, uint64_t *counter, uint64_t amount);
/* State a vote depended on changed outside the generation (a context's current tag): the
 * context's next storage call is reported again. */
void perfq_gl_object_repeat_forget(struct perfq_gl_context *ctx);
/* A counter a vote named, read with the repeats the layer answered and has not added to it yet
 * (they are added when the context's record goes): what a reader of *counter must use. */
uint64_t perfq_gl_repeat_counter_read(const uint64_t *counter);

/* The program's draw calls (every glDraw* the layer wraps, made with a context current) in
 * every context of the process so far, destroyed ones included: counted per context by the
 * draw wrappers, with no observer (the Driver Counters' Draw Calls). */
uint64_t perfq_gl_context_draw_calls(void);
/* The same count for one context; read it from the thread it is current on (the only writer). */
uint64_t perfq_gl_context_own_draw_calls(const struct perfq_gl_context *ctx);

struct perfq_gl_frontend {
    const char *name;               /* the extension's name, e.g. "GL_ANGLE_timer_query" */
    perfq_gl_scope_t scope;
    /* State at `scope`. created returns the front end's data (NULL is allowed) for:
     *  CONTEXT      a context, at its first make-current (GL callable);
     *  SHARE_GROUP  a share group, at the first make-current of one of its contexts (GL callable);
     *  DISPLAY      an EGL display, at each successful eglInitialize of it;
     *  PROCESS      the process, at registration (keep it cheap: no GL, no engine yet).
     * destroyed runs once per created: CONTEXT when the context is destroyed (gl_usable: the
     * context is current on this thread, GL callable; 0: free CPU memory only, its GL objects
     * die with it); SHARE_GROUP when its last context is gone (gl_usable 0); DISPLAY at
     * eglTerminate (before the driver's); PROCESS at exit. Either may be NULL. */
    void *(*created)(const struct perfq_gl_scope_object *at);
    void (*destroyed)(const struct perfq_gl_scope_object *at, void *data, int gl_usable);
    const struct perfq_gl_entry_point *entry_points;    /* each list ends with a NULL name */
    const struct perfq_gl_extension *gl_extensions;
    const struct perfq_egl_extension *egl_extensions;
    const struct perfq_gl_integer *integers;            /* ends with pname 0 */
    const struct perfq_gl_observers *observers;         /* NULL: observes nothing */
    /* Objects the front end holds for the program right now (query names, ...), summed into
     * the layer's diagnostics (leak tests). NULL: none. */
    uint64_t (*live_objects)(void);
};

#define PERFQ_GL_MAX_FRONTENDS PERFQ_GL_MAX_SLOTS

/* Registers a front end (from a constructor: static storage, a lock, no layer initialisation
 * needed). `fe` and everything it points to must stay valid for the life of the process.
 * Returns its id for perfq_gl_frontend_data, or -1 when PERFQ_GL_MAX_FRONTENDS are registered or
 * a table is full (then nothing of it is registered). */
int perfq_gl_register_frontend(const struct perfq_gl_frontend *fe);

/* The front end's data at its scope for a context (CONTEXT: the context's; SHARE_GROUP: its
 * group's; DISPLAY: its display's; PROCESS: the process's), or NULL. */
void *perfq_gl_frontend_data(int id, const struct perfq_gl_context *ctx);
/* The context current on the calling thread (NULL if none) and, in *data, the front end's data
 * at its scope for it (NULL without a context): perfq_gl_current_context and
 * perfq_gl_frontend_data in one call, for entry points a profiler calls per query (issue 10). */
struct perfq_gl_context *perfq_gl_current_with_data(int id, void **data);
/* DISPLAY scope: the data of an EGL display (for EGL entry points that get a display). */
void *perfq_gl_frontend_display_data(int id, void *display);

/* ---- Query virtualisation ("split and sum") ------------------------------------------------ */

/*
 * A perfq-owned logical query on a GL query target, living beside the program's own queries of
 * the same target: when logical queries overlap on a target, the layer ends the driver query,
 * starts a new one, and each logical query's result is the sum of the pieces it covered (the
 * OR for ANY_SAMPLES_PASSED*). The program's own glBeginQuery/glEndQuery/glGetQueryObject* keep
 * their exact results and errors.
 *
 * Targets: GL_TIME_ELAPSED, GL_SAMPLES_PASSED, GL_ANY_SAMPLES_PASSED,
 * GL_ANY_SAMPLES_PASSED_CONSERVATIVE, GL_PRIMITIVES_GENERATED (index = vertex stream, 0 unless
 * the driver has indexed queries), and the ARB_pipeline_statistics_query targets
 * (GL_VERTICES_SUBMITTED_ARB ... GL_CLIPPING_OUTPUT_PRIMITIVES_ARB,
     GL_GEOMETRY_SHADER_INVOCATIONS).
 * TIME_ELAPSED here is the driver's raw timer: for a *trustworthy* time use perfq_gl_timer_*.
 */
struct perfq_gl_vquery;

/* 1 if this context's driver can run `target` (the version or extension it needs is there). */
int perfq_gl_vquery_target_supported(struct perfq_gl_context *ctx, GLenum target);

/* Begins a logical query. Returns PERFQ_OK and *out, PERFQ_ENOTSUP for a target the context
 * cannot run, PERFQ_ENOMEM, or PERFQ_ESYS when the driver raised an error. */
perfq_status_t perfq_gl_vquery_begin(struct perfq_gl_context *ctx, GLenum target, GLuint index,
                                     struct perfq_gl_vquery **out);
/* Begins an ended logical query again on the same target, as perfq_gl_vquery_free and
 * perfq_gl_vquery_begin would, without freeing and allocating (issue 10: a profiler restarting
 * the same query object every frame). Its previous result is lost. PERFQ_ESTATE (nothing
 * changed): q is active, not ended, or the context is not current here; PERFQ_ESYS: the
 * driver raised an error, q is ended without a result (free it). */
perfq_status_t perfq_gl_vquery_restart(struct perfq_gl_context *ctx, struct perfq_gl_vquery *q);
/* Ends it (PERFQ_ESTATE if not active). */
perfq_status_t perfq_gl_vquery_end(struct perfq_gl_context *ctx, struct perfq_gl_vquery *q);
/* The summed result. wait 0: PERFQ_NOT_READY while any piece is pending ("available?" is
 * "result() != PERFQ_NOT_READY"); wait 1: blocks. PERFQ_ESTATE if still active or never ended. */
perfq_status_t perfq_gl_vquery_result(struct perfq_gl_context *ctx, struct perfq_gl_vquery *q,
                                      int wait, uint64_t *value);
/* Frees it (ends it first when active). NULL is allowed. Also allowed from a context-destroyed
 * hook with gl_usable == 0: then it frees CPU memory only (the driver objects die with the
 * context). */
void perfq_gl_vquery_free(struct perfq_gl_context *ctx, struct perfq_gl_vquery *q);
/* 1 if the layer split this logical query (another query of its target, the program's or
 * perfq's, began or ended while it was active), so its result is a sum of pieces. Valid once
 * ended. */
int perfq_gl_vquery_was_split(const struct perfq_gl_vquery *q);

/* ---- The trustworthy GPU timer ------------------------------------------------------------- */

/*
 * GPU time of the GL commands between begin and end (or the GPU time at a point, for a stamp),
 * in nanoseconds, from the path this context gets (perfq_gl_timer_path): the driver's timer
 * queries where they are trustworthy, else fences stamped with CLOCK_MONOTONIC when they signal.
 * Stamps are in the domain of the path: the driver's GL_TIMESTAMP domain on the query path,
 * CLOCK_MONOTONIC on the fence path.
 */
struct perfq_gl_timer;

perfq_gl_timer_path_t perfq_gl_timer_path(struct perfq_gl_context *ctx);
/* Why this context got its path (a static English sentence). */
const char *perfq_gl_timer_reason(struct perfq_gl_context *ctx);
/* Smallest difference the path can tell apart, in ns (fence path: measured wake-up latency of the
 * helper thread; query path: 1, the unit of the driver's counter). */
uint64_t perfq_gl_timer_resolution_ns(struct perfq_gl_context *ctx);
/* Counter bits of the path (driver's QUERY_COUNTER_BITS, or 64 on the fence path). */
int perfq_gl_timer_bits(struct perfq_gl_context *ctx, int timestamp);

/* An interval: begin ... end. PERFQ_ENOTSUP where the path is NONE. */
perfq_status_t perfq_gl_timer_begin(struct perfq_gl_context *ctx, struct perfq_gl_timer **out);
perfq_status_t perfq_gl_timer_end(struct perfq_gl_context *ctx, struct perfq_gl_timer *t);
/* Ends t and begins *next at the same point of the command stream, for back-to-back intervals
 * (a context's frames): *next starts where t stops. On the fence path one fence is t's end and
 * *next's begin (one sync, one flush and one wake of the helper thread instead of two of each);
 * on the query path t's TIME_ELAPSED ends and the next one begins. t is ended as by
 * perfq_gl_timer_end whatever happens to *next; its status is returned; when *next cannot
 * begin, *next is NULL (PERFQ_OK returned all the same if t ended well). */
perfq_status_t perfq_gl_timer_end_begin(struct perfq_gl_context *ctx, struct perfq_gl_timer *t,
                                        struct perfq_gl_timer **next);
/* perfq_gl_timer_end_begin at a swap, for a context's frames (call it just before the real
 * swap): the same, and on the fence path the shared fence may be waited by the calling thread
 * right here instead of by the helper thread, where the context's frames were measured to run
 * faster that way (src/gl/timing/swap_wait_rule.h; PERFQ_GL_FENCE_SWAP_WAIT=helper|inline
 * forces one). */
perfq_status_t perfq_gl_timer_end_begin_swap(struct perfq_gl_context *ctx,
                                             struct perfq_gl_timer *t,
                                             struct perfq_gl_timer **next);
/* Begins an ended interval again, as perfq_gl_timer_free and perfq_gl_timer_begin would, without
 * freeing and allocating (issue 10); its previous result is lost. PERFQ_ESTATE (nothing
 * changed): not an ended interval of the query path, or the context is not current here: free
 * it and begin a new one. Any other error is perfq_gl_timer_begin's, and t is to be freed. */
perfq_status_t perfq_gl_timer_restart(struct perfq_gl_context *ctx, struct perfq_gl_timer *t);
/* A point in time after all previous commands completed (QueryCounter TIMESTAMP). */
perfq_status_t perfq_gl_timer_stamp(struct perfq_gl_context *ctx, struct perfq_gl_timer **out);
/* ns of the interval, or the stamp. wait 0: PERFQ_NOT_READY while pending. Results become
 * available in the order timers were ended/stamped within a context. */
perfq_status_t perfq_gl_timer_result(struct perfq_gl_context *ctx, struct perfq_gl_timer *t,
                                     int wait, uint64_t *ns);
/* 1 where an interval's result comes with its begin and end stamps (perfq_gl_timer_span): the
 * fence path (its two fences' stamps) and the query path's intervals made of two stamp points;
 * 0 where an interval is a duration only (TIME_ELAPSED) or there is no timer. */
int perfq_gl_timer_has_span(struct perfq_gl_context *ctx);
/* The stamps an interval's result was computed from, begin and end, in the path's domain (as
 * perfq_gl_timer_stamp's), once perfq_gl_timer_result gave PERFQ_OK: PERFQ_OK; PERFQ_ENOTSUP
 * where the interval has none (TIME_ELAPSED) or t is a stamp; PERFQ_ESTATE before a result.
 * Back-to-back intervals (perfq_gl_timer_end_begin) share one stamp: one's end is exactly the
 * next one's begin. end may be below begin on the fence path (stamps are each within the
 * helper's wake-up of their signal, not ordered); the result then was 0. */
perfq_status_t perfq_gl_timer_span(const struct perfq_gl_timer *t, uint64_t *begin,
                                   uint64_t *end);
/* Frees it (ends it first when active). NULL is allowed; allowed from a destroyed hook with
 * gl_usable == 0 (CPU memory only). */
void perfq_gl_timer_free(struct perfq_gl_context *ctx, struct perfq_gl_timer *t);
/* GL_GPU_DISJOINT_EXT as the program should see it: 1 if the layer's own reads of the driver's
 * flag took a disjoint event from the program since it last read the flag (reading clears). */
int perfq_gl_timer_disjoint_for_program(struct perfq_gl_context *ctx);
/* CLOCK_MONOTONIC in ns: the fence path's time domain. */
uint64_t perfq_gl_now_ns(void);
/* 1 if the interval's time is not to be trusted: on the query path with EXT_disjoint_timer_query,
 * GL_GPU_DISJOINT_EXT was seen between begin and the result; on the fence path a fence could not
 * be created or waited (the result is then not reported at all), or a stamp is "late": it may be
 * later than the fence's signal by more than 1 ms (a fence found signalled with no proof of when,
 * or a waiter woken and left runnable that long; 4 ms where the waiter's run-queue delay cannot
 * be read: docs/gl-layer.md).
 * Valid once the result is ready. */
int perfq_gl_timer_disjoint(const struct perfq_gl_timer *t);

/* ---- The process's engine */

/* The layer's one perfq instance per process: the built-in providers and the layer's "Driver
 * Counters" (the program's GL/EGL calls), opened at the first call (PERFQ_DISABLE read then) and
 * kept for the life of the process; never close it. Every front end that measures beyond one
 * context uses it, so a device-wide source is set up once per process (docs/design.md). A
 * context's own counters need that context and live in an instance of their own
 * (perfq__open_with with builtins 0). PERFQ_OK, or the open's error with *out NULL. */
perfq_status_t perfq_gl_process_engine(perfq_t **out);

/* ---- Diagnostics (exported by the test build, libperfq-gl-test.so; hidden in the shipped one) */
/* Fields are only added at the end; tests/gl/glx_app.c keeps a copy (it finds the function with
 * dlsym): change both together. */

struct perfq_gl_layer_stats {
    uint64_t contexts;          /* live contexts the layer tracks */
    uint64_t vqueries;          /* live perfq logical queries */
    uint64_t segments;          /* driver query objects the layer owns (pooled included) */
    uint64_t program_records;   /* program queries with split results pending */
    uint64_t timers;            /* live timer objects */
    uint64_t fences_pending;    /* fences the helper threads have not stamped yet */
    uint64_t frontend_objects;  /* objects front ends hold for the program (live_objects) */
    uint64_t vquery_links;      /* references logical queries hold on their slots' shared
                                 * pieces: at most 2 per query (issue 14 item 3) */
    uint64_t timer_self_checks; /* timer self-checks run (not answered by the verdict cache) */
    uint64_t thread_schedstat_fds; /* /proc/thread-self/schedstat descriptors kept open, one per
                                    * program thread that waited a frame's fence (closed at the
                                    * thread's exit): the only descriptors the layer keeps per
                                    * thread, so a test of fd growth counts them out */
    uint64_t stamp_names_held;     /* stamp points' query names released and held until a later
                                    * point completes (timer_points.c), all contexts */
};
PERFQ_GL_EXPORT void perfq_gl_layer_stats(struct perfq_gl_layer_stats *out);

#endif
