/*
 * PERFQ_INJECTED (src/core/injected_env.c): what the GL layer's preload stub runs in the child
 * of a fork or vfork before its exec, on a spec and an environment built from the input.
 * Checked:
 * - perfq_injected_append refuses what the format cannot hold and never writes past cap
 *   (canary); what it accepted parses;
 * - with the room perfq_injected_bounds gives (exact malloc'd sizes: ASan sees a byte past),
 *   perfq_injected_apply never fails on a spec that parses; an environment holding
 *   PERFQ_INJECTED is left as it is (0);
 * - on 1: the vector is NULL-terminated and ends with PERFQ_INJECTED=spec; every entry of the
 *   environment that the spec does not name is the program's own pointer, unchanged; a NAME=
 *   entry is there (the program's value where it had one); every entry of a NAME+= list is in
 *   NAME's value, and the program's value is its end;
 * - with arbitrary smaller room: 1 as above, or -1 (the child runs unmeasured), never a write
 *   past the room given.
 */
#include "fuzz_input.h"
#include "core/injected_env.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

#define MAX_ENV 24
#define MAX_ENTRIES 8
#define MAX_TEXT 96

/* Names the spec and the environment share often, so that entries meet. */
static const char *const names[] = {"LD_PRELOAD", "OPENCL_LAYERS", "PERFQ_STAT_CHANNEL",
                                    "PERFQ_INJECTED", "A", "OCL_ICD_VENDORS"};
#define N_NAMES (sizeof(names) / sizeof(names[0]))

static void pick_name(struct fz *f, char *buf, size_t max)
{
    uint8_t sel = fz_u8(f);
    if (sel % 8 < N_NAMES)
        snprintf(buf, max + 1, "%s", names[sel % 8]);
    else
        fz_str(f, buf, max);
}

/* The value of NAME (n bytes) in env at its first entry, or NULL (as the stub finds it). */
static const char *value_of(char *const *env, const char *name, size_t n)
{
    for (size_t i = 0; env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return env[i] + n + 1;
    return NULL;
}

/* Does list hold entry (n bytes) among its ':' or white-space separated entries? */
static int list_holds(const char *list, const char *entry, size_t n)
{
    const char *p = list;
    while (*p) {
        while (*p == ':' || *p == ' ' || *p == '\t' || *p == '\n')
            p++;
        const char *start = p;
        while (*p && *p != ':' && *p != ' ' && *p != '\t' && *p != '\n')
            p++;
        if ((size_t)(p - start) == n && memcmp(start, entry, n) == 0)
            return 1;
    }
    return 0;
}

/* Is NAME (n bytes) named by an entry of spec? */
static int spec_names(const char *spec, const char *name, size_t n)
{
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, "+=");
        if (len == n && memcmp(p, name, n) == 0)
            return 1;
        p += strcspn(p, ";");
        if (*p)
            p++;
    }
    return 0;
}

/* Does spec hold a NAME+= entry for NAME (n bytes)? */
static int spec_prepends(const char *spec, const char *name, size_t n)
{
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, "+=");
        if (len == n && memcmp(p, name, n) == 0 && p[len] == '+')
            return 1;
        p += strcspn(p, ";");
        if (*p)
            p++;
    }
    return 0;
}

/* Does a list value (len bytes) hold a non-empty entry? */
static int has_entry(const char *value, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (value[i] != ':')
            return 1;
    return 0;
}

/* The properties of a result of 1 (header comment). */
static void check_applied(const char *spec, char *const *env, char **out, size_t slots)
{
    static char *const empty[] = {NULL};
    if (!env)
        env = empty;
    size_t n = 0;
    while (n < slots && out[n])
        n++;
    FUZZ_CHECK(n < slots, "vector not NULL-terminated within %zu slots", slots);
    FUZZ_CHECK(n > 0, "no PERFQ_INJECTED");
    const char *last = out[n - 1];
    size_t self = strlen(PERFQ_INJECTED_ENV);
    FUZZ_CHECK(strncmp(last, PERFQ_INJECTED_ENV "=", self + 1) == 0 &&
                   strcmp(last + self + 1, spec) == 0,
               "last entry %s", last);
    for (size_t i = 0; env[i]; i++) {
        size_t name_len = strcspn(env[i], "=");
        if (env[i][name_len] && spec_names(spec, env[i], name_len))
            continue;   /* entries without '=' are no NAME's: kept too */
        int kept = 0;
        for (size_t j = 0; j < n && !kept; j++)
            kept = out[j] == env[i];
        FUZZ_CHECK(kept, "the program's entry %s lost", env[i]);
    }
    const char *p = spec;
    while (*p) {
        size_t name_len = strcspn(p, "+=");
        int prepend = p[name_len] == '+';
        const char *value = p + name_len + (prepend ? 2 : 1);
        size_t value_len = strcspn(value, ";");
        const char *now = value_of(out, p, name_len);
        const char *was = value_of(env, p, name_len);
        if (!prepend || has_entry(value, value_len))
            FUZZ_CHECK(now != NULL, "%.*s missing", (int)name_len, p);
        if (!prepend && was && !spec_prepends(spec, p, name_len))
            FUZZ_CHECK(strcmp(now, was) == 0, "%.*s changed", (int)name_len, p);
        if (prepend) {
            for (const char *item = value; item < value + value_len;) {
                size_t len = strcspn(item, ":;");
                size_t left = (size_t)(value + value_len - item);
                if (len > left)
                    len = left;
                if (len && !memchr(item, ' ', len) && !memchr(item, '\t', len) &&
                    !memchr(item, '\n', len))
                    FUZZ_CHECK(list_holds(now, item, len), "%.*s lacks %.*s", (int)name_len, p,
                               (int)len, item);
                item += len + 1;
            }
            if (was && *was) {
                size_t wl = strlen(was), nl = strlen(now);
                FUZZ_CHECK(nl >= wl && strcmp(now + nl - wl, was) == 0,
                           "%.*s's own value not kept at its end", (int)name_len, p);
            }
        }
        p = value + value_len;
        if (*p)
            p++;
    }
}

