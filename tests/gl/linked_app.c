/*
 * An unmodified program linked at build time against glvnd's libOpenGL and libEGL (issue 13:
 * "links GL through glvnd" rather than loading it): core GL functions are called directly, as
 * the linker bound them, and only the extension's through eglGetProcAddress. Run with
 * LD_PRELOAD=libperfq-gl.so. Its own GL_PRIMITIVES_GENERATED query is active around an INTEL
 * "Pipeline Statistics" query, which needs the same driver query target: only if the layer's
 * wrappers are what the directly linked calls reach does the program's query stay exact beside
 * the layer's. Exit 0: both exact, no GL error; 1: not; 77: no EGL display here.
 */
#define GL_GLEXT_PROTOTYPES   /* core GL called directly, as libOpenGL exports it */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gl_test.h"

#define TRIANGLES 7

/* The value of the named UINT64 counter in an INTEL query's data; UINT64_MAX if absent. */
static uint64_t counter_value(GLuint id, const unsigned char *data, GLuint size, const char *want)
{
    PFNGLGETPERFQUERYINFOINTELPROC info =
        (PFNGLGETPERFQUERYINFOINTELPROC)eglGetProcAddress("glGetPerfQueryInfoINTEL");
    PFNGLGETPERFCOUNTERINFOINTELPROC cinfo =
        (PFNGLGETPERFCOUNTERINFOINTELPROC)eglGetProcAddress("glGetPerfCounterInfoINTEL");
    char qname[256], cname[256], desc[1024];
    GLuint data_size = 0, counters = 0, instances = 0, caps = 0;
    info(id, sizeof(qname), qname, &data_size, &counters, &instances, &caps);
    for (GLuint c = 1; c <= counters; c++) {
        GLuint offset = 0, csize = 0, type = 0, dtype = 0;
        GLuint64 max = 0;
        cinfo(id, c, sizeof(cname), cname, sizeof(desc), desc, &offset, &csize, &type, &dtype,
              &max);
        if (strcmp(cname, want) == 0 && dtype == GL_PERFQUERY_COUNTER_DATA_UINT64_INTEL &&
            offset + sizeof(uint64_t) <= size) {
            uint64_t v;
            memcpy(&v, data + offset, sizeof(v));
            return v;
        }
    }
    return UINT64_MAX;
}

int main(void)
{
    EGLDisplay dpy = glt_choose_display(NULL, NULL);
    if (dpy == EGL_NO_DISPLAY) {
        fprintf(stderr, "no EGL display: skipping\n");
        return GLT_SKIP;
    }
    EGLContext ctx;
    if (glt_create_context(dpy, GLT_COMPAT, &ctx) != 0 ||
        !eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, ctx)) {
        fprintf(stderr, "FAIL: no current desktop GL context (0x%x)\n", eglGetError());
        return 1;
    }
    GLint extensions = 0, found = 0;
    glGetIntegerv(GL_NUM_EXTENSIONS, &extensions);
    for (GLint i = 0; i < extensions; i++)
        found |= strcmp((const char *)glGetStringi(GL_EXTENSIONS, (GLuint)i),
                        "GL_INTEL_performance_query") == 0;
    if (!found) {
        fprintf(stderr, "FAIL: GL_INTEL_performance_query is not advertised\n");
        return 1;
    }
    /* A surfaceless context has no default framebuffer: draw into a renderbuffer. */
    GLuint fbo = 0, rb = 0;
    glGenFramebuffers(1, &fbo);
    glGenRenderbuffers(1, &rb);
    glBindRenderbuffer(GL_RENDERBUFFER, rb);
    glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, 16, 16);
    glBindFramebuffer(GL_FRAMEBUFFER, fbo);
    glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, rb);
    PFNGLGETPERFQUERYIDBYNAMEINTELPROC by_name =
        (PFNGLGETPERFQUERYIDBYNAMEINTELPROC)eglGetProcAddress("glGetPerfQueryIdByNameINTEL");
    PFNGLCREATEPERFQUERYINTELPROC create =
        (PFNGLCREATEPERFQUERYINTELPROC)eglGetProcAddress("glCreatePerfQueryINTEL");
    PFNGLBEGINPERFQUERYINTELPROC begin =
        (PFNGLBEGINPERFQUERYINTELPROC)eglGetProcAddress("glBeginPerfQueryINTEL");
    PFNGLENDPERFQUERYINTELPROC end =
        (PFNGLENDPERFQUERYINTELPROC)eglGetProcAddress("glEndPerfQueryINTEL");
    PFNGLGETPERFQUERYDATAINTELPROC get_data =
        (PFNGLGETPERFQUERYDATAINTELPROC)eglGetProcAddress("glGetPerfQueryDataINTEL");
    PFNGLDELETEPERFQUERYINTELPROC destroy =
        (PFNGLDELETEPERFQUERYINTELPROC)eglGetProcAddress("glDeletePerfQueryINTEL");
    if (!by_name || !create || !begin || !end || !get_data || !destroy) {
        fprintf(stderr, "FAIL: GL_INTEL_performance_query's entry points are missing\n");
        return 1;
    }
    GLuint id = 0, handle = 0;
    by_name((GLchar *)"Pipeline Statistics", &id);
    if (id)
        create(id, &handle);
    if (!handle) {
        fprintf(stderr, "FAIL: no \"Pipeline Statistics\" instance (id %u, error 0x%x)\n", id,
                glGetError());
        return 1;
    }
    /* Called as the linker bound them: libOpenGL's glGenQueries, glBeginQuery, glDrawArrays. */
    GLuint own = 0;
    glGenQueries(1, &own);
    glBeginQuery(GL_PRIMITIVES_GENERATED, own);
    begin(handle);
    glDrawArrays(GL_TRIANGLES, 0, 3 * TRIANGLES);
    end(handle);
    glEndQuery(GL_PRIMITIVES_GENERATED);
    GLuint own_result = 0;
    glGetQueryObjectuiv(own, GL_QUERY_RESULT, &own_result);
    unsigned char data[4096];
    GLuint written = 0;
    get_data(handle, GL_PERFQUERY_WAIT_INTEL, sizeof(data), data, &written);
    uint64_t submitted = counter_value(id, data, written, "Primitives Submitted");
    /* Made of the driver's GL_PRIMITIVES_GENERATED, the target the program's own query holds. */
    uint64_t generated = counter_value(id, data, written, "Primitives Generated");
    GLenum err = glGetError();
    printf("%s: own GL_PRIMITIVES_GENERATED %u, INTEL Primitives Submitted %llu, Primitives "
           "Generated %llu, error 0x%x (%d triangles drawn)\n",
           (const char *)glGetString(GL_RENDERER), own_result, (unsigned long long)submitted,
           (unsigned long long)generated, err, TRIANGLES);
    destroy(handle);
    glDeleteQueries(1, &own);
    glDeleteFramebuffers(1, &fbo);
    glDeleteRenderbuffers(1, &rb);
    eglMakeCurrent(dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(dpy, ctx);
    eglTerminate(dpy);
    return err == GL_NO_ERROR && own_result == TRIANGLES && submitted == TRIANGLES &&
                   generated == TRIANGLES ? 0 : 1;
}
