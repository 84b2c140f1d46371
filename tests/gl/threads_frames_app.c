/*
 * An unmodified GL program that renders on several threads at once, for perfq stat and perfq
 * record (tests/test_cli_profiler.c): THREADS threads (default 4), each with its own 64x64
 * pbuffer and desktop GL context on one display, render FRAMES frames each (default 50): a clear
 * and DRAWS draws of glDrawArrays(GL_TRIANGLES, 0, 6) from a client-side vertex array (the
 * fixed-function pipeline: no shader), then eglSwapBuffers. So every frame of every thread
 * submits exactly 6 * DRAWS vertices. The threads start their frames together (a barrier) so
 * that their swaps interleave. It links only libEGL and gets every GL function through
 * eglGetProcAddress. SWAP `damage` ends frame f with eglSwapBuffers, eglSwapBuffersWithDamageKHR
 * and eglSwapBuffersWithDamageEXT in turn (f % 3; one 16x16 damage rectangle), as toolkits
 * that present with damage do; `swap` (the default) with eglSwapBuffers only. `list`: the
 * DRAWS draws are compiled into a display list (GL_COMPILE) before the frames, and each frame
 * replays it with glCallList inside the program's own GL_PRIMITIVES_GENERATED query, which must
 * read 2 * DRAWS (1 otherwise: the layer's calls at a draw must not be compiled into the list).
 * `none`: the frames' draws are made and never swapped (glFinish instead): no frame, draws only.
 * `sequential`: the threads run one after another (each started when the previous one ended),
 * so each context is made after the previous one was destroyed, often at its address.
 * `alternate`: each thread has a second pbuffer and context, and makes them current in turn
 * with its first, a frame on each (as glxheads does with a window per context): FRAMES frames
 * on each, one thread swapping two contexts.
 * `refused`: each frame also makes one draw GL refuses (glDrawArrays with the mode 0x7777:
 * INVALID_ENUM, nothing drawn), then reads glGetError: exactly INVALID_ENUM, then GL_NO_ERROR.
 * Exit 0; 1 on a GL/EGL failure; 77 with no EGL display, no desktop GL pbuffer config, or
 * (`damage`) a driver without the two damage swaps.
 *
 *   gl-threads-app [THREADS [FRAMES [DRAWS [swap|damage|list|none|refused|sequential|alternate]]]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"

typedef void (*t_vertexpointer)(GLint, GLenum, GLsizei, const void *);
typedef GLuint (*t_genlists)(GLsizei);
typedef void (*t_newlist)(GLuint, GLenum);
typedef void (*t_endlist)(void);
typedef void (*t_calllist)(GLuint);
typedef void (*t_genqueries)(GLsizei, GLuint *);
typedef void (*t_beginquery)(GLenum, GLuint);
typedef void (*t_endquery)(GLenum);
typedef void (*t_getqueryobjectuiv)(GLuint, GLenum, GLuint *);

static struct {
    EGLDisplay dpy;
    EGLConfig config;
    int frames, draws;
    int list;                                             /* SWAP `list` */
    int no_swap;                                          /* SWAP `none` */
    int refused;                                          /* SWAP `refused` */
    int sequential;                                       /* SWAP `sequential` */
    int alternate;                                        /* SWAP `alternate` */
    PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC swap_damage_khr;   /* SWAP `damage`, else NULL */
    PFNEGLSWAPBUFFERSWITHDAMAGEEXTPROC swap_damage_ext;
    pthread_barrier_t start;
} app;

struct worker {
    pthread_t thread;
    int index;
    const char *failed;   /* what failed, NULL when all went well */
};

/* Ends frame `f` (SWAP: with eglSwapBuffers only, or the three swaps in turn). */
static EGLBoolean swap(EGLSurface surf, int f)
{
    static const EGLint damage[4] = {0, 0, 16, 16};
    if (!app.swap_damage_khr || f % 3 == 0)
        return eglSwapBuffers(app.dpy, surf);
    if (f % 3 == 1)
        return app.swap_damage_khr(app.dpy, surf, damage, 1);
    return app.swap_damage_ext(app.dpy, surf, damage, 1);
}

