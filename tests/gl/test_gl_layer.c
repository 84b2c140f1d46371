/*
 * White-box tests of the GL layer's services, with the layer's sources compiled in: the query
 * virtualisation ("split and sum") beside the program's own queries, with exact counts of known
 * work (a full-viewport quad passes width x height samples; N triangles are N primitives); the
 * program's errors, bound queries, query buffer and error flag unchanged by perfq; the timer
 * service; context hooks; a context released and destroyed with a perfq query active; two
 * contexts on two threads; cycles without growth.
 * Runs on a compatibility context, or --core / --gles.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gl_test.h"
#include "gl/contexts/layer_internal.h"
#include "gl/timing/timer_internal.h"
#include "gl/virtualization/query_virtualization.h"

#define W 64
#define H 48

static struct glt T;
static enum glt_kind kind;
static EGLDisplay dpy;

static struct perfq_gl_context *cur(void)
{
    struct perfq_gl_context *c = perfq_gl_current_context();
    assert_non_null(c);
    return c;
}

static int setup_each(void **state)
{
    (void)state;
    glt_error();
    return 0;
}

/* The occlusion target both the program and perfq can use in this context. */
static GLenum samples_target(void)
{
    return kind == GLT_GLES3 ? GL_ANY_SAMPLES_PASSED : GL_SAMPLES_PASSED;
}

static uint64_t quad_samples(int quads)
{
    return kind == GLT_GLES3 ? 1 : (uint64_t)quads * W * H;
}

static uint64_t vq_value(struct perfq_gl_vquery *q)
{
    uint64_t v = 0;
    assert_int_equal(perfq_gl_vquery_result(cur(), q, 1, &v), PERFQ_OK);
    return v;
}

static GLuint prog_result(GLuint id)
{
    GLuint v = 0;
    gl.glGetQueryObjectuiv(id, GL_QUERY_RESULT, &v);
    return v;
}

/* program begin, perfq begin, program end, perfq end: both exact. */
static void test_samples_interleaved(void **state)
{
    (void)state;
    GLenum target = samples_target();
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    struct perfq_gl_vquery *q = NULL;
    gl.glBeginQuery(target, p);
    glt_draw_quads(&T, 1, 0);
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    GLint current = -1;
    gl.glGetQueryiv(target, GL_CURRENT_QUERY, &current);
    assert_int_equal(current, (GLint)p);
    glt_draw_quads(&T, 2, 0);
    gl.glEndQuery(target);
    gl.glGetQueryiv(target, GL_CURRENT_QUERY, &current);
    assert_int_equal(current, 0);
    glt_draw_quads(&T, 4, 0);
    assert_int_equal(perfq_gl_vquery_end(cur(), q), PERFQ_OK);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(prog_result(p), quad_samples(3));
    assert_int_equal(vq_value(q), quad_samples(6));
    assert_true(perfq_gl_vquery_was_split(q));
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(1, &p);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

/* perfq begins first, the program's query lives inside it; nested perfq queries too. */
static void test_samples_nested(void **state)
{
    (void)state;
    GLenum target = samples_target();
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    struct perfq_gl_vquery *outer = NULL, *inner = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &outer), PERFQ_OK);
    glt_draw_quads(&T, 1, 0);
    gl.glBeginQuery(target, p);
    glt_draw_quads(&T, 2, 0);
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &inner), PERFQ_OK);
    glt_draw_quads(&T, 3, 0);
    assert_int_equal(perfq_gl_vquery_end(cur(), inner), PERFQ_OK);
    glt_draw_quads(&T, 1, 0);
    gl.glEndQuery(target);
    glt_draw_quads(&T, 1, 0);
    assert_int_equal(perfq_gl_vquery_end(cur(), outer), PERFQ_OK);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    GLuint avail = 0;
    gl.glFinish();
    gl.glGetQueryObjectuiv(p, GL_QUERY_RESULT_AVAILABLE, &avail);
    assert_int_equal(avail, GL_TRUE);
    assert_int_equal(prog_result(p), quad_samples(6));
    assert_int_equal(vq_value(inner), quad_samples(3));
    assert_int_equal(vq_value(outer), quad_samples(8));
    perfq_gl_vquery_free(cur(), inner);
    perfq_gl_vquery_free(cur(), outer);
    /* The program's name, reused for a new query, is the driver's again. */
    gl.glBeginQuery(target, p);
    glt_draw_quads(&T, 1, 0);
    gl.glEndQuery(target);
    assert_int_equal(prog_result(p), quad_samples(1));
    gl.glDeleteQueries(1, &p);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

/* ANY_SAMPLES_PASSED for the program, exact counts for perfq on the same binding point. */
static void test_any_samples_beside_count(void **state)
{
    (void)state;
    if (kind == GLT_GLES3) {
        /* GLES 3 has no GL_SAMPLES_PASSED: the layer must say so (and count with
         * ANY_SAMPLES_PASSED segments instead). */
        assert_false(perfq_gl_vquery_target_supported(cur(), GL_SAMPLES_PASSED));
        skip();
    }
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    struct perfq_gl_vquery *q = NULL;
    gl.glBeginQuery(GL_ANY_SAMPLES_PASSED, p);
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &q), PERFQ_OK);
    glt_draw_quads(&T, 2, 0);
    assert_int_equal(perfq_gl_vquery_end(cur(), q), PERFQ_OK);
    gl.glEndQuery(GL_ANY_SAMPLES_PASSED);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(prog_result(p), 1);
    assert_int_equal(vq_value(q), 2u * W * H);
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(1, &p);
}

/* N triangles are N primitives, for the program and for perfq, split or not. */
static void test_primitives_generated(void **state)
{
    (void)state;
    if (!perfq_gl_vquery_target_supported(cur(), GL_PRIMITIVES_GENERATED)) {
        /* Desktop GL 3.0 has it, GLES from 3.2 or with a geometry shader extension. */
        assert_int_equal(kind, GLT_GLES3);
        assert_false(glt_has_extension("GL_EXT_geometry_shader") ||
                     glt_has_extension("GL_OES_geometry_shader"));
        skip();
    }
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_PRIMITIVES_GENERATED, 0, &q), PERFQ_OK);
    glt_draw_triangles(&T, 10);
    gl.glBeginQuery(GL_PRIMITIVES_GENERATED, p);
    glt_draw_triangles(&T, 100);
    assert_int_equal(perfq_gl_vquery_end(cur(), q), PERFQ_OK);
    glt_draw_triangles(&T, 7);
    gl.glEndQuery(GL_PRIMITIVES_GENERATED);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(vq_value(q), 110);
    assert_int_equal(prog_result(p), 107);
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(1, &p);
}

/* ARB_pipeline_statistics_query, where the driver has it: exact vertex and primitive counts. */
static void test_pipeline_statistics(void **state)
{
    (void)state;
    if (!perfq_gl_vquery_target_supported(cur(), GL_VERTICES_SUBMITTED_ARB)) {
        assert_false(glt_has_pipeline_statistics());   /* the driver has none (GLES 3) */
        skip();
    }
    static const GLenum targets[3] = {GL_VERTICES_SUBMITTED_ARB, GL_PRIMITIVES_SUBMITTED_ARB,
                                      GL_CLIPPING_INPUT_PRIMITIVES_ARB};
    static const uint64_t per_triangle[3] = {3, 1, 1};
    for (int i = 0; i < 3; i++) {
        GLuint p = 0;
        gl.glGenQueries(1, &p);
        struct perfq_gl_vquery *a = NULL, *b = NULL;
        gl.glBeginQuery(targets[i], p);
        assert_int_equal(perfq_gl_vquery_begin(cur(), targets[i], 0, &a), PERFQ_OK);
        glt_draw_triangles(&T, 20);
        assert_int_equal(perfq_gl_vquery_begin(cur(), targets[i], 0, &b), PERFQ_OK);
        glt_draw_triangles(&T, 30);
        gl.glEndQuery(targets[i]);
        glt_draw_triangles(&T, 5);
        perfq_gl_vquery_end(cur(), a);
        perfq_gl_vquery_end(cur(), b);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        assert_int_equal(prog_result(p), 50 * per_triangle[i]);
        assert_int_equal(vq_value(a), 55 * per_triangle[i]);
        assert_int_equal(vq_value(b), 35 * per_triangle[i]);
        perfq_gl_vquery_free(cur(), a);
        perfq_gl_vquery_free(cur(), b);
        gl.glDeleteQueries(1, &p);
    }
}

