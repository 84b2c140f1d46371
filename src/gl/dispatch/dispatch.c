/*
 * The real driver functions: looked up once, kept in a table, called through it.
 *
 * Lookup order (apitrace's wrappers/glproc_egl.cpp): dlsym(RTLD_NEXT) first, which finds the
 * library after the layer in the program's search order (the one the program would have called);
 * then the sonames the process has already loaded (the program's dlopen()s: RTLD_NOLOAD, so the
 * layer never loads a GL library the program does not use); then the real eglGetProcAddress /
 * glXGetProcAddressARB last, because some implementations return a non-NULL stub for any name.
 */
#include "gl/dispatch/dispatch.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

struct perfq_gl_dispatch perfq_gl_real_table;
struct perfq_gl_dispatch_looked_up perfq_gl_real_looked_up;
int perfq_gl_real_table_ready;
#define real_table perfq_gl_real_table
static pthread_once_t real_table_once = PTHREAD_ONCE_INIT;

/* The real dlsym: the layer does not wrap dlsym, but another preloaded library may (apitrace's
 * "protect against dlsym interception", wrappers/dlsym.cpp): take glibc's own, by version. */
typedef void *(*dlsym_fn)(void *, const char *);
typedef void *(*dlopen_fn)(const char *, int);
static dlsym_fn real_dlsym_ptr;
static dlopen_fn real_dlopen_ptr;
/* Where libperfq-gl-lazy.so loaded the layer at the program's first GL call (lazy_preload.c),
 * the layer is not in the program's symbol scope and dlsym(RTLD_NEXT) from here finds no driver:
 * the stub's perfq_gl_lazy_next looks the name up after the stub instead (NULL where the stub
 * did not load the layer). Then the layer's own dlsym(RTLD_NEXT) searches only its own
 * dependencies (libperfq.so, libc), which hold no GL function: it is skipped (stub_loaded). */
typedef void *(*next_fn)(const char *);
static next_fn lazy_next;
static int stub_loaded;
static pthread_once_t real_dl_once = PTHREAD_ONCE_INIT;

/* The layer's own address range: a lookup that lands in it found the layer's wrapper, not the
 * driver (the layer in the global scope after the stub: see proxy_handle in layer_dlopen.c),
 * and calling it as the driver's would call the layer again, forever. */
static uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t me = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t start = info->dlpi_addr + ph->p_vaddr, end = start + ph->p_memsz;
        lo = start < lo ? start : lo;
        hi = end > hi ? end : hi;
    }
    if (me < lo || me >= hi)
        return 0;
    self_lo = lo;
    self_hi = hi;
    return 1;
}

static int in_self(const void *p)
{
    return (uintptr_t)p >= self_lo && (uintptr_t)p < self_hi;
}

static void resolve_dl(void)
{
    dl_iterate_phdr(find_self, (void *)(uintptr_t)&find_self);
    static const char *const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", NULL};
    for (int i = 0; versions[i] && !real_dlsym_ptr; i++)
        real_dlsym_ptr = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", versions[i]);
    if (!real_dlsym_ptr)
        real_dlsym_ptr = dlsym;
    for (int i = 0; versions[i] && !real_dlopen_ptr; i++)
        real_dlopen_ptr = (dlopen_fn)dlvsym(RTLD_NEXT, "dlopen", versions[i]);
    if (!real_dlopen_ptr)
        real_dlopen_ptr = (dlopen_fn)real_dlsym_ptr(RTLD_NEXT, "dlopen");
    lazy_next = (next_fn)real_dlsym_ptr(RTLD_DEFAULT, "perfq_gl_lazy_next");
    /* A NULL name asks the stub whether it loaded the layer (a stub older than this question
     * answers NULL: the layer then searches after itself as well, as before). */
    stub_loaded = lazy_next && lazy_next(NULL) != NULL;
}

void *perfq_gl_real_dlsym(void *handle, const char *name)
{
    pthread_once(&real_dl_once, resolve_dl);
    return real_dlsym_ptr(handle, name);
}

void *perfq_gl_real_dlopen(const char *file, int flags)
{
    pthread_once(&real_dl_once, resolve_dl);
    return real_dlopen_ptr ? real_dlopen_ptr(file, flags) : NULL;
}

void *perfq_gl_x11_symbol(const char *name)
{
    /* The NOLOAD's reference is kept: the functions found stay callable (the GLX fence waiter
     * closes its display with XCloseDisplay later) even if the program unloads its GL. */
    void *lib = perfq_gl_real_dlopen("libX11.so.6", RTLD_LAZY | RTLD_NOLOAD);
    return lib ? perfq_gl_real_dlsym(lib, name) : NULL;
}

