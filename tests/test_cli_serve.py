#!/usr/bin/env python3
"""perfq serve end to end (docs/perfq-serve.md): a real HTTP client (python's urllib) on
loopback gets the Prometheus text exposition 0.0.4 from GET /metrics; promtool (Debian's
prometheus package) passes it; the series carry device, group and counter labels; counters only
grow and the samples go on between scrapes; other paths and methods are refused; -p PID labels
a process's series; SIGTERM and SIGINT stop it cleanly (exit status 0); a bad address is
refused. Argument: PERFQ."""
import http.client
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
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

def raw(port, request):
    """The status line libmicrohttpd answers a request written as given."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
        c.sendall(request)
        return c.makefile("rb").readline().decode(errors="replace").strip()


# A process of its own (-p): its series are labelled with its pid; SIGINT stops cleanly. It
# sleeps: its host counters (task-clock...), which have not run since perfq began counting,
# are served as 0 from the first scrape (they were left out until it woke), so every series
# announced is there. Named twice, it is served once.
child = subprocess.Popen(["sleep", "600"])
p, port = start(["-p", str(child.pid), "--pid=%d" % child.pid, "-I", "50"])
if p:
    text = get(port)[2]
    series = parse(text)
    mine = [k for k in series if 'pid="%d"' % child.pid in k[1]]
    check(len(mine) >= 5, "-p: series of pid %d: %d" % (child.pid, len(mine)))
    lines = [l for l in text.splitlines() if l and not l.startswith("#")]
    check(len(lines) == len(set(l.rsplit(" ", 1)[0] for l in lines)),
          "-p PID twice: a series served twice")
    clock = [v for k, v in series.items()
             if 'counter="task-clock"' in k[1] and 'pid="%d"' % child.pid in k[1]]
    check(clock == [0.0], "-p of a sleeping process: its task-clock %r, not [0]" % clock)
    # HTTP/1.1 without Host is a bad request (RFC 9112 3.2); HTTP/1.0 needs none.
    check(" 400 " in raw(port, b"GET /metrics HTTP/1.1\r\n\r\n") + " ",
          "HTTP/1.1 without Host: not 400")
    check(" 200 " in raw(port, b"GET /metrics HTTP/1.0\r\n\r\n") + " ",
          "HTTP/1.0 without Host: not 200")
    for _ in range(30):   # requests cut short: one libmicrohttpd line each, unbounded before
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            c.sendall(b"GET /met")
    time.sleep(0.5)
    rc, err = stop(p, signal.SIGINT)
    check(rc == 0 and "SIGINT: stopping" in err, "SIGINT: exit %s, %r" % (rc, err))
    # libmicrohttpd's lines about clients are at most 10 a minute (30 requests cut short).
    check(err.count("libmicrohttpd:") <= 11, "libmicrohttpd lines: %d" % err.count("libmicrohttpd"))
child.kill()
child.wait()

# "[::]" listens on IPv4 too (dual stack), where the machine has IPv6.
if socket.has_ipv6 and os.path.exists("/proc/net/if_inet6"):
    p6 = subprocess.Popen([PERFQ, "serve", "--listen", "[::]:0"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE)
    line = p6.stderr.readline().decode()
    m = re.search(r"listening on http://\[::\]:(\d+)/metrics", line)
    check(m is not None, "[::]: %r" % line)
    if m:
        try:
            status = get(int(m.group(1)))[0]
        except OSError as e:
            status = e
        check(status == 200, "[::]: no answer on 127.0.0.1: %s" % status)
    stop(p6, signal.SIGTERM)

# Slow clients: a connection has 10 s (SERVE_DEADLINE_S) to send a request's headers, however
# it trickles them (libmicrohttpd's timeout alone is an idle one: a header line every second
# kept the connection for ever, and 64 of them kept every scraper out). A keep-alive client
# that asks every second is not cut.
p, port = start([])
if p:
    result = {}

    def trickle():
        with socket.create_connection(("127.0.0.1", port), timeout=30) as c:
            t0 = time.monotonic()
            c.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n")
            try:
                while time.monotonic() - t0 < 16:
                    c.sendall(b"X-Slow: 1\r\n")
                    c.settimeout(1.0)
                    try:
                        if c.recv(4096) == b"":
                            break
                    except socket.timeout:
                        pass
            except OSError:
                pass
            result["trickle"] = time.monotonic() - t0

    def keep_alive():
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        answered = 0
        try:
            for _ in range(13):
                conn.request("GET", "/metrics")
                answered += conn.getresponse().read() != b""
                time.sleep(1.0)
        except (OSError, http.client.HTTPException):
            pass
        conn.close()
        result["keep-alive"] = answered

    threads = [threading.Thread(target=trickle), threading.Thread(target=keep_alive)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(9.0 <= result.get("trickle", 99) <= 13.0,
          "a trickling client was cut after %.1f s, not 10-12 s" % result.get("trickle", -1))
    check(result.get("keep-alive") == 13, "keep-alive: %s of 13 answered" % result.get("keep-alive"))
    stop(p, signal.SIGTERM)

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
            ["--frobnicate"], ["-e", ""], ["--events="]):
    r = subprocess.run([PERFQ, "serve"] + bad, capture_output=True, timeout=60)
    check(r.returncode == 2 and r.stderr, "%s: exit 2 with a message, got %d" % (bad, r.returncode))

print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