/* The program's own query errors stay exactly GL's while perfq holds the driver's target. */
static void test_program_errors_while_split(void **state)
{
    (void)state;
    GLenum target = samples_target();
    GLuint p[2] = {0, 0};
    gl.glGenQueries(2, p);
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    /* EndQuery with no program query of the target active: INVALID_OPERATION, and perfq's
     * query is not ended by it. */
    gl.glEndQuery(target);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    /* BeginQuery with id 0 (the driver's check). */
    gl.glBeginQuery(target, 0);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    gl.glBeginQuery(target, p[0]);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    /* A second query on the target; the active one again. */
    gl.glBeginQuery(target, p[1]);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    gl.glBeginQuery(target, p[0]);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    /* Results of an active query. */
    GLuint v = 5;
    gl.glGetQueryObjectuiv(p[0], GL_QUERY_RESULT, &v);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    assert_int_equal(v, 5);
    glt_draw_quads(&T, 1, 0);
    gl.glEndQuery(target);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    glt_draw_quads(&T, 1, 0);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(prog_result(p[0]), quad_samples(1));
    assert_int_equal(vq_value(q), quad_samples(2));
    /* The layer's own driver names are not the program's. */
    struct perfq_gl_vquery *q2 = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q2), PERFQ_OK);
    struct perfq_gl_ctx *c = perfq_gl_ctx(cur());
    GLuint internal = c->vq->slots[0].cur->name;
    assert_false(gl.glIsQuery(internal));
    gl.glDeleteQueries(1, &internal);
    glt_draw_quads(&T, 1, 0);
    perfq_gl_vquery_end(cur(), q2);
    assert_int_equal(vq_value(q2), quad_samples(1));
    assert_int_equal(glt_error(), GL_NO_ERROR);
    perfq_gl_vquery_free(cur(), q2);
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(2, p);
}

/* One error flag, as the driver's: the program's error taken from the driver before the layer's
 * own calls (a guard: a swap, a make-current, a --per-draw draw) is returned first, and the
 * program's next error, which the driver's cleared flag recorded and a single flag drops, is
 * never returned (until 2026-11-29 it was: one error became two). */
static void test_program_error_held_across_layer_calls(void **state)
{
    (void)state;
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glEnable(0xDEAD);                           /* the program's INVALID_ENUM */
    perfq_gl_error_guard_begin(cur());             /* the layer's calls: it is taken */
    assert_int_equal(perfq_gl_error_guard_end(cur()), GL_NO_ERROR);
    gl.glViewport(0, 0, -1, -1);                   /* INVALID_VALUE: dropped, as bare */
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    /* A failed bind dropped so is not cached as bound: the layer's bindings are asked again. */
    gl.glEnable(0xDEAD);
    perfq_gl_error_guard_begin(cur());
    perfq_gl_error_guard_end(cur());
    GLuint b = 0;
    gl.glGenBuffers(1, &b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, b);
    gl.glBindBuffer(0x1234, 0);                    /* INVALID_ENUM, dropped */
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    GLint bound = 0;
    gl.glGetIntegerv(GL_ARRAY_BUFFER_BINDING, &bound);
    assert_int_equal((GLuint)bound, b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, 0);
    gl.glDeleteBuffers(1, &b);
    /* With nothing held, the driver's error is the program's, once. */
    gl.glViewport(0, 0, -1, -1);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
}

/* Deleting the program's active split query ends it (as Mesa does for an active query), and
 * QueryCounter on a split name gives it a new, native result. */
static void test_program_delete_and_counter_on_split(void **state)
{
    (void)state;
    GLenum target = samples_target();
    GLuint p[2] = {0, 0};
    gl.glGenQueries(2, p);
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    gl.glBeginQuery(target, p[0]);
    glt_draw_quads(&T, 1, 0);
    gl.glDeleteQueries(1, &p[0]);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    GLint current = -1;
    gl.glGetQueryiv(target, GL_CURRENT_QUERY, &current);
    assert_int_equal(current, 0);
    gl.glBeginQuery(target, p[1]);          /* the target is free for the program again */
    assert_int_equal(glt_error(), GL_NO_ERROR);
    glt_draw_quads(&T, 2, 0);
    /* QueryCounter on the active (split) query is INVALID_OPERATION, as on the driver. */
    if (perfq_gl_vquery_target_supported(cur(), GL_TIME_ELAPSED) && kind != GLT_GLES3) {
        gl.glQueryCounter(p[1], GL_TIMESTAMP);
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    }
    gl.glEndQuery(target);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(prog_result(p[1]), quad_samples(2));
    assert_int_equal(vq_value(q), quad_samples(3));
    if (perfq_gl_vquery_target_supported(cur(), GL_TIME_ELAPSED) && kind != GLT_GLES3) {
        /* QueryCounter on the split name, an object of another type: Mesa raises
         * INVALID_OPERATION and the summed result stays; NVIDIA accepts it, and the name then
         * holds the driver's timestamp (the layer forgets the split result). */
        gl.glQueryCounter(p[1], GL_TIMESTAMP);
        GLenum e = glt_error();
        if (e == GL_INVALID_OPERATION) {
            assert_int_equal(prog_result(p[1]), quad_samples(2));
        } else {
            assert_int_equal(e, GL_NO_ERROR);
            GLuint64 ts = 0;
            gl.glGetQueryObjectui64v(p[1], GL_QUERY_RESULT, &ts);
            assert_true(ts > quad_samples(2));
        }
    }
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(1, &p[1]);
    struct perfq_gl_layer_stats st;
    perfq_gl_layer_stats(&st);
    assert_int_equal(st.program_records, 0);
}

/* Conditional rendering on a split program query decides on the summed result, not on the
 * driver's first piece: a query whose samples all fell in later pieces still lets the block
 * render, and one with no samples at all still discards it. */
static void conditional_render_on_split(PFNGLBEGINCONDITIONALRENDERPROC begin,
                                        PFNGLENDCONDITIONALRENDERPROC end)
{
    assert_non_null(begin);
    assert_non_null(end);
    GLuint p[2] = {0, 0};
    gl.glGenQueries(2, p);
    struct perfq_gl_vquery *q = NULL, *seen = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &q), PERFQ_OK);
    gl.glBeginQuery(GL_SAMPLES_PASSED, p[0]);   /* first piece: nothing */
    glt_draw_quads(&T, 1, 0);                   /* a later piece: W x H */
    gl.glEndQuery(GL_SAMPLES_PASSED);
    gl.glBeginQuery(GL_SAMPLES_PASSED, p[1]);   /* no samples at all */
    gl.glEndQuery(GL_SAMPLES_PASSED);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(prog_result(p[0]), quad_samples(1));
    assert_int_equal(prog_result(p[1]), 0);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &seen), PERFQ_OK);
        begin(p[i], GL_QUERY_WAIT);
        glt_draw_quads(&T, 1, 0);
        end();
        perfq_gl_vquery_end(cur(), seen);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        /* p[0] passed (W x H samples): the block renders; p[1] did not: it is discarded. */
        assert_int_equal(vq_value(seen), i == 0 ? quad_samples(1) : 0);
        perfq_gl_vquery_free(cur(), seen);
    }
    /* Nesting is still GL's INVALID_OPERATION. */
    begin(p[0], GL_QUERY_WAIT);
    begin(p[0], GL_QUERY_WAIT);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    end();
    assert_int_equal(glt_error(), GL_NO_ERROR);
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(2, p);
}

static void test_conditional_render_on_split(void **state)
{
    (void)state;
    if (kind == GLT_GLES3)
        skip();     /* no conditional rendering in GLES 3 */
    conditional_render_on_split(gl.glBeginConditionalRender, gl.glEndConditionalRender);
}

/* The same through NV_conditional_render's names, which a program may fetch instead (the
 * driver's pair shares the core pair's state): before the layer wrapped them, the driver decided
 * on the first piece alone and discarded p[0]'s block, which GL renders. */
static void test_conditional_render_nv_on_split(void **state)
{
    (void)state;
    if (kind == GLT_GLES3)
        skip();     /* no conditional rendering in GLES 3 */
    assert_true(perfq_gl_has_driver_extension(cur(), "GL_NV_conditional_render"));
    conditional_render_on_split(gl.glBeginConditionalRenderNV, gl.glEndConditionalRenderNV);
}

/* Inverted conditional rendering (GL 4.5, ARB_conditional_render_inverted: the block renders
 * only where the result is zero) on split program queries decides on the summed result too
 * (issue 13's known defect: a query whose samples all fell in later pieces rendered where GL
 * discards). p[0]: first piece empty, a later piece W x H; p[1]: no samples; p[2]: samples in
 * the first piece and none later. Every inverted mode; the results are available before the
 * block (read first), so the NO_WAIT modes have no licence to render unconditionally. */
