/*
 * NVIDIA device counters through the GL layer's two GL-side extensions: the INTEL query type
 * "NVIDIA Device" (GLOBAL_CONTEXT, NVML and GPM over each query's own interval) and the same
 * group through EGL_BRCM_performance_counters (units, min/max, denominators, records).
 *
 * --fake: against tests/nvidia/fake-nvml (put first on LD_LIBRARY_PATH by meson), whose readings
 * are constant and known: 100 W, SM 1000 MHz, memory 2619 MHz, utilisation 50 %, 40 C. Means of
 * constants are exact whatever the load, so every value is checked exactly. Runs everywhere
 * (llvmpipe here, the NVIDIA driver on the GPU machine).
 * Without --fake: the real libnvidia-ml, plausible values (power > 0, clocks > 0, energy > 0)
 * and "NVIDIA GPU Hardware" (CUPTI) around heavy shading. Where libnvidia-ml.so.1 is absent (CI,
 * the development machines) it checks instead that no NVIDIA type or group appears at all.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../gl_test.h"
#include "perfq/egl_brcm_performance_counters.h"
#include "../../test_util.h"

static struct glt T;
static int fake;

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/* A counter of a type by name: its offset and data type; -1 if absent. */
static int counter(GLuint qid, const char *name, GLuint *offset, GLuint *data_type,
                   GLuint *type)
{
    int i = glt_intel_counter_index(qid, name);
    if (i < 0)
        return -1;
    char n[256], d[1024];
    GLuint size;
    GLuint64 raw_max;
    gl.glGetPerfCounterInfoINTEL(qid, (GLuint)i + 1, sizeof(n), n, sizeof(d), d, offset,
                                   &size, type, data_type, &raw_max);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    return i;
}

static double read_double(GLuint qid, const char *name, const unsigned char *data)
{
    GLuint off, dt, type;
    assert_true(counter(qid, name, &off, &dt, &type) >= 0);
    assert_int_equal(dt, GL_PERFQUERY_COUNTER_DATA_DOUBLE_INTEL);
    double v;
    memcpy(&v, data + off, sizeof(v));
    return v;
}

