/*
 * EGL_BRCM_performance_counters through libperfq-gl.so, on a headless EGL display (llvmpipe
 * here and in CI): the six entry points from eglGetProcAddress, the extension string, one test
 * per clause of the spec's Errors section, the size query, records never past dataBufferBytes
 * (a canary), exact Driver Counters for known calls (after a reset, while stopped, choosing while
 * counting), CPU Time against the process clock, and a real second process refused while the
 * counters are held.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gl_test.h"
#include "perfq/egl_brcm_performance_counters.h"

static struct glt T;
static char self_path[4096];

static struct glt_brcm brcm;

typedef void (*t_gentex)(GLsizei, GLuint *);
typedef void (*t_bindtex)(GLenum, GLuint);
typedef void (*t_deltex)(GLsizei, const GLuint *);

struct record {
    uint32_t group, counter;
    uint64_t value;
};

/* The index of a group by name, and of a counter in it. */
static EGLint group_named(const char *name)
{
    EGLint g = glt_brcm_group(&brcm, name);
    if (g < 0)
        fail_msg("no group '%s'", name);
    return g;
}

static EGLint counter_named(EGLint g, const char *name)
{
    EGLint c = glt_brcm_counter(&brcm, g, name);
    if (c < 0)
        fail_msg("no counter '%s'", name);
    return c;
}

static void expect_error(EGLint want)
{
    assert_int_equal(eglGetError(), want);
    assert_int_equal(eglGetError(), EGL_SUCCESS);   /* read once, then reset */
}

/* Runs this binary again as a second process that tries to acquire. Exit 0: refused with
 * EGL_BAD_ACCESS; 1: acquired; 2: anything else. */
static int second_process_acquire(void)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        execl(self_path, self_path, "--try-acquire", (char *)NULL);
        _exit(99);
    }
    int status;
    waitpid(pid, &status, 0);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

static int try_acquire_child(void)
{
    glt_brcm_load(&brcm);
    if (brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM))
        return brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM) ? 1 : 2;
    return eglGetError() == EGL_BAD_ACCESS ? 0 : 2;
}

static int setup_each(void **state)
{
    (void)state;
    glt_error();
    while (eglGetError() != EGL_SUCCESS)
        ;
    /* Every test starts without ownership. */
    if (brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM) == EGL_FALSE)
        eglGetError();
    return 0;
}

static void entry_points_and_extension_string(void **state)
{
    (void)state;
    assert_non_null(brcm.GetConstant);
    assert_non_null(brcm.GetGroupInfo);
    assert_non_null(brcm.GetCounterInfo);
    assert_non_null(brcm.SetCounting);
    assert_non_null(brcm.Choose);
    assert_non_null(brcm.GetData);
    /* Also exported by name from the layer. */
    assert_ptr_equal((void *)brcm.GetData, (void *)eglGetPerfCounterDataBRCM);
    const char *ext = eglQueryString(T.dpy, EGL_EXTENSIONS);
    assert_non_null(ext);
    assert_non_null(strstr(ext, "EGL_BRCM_performance_counters"));
    assert_ptr_equal(ext, eglQueryString(T.dpy, EGL_EXTENSIONS));   /* a stable string */
    /* A display extension: not in the client extensions. */
    const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    assert_true(!client || !strstr(client, "EGL_BRCM_performance_counters"));
    while (eglGetError() != EGL_SUCCESS)
        ;
}