static void test_conditional_render_inverted_on_split(void **state)
{
    (void)state;
    if (kind == GLT_GLES3)
        skip();     /* no conditional rendering in GLES 3 */
    assert_true(perfq_gl_version_at_least(cur(), 4, 5) ||
                perfq_gl_has_driver_extension(cur(), "GL_ARB_conditional_render_inverted"));
    GLuint p[3] = {0, 0, 0};
    gl.glGenQueries(3, p);
    struct perfq_gl_vquery *q = NULL, *seen = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &q), PERFQ_OK);
    gl.glBeginQuery(GL_SAMPLES_PASSED, p[0]);   /* first piece: nothing */
    glt_draw_quads(&T, 1, 0);                   /* a later piece: W x H */
    gl.glEndQuery(GL_SAMPLES_PASSED);
    gl.glBeginQuery(GL_SAMPLES_PASSED, p[1]);   /* no samples at all */
    gl.glEndQuery(GL_SAMPLES_PASSED);
    perfq_gl_vquery_end(cur(), q);
    gl.glBeginQuery(GL_SAMPLES_PASSED, p[2]);
    glt_draw_quads(&T, 1, 0);                   /* the first piece: W x H */
    struct perfq_gl_vquery *split = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &split), PERFQ_OK);
    perfq_gl_vquery_end(cur(), split);          /* a later piece: nothing */
    gl.glEndQuery(GL_SAMPLES_PASSED);
    assert_int_equal(prog_result(p[0]), quad_samples(1));
    assert_int_equal(prog_result(p[1]), 0);
    assert_int_equal(prog_result(p[2]), quad_samples(1));
    static const GLenum modes[] = {GL_QUERY_WAIT_INVERTED, GL_QUERY_NO_WAIT_INVERTED,
                                   GL_QUERY_BY_REGION_WAIT_INVERTED,
                                   GL_QUERY_BY_REGION_NO_WAIT_INVERTED};
    for (size_t m = 0; m < sizeof(modes) / sizeof(modes[0]); m++)
        for (int i = 0; i < 3; i++) {
            assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &seen),
                             PERFQ_OK);
            gl.glBeginConditionalRender(p[i], modes[m]);
            glt_draw_quads(&T, 1, 0);
            gl.glEndConditionalRender();
            perfq_gl_vquery_end(cur(), seen);
            assert_int_equal(glt_error(), GL_NO_ERROR);
            /* Inverted: only p[1] (zero) renders. */
            uint64_t drawn = vq_value(seen);
            printf("# mode 0x%x, query %d: %llu samples\n", modes[m], i,
                   (unsigned long long)drawn);
            assert_int_equal(drawn, i == 1 ? quad_samples(1) : 0);
            perfq_gl_vquery_free(cur(), seen);
        }
    /* GL 4.6 10.10: a BeginConditionalRender while conditional rendering is active is
     * INVALID_OPERATION, whoever holds the active one. The driver, after an inverted begin the
     * layer rewrote: */
    gl.glBeginConditionalRender(p[0], GL_QUERY_WAIT_INVERTED);
    gl.glBeginConditionalRender(p[0], GL_QUERY_WAIT);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    gl.glEndConditionalRender();
    assert_int_equal(glt_error(), GL_NO_ERROR);
    /* The driver, on an unsplit query, then a begin on a split query the layer would answer
     * itself (p[2] non-inverted, sum non-zero): */
    GLuint plain = 0;
    gl.glGenQueries(1, &plain);
    gl.glBeginQuery(GL_SAMPLES_PASSED, plain);
    glt_draw_quads(&T, 1, 0);
    gl.glEndQuery(GL_SAMPLES_PASSED);
    assert_int_equal(prog_result(plain), quad_samples(1));
    gl.glBeginConditionalRender(plain, GL_QUERY_WAIT);
    gl.glBeginConditionalRender(p[2], GL_QUERY_WAIT);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    gl.glEndConditionalRender();
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glEndConditionalRender();    /* nothing active any more */
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    /* The layer, then a begin the driver would take: */
    gl.glBeginConditionalRender(p[2], GL_QUERY_WAIT);
    gl.glBeginConditionalRender(plain, GL_QUERY_WAIT);
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    gl.glEndConditionalRender();
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glEndConditionalRender();
    assert_int_equal(glt_error(), GL_INVALID_OPERATION);
    /* A begin the driver refused leaves nothing active: the layer answers the next one on a
     * split query, and the block renders (p[2]'s sum is non-zero). */
    gl.glBeginConditionalRender(plain + 1000, GL_QUERY_WAIT);   /* no such query object */
    assert_int_not_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_SAMPLES_PASSED, 0, &seen), PERFQ_OK);
    gl.glBeginConditionalRender(p[2], GL_QUERY_WAIT);
    glt_draw_quads(&T, 1, 0);
    gl.glEndConditionalRender();
    perfq_gl_vquery_end(cur(), seen);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(vq_value(seen), quad_samples(1));
    perfq_gl_vquery_free(cur(), seen);
    gl.glDeleteQueries(1, &plain);
    perfq_gl_vquery_free(cur(), split);
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(3, p);
}

/* perfq's calls leave the program's pending error, current query and query buffer as they
 * were. */
static void test_program_state_unchanged(void **state)
{
    (void)state;
    GLenum target = samples_target();
    gl.glClear(0xFFFFFFFFu);       /* the program's INVALID_VALUE, pending */
    struct perfq_gl_vquery *q = NULL;
    struct perfq_gl_timer *t = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_begin(cur(), &t), PERFQ_OK);
    glt_draw_quads(&T, 1, 0);
    perfq_gl_timer_end(cur(), t);
    perfq_gl_vquery_end(cur(), q);
    vq_value(q);
    uint64_t ns = 0;
    assert_int_equal(perfq_gl_timer_result(cur(), t, 1, &ns), PERFQ_OK);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    perfq_gl_vquery_free(cur(), q);
    perfq_gl_timer_free(cur(), t);

    if (kind == GLT_GLES3 || !perfq_gl_version_at_least(cur(), 4, 4))
        return;
    /* ARB_query_buffer_object: a buffer bound to GL_QUERY_BUFFER is neither written nor
     * unbound by perfq's reads. */
    GLuint buf = 0;
    GLuint64 init[2] = {0x1111111111111111ull, 0x2222222222222222ull};
    gl.glGenBuffers(1, &buf);
    gl.glBindBuffer(GL_QUERY_BUFFER, buf);
    gl.glBufferData(GL_QUERY_BUFFER, sizeof init, init, GL_DYNAMIC_READ);
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    glt_draw_quads(&T, 1, 0);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(vq_value(q), quad_samples(1));
    GLint bound = 0;
    gl.glGetIntegerv(GL_QUERY_BUFFER_BINDING, &bound);
    assert_int_equal(bound, (GLint)buf);
    GLuint64 now[2] = {0, 0};
    gl.glGetBufferSubData(GL_QUERY_BUFFER, 0, sizeof now, now);
    assert_memory_equal(now, init, sizeof init);
    /* And a split program query's result goes into the program's buffer, as GL would. */
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    gl.glBeginQuery(target, p);
    struct perfq_gl_vquery *q2 = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q2), PERFQ_OK);
    glt_draw_quads(&T, 2, 0);
    gl.glEndQuery(target);
    perfq_gl_vquery_end(cur(), q2);
    gl.glGetQueryObjectui64v(p, GL_QUERY_RESULT, (GLuint64 *)(uintptr_t)8);
    gl.glGetBufferSubData(GL_QUERY_BUFFER, 0, sizeof now, now);
    assert_int_equal(now[0], init[0]);
    assert_int_equal(now[1], quad_samples(2));
    assert_int_equal(glt_error(), GL_NO_ERROR);
    /* The same through GL 4.5's glGetQueryBufferObjectui64v. */
    if (perfq_gl_version_at_least(cur(), 4, 5)) {
        PFNGLGETQUERYBUFFEROBJECTUI64VPROC get_buffer_object =
            (PFNGLGETQUERYBUFFEROBJECTUI64VPROC)eglGetProcAddress("glGetQueryBufferObjectui64v");
        get_buffer_object(p, buf, GL_QUERY_RESULT, 0);
        gl.glGetBufferSubData(GL_QUERY_BUFFER, 0, sizeof now, now);
        assert_int_equal(now[0], quad_samples(2));
        assert_int_equal(glt_error(), GL_NO_ERROR);
    }
    gl.glBindBuffer(GL_QUERY_BUFFER, 0);
    gl.glDeleteBuffers(1, &buf);
    gl.glDeleteQueries(1, &p);
    perfq_gl_vquery_free(cur(), q);
    perfq_gl_vquery_free(cur(), q2);
}

