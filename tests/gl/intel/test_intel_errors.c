/*
 * GL_INTEL_performance_query: one test per error clause of the spec and per extra rule of
 * Mesa's validator (labelled "not in spec"), the limits, the extension string, and NULL outputs.
 * Run on desktop GL and (with --gles) on GLES 3.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>

#include "../gl_test.h"

static struct glt T;

/* The next glGetError is `err`, and then nothing more is pending. */
static void expect_error(GLenum err)
{
    assert_int_equal(gl.glGetError(), err);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
}

static int clear_errors(void **state)
{
    (void)state;
    while (gl.glGetError() != GL_NO_ERROR)
        ;
    return 0;
}

static GLuint num_types(void)
{
    GLuint n = 0, id = 0;
    gl.glGetFirstPerfQueryIdINTEL(&id);
    while (id) {
        n++;
        gl.glGetNextPerfQueryIdINTEL(id, &id);
    }
    return n;
}

static GLuint host_cpu(void)
{
    GLuint id = glt_intel_query_id("Host CPU");
    assert_int_not_equal(id, 0);
    return id;
}

static GLuint new_query(void)
{
    GLuint h = 0;
    gl.glCreatePerfQueryINTEL(host_cpu(), &h);
    assert_int_not_equal(h, 0);
    expect_error(GL_NO_ERROR);
    return h;
}

/* ---- extension string and limits ---- */

static void test_extension_listed(void **state)
{
    (void)state;
    assert_true(glt_has_extension("GL_INTEL_performance_query"));
    expect_error(GL_NO_ERROR);
    if (T.kind != GLT_CORE) {
        /* GLES and compatibility contexts also list it in the single string. */
        const char *all = (const char *)gl.glGetString(GL_EXTENSIONS);
        assert_non_null(all);
        assert_non_null(strstr(all, "GL_INTEL_performance_query"));
        expect_error(GL_NO_ERROR);
    }
}

/* Spec table: "PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL Z+ GetIntegerv 256" and the others. */
static void test_limits(void **state)
{
    (void)state;
    static const struct { GLenum pname; GLint value; } limits[] = {
        {GL_PERFQUERY_QUERY_NAME_LENGTH_MAX_INTEL, 256},
        {GL_PERFQUERY_COUNTER_NAME_LENGTH_MAX_INTEL, 256},
        {GL_PERFQUERY_COUNTER_DESC_LENGTH_MAX_INTEL, 1024},
    };
    for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); i++) {
        GLint v = -1;
        GLint64 v64 = -1;
        gl.glGetIntegerv(limits[i].pname, &v);
        expect_error(GL_NO_ERROR);
        assert_int_equal(v, limits[i].value);
        gl.glGetInteger64v(limits[i].pname, &v64);
        expect_error(GL_NO_ERROR);
        assert_int_equal(v64, limits[i].value);
    }
    /* "PERFQUERY_GPA_EXTENDED_COUNTERS_INTEL B GetBooleanv": perfq has no GPA set. */
    GLboolean b = GL_TRUE;
    gl.glGetBooleanv(GL_PERFQUERY_GPA_EXTENDED_COUNTERS_INTEL, &b);
    expect_error(GL_NO_ERROR);
    assert_int_equal(b, GL_FALSE);
}

/* ---- GetFirstPerfQueryIdINTEL ---- */

/* "If queryId pointer is equal to 0, INVALID_VALUE error is generated." */
static void test_first_null(void **state)
{
    (void)state;
    gl.glGetFirstPerfQueryIdINTEL(NULL);
    expect_error(GL_INVALID_VALUE);
}

static void test_first_is_one(void **state)
{
    (void)state;
    GLuint id = 0;
    gl.glGetFirstPerfQueryIdINTEL(&id);
    expect_error(GL_NO_ERROR);
    assert_int_equal(id, 1);
}

/* ---- GetNextPerfQueryIdINTEL ---- */

/* "If nextQueryId pointer is equal to 0, an INVALID_VALUE error is generated." */
static void test_next_null(void **state)
{
    (void)state;
    gl.glGetNextPerfQueryIdINTEL(1, NULL);
    expect_error(GL_INVALID_VALUE);
}

