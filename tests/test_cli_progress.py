#!/usr/bin/env python3
"""The progress line of perfq stat and perfq record: on stderr when stderr is a terminal (a
pseudo-terminal here: python's pty), with the elapsed time and the final frame and OpenCL
command counts, then erased; none at all when stderr is a pipe. Arguments: PERFQ EXAMPLE_GL
EXAMPLE_CL."""
import os
import re
import subprocess
import sys
import tempfile

PERFQ, GL, CL = sys.argv[1:4]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def on_terminal(args):
    """Runs perfq with stderr on a pseudo-terminal; returns its status and what it wrote."""
    master, slave = os.openpty()
    p = subprocess.Popen([PERFQ] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=slave)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:   # EIO: every writer of the terminal is gone
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    return p.wait(timeout=300), out.decode("utf-8", "replace")


def report_file():
    fd, path = tempfile.mkstemp(prefix="perfq-progress-")
    os.close(fd)
    return path


LINE = re.compile(r"\rperfq: (\d+\.\d) s, (\d+) frames, (\d+) OpenCL commands\x1b\[K")

# perfq stat on the GL example (the layers injected by default), stderr a terminal: progress
# lines, the last one with every frame, then erased; the report went to -o.
rep = report_file()
rc, out = on_terminal(["stat", "-o", rep, "--", GL, "30"])
lines = LINE.findall(out)
check(rc == 0, "stat: exit status %d" % rc)
check(len(lines) >= 2, "stat: progress lines on the terminal: %r" % out[-500:])
check(lines and lines[-1][1] == "30" and lines[-1][2] == "0",
      "stat: the last progress line has the 30 frames: %r" % (lines[-1:],))
check(out.endswith("\r\x1b[K"), "stat: the line is erased at the end: %r" % out[-40:])
times = [float(t) for t, _, _ in lines]
check(times == sorted(times), "stat: elapsed time only grows: %s" % times)
with open(rep) as f:
    check("30 frames" in f.read(), "stat: the report went to the file")

# perfq record on the OpenCL example: the commands are counted in its progress line.
trace = report_file()
rc, out = on_terminal(["record", "-o", trace, "--", CL])
lines = LINE.findall(out)
check(rc == 0, "record: exit status %d" % rc)
check(lines and lines[-1][2] == "140", "record: 140 OpenCL commands in the last line: %r"
      % (lines[-1:],))
os.unlink(trace)

# stderr a pipe (or a file): no progress line at all.
for args in (["stat", "--layers", "-o", rep, "--", GL, "10"], ["stat", "--", GL, "10"],
             ["stat", "--no-layers", "--", GL, "10"],
             ["record", "-o", trace, "--", GL, "10"]):
    p = subprocess.run([PERFQ] + args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=300)
    err = p.stderr.decode("utf-8", "replace")
    check(p.returncode == 0, "%s: exit status %d" % (args[0], p.returncode))
    check("\rperfq:" not in err and "\x1b[K" not in err,
          "%s with stderr a pipe: no progress line: %r" % (" ".join(args[:2]), err[-300:]))
os.unlink(rep)
os.unlink(trace)

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