/* The program's own TIME_ELAPSED query beside perfq's timer and an ANGLE query. */
static void test_program_time_elapsed_beside_perfq(void **state)
{
    (void)state;
    if (!perfq_gl_vquery_target_supported(cur(), GL_TIME_ELAPSED)) {
        /* Desktop GL 3.3 has it; GLES only with EXT_disjoint_timer_query. */
        assert_int_equal(kind, GLT_GLES3);
        assert_false(glt_has_extension("GL_EXT_disjoint_timer_query"));
        skip();
    }
    GLuint p = 0, a = 0;
    gl.glGenQueries(1, &p);
    gl.glGenQueriesANGLE(1, &a);
    struct perfq_gl_vquery *q = NULL;
    gl.glBeginQuery(GL_TIME_ELAPSED, p);
    assert_int_equal(perfq_gl_vquery_begin(cur(), GL_TIME_ELAPSED, 0, &q), PERFQ_OK);
    gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, a);
    glt_draw_quads(&T, 4, 100);
    gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
    GLint current = 0;
    gl.glGetQueryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &current);
    assert_int_equal(current, (GLint)p);
    gl.glEndQuery(GL_TIME_ELAPSED);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    GLuint64 prog = 0, angle = 0;
    gl.glGetQueryObjectui64v(p, GL_QUERY_RESULT, &prog);
    gl.glGetQueryObjectui64vANGLE(a, GL_QUERY_RESULT_ANGLE, &angle);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_true(prog > 0);
    assert_true(angle > 0);
    printf("# program TIME_ELAPSED %llu ns (driver's timer), ANGLE %llu ns (%s path)\n",
           (unsigned long long)prog, (unsigned long long)angle,
           perfq_gl_timer_path(cur()) == PERFQ_GL_TIMER_FENCE ? "fence" : "query");
    perfq_gl_vquery_free(cur(), q);
    gl.glDeleteQueries(1, &p);
    gl.glDeleteQueriesANGLE(1, &a);
}

static void test_timer_service(void **state)
{
    (void)state;
    perfq_gl_timer_path_t path = perfq_gl_timer_path(cur());
    printf("# timer path %s: %s; resolution %llu ns\n",
           path == PERFQ_GL_TIMER_FENCE ? "fence" : "query", perfq_gl_timer_reason(cur()),
           (unsigned long long)perfq_gl_timer_resolution_ns(cur()));
    assert_int_not_equal(path, PERFQ_GL_TIMER_NONE);
    if (strncmp(cur()->renderer, "llvmpipe", 8) == 0 && !getenv("PERFQ_GL_TIMER")) {
        /* llvmpipe's TIME_ELAPSED is wrong: the quirk table says so, and its timestamps pass
         * the stamp check, so intervals are made of stamp points (timer_points.c); without the
         * table the self-check finds the wrong TIME_ELAPSED (its first of a context is garbage)
         * and the fence path it is. */
        const char *q = getenv("PERFQ_GL_TIMER_QUIRKS");
        if (q && strcmp(q, "0") == 0) {
            assert_int_equal(path, PERFQ_GL_TIMER_FENCE);
            assert_non_null(strstr(perfq_gl_timer_reason(cur()), "self-check"));
        } else {
            assert_int_equal(path, PERFQ_GL_TIMER_QUERY);
            assert_non_null(strstr(perfq_gl_timer_reason(cur()), "stamp points"));
        }
    }
    assert_true(perfq_gl_timer_resolution_ns(cur()) > 0);
    assert_true(perfq_gl_timer_bits(cur(), 0) >= 30);
    /* On the fence path a stamp taken more than a time slice after its fence signalled makes
     * the interval disjoint (gpu_timer.c): a loaded machine (CI runs two sanitizer tests at once
     * on two cores) can delay the helper thread that long. Disjoint is then the right answer,
     * so the test asks for one interval in five that is not, and checks every one that is not. */
    int clean = 0, attempts = 0;
    while (attempts < 5 && !clean) {
        attempts++;
        struct perfq_gl_timer *a = NULL, *s0 = NULL, *s1 = NULL;
        assert_int_equal(perfq_gl_timer_stamp(cur(), &s0), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_begin(cur(), &a), PERFQ_OK);
        glt_draw_quads(&T, 8, 500);
        assert_int_equal(perfq_gl_timer_end(cur(), a), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_end(cur(), a), PERFQ_ESTATE);
        assert_int_equal(perfq_gl_timer_stamp(cur(), &s1), PERFQ_OK);
        uint64_t ns = 0, t0 = 0, t1 = 0;
        assert_int_equal(perfq_gl_timer_result(cur(), a, 1, &ns), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_result(cur(), s0, 1, &t0), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_result(cur(), s1, 1, &t1), PERFQ_OK);
        clean = !perfq_gl_timer_disjoint(a);
        perfq_gl_timer_free(cur(), a);
        perfq_gl_timer_free(cur(), s0);
        perfq_gl_timer_free(cur(), s1);
        if (!clean)
            continue;
        assert_true(ns > 0);
        assert_true(t1 > t0);
        /* The interval lies between the two stamps around it (+ the path's resolution). */
        assert_true(ns <= t1 - t0 + 2 * perfq_gl_timer_resolution_ns(cur()) + 1000);
    }
    printf("# a clean interval after %d attempt(s)\n", attempts);
    assert_true(clean);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

/* Back-to-back intervals (perfq_gl_timer_end_begin), with per-frame statistics read as
 * `perfq stat`'s frame front end reads them (src/gl/stat/stat_frames.c): at each "swap" the
 * statistics queries end and the next frame's begin, then one call ends the frame's timer and
 * begins the next; frames wait in a ring and are read oldest first, the timer without waiting,
 * then, once it is ready, the statistics without asking their availability (they ended before
 * it). Frame f draws f + 1 triangles: every frame's vertices and primitives are exact. On the
 * fence path one fence is an interval's end and the next one's begin (white box: the same
 * fence, held by both). The intervals, contiguous, add up to no more than the CPU time around
 * them. Freeing either of two chained timers first keeps the other's result; nothing leaks. */
struct chained_frame {
    struct perfq_gl_timer *t;
    struct perfq_gl_vquery *v, *p;
    uint64_t triangles;
};

/* Reads the frame's results as the front end does: 0 while the timer is not ready. */
static int read_chained(struct chained_frame *fr, int wait, int stats, uint64_t *sum,
                        int *clean)
{
    uint64_t ns = 0;
    perfq_status_t st = perfq_gl_timer_result(cur(), fr->t, wait, &ns);
    if (st == PERFQ_NOT_READY)
        return 0;
    assert_int_equal(st, PERFQ_OK);
    if (!perfq_gl_timer_disjoint(fr->t)) {
        *sum += ns;
        (*clean)++;
    }
    if (stats) {
        /* wait 1: no availability asked, as the front end reads once the timer is ready */
        uint64_t v = 0, p = 0;
        assert_int_equal(perfq_gl_vquery_result(cur(), fr->p, 1, &p), PERFQ_OK);
        assert_int_equal(perfq_gl_vquery_result(cur(), fr->v, 1, &v), PERFQ_OK);
        assert_int_equal(v, 3 * fr->triangles);
        assert_int_equal(p, fr->triangles);
    }
    perfq_gl_timer_free(cur(), fr->t);
    perfq_gl_vquery_free(cur(), fr->v);
    perfq_gl_vquery_free(cur(), fr->p);
    memset(fr, 0, sizeof *fr);
    return 1;
}

static void test_timer_chain_frame_reads(void **state)
{
    (void)state;
    enum { FRAMES = 60, RING = 4 };
    int stats = perfq_gl_vquery_target_supported(cur(), GL_VERTICES_SUBMITTED_ARB) &&
                perfq_gl_vquery_target_supported(cur(), GL_PRIMITIVES_SUBMITTED_ARB);
    int fence = perfq_gl_timer_path(cur()) == PERFQ_GL_TIMER_FENCE;
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    struct chained_frame ring[RING];
    memset(ring, 0, sizeof ring);
    unsigned head = 0, count = 0;
    uint64_t sum = 0;
    int clean = 0, shared = 0;
    struct perfq_gl_vquery *v = NULL, *p = NULL;
    struct perfq_gl_timer *t = NULL;
    if (stats) {
        assert_int_equal(perfq_gl_vquery_begin(cur(), GL_VERTICES_SUBMITTED_ARB, 0, &v), PERFQ_OK);
        assert_int_equal(perfq_gl_vquery_begin(cur(), GL_PRIMITIVES_SUBMITTED_ARB, 0, &p),
                         PERFQ_OK);
    }
    gl.glFinish();
    uint64_t start = perfq_gl_now_ns();
    assert_int_equal(perfq_gl_timer_begin(cur(), &t), PERFQ_OK);
    for (int f = 0; f < FRAMES; f++) {
        glt_draw_triangles(&T, f + 1);
        struct perfq_gl_vquery *nv = NULL, *np = NULL;
        if (stats) {
            perfq_gl_vquery_end(cur(), v);
            perfq_gl_vquery_end(cur(), p);
            assert_int_equal(perfq_gl_vquery_begin(cur(), GL_VERTICES_SUBMITTED_ARB, 0, &nv),
                             PERFQ_OK);
            assert_int_equal(perfq_gl_vquery_begin(cur(), GL_PRIMITIVES_SUBMITTED_ARB, 0, &np),
                             PERFQ_OK);
        }
        struct perfq_gl_timer *next = NULL;
        assert_int_equal(perfq_gl_timer_end_begin(cur(), t, &next), PERFQ_OK);
        assert_non_null(next);
        shared += fence && t->f1 && t->f1 == next->f0;
        /* t is ended: neither ended nor chained again */
        struct perfq_gl_timer *none = t;
        assert_int_equal(perfq_gl_timer_end_begin(cur(), t, &none), PERFQ_ESTATE);
        assert_null(none);
        assert_int_equal(perfq_gl_timer_end(cur(), t), PERFQ_ESTATE);
        if (count == RING) {
            assert_true(read_chained(&ring[head], 1, stats, &sum, &clean));
            head = (head + 1) % RING;
            count--;
        }
        while (count && read_chained(&ring[head], 0, stats, &sum, &clean)) {
            head = (head + 1) % RING;
            count--;
        }
        ring[(head + count) % RING] = (struct chained_frame){t, v, p, (uint64_t)f + 1};
        count++;
        t = next;
        v = nv;
        p = np;
    }
    if (stats) {
        perfq_gl_vquery_end(cur(), v);
        perfq_gl_vquery_end(cur(), p);
    }
    assert_int_equal(perfq_gl_timer_end(cur(), t), PERFQ_OK);
    if (count == RING) {
        assert_true(read_chained(&ring[head], 1, stats, &sum, &clean));
        head = (head + 1) % RING;
        count--;
    }
    ring[(head + count) % RING] = (struct chained_frame){t, v, p, 0};   /* no draw after the last */
    count++;
    while (count) {
        assert_true(read_chained(&ring[head], 1, stats, &sum, &clean));
        head = (head + 1) % RING;
        count--;
    }
    uint64_t wall = perfq_gl_now_ns() - start;
    printf("# %d chained intervals, %d not disjoint, %llu ns of %llu ns; %d fences shared\n",
           FRAMES + 1, clean, (unsigned long long)sum, (unsigned long long)wall, shared);
    if (fence)
        assert_int_equal(shared, FRAMES);
    /* Contiguous, not overlapping: their sum is within the time around them (each end is
     * stamped at most one resolution late, and the next interval begins at that stamp). */
    assert_true(sum <= wall + 2 * perfq_gl_timer_resolution_ns(cur()) + 1000);
    assert_true(clean > 0);

    /* Two chained timers freed in either order: the other's result stays. */
    for (int order = 0; order < 2; order++) {
        struct perfq_gl_timer *a = NULL, *b = NULL;
        uint64_t ns = 0;
        assert_int_equal(perfq_gl_timer_begin(cur(), &a), PERFQ_OK);
        glt_draw_triangles(&T, 10);
        assert_int_equal(perfq_gl_timer_end_begin(cur(), a, &b), PERFQ_OK);
        assert_non_null(b);
        glt_draw_triangles(&T, 10);
        assert_int_equal(perfq_gl_timer_end(cur(), b), PERFQ_OK);
        struct perfq_gl_timer *first = order ? b : a, *second = order ? a : b;
        perfq_gl_timer_free(cur(), first);
        assert_int_equal(perfq_gl_timer_result(cur(), second, 1, &ns), PERFQ_OK);
        perfq_gl_timer_free(cur(), second);
    }
    /* The stamps an interval's result comes from (perfq_gl_timer_span): chained intervals share
     * one, exactly (perfq record places a context's frames back to back from them); a stamp has
     * none; TIME_ELAPSED (query path) neither. */
    {
        struct perfq_gl_timer *a = NULL, *b = NULL, *s = NULL;
        uint64_t ns = 0, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        int span = perfq_gl_timer_has_span(cur());
        if (fence)
            assert_true(span);
        perfq_status_t want = span ? PERFQ_OK : PERFQ_ENOTSUP;
        assert_int_equal(perfq_gl_timer_begin(cur(), &a), PERFQ_OK);
        glt_draw_triangles(&T, 10);
        assert_int_equal(perfq_gl_timer_end_begin(cur(), a, &b), PERFQ_OK);
        assert_non_null(b);
        glt_draw_triangles(&T, 10);
        assert_int_equal(perfq_gl_timer_end(cur(), b), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_stamp(cur(), &s), PERFQ_OK);
        if (span)
            assert_int_equal(perfq_gl_timer_span(a, &a0, &a1), PERFQ_ESTATE);   /* no result */
        assert_int_equal(perfq_gl_timer_result(cur(), a, 1, &ns), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_span(a, &a0, &a1), want);
        if (span)
            assert_int_equal(ns, a1 > a0 ? a1 - a0 : 0);
        assert_int_equal(perfq_gl_timer_result(cur(), b, 1, &ns), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_span(b, &b0, &b1), want);
        if (span) {
            assert_int_equal(b0, a1);
            assert_int_equal(ns, b1 > b0 ? b1 - b0 : 0);
        }
        assert_int_equal(perfq_gl_timer_result(cur(), s, 1, &ns), PERFQ_OK);
        assert_int_equal(perfq_gl_timer_span(s, &a0, &a1), PERFQ_ENOTSUP);
        perfq_gl_timer_free(cur(), a);
        perfq_gl_timer_free(cur(), b);
        perfq_gl_timer_free(cur(), s);
    }
    /* A chained timer freed while active (ended there, as any timer). */
    struct perfq_gl_timer *a = NULL, *b = NULL;
    uint64_t ns = 0;
    assert_int_equal(perfq_gl_timer_begin(cur(), &a), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_end_begin(cur(), a, &b), PERFQ_OK);
    perfq_gl_timer_free(cur(), b);
    assert_int_equal(perfq_gl_timer_result(cur(), a, 1, &ns), PERFQ_OK);
    perfq_gl_timer_free(cur(), a);
    assert_int_equal(perfq_gl_timer_end_begin(cur(), NULL, &b), PERFQ_ESTATE);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    gl.glFinish();
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.timers, before.timers);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.fences_pending, before.fences_pending);
}

