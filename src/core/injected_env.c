/*
 * PERFQ_INJECTED: writing it (perfq) and putting it back into a child's environment (the GL
 * layer's preload stub, in the child of a fork or vfork before its exec). injected_env.h says
 * the format and the rules. Compiled into the CLI and into the stub.
 */
#include "core/injected_env.h"

#include <string.h>

static int name_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
           c == '_';
}

static int list_separator(char c)
{
    return c == ':' || c == ' ' || c == '\t' || c == '\n';
}

int perfq_injected_append(char *spec, size_t cap, const char *name, int prepend,
                          const char *value)
{
    size_t have = strlen(spec), n = strlen(name), v = strlen(value);
    if (!n || strchr(value, ';'))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (!name_char(name[i]))
            return -1;
    size_t need = (have ? 1 : 0) + n + (prepend ? 2 : 1) + v + 1;
    if (have >= cap || need > cap - have)
        return -1;
    char *p = spec + have;
    if (have)
        *p++ = ';';
    memcpy(p, name, n);
    p += n;
    if (prepend)
        *p++ = '+';
    *p++ = '=';
    memcpy(p, value, v + 1);
    return 0;
}

/* Index of the entry NAME=... (name of n bytes) in env, or -1. */
static long find(char *const *env, const char *name, size_t n)
{
    for (long i = 0; env[i]; i++)
        if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
            return i;
    return -1;
}

/* Does list hold entry (n bytes) as one of its ':' or space separated entries? */
static int holds(const char *list, const char *entry, size_t n)
{
    const char *p = list;
    while (*p) {
        while (list_separator(*p))
            p++;
        const char *start = p;
        while (*p && !list_separator(*p))
            p++;
        if ((size_t)(p - start) == n && memcmp(start, entry, n) == 0)
            return 1;
    }
    return 0;
}

/* Bytes written to a bounded buffer; full is set, and nothing written, once one does not fit. */
struct sink {
    char *at, *end;
    int full;
};

static void put(struct sink *s, const char *bytes, size_t n)
{
    if (s->full || n > (size_t)(s->end - s->at)) {
        s->full = 1;
        return;
    }
    memcpy(s->at, bytes, n);
    s->at += n;
}

/* One entry of the spec: name, whether it prepends, value (each with its length). */
struct entry {
    const char *name, *value;
    size_t name_len, value_len;
    int prepend;
};

/* Parses the entry at *p (up to ';' or the end) and moves *p past it. 0; -1 when malformed. */
static int next_entry(const char **p, struct entry *e)
{
    const char *s = *p;
    e->name = s;
    while (name_char(*s))
        s++;
    e->name_len = (size_t)(s - e->name);
    e->prepend = *s == '+';
    if (e->prepend)
        s++;
    if (!e->name_len || *s != '=')
        return -1;
    e->value = ++s;
    while (*s && *s != ';')
        s++;
    e->value_len = (size_t)(s - e->value);
    *p = *s ? s + 1 : s;
    return 0;
}

/* The new string for a prepend entry: NAME=missing entries of e's value, then ':' and the
 * current value where there is one. NULL when none is missing, or when it does not fit (s->full
 * set). */
static char *prepended(const struct entry *e, const char *current, struct sink *s)
{
    char *start = s->at;
    int missing = 0;
    const char *p = e->value, *end = e->value + e->value_len;
    while (p < end) {
        const char *q = p;
        while (q < end && *q != ':')
            q++;
        size_t n = (size_t)(q - p);
        if (n && !(current && holds(current, p, n))) {
            if (!missing) {
                put(s, e->name, e->name_len);
                put(s, "=", 1);
            } else {
                put(s, ":", 1);
            }
            put(s, p, n);
            missing = 1;
        }
        p = q < end ? q + 1 : q;
    }
    if (!missing)
        return NULL;
    if (current && *current) {
        put(s, ":", 1);
        put(s, current, strlen(current));
    }
    put(s, "", 1);
    return s->full ? NULL : start;
}

static const char self[] = PERFQ_INJECTED_ENV;

int perfq_injected_present(char *const *envp)
{
    return envp && find(envp, self, sizeof(self) - 1) >= 0;
}

int perfq_injected_apply(const char *spec, char *const *envp, char **out, size_t out_cap,
                         char *buf, size_t buf_cap)
{
    static char *const empty[] = {NULL};
    if (perfq_injected_present(envp))
        return 0;   /* the program's own edit of an environment perfq's: left as it is */
    if (!envp)
        envp = empty;
    size_t n = 0;
    while (envp[n])
        n++;
    if (n + 1 > out_cap)
        return -1;
    memcpy(out, envp, (n + 1) * sizeof(*out));
    struct sink s = {buf, buf + buf_cap, 0};
    const char *p = spec;
    while (*p) {
        struct entry e;
        if (next_entry(&p, &e) != 0)
            return -1;
        long at = find(out, e.name, e.name_len);
        const char *current = at >= 0 ? out[at] + e.name_len + 1 : NULL;
        char *str = NULL;
        if (e.prepend) {
            str = prepended(&e, current, &s);
        } else if (at < 0) {
            str = s.at;
            put(&s, e.name, e.name_len);
            put(&s, "=", 1);
            put(&s, e.value, e.value_len);
            put(&s, "", 1);
        }
        if (s.full)
            return -1;
        if (!str)
            continue;
        if (at < 0) {
            if (n + 2 > out_cap)
                return -1;
            out[n++] = str;
            out[n] = NULL;
        } else {
            out[at] = str;
        }
    }
    char *str = s.at;
    put(&s, self, sizeof(self) - 1);
    put(&s, "=", 1);
    put(&s, spec, strlen(spec) + 1);
    if (s.full || n + 2 > out_cap)
        return -1;
    out[n++] = str;
    out[n] = NULL;
    return 1;
}

int perfq_injected_bounds(const char *spec, char *const *envp, size_t *slots, size_t *bytes)
{
    size_t n = 0, entries = 0, lists = 0, spec_len = strlen(spec);
    while (envp && envp[n])
        n++;
    const char *p = spec;
    while (*p) {
        struct entry e;
        if (next_entry(&p, &e) != 0)
            return -1;
        entries++;
        long at = e.prepend && envp ? find(envp, e.name, e.name_len) : -1;
        if (at >= 0)
            lists += strlen(envp[at]);
    }
    /* The entries' names and values are at most spec_len together; a list's new string adds
     * the list's value, which holds at most its own and the earlier values of the spec (a list
     * named twice); then PERFQ_INJECTED=spec. */
    *slots = n + entries + 2;
    *bytes = (entries + 2) * (spec_len + lists + sizeof(PERFQ_INJECTED_ENV) + 5);
    return 0;
}
