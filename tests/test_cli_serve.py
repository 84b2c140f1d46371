#!/usr/bin/env python3
"""perfq serve end to end (docs/perfq-serve.md): a real HTTP client (python's urllib) on
loopback gets the Prometheus text exposition 0.0.4 from GET /metrics; promtool (Debian's
prometheus package) passes it; the series carry device, group and counter labels; counters only
grow and the samples go on between scrapes; other paths and methods are refused; -p PID labels
a process's series; SIGTERM and SIGINT stop it cleanly (exit status 0); a bad address is
refused. Argument: PERFQ."""
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

PERFQ = sys.argv[1]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def start(args):
    p = subprocess.Popen([PERFQ, "serve", "--listen", "127.0.0.1:0"] + args,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    line = b""
    deadline = time.monotonic() + 120
    while b"\n" not in line and time.monotonic() < deadline:
        r, _, _ = select.select([p.stderr], [], [], 1.0)
        if r:
            chunk = os.read(p.stderr.fileno(), 4096)
            if not chunk:
                break
            line += chunk
    m = re.search(rb"listening on http://127\.0\.0\.1:(\d+)/metrics", line)
    if not m:
        p.kill()
        p.wait()
        check(False, "perfq serve did not say where it listens: %r" % line)
        return None, None
    return p, int(m.group(1))


def get(port, path="/metrics", method="GET"):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type"), ""


SERIES = re.compile(r'^(perfq_[a-z_]+)(\{([^}]*)\})? (\S+)$')


def parse(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SERIES.match(line)
        check(m is not None, "a line that is not a series: %r" % line)
        if m:
            out[(m.group(1), m.group(3) or "")] = float(m.group(4))
    return out


def stop(p, sig):
    p.send_signal(sig)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = None
    err = p.stderr.read().decode()
    p.stderr.close()
    return rc, err


promtool = shutil.which("promtool")
check(promtool is not None, "promtool is missing (Debian's prometheus package: "
      "scripts/install-deps.sh installs it)")

p, port = start(["-I", "50"])
if p:
    status, ctype, text = get(port)
    check(status == 200, "GET /metrics: %s" % status)
    check(ctype and ctype.startswith("text/plain; version=0.0.4"), "Content-Type %r" % ctype)
    if promtool:
        lint = subprocess.run([promtool, "check", "metrics"], input=text.encode(),
                              capture_output=True, timeout=120)
        check(lint.returncode == 0, "promtool check metrics: %r" % (lint.stdout + lint.stderr))
    first = parse(text)
    check(('perfq_counted_total', 'device="host",group="host",counter="task-clock",'
           'unit="seconds"') in first, "host/task-clock is served: %s" % list(first)[:5])
    for (name, labels) in first:
        if name in ("perfq_counted_total", "perfq_level"):
            check(all(k + "=" in labels for k in ("device", "group", "counter")),
                  "labels device, group, counter: %s" % labels)
    # The samples go on between scrapes (every 50 ms); counters never go back.
    later, deadline = first, time.monotonic() + 60
    while later[("perfq_samples_total", "")] <= first[("perfq_samples_total", "")] and \
            time.monotonic() < deadline:
        time.sleep(0.2)
        later = parse(get(port)[2])
    check(later[("perfq_samples_total", "")] > first[("perfq_samples_total", "")],
          "perfq_samples_total grows")
    for key, v in first.items():
        if key[0].endswith("_total"):
            check(later.get(key, -1) >= v, "counter %s went back" % (key,))
    check(get(port, "/")[0] == 404, "GET / is 404")
    check(get(port, "/metrics", "POST")[0] == 405, "POST /metrics is 405")
    check(get(port, "/metrics", "HEAD")[0] == 200, "HEAD /metrics is 200")
    rc, err = stop(p, signal.SIGTERM)
    check(rc == 0 and "SIGTERM: stopping" in err, "SIGTERM: exit %s, %r" % (rc, err))

# A process of its own (-p): its series are labelled with its pid; SIGINT stops cleanly.
child = subprocess.Popen(["sleep", "600"])
p, port = start(["-p", str(child.pid), "-I", "50"])
if p:
    series = parse(get(port)[2])
    mine = [k for k in series if 'pid="%d"' % child.pid in k[1]]
    check(len(mine) >= 5, "-p: series of pid %d: %d" % (child.pid, len(mine)))
    rc, err = stop(p, signal.SIGINT)
    check(rc == 0 and "SIGINT: stopping" in err, "SIGINT: exit %s, %r" % (rc, err))
child.kill()
child.wait()

# A port in use: perfq's own message alone (libmicrohttpd's said "port 0"), exit 2.
p, port = start([])
if p:
    r = subprocess.run([PERFQ, "serve", "--listen", "127.0.0.1:%d" % port], capture_output=True,
                       timeout=60)
    err = r.stderr.decode()
    check(r.returncode == 2 and err == "perfq serve: cannot listen on 127.0.0.1:%d (in use, or "
          "not an address of this machine)\n" % port,
          "port in use: exit %d, %r" % (r.returncode, err))
    stop(p, signal.SIGTERM)

# A process that does not exist is named as such.
gone = subprocess.Popen(["true"])
gone.wait()
r = subprocess.run([PERFQ, "serve", "--listen", "127.0.0.1:0", "-p", str(gone.pid)],
                   capture_output=True, timeout=60)
check(r.returncode == 2 and r.stderr.decode() == "perfq serve: no process %d\n" % gone.pid,
      "-p of a process gone: exit %d, %r" % (r.returncode, r.stderr))

for bad in (["--listen", "nonsense"], ["--listen", "127.0.0.1:99999"], ["-I", "5"],
            ["--frobnicate"]):
    r = subprocess.run([PERFQ, "serve"] + bad, capture_output=True, timeout=60)
    check(r.returncode == 2 and r.stderr, "%s: exit 2 with a message, got %d" % (bad, r.returncode))

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
