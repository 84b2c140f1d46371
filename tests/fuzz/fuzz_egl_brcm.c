/*
 * EGL_BRCM_performance_counters driven by call sequences with arbitrary arguments (the six
 * entry points from eglGetProcAddress, llvmpipe's display current, a private ownership domain).
 * Checked against the spec's Errors section: an invalid group or counter index is
 * EGL_BAD_PARAMETER (GetPerfCounterGroupInfo, GetPerfCounterInfo, and Choose while the counters
 * are acquired); Choose and GetData while not acquired are EGL_BAD_ACCESS; Release while not
 * acquired EGL_BAD_ACCESS; an invalid pname EGL_BAD_PARAMETER. Strings and data are never
 * written past the sizes given (canaries); bytesWritten never exceeds dataBufferBytes.
 */
#include <unistd.h>

#include "fuzz_gl.h"
#include "fuzz_input.h"
#include "perfq/egl_brcm_performance_counters.h"

static struct glt_brcm brcm;
static EGLint groups;
static int acquired;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    char domain[64];
    snprintf(domain, sizeof domain, "fuzz-egl-brcm-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);   /* apart from other perfq users of the machine */
    fuzz_gl_init();
    glt_brcm_load(&brcm);
    if (!brcm.GetConstant || !brcm.GetData)
        abort();
    groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM);
    return 0;
}

static EGLint counters_in(EGLint g)
{
    EGLint n = 0, max = 0;
    if (g < 0 || g >= groups || !brcm.GetGroupInfo(g, 0, NULL, &n, &max))
        return -1;
    return n;
}

static EGLint pick_group(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    return sel < 220 ? (EGLint)(sel % (groups + 2)) - 1 : (EGLint)fz_u32(f);
}

static EGLint pick_counter(struct fz *f)
{
    uint8_t sel = fz_u8(f);
    return sel < 220 ? (EGLint)(sel % 40) - 1 : (EGLint)fz_u32(f);
}

