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
 * libOpenCL.so.1 dependency binds to it), or warns when there is none. That loader (ocl-icd)
 * would order the platforms its own way, so perfq makes it list them in the order the
 * program's own loader gives, where it can check that it does (docs/opencl-layer.md, "Loaders").
 */
#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "core/cache_dir.h"
#include "core/injected_env.h"

void cli_note_injected(const char *var, const char *value, int prepend)
{
    static char spec[PERFQ_INJECTED_MAX];
    if (perfq_injected_append(spec, sizeof(spec), var, prepend, value) == 0)
        setenv(PERFQ_INJECTED_ENV, spec, 1);
}

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

/* The file at path, mapped read-only (*len its size); NULL when it cannot be, or is empty or
 * over 64 MiB. Mapped, not read: a read copies the file into fresh pages of perfq (a page fault
 * each, 25 per run for the loader and the linker cache, costly in a virtual machine), where a
 * mapping shares the page cache's pages, a fault mapping several at once. */
static const char *map_file(const char *path, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *p = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0 && st.st_size < (64l << 20))
        p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    *len = (size_t)st.st_size;
    return p;
}

/* Does the ICD loader at path read OPENCL_LAYERS? Both ocl-icd and the Khronos loader name the
 * variable in their code; loaders without layer support do not. */
static int loader_reads_layers(const char *path)
{
    static const char needle[] = "OPENCL_LAYERS";
    size_t len;
    const char *map = map_file(path, &len);
    if (!map)
        return 0;
    int found = memmem(map, len, needle, sizeof(needle) - 1) != NULL;
    munmap((void *)map, len);
    return found;
}

/* The linker cache's entry for soname (/etc/ld.so.cache, glibc's format
 * "glibc-ld.so.cache1.1": a header, then 24-byte entries whose name and path are offsets from
 * the file's start). 1 with its path in out when the cache has exactly one entry for this
 * machine's ABI and no hardware-capability variant: what the dynamic loader takes when
 * LD_LIBRARY_PATH does not name one. 0 when the cache, in that format, has none for this ABI.
 * -1 otherwise (no cache, another format, several entries, a variant: the caller's dlopen
 * decides). Reading the cache costs one open and mapping; the dlopen of libOpenCL.so.1 it
 * replaces, loading and unloading the ICD loader, cost about 1 ms of CPU per perfq run on the
 * 2-core VM (docs/perfq-stat.md, "perfq stat's own cost"). */
int cli_linker_cache(const char *soname, char *out, size_t size)
{
#if defined(__x86_64__)
    const int32_t abi = 0x0303;   /* FLAG_ELF_LIBC6 | FLAG_X8664_LIB64 */
#elif defined(__aarch64__)
    const int32_t abi = 0x0a03;   /* FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64 */
#else
    const int32_t abi = -1;
#endif
    static const char magic[] = "glibc-ld.so.cache1.1";
    if (abi < 0 || !size)
        return -1;
    /* Mapped once and kept: perfq looks in it up to twice a run (the OpenCL loader, NVML), the
     * second time with threads running, where an munmap costs a TLB shootdown (an IPI). */
    static const char *buf;
    static size_t len;
    if (!buf)
        buf = map_file("/etc/ld.so.cache", &len);
    size_t name_size = strlen(soname) + 1;
    int found = 0, rc = -1;
    if (buf && len > 48 && memcmp(buf, magic, sizeof(magic) - 1) == 0) {
        uint32_t nlibs;
        memcpy(&nlibs, buf + 20, sizeof(nlibs));
        int complete = 48 + (size_t)nlibs * 24 <= len;
        for (uint32_t i = 0; i < nlibs && 48 + ((size_t)i + 1) * 24 <= len && found < 2; i++) {
            const char *e = buf + 48 + (size_t)i * 24;
            int32_t flags;
            uint32_t key, value;
            uint64_t hwcap;
            memcpy(&flags, e, 4);
            memcpy(&key, e + 4, 4);
            memcpy(&value, e + 8, 4);
            memcpy(&hwcap, e + 16, 8);
            /* Names are NUL-terminated within the file; one that is not is not this one. */
            if (key >= len || value >= len || len - key < name_size ||
                memcmp(buf + key, soname, name_size) != 0)
                continue;
            /* Another ABI's entry is not ours; a variant (hwcap) or a second entry: dlopen. */
            if ((flags & 0xffff) != abi)
                continue;
            if (hwcap || found++)
                found = 2;
            else if (!memchr(buf + value, '\0', len - value) ||
                     snprintf(out, size, "%s", buf + value) >= (int)size)
                found = 2;   /* a path not ended within the file, or too long: dlopen */
        }
        rc = found == 1 ? 1 : found == 0 && complete ? 0 : -1;
    }
    return rc;
}

