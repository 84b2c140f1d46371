/*
 * GL_ANGLE_timer_query: tokens, types and entry points (the extension is in no Khronos header).
 * Values from the extension text (the GL_ANGLE_timer_query specification, revision 1). The entry
 * points are implemented by libperfq-gl.so: get them with eglGetProcAddress /
 * glXGetProcAddress, or link libperfq-gl and call them by name.
 *
 * perfq gives them the semantics of GL_EXT_disjoint_timer_query (what programs expect of the
 * *ANGLE names), plus glGetInteger64v(GL_TIMESTAMP_ANGLE) and GL_GPU_DISJOINT_EXT.
 */
#ifndef PERFQ_ANGLE_TIMER_QUERY_H
#define PERFQ_ANGLE_TIMER_QUERY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GL_ANGLE_timer_query
#define GL_ANGLE_timer_query 1

/* "Add two new types": int64ANGLE and uint64ANGLE, at least 64 bits. */
typedef int64_t GLint64ANGLE;
typedef uint64_t GLuint64ANGLE;

/* Accepted by the <pname> parameter of GetQueryivANGLE */
#define GL_QUERY_COUNTER_BITS_ANGLE   0x8864
#define GL_CURRENT_QUERY_ANGLE        0x8865
/* Accepted by the <pname> parameter of GetQueryObject{i,ui,i64,ui64}vANGLE */
#define GL_QUERY_RESULT_ANGLE         0x8866
#define GL_QUERY_RESULT_AVAILABLE_ANGLE 0x8867
/* Accepted by the <target> parameter of BeginQueryANGLE, EndQueryANGLE, and GetQueryivANGLE */
#define GL_TIME_ELAPSED_ANGLE         0x88BF
/* Accepted by the <target> parameter of GetQueryivANGLE and QueryCounterANGLE */
#define GL_TIMESTAMP_ANGLE            0x8E28

/* From GL_EXT_disjoint_timer_query, answered where perfq exposes GL_ANGLE_timer_query. */
#ifndef GL_GPU_DISJOINT_EXT
#define GL_GPU_DISJOINT_EXT           0x8FBB
#endif

typedef void (*PFNGLGENQUERIESANGLEPROC)(int n, unsigned int *ids);
typedef void (*PFNGLDELETEQUERIESANGLEPROC)(int n, const unsigned int *ids);
typedef unsigned char (*PFNGLISQUERYANGLEPROC)(unsigned int id);
typedef void (*PFNGLBEGINQUERYANGLEPROC)(unsigned int target, unsigned int id);
typedef void (*PFNGLENDQUERYANGLEPROC)(unsigned int target);
typedef void (*PFNGLQUERYCOUNTERANGLEPROC)(unsigned int id, unsigned int target);
typedef void (*PFNGLGETQUERYIVANGLEPROC)(unsigned int target, unsigned int pname, int *params);
typedef void (*PFNGLGETQUERYOBJECTIVANGLEPROC)(unsigned int id, unsigned int pname, int *params);
typedef void (*PFNGLGETQUERYOBJECTUIVANGLEPROC)(unsigned int id, unsigned int pname,
                                                unsigned int *params);
typedef void (*PFNGLGETQUERYOBJECTI64VANGLEPROC)(unsigned int id, unsigned int pname,
                                                 GLint64ANGLE *params);
typedef void (*PFNGLGETQUERYOBJECTUI64VANGLEPROC)(unsigned int id, unsigned int pname,
                                                  GLuint64ANGLE *params);

/* The C types above are GL's: sizei = int, uint = unsigned int, enum = unsigned int,
 * boolean = unsigned char (GLsizei, GLuint, GLenum, GLboolean). */
void glGenQueriesANGLE(int n, unsigned int *ids);
void glDeleteQueriesANGLE(int n, const unsigned int *ids);
unsigned char glIsQueryANGLE(unsigned int id);
void glBeginQueryANGLE(unsigned int target, unsigned int id);
void glEndQueryANGLE(unsigned int target);
void glQueryCounterANGLE(unsigned int id, unsigned int target);
void glGetQueryivANGLE(unsigned int target, unsigned int pname, int *params);
void glGetQueryObjectivANGLE(unsigned int id, unsigned int pname, int *params);
void glGetQueryObjectuivANGLE(unsigned int id, unsigned int pname, unsigned int *params);
void glGetQueryObjecti64vANGLE(unsigned int id, unsigned int pname, GLint64ANGLE *params);
void glGetQueryObjectui64vANGLE(unsigned int id, unsigned int pname, GLuint64ANGLE *params);

#endif /* GL_ANGLE_timer_query */

#ifdef __cplusplus
}
#endif

#endif