/* The GL libraries by the prefix of the names they hold (glvnd sonames first). Each is looked
 * up (under resolve_lock) until the process has loaded it: RTLD_NOLOAD, so the layer loads none
 * itself, and RTLD_LOCAL so that the program's symbol scope is not changed. A soname that was
 * not loaded is tried again only once the process has loaded some object since (glibc's load
 * count, dlpi_adds): a dlopen that finds nothing still searches the library path and maps and
 * unmaps ld.so.cache, about 0.4 ms of system time, and the table alone looks up some 200 names,
 * most of them in sonames a program never loads (libGL.so in an EGL program): that was 0.3 s
 * of every layered run's start on llvmpipe (docs/perfq-stat.md, the slowdown).
 * And it is tried only where a loaded object's file name begins with the soname's stem (up to
 * ".so": libGL.so.1.7.0 for libGL.so.1), read from the process's list of objects: a failed
 * dlopen still opened each folder's candidate file (the layer's RUNPATH, then the system's,
 * where libGLX.so.0 exists but is not loaded in an EGL program), 8 of them at the table's
 * resolution and again after each load: 0.4 ms on the H200 and 1.0 ms here on llvmpipe
 * (docs/perfq-stat.md, "The GL layer's fixed cost"). A GL library loaded from a file named
 * otherwise is still reached through the GetProcAddress functions below. */
struct soname {
    const char *name;
    void *handle;
    unsigned long long tried_at;   /* 1 + the load count of the last failed try; 0: never */
};
static struct soname egl_sonames[] = {{"libEGL.so.1", NULL, 0}, {"libEGL.so", NULL, 0}, {0}};
static struct soname glx_sonames[] = {{"libGLX.so.0", NULL, 0}, {"libGL.so.1", NULL, 0},
                                      {"libGL.so", NULL, 0}, {0}};
static struct soname gl_sonames[] = {{"libOpenGL.so.0", NULL, 0}, {"libGL.so.1", NULL, 0},
                                     {"libGLESv2.so.2", NULL, 0}, {"libGL.so", NULL, 0}, {0}};

static int first_object(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1;   /* the count is the same in every object's info: stop at the first */
}

/* How many objects the process has loaded so far (never decreases). */
static unsigned long long loads(void)
{
    unsigned long long adds = 0;
    dl_iterate_phdr(first_object, &adds);
    return adds;
}

/* Whether a loaded object's file name begins with soname's stem (see above). */
struct stem_search {
    const char *stem;
    size_t len;
    int found;
};

static int object_named(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct stem_search *s = data;
    const char *name = info->dlpi_name;
    if (!name)
        return 0;
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    s->found = strncmp(base, s->stem, s->len) == 0 &&
               (base[s->len] == '\0' || base[s->len] == '.');
    return s->found;
}

static int soname_maybe_loaded(const char *soname)
{
    const char *so = strstr(soname, ".so");
    struct stem_search s = {soname, so ? (size_t)(so - soname) + 3 : strlen(soname), 0};
    dl_iterate_phdr(object_named, &s);
    return s.found;
}