static void test_intel_nvidia_device(void **state)
{
    (void)state;
    GLuint qid = glt_intel_query_id("NVIDIA Device");
    assert_int_not_equal(qid, 0);
    char name[256];
    GLuint data_size, counters, max_instances, caps;
    gl.glGetPerfQueryInfoINTEL(qid, sizeof(name), name, &data_size, &counters,
                                 &max_instances, &caps);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_string_equal(name, "NVIDIA Device");
    /* The spec's caps: device counters count the whole GPU, not the context. */
    assert_int_equal(caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
    GLuint off, dt, type;
    assert_true(counter(qid, "nvml-gpu0/energy", &off, &dt, &type) >= 0);
    assert_int_equal(type, GL_PERFQUERY_COUNTER_EVENT_INTEL);
    assert_true(counter(qid, "nvml-gpu0/clocks-changed", &off, &dt, &type) >= 0);
    assert_int_equal(dt, GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL);
    /* The groups went into the type, not into types of their own. */
    assert_int_equal(glt_intel_query_id("nvml-gpu0"), 0);
    assert_int_equal(glt_intel_query_id("gpm-gpu0"), 0);

    /* Two overlapping instances: each has the means of its own interval. */
    GLuint h1 = 0, h2 = 0;
    gl.glCreatePerfQueryINTEL(qid, &h1);
    gl.glCreatePerfQueryINTEL(qid, &h2);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    uint64_t t0 = glt_now_ns();
    gl.glBeginPerfQueryINTEL(h1);
    sleep_ms(150);
    gl.glBeginPerfQueryINTEL(h2);
    glt_draw_triangles(&T, 100);
    sleep_ms(150);
    gl.glEndPerfQueryINTEL(h1);
    uint64_t t1 = glt_now_ns();
    gl.glEndPerfQueryINTEL(h2);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    unsigned char d1[4096], d2[4096];
    assert_true(data_size <= sizeof(d1));
    assert_int_equal(glt_intel_result_wait(h1, d1, data_size), data_size);
    assert_int_equal(glt_intel_result_wait(h2, d2, data_size), data_size);
    double p1 = read_double(qid, "nvml-gpu0/average-power", d1);
    double e1 = read_double(qid, "nvml-gpu0/energy", d1);
    double sm1 = read_double(qid, "nvml-gpu0/sm-clock", d1);
    double seconds = (double)(t1 - t0) / 1e9;
    printf("NVIDIA Device: %.3f W, %.4f J over %.3f s (power x time %.4f J), SM %.0f MHz\n",
           p1, e1, seconds, p1 * seconds, sm1 / 1e6);
    if (fake) {
        assert_true(fabs(p1 - 100.0) < 1e-6);
        assert_true(fabs(read_double(qid, "nvml-gpu0/average-power", d2) - 100.0) < 1e-6);
        assert_true(fabs(sm1 - 1e9) < 1e-3);
        assert_true(fabs(read_double(qid, "nvml-gpu0/gpu-utilization", d1) - 50.0) < 1e-9);
        assert_true(fabs(read_double(qid, "nvml-gpu0/temperature", d2) - 313.15) < 1e-9);
        /* Energy over each instance's own interval: 100 W x its time. The counter is read
         * every 2 s and moves in 100 ms steps: at most half a step (5 J) per end. h1 lasted
         * at most t1 - t0; h2 is inside it and lasted at least its own 150 ms sleep. */
        double e2 = read_double(qid, "nvml-gpu0/energy", d2);
        assert_true(e1 <= 100.0 * seconds + 10.0 + 1e-6);
        assert_true(e1 >= 100.0 * 0.3 - 10.0);
        assert_true(e2 >= 100.0 * 0.15 - 10.0);
        assert_true(e2 <= e1 + 10.0);
    } else {
        assert_true(p1 > 0);
        assert_true(sm1 > 0);
        assert_true(e1 > 0);
    }
    gl.glDeletePerfQueryINTEL(h1);
    gl.glDeletePerfQueryINTEL(h2);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
}

static void test_egl_brcm_nvidia_group(void **state)
{
    (void)state;
    struct glt_brcm brcm;
    glt_brcm_load(&brcm);
    assert_non_null(brcm.GetConstant);
    assert_non_null(brcm.GetData);

    EGLint groups = brcm.GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM), group = -1, n = 0,
           max_active = 0;
    for (EGLint g = 0; g < groups; g++) {
        char name[64];
        assert_true(brcm.GetGroupInfo(g, sizeof(name), name, &n, &max_active));
        if (strcmp(name, "nvml-gpu0") == 0) {
            group = g;
            break;
        }
    }
    assert_true(group >= 0);
    EGLint power = -1, energy = -1, sm = -1;
    for (EGLint c = 0; c < n; c++) {
        char name[64], unit[64];
        EGLuint64BRCM min, max, denominator;
        assert_true(brcm.GetCounterInfo(group, c, &min, &max, &denominator, sizeof(name), name,
                                        sizeof(unit), unit));
        if (strcmp(name, "average-power") == 0) {
            power = c;
            assert_string_equal(unit, "W");
            assert_int_equal(denominator, 1000);   /* float values in thousandths */
        } else if (strcmp(name, "energy") == 0) {
            energy = c;
            assert_string_equal(unit, "J");
            assert_int_equal(denominator, 1000);
        } else if (strcmp(name, "gpu-utilization") == 0) {
            assert_string_equal(unit, "%");
            assert_int_equal(min, 0);
            assert_int_equal(max, 100);
        } else if (strcmp(name, "sm-clock") == 0) {
            sm = c;
            assert_string_equal(unit, "Hz");
        }
    }
    assert_true(power >= 0 && energy >= 0 && sm >= 0);

    /* The ownership domain is this process's own (main): nobody else can hold it, so a refusal
     * is the system's (EGL_BAD_ACCESS for a socket it would not make), named here. */
    if (!brcm.SetCounting(EGL_ACQUIRE_COUNTERS_BRCM)) {
        EGLint error = eglGetError();
        fail_msg("EGL_ACQUIRE_COUNTERS_BRCM refused (EGL error 0x%x) in the ownership domain "
                 "PERFQ_LOCK_NAME=%s, which no other process uses", (unsigned)error,
                 getenv("PERFQ_LOCK_NAME"));
    }
    EGLint list[3] = {power, energy, sm};
    assert_true(brcm.Choose(EGL_TRUE, group, 3, list));
    assert_true(brcm.SetCounting(EGL_START_COUNTERS_BRCM));
    uint64_t t0 = glt_now_ns();
    sleep_ms(300);
    assert_true(brcm.SetCounting(EGL_STOP_COUNTERS_BRCM));
    uint64_t t1 = glt_now_ns();
    unsigned char buf[16 * 3];
    EGLint written = 0;
    assert_true(brcm.GetData(sizeof(buf), buf, &written, EGL_TRUE));
    assert_int_equal(written, 16 * 3);
    double v[3] = {0};
    for (int i = 0; i < 3; i++) {
        uint32_t g, c;
        uint64_t value;
        memcpy(&g, buf + 16 * i, 4);
        memcpy(&c, buf + 16 * i + 4, 4);
        memcpy(&value, buf + 16 * i + 8, 8);
        assert_int_equal(g, (uint32_t)group);
        /* Records come in counter order, not in the order chosen. */
        int k = (EGLint)c == power ? 0 : (EGLint)c == energy ? 1 : 2;
        assert_true(k < 2 || (EGLint)c == sm);
        v[k] = (double)value / 1000.0;   /* the denominator */
    }
    double seconds = (double)(t1 - t0) / 1e9;
    printf("EGL_BRCM nvml-gpu0: %.3f W, %.3f J over %.3f s, SM %.0f MHz\n", v[0], v[1],
           seconds, v[2] / 1e6);
    if (fake) {
        assert_true(fabs(v[0] - 100.0) < 0.0015);
        assert_true(fabs(v[2] - 1e9) < 1);
        /* Counted from start to stop: 100 W x at most that time, with the sampler's period
         * (20 ms) and half a counter step (5 J) per end as slack. */
        assert_true(v[1] <= 100.0 * seconds + 10.0);
        assert_true(v[1] >= 100.0 * 0.3 - 14.0);
    } else {
        assert_true(v[0] > 0 && v[1] > 0 && v[2] > 0);
    }
    assert_true(brcm.SetCounting(EGL_RELEASE_COUNTERS_BRCM));
}