/* "If the specified performance query identifier is invalid then INVALID_VALUE error is
 * generated. [...] Whenever error is generated, the value of 0 is returned." */
static void test_next_invalid(void **state)
{
    (void)state;
    GLuint bad[] = {0, num_types() + 1, 0xffffffffu};
    for (size_t i = 0; i < 3; i++) {
        GLuint next = 1234;
        gl.glGetNextPerfQueryIdINTEL(bad[i], &next);
        expect_error(GL_INVALID_VALUE);
        assert_int_equal(next, 0);
    }
}

/* "If query identified by queryId is the last query available the value of 0 is returned."
 * Ids are 1..N (index + 1), names unique. */
static void test_next_walk(void **state)
{
    (void)state;
    GLuint n = num_types();
    expect_error(GL_NO_ERROR);
    assert_true(n >= 1);
    char names[64][256];
    assert_true(n <= 64);
    for (GLuint id = 1; id <= n; id++) {
        GLuint next = 1234;
        gl.glGetNextPerfQueryIdINTEL(id, &next);
        expect_error(GL_NO_ERROR);
        assert_int_equal(next, id == n ? 0 : id + 1);
        gl.glGetPerfQueryInfoINTEL(id, 256, names[id - 1], NULL, NULL, NULL, NULL);
        expect_error(GL_NO_ERROR);
        for (GLuint k = 1; k < id; k++)
            assert_string_not_equal(names[k - 1], names[id - 1]);
    }
}

/* ---- GetPerfQueryIdByNameINTEL ---- */

/* "If queryName does not reference a valid query name, an INVALID_VALUE error is generated." */
static void test_byname_unknown(void **state)
{
    (void)state;
    GLuint id = 1234;
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"No Such Query", &id);
    expect_error(GL_INVALID_VALUE);
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"", &id);
    expect_error(GL_INVALID_VALUE);
    /* Names match exactly: a prefix is not a name. */
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"Host", &id);
    expect_error(GL_INVALID_VALUE);
}

/* Same clause: a NULL name references no query. */
static void test_byname_null_name(void **state)
{
    (void)state;
    GLuint id = 1234;
    gl.glGetPerfQueryIdByNameINTEL(NULL, &id);
    expect_error(GL_INVALID_VALUE);
}

/* Not in spec: a NULL queryId is INVALID_VALUE (Mesa). */
static void test_byname_null_id(void **state)
{
    (void)state;
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"Host CPU", NULL);
    expect_error(GL_INVALID_VALUE);
}

static void test_byname_every_type(void **state)
{
    (void)state;
    GLuint n = num_types();
    for (GLuint id = 1; id <= n; id++) {
        char name[256];
        GLuint found = 0;
        gl.glGetPerfQueryInfoINTEL(id, sizeof(name), name, NULL, NULL, NULL, NULL);
        gl.glGetPerfQueryIdByNameINTEL(name, &found);
        expect_error(GL_NO_ERROR);
        assert_int_equal(found, id);
    }
}

/* ---- GetPerfQueryInfoINTEL ---- */

/* "If queryId does not reference a valid query type, an INVALID_VALUE error is generated." */
static void test_info_invalid(void **state)
{
    (void)state;
    GLuint bad[] = {0, num_types() + 1};
    for (size_t i = 0; i < 2; i++) {
        char name[8] = "unset";
        GLuint size = 77, counters = 77, instances = 77, caps = 77;
        gl.glGetPerfQueryInfoINTEL(bad[i], sizeof(name), name, &size, &counters, &instances,
                                   &caps);
        expect_error(GL_INVALID_VALUE);
        assert_string_equal(name, "unset");
        assert_int_equal(size, 77);
    }
}

/* Not in spec: NULL outputs are skipped (Mesa; a NULL capsMask crashed Intel's driver). */
static void test_info_null_outputs(void **state)
{
    (void)state;
    gl.glGetPerfQueryInfoINTEL(1, 256, NULL, NULL, NULL, NULL, NULL);
    expect_error(GL_NO_ERROR);
}