/* The linker cache's libOpenCL.so.1, when it names one: resolve_loader's dlopen otherwise. */
static int cached_loader(char *out, size_t size)
{
    return cli_linker_cache("libOpenCL.so.1", out, size) == 1 && out[0] == '/' ? 0 : -1;
}

#if defined(__x86_64__)
#define LOADER_ELF_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define LOADER_ELF_MACHINE EM_AARCH64
#endif

/* Is the file at path a shared object the dynamic loader would take for this process (an ELF
 * of this machine and word size)? 1 yes, 0 no (absent), -1 cannot tell (unreadable, another
 * machine or word size: the loader would skip it and search on, or stop at one that is no
 * ELF). */
static int library_file_fits(const char *path)
{
#ifdef LOADER_ELF_MACHINE
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
    ElfW(Ehdr) h;
    ssize_t n = pread(fd, &h, sizeof h, 0);
    close(fd);
    return n == (ssize_t)sizeof h && memcmp(h.e_ident, ELFMAG, SELFMAG) == 0 &&
           h.e_ident[EI_CLASS] == (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32) &&
           h.e_type == ET_DYN && h.e_machine == LOADER_ELF_MACHINE ? 1 : -1;
#else
    (void)path;
    return -1;
#endif
}

/* soname in LD_LIBRARY_PATH's folders, in order, found as the dynamic loader finds it but
 * without loading it (the dlopen and dlclose of CUDA's libOpenCL.so.1 cost 0.21-0.23 ms of each
 * perfq run on the H200, NVML's 3 ms of CPU: docs/perfq-stat-slowdown.md, "The slowdown, where it
 * stands"). 1 with its path in out; 0 when no folder has it (the linker cache is next); -1 when
 * only the dynamic loader can tell: an entry that is empty, relative or holds a $-token, a
 * folder with a hardware capability subfolder (glibc-hwcaps, or the legacy ones glibc searched
 * before 2.37), a file that is not a shared object of this machine. */
int cli_library_path_find(const char *soname, char *out, size_t size)
{
    static const char *const subdirs[] = {"glibc-hwcaps", "tls", "haswell", "xeon_phi",
                                          "x86_64", "avx512_1", "aarch64", "i686", "sse2"};
    const char *at = getenv("LD_LIBRARY_PATH");
    if (!at || !*at)
        return 0;
    for (;;) {
        size_t len = strcspn(at, ":;");
        if (len == 0 || at[0] != '/' || memchr(at, '$', len) || len >= PATH_MAX)
            return -1;
        char dir[PATH_MAX], file[PATH_MAX + 256];
        memcpy(dir, at, len);
        dir[len] = '\0';
        for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
            struct stat st;
            snprintf(file, sizeof(file), "%s/%s", dir, subdirs[i]);
            if (stat(file, &st) == 0 && S_ISDIR(st.st_mode))
                return -1;
        }
        if (snprintf(file, sizeof(file), "%s/%s", dir, soname) >= (int)sizeof(file))
            return -1;
        int fits = library_file_fits(file);
        if (fits != 0) {
            if (fits < 0 || snprintf(out, size, "%s", file) >= (int)size)
                return -1;
            return 1;
        }
        if (!at[len])
            return 0;
        at += len + 1;
    }
}

/* The libOpenCL.so.1 a command started with this environment would load (resolved the same
 * way, through this process's LD_LIBRARY_PATH and the linker cache; the dynamic loader itself
 * where those cannot tell). */
