/*
 * The front-end module interface (src/gl/gl_layer.h) exercised by two test front ends compiled
 * into this program with the layer's sources: one scoped to share groups that observes object,
 * draw, clear and swap calls; one scoped to EGL displays with an EGL extension and an EGL entry
 * point that reports an error through the layer's EGL error channel.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "gl_test.h"
#include "gl/gl_layer.h"

static EGLDisplay dpy;
static struct glt T;

/* ---- a share-group front end observing program calls ---- */

struct group_data {
    int objects_created, objects_deleted, allocations, rejected;
    int64_t bytes;                      /* buffer bytes the driver accepted */
    int texels;                         /* width * height * depth of accepted texture storage */
    int draws, clears, swaps;
    struct perfq_gl_object_call last;
};
static struct group_data groups[4];
static int n_groups, groups_destroyed;

static void *group_created(const struct perfq_gl_scope_object *at)
{
    assert_int_equal(at->scope, PERFQ_GL_SCOPE_SHARE_GROUP);
    assert_non_null(at->ctx);     /* GL callable: the context being made current */
    assert_non_null(at->group);
    assert_true(n_groups < 4);
    return &groups[n_groups++];
}

static void group_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    assert_int_equal(at->scope, PERFQ_GL_SCOPE_SHARE_GROUP);
    assert_non_null(data);
    assert_int_equal(gl_usable, 0);
    groups_destroyed++;
}

static void on_object(struct perfq_gl_context *ctx, void *data,
    const struct perfq_gl_object_call *c)
{
    assert_non_null(ctx);
    struct group_data *g = data;
    assert_non_null(g);
    g->last = *c;
    if (c->error != GL_NO_ERROR) {
        g->rejected++;
        return;
    }
    if (c->event == PERFQ_GL_OBJECT_CREATE)
        g->objects_created += c->n;
    else if (c->event == PERFQ_GL_OBJECT_DELETE)
        g->objects_deleted += c->n;
    else {
        g->allocations++;
        if (c->kind == PERFQ_GL_OBJECT_BUFFER)
            g->bytes += c->size;
        else if (c->kind == PERFQ_GL_OBJECT_TEXTURE)
            g->texels += c->width * c->height * c->depth;
    }
}

static void on_draw(struct perfq_gl_context *ctx, void *data, const char *function)
{
    (void)ctx;
    assert_non_null(function);
    ((struct group_data *)data)->draws++;
}

static void on_clear(struct perfq_gl_context *ctx, void *data, GLbitfield mask)
{
    (void)ctx;
    (void)mask;
    ((struct group_data *)data)->clears++;
}

static int stamp_on_swap;   /* the swap observer stamps a timer, as perfq stat's frames do */

static void on_swap(struct perfq_gl_context *ctx, void *data)
{
    ((struct group_data *)data)->swaps++;
    if (stamp_on_swap) {
        struct perfq_gl_timer *t = NULL;
        if (perfq_gl_timer_stamp(ctx, &t) == PERFQ_OK)
            perfq_gl_timer_free(ctx, t);
    }
}

static const struct perfq_gl_observers observers = {
    .object = on_object, .draw = on_draw, .clear = on_clear, .swap = on_swap,
};

static const struct perfq_gl_frontend group_frontend = {
    .name = "test-share-group",
    .scope = PERFQ_GL_SCOPE_SHARE_GROUP,
    .created = group_created,
    .destroyed = group_destroyed,
    .observers = &observers,
};
static int group_id = -1;

/* ---- a display front end with an EGL extension and an EGL entry point ---- */

static int displays_created, displays_destroyed;
static void *display_created(const struct perfq_gl_scope_object *at)
{
    assert_int_equal(at->scope, PERFQ_GL_SCOPE_DISPLAY);
    assert_non_null(at->display);
    displays_created++;
    return &displays_created;
}

static void display_destroyed(const struct perfq_gl_scope_object *at, void *data, int gl_usable)
{
    (void)gl_usable;
    assert_non_null(at->display);
    assert_ptr_equal(data, &displays_created);
    displays_destroyed++;
}

static int always(void *display)
{
    return display != NULL;
}

typedef EGLBoolean (*fail_fn)(EGLDisplay dpy);
static EGLBoolean test_fail(EGLDisplay d)
{
    (void)d;
    perfq_gl_egl_record_error(EGL_BAD_PARAMETER);
    return EGL_FALSE;
}