static void *lookup_in_sonames(struct soname *list, const char *name)
{
    unsigned long long adds = 0;
    int have_adds = 0;
    for (int i = 0; list[i].name; i++) {
        if (!list[i].handle) {
            if (!have_adds) {
                adds = loads();
                have_adds = 1;
            }
            if (list[i].tried_at == adds + 1)
                continue;   /* not loaded at the last try, and nothing was loaded since */
            if (soname_maybe_loaded(list[i].name))
                list[i].handle = perfq_gl_real_dlopen(list[i].name,
                                                      RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
            if (!list[i].handle)
                list[i].tried_at = adds + 1;
        }
        if (list[i].handle) {
            void *p = perfq_gl_real_dlsym(list[i].handle, name);
            if (p)
                return p;
        }
    }
    return NULL;
}

static pthread_mutex_t resolve_lock = PTHREAD_MUTEX_INITIALIZER;

/* libEGL's own eglGetProcAddress, where it is not the table's: the table's is the next
 * definition after the layer, which may be another interposer preloaded after perfq that looks
 * the name up with dlsym(RTLD_NEXT) and finds nothing where the program loaded libEGL itself,
 * RTLD_LOCAL (ANGLE does). NULL otherwise. Under resolve_lock. */
static PFNEGLGETPROCADDRESSPROC egl_library_proc_unlocked(void)
{
    void *own = lookup_in_sonames(egl_sonames, "eglGetProcAddress");
    PFNEGLGETPROCADDRESSPROC f;
    memcpy(&f, &own, sizeof f);
    return f && f != real_table.eglGetProcAddress ? f : NULL;
}

static void *resolve_unlocked(const char *name)
{
    pthread_once(&real_dl_once, resolve_dl);
    void *p = lazy_next ? lazy_next(name) : NULL;
    if (!p && !stub_loaded)
        p = perfq_gl_real_dlsym(RTLD_NEXT, name);
    if (p && !in_self(p))
        return p;
    struct soname *list = gl_sonames;
    if (strncmp(name, "egl", 3) == 0)
        list = egl_sonames;
    else if (strncmp(name, "glX", 3) == 0)
        list = glx_sonames;
    p = lookup_in_sonames(list, name);
    if (p)
        return p;
    /* Extension entry points that no library exports by name. */
    if (strncmp(name, "egl", 3) != 0 && strncmp(name, "glX", 3) != 0) {
        if (real_table.eglGetProcAddress) {
            p = (void *)real_table.eglGetProcAddress(name);
            if (p)
                return p;
        }
        if (real_table.glXGetProcAddressARB)
            p = (void *)real_table.glXGetProcAddressARB((const GLubyte *)name);
    } else if (strncmp(name, "egl", 3) == 0 && real_table.eglGetProcAddress) {
        p = (void *)real_table.eglGetProcAddress(name);
    }
    if (!p && strncmp(name, "glX", 3) != 0 && real_table.eglGetProcAddress) {
        PFNEGLGETPROCADDRESSPROC own = egl_library_proc_unlocked();
        if (own)
            p = (void *)own(name);
    }
    return p;
}

void (*perfq_gl_egl_library_proc(const char *name))(void)
{
    perfq_gl_dispatch();
    pthread_mutex_lock(&resolve_lock);
    PFNEGLGETPROCADDRESSPROC own = egl_library_proc_unlocked();
    pthread_mutex_unlock(&resolve_lock);
    return own ? own(name) : NULL;
}

void (*perfq_gl_resolve(const char *name))(void)
{
    perfq_gl_dispatch();
    pthread_mutex_lock(&resolve_lock);
    void *p = resolve_unlocked(name);
    pthread_mutex_unlock(&resolve_lock);
    void (*fn)(void);
    memcpy(&fn, &p, sizeof fn);
    return fn;
}

/* The objects loaded when the table was last looked at (loads()), and which of the lists' GL
 * libraries were loaded then (gl_libraries_loaded): see perfq_gl_dispatch_refresh. */
static unsigned long long loads_at_refresh;
static unsigned gl_libraries_at_refresh;

/* A bit for each entry of the lists whose library is loaded now. */
static unsigned gl_libraries_loaded(void)
{
    struct soname *lists[] = {egl_sonames, glx_sonames, gl_sonames};
    unsigned mask = 0, bit = 1;
    for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
        for (int i = 0; lists[l][i].name; i++, bit <<= 1)
            if (lists[l][i].handle || soname_maybe_loaded(lists[l][i].name))
                mask |= bit;
    return mask;
}

/* 1 if a GL library is loaded now that was not at the last look (a program that loads other
 * libraries after GL, Python's extension modules, pays no lookup for them). */
static int gl_library_appeared(void)
{
    unsigned now = gl_libraries_loaded();
    int appeared = (now & ~gl_libraries_at_refresh) != 0;
    gl_libraries_at_refresh |= now;
    return appeared;
}

void perfq_gl_dispatch_refresh(void)
{
    if (!__atomic_load_n(&perfq_gl_real_table_ready, __ATOMIC_ACQUIRE))
        return;     /* resolved later, with what is loaded then */
    unsigned long long now = loads();
    if (now == __atomic_load_n(&loads_at_refresh, __ATOMIC_RELAXED))
        return;     /* nothing loaded since: a program's dlopen of a library already there */
    pthread_mutex_lock(&resolve_lock);
    __atomic_store_n(&loads_at_refresh, now, __ATOMIC_RELAXED);
    if (!gl_library_appeared()) {
        pthread_mutex_unlock(&resolve_lock);
        return;
    }
    /* Only members still NULL: one a thread may be calling now is never replaced. The two
     * GetProcAddress functions first, the fallback for the rest. An L line looked up as NULL
     * is looked up again at its wrapper's next call. */
    void *p;
#define PERFQ_GL_REFILL(type, name) \
    if (!__atomic_load_n((void **)(void *)&real_table.name, __ATOMIC_ACQUIRE) && \
        (p = resolve_unlocked(#name)) != NULL) \
        __atomic_store_n((void **)(void *)&real_table.name, p, __ATOMIC_RELEASE);
#define PERFQ_GL_REFILL_LATER(type, name) \
    if (!__atomic_load_n((void **)(void *)&real_table.name, __ATOMIC_ACQUIRE)) \
        __atomic_store_n(&perfq_gl_real_looked_up.name, 0, __ATOMIC_RELEASE);
    PERFQ_GL_REFILL(PFNEGLGETPROCADDRESSPROC, eglGetProcAddress)
    PERFQ_GL_REFILL(perfq_PFNGLXGETPROCADDRESSPROC, glXGetProcAddressARB)
    PERFQ_GL_FUNCTIONS(PERFQ_GL_REFILL, PERFQ_GL_REFILL, PERFQ_GL_REFILL_LATER)
#undef PERFQ_GL_REFILL_LATER
#undef PERFQ_GL_REFILL
    pthread_mutex_unlock(&resolve_lock);
}

static void resolve_table(void)
{
    pthread_mutex_lock(&resolve_lock);
    /* The two GetProcAddress functions first: the fallback for everything else. */
    void *p = resolve_unlocked("eglGetProcAddress");
    memcpy(&real_table.eglGetProcAddress, &p, sizeof p);
    p = resolve_unlocked("glXGetProcAddressARB");
    memcpy(&real_table.glXGetProcAddressARB, &p, sizeof p);
#define PERFQ_GL_RESOLVE(type, name) \
    p = resolve_unlocked(#name); \
    memcpy(&real_table.name, &p, sizeof p);
#define PERFQ_GL_RESOLVE_WRAPPED(type, name) \
    PERFQ_GL_RESOLVE(type, name) \
    __atomic_store_n(&perfq_gl_real_looked_up.name, 1, __ATOMIC_RELEASE);
    /* L lines are not looked up here: each at its wrapper's first call (below). */
#define PERFQ_GL_LATER(type, name)
    PERFQ_GL_FUNCTIONS(PERFQ_GL_RESOLVE, PERFQ_GL_RESOLVE_WRAPPED, PERFQ_GL_LATER)
#undef PERFQ_GL_LATER
#undef PERFQ_GL_RESOLVE_WRAPPED
#undef PERFQ_GL_RESOLVE
    __atomic_store_n(&loads_at_refresh, loads(), __ATOMIC_RELAXED);
    gl_libraries_at_refresh = gl_libraries_loaded();
    pthread_mutex_unlock(&resolve_lock);
    __atomic_store_n(&perfq_gl_real_table_ready, 1, __ATOMIC_RELEASE);
}

/* An L line's real function, at its wrapper's first call (PERFQ_GL_WRAPPED_REAL): looked up as
 * the table's are, once. Each of the table's lookups costs a program that never calls the
 * function: an EGL program on glvnd gets most GL functions from eglGetProcAddress, about 8000
 * instructions and a getpid system call each on llvmpipe (docs/perfq-stat.md, "The GL layer's
 * fixed cost"). A member something else already set (a benchmark's counting function) is kept. */
void perfq_gl_resolve_wrapped(const char *name, size_t offset, int *looked_up)
{
    perfq_gl_dispatch();
    pthread_mutex_lock(&resolve_lock);
    if (!__atomic_load_n(looked_up, __ATOMIC_ACQUIRE)) {
        void **slot = (void **)(void *)((char *)&real_table + offset);
        if (!__atomic_load_n(slot, __ATOMIC_ACQUIRE))
            __atomic_store_n(slot, resolve_unlocked(name), __ATOMIC_RELEASE);
        __atomic_store_n(looked_up, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&resolve_lock);
}

void perfq_gl_resolve_wrapped_all(void)
{
#define PERFQ_GL_NOTHING(type, name)
#define PERFQ_GL_LOOK_UP(type, name) (void)PERFQ_GL_WRAPPED_REAL(name);
    PERFQ_GL_FUNCTIONS(PERFQ_GL_NOTHING, PERFQ_GL_NOTHING, PERFQ_GL_LOOK_UP)
#undef PERFQ_GL_LOOK_UP
#undef PERFQ_GL_NOTHING
}

const struct perfq_gl_dispatch *perfq_gl_dispatch_slow(void)
{
    pthread_once(&real_table_once, resolve_table);
    return &real_table;
}
