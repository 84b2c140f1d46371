/*
 * libperfq-gl-dlopen.so: what the layer's dlopen wrapper (layer_dlopen.c) returns to a program
 * that dlopen()s a GL library itself. It holds no code: its dependencies are the point. They are
 * libperfq-gl.so first (already loaded: the same copy), then the GL libraries, so dlsym() on its
 * handle finds the layer's wrappers before the driver's functions and the driver's for every
 * other name. Only such programs load it, so only they load the GL libraries through the layer;
 * libperfq-gl.so itself links none.
 */
typedef int perfq_gl_dlopen_proxy_has_no_code;
