/*
 * Finding perfq's layers and putting them into a command's environment (perfq run, perfq stat).
 * Where: $PERFQ_LAYER_DIR; else, when perfq runs from its build tree, the build's src/gl and
 * src/cl; else the install libdir. The GL layer goes first in LD_PRELOAD, the OpenCL layer
 * first in OPENCL_LAYERS (both keep what the user had there).
 *
 * OPENCL_LAYERS is read by the ICD loader, and not every loader reads it: NVIDIA's CUDA
 * toolkit ships a small libOpenCL.so.1 that ignores it, and CUDA setups put that one first on
 * LD_LIBRARY_PATH. When the loader the command would get ignores layers, perfq preloads a
 * system loader that honours them (same soname and ICD files, so the program's own
 * libOpenCL.so.1 dependency binds to it), or warns when there is none.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static int find_layer(const char *file, const char *build_subdir, char *out, size_t size)
{
    const char *dir = getenv("PERFQ_LAYER_DIR");
    if (dir && *dir) {
        snprintf(out, size, "%s/%s", dir, file);
        return access(out, R_OK) == 0 ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';   /* build/tools/perfq -> build/src/<layer> */
            snprintf(out, size, "%s/../../%s/%s", exe, build_subdir, file);
            if (access(out, R_OK) == 0)
                return 0;
        }
    }
    snprintf(out, size, "%s/%s", PERFQ_LIBDIR, file);
    return access(out, R_OK) == 0 ? 0 : -1;
}

/* Does the ICD loader at path read OPENCL_LAYERS? Both ocl-icd and the Khronos loader name the
 * variable in their code; loaders without layer support do not. */
static int loader_reads_layers(const char *path)
{
    static const char needle[] = "OPENCL_LAYERS";
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    char buf[65536 + sizeof(needle)];
    size_t keep = 0, n;
    int found = 0;
    while (!found && (n = fread(buf + keep, 1, sizeof(buf) - keep, f)) > 0) {
        size_t len = keep + n;
        found = memmem(buf, len, needle, sizeof(needle) - 1) != NULL;
        keep = len < sizeof(needle) ? len : sizeof(needle) - 1;
        memmove(buf, buf + len - keep, keep);
    }
    fclose(f);
    return found;
}

/* The linker cache's entry for libOpenCL.so.1 (/etc/ld.so.cache, glibc's format
 * "glibc-ld.so.cache1.1": a header, then 24-byte entries whose name and path are offsets from
 * the file's start), when it has exactly one for this machine's ABI and no hardware-capability
 * variant: what the dynamic loader takes when LD_LIBRARY_PATH does not name one. Anything else
 * (another format, several entries, none: the default directories then decide) is left to
 * resolve_loader's dlopen. Reading the cache costs one open and read; the dlopen it replaces,
 * loading and unloading the ICD loader, cost about 1 ms of CPU per perfq run on the 2-core VM
 * (docs/perfq-stat.md, "perfq stat's own cost"). */
static int cached_loader(char *out, size_t size)
{
#if defined(__x86_64__)
    const int32_t abi = 0x0303;   /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
    const int32_t abi = 0x0a03;   /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#else
    const int32_t abi = -1;
#endif
    static const char magic[] = "glibc-ld.so.cache1.1";
    static const char name[] = "libOpenCL.so.1";
    if (abi < 0)
        return -1;
    FILE *f = fopen("/etc/ld.so.cache", "rbe");
    if (!f)
        return -1;
    char *buf = NULL;
    size_t len = 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long end = ftell(f);
        if (end > 48 && end < (64l << 20) && fseek(f, 0, SEEK_SET) == 0 &&
            (buf = malloc((size_t)end + 1)) && fread(buf, 1, (size_t)end, f) == (size_t)end)
            len = (size_t)end;
    }
    fclose(f);
    int found = 0, rc = -1;
    if (len && memcmp(buf, magic, sizeof(magic) - 1) == 0) {
        buf[len] = '\0';
        uint32_t nlibs;
        memcpy(&nlibs, buf + 20, sizeof(nlibs));
        for (uint32_t i = 0; i < nlibs && 48 + ((size_t)i + 1) * 24 <= len && found < 2; i++) {
            const char *e = buf + 48 + (size_t)i * 24;
            int32_t flags;
            uint32_t key, value;
            uint64_t hwcap;
            memcpy(&flags, e, 4);
            memcpy(&key, e + 4, 4);
            memcpy(&value, e + 8, 4);
            memcpy(&hwcap, e + 16, 8);
            if (key >= len || value >= len || strcmp(buf + key, name) != 0)
                continue;
            /* Another ABI's entry is not ours; a variant (hwcap) or a second entry: dlopen. */
            if ((flags & 0xffff) != abi)
                continue;
            if (hwcap || found++)
                found = 2;
            else
                snprintf(out, size, "%s", buf + value);
        }
        rc = found == 1 && out[0] == '/' ? 0 : -1;
    }
    free(buf);
    return rc;
}

/* The libOpenCL.so.1 a command started with this environment would load (resolved the same
 * way, through this process's LD_LIBRARY_PATH and the linker cache). */
static int resolve_loader(char *out, size_t size)
{
    const char *path = getenv("LD_LIBRARY_PATH");
    if ((!path || !*path) && cached_loader(out, size) == 0)
        return 0;
    void *h = dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h)
        return -1;
    struct link_map *map = NULL;
    int rc = -1;
    if (dlinfo(h, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && map->l_name[0]) {
        snprintf(out, size, "%s", map->l_name);
        rc = 0;
    }
    dlclose(h);
    return rc;
}