/* A context's frames at its swaps (perfq_gl_timer_end_begin_swap, swap_wait_rule.h). With the
 * frames' fences waited inline (white box: the context's swap_wait set as
 * PERFQ_GL_FENCE_SWAP_WAIT=inline sets it), on the fence path each frame's end fence is waited
 * and stamped by this thread within the call: its result is there at once, without waiting
 * (once the first frame's begin fence is stamped: a fence is waited inline only where no
 * earlier one waits for the helper), and the intervals, contiguous, add up to no more than the
 * time around them. The measured choice (auto) gets every swap. On
 * the query path the call is perfq_gl_timer_end_begin. */
/* Until the context's helper thread has no fence left to stamp (white box; at most 10 s). */
static void wait_helper_idle(struct perfq_gl_timer_state *ts)
{
    for (int i = 0; i < 10000; i++) {
        pthread_mutex_lock(&ts->lock);
        int idle = ts->head == NULL;
        pthread_mutex_unlock(&ts->lock);
        if (idle)
            return;
        usleep(1000);
    }
    fail_msg("the helper thread kept fences to stamp for 10 s");
}

/* One run of FRAMES frames in one swap-wait mode; returns how many frames were not disjoint.
 * Every check that does not depend on the machine's load is made here, on every run. */
enum { SWAP_FRAMES = 30 };
static int swap_frames_run(struct perfq_gl_timer_state *ts, int mode, int fence)
{
    struct perfq_gl_timer *t = NULL, *ended[SWAP_FRAMES];
    ts->swap_wait = mode;
    uint64_t frames_before = ts->swap_rule.frames;
    gl.glFinish();
    uint64_t start = perfq_gl_now_ns();
    assert_int_equal(perfq_gl_timer_begin(cur(), &t), PERFQ_OK);
    if (fence)
        wait_helper_idle(ts);   /* the first frame's begin stamped: no earlier fence waits */
    int at_once = 0;
    for (int f = 0; f < SWAP_FRAMES; f++) {
        glt_draw_triangles(&T, f + 1);
        struct perfq_gl_timer *next = NULL;
        assert_int_equal(perfq_gl_timer_end_begin_swap(cur(), t, &next), PERFQ_OK);
        assert_non_null(next);
        uint64_t ns = 0;
        perfq_status_t st = perfq_gl_timer_result(cur(), t, 0, &ns);
        assert_true(st == PERFQ_OK || st == PERFQ_NOT_READY);
        at_once += st == PERFQ_OK;
        if (mode == 2 && fence)
            assert_int_equal(ts->last_swap_inline, 1);
        ended[f] = t;
        t = next;
    }
    assert_int_equal(perfq_gl_timer_end(cur(), t), PERFQ_OK);
    uint64_t sum = 0, ns = 0;
    int clean = 0;
    for (int f = 0; f < SWAP_FRAMES; f++) {
        assert_int_equal(perfq_gl_timer_result(cur(), ended[f], 1, &ns), PERFQ_OK);
        if (!perfq_gl_timer_disjoint(ended[f])) {
            sum += ns;
            clean++;
        }
        perfq_gl_timer_free(cur(), ended[f]);
    }
    assert_int_equal(perfq_gl_timer_result(cur(), t, 1, &ns), PERFQ_OK);
    perfq_gl_timer_free(cur(), t);
    uint64_t wall = perfq_gl_now_ns() - start;
    printf("# %s: %d of %d frames ready at their swap, %d not disjoint, %llu of %llu ns\n",
           mode == 2 ? "inline" : "measured", at_once, SWAP_FRAMES, clean,
           (unsigned long long)sum, (unsigned long long)wall);
    if (mode == 2 && fence)
        assert_int_equal(at_once, SWAP_FRAMES);
    if (mode == 0 && fence)
        assert_int_equal(ts->swap_rule.frames, frames_before + SWAP_FRAMES);
    assert_true(sum <= wall + 2 * perfq_gl_timer_resolution_ns(cur()) + 1000);
    return clean;
}

