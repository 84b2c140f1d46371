/*
 * A naive interposer of eglGetProcAddress, as simple tools write one (a swap counter, an
 * overlay): it forwards to dlsym(RTLD_NEXT, "eglGetProcAddress") and is linked to no EGL
 * library. Where the program loaded libEGL itself, RTLD_LOCAL, that lookup finds nothing and it
 * answers NULL; without perfq the program's dlsym on its own handle never reached it. Preloaded
 * after perfq's layer, the layer's eglGetProcAddress reaches it first: the program's own lookups
 * must still be answered (layer_egl.c, library_answer; test dlopen-interposer-after-layer).
 */
#include <EGL/egl.h>
#include <dlfcn.h>
#include <stddef.h>

typedef __eglMustCastToProperFunctionPointerType (*get_proc_fn)(const char *);

__attribute__((visibility("default"))) __eglMustCastToProperFunctionPointerType
eglGetProcAddress(const char *name)
{
    get_proc_fn next = (get_proc_fn)dlsym(RTLD_NEXT, "eglGetProcAddress");
    return next ? next(name) : NULL;
}
