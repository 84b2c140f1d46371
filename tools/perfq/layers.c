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

/* The libOpenCL.so.1 a command started with this environment would load (resolved the same
 * way, through this process's LD_LIBRARY_PATH and the linker cache). */
static int resolve_loader(char *out, size_t size)
{
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

static void ensure_layer_capable_loader(int verbose)
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
                if (verbose)
                    fprintf(stderr, "perfq: the OpenCL loader %s ignores OPENCL_LAYERS; "
                            "preloading %s instead\n", loader, system_loaders[i]);
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
            ensure_layer_capable_loader(verbose);
        if (prepend(layers[i].var, use[i], ":") != 0) {
            fprintf(stderr, "perfq: cannot set %s: out of memory\n", layers[i].var);
            return -1;
        }
        if (verbose)
            fprintf(stderr, "perfq: %s=%s\n", layers[i].var, getenv(layers[i].var));
    }
    return 0;
}