static void test_timer_swap_inline(void **state)
{
    (void)state;
    struct perfq_gl_ctx *c = perfq_gl_ctx(cur());
    int fence = perfq_gl_timer_path(cur()) == PERFQ_GL_TIMER_FENCE;
    struct perfq_gl_timer_state *ts = c->timer;
    assert_non_null(ts);
    int saved = ts->swap_wait;
    for (int mode = 2; mode >= 0; mode -= 2) {   /* inline, then the measured choice */
        /* A frame's stamp taken late makes it disjoint, rightly: on a loaded machine (CI runs
         * tests two at a time on two cores) the helper thread of the measured mode can be late
         * for all 30 (seen once in CI). As test_timer_service, a run is made again, up to five
         * times, until one frame is clean; every run makes every other check. */
        int clean = 0, runs = 0;
        while (runs < 5 && clean == 0) {
            runs++;
            clean = swap_frames_run(ts, mode, fence);
        }
        printf("# %s: a clean frame after %d run(s)\n", mode == 2 ? "inline" : "measured", runs);
        assert_true(clean > 0);
    }
    ts->swap_wait = saved;
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

/* ---- hooks ---- */
/* Atomic: test_two_threads makes contexts current on two threads at once (TSan). */
static _Atomic int created_calls, destroyed_calls, destroyed_gl_usable = -1;
static void *hook_created(const struct perfq_gl_scope_object *at)
{
    assert_int_equal(at->scope, PERFQ_GL_SCOPE_CONTEXT);
    assert_non_null(at->ctx);
    created_calls++;
    return &created_calls;
}
static void hook_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    assert_non_null(at->ctx);
    assert_ptr_equal(data, &created_calls);
    destroyed_calls++;
    destroyed_gl_usable = gl_usable;
}
static const struct perfq_gl_frontend hook_frontend = {
    .name = "test-context-hooks",
    .scope = PERFQ_GL_SCOPE_CONTEXT,
    .created = hook_created,
    .destroyed = hook_destroyed,
};
static int hook_slot = -1;

static void test_context_hooks(void **state)
{
    (void)state;
    struct glt t2;
    int created0 = created_calls, destroyed0 = destroyed_calls;
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    /* Destroyed while current: the hooks run once it was released (the release succeeded), with
     * GL not usable: a release that fails leaves it current and whole (test egl-failures-*). */
    assert_int_equal(glt_create(&t2, dpy, kind, 16, 16), 0);
    assert_int_equal(created_calls, created0 + 1);
    assert_ptr_equal(perfq_gl_frontend_data(hook_slot, cur()), &created_calls);
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), samples_target(), 0, &q), PERFQ_OK);
    GLuint a = 0;
    gl.glGenQueriesANGLE(1, &a);
    gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, a);   /* left active at destruction */
    perfq_gl_vquery_free(cur(), q);
    eglDestroyContext(dpy, t2.ctx);
    assert_int_equal(destroyed_calls, destroyed0);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    assert_int_equal(destroyed_calls, destroyed0 + 1);
    assert_int_equal(destroyed_gl_usable, 0);
    /* Destroyed while not current: at once, GL not usable. */
    assert_int_equal(glt_create(&t2, dpy, kind, 16, 16), 0);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, t2.ctx);
    assert_int_equal(destroyed_calls, destroyed0 + 2);
    assert_int_equal(destroyed_gl_usable, 0);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx);
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before.contexts);
    assert_int_equal(after.frontend_objects, before.frontend_objects);
    assert_int_equal(after.timers, before.timers);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.program_records, before.program_records);
}

/* A context released with a perfq query active: the layer ends its driver query before the
 * release and begins another at the next make-current, and the result is the exact sum of both
 * stretches; a switch that fails keeps the query running. Mesa's llvmpipe frees the queries of a
 * destroyed context that were never ended without waiting for its rasterizer threads, which then
 * write into the freed memory (the heap corruption `perfq stat --per-draw` met about one run in
 * five on the GL example: its frame query was active when the example released and destroyed its
 * context). ASan cannot see those writes (Mesa is not instrumented, and its quarantine keeps the
 * freed blocks): the invariant is asserted instead, for every context released here. */
static void test_release_with_active_query(void **state)
{
    (void)state;
    GLenum target = samples_target();
    int slot = perfq_gl_vq_slot_of(target, 0);
    struct perfq_gl_ctx *c = perfq_gl_ctx(cur());
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    assert_non_null(c->vq->slots[slot].cur);
    glt_draw_quads(&T, 1, 0);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
    assert_null(c->vq->slots[slot].cur);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_non_null(c->vq->slots[slot].cur);
    glt_draw_quads(&T, 2, 0);
    /* No such context: the switch fails, T stays current with its query running. */
    assert_false(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE,
                                (EGLContext)(uintptr_t)0x4711));
    assert_int_equal(eglGetError(), EGL_BAD_CONTEXT);
    assert_ptr_equal(perfq_gl_current_context(), &c->pub);
    assert_non_null(c->vq->slots[slot].cur);
    glt_draw_quads(&T, 1, 0);
    assert_int_equal(perfq_gl_vquery_end(cur(), q), PERFQ_OK);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    assert_int_equal(vq_value(q), quad_samples(4));
    assert_true(perfq_gl_vquery_was_split(q));
    perfq_gl_vquery_free(cur(), q);

    /* What the example did: draw with the query active, release, destroy; many times. */
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    for (int i = 0; i < 20; i++) {
        struct glt t2;
        assert_int_equal(glt_create(&t2, dpy, kind, W, H), 0);
        struct perfq_gl_ctx *c2 = perfq_gl_ctx(cur());
        struct perfq_gl_vquery *a = NULL;
        assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &a), PERFQ_OK);
        glt_draw_quads(&t2, 1 + i % 3, 0);
        gl.glFlush();
        assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT));
        assert_null(c2->vq->slots[slot].cur);
        perfq_gl_vquery_free(&c2->pub, a);     /* not current: CPU memory only */
        assert_true(eglDestroyContext(dpy, t2.ctx));
    }
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.contexts, before.contexts);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.segments, before.segments);
}

/* ---- two contexts on two threads ---- */
struct thread_arg {
    int ok;
    char why[128];
};

static void *thread_main(void *p)
{
    struct thread_arg *arg = p;
    struct glt t;
    if (glt_create(&t, dpy, kind, W, H) != 0) {
        snprintf(arg->why, sizeof arg->why, "no context");
        return NULL;
    }
    GLenum target = samples_target();
    arg->ok = 1;
    for (int i = 0; i < 50 && arg->ok; i++) {
        GLuint pq = 0, aq = 0;
        gl.glGenQueries(1, &pq);
        gl.glGenQueriesANGLE(1, &aq);
        struct perfq_gl_vquery *q = NULL;
        struct perfq_gl_context *c = perfq_gl_current_context();
        gl.glBeginQuery(target, pq);
        gl.glBeginQueryANGLE(GL_TIME_ELAPSED_ANGLE, aq);
        if (perfq_gl_vquery_begin(c, target, 0, &q) != PERFQ_OK)
            arg->ok = 0;
        glt_draw_quads(&t, 1 + i % 3, 0);
        gl.glEndQuery(target);
        perfq_gl_vquery_end(c, q);
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
        uint64_t v = 0;
        GLuint64 ns = 0;
        perfq_gl_vquery_result(c, q, 1, &v);
        GLuint pv = prog_result(pq);
        gl.glGetQueryObjectui64vANGLE(aq, GL_QUERY_RESULT_ANGLE, &ns);
        if (v != quad_samples(1 + i % 3) || pv != quad_samples(1 + i % 3) || ns == 0 ||
            gl.glGetError() != GL_NO_ERROR) {
            arg->ok = 0;
            snprintf(arg->why, sizeof arg->why, "round %d: perfq %llu program %u angle %llu", i,
                     (unsigned long long)v, pv, (unsigned long long)ns);
        }
        perfq_gl_vquery_free(c, q);
        gl.glDeleteQueries(1, &pq);
        gl.glDeleteQueriesANGLE(1, &aq);
    }
    glt_destroy(&t);
    return NULL;
}

