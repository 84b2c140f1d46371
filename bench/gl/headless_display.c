#include "headless_display.h"

#include <EGL/eglext.h>
#include <string.h>

EGLDisplay bench_headless_display(void)
{
    PFNEGLGETPLATFORMDISPLAYEXTPROC gpd =
        (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
    const char *cext = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    EGLDisplay dpy = EGL_NO_DISPLAY;
    if (gpd && cext && strstr(cext, "EGL_EXT_platform_device")) {
        PFNEGLQUERYDEVICESEXTPROC qd =
            (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
        EGLDeviceEXT dev;
        EGLint n = 0;
        if (qd && qd(1, &dev, &n) && n > 0)
            dpy = gpd(EGL_PLATFORM_DEVICE_EXT, dev, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    if (dpy == EGL_NO_DISPLAY && gpd && cext && strstr(cext, "EGL_MESA_platform_surfaceless")) {
        dpy = gpd(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
        if (dpy != EGL_NO_DISPLAY && !eglInitialize(dpy, NULL, NULL))
            dpy = EGL_NO_DISPLAY;
    }
    return dpy;
}
