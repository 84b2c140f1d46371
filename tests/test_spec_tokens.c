/*
 * The "New Tokens" and "New Types" sections of the five specifications, against the headers
 * perfq ships (include/perfq: ANGLE, BRCM, codeplay) and the Khronos headers its layers compile
 * against (GL/glext.h: INTEL, NV_query_resource(_tag)). A value that differs from the text breaks
 * every program built with the other header, silently: each value is written here as the text
 * gives it (docs/conformance.md, rows N0, C0, B0, A0, I0).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>

#include "perfq/angle_timer_query.h"
#include "perfq/cl_codeplay_performance_counters.h"
#include "perfq/egl_brcm_performance_counters.h"

/* GL_ANGLE_timer_query, "New Tokens" and "Modify table 2.2" (int64ANGLE, uint64ANGLE: 64 bits,
 * signed and unsigned). */
static void test_angle(void **state)
{
    (void)state;
    assert_int_equal(GL_QUERY_COUNTER_BITS_ANGLE, 0x8864);
    assert_int_equal(GL_CURRENT_QUERY_ANGLE, 0x8865);
    assert_int_equal(GL_QUERY_RESULT_ANGLE, 0x8866);
    assert_int_equal(GL_QUERY_RESULT_AVAILABLE_ANGLE, 0x8867);
    assert_int_equal(GL_TIME_ELAPSED_ANGLE, 0x88BF);
    assert_int_equal(GL_TIMESTAMP_ANGLE, 0x8E28);
    assert_int_equal(sizeof(GLint64ANGLE), 8);
    assert_int_equal(sizeof(GLuint64ANGLE), 8);
    assert_true((GLint64ANGLE)-1 < 0);
    assert_true((GLuint64ANGLE)-1 > 0);
}

/* EGL_BRCM_performance_counters, "New Tokens" and "New Types" (EGLuint64BRCM: 64-bit unsigned). */
static void test_brcm(void **state)
{
    (void)state;
    assert_int_equal(EGL_ACQUIRE_COUNTERS_BRCM, 0x33C0);
    assert_int_equal(EGL_RELEASE_COUNTERS_BRCM, 0x33C1);
    assert_int_equal(EGL_START_COUNTERS_BRCM, 0x33C2);
    assert_int_equal(EGL_STOP_COUNTERS_BRCM, 0x33C3);
    assert_int_equal(EGL_NUM_COUNTER_GROUPS_BRCM, 0x33C4);
    assert_int_equal(EGL_MAX_COUNTER_STRING_LEN_BRCM, 0x33C5);
    assert_int_equal(sizeof(EGLuint64BRCM), 8);
    assert_true((EGLuint64BRCM)-1 > 0);
}

/* cl_codeplay_performance_counters, "New API Enums" and "New API Structures". */
static void test_codeplay(void **state)
{
    (void)state;
    assert_int_equal(CL_DEVICE_PERFORMANCE_COUNTERS_CODEPLAY, 0x4260);
    assert_int_equal(CL_QUEUE_PERFORMANCE_COUNTERS_CODEPLAY, 0x4261);
    assert_int_equal(CL_PROFILING_COMMAND_PERFORMANCE_COUNTERS_CODEPLAY, 0x4262);
    static const int units[] = {
        CL_PERFORMANCE_COUNTER_UNIT_GENERIC_CODEPLAY, CL_PERFORMANCE_COUNTER_UNIT_PERCENTAGE_CODEPLAY,
        CL_PERFORMANCE_COUNTER_UNIT_NANOSECONDS_CODEPLAY, CL_PERFORMANCE_COUNTER_UNIT_BYTES_CODEPLAY,
        CL_PERFORMANCE_COUNTER_UNIT_BYTES_PER_SECOND_CODEPLAY,
        CL_PERFORMANCE_COUNTER_UNIT_KELVIN_CODEPLAY, CL_PERFORMANCE_COUNTER_UNIT_WATTS_CODEPLAY,
        CL_PERFORMANCE_COUNTER_UNIT_VOLTS_CODEPLAY, CL_PERFORMANCE_COUNTER_UNIT_AMPS_CODEPLAY,
        CL_PERFORMANCE_COUNTER_UNIT_HERTZ_CODEPLAY, CL_PERFORMANCE_COUNTER_UNIT_CYCLES_CODEPLAY};
    for (int i = 0; i < (int)(sizeof units / sizeof units[0]); i++)
        assert_int_equal(units[i], i);      /* 0x0 .. 0xA in the text's order */
    static const int storages[] = {
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT32_CODEPLAY,
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_INT64_CODEPLAY,
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT32_CODEPLAY,
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_UINT64_CODEPLAY,
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT32_CODEPLAY,
        CL_PERFORMANCE_COUNTER_RESULT_TYPE_FLOAT64_CODEPLAY};
    for (int i = 0; i < (int)(sizeof storages / sizeof storages[0]); i++)
        assert_int_equal(storages[i], i);   /* 0x0 .. 0x5 */
    /* struct cl_performance_counter_codeplay { unit; storage; cl_uint uuid; char name[256];
     * char category[256]; char description[256]; } */
    cl_performance_counter_codeplay c;
    assert_int_equal(offsetof(cl_performance_counter_codeplay, unit), 0);
    assert_true(offsetof(cl_performance_counter_codeplay, storage) >
                offsetof(cl_performance_counter_codeplay, unit));
    assert_true(offsetof(cl_performance_counter_codeplay, uuid) >
                offsetof(cl_performance_counter_codeplay, storage));
    assert_int_equal(sizeof c.uuid, sizeof(cl_uint));
    assert_int_equal(sizeof c.name, 256);
    assert_int_equal(sizeof c.category, 256);
    assert_int_equal(sizeof c.description, 256);
    assert_true(offsetof(cl_performance_counter_codeplay, name) >
                offsetof(cl_performance_counter_codeplay, uuid));
    assert_int_equal(offsetof(cl_performance_counter_codeplay, category),
                     offsetof(cl_performance_counter_codeplay, name) + 256);
    assert_int_equal(offsetof(cl_performance_counter_codeplay, description),
                     offsetof(cl_performance_counter_codeplay, category) + 256);
    /* struct cl_performance_counter_desc_codeplay { cl_uint uuid; void *data; } */
    assert_int_equal(offsetof(cl_performance_counter_desc_codeplay, uuid), 0);
    assert_int_equal(sizeof(((cl_performance_counter_desc_codeplay *)0)->uuid), sizeof(cl_uint));
    assert_int_equal(sizeof(((cl_performance_counter_desc_codeplay *)0)->data), sizeof(void *));
    /* struct cl_performance_counter_config_codeplay { cl_uint count; desc *descs; } */
    assert_int_equal(offsetof(cl_performance_counter_config_codeplay, count), 0);
    assert_int_equal(sizeof(((cl_performance_counter_config_codeplay *)0)->count),
                     sizeof(cl_uint));
    /* The result: a union of int32, int64, uint32, uint64, float32, float64. */
    cl_performance_counter_result_codeplay r;
    assert_int_equal(sizeof r, 8);
    r.uint64 = 0;
    r.int32 = -1;
    assert_int_equal(r.uint32, 0xffffffffu);
    r.float64 = 2.0;
    assert_true(r.float64 == 2.0);
    assert_int_equal(sizeof r.int64, 8);
    assert_int_equal(sizeof r.float32, 4);
}