static void *render(void *p)
{
    struct worker *w = p;
    static const EGLint sattrs[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
    EGLSurface surf = EGL_NO_SURFACE;
    EGLContext ctx = EGL_NO_CONTEXT;
    if (!eglBindAPI(EGL_OPENGL_API) ||
        (surf = eglCreatePbufferSurface(app.dpy, app.config, sattrs)) == EGL_NO_SURFACE ||
        (ctx = eglCreateContext(app.dpy, app.config, EGL_NO_CONTEXT, NULL)) == EGL_NO_CONTEXT ||
        !eglMakeCurrent(app.dpy, surf, surf, ctx))
        w->failed = "a pbuffer, a context or eglMakeCurrent";
    t_clear clear = (t_clear)eglGetProcAddress("glClear");
    t_enum enable_client_state = (t_enum)eglGetProcAddress("glEnableClientState");
    t_vertexpointer vertex_pointer = (t_vertexpointer)eglGetProcAddress("glVertexPointer");
    t_drawarrays draw_arrays = (t_drawarrays)eglGetProcAddress("glDrawArrays");
    t_geterror get_error = (t_geterror)eglGetProcAddress("glGetError");
    t_genlists gen_lists = (t_genlists)eglGetProcAddress("glGenLists");
    t_newlist new_list = (t_newlist)eglGetProcAddress("glNewList");
    t_endlist end_list = (t_endlist)eglGetProcAddress("glEndList");
    t_calllist call_list = (t_calllist)eglGetProcAddress("glCallList");
    t_genqueries gen_queries = (t_genqueries)eglGetProcAddress("glGenQueries");
    t_beginquery begin_query = (t_beginquery)eglGetProcAddress("glBeginQuery");
    t_endquery end_query = (t_endquery)eglGetProcAddress("glEndQuery");
    t_getqueryobjectuiv query_result =
        (t_getqueryobjectuiv)eglGetProcAddress("glGetQueryObjectuiv");
    if (!w->failed && (!clear || !enable_client_state || !vertex_pointer || !draw_arrays ||
                       !get_error))
        w->failed = "a GL entry point";
    if (!w->failed && app.list && (!gen_lists || !new_list || !end_list || !call_list ||
                                   !gen_queries || !begin_query || !end_query || !query_result))
        w->failed = "a display list or query entry point";
    EGLSurface surf2 = EGL_NO_SURFACE;
    EGLContext ctx2 = EGL_NO_CONTEXT;
    if (app.alternate && !w->failed &&
        ((surf2 = eglCreatePbufferSurface(app.dpy, app.config, sattrs)) == EGL_NO_SURFACE ||
         (ctx2 = eglCreateContext(app.dpy, app.config, EGL_NO_CONTEXT, NULL)) == EGL_NO_CONTEXT))
        w->failed = "a second pbuffer or context";
    /* Every thread reaches the barrier, failed or not, so that none waits for ever. */
    pthread_barrier_wait(&app.start);
    if (!w->failed) {
        static const float quad[12] = {-1, -1, 1, -1, 1, 1, -1, -1, 1, 1, -1, 1};
        enable_client_state(GL_VERTEX_ARRAY);
        vertex_pointer(2, GL_FLOAT, 0, quad);
        GLuint list = 0, query = 0;
        if (app.list) {
            list = gen_lists(1);
            gen_queries(1, &query);
            new_list(list, GL_COMPILE);   /* the vertices are copied into the list */
            for (int d = 0; d < app.draws; d++)
                draw_arrays(GL_TRIANGLES, 0, 6);
            end_list();
        }
        int frames = app.alternate ? 2 * app.frames : app.frames;
        for (int f = 0; f < frames && !w->failed; f++) {
            EGLSurface s = surf;
            if (app.alternate) {   /* odd frames on the second context */
                s = f % 2 ? surf2 : surf;
                if (!eglMakeCurrent(app.dpy, s, s, f % 2 ? ctx2 : ctx)) {
                    w->failed = "eglMakeCurrent between the two contexts";
                    break;
                }
                if (f == 1) {
                    enable_client_state(GL_VERTEX_ARRAY);
                    vertex_pointer(2, GL_FLOAT, 0, quad);
                }
            }
            clear(GL_COLOR_BUFFER_BIT);
            if (app.list) {
                GLuint primitives = 0;
                begin_query(GL_PRIMITIVES_GENERATED, query);
                call_list(list);
                end_query(GL_PRIMITIVES_GENERATED);
                query_result(query, GL_QUERY_RESULT, &primitives);
                if (primitives != (GLuint)(2 * app.draws)) {
                    fprintf(stderr, "frame %d: the program's query read %u primitives, not %d\n",
                            f, primitives, 2 * app.draws);
                    w->failed = "the program's own query around glCallList";
                }
            } else {
                for (int d = 0; d < app.draws; d++)
                    draw_arrays(GL_TRIANGLES, 0, 6);
            }
            if (app.refused) {
                draw_arrays(0x7777, 0, 6);
                GLenum first = get_error(), second = get_error();
                if (first != GL_INVALID_ENUM || second != GL_NO_ERROR) {
                    fprintf(stderr, "frame %d: a refused draw gave 0x%x then 0x%x\n", f, first,
                            second);
                    w->failed = "the refused draw's error";
                }
            }
            if (app.no_swap) {
                t_voidfn finish = (t_voidfn)eglGetProcAddress("glFinish");
                if (finish)
                    finish();
            } else if (!swap(s, f))
                w->failed = "a swap";
        }
        if (!w->failed && get_error() != GL_NO_ERROR)
            w->failed = "a GL error";
    }
    if (ctx != EGL_NO_CONTEXT) {
        eglMakeCurrent(app.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
        eglDestroyContext(app.dpy, ctx);
    }
    if (surf != EGL_NO_SURFACE)
        eglDestroySurface(app.dpy, surf);
    if (ctx2 != EGL_NO_CONTEXT)
        eglDestroyContext(app.dpy, ctx2);
    if (surf2 != EGL_NO_SURFACE)
        eglDestroySurface(app.dpy, surf2);
    eglReleaseThread();
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    app.frames = argc > 2 ? atoi(argv[2]) : 50;
    app.draws = argc > 3 ? atoi(argv[3]) : 2;
    const char *swaps = argc > 4 ? argv[4] : "swap";
    int damage = strcmp(swaps, "damage") == 0;
    app.list = strcmp(swaps, "list") == 0;
    app.no_swap = strcmp(swaps, "none") == 0;
    app.refused = strcmp(swaps, "refused") == 0;
    app.sequential = strcmp(swaps, "sequential") == 0;
    app.alternate = strcmp(swaps, "alternate") == 0;
    if (threads < 1 || threads > 64 || app.frames < 0 || app.draws < 1 ||
        (!damage && !app.list && !app.no_swap && !app.refused && !app.sequential &&
         !app.alternate && strcmp(swaps, "swap") != 0)) {
        fprintf(stderr, "usage: gl-threads-app [THREADS 1..64 [FRAMES [DRAWS "
                "[swap|damage|list|none|refused|sequential|alternate]]]]\n");
        return 2;
    }
    app.dpy = glt_choose_display(NULL, NULL);
    if (app.dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    static const EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                                    EGL_OPENGL_BIT, EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8,
                                    EGL_BLUE_SIZE, 8, EGL_NONE};
    EGLint n = 0;
    if (!eglChooseConfig(app.dpy, cattrs, &app.config, 1, &n) || n < 1) {
        fprintf(stderr, "no desktop GL pbuffer config: skipping\n");
        return GLT_SKIP;
    }
    if (damage) {
        app.swap_damage_khr = (PFNEGLSWAPBUFFERSWITHDAMAGEKHRPROC)eglGetProcAddress(
            "eglSwapBuffersWithDamageKHR");
        app.swap_damage_ext = (PFNEGLSWAPBUFFERSWITHDAMAGEEXTPROC)eglGetProcAddress(
            "eglSwapBuffersWithDamageEXT");
        if (!app.swap_damage_khr || !app.swap_damage_ext) {
            fprintf(stderr, "no eglSwapBuffersWithDamageKHR/EXT: skipping\n");
            return GLT_SKIP;
        }
    }
    struct worker workers[64] = {{0}};
    if (pthread_barrier_init(&app.start, NULL, app.sequential ? 1u : (unsigned)threads) != 0)
        return 1;
    int started = 0;
    for (; started < threads; started++) {
        workers[started].index = started;
        if (pthread_create(&workers[started].thread, NULL, render, &workers[started]) != 0)
            break;
        if (app.sequential)
            pthread_join(workers[started].thread, NULL);
    }
    if (started < threads) {
        /* The barrier would never open for the others: nothing to do but leave. */
        fprintf(stderr, "FAIL: cannot start thread %d\n", started);
        _Exit(1);
    }
    int rc = 0;
    for (int i = 0; i < threads; i++) {
        if (!app.sequential)
            pthread_join(workers[i].thread, NULL);
        if (workers[i].failed) {
            fprintf(stderr, "FAIL: thread %d: %s\n", i, workers[i].failed);
            rc = 1;
        }
    }
    pthread_barrier_destroy(&app.start);
    eglTerminate(app.dpy);
    if (rc == 0)
        printf("gl-threads-app: %d threads, %d frames each, %d vertices per frame\n", threads,
               app.frames, 6 * app.draws);
    return rc;
}
