/*
 * GL_ANGLE_timer_query driven by call sequences with arbitrary arguments on llvmpipe: names
 * generated or arbitrary, any targets and pnames, begin/end/counter/get/delete in any order.
 * Checked against the spec's Errors section where the error is determined: Gen/Delete n < 0
 * INVALID_VALUE; Begin with id 0 INVALID_OPERATION; Begin while one is active and End while none
 * is INVALID_OPERATION; a target or pname outside the lists: an error (INVALID_ENUM, or the
 * other the spec also names); GetQueryObject* of a name never generated nor used (Begin on an
 * unused name marks it used: spec): INVALID_OPERATION; IsQuery of such a name: FALSE.
 * Results are written to one element only (canary).
 */
#include "fuzz_gl.h"
#include "fuzz_input.h"

/* Every name an input can make known: 64 calls, each a Gen of at most 8 or one Begin or
 * QueryCounter on an unused name. With 32 (before 2026-11-27) a full list dropped names that
 * did exist, and IsQuery of one, TRUE, failed the check (CI, clang ASan: IsQuery(817245109)). */
#define NAMES (64 * 8 + 64)
static GLuint names[NAMES];
static int n_names;
static GLuint active;
/* Names begun or counted on: an implementation may create the object on first use (GL's
 * compatibility profile does); deleted at the end of every input too, so that none outlives it. */
static GLuint touched[128];
static int n_touched;

static void touch(GLuint id)
{
    if (id && n_touched < 128)
        touched[n_touched++] = id;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_gl_init();
    if (!gl.glGenQueriesANGLE)
        abort();
    return 0;
}

static int generated(GLuint id)
{
    return fuzz_gl_name_in(names, n_names, id);
}

/* A name the spec lets Begin (and perfq's QueryCounter) take unused marks it used. */
static void known(GLuint id)
{
    if (id && !generated(id) && n_names < NAMES)
        names[n_names++] = id;
}

static GLuint pick_name(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    if (n_names && sel < 200)
        return names[sel % n_names];
    return sel < 230 ? sel % 4 : fz_u32(f);
}

static GLenum pick_enum(struct fz *f, const GLenum *good, int n)
{
    uint8_t sel = fz_u8(f);
    if (sel < 220)
        return good[sel % n];
    return sel < 240 ? GL_TIME_ELAPSED_ANGLE + (sel % 8) - 4 : fz_u32(f);
}