static void op(struct fz *f)
{
    EGLint e;
    switch (fz_u8(f) % 8) {
    case 0: {
        EGLenum p = fz_u8(f) < 200 ? EGL_NUM_COUNTER_GROUPS_BRCM + fz_u8(f) % 3 : fz_u32(f);
        EGLint v = brcm.GetConstant(p);
        e = eglGetError();
        if (p == EGL_NUM_COUNTER_GROUPS_BRCM || p == EGL_MAX_COUNTER_STRING_LEN_BRCM)
            FUZZ_CHECK(e == EGL_SUCCESS && v > 0, "constant 0x%x: %d, 0x%x", p, v, e);
        else
            FUZZ_CHECK(e == EGL_BAD_PARAMETER, "constant 0x%x: 0x%x", p, e);
        break;
    }
    case 1: {
        EGLint g = pick_group(f), size = fz_size(f, 80);
        char name[100];
        EGLint n = -7, max = -7;
        memset(name, FUZZ_CANARY, sizeof name);
        EGLint safe = size < 0 ? 0 : size > 80 ? 80 : size;
        EGLBoolean ok = brcm.GetGroupInfo(g, safe, fz_u8(f) & 1 ? name : NULL, &n, &max);
        e = eglGetError();
        int valid = g >= 0 && g < groups;
        FUZZ_CHECK(valid ? ok && e == EGL_SUCCESS : !ok && e == EGL_BAD_PARAMETER,
                   "group info %d: %d, 0x%x", g, ok, e);
        FUZZ_CHECK(fz_canary_intact(name, (size_t)safe, sizeof name), "name past %d", safe);
        if (valid && safe > 0 && name[0] != (char)FUZZ_CANARY)
            FUZZ_CHECK(memchr(name, 0, (size_t)safe) != NULL, "name not terminated");
        break;
    }
    case 2: {
        EGLint g = pick_group(f), c = pick_counter(f);
        EGLint ns = fz_u8(f) % 80, us = fz_u8(f) % 80;
        char name[100], unit[100];
        EGLuint64BRCM lo, hi, den;
        memset(name, FUZZ_CANARY, sizeof name);
        memset(unit, FUZZ_CANARY, sizeof unit);
        EGLBoolean ok = brcm.GetCounterInfo(g, c, &lo, &hi, &den, ns, name, us, unit);
        e = eglGetError();
        EGLint n = counters_in(g);
        int valid = n > 0 && c >= 0 && c < n;
        FUZZ_CHECK(valid ? ok && e == EGL_SUCCESS : !ok && e == EGL_BAD_PARAMETER,
                   "counter info %d/%d: %d, 0x%x", g, c, ok, e);
        FUZZ_CHECK(fz_canary_intact(name, (size_t)ns, sizeof name) &&
                       fz_canary_intact(unit, (size_t)us, sizeof unit), "strings past sizes");
        if (valid)
            FUZZ_CHECK(den >= 1 && lo <= hi, "counter %d/%d: min %llu max %llu den %llu", g, c,
                       (unsigned long long)lo, (unsigned long long)hi,
                       (unsigned long long)den);
        break;
    }
    case 3: {
        static const EGLenum pnames[] = {EGL_ACQUIRE_COUNTERS_BRCM, EGL_RELEASE_COUNTERS_BRCM,
                                         EGL_START_COUNTERS_BRCM, EGL_STOP_COUNTERS_BRCM};
        uint8_t sel = fz_u8(f);
        EGLenum p = sel < 230 ? pnames[sel % 4] : fz_u32(f);
        EGLBoolean ok = brcm.SetCounting(p);
        e = eglGetError();
        if (p == EGL_ACQUIRE_COUNTERS_BRCM) {
            FUZZ_CHECK(ok && e == EGL_SUCCESS, "acquire in a private domain: 0x%x", e);
            acquired = 1;
        } else if (p == EGL_RELEASE_COUNTERS_BRCM || p == EGL_START_COUNTERS_BRCM ||
                   p == EGL_STOP_COUNTERS_BRCM) {
            FUZZ_CHECK(acquired ? ok && e == EGL_SUCCESS : !ok && e == EGL_BAD_ACCESS,
                       "set 0x%x (acquired %d): %d, 0x%x", p, acquired, ok, e);
            if (p == EGL_RELEASE_COUNTERS_BRCM && ok)
                acquired = 0;
        } else {
            FUZZ_CHECK(!ok && e == EGL_BAD_PARAMETER, "pname 0x%x: 0x%x", p, e);
        }
        break;
    }
    case 4: {
        EGLint g = pick_group(f), n = fz_size(f, 16);
        EGLint list[16];
        EGLint safe = n > 16 ? 16 : n;
        for (int i = 0; i < 16; i++)
            list[i] = pick_counter(f);
        EGLBoolean ok = brcm.Choose(fz_u8(f) & 1, g, safe, safe > 0 ? list : NULL);
        e = eglGetError();
        FUZZ_CHECK(ok ? e == EGL_SUCCESS : e != EGL_SUCCESS, "choose: %d, 0x%x", ok, e);
        /* An invalid group or a negative count is checked before ownership (docs). */
        if (counters_in(g) < 0 || safe < 0)
            FUZZ_CHECK(!ok && e == EGL_BAD_PARAMETER, "choose in group %d, n %d: 0x%x", g,
                       safe, e);
        else if (!acquired)
            FUZZ_CHECK(!ok && (e == EGL_BAD_ACCESS || e == EGL_BAD_PARAMETER),
                       "choose while not acquired: 0x%x", e);
        break;
    }
    default: {
        static unsigned char data[4096 + 64];
        EGLint size = fz_size(f, 4096);
        EGLint safe = size > 4096 ? 4096 : size;
        EGLint written = -7;
        int with_data = fz_u8(f) < 220;
        memset(data, FUZZ_CANARY, sizeof data);
        EGLBoolean ok = brcm.GetData(safe, with_data ? data : NULL, &written, fz_u8(f) & 1);
        e = eglGetError();
        FUZZ_CHECK(ok ? e == EGL_SUCCESS : e != EGL_SUCCESS, "data: %d, 0x%x", ok, e);
        if (!acquired)
            FUZZ_CHECK(!ok && e == EGL_BAD_ACCESS, "data while not acquired: 0x%x", e);
        FUZZ_CHECK(fz_canary_intact(data, (size_t)(with_data && safe > 0 ? safe : 0),
                                    sizeof data), "data past %d", safe);
        if (ok && with_data && safe > 0)
            FUZZ_CHECK(written >= 0 && written <= safe && written % 16 == 0, "written %d of %d",
                       written, safe);
        else if (ok)   /* NULL data or dataBufferBytes <= 0: the size query (docs) */
            FUZZ_CHECK(written >= 0 && written % 16 == 0, "size query %d", written);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    for (int calls = 0; fz_more(&f) && calls < 64; calls++)
        op(&f);
    if (acquired)
        brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM);
    acquired = 0;
    eglGetError();
    return 0;
}