static const struct perfq_gl_entry_point display_entry_points[] = {
    {"eglPerfqTestFail", (void (*)(void))test_fail},
    {NULL, NULL},
};
static const struct perfq_egl_extension display_extensions[] = {
    {"EGL_PERFQ_test_display", always},
    {NULL, NULL},
};
static const struct perfq_gl_frontend display_frontend = {
    .name = "EGL_PERFQ_test_display",
    .scope = PERFQ_GL_SCOPE_DISPLAY,
    .created = display_created,
    .destroyed = display_destroyed,
    .entry_points = display_entry_points,
    .egl_extensions = display_extensions,
};
static int display_id = -1;

/* ---- tests ---- */

static struct group_data *current_group(void)
{
    return perfq_gl_frontend_data(group_id, perfq_gl_current_context());
}

static void test_object_calls_observed(void **state)
{
    (void)state;
    struct group_data *g = current_group();
    assert_non_null(g);
    struct group_data before = *g;
    GLuint b[2] = {0, 0};
    gl.glGenBuffers(2, b);
    assert_int_equal(g->objects_created, before.objects_created + 2);
    assert_int_equal(g->last.kind, PERFQ_GL_OBJECT_BUFFER);
    assert_ptr_equal(g->last.names, b);
    gl.glBindBuffer(GL_ARRAY_BUFFER, b[0]);
    gl.glBufferData(GL_ARRAY_BUFFER, 4096, NULL, GL_STATIC_DRAW);
    assert_int_equal(g->bytes, before.bytes + 4096);
    assert_int_equal(g->last.target, GL_ARRAY_BUFFER);
    assert_string_equal(g->last.function, "glBufferData");
    /* Refused by the driver (negative size: INVALID_VALUE): seen as rejected, and the program
     * still gets its error. */
    gl.glBufferData(GL_ARRAY_BUFFER, -1, NULL, GL_STATIC_DRAW);
    assert_int_equal(g->rejected, before.rejected + 1);
    assert_int_equal(g->last.error, GL_INVALID_VALUE);
    assert_int_equal(gl.glGetError(), GL_INVALID_VALUE);
    assert_int_equal(g->bytes, before.bytes + 4096);
    gl.glDeleteBuffers(2, b);
    assert_int_equal(g->objects_deleted, before.objects_deleted + 2);

    /* A renderbuffer's storage, through the same wrappers glt uses. */
    GLuint rb = 0;
    gl.glGenRenderbuffers(1, &rb);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, rb);
    gl.glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 32, 16);
    assert_int_equal(g->last.kind, PERFQ_GL_OBJECT_RENDERBUFFER);
    assert_int_equal(g->last.width, 32);
    assert_int_equal(g->last.height, 16);
    assert_int_equal(g->last.internalformat, GL_RGBA8);
    gl.glBindRenderbuffer(GL_RENDERBUFFER, T.rb);
    gl.glDeleteRenderbuffers(1, &rb);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

typedef void (*t_genfn)(GLsizei, GLuint *);
typedef void (*t_bindtex)(GLenum, GLuint);
typedef void (*t_teximage2d)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                             const void *);

