/*
 * Finding perfq's layers and putting them into a command's environment (perfq run, perfq stat).
 * Where: $PERFQ_LAYER_DIR; else, when perfq runs from its build tree, the build's src/gl and
 * src/cl; else the install libdir. The GL layer goes first in LD_PRELOAD, the OpenCL layer
 * first in OPENCL_LAYERS (both keep what the user had there).
 */
#include <limits.h>
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

int layers_inject(int verbose)
{
    static const struct {
        const char *file, *build_subdir, *var, *sep;
    } layers[] = {
        {"libperfq-gl.so", "src/gl", "LD_PRELOAD", ":"},
        {"libperfq-cl.so", "src/cl", "OPENCL_LAYERS", ":"},
    };
    int found = 0;
    for (size_t i = 0; i < sizeof(layers) / sizeof(layers[0]); i++) {
        char path[PATH_MAX + 64];
        if (find_layer(layers[i].file, layers[i].build_subdir, path, sizeof(path)) != 0) {
            if (verbose)
                fprintf(stderr, "perfq: layer %s not found (looked in $PERFQ_LAYER_DIR, "
                        "the build tree, %s)\n", layers[i].file, PERFQ_LIBDIR);
            continue;
        }
        char real[PATH_MAX];
        const char *use = realpath(path, real) ? real : path;
        if (prepend(layers[i].var, use, layers[i].sep) == 0) {
            found++;
            if (verbose)
                fprintf(stderr, "perfq: %s=%s\n", layers[i].var, getenv(layers[i].var));
        }
    }
    return found;
}