static void test_two_threads(void **state)
{
    (void)state;
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    pthread_t th[2];
    struct thread_arg args[2];
    memset(args, 0, sizeof args);
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&th[i], NULL, thread_main, &args[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx);
    for (int i = 0; i < 2; i++) {
        if (!args[i].ok)
            fail_msg("thread %d: %s", i, args[i].why);
    }
}

/* Thousands of logical queries beside the program's, without growth. */
/* Issue 10: a logical query restarted in place (perfq_gl_vquery_restart) is what freeing it and
 * beginning a new one would be: N queries outstanding, restarted round after round with and
 * without their results read, a program query split across two of them; every result exact,
 * no object made or leaked per restart, and the calls that cannot restart change nothing. */
static void test_restart_in_place(void **state)
{
    (void)state;
    enum { N = 8, ROUNDS = 4 };
    GLenum target = samples_target();
    struct perfq_gl_vquery *q[N] = {NULL};
    GLuint p = 0;
    gl.glGenQueries(1, &p);
    for (int i = 0; i < N; i++) {
        assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q[i]), PERFQ_OK);
        /* Active: not restartable, nothing changes. */
        assert_int_equal(perfq_gl_vquery_restart(cur(), q[i]), PERFQ_ESTATE);
        glt_draw_quads(&T, 1, 0);
        assert_int_equal(perfq_gl_vquery_end(cur(), q[i]), PERFQ_OK);
    }
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < N; i++) {
            /* Round 1: the program's query spans the end of q[3] and the start of q[4]. */
            if (r == 1 && i == 3) {
                gl.glBeginQuery(target, p);
                glt_draw_quads(&T, 1, 0);
            }
            assert_int_equal(perfq_gl_vquery_restart(cur(), q[i]), PERFQ_OK);
            glt_draw_quads(&T, 1 + (i + r) % 3, 0);
            assert_int_equal(perfq_gl_vquery_end(cur(), q[i]), PERFQ_OK);
            if (r == 1 && i == 4) {
                glt_draw_quads(&T, 2, 0);
                gl.glEndQuery(target);
            }
        }
        assert_int_equal(glt_error(), GL_NO_ERROR);
        /* Round 2's results are never read: the next restart drops them. */
        if (r == 2)
            continue;
        for (int i = 0; i < N; i++)
            assert_int_equal(vq_value(q[i]), quad_samples(1 + (i + r) % 3));
        if (r == 1)
            assert_int_equal(prog_result(p), quad_samples(1 + 2 + 3 + 2));
    }
    /* The program's split query keeps its record until its name is deleted (or reused). */
    gl.glDeleteQueries(1, &p);
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.vquery_links, before.vquery_links);
    assert_int_equal(after.program_records, before.program_records);
    for (int i = 0; i < N; i++)
        perfq_gl_vquery_free(cur(), q[i]);
    /* A timer: the query path's interval restarts in place, a fence timer never (its fences are
     * single-use); stamps and active intervals never. */
    struct perfq_gl_timer *t = NULL, *s0 = NULL;
    assert_int_equal(perfq_gl_timer_begin(cur(), &t), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_restart(cur(), t), PERFQ_ESTATE);
    assert_int_equal(perfq_gl_timer_end(cur(), t), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_stamp(cur(), &s0), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_restart(cur(), s0), PERFQ_ESTATE);
    /* Stamp points (llvmpipe's default) are single-use, as fences: no restart in place. */
    int query_path = perfq_gl_timer_path(cur()) == PERFQ_GL_TIMER_QUERY &&
                     !strstr(perfq_gl_timer_reason(cur()), "stamp points");
    for (int r = 0; r < 3; r++) {
        uint64_t ns = 0;
        assert_int_equal(perfq_gl_timer_result(cur(), t, 1, &ns), PERFQ_OK);
        perfq_status_t st = perfq_gl_timer_restart(cur(), t);
        assert_int_equal(st, query_path ? PERFQ_OK : PERFQ_ESTATE);
        if (st != PERFQ_OK) {
            perfq_gl_timer_free(cur(), t);
            t = NULL;
            assert_int_equal(perfq_gl_timer_begin(cur(), &t), PERFQ_OK);
        }
        /* Begun again: a result is not there before its end. */
        assert_int_equal(perfq_gl_timer_result(cur(), t, 1, &ns), PERFQ_ESTATE);
        glt_draw_quads(&T, 1, 0);
        assert_int_equal(perfq_gl_timer_end(cur(), t), PERFQ_OK);
    }
    perfq_gl_timer_free(cur(), t);
    perfq_gl_timer_free(cur(), s0);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

static void test_cycles_without_growth(void **state)
{
    (void)state;
    GLenum target = samples_target();
    struct perfq_gl_layer_stats before, after;
    perfq_gl_layer_stats(&before);
    for (int i = 0; i < 2000; i++) {
        GLuint p = 0;
        gl.glGenQueries(1, &p);
        struct perfq_gl_vquery *q = NULL;
        if (i % 2)
            gl.glBeginQuery(target, p);
        perfq_gl_vquery_begin(cur(), target, 0, &q);
        if (i % 2)
            gl.glEndQuery(target);
        perfq_gl_vquery_end(cur(), q);
        uint64_t v;
        if (i % 3 == 0)
            perfq_gl_vquery_result(cur(), q, 1, &v);
        perfq_gl_vquery_free(cur(), q);
        if (i % 2 && i % 4 == 1)
            prog_result(p);
        gl.glDeleteQueries(1, &p);
    }
    assert_int_equal(glt_error(), GL_NO_ERROR);
    perfq_gl_layer_stats(&after);
    assert_int_equal(after.vqueries, before.vqueries);
    assert_int_equal(after.program_records, before.program_records);
    assert_true(after.segments <= before.segments + PERFQ_GL_VQ_POOL_MAX);
}

/* The number of lines in the verdict cache file (-1: no file). */
static int cache_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

/* The path a new context of the test's kind gets, and how many self-checks that took. */
static perfq_gl_timer_path_t new_context_path(uint64_t *checks)
{
    struct perfq_gl_layer_stats a, b;
    perfq_gl_layer_stats(&a);
    struct glt x;
    assert_int_equal(glt_create(&x, T.dpy, kind, 16, 16), 0);
    perfq_gl_timer_path_t path = perfq_gl_timer_path(cur());
    glt_destroy(&x);
    assert_int_equal(glt_make_current(&T), 0);
    perfq_gl_layer_stats(&b);
    *checks = b.timer_self_checks - a.timer_self_checks;
    return path;
}

/* The timer self-check's verdict is kept per driver between runs (timer_verdict_cache.c): a
 * second context of the same driver takes it from the file without checking; a file that does
 * not parse, or PERFQ_GL_TIMER_CACHE=0, means the check runs. */
static void test_timer_verdict_cache(void **state)
{
    (void)state;
    char dir[] = "/tmp/perfq-verdict-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[64];
    snprintf(path, sizeof path, "%s/gl-timer-self-check", dir);
    const char *quirks = getenv("PERFQ_GL_TIMER_QUIRKS"), *force = getenv("PERFQ_GL_TIMER");
    char *old_quirks = quirks ? strdup(quirks) : NULL, *old_force = force ? strdup(force) : NULL;
    setenv("PERFQ_CACHE_DIR", dir, 1);
    setenv("PERFQ_GL_TIMER_QUIRKS", "0", 1);   /* llvmpipe, in the quirk table, checks too */
    unsetenv("PERFQ_GL_TIMER");
    unsetenv("PERFQ_GL_TIMER_CACHE");

    uint64_t checks = 0;
    perfq_gl_timer_path_t first = new_context_path(&checks);
    fprintf(stderr, "verdict cache: %s context: %llu self-check(s), path %s\n",
            glt_kind_name(kind), (unsigned long long)checks,
            first == PERFQ_GL_TIMER_QUERY ? "query" : first == PERFQ_GL_TIMER_FENCE ? "fence"
                                                                                  : "none");
    if (checks == 0) {
        /* No timer queries of 30 bits here (llvmpipe's GLES 3 has none): no check, no file. */
        assert_int_not_equal(first, PERFQ_GL_TIMER_QUERY);
        assert_int_equal(cache_lines(path), -1);
    } else {
        assert_int_equal(checks, 1);
        assert_int_equal(cache_lines(path), 1);
        /* The same driver again: the verdict from the file, the same path, no check. */
        assert_int_equal(new_context_path(&checks), first);
        assert_int_equal(checks, 0);
        assert_int_equal(cache_lines(path), 1);
        /* A file that does not parse (a line of another format, a line cut short): checked. */
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs("maybe\tsome driver\nfail", f);
        fclose(f);
        assert_int_equal(new_context_path(&checks), first);
        assert_int_equal(checks, 1);
        /* The cache off: checked, nothing written. */
        setenv("PERFQ_GL_TIMER_CACHE", "0", 1);
        int lines = cache_lines(path);
        assert_int_equal(new_context_path(&checks), first);
        assert_int_equal(checks, 1);
        assert_int_equal(cache_lines(path), lines);
        unsetenv("PERFQ_GL_TIMER_CACHE");
    }
    unlink(path);
    assert_int_equal(rmdir(dir), 0);
    unsetenv("PERFQ_CACHE_DIR");
    if (old_quirks)
        setenv("PERFQ_GL_TIMER_QUIRKS", old_quirks, 1);
    else
        unsetenv("PERFQ_GL_TIMER_QUIRKS");
    if (old_force)
        setenv("PERFQ_GL_TIMER", old_force, 1);
    free(old_quirks);
    free(old_force);
}

