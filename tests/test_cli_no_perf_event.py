#!/usr/bin/env python3
"""perf_event refused (issue 13): `perfq stat` of a command run where perf_event_open is refused
(tests/no_perf_event.c, a seccomp filter the command inherits). perfq must run the command, keep
its exit status, print every host perf counter as not supported with the reason (the refusal and
what to change), and still count what needs no perf_event (proc-io, CMD's rusage rows).

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
def stat(*args):
    p = subprocess.run([wrapper, perfq, "stat", *layers, *args, "--", "sh", "-c",
                        "echo hello >/dev/null; exit 3"],
                       capture_output=True, text=True, timeout=50)
    return p.returncode, p.stdout + p.stderr


def line_of(out, name):
    return next((l for l in out.splitlines() if name in l), "")


failures = []
# The defaults: the PMU's events refused (and why); CPU time, switches and faults still counted,
# from CMD's rusage (wait4 needs no perf_event); proc-io counted.
rc, out = stat()
if rc == 77 and "seccomp filters: missing here" in out:
    print(out)
    sys.exit(77)
if rc != 3:
    failures.append("exit status %d, not the command's 3" % rc)
if "perf_event_open refused" not in out or "seccomp" not in out:
    failures.append("no message naming the refusal and its causes")
if "<not supported>" not in line_of(out, "host-hw/cycles"):
    failures.append("host-hw/cycles not reported as not supported: %r" % line_of(out, "host-hw/cycles"))
for name in ("rusage/user-time", "rusage/minor-faults", "proc-io/read-bytes"):
    line = line_of(out, name)
    if not line or "<not" in line or not line.split()[0].replace(".", "").isdigit():
        failures.append("%s not counted: %r" % (name, line))
if "seconds time elapsed" not in out:
    failures.append("no elapsed time")
print(out)
# A software event named: an error before CMD runs (a named counter must count), saying why.
rc, out = stat("-e", "host/task-clock,proc-io/read-bytes")
if rc != 2 or "host/task-clock' is not available here: perf_event_open refused" not in out:
    failures.append("-e host/task-clock: status %d, %r" % (rc, out))
print(out)
for f in failures:
    print("FAIL: " + f)
sys.exit(1 if failures else 0)
