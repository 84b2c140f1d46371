#!/usr/bin/env python3
"""perf_event refused (issue 13): `perfq stat` of a command run where perf_event_open is refused
(tests/no_perf_event.c, a seccomp filter the command inherits). perfq must run the command, keep
its exit status, print every host perf counter as not supported with the reason (the refusal and
what to change), and still count what needs no perf_event (proc-io, the rusage summary).

Arguments: NO_PERF_EVENT PERFQ. Exit 0 when every rule holds, 77 where the wrapper skips (no
seccomp filter, and the test may lack it: tests/test_util.h), 1 otherwise."""
import subprocess
import sys

wrapper, perfq = sys.argv[1], sys.argv[2]
# The layers by default (issue 12), but not in a sanitizer build: there the instrumented layers
# cannot load into an uninstrumented sh (tests/test_cli.c).
with open(perfq, "rb") as f:
    image = f.read()
layers = ["--no-layers"] if b"__asan_init" in image or b"__tsan_init" in image else []
p = subprocess.run([wrapper, perfq, "stat", *layers, "--", "sh", "-c",
                    "echo hello >/dev/null; exit 3"],
                   capture_output=True, text=True, timeout=50)
out = p.stdout + p.stderr
if p.returncode == 77 and "seccomp filters: missing here" in out:
    print(out)
    sys.exit(77)
failures = []
if p.returncode != 3:
    failures.append("exit status %d, not the command's 3" % p.returncode)
if "perf_event_open refused" not in out or "seccomp" not in out:
    failures.append("no message naming the refusal and its causes")
for name in ("host/task-clock", "host/context-switches"):
    line = next((l for l in out.splitlines() if name in l), "")
    if "<not supported>" not in line:
        failures.append("%s not reported as not supported: %r" % (name, line))
io = next((l for l in out.splitlines() if "proc-io/read-bytes" in l), "")
if not io or "<not" in io or not io.split()[0].isdigit():
    failures.append("proc-io/read-bytes not counted: %r" % io)
if "seconds time elapsed" not in out:
    failures.append("no elapsed time")
print(out)
for f in failures:
    print("FAIL: " + f)
sys.exit(1 if failures else 0)