/* 1 if the CUDA driver library loads here. */
static int have_libcuda(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

/* "NVIDIA GPU Hardware" (CUPTI PM sampling, device-wide) around heavy fragment shading: the
 * SMs were busy. Where the type is absent (no CUDA driver or CUPTI, or no permission), the
 * catalog says why and the test names the missing piece, which its command must allow. */
static void test_intel_nvidia_hardware(void **state)
{
    (void)state;
    GLuint qid = glt_intel_query_id("NVIDIA GPU Hardware");
    if (!qid) {
        /* The catalog says why (perfq list shows the cupti group's reason). */
        fprintf(stderr, "no \"NVIDIA GPU Hardware\" query type\n");
        assert_true(test_may_lack(have_libcuda() ? "CUPTI PM sampling" : "libcuda.so.1"));
        return;
    }
    char name[256];
    GLuint data_size, counters, max_instances, caps;
    gl.glGetPerfQueryInfoINTEL(qid, sizeof(name), name, &data_size, &counters,
                                 &max_instances, &caps);
    assert_int_equal(caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
    GLuint h = 0;
    gl.glCreatePerfQueryINTEL(qid, &h);
    gl.glBeginPerfQueryINTEL(h);
    for (int i = 0; i < 20; i++)
        glt_draw_quads(&T, 1, 200);
    gl.glFinish();
    gl.glEndPerfQueryINTEL(h);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    unsigned char d[4096];
    assert_true(data_size <= sizeof(d));
    assert_int_equal(glt_intel_result_wait(h, d, data_size), data_size);
    uint64_t inst = glt_intel_counter_u64(qid, "cupti-gpu0/smsp__inst_executed.sum", d);
    uint64_t rd = glt_intel_counter_u64(qid, "cupti-gpu0/dram__bytes_read.sum", d);
    uint64_t wr = glt_intel_counter_u64(qid, "cupti-gpu0/dram__bytes_write.sum", d);
    double cycles = read_double(qid, "cupti-gpu0/sm__cycles_active.avg", d);
    printf("NVIDIA GPU Hardware: %llu warp instructions, %.0f active cycles per SM, DRAM read "
           "%llu B, write %llu B\n", (unsigned long long)inst, cycles,
           (unsigned long long)rd, (unsigned long long)wr);
    assert_true(inst > 0 && inst != UINT64_MAX);
    assert_true(rd != UINT64_MAX && wr != UINT64_MAX);
    assert_true(cycles > 0);
    gl.glDeletePerfQueryINTEL(h);
}

/* Every NVML device (the two-GPU machine: both): its own INTEL types "NVIDIA Device[ N]" and
 * "NVIDIA GPU Hardware[ N]" holding its own counters only, a query of each read, and its own
 * EGL_BRCM groups nvml-gpuN, gpm-gpuN, cupti-gpuN. The device count is NVML's, asked directly,
 * not the layer's. */
static void test_every_device(void **state)
{
    (void)state;
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    assert_non_null(h);
    int (*init)(void) = (int (*)(void))dlsym(h, "nvmlInit_v2");
    int (*count)(unsigned *) = (int (*)(unsigned *))dlsym(h, "nvmlDeviceGetCount_v2");
    int (*shutdown)(void) = (int (*)(void))dlsym(h, "nvmlShutdown");
    assert_true(init && count && shutdown);
    unsigned devices = 0;
    assert_int_equal(init(), 0);
    assert_int_equal(count(&devices), 0);
    shutdown();
    dlclose(h);
    assert_true(devices >= 1);
    if (devices > 8)
        devices = 8;   /* perfq lists 8 at most */
    printf("NVML devices: %u\n", devices);
    int hardware = glt_intel_query_id("NVIDIA GPU Hardware") != 0;
    struct glt_brcm brcm;
    glt_brcm_load(&brcm);
    for (unsigned n = 0; n < devices; n++) {
        char type[64], hw_type[64], name[96];
        if (n == 0) {
            snprintf(type, sizeof(type), "NVIDIA Device");
            snprintf(hw_type, sizeof(hw_type), "NVIDIA GPU Hardware");
        } else {
            snprintf(type, sizeof(type), "NVIDIA Device %u", n);
            snprintf(hw_type, sizeof(hw_type), "NVIDIA GPU Hardware %u", n);
        }
        GLuint qid = glt_intel_query_id(type);
        assert_int_not_equal(qid, 0);
        GLuint data_size, counters, max_instances, caps;
        char qname[256];
        gl.glGetPerfQueryInfoINTEL(qid, sizeof(qname), qname, &data_size, &counters,
                                     &max_instances, &caps);
        assert_int_equal(caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
        /* Its own device's counters, no other device's. */
        for (unsigned o = 0; o < devices; o++) {
            snprintf(name, sizeof(name), "nvml-gpu%u/energy", o);
            assert_true((glt_intel_counter_index(qid, name) >= 0) == (o == n));
        }
        snprintf(name, sizeof(name), "gpm-gpu%u/sm-activity", n);
        int gpm = glt_intel_counter_index(qid, name) >= 0;
        GLuint q = 0;
        gl.glCreatePerfQueryINTEL(qid, &q);
        gl.glBeginPerfQueryINTEL(q);
        sleep_ms(200);
        gl.glEndPerfQueryINTEL(q);
        assert_int_equal(gl.glGetError(), GL_NO_ERROR);
        unsigned char d[4096];
        assert_true(data_size <= sizeof(d));
        assert_int_equal(glt_intel_result_wait(q, d, data_size), data_size);
        gl.glDeletePerfQueryINTEL(q);
        snprintf(name, sizeof(name), "nvml-gpu%u/average-power", n);
        double power = read_double(qid, name, d);
        snprintf(name, sizeof(name), "nvml-gpu%u/energy", n);
        double energy = read_double(qid, name, d);
        snprintf(name, sizeof(name), "nvml-gpu%u/sm-clock", n);
        double sm = read_double(qid, name, d);
        assert_true(power > 0 && energy > 0 && sm > 0);

        GLuint hid = glt_intel_query_id(hw_type);
        GLuint hw_counters = 0;
        if (hardware) {   /* CUPTI usable on device 0: on every device */
            assert_int_not_equal(hid, 0);
            gl.glGetPerfQueryInfoINTEL(hid, sizeof(qname), qname, &data_size, &hw_counters,
                                         &max_instances, &caps);
            for (unsigned o = 0; o < devices; o++) {
                snprintf(name, sizeof(name), "cupti-gpu%u/dram__bytes_read.sum", o);
                assert_true((glt_intel_counter_index(hid, name) >= 0) == (o == n));
            }
            q = 0;
            gl.glCreatePerfQueryINTEL(hid, &q);
            gl.glBeginPerfQueryINTEL(q);
            sleep_ms(20);
            gl.glEndPerfQueryINTEL(q);
            assert_true(data_size <= sizeof(d));
            assert_int_equal(glt_intel_result_wait(q, d, data_size), data_size);
            gl.glDeletePerfQueryINTEL(q);
            snprintf(name, sizeof(name), "cupti-gpu%u/dram__bytes_read.sum", n);
            assert_true(glt_intel_counter_u64(hid, name, d) != UINT64_MAX);
        }
        /* EGL_BRCM: the device's own groups. */
        char groups[512] = "";
        const char *providers[] = {"nvml", "gpm", "cupti"};
        for (int p = 0; p < 3; p++) {
            snprintf(name, sizeof(name), "%s-gpu%u", providers[p], n);
            EGLint g = glt_brcm_group(&brcm, name);
            if (p == 0 || (p == 1 && gpm) || (p == 2 && hardware))
                assert_true(g >= 0);
            if (g >= 0)
                snprintf(groups + strlen(groups), sizeof(groups) - strlen(groups), " %s", name);
        }
        printf("device %u: INTEL \"%s\" (%u counters%s), \"%s\" (%u counters); EGL_BRCM "
               "groups%s; 200 ms query: %.1f W, %.2f J, SM %.0f MHz\n", n, type, counters,
               gpm ? ", GPM among them" : "", hardware ? hw_type : "(no CUPTI)", hw_counters,
               groups, power, energy, sm / 1e6);
    }
}

/* No driver: nothing NVIDIA is listed, in INTEL types or EGL groups (the catalog lists the
 * groups "nvml", "gpm", "cupti" unavailable; the layers show only available ones). */
static void test_no_driver(void **state)
{
    (void)state;
    const char *types[] = {"NVIDIA Device", "NVIDIA GPU Hardware", "nvml", "gpm", "cupti",
                           "nvml-gpu0", "gpm-gpu0", "cupti-gpu0"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
        assert_int_equal(glt_intel_query_id(types[i]), 0);
    PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC GetConstant =
        (PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC)eglGetProcAddress("eglGetPerfCounterConstantBRCM");
    PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC GetGroupInfo =
        (PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC)eglGetProcAddress("eglGetPerfCounterGroupInfoBRCM");
    assert_non_null(GetConstant);
    EGLint groups = GetConstant(EGL_NUM_COUNTER_GROUPS_BRCM);
    assert_true(groups > 0);   /* Host CPU, Driver Counters... are there */
    for (EGLint g = 0; g < groups; g++) {
        char name[64];
        EGLint n, max_active;
        assert_true(GetGroupInfo(g, sizeof(name), name, &n, &max_active));
        assert_null(strstr(name, "nvml"));
        assert_null(strstr(name, "gpm"));
        assert_null(strstr(name, "cupti"));
    }
}

int main(int argc, char **argv)
{
    fake = argc > 1 && strcmp(argv[1], "--fake") == 0;
    /* EGL_BRCM's ownership is machine-wide: an ownership domain of this process's own keeps
     * another perfq user of the machine (another test, another build's run of this one) from
     * refusing the acquire, as every other test that acquires does. */
    char domain[64];
    snprintf(domain, sizeof domain, "test-intel-nvidia-%d", (int)getpid());
    setenv("PERFQ_LOCK_NAME", domain, 1);
    EGLDisplay dpy;
    int rc = glt_open_display(&dpy);
    if (rc == 0)
        rc = glt_create(&T, dpy, GLT_CORE, 64, 64);
    if (rc != 0)
        return rc;   /* GLT_SKIP with the missing piece named, or a failure */
    void *nvml = fake ? NULL : dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!fake && !nvml) {
        printf("libnvidia-ml.so.1 (the NVIDIA driver) is not on this machine: checking that no "
               "NVIDIA query type or EGL group appears\n");
        const struct CMUnitTest absent[] = {cmocka_unit_test(test_no_driver)};
        rc = cmocka_run_group_tests(absent, NULL, NULL);
        glt_destroy(&T);
        return rc;
    }
    if (nvml)
        dlclose(nvml);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_intel_nvidia_device),
        cmocka_unit_test(test_egl_brcm_nvidia_group),
        cmocka_unit_test(test_intel_nvidia_hardware),
        cmocka_unit_test(test_every_device),
    };
    rc = cmocka_run_group_tests(tests, NULL, NULL);
    glt_destroy(&T);
    return rc;
}