/* GL_INTEL_performance_query, "New Tokens" (from GL/glext.h, which the layer compiles with). */
static void test_intel(void **state)
{
    (void)state;
    assert_int_equal(GL_PERFQUERY_SINGLE_CONTEXT_INTEL, 0x0000);
    assert_int_equal(GL_PERFQUERY_GLOBAL_CONTEXT_INTEL, 0x0001);
    assert_int_equal(GL_PERFQUERY_WAIT_INTEL, 0x83FB);
    assert_int_equal(GL_PERFQUERY_FLUSH_INTEL, 0x83FA);
    assert_int_equal(GL_PERFQUERY_DONOT_FLUSH_INTEL, 0x83F9);
    assert_int_equal(GL_PERFQUERY_COUNTER_EVENT_INTEL, 0x94F0);
    assert_int_equal(GL_PERFQUERY_COUNTER_DURATION_NORM_INTEL, 0x94F1);
    assert_int_equal(GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL, 0x94F2);
    assert_int_equal(GL_PERFQUERY_COUNTER_THROUGHPUT_INTEL, 0x94F3);
    assert_int_equal(GL_PERFQUERY_COUNTER_RAW_INTEL, 0x94F4);
    assert_int_equal(GL_PERFQUERY_COUNTER_TIMESTAMP_INTEL, 0x94F5);
    assert_int_equal(GL_PERFQUERY_COUNTER_DATA_UINT32_INTEL, 0x94F8);
    assert_int_equal(GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL, 0x94F9);
    assert_int_equal(GL_PERFQUERY_COUNTER_DATA_FLOAT_INTEL, 0x94FA);
    assert_int_equal(GL_PERFQUERY_COUNTER_DATA_DOUBLE_INTEL, 0x94FB);
    assert_int_equal(GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL, 0x94FC);
    assert_int_equal(GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL, 0x94FD);
    assert_int_equal(GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL, 0x94FE);
    assert_int_equal(GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL, 0x94FF);
    assert_int_equal(GL_PERFQUERY_GPA_EXTENDED_COUNTERS_INTEL, 0x9500);
}

/* GL_NV_query_resource (the base extension's tokens, as the NVIDIA driver and glext.h give
 * them); the tag extension adds no token ("New Tokens" is empty). */
static void test_nv_query_resource(void **state)
{
    (void)state;
    assert_int_equal(GL_QUERY_RESOURCE_TYPE_VIDMEM_ALLOC_NV, 0x9540);
    assert_int_equal(GL_QUERY_RESOURCE_MEMTYPE_VIDMEM_NV, 0x9542);
    assert_int_equal(GL_QUERY_RESOURCE_SYS_RESERVED_NV, 0x9544);
    assert_int_equal(GL_QUERY_RESOURCE_TEXTURE_NV, 0x9545);
    assert_int_equal(GL_QUERY_RESOURCE_RENDERBUFFER_NV, 0x9546);
    assert_int_equal(GL_QUERY_RESOURCE_BUFFEROBJECT_NV, 0x9547);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_angle),         cmocka_unit_test(test_brcm),
        cmocka_unit_test(test_codeplay),      cmocka_unit_test(test_intel),
        cmocka_unit_test(test_nv_query_resource),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
