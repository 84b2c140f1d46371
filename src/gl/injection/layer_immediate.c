/*
 * The compatibility profile's immediate mode, wrapped only to note that a context used it:
 * Mesa buffers glBegin/glEnd and glRect vertices (and a display list may replay through that
 * buffer), and its glQueryCounter does not flush them, so a stamp point made after them would be
 * binned before them (measured: 4000 glRectf read 5 ms against 180-240 ms of wall). A context
 * that used any of these gets a flush before each stamp point (timer_points.c); one that never
 * did is spared that second, empty batch a frame. The note costs a thread-local load and a
 * store; the call is forwarded unchanged.
 *
 * glNewList and glEndList are wrapped to note that a display list is being compiled
 * (compiling_list, layer_internal.h): what the layer calls at a draw then (--per-draw's query
 * begin and end) would be compiled into the list and replayed at every glCallList, breaking the
 * program's own queries and the frame's statistics; and a draw under GL_COMPILE does not run.
 * Draws replayed by glCallList are not seen (as glMultiDraw*); the frame's statistics count
 * their vertices.
 */
#include "gl/contexts/layer_internal.h"

static void note_immediate(void)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    if (c)
        c->immediate_mode_seen = 1;
}

#define IMMEDIATE(name, ...)                                                            \
    do {                                                                                \
        note_immediate();                                                               \
        __typeof__(perfq_gl_real_table.name) real_fn = PERFQ_GL_WRAPPED_REAL(name);     \
        if (real_fn)                                                                    \
            real_fn(__VA_ARGS__);                                                       \
    } while (0)

PERFQ_GL_EXPORT void glBegin(GLenum mode) { IMMEDIATE(glBegin, mode); }
PERFQ_GL_EXPORT void glRectd(GLdouble x1, GLdouble y1, GLdouble x2, GLdouble y2)
{
    IMMEDIATE(glRectd, x1, y1, x2, y2);
}
PERFQ_GL_EXPORT void glRectf(GLfloat x1, GLfloat y1, GLfloat x2, GLfloat y2)
{
    IMMEDIATE(glRectf, x1, y1, x2, y2);
}
PERFQ_GL_EXPORT void glRecti(GLint x1, GLint y1, GLint x2, GLint y2)
{
    IMMEDIATE(glRecti, x1, y1, x2, y2);
}
PERFQ_GL_EXPORT void glRects(GLshort x1, GLshort y1, GLshort x2, GLshort y2)
{
    IMMEDIATE(glRects, x1, y1, x2, y2);
}
PERFQ_GL_EXPORT void glRectdv(const GLdouble *v1, const GLdouble *v2) { IMMEDIATE(glRectdv, v1, v2); }
PERFQ_GL_EXPORT void glRectfv(const GLfloat *v1, const GLfloat *v2) { IMMEDIATE(glRectfv, v1, v2); }
PERFQ_GL_EXPORT void glRectiv(const GLint *v1, const GLint *v2) { IMMEDIATE(glRectiv, v1, v2); }
PERFQ_GL_EXPORT void glRectsv(const GLshort *v1, const GLshort *v2) { IMMEDIATE(glRectsv, v1, v2); }
PERFQ_GL_EXPORT void glCallList(GLuint list) { IMMEDIATE(glCallList, list); }
PERFQ_GL_EXPORT void glCallLists(GLsizei n, GLenum type, const void *lists)
{
    IMMEDIATE(glCallLists, n, type, lists);
}

PERFQ_GL_EXPORT void glNewList(GLuint list, GLenum mode)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    __typeof__(perfq_gl_real_table.glNewList) real_fn = PERFQ_GL_WRAPPED_REAL(glNewList);
    if (real_fn)
        real_fn(list, mode);
    /* Only a call that can start a list: list 0 and other modes are errors, and a glNewList
     * while compiling is one too (INVALID_OPERATION): the list open stays the one noted. */
    if (c && !c->compiling_list && list != 0 &&
        (mode == GL_COMPILE || mode == GL_COMPILE_AND_EXECUTE)) {
        c->compiling_list = mode;
        c->draw_calls_at_new_list = atomic_load_explicit(&c->draw_calls, memory_order_relaxed);
    }
}

PERFQ_GL_EXPORT void glEndList(void)
{
    struct perfq_gl_ctx *c = perfq_gl_active_context();
    __typeof__(perfq_gl_real_table.glEndList) real_fn = PERFQ_GL_WRAPPED_REAL(glEndList);
    if (real_fn)
        real_fn();
    if (c && c->compiling_list) {
        if (c->compiling_list == GL_COMPILE)   /* its draws were compiled, none ran */
            atomic_store_explicit(&c->draw_calls, c->draw_calls_at_new_list,
                                  memory_order_relaxed);
        c->compiling_list = 0;
    }
}