/* The table's L lines (dispatch.h) are looked up at their wrapper's first call, not with the
 * table, so that a program pays only for the ones it calls (docs/perfq-stat.md, "The GL layer's
 * fixed cost"); the W lines with the table. The wrapper then calls the driver's function. */
static void test_wrapped_real_looked_up_at_first_call(void **state)
{
    (void)state;
    const struct perfq_gl_dispatch *real = perfq_gl_dispatch();
    assert_int_equal(__atomic_load_n(&perfq_gl_real_looked_up.glBindBuffer, __ATOMIC_ACQUIRE), 1);
    assert_non_null(real->glBindBuffer);
    /* Nothing here called glGenerateMipmap before (an L line). */
    assert_int_equal(__atomic_load_n(&perfq_gl_real_looked_up.glGenerateMipmap, __ATOMIC_ACQUIRE),
                     0);
    assert_null(real->glGenerateMipmap);
    PFNGLGENERATEMIPMAPPROC generate =
        (PFNGLGENERATEMIPMAPPROC)eglGetProcAddress("glGenerateMipmap");
    assert_non_null(generate);
    generate(0);    /* no such target: the driver's GL_INVALID_ENUM */
    assert_int_equal(gl.glGetError(), GL_INVALID_ENUM);
    assert_int_equal(__atomic_load_n(&perfq_gl_real_looked_up.glGenerateMipmap, __ATOMIC_ACQUIRE),
                     1);
    void (*driver)(void) = perfq_gl_resolve("glGenerateMipmap");
    assert_non_null(driver);
    assert_true((void *)real->glGenerateMipmap == (void *)driver);
}

/* The layer's own driver query names (its timer's stamps, its segments) are not the program's:
 * glIsQuery is false, a read is the driver's answer for a name that is no query object, a
 * delete leaves them to the layer, and a compatibility program that names one of them (legal
 * there) gets its own query, with its exact result, while the layer's timers go on. */
static void test_layer_names_not_the_programs(void **state)
{
    (void)state;
    GLenum target = samples_target();
    struct perfq_gl_timer *a = NULL, *s = NULL;
    assert_int_equal(perfq_gl_timer_stamp(cur(), &s), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_begin(cur(), &a), PERFQ_OK);
    glt_draw_quads(&T, 1, 0);
    assert_int_equal(perfq_gl_timer_end(cur(), a), PERFQ_OK);
    struct perfq_gl_vquery *q = NULL;
    assert_int_equal(perfq_gl_vquery_begin(cur(), target, 0, &q), PERFQ_OK);
    struct perfq_gl_ctx *c = perfq_gl_ctx(cur());
    GLuint names[5];
    int n = 0;
    names[n++] = c->vq->slots[0].cur->name;
    const struct perfq_gl_point *points[3] = {s->p0, a->p0, a->p1};
    if (s->query)
        names[n++] = s->query;
    for (int i = 0; i < 3; i++)
        if (points[i])
            names[n++] = points[i]->query;
    if (perfq_gl_timer_path(cur()) == PERFQ_GL_TIMER_QUERY)
        assert_true(n >= 2);    /* the timer's names are asked about too */
    printf("# %d of the layer's names\n", n);
    for (int i = 0; i < n; i++) {
        GLuint name = names[i];
        assert_true(name != 0);
        assert_false(gl.glIsQuery(name));
        GLuint v = 77;
        gl.glGetQueryObjectuiv(name, GL_QUERY_RESULT_AVAILABLE, &v);
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        assert_int_equal(v, 77);
        gl.glDeleteQueries(1, &name);
        assert_int_equal(glt_error(), GL_NO_ERROR);
        if (kind != GLT_GLES3) {
            gl.glBeginConditionalRender(name, GL_QUERY_WAIT);
            assert_int_equal(glt_error(), GL_INVALID_VALUE);
        }
    }
    glt_draw_quads(&T, 1, 0);
    perfq_gl_vquery_end(cur(), q);
    assert_int_equal(vq_value(q), quad_samples(1));
    /* A program that names one of them itself: a timer's where there is one. */
    GLuint taken = names[n - 1];
    gl.glBeginQuery(target, taken);
    if (kind == GLT_COMPAT) {
        assert_int_equal(glt_error(), GL_NO_ERROR);
        GLint current = -1;
        gl.glGetQueryiv(target, GL_CURRENT_QUERY, &current);
        assert_int_equal(current, (GLint)taken);
        glt_draw_quads(&T, 2, 0);
        gl.glEndQuery(target);
        assert_int_equal(prog_result(taken), quad_samples(2));
        assert_true(gl.glIsQuery(taken));
    } else {
        /* Core and ES: a name the program never generated. */
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        assert_false(gl.glIsQuery(taken));
    }
    /* The layer's timers kept their objects. */
    uint64_t ns = 0, t0 = 0;
    assert_int_equal(perfq_gl_timer_result(cur(), a, 1, &ns), PERFQ_OK);
    assert_int_equal(perfq_gl_timer_result(cur(), s, 1, &t0), PERFQ_OK);
    assert_true(t0 > 0);
    perfq_gl_timer_free(cur(), a);
    perfq_gl_timer_free(cur(), s);
    perfq_gl_vquery_free(cur(), q);
    if (kind == GLT_COMPAT) {
        /* The program's query outlives the layer's names it stood beside, until deleted. */
        assert_true(gl.glIsQuery(taken));
        assert_int_equal(prog_result(taken), quad_samples(2));
        gl.glDeleteQueries(1, &taken);
        assert_false(gl.glIsQuery(taken));
    }
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

int main(int argc, char **argv)
{
    kind = glt_kind_from_args(argc, argv);
    hook_slot = perfq_gl_register_frontend(&hook_frontend);
    if (hook_slot < 0) {
        fprintf(stderr, "the test front end could not be registered\n");
        return 1;
    }
    int setup = glt_open_display(&dpy);
    if (setup == 0)
        setup = glt_create(&T, dpy, kind, W, H);
    if (setup != 0)
        return setup;
    if (!perfq_gl_vquery_target_supported(cur(), samples_target())) {
        /* Desktop GL has SAMPLES_PASSED since 1.5, GLES ANY_SAMPLES_PASSED since 3.0. */
        fprintf(stderr, "FAIL: the layer says this %s context has no occlusion queries\n",
                glt_kind_name(kind));
        return 1;
    }
    printf("# %s: %s | %s\n", glt_kind_name(kind), cur()->renderer, cur()->version);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_wrapped_real_looked_up_at_first_call, setup_each),
        cmocka_unit_test_setup(test_samples_interleaved, setup_each),
        cmocka_unit_test_setup(test_samples_nested, setup_each),
        cmocka_unit_test_setup(test_any_samples_beside_count, setup_each),
        cmocka_unit_test_setup(test_primitives_generated, setup_each),
        cmocka_unit_test_setup(test_pipeline_statistics, setup_each),
        cmocka_unit_test_setup(test_program_errors_while_split, setup_each),
        cmocka_unit_test_setup(test_program_error_held_across_layer_calls, setup_each),
        cmocka_unit_test_setup(test_program_delete_and_counter_on_split, setup_each),
        cmocka_unit_test_setup(test_layer_names_not_the_programs, setup_each),
        cmocka_unit_test_setup(test_conditional_render_on_split, setup_each),
        cmocka_unit_test_setup(test_conditional_render_nv_on_split, setup_each),
        cmocka_unit_test_setup(test_conditional_render_inverted_on_split, setup_each),
        cmocka_unit_test_setup(test_program_state_unchanged, setup_each),
        cmocka_unit_test_setup(test_program_time_elapsed_beside_perfq, setup_each),
        cmocka_unit_test_setup(test_timer_service, setup_each),
        cmocka_unit_test_setup(test_timer_chain_frame_reads, setup_each),
        cmocka_unit_test_setup(test_timer_swap_inline, setup_each),
        cmocka_unit_test_setup(test_context_hooks, setup_each),
        cmocka_unit_test_setup(test_release_with_active_query, setup_each),
        cmocka_unit_test_setup(test_two_threads, setup_each),
        cmocka_unit_test_setup(test_restart_in_place, setup_each),
        cmocka_unit_test_setup(test_cycles_without_growth, setup_each),
        cmocka_unit_test_setup(test_timer_verdict_cache, setup_each),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&T);
    return rc;
}