/* Not in spec: names are truncated to queryNameLength and always NUL-terminated (Mesa). */
static void test_info_name_truncated(void **state)
{
    (void)state;
    GLuint id = host_cpu();
    char buf[16];
    memset(buf, 'X', sizeof(buf));
    gl.glGetPerfQueryInfoINTEL(id, 4, buf, NULL, NULL, NULL, NULL);
    expect_error(GL_NO_ERROR);
    assert_string_equal(buf, "Hos");
    assert_int_equal(buf[4], 'X');        /* nothing past queryNameLength */
    memset(buf, 'X', sizeof(buf));
    gl.glGetPerfQueryInfoINTEL(id, 0, buf, NULL, NULL, NULL, NULL);
    expect_error(GL_NO_ERROR);
    assert_int_equal(buf[0], 'X');        /* length 0: nothing written */
    gl.glGetPerfQueryInfoINTEL(id, sizeof(buf), buf, NULL, NULL, NULL, NULL);
    assert_string_equal(buf, "Host CPU");
}

/* Not in spec: every query id is below its own counter count (issue 14 item 13). apitrace's
 * INTEL backend (enableMetric) refuses a metric whose query id is not, so a type listed at an id
 * >= its counter count ("GPU Time", 2 counters, was id 2 or 3) cannot be selected there. The
 * types are listed fewest counters first (docs/intel-performance-query.md). */
static void test_every_type_id_below_counter_count(void **state)
{
    (void)state;
    GLuint id = 0, types = 0, previous = 0;
    for (gl.glGetFirstPerfQueryIdINTEL(&id); id; gl.glGetNextPerfQueryIdINTEL(id, &id)) {
        char name[256];
        GLuint count = 0;
        gl.glGetPerfQueryInfoINTEL(id, sizeof(name), name, NULL, &count, NULL, NULL);
        fprintf(stderr, "query %u \"%s\": %u counters\n", id, name, count);
        assert_true(id < count);
        assert_true(count >= previous);
        previous = count;
        types++;
    }
    expect_error(GL_NO_ERROR);
    assert_true(types >= 2);   /* "GL Memory" and "Host CPU" at least, in every context */
    if (glt_intel_query_id("GPU Time"))
        assert_int_equal(glt_intel_query_id("GPU Time"), 1);
}

/* capsMask: "Pipeline Statistics" is per context, "Host CPU" global (docs). */
static void test_info_caps(void **state)
{
    (void)state;
    GLuint caps = 77;
    gl.glGetPerfQueryInfoINTEL(host_cpu(), 0, NULL, NULL, NULL, NULL, &caps);
    assert_int_equal(caps, GL_PERFQUERY_GLOBAL_CONTEXT_INTEL);
    GLuint ps = glt_intel_query_id("Pipeline Statistics");
    if (ps) {
        gl.glGetPerfQueryInfoINTEL(ps, 0, NULL, NULL, NULL, NULL, &caps);
        assert_int_equal(caps, GL_PERFQUERY_SINGLE_CONTEXT_INTEL);
    }
    expect_error(GL_NO_ERROR);
}

/* "the actual number of already created query instances" */
static void test_info_instances(void **state)
{
    (void)state;
    GLuint id = host_cpu(), before = 77, after = 77;
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, NULL, NULL, &before, NULL);
    GLuint h[3];
    for (int i = 0; i < 3; i++)
        h[i] = new_query();
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, NULL, NULL, &after, NULL);
    assert_int_equal(after, before + 3);
    gl.glDeletePerfQueryINTEL(h[1]);
    gl.glGetPerfQueryInfoINTEL(id, 0, NULL, NULL, NULL, &after, NULL);
    assert_int_equal(after, before + 2);
    gl.glDeletePerfQueryINTEL(h[0]);
    gl.glDeletePerfQueryINTEL(h[2]);
    expect_error(GL_NO_ERROR);
}

/* ---- GetPerfCounterInfoINTEL ---- */

/* "If the pair of queryId and counterId does not reference a valid counter, an INVALID_VALUE
 * error is generated." An invalid queryId: */
