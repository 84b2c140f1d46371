/*
 * The "Driver Counters" provider (driver_counters.h): the layer's own counts of the program's
 * GL/EGL calls. A session reads the process-wide counts at begin and reports the difference:
 * readable at any time (sample), so the group can be sampled continuously.
 */
#include <stdlib.h>
#include <string.h>

#include "gl/dispatch/dispatch.h"
#include "gl/gl_layer.h"
#include "gl/providers/driver_counters.h"

_Atomic uint64_t perfq_gl_driver_counts[PERFQ_GL_DRIVER_COUNT_KINDS];

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const struct perfq_group_desc group = {
    "Driver Counters", "The program's GL and EGL calls, counted by perfq's GL layer in every "
    "context and thread of the process", PERFQ_SCOPE_PROCESS, 0};

#define C(name, cat, desc, unit, which) \
    {name, cat, desc, unit, PERFQ_STORAGE_UINT64, PERFQ_INTEL_EVENT, 0, UINT64_MAX, 1, which, 0}
static const struct perfq_counter_desc counters[] = {
    C("Draw Calls", "API", "glDraw* calls (every variant: arrays, elements, instanced, indirect, "
      "base vertex/instance, range)", PERFQ_UNIT_GENERIC, PERFQ_GL_DRIVER_DRAW_CALLS),
    C("Clears", "API", "glClear calls", PERFQ_UNIT_GENERIC,
      PERFQ_GL_DRIVER_CLEARS),
    C("Swaps", "API", "eglSwapBuffers and glXSwapBuffers calls",
      PERFQ_UNIT_GENERIC, PERFQ_GL_DRIVER_SWAPS),
    C("Buffer Bytes Uploaded", "Transfer", "Sizes of accepted glBufferData calls (and "
      "aliases), bytes given to glBufferSubData and glNamedBufferSubData", PERFQ_UNIT_BYTES,
      PERFQ_GL_DRIVER_BUFFER_BYTES),
    C("Texture Bytes Uploaded", "Transfer", "Client texel bytes of accepted glTexImage1D/2D/3D, "
      "of glTexSubImage2D/3D with pixels, imageSize of glCompressedTex(Sub)Image*",
      PERFQ_UNIT_BYTES, PERFQ_GL_DRIVER_TEXTURE_BYTES),
};
#undef C

static int components(uint32_t format)
{
    switch (format) {
    case GL_RED: case GL_GREEN: case GL_BLUE: case GL_ALPHA: case GL_LUMINANCE:
    case GL_RED_INTEGER: case GL_DEPTH_COMPONENT: case GL_STENCIL_INDEX:
        return 1;
    case GL_RG: case GL_RG_INTEGER: case GL_LUMINANCE_ALPHA: case GL_DEPTH_STENCIL:
        return 2;
    case GL_RGB: case GL_BGR: case GL_RGB_INTEGER: case GL_BGR_INTEGER:
        return 3;
    case GL_RGBA: case GL_BGRA: case GL_RGBA_INTEGER: case GL_BGRA_INTEGER:
        return 4;
    default:
        return 0;
    }
}

/* Bytes per pixel of a packed type, 0 if the type is not packed. */
static int packed_bytes(uint32_t type)
{
    switch (type) {
    case GL_UNSIGNED_BYTE_3_3_2: case GL_UNSIGNED_BYTE_2_3_3_REV:
        return 1;
    case GL_UNSIGNED_SHORT_5_6_5: case GL_UNSIGNED_SHORT_5_6_5_REV:
    case GL_UNSIGNED_SHORT_4_4_4_4: case GL_UNSIGNED_SHORT_4_4_4_4_REV:
    case GL_UNSIGNED_SHORT_5_5_5_1: case GL_UNSIGNED_SHORT_1_5_5_5_REV:
        return 2;
    case GL_UNSIGNED_INT_8_8_8_8: case GL_UNSIGNED_INT_8_8_8_8_REV:
    case GL_UNSIGNED_INT_10_10_10_2: case GL_UNSIGNED_INT_2_10_10_10_REV:
    case GL_UNSIGNED_INT_24_8: case GL_UNSIGNED_INT_10F_11F_11F_REV:
    case GL_UNSIGNED_INT_5_9_9_9_REV:
        return 4;
    case GL_FLOAT_32_UNSIGNED_INT_24_8_REV:
        return 8;
    default:
        return 0;
    }
}