/* apply with exactly slots pointers and bytes bytes, each its own allocation (ASan's red zone
 * right after). */
static int apply_exact(const char *spec, char *const *env, size_t slots, size_t bytes)
{
    char **out = malloc((slots ? slots : 1) * sizeof(*out));
    char *buf = malloc(bytes ? bytes : 1);
    int r = perfq_injected_apply(spec, env, out, slots, buf, bytes);
    FUZZ_CHECK(r >= -1 && r <= 1, "apply returned %d", r);
    if (r == 1)
        check_applied(spec, env, out, slots);
    free(buf);
    free(out);
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fz f = {data, size};
    /* The spec: built with perfq_injected_append, or raw bytes (malformed ones included). */
    char spec[PERFQ_INJECTED_MAX + 1];
    spec[0] = '\0';
    if (fz_u8(&f) & 1) {
        fz_str(&f, spec, MAX_TEXT);
    } else {
        size_t cap = (size_t)fz_u8(&f) * 4 + 1;
        if (cap > PERFQ_INJECTED_MAX)
            cap = PERFQ_INJECTED_MAX;
        memset(spec + cap, FUZZ_CANARY, sizeof(spec) - cap);
        int entries = fz_u8(&f) % MAX_ENTRIES;
        for (int i = 0; i < entries; i++) {
            char name[MAX_TEXT + 1], value[MAX_TEXT + 1];
            pick_name(&f, name, 24);
            int prepend = fz_u8(&f) & 1;
            fz_str(&f, value, MAX_TEXT);
            size_t before = strlen(spec);
            int r = perfq_injected_append(spec, cap, name, prepend, value);
            FUZZ_CHECK(r == 0 || r == -1, "append returned %d", r);
            if (r == -1)
                FUZZ_CHECK(strlen(spec) == before, "a refused append changed the spec");
        }
        FUZZ_CHECK(fz_canary_intact(spec, cap, sizeof(spec)), "append wrote past cap %zu", cap);
        size_t dummy_slots, dummy_bytes;
        FUZZ_CHECK(perfq_injected_bounds(spec, NULL, &dummy_slots, &dummy_bytes) == 0,
                   "an appended spec does not parse: %s", spec);
    }
    /* The program's environment. */
    char text[MAX_ENV][MAX_TEXT + 1];
    char *env[MAX_ENV + 1];
    size_t n_env = fz_u8(&f) % (MAX_ENV + 1);
    for (size_t i = 0; i < n_env; i++) {
        if (fz_u8(&f) & 1) {
            char name[25], value[MAX_TEXT + 1];
            pick_name(&f, name, 24);
            fz_str(&f, value, MAX_TEXT - 26);
            snprintf(text[i], sizeof(text[i]), "%s=%s", name, value);
        } else {
            fz_str(&f, text[i], MAX_TEXT);
        }
        env[i] = text[i];
    }
    env[n_env] = NULL;
    char *const *envp = (n_env || (fz_u8(&f) & 1)) ? env : NULL;

    int present = perfq_injected_present(envp);
    size_t slots, bytes;
    int bounded = perfq_injected_bounds(spec, envp, &slots, &bytes);
    if (bounded == 0) {
        int r = apply_exact(spec, envp, slots, bytes);
        FUZZ_CHECK(r == (present ? 0 : 1), "apply with the bounds' room returned %d", r);
    }
    /* Smaller room, arbitrary. */
    size_t few_slots = fz_u8(&f) % (MAX_ENV + MAX_ENTRIES + 3);
    size_t few_bytes = fz_u32(&f) % (bounded == 0 ? bytes + 1 : 4096);
    int r = apply_exact(spec, envp, few_slots, few_bytes);
    if (present)
        FUZZ_CHECK(r == 0, "an environment holding PERFQ_INJECTED changed (%d)", r);
    else if (bounded != 0)
        FUZZ_CHECK(r == -1, "a spec that does not parse applied (%d)", r);
    return 0;
}
