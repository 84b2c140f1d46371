/*
 * What perfq put into CMD's environment, so that a child started with a cleaned environment is
 * followed too (docs/perfq-stat.md, "The channel": children).
 *
 * perfq run, stat and record inject their layers and channel through the environment
 * (LD_PRELOAD, OPENCL_LAYERS, PERFQ_STAT_CHANNEL...), which fork and exec pass on. A program
 * that starts a child with an environment of its own making (`env -i`, Python's
 * `subprocess.run(env={...})`, a test harness, a launcher that sanitises it) drops them, and
 * the child ran unmeasured. perfq also writes what it injected into PERFQ_INJECTED, and the GL
 * layer's preload stub, which every process of CMD loads, wraps the exec and posix_spawn
 * functions: a child environment without PERFQ_INJECTED (made anew, without perfq's
 * variables or with some) gets back what it lacks of them (RenderDoc's "capture child
 * processes" does the same); nothing else of it changes. One that still holds PERFQ_INJECTED is
 * the program's own edit of the environment perfq gave it (a test that unsets LD_PRELOAD for the
 * X server it starts, say): it is left as the program made it.
 *
 * PERFQ_INJECTED is a list of entries separated by ';':
 *   NAME=VALUE   NAME set to VALUE where the child's environment has no NAME;
 *   NAME+=A:B    A and B, entries of a list (LD_PRELOAD, OPENCL_LAYERS: separated by ':', or
 *                for LD_PRELOAD also by spaces), put first, in that order, where the child's
 *                NAME lacks them, joined with ':' to what NAME holds.
 * NAME is [A-Za-z0-9_]; no VALUE holds ';' (perfq_injected_append refuses one).
 *
 * The functions call no allocator and no system call: perfq_injected_apply runs in the child of
 * a vfork() or of a fork() in a threaded program, before its exec.
 */
#ifndef PERFQ_CORE_INJECTED_ENV_H
#define PERFQ_CORE_INJECTED_ENV_H

#include <stddef.h>

#define PERFQ_INJECTED_ENV "PERFQ_INJECTED"
/* The longest PERFQ_INJECTED value the stub keeps (with its NUL): longer, no child is followed. */
#define PERFQ_INJECTED_MAX 4096

/* Appends NAME=VALUE (prepend 0) or NAME+=VALUE (prepend 1) to spec, a string in a buffer of
 * cap bytes. 0; -1 (spec unchanged) where it does not fit, name is not [A-Za-z0-9_]+ or value
 * holds ';'. */
int perfq_injected_append(char *spec, size_t cap, const char *name, int prepend,
                          const char *value);

/* The environment for a child: envp (NULL: empty) as it is where it holds PERFQ_INJECTED;
 * else with what spec injected and envp lacks put back, and PERFQ_INJECTED=spec. Returns 0 where
 * envp holds PERFQ_INJECTED (exec with envp as it is); 1 where out, a vector of out_cap
 * pointers, holds the new environment (NULL-terminated; its new strings in buf, of buf_cap
 * bytes; the others are envp's);
 * -1 where it does not fit there or spec is malformed (exec with envp as it is: the child runs,
 * unmeasured). Never writes past out_cap pointers or buf_cap bytes. */
int perfq_injected_apply(const char *spec, char *const *envp, char **out, size_t out_cap,
                         char *buf, size_t buf_cap);

/* Does envp (NULL: empty) hold PERFQ_INJECTED? Then perfq_injected_apply leaves it as it is,
 * and a caller need not size anything for it. */
int perfq_injected_present(char *const *envp);

/* Room enough for perfq_injected_apply of spec on envp: *slots pointers, *bytes bytes (both
 * small: the names spec names and its values). 0; -1 where spec is malformed. */
int perfq_injected_bounds(const char *spec, char *const *envp, size_t *slots, size_t *bytes);

#endif