static void test_counter_invalid_query(void **state)
{
    (void)state;
    GLuint offset = 77;
    gl.glGetPerfCounterInfoINTEL(0, 1, 0, NULL, 0, NULL, &offset, NULL, NULL, NULL, NULL);
    expect_error(GL_INVALID_VALUE);
    gl.glGetPerfCounterInfoINTEL(num_types() + 1, 1, 0, NULL, 0, NULL, &offset, NULL, NULL,
                                 NULL, NULL);
    expect_error(GL_INVALID_VALUE);
    assert_int_equal(offset, 77);
}

/* Same clause, and "Performance counter id 0 is reserved as an invalid counter." */
static void test_counter_zero(void **state)
{
    (void)state;
    gl.glGetPerfCounterInfoINTEL(1, 0, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    expect_error(GL_INVALID_VALUE);
}

static void test_counter_past_last(void **state)
{
    (void)state;
    GLuint n = 0;
    gl.glGetPerfQueryInfoINTEL(1, 0, NULL, NULL, &n, NULL, NULL);
    gl.glGetPerfCounterInfoINTEL(1, n + 1, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    expect_error(GL_INVALID_VALUE);
}

/* Not in spec: NULL outputs skipped; names truncated and NUL-terminated. */
static void test_counter_null_and_truncated(void **state)
{
    (void)state;
    gl.glGetPerfCounterInfoINTEL(1, 1, 256, NULL, 1024, NULL, NULL, NULL, NULL, NULL, NULL);
    expect_error(GL_NO_ERROR);
    char name[8], desc[8];
    memset(name, 'X', sizeof(name));
    memset(desc, 'X', sizeof(desc));
    gl.glGetPerfCounterInfoINTEL(1, 1, 3, name, 2, desc, NULL, NULL, NULL, NULL, NULL);
    expect_error(GL_NO_ERROR);
    assert_int_equal(strlen(name), 2);
    assert_int_equal(name[3], 'X');
    assert_int_equal(strlen(desc), 1);
    assert_int_equal(desc[2], 'X');
}

/* Every counter of every type: valid enums, sizes matching the data type, aligned,
 * non-overlapping offsets inside dataSize, unique names within the limits. */
static void test_counter_layout(void **state)
{
    (void)state;
    GLuint n = num_types();
    for (GLuint q = 1; q <= n; q++) {
        GLuint size = 0, count = 0;
        char qname[256];
        gl.glGetPerfQueryInfoINTEL(q, sizeof(qname), qname, &size, &count, NULL, NULL);
        assert_true(count >= 1);
        assert_true(size >= 4 && size % 8 == 0);
        assert_true(strlen(qname) < 256);
        uint8_t *used = calloc(size, 1);
        char (*names)[256] = calloc(count, 256);
        assert_non_null(used);
        assert_non_null(names);
        for (GLuint c = 1; c <= count; c++) {
            char desc[1024];
            GLuint off = 0, csize = 0, type = 0, dtype = 0;
            GLuint64 max = 0;
            gl.glGetPerfCounterInfoINTEL(q, c, 256, names[c - 1], sizeof(desc), desc, &off,
                                         &csize, &type, &dtype, &max);
            expect_error(GL_NO_ERROR);
            assert_true(strlen(names[c - 1]) > 0);
            assert_true(strlen(desc) > 0);
            for (GLuint k = 1; k < c; k++)
                assert_string_not_equal(names[k - 1], names[c - 1]);
            assert_in_range(type, GL_PERFQUERY_COUNTER_EVENT_INTEL,
                            GL_PERFQUERY_COUNTER_TIMESTAMP_INTEL);
            switch (dtype) {
            case GL_PERFQUERY_COUNTER_DATA_UINT32_INTEL:
            case GL_PERFQUERY_COUNTER_DATA_FLOAT_INTEL:
            case GL_PERFQUERY_COUNTER_DATA_BOOL32_INTEL:
                assert_int_equal(csize, 4);
                break;
            case GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL:
            case GL_PERFQUERY_COUNTER_DATA_DOUBLE_INTEL:
                assert_int_equal(csize, 8);
                break;
            default:
                fail_msg("counter %u of %s: data type 0x%x", c, qname, dtype);
            }
            assert_int_equal(off % csize, 0);
            assert_true(off + csize <= size);
            for (GLuint b = off; b < off + csize; b++) {
                assert_int_equal(used[b], 0);
                used[b] = 1;
            }
        }
        free(used);
        free(names);
    }
}

/* The documented counters of "Host CPU" (and "Pipeline Statistics" where listed). */
static void test_documented_counters(void **state)
{
    (void)state;
    GLuint host = host_cpu();
    GLuint type = 0, dtype = 0;
    int i = glt_intel_counter_index(host, "CPU Time");
    assert_true(i >= 0);
    gl.glGetPerfCounterInfoINTEL(host, (GLuint)i + 1, 0, NULL, 0, NULL, NULL, NULL, &type,
                                 &dtype, NULL);
    assert_int_equal(type, GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL);
    assert_int_equal(dtype, GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL);
    GLuint ps = glt_intel_query_id("Pipeline Statistics");
    if (!ps) {
        /* Listed wherever the driver has pipeline statistics queries. */
        assert_false(glt_has_pipeline_statistics());
        return;
    }
    static const char *events[] = {
        "Vertices Submitted", "Primitives Submitted", "Vertex Shader Invocations",
        "Fragment Shader Invocations", "Clipper Input Primitives", "Clipper Output Primitives",
        "Samples Passed",
    };
    for (size_t k = 0; k < sizeof(events) / sizeof(events[0]); k++) {
        i = glt_intel_counter_index(ps, events[k]);
        assert_true(i >= 0);
        gl.glGetPerfCounterInfoINTEL(ps, (GLuint)i + 1, 0, NULL, 0, NULL, NULL, NULL, &type,
                                     &dtype, NULL);
        assert_int_equal(type, GL_PERFQUERY_COUNTER_EVENT_INTEL);
        assert_int_equal(dtype, GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL);
    }
    i = glt_intel_counter_index(ps, "GPU Time Elapsed");
    assert_true(i >= 0);
    gl.glGetPerfCounterInfoINTEL(ps, (GLuint)i + 1, 0, NULL, 0, NULL, NULL, NULL, &type, &dtype,
                                 NULL);
    assert_int_equal(type, GL_PERFQUERY_COUNTER_DURATION_RAW_INTEL);
    assert_int_equal(dtype, GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL);
    expect_error(GL_NO_ERROR);
}

/* ---- CreatePerfQueryINTEL ---- */

/* "If queryId does not reference a valid query type, an INVALID_VALUE error is generated." */
static void test_create_invalid_id(void **state)
{
    (void)state;
    GLuint h = 1234;
    gl.glCreatePerfQueryINTEL(0, &h);
    expect_error(GL_INVALID_VALUE);
    gl.glCreatePerfQueryINTEL(num_types() + 1, &h);
    expect_error(GL_INVALID_VALUE);
}

/* Not in spec: a NULL queryHandle is INVALID_VALUE (Mesa). */
static void test_create_null_handle(void **state)
{
    (void)state;
    gl.glCreatePerfQueryINTEL(1, NULL);
    expect_error(GL_INVALID_VALUE);
}

/* "If the query instance cannot be created due to exceeding the number of allowed instances or
 * driver fails query creation due to an insufficient memory reason, an OUT_OF_MEMORY error is
 * generated, and the location pointed by queryHandle returns NULL." Provoked in a fresh context
 * by leaving no file descriptor free: the first "Host CPU" instance of a context opens the
 * context's perf_event counters. */
static void test_create_out_of_memory(void **state)
{
    (void)state;
    /* task-clock is a software perf event: there wherever perf_event_open is allowed. Under
     * no-perf-event (tests/no_perf_event.c; the meson test says so in PERFQ_TEST_PERF_REFUSED)
     * "Host CPU" offers only the counters that need no perf_event_open; its first instance
     * still opens a descriptor (proc-io's /proc/self/io), so creation fails the same way with
     * none free. */
    int refused = getenv("PERFQ_TEST_PERF_REFUSED") != NULL;
    if (refused)
        assert_true(glt_intel_counter_index(host_cpu(), "host/task-clock") < 0);
    else
        assert_true(glt_intel_counter_index(host_cpu(), "host/task-clock") >= 0);
    struct glt fresh;
    assert_int_equal(glt_create(&fresh, T.dpy, T.kind, 8, 8), 0);
    assert_int_equal(glt_make_current(&fresh), 0);
    GLuint id = glt_intel_query_id("Host CPU");   /* builds the context's query types */
    assert_int_not_equal(id, 0);
    struct rlimit old, none;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    int lowest_free = dup(0);
    assert_true(lowest_free >= 0);
    close(lowest_free);
    none = old;
    none.rlim_cur = (rlim_t)lowest_free;   /* every descriptor number below it is in use */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
    GLuint h = 1234;
    gl.glCreatePerfQueryINTEL(id, &h);
    GLenum err = gl.glGetError();
    setrlimit(RLIMIT_NOFILE, &old);
    assert_int_equal(err, GL_OUT_OF_MEMORY);
    assert_int_equal(h, 0);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    /* Creation works again once descriptors are back. */
    gl.glCreatePerfQueryINTEL(id, &h);
    assert_int_equal(gl.glGetError(), GL_NO_ERROR);
    assert_int_not_equal(h, 0);
    gl.glDeletePerfQueryINTEL(h);
    glt_destroy(&fresh);
    assert_int_equal(glt_make_current(&T), 0);
    expect_error(GL_NO_ERROR);
}

/* ---- DeletePerfQueryINTEL ---- */

/* "If a query handle doesn't reference a previously created performance query instance, an
 * INVALID_VALUE error is generated." */
static void test_delete_invalid(void **state)
{
    (void)state;
    gl.glDeletePerfQueryINTEL(0);
    expect_error(GL_INVALID_VALUE);
    gl.glDeletePerfQueryINTEL(987654);
    expect_error(GL_INVALID_VALUE);
    GLuint h = new_query();
    gl.glDeletePerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
    gl.glDeletePerfQueryINTEL(h);   /* deleted: no longer a created instance */
    expect_error(GL_INVALID_VALUE);
}

/* Not in spec: deleting an active query ends it, with no error (Mesa). */
static void test_delete_active(void **state)
{
    (void)state;
    GLuint h = new_query();
    gl.glBeginPerfQueryINTEL(h);
    gl.glDeletePerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
    gl.glEndPerfQueryINTEL(h);
    expect_error(GL_INVALID_VALUE);
}

/* ---- BeginPerfQueryINTEL ---- */

/* "If a query handle doesn't reference a previously created performance query instance, an
 * INVALID_VALUE error is generated." */
static void test_begin_invalid(void **state)
{
    (void)state;
    gl.glBeginPerfQueryINTEL(0);
    expect_error(GL_INVALID_VALUE);
    gl.glBeginPerfQueryINTEL(987654);
    expect_error(GL_INVALID_VALUE);
}

/* Not in spec: beginning an active query is INVALID_OPERATION (Mesa). */
static void test_begin_active(void **state)
{
    (void)state;
    GLuint h = new_query();
    gl.glBeginPerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
    gl.glBeginPerfQueryINTEL(h);
    expect_error(GL_INVALID_OPERATION);
    gl.glEndPerfQueryINTEL(h);
    gl.glDeletePerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
}

/* "calls of BeginPerfQueryINTEL() cannot be nested if they refer to queries of such different
 * types. In such case INVALID_OPERATION error is generated.": every perfq type can be collected
 * beside every other, so nesting all types at once raises nothing. */
static void test_begin_all_types_nested(void **state)
{
    (void)state;
    GLuint n = num_types(), h[64];
    assert_true(n <= 64);
    for (GLuint q = 1; q <= n; q++) {
        gl.glCreatePerfQueryINTEL(q, &h[q - 1]);
        gl.glBeginPerfQueryINTEL(h[q - 1]);
        expect_error(GL_NO_ERROR);
    }
    for (GLuint q = n; q >= 1; q--) {
        gl.glEndPerfQueryINTEL(h[q - 1]);
        expect_error(GL_NO_ERROR);
        GLuint size = 0, written = 0;
        gl.glGetPerfQueryInfoINTEL(q, 0, NULL, &size, NULL, NULL, NULL);
        void *data = malloc(size);
        gl.glGetPerfQueryDataINTEL(h[q - 1], GL_PERFQUERY_WAIT_INTEL, (GLsizei)size, data,
                                   &written);
        expect_error(GL_NO_ERROR);
        assert_int_equal(written, size);
        free(data);
        gl.glDeletePerfQueryINTEL(h[q - 1]);
    }
}

/* ---- EndPerfQueryINTEL ---- */

/* Not in spec: an invalid handle is INVALID_VALUE (Mesa: "for consistency"). */
static void test_end_invalid(void **state)
{
    (void)state;
    gl.glEndPerfQueryINTEL(0);
    expect_error(GL_INVALID_VALUE);
    gl.glEndPerfQueryINTEL(987654);
    expect_error(GL_INVALID_VALUE);
}

/* "If a performance query is not currently started, an INVALID_OPERATION error will be
 * generated." Never begun, and already ended: */
static void test_end_not_active(void **state)
{
    (void)state;
    GLuint h = new_query();
    gl.glEndPerfQueryINTEL(h);
    expect_error(GL_INVALID_OPERATION);
    gl.glBeginPerfQueryINTEL(h);
    gl.glEndPerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
    gl.glEndPerfQueryINTEL(h);
    expect_error(GL_INVALID_OPERATION);
    gl.glDeletePerfQueryINTEL(h);
}

/* ---- GetPerfQueryDataINTEL ---- */

/* Not in spec: an invalid handle is INVALID_VALUE (Mesa). */
static void test_data_invalid_handle(void **state)
{
    (void)state;
    uint64_t data[64];
    GLuint written = 1234;
    gl.glGetPerfQueryDataINTEL(0, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    expect_error(GL_INVALID_VALUE);
    gl.glGetPerfQueryDataINTEL(987654, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    expect_error(GL_INVALID_VALUE);
}

/* "If bytesWritten or data pointers are NULL then an INVALID_VALUE error is generated." */
static void test_data_null_pointers(void **state)
{
    (void)state;
    GLuint h = new_query(), written = 1234;
    uint64_t data[64];
    gl.glBeginPerfQueryINTEL(h);
    gl.glEndPerfQueryINTEL(h);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, sizeof(data), NULL, &written);
    expect_error(GL_INVALID_VALUE);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, NULL);
    expect_error(GL_INVALID_VALUE);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, sizeof(data), NULL, NULL);
    expect_error(GL_INVALID_VALUE);
    gl.glDeletePerfQueryINTEL(h);
}

/* Not in spec: a query never begun has no data: INVALID_OPERATION, bytesWritten 0 (Mesa). */
static void test_data_never_begun(void **state)
{
    (void)state;
    GLuint h = new_query(), written = 1234;
    uint64_t data[64];
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    expect_error(GL_INVALID_OPERATION);
    assert_int_equal(written, 0);
    gl.glDeletePerfQueryINTEL(h);
}

/* Not in spec: a query still active has no data: INVALID_OPERATION, bytesWritten 0 (Mesa). */
static void test_data_active(void **state)
{
    (void)state;
    GLuint h = new_query(), written = 1234;
    uint64_t data[64];
    gl.glBeginPerfQueryINTEL(h);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    expect_error(GL_INVALID_OPERATION);
    assert_int_equal(written, 0);
    gl.glEndPerfQueryINTEL(h);
    gl.glDeletePerfQueryINTEL(h);
    expect_error(GL_NO_ERROR);
}

/* Not in spec: a negative dataSize is INVALID_VALUE, nothing written (docs). */
static void test_data_negative_size(void **state)
{
    (void)state;
    GLuint h = new_query(), written = 1234;
    uint64_t data[64];
    memset(data, 0xab, sizeof(data));
    gl.glBeginPerfQueryINTEL(h);
    gl.glEndPerfQueryINTEL(h);
    gl.glGetPerfQueryDataINTEL(h, GL_PERFQUERY_WAIT_INTEL, -8, data, &written);
    expect_error(GL_INVALID_VALUE);
    assert_int_equal(written, 0);
    assert_int_equal(data[0], 0xababababababababull);
    gl.glDeletePerfQueryINTEL(h);
}

/* Not in spec: flags 0 and unknown values are read as DONOT_FLUSH (Mesa; RenderDoc passes 0):
 * no error, and the result comes once the work is done. */
static void test_data_unknown_flags(void **state)
{
    (void)state;
    GLuint h = new_query(), size = 0, written = 0;
    gl.glGetPerfQueryInfoINTEL(host_cpu(), 0, NULL, &size, NULL, NULL, NULL);
    void *data = malloc(size);
    gl.glBeginPerfQueryINTEL(h);
    gl.glEndPerfQueryINTEL(h);
    gl.glFinish();
    static const GLuint flags[] = {0, 0x1234, GL_PERFQUERY_DONOT_FLUSH_INTEL};
    for (size_t i = 0; i < 3; i++) {
        written = 1234;
        for (int tries = 0; tries < 100000 && written != size; tries++)
            gl.glGetPerfQueryDataINTEL(h, flags[i], (GLsizei)size, data, &written);
        expect_error(GL_NO_ERROR);
        assert_int_equal(written, size);
    }
    free(data);
    gl.glDeletePerfQueryINTEL(h);
}

/* GL calls without a current context do nothing (and do not crash). */
static void test_no_current_context(void **state)
{
    (void)state;
    glt_release(&T);
    GLuint id = 1234, h = 1234, written = 1234;
    uint64_t data[8];
    gl.glGetFirstPerfQueryIdINTEL(&id);
    gl.glGetNextPerfQueryIdINTEL(1, &id);
    gl.glGetPerfQueryIdByNameINTEL((GLchar *)"Host CPU", &id);
    gl.glGetPerfQueryInfoINTEL(1, 0, NULL, NULL, NULL, NULL, NULL);
    gl.glGetPerfCounterInfoINTEL(1, 1, 0, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL);
    gl.glCreatePerfQueryINTEL(1, &h);
    gl.glBeginPerfQueryINTEL(1);
    gl.glEndPerfQueryINTEL(1);
    gl.glGetPerfQueryDataINTEL(1, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    gl.glDeletePerfQueryINTEL(1);
    assert_int_equal(id, 1234);
    assert_int_equal(h, 1234);
    assert_int_equal(written, 1234);
    assert_int_equal(glt_make_current(&T), 0);
    expect_error(GL_NO_ERROR);
}

int main(int argc, char **argv)
{
    int r = glt_create_from_args(&T, argc, argv, 64, 64);
    if (r != 0)
        return r;
    fprintf(stderr, "renderer: %s (%s)\n", T.renderer, glt_kind_name(T.kind));
#define TEST(f) cmocka_unit_test_setup(f, clear_errors)
    const struct CMUnitTest tests[] = {
        TEST(test_extension_listed),
        TEST(test_limits),
        TEST(test_first_null),
        TEST(test_first_is_one),
        TEST(test_next_null),
        TEST(test_next_invalid),
        TEST(test_next_walk),
        TEST(test_byname_unknown),
        TEST(test_byname_null_name),
        TEST(test_byname_null_id),
        TEST(test_byname_every_type),
        TEST(test_info_invalid),
        TEST(test_info_null_outputs),
        TEST(test_info_name_truncated),
        TEST(test_info_caps),
        TEST(test_every_type_id_below_counter_count),
        TEST(test_info_instances),
        TEST(test_counter_invalid_query),
        TEST(test_counter_zero),
        TEST(test_counter_past_last),
        TEST(test_counter_null_and_truncated),
        TEST(test_counter_layout),
        TEST(test_documented_counters),
        TEST(test_create_invalid_id),
        TEST(test_create_null_handle),
        TEST(test_create_out_of_memory),
        TEST(test_delete_invalid),
        TEST(test_delete_active),
        TEST(test_begin_invalid),
        TEST(test_begin_active),
        TEST(test_begin_all_types_nested),
        TEST(test_end_invalid),
        TEST(test_end_not_active),
        TEST(test_data_invalid_handle),
        TEST(test_data_null_pointers),
        TEST(test_data_never_begun),
        TEST(test_data_active),
        TEST(test_data_negative_size),
        TEST(test_data_unknown_flags),
        TEST(test_no_current_context),
    };
    int failed = cmocka_run_group_tests_name(T.kind == GLT_GLES3 ? "intel-errors-gles" : "intel-errors",
                                             tests, NULL, NULL);
    glt_destroy(&T);
    return failed;
}