static int prepend(const char *var, const char *value, const char *sep)
{
    const char *old = getenv(var);
    if (!old || !*old)
        return setenv(var, value, 1);
    size_t len = strlen(value) + strlen(sep) + strlen(old) + 1;
    char *joined = malloc(len);
    if (!joined)
        return -1;
    snprintf(joined, len, "%s%s%s", value, sep, old);
    int rc = setenv(var, joined, 1);
    free(joined);
    return rc;
}

static void ensure_layer_capable_loader(void)
{
    static const char *const system_loaders[] = {
        "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1", "/usr/lib/aarch64-linux-gnu/libOpenCL.so.1",
        "/usr/lib64/libOpenCL.so.1", "/usr/lib/libOpenCL.so.1",
    };
    char loader[PATH_MAX];
    if (resolve_loader(loader, sizeof(loader)) != 0 || loader_reads_layers(loader))
        return;   /* no OpenCL here, or a loader that reads OPENCL_LAYERS */
    for (size_t i = 0; i < sizeof(system_loaders) / sizeof(system_loaders[0]); i++) {
        if (access(system_loaders[i], R_OK) == 0 && loader_reads_layers(system_loaders[i])) {
            if (prepend("LD_PRELOAD", system_loaders[i], ":") == 0) {
                /* Always said, not only with -v: another loader may list the platforms in
                 * another order, and a program that takes the first platform then runs on
                 * another device than without perfq (CUDA's loader lists PoCL before NVIDIA on
                 * the GPU machine, ocl-icd NVIDIA first: docs/opencl-layer.md). */
                fprintf(stderr, "perfq: the OpenCL loader %s ignores OPENCL_LAYERS; preloading "
                        "%s instead (its order of OpenCL platforms may differ)\n", loader,
                        system_loaders[i]);
                return;
            }
        }
    }
    fprintf(stderr, "perfq: warning: the OpenCL loader %s ignores OPENCL_LAYERS and no loader "
            "that reads it was found: the OpenCL layer will not load (install ocl-icd)\n",
            loader);
}

/* ld.so splits LD_PRELOAD at spaces and colons, the OpenCL loaders split OPENCL_LAYERS at
 * colons, and neither has a way to quote: a path holding one cannot be named there. */
static const char *separator_in(const char *path, const char *separators)
{
    const char *at = strpbrk(path, separators);
    return at ? (*at == ' ' ? "a space" : *at == ':' ? "':'" : "a tab or newline") : NULL;
}

int layers_inject(int verbose)
{
    static const struct {
        const char *file, *build_subdir, *var, *separators;
        int built;
    } layers[] = {
        {"libperfq-gl.so", "src/gl", "LD_PRELOAD", " :\t\n", PERFQ_HAVE_GL_LAYER},
        {"libperfq-cl.so", "src/cl", "OPENCL_LAYERS", ":", PERFQ_HAVE_CL_LAYER},
    };
    char use[sizeof(layers) / sizeof(layers[0])][PATH_MAX + 64];
    /* Every layer is checked before the environment changes: all or none. */
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        use[i][0] = '\0';
        if (!layers[i].built) {
            if (verbose)
                fprintf(stderr, "perfq: this build has no %s (configured without it)\n",
                        layers[i].file);
            continue;
        }
        char path[PATH_MAX + 64], real[PATH_MAX];
        if (find_layer(layers[i].file, layers[i].build_subdir, path, sizeof(path)) != 0) {
            const char *dir = getenv("PERFQ_LAYER_DIR");
            if (dir && *dir)
                fprintf(stderr, "perfq: cannot inject the layer %s: not found in "
                        "PERFQ_LAYER_DIR=%s; not running the command without it\n",
                        layers[i].file, dir);
            else
                fprintf(stderr, "perfq: cannot inject the layer %s: not found in the build "
                        "tree or in %s (set PERFQ_LAYER_DIR); not running the command without "
                        "it\n", layers[i].file, PERFQ_LIBDIR);
            return -1;
        }
        /* The resolved path, or the path as found when only that one can be named. */
        const char *chosen = realpath(path, real) ? real : path;
        if (separator_in(chosen, layers[i].separators) && !separator_in(path, layers[i].separators))
            chosen = path;
        const char *bad = separator_in(chosen, layers[i].separators);
        if (bad) {
            fprintf(stderr, "perfq: cannot inject the layer %s: its path holds %s, which %s "
                    "takes as a separator and cannot quote; move it (or set PERFQ_LAYER_DIR) to "
                    "a directory without one\n", chosen, bad, layers[i].var);
            return -1;
        }
        snprintf(use[i], sizeof(use[i]), "%s", chosen);
    }
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        if (!use[i][0])
            continue;
        if (strcmp(layers[i].var, "OPENCL_LAYERS") == 0)
            ensure_layer_capable_loader();
        if (prepend(layers[i].var, use[i], ":") != 0) {
            fprintf(stderr, "perfq: cannot set %s: out of memory\n", layers[i].var);
            return -1;
        }
        if (verbose)
            fprintf(stderr, "perfq: %s=%s\n", layers[i].var, getenv(layers[i].var));
    }
    return 0;
}
