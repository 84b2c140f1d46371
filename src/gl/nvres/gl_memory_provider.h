/*
 * Provider "gl-memory" (GL Memory): GL_NV_query_resource's accounting of one GL context's share
 * group as catalog counters (gl_memory_provider.c). Its probe argument is the GL provider's
 * struct gl_provider_link (gl_provider.h): the INTEL front end opens it per context beside "gl".
 */
#ifndef PERFQ_GL_GL_MEMORY_PROVIDER_H
#define PERFQ_GL_GL_MEMORY_PROVIDER_H

#include "core/provider.h"

extern const struct perfq_provider_ops perfq_gl_memory_provider;

#endif