static void constants_groups_and_counters(void **state)
{
    (void)state;
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM);
    expect_error(EGL_SUCCESS);
    assert_true(groups >= 3);
    assert_int_equal(brcm.GetConstant(EGL_MAX_COUNTER_STRING_LEN_BRCM), 64);
    assert_int_equal(brcm.GetConstant(0x1234), 0);
    expect_error(EGL_BAD_PARAMETER);
    for (EGLint g = 0; g < groups; g++) {
        char name[64];
        EGLint n = -1, max = -1;
        assert_true(brcm.GetGroupInfo(g, sizeof name, name, &n, &max));
        assert_true(strlen(name) > 0 && strlen(name) < 64);
        assert_true(n > 0 && max > 0 && max <= n);
        for (EGLint c = 0; c < n; c++) {
            EGLuint64BRCM lo = 7, hi = 7, den = 0;
            char cname[64], unit[64];
            assert_true(brcm.GetCounterInfo(g, c, &lo, &hi, &den, sizeof cname, cname,
                                            sizeof unit, unit));
            assert_true(den >= 1 && lo <= hi && hi > 0);
            assert_true(strlen(cname) > 0 && strlen(unit) > 0);
        }
    }
    EGLint host = group_named("Host CPU"), cpu = counter_named(host, "CPU Time");
    EGLuint64BRCM den = 0, lo = 1, hi = 0;
    char unit[64];
    assert_true(brcm.GetCounterInfo(host, cpu, &lo, &hi, &den, 0, NULL, sizeof unit, unit));
    assert_string_equal(unit, "ns");
    assert_int_equal(den, 1);
    assert_int_equal(lo, 0);
    assert_true(hi == UINT64_MAX);
    EGLint drv = group_named("Driver Counters"), n = 0, max = 0;
    assert_true(brcm.GetGroupInfo(drv, 0, NULL, &n, &max));
    assert_int_equal(n, 5);
    assert_int_equal(max, 5);
    counter_named(drv, "Draw Calls");
    counter_named(drv, "Clears");
    counter_named(drv, "Swaps");
    counter_named(drv, "Buffer Bytes Uploaded");
    counter_named(drv, "Texture Bytes Uploaded");
    /* Denominator erratum: a pointer, NULL skips it; NULL outputs are skipped. */
    assert_true(brcm.GetCounterInfo(drv, 0, NULL, NULL, NULL, 0, NULL, 0, NULL));
    expect_error(EGL_SUCCESS);
    /* Names are cut to nameStrSize, NUL included, and nothing past it is written. */
    char small[8];
    memset(small, 'Z', sizeof small);
    assert_true(brcm.GetGroupInfo(drv, 4, small, NULL, NULL));
    assert_string_equal(small, "Dri");
    assert_int_equal(small[4], 'Z');
    memset(small, 'Z', sizeof small);
    assert_true(brcm.GetCounterInfo(drv, 0, NULL, NULL, NULL, 3, small, 1, small + 4));
    assert_int_equal(small[2], '\0');
    assert_int_equal(small[3], 'Z');
    assert_int_equal(small[4], '\0');
    assert_int_equal(small[5], 'Z');
}