static int type_bytes(uint32_t type)
{
    switch (type) {
    case GL_UNSIGNED_BYTE: case GL_BYTE:
        return 1;
    case GL_UNSIGNED_SHORT: case GL_SHORT: case GL_HALF_FLOAT: case 0x8D61 /* HALF_FLOAT_OES */:
        return 2;
    case GL_UNSIGNED_INT: case GL_INT: case GL_FLOAT:
        return 4;
    default:
        return 0;
    }
}

uint64_t perfq_gl_upload_bytes(uint32_t format, uint32_t type, int64_t w, int64_t h, int64_t d)
{
    if (w <= 0 || h <= 0 || d <= 0)
        return 0;
    uint64_t pixel = (uint64_t)packed_bytes(type);
    if (!pixel)
        pixel = (uint64_t)components(format) * (uint64_t)type_bytes(type);
    return pixel * (uint64_t)w * (uint64_t)h * (uint64_t)d;
}

static perfq_status_t dc_probe(void *arg, void **state, char *reason, size_t size)
{
    (void)arg;
    (void)reason;
    (void)size;
    *state = (void *)&group;
    return PERFQ_OK;
}

static perfq_status_t dc_enumerate(void *state, struct perfq_catalog *catalog,
                                   const char *probe_reason)
{
    return perfq_catalog_add_table(catalog, &group, counters, ARRAY_SIZE(counters),
                                   state ? NULL : probe_reason);
}

struct dc_session {
    size_t count;
    unsigned which[ARRAY_SIZE(counters)];
    uint64_t base[ARRAY_SIZE(counters)], last[ARRAY_SIZE(counters)];
};

static perfq_status_t dc_session_open(void *state, const struct perfq_session_request *req,
                                      void **session)
{
    (void)state;
    /* The counts are this process's: another process's calls are not seen here. */
    if (req->target.kind == PERFQ_TARGET_PID)
        return PERFQ_ENOTSUP;
    if (req->count > ARRAY_SIZE(counters))
        return PERFQ_EINVAL;
    struct dc_session *s = calloc(1, sizeof *s);
    if (!s)
        return PERFQ_ENOMEM;
    s->count = req->count;
    for (size_t i = 0; i < req->count; i++)
        s->which[i] = (unsigned)req->counters[i]->code;
    *session = s;
    return PERFQ_OK;
}

static void read_counts(struct dc_session *s, uint64_t *out)
{
    for (size_t i = 0; i < s->count; i++)
        /* Draw calls are counted per context by the draw wrappers (layer_internal.h); the rest
         * with the storage calls' repeats the layer answered itself (gl_layer.h). */
        out[i] = s->which[i] == PERFQ_GL_DRIVER_DRAW_CALLS ?
            perfq_gl_context_draw_calls() :
            perfq_gl_repeat_counter_read((const uint64_t *)&perfq_gl_driver_counts[s->which[i]]);
}

static perfq_status_t dc_begin(void *session)
{
    struct dc_session *s = session;
    read_counts(s, s->base);
    memcpy(s->last, s->base, sizeof s->last);
    return PERFQ_OK;
}

static void values_of(const struct dc_session *s, perfq_value_t *values)
{
    for (size_t i = 0; i < s->count; i++) {
        memset(&values[i], 0, sizeof values[i]);
        values[i].v.u64 = s->last[i] - s->base[i];
    }
}

static perfq_status_t dc_sample(void *session, perfq_value_t *values)
{
    struct dc_session *s = session;
    read_counts(s, s->last);
    values_of(s, values);
    return PERFQ_OK;
}

static perfq_status_t dc_end(void *session)
{
    struct dc_session *s = session;
    read_counts(s, s->last);
    return PERFQ_OK;
}

static perfq_status_t dc_result(void *session, int wait, perfq_value_t *values)
{
    (void)wait;
    values_of(session, values);
    return PERFQ_OK;
}

const struct perfq_provider_ops perfq_gl_driver_counters_provider = {
    .name = "gl-driver",
    .probe = dc_probe,
    .enumerate = dc_enumerate,
    .session_open = dc_session_open,
    .begin = dc_begin,
    .sample = dc_sample,
    .end = dc_end,
    .result = dc_result,
    .session_close = free,
    .close = NULL,
};
