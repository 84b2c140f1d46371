#!/usr/bin/env python3
"""The progress line of perfq stat and perfq record: on stderr when stderr is a terminal (a
pseudo-terminal here: python's pty), with the elapsed time and the final frame and OpenCL
command counts, then erased; none at all when stderr is a pipe or TERM is dumb. On a terminal
of known size the line has the bottom row, CMD's own output scrolling above it: the screen is
rendered by pyte (Debian's python3-pyte, a VT100 emulator) as the bytes come, and no row may
ever hold both. Arguments: PERFQ EXAMPLE_GL EXAMPLE_CL."""
import fcntl
import os
import re
import struct
import subprocess
import sys
import tempfile
import termios

import pyte

PERFQ, GL, CL = sys.argv[1:4]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def on_terminal(args, size=None, stdout=subprocess.DEVNULL, env=None, screen=None):
    """Runs perfq with stderr on a pseudo-terminal (of size (rows, cols), where given; python's
    own is 0 by 0) and stdout as given ("tty": the same terminal); returns its status and what
    it wrote. Each chunk read is fed to screen (a pyte stream and its screen), whose rows are
    checked after it (seen_on_screen)."""
    master, slave = os.openpty()
    if size:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[0], size[1], 0, 0))
    p = subprocess.Popen([PERFQ] + args, stdin=subprocess.DEVNULL,
                         stdout=slave if stdout == "tty" else stdout, stderr=slave,
                         env=env)
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
        if screen:
            screen[0].feed(chunk.decode("utf-8", "replace"))
            seen_on_screen(screen[1])
    os.close(master)
    return p.wait(timeout=300), out.decode("utf-8", "replace")


PROGRESS = re.compile(r"perfq: \d+\.\d s")
mixed_rows = []
progress_rows = set()


def seen_on_screen(scr):
    """Every row with perfq's line holds that line only, and is the bottom row."""
    for y, row in enumerate(scr.display):
        if "perfq:" not in row:
            continue
        progress_rows.add(y)
        if not re.fullmatch(r"perfq: \d+\.\d s(, \d+ frames, \d+ OpenCL commands)? *", row):
            mixed_rows.append(row)


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

# A terminal of 24 rows by 80: CMD (a shell printing 40 numbered lines, to the same terminal)
# scrolls above the progress line, which has the bottom row; at the end the bottom row is
# empty again and the report (-o: none here) would follow CMD's last line. pyte renders it.
screen = pyte.Screen(80, 24)
stream = pyte.Stream(screen)
CMD_LINES = 40
# --no-layers: sh is not this build's (a sanitizer build's layer cannot load into it).
rc, out = on_terminal(["stat", "--no-layers", "-o", rep, "--", "sh", "-c",
                       "i=1; while [ $i -le %d ]; do echo line $i; i=$((i+1)); sleep 0.03; "
                       "done" % CMD_LINES],
                      size=(24, 80), stdout="tty", screen=(stream, screen))
check(rc == 0, "region: exit status %d" % rc)
check("\x1b[1;23r" in out, "region: rows 1 to 23 scroll: %r" % out[:80])
check(progress_rows == {23}, "region: the progress line on the bottom row only: rows %s"
      % sorted(progress_rows))
check(not mixed_rows, "region: a row with the progress line and CMD's output: %r"
      % mixed_rows[:3])
rows = [r.rstrip() for r in screen.display]
check(not any("perfq:" in r for r in rows), "region: the line erased at the end: %r" % rows)
last = [r for r in rows if r]
want = ["line %d" % i for i in range(CMD_LINES - len(last) + 1, CMD_LINES + 1)]
check(last == want, "region: CMD's lines whole, in order, the last at the bottom of the "
      "scrolling rows: %r" % last)
# 0-based rows: the scrolling rows are 0 to 22; CMD's last new line scrolled them, the cursor
# is on row 22 below its last line, where the report would begin.
check(rows.index("line %d" % CMD_LINES) == 21 and screen.cursor.y == 22 and rows[23] == "",
      "region: CMD's last line on row 21, the cursor below it: %d, %d"
      % (rows.index("line %d" % CMD_LINES), screen.cursor.y))
check(out.endswith("\x1b[r\x1b8"), "region: the scrolling region reset at the end: %r"
      % out[-40:])

# The GL example on a sized terminal: the counts as before, the final line has the 30 frames.
progress_rows.clear()
screen = pyte.Screen(80, 24)
rc, out = on_terminal(["stat", "-o", rep, "--", GL, "30"], size=(24, 80),
                      screen=(pyte.Stream(screen), screen))
lines = re.findall(r"\x1b\[24;1H(perfq: [^\x1b]*)\x1b\[K", out)
check(rc == 0 and lines and lines[-1].endswith("30 frames, 0 OpenCL commands"),
      "region: the GL example's last line has its 30 frames: %r" % lines[-1:])
check(not mixed_rows and progress_rows <= {23}, "region: GL example: rows %s, mixed %r"
      % (sorted(progress_rows), mixed_rows[:3]))

# TERM=dumb: a terminal that cannot move its cursor gets no progress line.
rc, out = on_terminal(["stat", "-o", rep, "--", GL, "10"], size=(24, 80),
                      env=dict(os.environ, TERM="dumb"))
check(rc == 0 and "perfq:" not in out and "\x1b" not in out,
      "TERM=dumb: no progress line: %r" % out[-200:])

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
