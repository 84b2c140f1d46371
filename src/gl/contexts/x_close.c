/*
 * XCloseDisplay of a display whose GLX context is still current (glmark2, freeglut and programs
 * built on it end so): glvnd and Mesa unbind the context inside XCloseDisplay, from the close
 * callbacks their GLX registered on the display (XESetCloseDisplay), and GL calls then go to a
 * no-op table. The frames and draws still pending then were counted without GPU results (about
 * the last 20 frames of a run on llvmpipe).
 *
 * So where a front end wants the leave (perfq stat, perfq record), the layer adds its own close
 * callback to each display a GLX context is made current on, at that make-current. Xlib calls a
 * display's close callbacks newest first (XAddExtension puts an extension at the head of the
 * display's list), and the GLX libraries registered theirs at their first call on the display,
 * before any make-current: the layer's runs first, while GL still works, and reads what is
 * pending as at an exit with the context current (perfq_gl_context_display_closing).
 */
#include <pthread.h>
#include <stddef.h>

#include "gl/contexts/layer_internal.h"
#include "gl/dispatch/dispatch.h"

/* Xlib's XExtCodes. */
struct x_ext_codes {
    int extension, major_opcode, first_event, first_error;
};
typedef int (*x_close_proc)(void *dpy, struct x_ext_codes *codes);
typedef struct x_ext_codes *(*x_add_extension_fn)(void *dpy);
typedef x_close_proc (*x_set_close_display_fn)(void *dpy, int extension, x_close_proc proc);

/* The displays watched now: each until its close. A program has a handful; past WATCHED_MAX the
 * later ones go unwatched (their pending frames count without GPU results at such a close). */
#define WATCHED_MAX 64
static void *watched[WATCHED_MAX];
static pthread_mutex_t watched_lock = PTHREAD_MUTEX_INITIALIZER;

static int on_close(void *dpy, struct x_ext_codes *codes)
{
    (void)codes;
    pthread_mutex_lock(&watched_lock);
    for (int i = 0; i < WATCHED_MAX; i++)
        if (watched[i] == dpy)
            watched[i] = NULL;   /* a display opened later at this address is watched anew */
    pthread_mutex_unlock(&watched_lock);
    perfq_gl_context_display_closing(dpy);
    return 0;
}

void perfq_gl_watch_display_close(void *dpy)
{
    if (!dpy)
        return;
    /* The slot is taken under the lock, the Xlib calls made without it (they take the
     * display's own lock). */
    pthread_mutex_lock(&watched_lock);
    int slot = -1;
    for (int i = 0; i < WATCHED_MAX; i++) {
        if (watched[i] == dpy) {
            pthread_mutex_unlock(&watched_lock);
            return;
        }
        if (!watched[i] && slot < 0)
            slot = i;
    }
    if (slot >= 0)
        watched[slot] = dpy;
    pthread_mutex_unlock(&watched_lock);
    if (slot < 0)
        return;
    x_add_extension_fn add_extension =
        (x_add_extension_fn)perfq_gl_x11_symbol("XAddExtension");
    x_set_close_display_fn set_close_display =
        (x_set_close_display_fn)perfq_gl_x11_symbol("XESetCloseDisplay");
    struct x_ext_codes *codes = add_extension && set_close_display ? add_extension(dpy) : NULL;
    if (codes) {
        set_close_display(dpy, codes->extension, on_close);
        return;
    }
    pthread_mutex_lock(&watched_lock);
    if (watched[slot] == dpy)
        watched[slot] = NULL;
    pthread_mutex_unlock(&watched_lock);
}