static void op(struct fz *f)
{
    static const GLenum elapsed[] = {GL_TIME_ELAPSED_ANGLE};
    static const GLenum stamp[] = {GL_TIMESTAMP_ANGLE};
    static const GLenum targets[] = {GL_TIME_ELAPSED_ANGLE, GL_TIMESTAMP_ANGLE};
    static const GLenum iv_pnames[] = {GL_QUERY_COUNTER_BITS_ANGLE, GL_CURRENT_QUERY_ANGLE};
    static const GLenum obj_pnames[] = {GL_QUERY_RESULT_ANGLE, GL_QUERY_RESULT_AVAILABLE_ANGLE};
    uint8_t o = fz_u8(f) % 10;
    GLenum e;
    switch (o) {
    case 0: {
        GLsizei n = fz_size(f, 8);
        GLuint out[8 + 4];
        if (n > 8)
            n = 8;
        memset(out, FUZZ_CANARY, sizeof out);
        gl.glGenQueriesANGLE(n, out);
        e = fuzz_gl_error();
        FUZZ_CHECK(n >= 0 ? e == GL_NO_ERROR : e == GL_INVALID_VALUE, "Gen(%d): 0x%x", n, e);
        FUZZ_CHECK(fz_canary_intact(out, (size_t)(n > 0 ? n : 0) * sizeof out[0], sizeof out),
                   "Gen wrote past %d names", n);
        for (GLsizei i = 0; i < n && n_names < NAMES; i++) {
            FUZZ_CHECK(out[i] != 0 && !generated(out[i]), "Gen gave %u", out[i]);
            names[n_names++] = out[i];
        }
        break;
    }
    case 1: {
        GLsizei n = fz_size(f, 4);
        GLuint del[4];
        if (n > 4)
            n = 4;
        for (int i = 0; i < 4; i++)
            del[i] = pick_name(f);
        gl.glDeleteQueriesANGLE(n, del);
        e = fuzz_gl_error();
        if (n < 0)
            FUZZ_CHECK(e == GL_INVALID_VALUE, "Delete(%d): 0x%x", n, e);
        else
            FUZZ_CHECK(e == GL_NO_ERROR, "Delete: 0x%x", e);
        for (GLsizei i = 0; i < n; i++)
            if (del[i] && del[i] == active)
                active = 0;   /* deleting the active query ends it */
        break;
    }
    case 2: {
        GLenum t = pick_enum(f, elapsed, 1);
        GLuint id = pick_name(f);
        gl.glBeginQueryANGLE(t, id);
        touch(id);
        e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "Begin: 0x%x", e);
        if (t != GL_TIME_ELAPSED_ANGLE)
            FUZZ_CHECK(e != GL_NO_ERROR, "Begin(0x%x): no error", t);
        else if (id == 0 || active)
            FUZZ_CHECK(e == GL_INVALID_OPERATION, "Begin(%u) active %u: 0x%x", id, active, e);
        if (e == GL_NO_ERROR) {
            active = id;
            known(id);
        }
        break;
    }
    case 3: {
        GLenum t = pick_enum(f, elapsed, 1);
        gl.glEndQueryANGLE(t);
        e = fuzz_gl_error();
        if (t != GL_TIME_ELAPSED_ANGLE)
            FUZZ_CHECK(e != GL_NO_ERROR, "End(0x%x): no error", t);
        else if (!active)
            FUZZ_CHECK(e == GL_INVALID_OPERATION, "End with none active: 0x%x", e);
        else
            FUZZ_CHECK(e == GL_NO_ERROR, "End: 0x%x", e);
        if (e == GL_NO_ERROR)
            active = 0;
        break;
    }
    case 4: {
        GLenum t = pick_enum(f, stamp, 1);
        GLuint id = pick_name(f);
        gl.glQueryCounterANGLE(id, t);
        touch(id);
        e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "QueryCounter: 0x%x", e);
        if (t != GL_TIMESTAMP_ANGLE)
            FUZZ_CHECK(e != GL_NO_ERROR, "QueryCounter(0x%x): no error", t);
        else if (id && id == active)
            FUZZ_CHECK(e == GL_INVALID_OPERATION, "QueryCounter on the active query: 0x%x", e);
        if (e == GL_NO_ERROR)
            known(id);
        break;
    }
    case 5: {
        GLenum t = pick_enum(f, targets, 2), p = pick_enum(f, iv_pnames, 2);
        GLint v[4];
        memset(v, FUZZ_CANARY, sizeof v);
        gl.glGetQueryivANGLE(t, p, v);
        e = fuzz_gl_error();
        int bad = (t != GL_TIME_ELAPSED_ANGLE && t != GL_TIMESTAMP_ANGLE) ||
                  (p != GL_QUERY_COUNTER_BITS_ANGLE && p != GL_CURRENT_QUERY_ANGLE) ||
                  /* decided as ANGLE's validator does (tests/gl/test_angle_timer_query.c) */
                  (t == GL_TIMESTAMP_ANGLE && p == GL_CURRENT_QUERY_ANGLE);
        FUZZ_CHECK(bad ? e == GL_INVALID_ENUM : e == GL_NO_ERROR, "GetQueryiv: 0x%x", e);
        FUZZ_CHECK(fz_canary_intact(v, sizeof v[0], sizeof v), "GetQueryiv wrote 2+ values");
        break;
    }
    case 6: case 7: {
        GLuint id = pick_name(f);
        GLenum p = pick_enum(f, obj_pnames, 2);
        GLuint64 v[4];
        memset(v, FUZZ_CANARY, sizeof v);
        switch (fz_u8(f) % 4) {
        case 0: gl.glGetQueryObjectivANGLE(id, p, (GLint *)v); break;
        case 1: gl.glGetQueryObjectuivANGLE(id, p, (GLuint *)v); break;
        case 2: gl.glGetQueryObjecti64vANGLE(id, p, (GLint64 *)v); break;
        default: gl.glGetQueryObjectui64vANGLE(id, p, v); break;
        }
        e = fuzz_gl_error();
        FUZZ_CHECK(fuzz_gl_error_legal(e), "GetQueryObject: 0x%x", e);
        int pname_ok = p == GL_QUERY_RESULT_ANGLE || p == GL_QUERY_RESULT_AVAILABLE_ANGLE;
        if (!pname_ok)
            FUZZ_CHECK(e != GL_NO_ERROR, "GetQueryObject(pname 0x%x): no error", p);
        else if (!generated(id) || (id && id == active))
            FUZZ_CHECK(e == GL_INVALID_OPERATION, "GetQueryObject(%u): 0x%x", id, e);
        FUZZ_CHECK(fz_canary_intact(v, sizeof v[0], sizeof v), "GetQueryObject wrote 2+");
        break;
    }
    case 8: {
        GLuint id = pick_name(f);
        GLboolean r = gl.glIsQueryANGLE(id);
        e = fuzz_gl_error();
        FUZZ_CHECK(e == GL_NO_ERROR, "IsQuery: 0x%x", e);
        if (!generated(id))
            FUZZ_CHECK(r == GL_FALSE, "IsQuery(%u) of a name never generated", id);
        break;
    }
    default:
        glt_draw_triangles(&fuzz_T, 1 + fz_u8(f) % 4);
        FUZZ_CHECK(fuzz_gl_error() == GL_NO_ERROR, "draw");
        break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    for (int calls = 0; fz_more(&f) && calls < 64; calls++)
        op(&f);
    if (active)
        gl.glEndQueryANGLE(GL_TIME_ELAPSED_ANGLE);
    active = 0;
    if (n_names)
        gl.glDeleteQueriesANGLE(n_names, names);
    n_names = 0;
    if (n_touched)
        gl.glDeleteQueriesANGLE(n_touched, touched);
    n_touched = 0;
    fuzz_gl_error();
    gl.glFinish();
    return 0;
}
