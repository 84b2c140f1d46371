/*
 * libperfq-gl-dlopen-{egl,gl,opengl,glesv2}.so: what the layer's dlopen wrapper (layer_dlopen.c)
 * returns to a program that dlopen()s that GL library itself. It holds no code: its dependencies
 * are the point. They are libperfq-gl.so first (already loaded: the same copy), then that one GL
 * library, so dlsym() on its handle finds the layer's wrappers before the driver's functions and
 * the driver's for every other name. A program loads only the proxies of the libraries it opens,
 * so only the GL libraries it uses; libperfq-gl.so itself links none.
 */
typedef int perfq_gl_dlopen_proxy_has_no_code;