static int resolve_loader(char *out, size_t size)
{
    int in_path = cli_library_path_find("libOpenCL.so.1", out, size);
    if (in_path == 1 || (in_path == 0 && cached_loader(out, size) == 0))
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

/* The ICD libraries behind the platforms a loader lists, in clGetPlatformIDs' order (an ICD's
 * platforms one after another count once). */
#define MAX_ICDS 16
struct icd_order {
    int n;
    char lib[MAX_ICDS][PATH_MAX];
};

typedef int (*get_platform_ids_fn)(unsigned, void **, unsigned *);

/* Asks the loader at `loader` in a child process (the ICDs it loads, a GPU driver among them,
 * stay out of perfq): the child dlopens it, lists the platforms and names, for each, the library
 * that holds its dispatch table's clGetPlatformInfo (dladdr). With `vendors`, the child first sets
 * OCL_ICD_VENDORS to it and OCL_ICD_PLATFORM_SORT=none (ocl-icd's variables). 0 when the order is
 * known. */
static int loader_icd_order(const char *loader, const char *vendors, struct icd_order *out)
{
    int fds[2];
    out->n = 0;
    if (pipe(fds) != 0)
        return -1;
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {   /* drivers may print */
            dup2(null, 1);
            dup2(null, 2);
        }
        alarm(20);
        unsetenv("OPENCL_LAYERS");
        if (vendors) {
            setenv("OCL_ICD_VENDORS", vendors, 1);
            setenv("OCL_ICD_PLATFORM_SORT", "none", 1);
        }
        void *h = dlopen(loader, RTLD_NOW | RTLD_LOCAL);
        get_platform_ids_fn ids = h ? (get_platform_ids_fn)(uintptr_t)dlsym(h, "clGetPlatformIDs")
                                    : NULL;
        void *platforms[64];
        unsigned n = 0;
        if (!ids || ids(64, platforms, &n) != 0 || n == 0 || n > 64)
            _exit(1);
        const char *last = "";
        for (unsigned i = 0; i < n; i++) {
            /* A platform is an ICD object: its first member is the ICD's dispatch table, whose
             * second entry is the ICD's clGetPlatformInfo. */
            void *const *dispatch = *(void *const *const *)platforms[i];
            Dl_info info;
            if (!dispatch || !dispatch[1] || !dladdr(dispatch[1], &info) || !info.dli_fname ||
                !info.dli_fname[0] || strchr(info.dli_fname, '\n'))
                _exit(1);
            if (strcmp(info.dli_fname, last) == 0)
                continue;
            last = info.dli_fname;
            dprintf(fds[1], "%s\n", info.dli_fname);
        }
        _exit(0);
    }
    close(fds[1]);
    char buf[MAX_ICDS * PATH_MAX / 4];
    size_t used = 0;
    ssize_t r;
    while ((r = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0 ||
           (r < 0 && errno == EINTR))
        if (r > 0)
            used += (size_t)r;
    close(fds[0]);
    buf[used] = '\0';
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || used + 1 >= sizeof(buf))
        return -1;
    for (char *line = buf, *nl; (nl = strchr(line, '\n')); line = nl + 1) {
        *nl = '\0';
        size_t len = strlen(line);
        if (out->n == MAX_ICDS || len >= PATH_MAX)
            return -1;
        memcpy(out->lib[out->n++], line, len + 1);
    }
    return out->n > 0 ? 0 : -1;
}

static int same_order(const struct icd_order *a, const struct icd_order *b)
{
    if (a->n != b->n)
        return 0;
    for (int i = 0; i < a->n; i++)
        if (strcmp(a->lib[i], b->lib[i]) != 0)
            return 0;
    return 1;
}

/* Does the directory hold exactly the .icd files naming `o`'s libraries, in `o`'s order as
 * readdir gives them (ocl-icd's order with OCL_ICD_PLATFORM_SORT=none)? */
static int dir_lists(const char *dir, const struct icd_order *o)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int i = 0, ok = 1;
    struct dirent *e;
    while (ok && (e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 4, ".icd") != 0)
            continue;
        char path[PATH_MAX + 256], line[PATH_MAX + 2] = "";
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "re");
        ok = f && fgets(line, sizeof(line), f) && i < o->n;
        if (f)
            fclose(f);
        line[strcspn(line, "\n")] = '\0';
        ok = ok && strcmp(line, o->lib[i++]) == 0;
    }
    closedir(d);
    return ok && i == o->n;
}

/* A vendors directory that makes ocl-icd load `o`'s libraries in `o`'s order: one .icd file per
 * library, under $PERFQ_CACHE_DIR (else $XDG_CACHE_HOME/perfq or ~/.cache/perfq), kept for the
 * next run. readdir's order depends on the file system (hashed names on ext4), so the names carry
 * a salt that is changed until readdir gives the wanted order. 0 with its path in `out`. */
static uint64_t fnv1a(uint64_t hash, const char *s)
{
    for (const char *c = s; ; c++) {
        hash = (hash ^ (unsigned char)*c) * 1099511628211ull;
        if (!*c)
            return hash;
    }
}