static void test_texture_calls_observed(void **state)
{
    (void)state;
    t_genfn gen = (t_genfn)eglGetProcAddress("glGenTextures");
    t_genfn del = (t_genfn)eglGetProcAddress("glDeleteTextures");
    t_bindtex bind = (t_bindtex)eglGetProcAddress("glBindTexture");
    t_teximage2d image = (t_teximage2d)eglGetProcAddress("glTexImage2D");
    PFNGLTEXSTORAGE2DPROC storage = (PFNGLTEXSTORAGE2DPROC)eglGetProcAddress("glTexStorage2D");
    assert_non_null(gen);
    assert_non_null(image);
    assert_non_null(storage);
    struct group_data *g = current_group();
    struct group_data before = *g;
    GLuint t[2];
    gen(2, t);
    bind(GL_TEXTURE_2D, t[0]);
    image(GL_TEXTURE_2D, 0, GL_RGBA8, 8, 4, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
    assert_int_equal(g->last.kind, PERFQ_GL_OBJECT_TEXTURE);
    assert_int_equal(g->last.level, 0);
    assert_int_equal(g->last.format, GL_RGBA);
    bind(GL_TEXTURE_2D, t[1]);
    storage(GL_TEXTURE_2D, 3, GL_RGBA8, 16, 16);
    assert_int_equal(g->last.levels, 3);
    assert_int_equal(g->texels, before.texels + 8 * 4 + 16 * 16);
    del(2, t);
    assert_int_equal(g->objects_created, before.objects_created + 2);
    assert_int_equal(g->objects_deleted, before.objects_deleted + 2);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

static void test_draws_clears_swaps_observed(void **state)
{
    (void)state;
    struct group_data *g = current_group();
    struct group_data before = *g;
    gl.glClear(GL_COLOR_BUFFER_BIT);
    glt_draw_triangles(&T, 2);
    assert_int_equal(g->clears, before.clears + 1);
    assert_true(g->draws > before.draws);
    /* No surface here (surfaceless): the driver refuses the swap with its own error, which the
     * program gets; the observer saw the swap requested. */
    assert_int_equal(eglSwapBuffers(dpy, EGL_NO_SURFACE), EGL_FALSE);
    assert_int_equal(g->swaps, before.swaps + 1);
    assert_int_equal(eglGetError(), EGL_BAD_SURFACE);
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

/* A swap observer's own EGL calls (the fence timer's sync, on llvmpipe) happen before the
 * driver's swap: the program's pending EGL error they take from the driver must not outlive the
 * swap, whose own outcome is what eglGetError returns (EGL 1.5 3.1). On a pbuffer the swap
 * succeeds ("no effect, and no error is generated"). */
static void test_swap_observer_keeps_egl_error_rule(void **state)
{
    (void)state;
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT,
                       EGL_NONE};
    EGLConfig config;
    EGLint n = 0;
    assert_true(eglChooseConfig(dpy, cattrs, &config, 1, &n));
    assert_int_equal(n, 1);
    EGLint pattrs[] = {EGL_WIDTH, 8, EGL_HEIGHT, 8, EGL_NONE};
    EGLSurface pb = eglCreatePbufferSurface(dpy, config, pattrs);
    assert_ptr_not_equal(pb, EGL_NO_SURFACE);
    assert_true(eglMakeCurrent(dpy, pb, pb, T.ctx));
    stamp_on_swap = 1;
    for (int round = 0; round < 2; round++) {
        /* A failed call leaves EGL_BAD_DISPLAY pending; the swap then succeeds. */
        assert_false(eglMakeCurrent((EGLDisplay)(uintptr_t)0x1234, pb, pb, T.ctx));
        assert_true(eglSwapBuffers(dpy, pb));
        assert_int_equal(eglGetError(), EGL_SUCCESS);
    }
    /* And the pending error is kept where a GL call of the program's stamps (the ANGLE one):
     * no EGL call between. */
    assert_false(eglMakeCurrent((EGLDisplay)(uintptr_t)0x1234, pb, pb, T.ctx));
    struct perfq_gl_timer *t = NULL;
    assert_int_equal(perfq_gl_timer_stamp(perfq_gl_current_context(), &t), PERFQ_OK);
    perfq_gl_timer_free(perfq_gl_current_context(), t);
    assert_int_equal(eglGetError(), EGL_BAD_DISPLAY);
    stamp_on_swap = 0;
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_true(eglDestroySurface(dpy, pb));
    assert_int_equal(glt_error(), GL_NO_ERROR);
}

static EGLContext create_shared(EGLContext share)
{
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    assert_non_null(strstr(ext, "EGL_KHR_no_config_context"));
    eglBindAPI(EGL_OPENGL_API);
    EGLint attrs[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
    EGLContext c = eglCreateContext(dpy, EGL_NO_CONFIG_KHR, share, attrs);
    assert_ptr_not_equal(c, EGL_NO_CONTEXT);
    return c;
}

static void test_share_groups(void **state)
{
    (void)state;
    struct perfq_gl_share_group *mine = perfq_gl_context_share_group(perfq_gl_current_context());
    assert_non_null(mine);
    int contexts = perfq_gl_share_group_contexts(mine);
    int created = n_groups, destroyed = groups_destroyed;

    /* Sharing with T: the same group, the same front-end data. */
    EGLContext shared = create_shared(T.ctx);
    assert_int_equal(perfq_gl_share_group_contexts(mine), contexts + 1);
    struct group_data *g = current_group();
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, shared));
    assert_ptr_equal(perfq_gl_context_share_group(perfq_gl_current_context()), mine);
    assert_ptr_equal(current_group(), g);
    assert_int_equal(n_groups, created);
    GLuint b = 0;
    int before = g->objects_created;
    gl.glGenBuffers(1, &b);
    assert_int_equal(g->objects_created, before + 1);
    gl.glDeleteBuffers(1, &b);

    /* Sharing nothing: a group of its own, created at its first make-current and destroyed
     * with it. */
    EGLContext alone = create_shared(EGL_NO_CONTEXT);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, alone));
    assert_int_equal(n_groups, created + 1);
    assert_ptr_not_equal(current_group(), g);
    assert_ptr_not_equal(perfq_gl_context_share_group(perfq_gl_current_context()), mine);

    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_true(eglDestroyContext(dpy, alone));
    assert_int_equal(groups_destroyed, destroyed + 1);
    assert_true(eglDestroyContext(dpy, shared));
    assert_int_equal(groups_destroyed, destroyed + 1);   /* T still holds the group */
    assert_int_equal(perfq_gl_share_group_contexts(mine), contexts);
}

