/*
 * EGL_BRCM_performance_counters: tokens, types and entry points (the extension is in no
 * Khronos header). Values from the extension text (the EGL_BRCM_performance_counters specification,
 * revision 4). The entry points are implemented by libperfq-gl.so: get them with
 * eglGetProcAddress, or link libperfq-gl and call them by name. Errors are read with
 * eglGetError, as for any EGL function.
 *
 * Erratum followed: the text declares eglGetPerfCounterInfoBRCM's <denominator> by value, which
 * could never return anything; Broadcom's shipping header, which its callers were compiled
 * against, declares `EGLuint64BRCM *denominator`. perfq follows the shipping header: a pointer,
 * NULL skips it. perfq's choices where the text is silent: docs/egl-brcm-performance-counters.md.
 */
#ifndef PERFQ_EGL_BRCM_PERFORMANCE_COUNTERS_H
#define PERFQ_EGL_BRCM_PERFORMANCE_COUNTERS_H

#include <EGL/egl.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef EGL_BRCM_performance_counters
#define EGL_BRCM_performance_counters 1

/* "New Types": a 64-bit unsigned integer. */
typedef uint64_t EGLuint64BRCM;

/* Accepted by the <pname> parameter of eglSetPerfCountingBRCM */
#define EGL_ACQUIRE_COUNTERS_BRCM       0x33C0
#define EGL_RELEASE_COUNTERS_BRCM       0x33C1
#define EGL_START_COUNTERS_BRCM         0x33C2
#define EGL_STOP_COUNTERS_BRCM          0x33C3
/* Accepted by the <pname> parameter of eglGetPerfCounterConstantBRCM */
#define EGL_NUM_COUNTER_GROUPS_BRCM     0x33C4
#define EGL_MAX_COUNTER_STRING_LEN_BRCM 0x33C5

typedef EGLint (*PFNEGLGETPERFCOUNTERCONSTANTBRCMPROC)(EGLenum pname);
typedef EGLBoolean (*PFNEGLGETPERFCOUNTERGROUPINFOBRCMPROC)(EGLint group, EGLint nameStrSize,
                                                           char *groupNameStr,
                                                           EGLint *numCounters,
                                                           EGLint *maxActiveCounters);
typedef EGLBoolean (*PFNEGLGETPERFCOUNTERINFOBRCMPROC)(EGLint group, EGLint counter,
                                                      EGLuint64BRCM *minValue,
                                                      EGLuint64BRCM *maxValue,
                                                      EGLuint64BRCM *denominator,
                                                      EGLint nameStrSize, char *nameStr,
                                                      EGLint unitStrSize, char *unitStr);
typedef EGLBoolean (*PFNEGLSETPERFCOUNTINGBRCMPROC)(EGLenum pname);
typedef EGLBoolean (*PFNEGLCHOOSEPERFCOUNTERSBRCMPROC)(EGLBoolean enable, EGLint group,
                                                      EGLint numCounters,
                                                      EGLint *counterList);
typedef EGLBoolean (*PFNEGLGETPERFCOUNTERDATABRCMPROC)(EGLint dataBufferBytes, void *data,
                                                      EGLint *bytesWritten,
                                                      EGLBoolean resetCounters);

EGLint eglGetPerfCounterConstantBRCM(EGLenum pname);
EGLBoolean eglGetPerfCounterGroupInfoBRCM(EGLint group, EGLint nameStrSize, char *groupNameStr,
                                          EGLint *numCounters, EGLint *maxActiveCounters);
EGLBoolean eglGetPerfCounterInfoBRCM(EGLint group, EGLint counter, EGLuint64BRCM *minValue,
                                     EGLuint64BRCM *maxValue, EGLuint64BRCM *denominator,
                                     EGLint nameStrSize, char *nameStr, EGLint unitStrSize,
                                     char *unitStr);
EGLBoolean eglSetPerfCountingBRCM(EGLenum pname);
EGLBoolean eglChoosePerfCountersBRCM(EGLBoolean enable, EGLint group, EGLint numCounters,
                                     EGLint *counterList);
EGLBoolean eglGetPerfCounterDataBRCM(EGLint dataBufferBytes, void *data, EGLint *bytesWritten,
                                     EGLBoolean resetCounters);

#endif /* EGL_BRCM_performance_counters */

#ifdef __cplusplus
}
#endif
#endif