static int vendors_dir(const struct icd_order *o, char *out, size_t size)
{
    char base[PATH_MAX];
    if (perfq_cache_dir(base, sizeof(base), 1) != 0)
        return -1;
    uint64_t hash = 1469598103934665603ull;   /* FNV-1a over the libraries, in order */
    for (int i = 0; i < o->n; i++)
        hash = fnv1a(hash, o->lib[i]);
    for (unsigned salt = 0; salt < 64; salt++) {
        int n = snprintf(out, size, "%s/opencl-vendors-%016llx-%u", base,
                         (unsigned long long)hash, salt);
        if (n < 0 || (size_t)n >= size || strpbrk(out, ":"))
            return -1;
        if (dir_lists(out, o))
            return 0;
        if (mkdir(out, 0700) != 0)
            continue;   /* another order (a salt tried before), or no cache: next */
        int ok = 1;
        for (int i = 0; ok && i < o->n; i++) {
            char path[PATH_MAX + 64];
            snprintf(path, sizeof(path), "%s/%d-%u.icd", out, i, salt);
            FILE *f = fopen(path, "we");
            ok = f && fprintf(f, "%s\n", o->lib[i]) > 0;
            if (f && fclose(f) != 0)
                ok = 0;
        }
        if (ok && dir_lists(out, o))
            return 0;
    }
    return -1;
}

/* The variables that change which ICDs ocl-icd 2.3 loads or how it orders them: when the user
 * set one, perfq leaves them as they are. OCL_ICD_FILENAMES is not one (ocl-icd 2.3.1 does not
 * read it; the Khronos-derived loaders, CUDA's among them, list its ICDs first): its effect is
 * part of the order the other loader gives, which the vendors folder then reproduces. */
