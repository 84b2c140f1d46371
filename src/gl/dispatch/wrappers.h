/*
 * The layer's exported wrappers, declared from the one list (dispatch.h's PERFQ_GL_FUNCTIONS, its
 * W and L lines): each has the type of the real function, so a wrapper defined with another
 * signature fails to compile, and every file that defines one includes this header
 * (-Wmissing-prototypes).
 * entry_points.c builds the GetProcAddress table from the same lines.
 */
#ifndef PERFQ_GL_WRAPPERS_H
#define PERFQ_GL_WRAPPERS_H

#include "gl/dispatch/dispatch.h"

#ifndef PERFQ_GL_EXPORT
#define PERFQ_GL_EXPORT __attribute__((visibility("default")))
#endif

#define PERFQ_GL_WRAPPER_NONE(type, name)
#define PERFQ_GL_WRAPPER_DECLARE(type, name) PERFQ_GL_EXPORT __typeof__(*(type)0) name;
PERFQ_GL_FUNCTIONS(PERFQ_GL_WRAPPER_NONE, PERFQ_GL_WRAPPER_DECLARE, PERFQ_GL_WRAPPER_DECLARE)
#undef PERFQ_GL_WRAPPER_DECLARE
#undef PERFQ_GL_WRAPPER_NONE

#endif