static void test_display_extension_and_error(void **state)
{
    (void)state;
    assert_true(displays_created >= 1);
    assert_ptr_equal(perfq_gl_frontend_display_data(display_id, dpy), &displays_created);
    assert_ptr_equal(perfq_gl_frontend_data(display_id, perfq_gl_current_context()),
                     &displays_created);
    const char *ext = eglQueryString(dpy, EGL_EXTENSIONS);
    assert_non_null(ext);
    assert_non_null(strstr(ext, "EGL_PERFQ_test_display"));
    /* The driver's own names are all still there. */
    assert_non_null(strstr(ext, "EGL_KHR_no_config_context"));
    /* Client extensions (EGL_NO_DISPLAY) are the driver's alone. */
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    assert_true(!client || !strstr(client, "EGL_PERFQ_test_display"));

    fail_fn fail_call = (fail_fn)eglGetProcAddress("eglPerfqTestFail");
    assert_ptr_equal((void *)fail_call, (void *)test_fail);
    assert_int_equal(fail_call(dpy), EGL_FALSE);
    assert_int_equal(eglGetError(), EGL_BAD_PARAMETER);
    assert_int_equal(eglGetError(), EGL_SUCCESS);
    /* A wrapped EGL call after the front end's replaces its error (EGL 1.5 section 3.1). */
    assert_int_equal(fail_call(dpy), EGL_FALSE);
    assert_true(eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_int_equal(eglGetError(), EGL_SUCCESS);
}

/* eglTerminate ends the display's front-end data, eglInitialize starts it again. */
static void test_display_terminate_and_initialize(void **state)
{
    (void)state;
    int created = displays_created, destroyed = displays_destroyed;
    EGLDisplay other = glt_other_display(dpy);
    assert_ptr_not_equal(other, EGL_NO_DISPLAY);
    assert_true(eglInitialize(other, NULL, NULL));
    assert_int_equal(displays_created, created + 1);
    assert_non_null(perfq_gl_frontend_display_data(display_id, other));
    assert_true(eglTerminate(other));
    assert_int_equal(displays_destroyed, destroyed + 1);
    assert_null(perfq_gl_frontend_display_data(display_id, other));
}

int main(void)
{
    group_id = perfq_gl_register_frontend(&group_frontend);
    display_id = perfq_gl_register_frontend(&display_frontend);
    if (group_id < 0 || display_id < 0) {
        fprintf(stderr, "the test front ends could not be registered\n");
        return 1;
    }
    int setup = glt_open_display(&dpy);
    if (setup == 0)
        setup = glt_create(&T, dpy, GLT_COMPAT, 64, 64);
    if (setup != 0)
        return setup;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_calls_observed),
        cmocka_unit_test(test_texture_calls_observed),
        cmocka_unit_test(test_draws_clears_swaps_observed),
        cmocka_unit_test(test_swap_observer_keeps_egl_error_rule),
        cmocka_unit_test(test_share_groups),
        cmocka_unit_test(test_display_extension_and_error),
        cmocka_unit_test(test_display_terminate_and_initialize),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&T);
    return rc;
}