static const char *user_icd_setting(void)
{
    static const char *const vars[] = {"OCL_ICD_VENDORS", "OCL_ICD_PLATFORM_SORT",
                                       "OPENCL_VENDOR_PATH"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
        if (getenv(vars[i]))
            return vars[i];
    return NULL;
}

/* After preloading ocl-icd (`system`) for `loader`: makes ocl-icd list the platforms in the
 * order `loader` lists them (a program that takes the first platform must run on the same
 * device with and without perfq). Both are asked in children; the environment changes only
 * when ocl-icd, with it, gives the same ICDs in the same order. 0 when the order is kept. */
static void hash_file(uint64_t *hash, const char *path)
{
    struct stat st;
    char line[128];
    *hash = fnv1a(*hash, path);
    if (stat(path, &st) == 0) {
        snprintf(line, sizeof(line), "%lld:%lld.%09ld", (long long)st.st_size,
                 (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
        *hash = fnv1a(*hash, line);
    }
}

/* What decides both loaders' orders: the two loaders, the ICD files in /etc/OpenCL/vendors in
 * readdir order (size and time of each), and the variables the loaders or the linker read. Two
 * runs with the same key get the same orders: the children's answer is kept under it. */
static int order_key_path(const char *loader, const char *system, char *out, size_t size)
{
    char base[PATH_MAX];
    if (perfq_cache_dir(base, sizeof(base), 1) != 0)
        return -1;
    uint64_t hash = 1469598103934665603ull;
    hash_file(&hash, loader);
    hash_file(&hash, system);
    static const char *const vars[] = {"OCL_ICD_FILENAMES", "LD_LIBRARY_PATH", "LD_PRELOAD"};
    for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
        const char *v = getenv(vars[i]);
        hash = fnv1a(fnv1a(hash, vars[i]), v ? v : "");
    }
    DIR *d = opendir("/etc/OpenCL/vendors");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/etc/OpenCL/vendors/%s", e->d_name);
        hash_file(&hash, path);
    }
    if (d)
        closedir(d);
    int n = snprintf(out, size, "%s/opencl-order-%016llx", base, (unsigned long long)hash);
    return n > 0 && (size_t)n < size ? 0 : -1;
}

static int keep_platform_order(const char *loader, const char *system, char *vendors,
                               size_t size)
{
    /* The children load every OpenCL driver (NVIDIA's takes a while): their answer is kept
     * per key, the vendors folder when the orders matched, "none" when they did not. */
    char key[PATH_MAX + 64], line[PATH_MAX + 2] = "";
    int have_key = order_key_path(loader, system, key, sizeof(key)) == 0;
    FILE *kept = have_key ? fopen(key, "re") : NULL;
    int known = kept && fgets(line, sizeof(line), kept);
    if (kept)
        fclose(kept);
    line[strcspn(line, "\n")] = '\0';
    int ok;
    if (known && strcmp(line, "none") == 0) {
        ok = 0;
    } else if (known && line[0] == '/' && strlen(line) < size && access(line, R_OK) == 0) {
        snprintf(vendors, size, "%s", line);
        ok = 1;
    } else {
        struct icd_order want, got;
        int answered = loader_icd_order(loader, NULL, &want) == 0 &&
                       vendors_dir(&want, vendors, size) == 0 &&
                       loader_icd_order(system, vendors, &got) == 0;
        ok = answered && same_order(&want, &got);
        /* Kept only when both answered (a child that failed may not fail next time). */
        FILE *f = have_key && answered ? fopen(key, "we") : NULL;
        if (f) {
            fprintf(f, "%s\n", ok ? vendors : "none");
            fclose(f);
        }
    }
    if (!ok)
        return -1;
    if (setenv("OCL_ICD_VENDORS", vendors, 1) != 0 ||
        setenv("OCL_ICD_PLATFORM_SORT", "none", 1) != 0) {
        unsetenv("OCL_ICD_VENDORS");
        unsetenv("OCL_ICD_PLATFORM_SORT");
        return -1;
    }
    return 0;
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
        const char *system = system_loaders[i];
        if (access(system, R_OK) != 0 || !loader_reads_layers(system))
            continue;
        /* Always said, not only with -v. Another loader may list the platforms in another
         * order (CUDA's loader lists PoCL before NVIDIA on the GPU machine, ocl-icd NVIDIA
         * first: docs/opencl-layer.md, "Loaders"), and a program that takes the first
         * platform would run on another device than without perfq: perfq asks both loaders
         * and, where it can, makes ocl-icd keep the other's order. */
        const char *user = user_icd_setting();
        char vendors[PATH_MAX];
        int kept = !user && keep_platform_order(loader, system, vendors, sizeof(vendors)) == 0;
        if (prepend("LD_PRELOAD", system, ":") != 0) {
            if (kept) {
                unsetenv("OCL_ICD_VENDORS");
                unsetenv("OCL_ICD_PLATFORM_SORT");
            }
            continue;
        }
        cli_note_injected("LD_PRELOAD", system, 1);
        if (kept) {
            cli_note_injected("OCL_ICD_VENDORS", vendors, 0);
            cli_note_injected("OCL_ICD_PLATFORM_SORT", "none", 0);
        }
        if (kept)
            fprintf(stderr, "perfq: the OpenCL loader %s ignores OPENCL_LAYERS; preloading %s "
                    "instead, with OCL_ICD_VENDORS=%s and OCL_ICD_PLATFORM_SORT=none so that it "
                    "lists the OpenCL platforms in the same order\n", loader, system, vendors);
        else if (user)
            fprintf(stderr, "perfq: the OpenCL loader %s ignores OPENCL_LAYERS; preloading %s "
                    "instead, with your %s as set (its order of OpenCL platforms may differ)\n",
                    loader, system, user);
        else
            fprintf(stderr, "perfq: the OpenCL loader %s ignores OPENCL_LAYERS; preloading %s "
                    "instead (its order of OpenCL platforms may differ: perfq could not "
                    "reproduce it)\n", loader, system);
        return;
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

/* Is file in the folder of path? */
static int beside(const char *path, const char *file)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char other[PATH_MAX + 64];
    if (dir + strlen(file) + 1 > sizeof(other))
        return 0;
    memcpy(other, path, dir);
    strcpy(other + dir, file);
    return access(other, R_OK) == 0;
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
        /* The GL layer is preloaded through its stub, libperfq-gl-lazy.so, which loads the
         * layer beside it at the program's first GL call (lazy_preload.c): a process that
         * never calls GL does not load the layer. Without the stub (not built on this
         * architecture, or not installed beside it), the layer itself. */
        if (strcmp(layers[i].var, "LD_PRELOAD") == 0 && PERFQ_HAVE_GL_LAZY &&
            find_layer("libperfq-gl-lazy.so", layers[i].build_subdir, path, sizeof(path)) == 0 &&
            beside(path, layers[i].file)) {
            /* the stub, with the layer it loads beside it */
        } else if (find_layer(layers[i].file, layers[i].build_subdir, path, sizeof(path)) != 0) {
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
        cli_note_injected(layers[i].var, use[i], 1);
        if (verbose)
            fprintf(stderr, "perfq: %s=%s\n", layers[i].var, getenv(layers[i].var));
    }
    return 0;
}
