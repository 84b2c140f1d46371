/*
 * The layer and the program's KHR_debug output (docs/gl-layer.md, "Errors"): what the program's
 * debug callback or message log receives is what the driver alone would have sent it, plus one
 * message for each error the layer raises itself.
 * - A storage call the layer runs a second time to learn its own answer (OBSERVED_REPEATABLE,
 *   error.c "one read") runs with debug output off, so its error is not reported twice.
 * - An error the layer raises (perfq_gl_record_error: GL_ANGLE_timer_query,
 *   GL_INTEL_performance_query, GL_NV_query_resource, the checks of a shared query target) is
 *   inserted as a message of source GL_DEBUG_SOURCE_THIRD_PARTY (KHR_debug lets an application
 *   insert only APPLICATION or THIRD_PARTY messages; a profiling layer is a third party), type
 *   GL_DEBUG_TYPE_ERROR, severity HIGH, its id the error's value.
 * Debug output exists in GL 4.3, ES 3.2, and where the driver has GL_KHR_debug; these paths run
 * only where an error was raised, so their queries cost nothing on the common path.
 */
#include "gl/contexts/layer_internal.h"

#include <stdio.h>

#ifndef GL_DEBUG_OUTPUT
#define GL_DEBUG_OUTPUT 0x92E0
#endif

static int has_debug_output(struct perfq_gl_ctx *c)
{
    if (!c->debug_output) {
        int gles = c->pub.api == PERFQ_GL_API_GLES;
        int yes = perfq_gl_version_at_least(&c->pub, gles ? 3 : 4, gles ? 2 : 3) ||
                  perfq_gl_has_driver_extension(&c->pub, "GL_KHR_debug");
        c->debug_output = yes ? 1 : -1;
    }
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    return c->debug_output > 0 && gl->glIsEnabled && gl->glEnable && gl->glDisable;
}

int perfq_gl_debug_output_pause(struct perfq_gl_ctx *c)
{
    if (!has_debug_output(c) || !c->pub.gl->glIsEnabled(GL_DEBUG_OUTPUT))
        return 0;
    c->pub.gl->glDisable(GL_DEBUG_OUTPUT);
    return 1;
}

void perfq_gl_debug_output_resume(struct perfq_gl_ctx *c)
{
    c->pub.gl->glEnable(GL_DEBUG_OUTPUT);
}

static const char *error_name(GLenum error)
{
    switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    default: return "a GL error";
    }
}

void perfq_gl_debug_output_error(struct perfq_gl_ctx *c, GLenum error)
{
    const struct perfq_gl_dispatch *gl = c->pub.gl;
    PFNGLDEBUGMESSAGEINSERTPROC insert =
        c->pub.api == PERFQ_GL_API_GLES && gl->glDebugMessageInsertKHR ?
            gl->glDebugMessageInsertKHR : gl->glDebugMessageInsert;
    if (!insert)
        insert = gl->glDebugMessageInsertKHR;
    if (!insert || !has_debug_output(c))
        return;
    perfq_gl_error_guard_begin(&c->pub);
    if (gl->glIsEnabled(GL_DEBUG_OUTPUT)) {
        char text[160];
        snprintf(text, sizeof text,
                 "%s raised by the perfq layer (an entry point of an extension perfq "
                 "implements, or a query target perfq shares)", error_name(error));
        insert(GL_DEBUG_SOURCE_THIRD_PARTY, GL_DEBUG_TYPE_ERROR, error, GL_DEBUG_SEVERITY_HIGH,
               -1, text);
    }
    perfq_gl_error_guard_end(&c->pub);
}