/* Errors section, clause by clause. */
static void err_group_info_invalid_group(void **state)
{
    (void)state;
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), n = 99;
    assert_false(brcm.GetGroupInfo(groups, 0, NULL, &n, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.GetGroupInfo(-1, 0, NULL, &n, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_int_equal(n, 99);
}

static void err_counter_info_invalid_group_or_counter(void **state)
{
    (void)state;
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), n = 0;
    EGLuint64BRCM den = 42;
    assert_false(brcm.GetCounterInfo(groups, 0, NULL, NULL, &den, 0, NULL, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.GetCounterInfo(-1, 0, NULL, NULL, &den, 0, NULL, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_true(brcm.GetGroupInfo(0, 0, NULL, &n, NULL));
    assert_false(brcm.GetCounterInfo(0, n, NULL, NULL, &den, 0, NULL, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.GetCounterInfo(0, -1, NULL, NULL, &den, 0, NULL, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_int_equal(den, 42);
}

static void err_choose_invalid_group_or_counter(void **state)
{
    (void)state;
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), n = 0;
    assert_false(brcm.Choose(EGL_TRUE, groups, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.Choose(EGL_TRUE, -1, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
    assert_true(brcm.GetGroupInfo(0, 0, NULL, &n, NULL));
    EGLint bad[] = {0, n};
    assert_false(brcm.Choose(EGL_TRUE, 0, 2, bad));
    expect_error(EGL_BAD_PARAMETER);
    EGLint neg[] = {-1};
    assert_false(brcm.Choose(EGL_FALSE, 0, 1, neg));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.Choose(EGL_TRUE, 0, -1, bad));
    expect_error(EGL_BAD_PARAMETER);
    /* Nothing was enabled by the refused calls. */
    EGLint bytes = -1;
    assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
    assert_int_equal(bytes, 0);
    /* Invalid parameters are reported before ownership. */
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    assert_false(brcm.Choose(EGL_TRUE, groups, 0, NULL));
    expect_error(EGL_BAD_PARAMETER);
}

static void err_choose_not_acquired(void **state)
{
    (void)state;
    assert_false(brcm.Choose(EGL_TRUE, 0, 0, NULL));
    expect_error(EGL_BAD_ACCESS);
    assert_false(brcm.Choose(EGL_FALSE, 0, 0, NULL));
    expect_error(EGL_BAD_ACCESS);
}

static void err_get_data_not_acquired(void **state)
{
    (void)state;
    EGLint bytes = 1234;
    struct record r[2];
    assert_false(brcm.GetData(sizeof r, r, &bytes, EGL_TRUE));
    expect_error(EGL_BAD_ACCESS);
    assert_false(brcm.GetData(0, NULL, &bytes, EGL_FALSE));   /* the size query too */
    expect_error(EGL_BAD_ACCESS);
    assert_int_equal(bytes, 1234);
}

static void err_acquire_held_by_another_client(void **state)
{
    (void)state;
    assert_int_equal(second_process_acquire(), 1);       /* free: the other process gets them */
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    expect_error(EGL_SUCCESS);
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM)); /* the owner again */
    assert_int_equal(second_process_acquire(), 0);       /* a real second process: refused */
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    assert_int_equal(second_process_acquire(), 1);       /* released at once */
}

static void err_release_not_acquired(void **state)
{
    (void)state;
    assert_false(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    expect_error(EGL_BAD_ACCESS);
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    assert_false(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
    expect_error(EGL_BAD_ACCESS);
}

static void err_set_counting_invalid_pname(void **state)
{
    (void)state;
    assert_false(brcm.SetCounting(EGL_NUM_COUNTER_GROUPS_BRCM));
    expect_error(EGL_BAD_PARAMETER);
    assert_false(brcm.SetCounting(0));
    expect_error(EGL_BAD_PARAMETER);
    /* Start and stop need ownership (Broadcom's shipping driver's semantics). */
    assert_false(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    expect_error(EGL_BAD_ACCESS);
    assert_false(brcm.SetCounting(EGL_STOP_COUNTERS_BRCM));
    expect_error(EGL_BAD_ACCESS);
}

/* A driver error after a layer error is the one reported; a layer success clears an earlier
 * driver error (it is then the thread's last EGL call). */
static void errors_share_the_egl_channel(void **state)
{
    (void)state;
    assert_false(brcm.SetCounting(0));
    assert_false(eglMakeCurrent(EGL_NO_DISPLAY, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_int_equal(eglGetError(), EGL_BAD_DISPLAY);
    assert_int_equal(eglGetError(), EGL_SUCCESS);
    assert_false(eglMakeCurrent(EGL_NO_DISPLAY, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    assert_int_equal(brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM) > 0, 1);
    assert_int_equal(eglGetError(), EGL_SUCCESS);
}

static void size_query_and_canary(void **state)
{
    (void)state;
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint drv = group_named("Driver Counters");
    assert_true(brcm.Choose(EGL_TRUE, drv, 0, NULL));   /* the whole group */
    EGLint bytes = 0;
    assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
    assert_int_equal(bytes, 5 * 16);
    unsigned char buf[5 * 16 + 32];
    bytes = 0;
    assert_true(brcm.GetData(0, buf, &bytes, EGL_TRUE));   /* dataBufferBytes 0: a size query */
    assert_int_equal(bytes, 80);
    bytes = 0;
    assert_true(brcm.GetData(64, NULL, &bytes, EGL_TRUE)); /* data NULL: a size query */
    assert_int_equal(bytes, 80);
    /* 40 bytes: two whole records, nothing at or after byte 32. */
    memset(buf, 0xAB, sizeof buf);
    assert_true(brcm.GetData(40, buf, &bytes, EGL_TRUE));
    assert_int_equal(bytes, 32);
    for (size_t i = 32; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0xAB);
    /* Exactly enough: five records in counter order, canary after them intact. */
    memset(buf, 0xCD, sizeof buf);
    assert_true(brcm.GetData(80, buf, &bytes, EGL_FALSE));
    assert_int_equal(bytes, 80);
    for (uint32_t i = 0; i < 5; i++) {
        struct record r;
        memcpy(&r, buf + i * 16, sizeof r);
        assert_int_equal(r.group, (uint32_t)drv);
        assert_int_equal(r.counter, i);
    }
    for (size_t i = 80; i < sizeof buf; i++)
        assert_int_equal(buf[i], 0xCD);
    /* Choosing past maxActiveCounters enables only up to it (here all five). */
    EGLint list[] = {4, 3, 2, 1, 0, 0};
    assert_true(brcm.Choose(EGL_TRUE, drv, 6, list));
    assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
    assert_int_equal(bytes, 80);
    EGLint two[] = {1, 3};
    assert_true(brcm.Choose(EGL_FALSE, drv, 2, two));
    assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
    assert_int_equal(bytes, 48);
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

/* Values of the Driver Counters records by counter index. */
static void read_driver(EGLint drv, uint64_t out[5], EGLBoolean reset)
{
    struct record r[16];
    EGLint bytes = 0;
    assert_true(brcm.GetData(sizeof r, r, &bytes, reset));
    memset(out, 0, 5 * sizeof out[0]);
    for (EGLint i = 0; i < bytes / 16; i++)
        if (r[i].group == (uint32_t)drv)
            out[r[i].counter] = r[i].value;
}

static void draws(int n)
{
    for (int i = 0; i < n; i++)
        gl.glDrawArrays(GL_TRIANGLES, 0, 3);
}

/* perfq's decision where the spec is silent (docs/egl-brcm-performance-counters.md): a
 * GetData with reset whose buffer holds fewer records than are enabled writes the whole records
 * that fit and resets nothing, so the counters left out keep their counts. */
static void short_buffer_resets_nothing(void **state)
{
    (void)state;
    EGLint drv = group_named("Driver Counters"), draw = counter_named(drv, "Draw Calls");
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    assert_true(brcm.Choose(EGL_TRUE, drv, 0, NULL));
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    draws(3);
    struct record one[1];
    EGLint bytes = 0;
    assert_true(brcm.GetData(sizeof one, one, &bytes, EGL_TRUE));   /* 1 of 5 records fits */
    assert_int_equal(bytes, 16);
    assert_int_equal(one[0].group, (uint32_t)drv);
    uint64_t v[5];
    read_driver(drv, v, EGL_TRUE);                             /* nothing was reset */
    assert_int_equal(v[draw], 3);
    draws(2);
    read_driver(drv, v, EGL_FALSE);                            /* the full read did reset */
    assert_int_equal(v[draw], 2);
    expect_error(EGL_SUCCESS);
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

/* "After acquisition of the counters, call eglChoosePerfCountersBRCM to enable the counters to
 * collect, then ... START": perfq's decision (docs/egl-brcm-performance-counters.md, Semantics):
 * a new owner starts with nothing chosen and counting stopped, and RELEASE stops counting and
 * forgets the choice, so the next owner (this process again, or another) starts the same way and
 * never reads what the last one counted. "Disabling a counter that is not enabled does
 * nothing." */
static void new_owner_starts_empty_and_stopped(void **state)
{
    (void)state;
    EGLint drv = group_named("Driver Counters"), draw = counter_named(drv, "Draw Calls");
    for (int owner = 0; owner < 2; owner++) {
        assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
        EGLint bytes = -1;
        assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
        assert_int_equal(bytes, 0);                         /* nothing chosen */
        EGLint one[] = {draw};
        assert_true(brcm.Choose(EGL_FALSE, drv, 1, one));   /* not enabled: nothing happens */
        assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
        assert_int_equal(bytes, 0);
        assert_true(brcm.Choose(EGL_TRUE, drv, 1, one));
        draws(4);                                           /* stopped: not counted */
        uint64_t v[5];
        read_driver(drv, v, EGL_FALSE);
        assert_int_equal(v[draw], 0);
        assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
        draws(6);
        read_driver(drv, v, EGL_FALSE);
        assert_int_equal(v[draw], 6);
        /* Released while counting, with 6 counted and unread. */
        assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
        draws(2);
    }
    expect_error(EGL_SUCCESS);
}

static void exact_driver_counts(void **state)
{
    (void)state;
    EGLint drv = group_named("Driver Counters");
    EGLint draw = counter_named(drv, "Draw Calls"), clears = counter_named(drv, "Clears"),
           bufb = counter_named(drv, "Buffer Bytes Uploaded"),
           texb = counter_named(drv, "Texture Bytes Uploaded");
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    assert_true(brcm.Choose(EGL_TRUE, drv, 0, NULL));
    draws(5);   /* not started: not counted */
    uint64_t v[5];
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 0);
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    draws(3);
    read_driver(drv, v, EGL_TRUE);   /* read and reset */
    assert_int_equal(v[draw], 3);
    draws(37);
    for (int i = 0; i < 4; i++)
        gl.glClear(GL_COLOR_BUFFER_BIT);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 37);
    assert_int_equal(v[clears], 4);
    /* Uploads: 1000 + 100 buffer bytes; a 16x8 RGBA8 texture, an 8x4 RGBA8 sub-image and a
     * 4x2 RGB float texture. */
    GLuint buf = 0, tex = 0;
    static unsigned char data[16 * 8 * 4 * 4];
    PFNGLBUFFERSUBDATAPROC bufsub = (PFNGLBUFFERSUBDATAPROC)eglGetProcAddress("glBufferSubData");
    t_gentex gentex = (t_gentex)eglGetProcAddress("glGenTextures");
    t_bindtex bindtex = (t_bindtex)eglGetProcAddress("glBindTexture");
    t_deltex deltex = (t_deltex)eglGetProcAddress("glDeleteTextures");
    void (*teximage)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint, GLenum, GLenum,
                     const void *) = (void (*)(GLenum, GLint, GLint, GLsizei, GLsizei, GLint,
                                               GLenum, GLenum, const void *))
        eglGetProcAddress("glTexImage2D");
    void (*texsub)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei, GLenum, GLenum,
                   const void *) = (void (*)(GLenum, GLint, GLint, GLint, GLsizei, GLsizei,
                                             GLenum, GLenum, const void *))
        eglGetProcAddress("glTexSubImage2D");
    assert_true(bufsub && gentex && bindtex && deltex && teximage && texsub);
    gl.glGenBuffers(1, &buf);
    gl.glBindBuffer(GL_ARRAY_BUFFER, buf);
    gl.glBufferData(GL_ARRAY_BUFFER, 1000, data, GL_STATIC_DRAW);
    bufsub(GL_ARRAY_BUFFER, 10, 100, data);
    gentex(1, &tex);
    bindtex(GL_TEXTURE_2D, tex);
    teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, data);
    texsub(GL_TEXTURE_2D, 0, 0, 0, 8, 4, GL_RGBA, GL_UNSIGNED_BYTE, data);
    GLuint tex2 = 0;
    gentex(1, &tex2);
    bindtex(GL_TEXTURE_2D, tex2);
    teximage(GL_TEXTURE_2D, 0, GL_RGB32F, 4, 2, 0, GL_RGB, GL_FLOAT, data);
    assert_int_equal(glt_error(), GL_NO_ERROR);
    read_driver(drv, v, EGL_TRUE);
    assert_int_equal(v[bufb], 1100);
    assert_int_equal(v[texb], 16 * 8 * 4 + 8 * 4 * 4 + 4 * 2 * 3 * 4);
    /* The same storage call again and again, which the layer answers itself after the first
     * (gl_layer.h, perfq_gl_object_repeatable): every one counted, read while the repeats are
     * still the context's record and after it went (another bind). */
    gl.glBindBuffer(GL_ARRAY_BUFFER, buf);
    for (int i = 0; i < 4; i++)
        gl.glBufferData(GL_ARRAY_BUFFER, 1000, data, GL_STATIC_DRAW);
    /* The same call with a usage GL refuses (INVALID_ENUM) is no repeat, and not counted. */
    gl.glBufferData(GL_ARRAY_BUFFER, 1000, data, GL_RGBA);
    assert_int_equal(glt_error(), GL_INVALID_ENUM);
    gl.glBufferData(GL_ARRAY_BUFFER, 1000, data, GL_STATIC_DRAW);
    gl.glBufferData(GL_ARRAY_BUFFER, 1000, data, GL_RGBA);
    assert_int_equal(glt_error(), GL_INVALID_ENUM);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[bufb], 5000);
    bindtex(GL_TEXTURE_2D, tex);
    for (int i = 0; i < 3; i++)
        teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, data);
    /* The same image with border 2, which GL refuses (INVALID_VALUE; compatibility contexts
     * accept 1), is no repeat. */
    teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 2, GL_RGBA, GL_UNSIGNED_BYTE, data);
    assert_int_equal(glt_error(), GL_INVALID_VALUE);
    read_driver(drv, v, EGL_TRUE);
    assert_int_equal(v[bufb], 5000);
    assert_int_equal(v[texb], 3 * 16 * 8 * 4);
    for (int i = 0; i < 2; i++)
        teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, data);
    read_driver(drv, v, EGL_TRUE);
    assert_int_equal(v[texb], 2 * 16 * 8 * 4);
    /* From a pixel unpack buffer: a repeat the driver refuses (the buffer is mapped) is not
     * counted. */
    {
        PFNGLMAPBUFFERRANGEPROC map =
            (PFNGLMAPBUFFERRANGEPROC)eglGetProcAddress("glMapBufferRange");
        PFNGLUNMAPBUFFERPROC unmap = (PFNGLUNMAPBUFFERPROC)eglGetProcAddress("glUnmapBuffer");
        assert_true(map && unmap);
        GLuint pbo = 0;
        gl.glGenBuffers(1, &pbo);
        gl.glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
        gl.glBufferData(GL_PIXEL_UNPACK_BUFFER, sizeof data, data, GL_STATIC_DRAW);
        for (int i = 0; i < 2; i++)
            teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_non_null(map(GL_PIXEL_UNPACK_BUFFER, 0, 16, GL_MAP_READ_BIT));
        teximage(GL_TEXTURE_2D, 0, GL_RGBA8, 16, 8, 0, GL_RGBA, GL_UNSIGNED_BYTE, NULL);
        assert_int_equal(glt_error(), GL_INVALID_OPERATION);
        assert_true(unmap(GL_PIXEL_UNPACK_BUFFER));
        gl.glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
        gl.glDeleteBuffers(1, &pbo);
        read_driver(drv, v, EGL_TRUE);
        assert_int_equal(v[bufb], sizeof data);
        assert_int_equal(v[texb], 2 * 16 * 8 * 4);
    }
    deltex(1, &tex);
    deltex(1, &tex2);
    gl.glDeleteBuffers(1, &buf);
    /* Stopped: the values are kept and nothing more is counted. */
    draws(11);
    assert_true(brcm.SetCounting(EGL_STOP_COUNTERS_BRCM));
    draws(50);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 11);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 11);
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));   /* resumes */
    draws(2);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 13);
    /* Choosing while counting resets, and the new set counts at once. */
    EGLint only_draws[] = {draw};
    EGLint others[] = {clears};
    assert_true(brcm.Choose(EGL_FALSE, drv, 1, others));
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 0);
    draws(6);
    assert_true(brcm.Choose(EGL_TRUE, drv, 1, only_draws));   /* already on: still a reset */
    draws(4);
    read_driver(drv, v, EGL_FALSE);
    assert_int_equal(v[draw], 4);
    /* Draws from another context of the process count too. */
    struct glt other;
    assert_int_equal(glt_create(&other, T.dpy, T.kind, 32, 32), 0);
    draws(9);
    glt_destroy(&other);
    assert_true(eglMakeCurrent(T.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    read_driver(drv, v, EGL_TRUE);
    assert_int_equal(v[draw], 13);
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

/* Swaps: a pbuffer surface's swap succeeds (and does nothing, as EGL says). */
static void swaps(void **state)
{
    (void)state;
    EGLint drv = group_named("Driver Counters"), sw = counter_named(drv, "Swaps");
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint list[] = {sw};
    assert_true(brcm.Choose(EGL_TRUE, drv, 1, list));
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    EGLint cattrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE,
                       T.kind == GLT_GLES3 ? EGL_OPENGL_ES3_BIT : EGL_OPENGL_BIT, EGL_NONE};
    EGLConfig config;
    EGLint nc = 0;
    assert_true(eglChooseConfig(T.dpy, cattrs, &config, 1, &nc) && nc == 1);
    EGLint pattrs[] = {EGL_WIDTH, 16, EGL_HEIGHT, 16, EGL_NONE};
    EGLSurface pb = eglCreatePbufferSurface(T.dpy, config, pattrs);
    assert_true(pb != EGL_NO_SURFACE);
    if (T.kind == GLT_GLES3)
        eglBindAPI(EGL_OPENGL_ES_API);
    else
        eglBindAPI(EGL_OPENGL_API);
    EGLint cx[] = {EGL_NONE};
    EGLContext ctx = eglCreateContext(T.dpy, config, EGL_NO_CONTEXT,
                                      T.kind == GLT_GLES3 ? (EGLint[]){EGL_CONTEXT_MAJOR_VERSION,
                                                                      3, EGL_NONE}
                                                          : cx);
    assert_true(ctx != EGL_NO_CONTEXT);
    assert_true(eglMakeCurrent(T.dpy, pb, pb, ctx));
    for (int i = 0; i < 3; i++)
        assert_true(eglSwapBuffers(T.dpy, pb));
    struct record r[4];
    EGLint bytes = 0;
    assert_true(brcm.GetData(sizeof r, r, &bytes, EGL_TRUE));
    assert_int_equal(bytes, 16);
    assert_int_equal(r[0].group, (uint32_t)drv);
    assert_int_equal(r[0].counter, (uint32_t)sw);
    assert_int_equal(r[0].value, 3);
    assert_true(eglMakeCurrent(T.dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, T.ctx));
    eglDestroyContext(T.dpy, ctx);
    eglDestroySurface(T.dpy, pb);
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

static uint64_t process_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;

/* CPU Time against the process clock read around the same work: within 10%. */
static void cpu_time_against_process_clock(void **state)
{
    (void)state;
    EGLint host = group_named("Host CPU");
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    assert_true(brcm.Choose(EGL_TRUE, host, 0, NULL));
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    for (int round = 0; round < 3; round++) {
        struct record r[2];
        EGLint bytes = 0;
        assert_true(brcm.GetData(sizeof r, r, &bytes, EGL_TRUE));
        uint64_t t0 = process_cpu_ns();
        while (process_cpu_ns() - t0 < 80000000u)
            for (int i = 0; i < 1000; i++)
                sink += (uint64_t)i * 2654435761u;
        assert_true(brcm.GetData(sizeof r, r, &bytes, EGL_TRUE));
        uint64_t want = process_cpu_ns() - t0;
        assert_int_equal(bytes, 16);
        print_message("CPU Time %.3f ms, process clock %.3f ms\n", (double)r[0].value / 1e6,
                      (double)want / 1e6);
        assert_true((double)r[0].value > 0.9 * (double)want &&
                    (double)r[0].value < 1.1 * (double)want);
    }
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

/* Every catalog group listed can really be chosen whole and read. */
static void every_group_counts(void **state)
{
    (void)state;
    assert_true(brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM));
    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), total = 0;
    for (EGLint g = 0; g < groups; g++) {
        EGLint max = 0;
        assert_true(brcm.GetGroupInfo(g, 0, NULL, NULL, &max));
        assert_true(brcm.Choose(EGL_TRUE, g, 0, NULL));
        total += max;
    }
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    draws(1);
    EGLint bytes = 0;
    assert_true(brcm.GetData(0, NULL, &bytes, EGL_FALSE));
    assert_int_equal(bytes, total * 16);
    struct record *r = calloc((size_t)total, sizeof *r);
    assert_true(brcm.GetData(bytes, r, &bytes, EGL_TRUE));
    assert_int_equal(bytes, total * 16);
    for (EGLint i = 1; i < total; i++)   /* stable order: (group, counter) ascending */
        assert_true(r[i].group > r[i - 1].group ||
                    (r[i].group == r[i - 1].group && r[i].counter > r[i - 1].counter));
    free(r);
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

int main(int argc, char **argv)
{
    char domain[64];
    if (argc == 2 && strcmp(argv[1], "--try-acquire") == 0)
        return try_acquire_child();
    snprintf(domain, sizeof domain, "test-egl-brcm-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);   /* apart from other perfq users of the machine */
    ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
    if (n <= 0)
        return 1;
    self_path[n] = '\0';
    int rc = glt_create_from_args(&T, argc, argv, 64, 64);
    if (rc)
        return rc;
    glt_brcm_load(&brcm);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(entry_points_and_extension_string, setup_each),
        cmocka_unit_test_setup(constants_groups_and_counters, setup_each),
        cmocka_unit_test_setup(err_group_info_invalid_group, setup_each),
        cmocka_unit_test_setup(err_counter_info_invalid_group_or_counter, setup_each),
        cmocka_unit_test_setup(err_choose_invalid_group_or_counter, setup_each),
        cmocka_unit_test_setup(err_choose_not_acquired, setup_each),
        cmocka_unit_test_setup(err_get_data_not_acquired, setup_each),
        cmocka_unit_test_setup(err_acquire_held_by_another_client, setup_each),
        cmocka_unit_test_setup(err_release_not_acquired, setup_each),
        cmocka_unit_test_setup(err_set_counting_invalid_pname, setup_each),
        cmocka_unit_test_setup(errors_share_the_egl_channel, setup_each),
        cmocka_unit_test_setup(size_query_and_canary, setup_each),
        cmocka_unit_test_setup(new_owner_starts_empty_and_stopped, setup_each),
        cmocka_unit_test_setup(exact_driver_counts, setup_each),
        cmocka_unit_test_setup(short_buffer_resets_nothing, setup_each),
        cmocka_unit_test_setup(swaps, setup_each),
        cmocka_unit_test_setup(cpu_time_against_process_clock, setup_each),
        cmocka_unit_test_setup(every_group_counts, setup_each),
    };
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&T);
    return rc;
}
