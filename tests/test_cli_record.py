#!/usr/bin/env python3
"""perfq record end to end on llvmpipe and PoCL (docs/perfq-record.md): the trace is valid JSON
(python's json), every track's timestamps are monotonic in file order, the expected tracks are
there (CMD's process and thread, a GL device with the context's track, an OpenCL device with the
queue's track, host counter tracks), the frames and commands are all there, with --per-draw
the draws on their own track per context, several threads rendering at once each on its own
track with its context's, CMD's exit status is perfq's, and a CMD killed with SIGKILL mid-run
still leaves a valid trace.

Arguments: PERFQ EXAMPLE_GL EXAMPLE_CL CL_LATE_APP GL_THREADS_APP."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

PERFQ, GL, CL, CL_LATE, GL_THREADS = sys.argv[1:6]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def record(cmd, **kw):
    fd, path = tempfile.mkstemp(prefix="perfq-record-", suffix=".json")
    os.close(fd)
    p = subprocess.run([PERFQ, "record", "-o", path, "--"] + cmd, capture_output=True,
                       text=True, timeout=600, **kw)
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    return p.returncode, text, p.stderr


def parse(text, what):
    try:
        return json.loads(text)
    except ValueError as e:
        check(False, "%s: the trace is not valid JSON: %s" % (what, e))
        return {"traceEvents": [], "otherData": {}}


def check_monotonic(trace, what):
    """Every track's events come in non-decreasing time order in the file."""
    last = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "M":
            continue
        key = (e["pid"], e["tid"]) if e["ph"] == "X" else (e["pid"], "C", e["name"])
        if key in last and e["ts"] < last[key]:
            check(False, "%s: track %s goes back in time (%s after %s)"
                  % (what, key, e["ts"], last[key]))
            return
        last[key] = e["ts"]
    check(trace["otherData"].get("events_out_of_order") == 0,
          "%s: events out of order: %s" % (what, trace["otherData"]))
    # Every GPU interval moved on its track (frames, draws, OpenCL commands) says by how much:
    # as many events with moved_ns as otherData counts (OpenCL's had none before 2026-11-29).
    moved = [e for e in trace["traceEvents"]
             if e["ph"] == "X" and "moved_ns" in e.get("args", {})]
    check(len(moved) == trace["otherData"].get("gpu_intervals_moved", 0) and
          all(e["args"]["moved_ns"] > 0 for e in moved),
          "%s: %d events with moved_ns, otherData says %s moved"
          % (what, len(moved), trace["otherData"].get("gpu_intervals_moved")))


def names(trace, kind):
    return {(e["pid"], e["tid"]): e["args"]["name"] for e in trace["traceEvents"]
            if e["ph"] == "M" and e["name"] == kind + "_name"}


def gpu_frames(trace):
    return [e for e in trace["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl-gpu"]


def test_gl():
    # GPU results of the last frames may still be pending at context release (docs), and on a
    # loaded machine a fence stamp that may be late by more than 1 ms leaves its frame without
    # a GPU interval (docs/gl-layer.md: the stamp rule; here 17-40 of 40 beside CI and two busy
    # loops, with the helper or the program's thread waiting): a run with fewer than 30 is
    # recorded again, at most 5 times, as the layer's tests take a disjoint measurement again.
    for attempt in range(5):
        rc, text, err = record([GL, "40", "3"])
        t = parse(text, "gl")
        if rc != 0 or len(gpu_frames(t)) >= 30:
            break
        print("# gl: %d GPU frames of 40 (attempt %d): recorded again"
              % (len(gpu_frames(t)), attempt + 1))
    check(rc == 0, "gl: exit status %d (%s)" % (rc, err))
    check_monotonic(t, "gl")
    procs, threads = names(t, "process"), names(t, "thread")
    app = [pid for (pid, _), n in procs.items() if "perfq-example-gl" in n]
    dev = [pid for (pid, _), n in procs.items() if n.startswith("GL device: ")]
    check(len(app) == 1, "gl: CMD's process is named once: %s" % procs)
    check(len(dev) == 1, "gl: one GL device process: %s" % procs)
    ctx = [k for k, n in threads.items() if dev and k[0] == dev[0] and
           n.startswith("GL context ")]
    check(len(ctx) == 1, "gl: one context track on the device: %s" % threads)
    x = [e for e in t["traceEvents"] if e["ph"] == "X"]
    cpu = [e for e in x if e["cat"] == "gl" and e["name"] == "frame"]
    gpu = gpu_frames(t)
    check(len(cpu) == 40, "gl: 40 CPU frames, got %d" % len(cpu))
    check(sorted(e["args"]["frame"] for e in cpu) == list(range(40)), "gl: frame indices")
    check(app and all(e["pid"] == app[0] and e["tid"] == app[0] for e in cpu),
          "gl: frames on the main thread's track")
    check(30 <= len(gpu) <= 40, "gl: GPU frames %d" % len(gpu))
    check(ctx and all((e["pid"], e["tid"]) == ctx[0] for e in gpu), "gl: GPU frames on the "
          "context's track")
    check(all(e["dur"] >= 0 and "clock_error_ns" in e["args"] for e in gpu),
          "gl: GPU frames carry their clock error")
    verts = [e for e in t["traceEvents"] if e["ph"] == "C" and e["name"].startswith("vertices")]
    # One sample per statistics span (--stats-span, 4 ms by default), at its last frame's GPU
    # end: the span's vertices per frame, and how many frames it covers (each frame in one).
    check(verts and all(e["args"]["value"] == 18 and e["args"].get("frames", 0) >= 1
                        for e in verts),
          "gl: vertices per frame counter track, 18 each (3 draws), with the span's frames")
    check(sum(e["args"]["frames"] for e in verts) <= 40, "gl: spans cover each frame once")
    host = {e["name"] for e in t["traceEvents"] if e["ph"] == "C" and app and
            e["pid"] == app[0]}
    check("host/task-clock (CPUs)" in host, "gl: host counter tracks: %s" % host)
    mem = {e["name"].split(",")[0]: e["args"]["value"] for e in t["traceEvents"]
           if e["ph"] == "C" and e["name"].startswith("GL memory KiB: ")}
    check(mem.get("GL memory KiB: textures") == 16 and mem.get("GL memory KiB: buffers") == 1,
          "gl: GL memory counter tracks (16 KiB of textures, 1 KiB of buffers): %s" % mem)
    od = t["otherData"]
    check(od.get("frames") == 40 and od.get("exit_status") == 0 and
          od.get("records_dropped") == 0, "gl: otherData %s" % od)


def test_cl():
    rc, text, err = record([CL])
    check(rc == 0, "cl: exit status %d (%s)" % (rc, err))
    t = parse(text, "cl")
    check_monotonic(t, "cl")
    procs, threads = names(t, "process"), names(t, "thread")
    dev = [pid for (pid, _), n in procs.items() if n.startswith("OpenCL device: ")]
    check(len(dev) == 1, "cl: one OpenCL device process: %s" % procs)
    queues = [k for k, n in threads.items() if n.startswith("OpenCL queue ")]
    check(len(queues) == 1, "cl: one queue track: %s" % threads)
    x = [e for e in t["traceEvents"] if e["ph"] == "X"]
    calls = [e for e in x if e["cat"] == "opencl-call"]
    gpu = [e for e in x if e["cat"] == "opencl"]
    # The example: 20 rounds of 2 writes, 3 kernels, 2 reads.
    check(len(calls) == 140, "cl: 140 enqueue calls, got %d" % len(calls))
    check(len(gpu) == 140, "cl: 140 GPU intervals, got %d" % len(gpu))
    for k in ("vadd", "scale", "saxpy"):
        check(sum(e["name"] == k for e in gpu) == 20, "cl: 20 %s intervals" % k)
        check(sum(e["name"] == "enqueue " + k for e in calls) == 20, "cl: 20 enqueue " + k)
    writes = [e for e in gpu if e["name"] == "WRITE_BUFFER"]
    check(len(writes) == 40 and all(e["args"]["bytes"] == 262144 for e in writes),
          "cl: 40 writes of 262144 bytes")
    check(queues and all((e["pid"], e["tid"]) == queues[0] for e in gpu),
          "cl: intervals on the queue's track")
    check(all(e["dur"] >= 0 and e["args"]["clock_error_ns"] >= 0 for e in gpu),
          "cl: intervals carry their clock error")
    od = t["otherData"]
    check(od.get("opencl_commands") == 140 and od.get("gpu_intervals") == 140,
          "cl: otherData %s" % od)


def check_cl_moves_within_error(t, threads, what, moved_share=None, bound=True):
    """On a queue that ran its commands one at a time (no "concurrent" lanes), a command is
    moved only by the error of its queue's clock estimates: its own clock_error_ns, and that of
    the estimate the commands before it were placed with, which perfq record waits to be under
    100 us before it places a queue's commands (record_timeline.c, UNPLACED_ERROR_NS; its first
    command's may be tens of ms): at most 200 us more than its own. Until the seventeenth
    session (2026-11-30) the first commands were placed with such a first estimate, and those
    after them squashed behind them: an outside probe saw 999 of 1000 moved by up to 43 ms,
    each saying an error of under 4 us."""
    lanes = {n.split(", concurrent")[0] for n in threads.values() if ", concurrent" in n}
    tracks = {k for k, n in threads.items() if n.startswith("OpenCL queue ") and n not in lanes
              and ", concurrent" not in n}
    by_track = {}
    for e in t["traceEvents"]:
        if e["ph"] == "X" and e["cat"] == "opencl" and (e["pid"], e["tid"]) in tracks:
            by_track.setdefault((e["pid"], e["tid"]), []).append(e)
    bad = []
    moved = total = 0
    for events in by_track.values():
        events.sort(key=lambda e: e["ts"])
        for e in events:
            total += 1
            moved += "moved_ns" in e["args"]
            if e["args"].get("moved_ns", 0) > e["args"]["clock_error_ns"] + 200000:
                bad.append((e["name"], e["args"]))
    # Not asked where threads share a queue (bound False): a command whose thread was held
    # between its enqueue call and the layer's record comes after later ones; it is placed in
    # the gap where it ran, but where its estimate differs from its neighbours' enough to
    # overlap one it is still moved behind the track's end (once in the ASan build of CI,
    # 2026-11-30: 12.4 ms; docs/perfq-record.md).
    check(not bound or not bad, "%s: %d commands moved past their clock error, e.g. %s"
          % (what, len(bad), bad[:2]))
    # A queue's commands that came together are placed with one estimate: only those at the
    # border of two drains may touch (0 in every run of the development machine since; 238-754
    # of 6002 in test_cl_forked's runs before). Asked of the shapes that run one command at a
    # time per queue (moved_share): on the NVIDIA driver 4 threads on one queue had 2848 of 4007
    # moved, each within its clock error (2026-11-30, not looked into: no device time left).
    if moved_share is not None:
        check(moved <= total * moved_share, "%s: %d of %d commands moved" % (what, moved, total))


def check_cl_late(args, queues_want, commands_want, moved_share=None, bound=True):
    """perfq record of perfq-test-cl-late ARGS: valid, monotonic, nothing out of order or
    dropped, every command's enqueue call and GPU interval there, on queues_want queue tracks,
    and on each queue the k-th earliest GPU interval begins no earlier than the k-th earliest
    enqueue call (each command starts after its enqueue call began: the times the hold
    uses)."""
    what = "cl-late " + " ".join(args)
    rc, text, err = record([CL_LATE] + args)
    check(rc == 0, "%s: exit status %d (%s)" % (what, rc, err))
    t = parse(text, what)
    check_monotonic(t, what)
    od = t["otherData"]
    check(od.get("opencl_commands") == commands_want and
          od.get("gpu_intervals") == commands_want and od.get("records_dropped") == 0 and
          od.get("gpu_intervals_unmatched") == 0,
          "%s: %d commands expected, otherData %s" % (what, commands_want, od))
    threads = names(t, "thread")
    # A queue's tracks: its own, and an out-of-order queue's lanes ("..., concurrent K").
    # A queue: its number and its process (each process numbers its queues from 1).
    tracks = {k: (int(n.split()[2]), n.split("(pid ")[1].split(")")[0])
              for k, n in threads.items() if n.startswith("OpenCL queue ")}
    queues = set(tracks.values())
    check(len(queues) == queues_want, "%s: %d queues' tracks: %s" % (what, queues_want, threads))
    check_tracks_nest(t, what)
    check_cl_moves_within_error(t, threads, what, moved_share, bound)
    x = [e for e in t["traceEvents"] if e["ph"] == "X"]
    calls = [e for e in x if e["cat"] == "opencl-call"]
    gpu = [e for e in x if e["cat"] == "opencl"]
    check(len(calls) == commands_want and len(gpu) == commands_want,
          "%s: %d enqueue calls and %d GPU intervals, %d expected"
          % (what, len(calls), len(gpu), commands_want))
    for queue in queues:
        starts = sorted(e["ts"] for e in gpu if tracks.get((e["pid"], e["tid"])) == queue)
        begun = sorted(e["ts"] for e in calls
                       if (e["args"]["queue"], str(e["pid"])) == queue)
        check(len(starts) == len(begun) and all(s >= b for s, b in zip(starts, begun)),
              "%s: queue %s: %d intervals, %d calls, an interval before its call: %s"
              % (what, queue, len(starts), len(begun),
                 [(s, b) for s, b in zip(starts, begun) if s < b][:3]))
    # The shape the test needs: the first command ran more than 2.5 s before the program's
    # last call (its blocking read after the sleep and clFinish), so its times came late.
    if calls and gpu:
        late = max(e["ts"] for e in calls) - min(e["ts"] for e in gpu)
        check(late >= 2.5e6, "%s: the first command ran only %.0f us before the last call"
              % (what, late))


def test_cl_late():
    """30 rounds of a write and a kernel, 2.6 s of sleep, clFinish: the commands' times come
    2.6 s after they ran, later than the writer's 2 s horizon; before the queues held the
    window, they were written after the host counters of those seconds (out of order)."""
    check_cl_late(["late", "30", "2600"], 2, 2 * 30 + 1)


def test_cl_inflight():
    """A kernel of about 0.1 s, 2000 rounds of a write and a kernel behind it, 500 writes on a
    second queue, 2.6 s of sleep, clFinish on each: thousands of commands pending at once."""
    check_cl_late(["inflight", "2000", "2600"], 2, 1 + 2 * 2000 + 1 + 500)


def test_cl_threads():
    """4 threads enqueue 500 rounds each at once on one queue (their records reach perfq in
    another order than their calls began), 2.6 s of sleep, clFinish."""
    check_cl_late(["threads", "500", "2600"], 2, 4 * 2 * 500 + 2 + 1 + 4, bound=False)


def test_cl_out_of_order():
    """500 kernels on an out-of-order queue (each its own buffer), beside 500 rounds on an
    in-order one: PoCL runs them at once, and their slices go on the queue's lanes ("...,
    concurrent K") so that each track's nest or are disjoint. Before, they all went on the
    queue's one track: 815 partial overlaps of 1000 kernels (check_cl_late checks nesting)."""
    check_cl_late(["ooo", "500", "2600"], 2, 2 * 500 + 1 + 2 * 500)


def test_cl_queues_one_after_another():
    """20 queues made one after another, each 2 commands, finished and released before the
    next is made (PoCL gives the next one the released one's handle): a track each, named by
    the layer's number for the queue in its process. Until the seventeenth session (2026-11-30)
    the handle named the track, and such queues shared one."""
    check_cl_late(["sequential", "20", "2600"], 20 + 2, 2 * 20 + 2 * 1 + 1)


def test_cl_forked():
    """Two processes (a fork before any OpenCL call), each 1000 rounds on two in-order queues:
    every command where it ran, within its clock error (check_cl_moves_within_error), in three
    runs (the misplacement it guards against came in about 3 runs of 5 before)."""
    for _ in range(3):
        check_cl_late(["forked", "1000", "2600"], 4, 2 * (2 * 1000 + 1 + 1000), 0.01)


def test_cl_child_gone():
    """A forked child leaves 5 writes waiting on a user event and kills itself (SIGKILL): their
    records never come. Its queue holds the window until perfq finds its process gone (checked
    once the hold keeps events back past the 2 s horizon), not for the 30 s a hold may last:
    the child's enqueue calls (the hold's own start) reach the file while CMD, the parent
    sleeping for 120 s, still runs. The 20 s allowed is a time limit, far above the 2.1 s it
    takes on the development machine and below the 30 s it took without the check. SIGTERM to
    perfq then ends CMD."""
    fd, path = tempfile.mkstemp(prefix="perfq-record-child-", suffix=".json")
    os.close(fd)
    p = subprocess.Popen([PERFQ, "record", "-o", path, "--", CL_LATE, "child", "5", "120000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stdout.readline()   # the parent reaped the child
    check("killed with SIGKILL" in line, "child: CMD said %r" % line)
    seen = False
    deadline = time.monotonic() + 20
    while not seen and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
        with open(path) as f:
            seen = '"cat":"opencl-call"' in f.read()
    check(seen, "child: the dead child's enqueue calls did not reach the file in 20 s")
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=300)
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    t = parse(text, "child")
    check(p.returncode == 128 + 15, "child: exit status %d (%s)" % (p.returncode, err))
    check_monotonic(t, "child")
    x = [e for e in t["traceEvents"] if e["ph"] == "X"]
    check(sum(e["cat"] == "opencl-call" for e in x) == 5 and
          not [e for e in x if e["cat"] == "opencl"],
          "child: 5 enqueue calls and no GPU interval: %s" % t["otherData"])


def test_gl_per_draw():
    """perfq record --per-draw: every draw counted (otherData draws), each placed draw an X event
    on its context's draws track (the device's process) with its function, frame, vertices and
    primitives; valid JSON, monotonic tracks. The count placed is at most every draw; draws of
    the last frames may still be pending at the context's release, and on the fence path a
    "late" stamp (the helper thread woken late, docs/perfq-record.md) places none: a loaded
    machine can cost any number, so up to 3 attempts, one of them must place most draws."""
    frames, draws = 20, 3
    best = -1
    for attempt in range(3):
        fd, path = tempfile.mkstemp(prefix="perfq-record-draws-", suffix=".json")
        os.close(fd)
        p = subprocess.run([PERFQ, "record", "--per-draw", "-o", path, "--", GL, str(frames),
                            str(draws)], capture_output=True, text=True, timeout=600)
        with open(path) as f:
            text = f.read()
        os.unlink(path)
        what = "per-draw (attempt %d)" % (attempt + 1)
        check(p.returncode == 0, "%s: exit status %d (%s)" % (what, p.returncode, p.stderr))
        t = parse(text, what)
        check_monotonic(t, what)
        od = t["otherData"]
        check(od.get("draws") == frames * draws and od.get("records_dropped") == 0,
              "%s: otherData %s" % (what, od))
        procs, threads = names(t, "process"), names(t, "thread")
        dev = [pid for (pid, _), n in procs.items() if n.startswith("GL device: ")]
        tracks = [k for k, n in threads.items() if n.startswith("GL context ") and
                  n.split(" (pid")[0].endswith(" draws")]
        check(len(dev) == 1 and len(tracks) == 1 and tracks[0][0] == dev[0],
              "%s: one draws track on the GL device: %s" % (what, threads))
        ev = [e for e in t["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl-gpu-draw"]
        check(len(ev) == od.get("draw_intervals"), "%s: %d draw events, otherData says %s"
              % (what, len(ev), od.get("draw_intervals")))
        check(all((e["pid"], e["tid"]) == tracks[0] for e in ev) if tracks else False,
              "%s: draws on the draws track" % what)
        check(all(e["name"] == "glDrawArrays" and e["dur"] >= 0 and
                  0 <= e["args"]["frame"] < frames and e["args"]["vertices"] == 6 and
                  e["args"]["primitives"] == 2 and "clock_error_ns" in e["args"] for e in ev),
              "%s: each draw: glDrawArrays, its frame, 6 vertices, 2 primitives" % what)
        per_frame = {}
        for e in ev:
            per_frame[e["args"]["frame"]] = per_frame.get(e["args"]["frame"], 0) + 1
        check(all(n <= draws for n in per_frame.values()), "%s: at most %d draws a frame: %s"
              % (what, draws, per_frame))
        best = max(best, len(ev))
        if len(ev) >= frames * draws * 3 // 4:
            break
    check(best >= frames * draws * 3 // 4, "per-draw: at most %d of %d draws placed in 3 "
          "attempts" % (best, frames * draws))
    # Without --per-draw: no draw events, no draw counted.
    rc, text, err = record([GL, "5", "2"])
    t = parse(text, "no per-draw")
    check(rc == 0 and t["otherData"].get("draws") == 0 and
          not [e for e in t["traceEvents"] if e.get("cat") == "gl-gpu-draw"],
          "no per-draw: no draws in the trace: %s" % t["otherData"])


def check_tracks_nest(trace, what):
    """Slices (X events) on one track nest or are disjoint, as the Trace Event Format wants; in
    integer ns (ts and dur are written in us with three decimals, each from its ns)."""
    tracks = {}
    for e in trace["traceEvents"]:
        if e["ph"] == "X":
            b = round(e["ts"] * 1000)
            tracks.setdefault((e["pid"], e["tid"]), []).append((b, b + round(e["dur"] * 1000), e))
    bad = []
    for key, slices in tracks.items():
        slices.sort(key=lambda s: (s[0], -s[1]))
        open_ends = []
        for b, end, e in slices:
            while open_ends and open_ends[-1][0] <= b:
                open_ends.pop()
            if open_ends and end > open_ends[-1][0]:
                bad.append((key, open_ends[-1][1], e))
            open_ends.append((end, e))
    check(not bad, "%s: %d slices partly overlap another on their track, e.g. %s"
          % (what, len(bad), bad[:2]))
    return len(tracks)


def test_gpu_tracks_nest():
    """With --per-draw, the GPU slices of each context's track (its frames) and of its draws
    track nest or are disjoint: frames placed as [previous frame's end stamp, own end stamp]
    (the fence their timers share), draws from their own two stamps, and anything the stamps'
    error would still make overlap begins at the previous slice's end (docs/perfq-record.md).
    Before, a frame was [stamp - GPU time, stamp] with a separate stamp fence after it, and a
    about half of the frames overlapped the previous one on llvmpipe. Several threads each with its
    context, and the GL example."""
    for cmd in ([GL_THREADS, "3", "20", "2"], [GL, "20", "3"]):
        fd, path = tempfile.mkstemp(prefix="perfq-record-nest-", suffix=".json")
        os.close(fd)
        p = subprocess.run([PERFQ, "record", "--per-draw", "-o", path, "--"] + cmd,
                           capture_output=True, text=True, timeout=600)
        with open(path) as f:
            text = f.read()
        os.unlink(path)
        what = "nest %s" % os.path.basename(cmd[0])
        check(p.returncode == 0, "%s: exit status %d (%s)" % (what, p.returncode, p.stderr))
        t = parse(text, what)
        frames = gpu_frames(t)
        draws = [e for e in t["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl-gpu-draw"]
        check(frames and draws, "%s: GPU frames and draws placed: %s" % (what, t["otherData"]))
        check_tracks_nest(t, what)


def test_gl_threads():
    """Eight threads rendering at once (tests/gl/threads_frames_app.c, 40 frames each, each thread
    its own context): each thread's frames on its own named track of CMD's process, each
    context's GPU frames on its own track of the GL device, every frame of every thread there,
    nothing dropped, every track monotonic."""
    threads, frames = 8, 40
    rc, text, err = record([GL_THREADS, str(threads), str(frames), "2"])
    t = parse(text, "threads")
    check(rc == 0, "threads: exit status %d (%s)" % (rc, err))
    check_monotonic(t, "threads")
    od = t["otherData"]
    check(od.get("frames") == threads * frames and od.get("records_dropped") == 0 and
          od.get("gpu_intervals") == threads * frames and
          od.get("gpu_intervals_unmatched") == 0, "threads: otherData %s" % od)
    cpu = {}
    for e in t["traceEvents"]:
        if e["ph"] == "X" and e["cat"] == "gl":
            cpu[(e["pid"], e["tid"])] = cpu.get((e["pid"], e["tid"]), 0) + 1
    gpu = {}
    for e in gpu_frames(t):
        gpu[(e["pid"], e["tid"])] = gpu.get((e["pid"], e["tid"]), 0) + 1
    thread_names = names(t, "thread")
    check(len(cpu) == threads and all(n == frames for n in cpu.values()),
          "threads: %d frames on each of %d thread tracks: %s" % (frames, threads, cpu))
    check(all(k in thread_names for k in cpu), "threads: every thread track named: %s"
          % thread_names)
    check(len(gpu) == threads and all(n == frames for n in gpu.values()) and
          all(thread_names.get(k, "").startswith("GL context ") for k in gpu),
          "threads: %d GPU frames on each of %d context tracks: %s" % (frames, threads, gpu))


def test_gl_alternate_contexts():
    """Threads that each make two contexts current in turn, a frame on each (gl-threads-app
    `alternate`, as glxheads' window per context): every CPU frame placed, and slices on each
    track nest or are disjoint: the second context's frames on a lane of their own ("GL context
    N frames (tid T)"), not on the thread's track, where the two contexts' frames overlap (until
    2026-11-29 they were: an outside probe's glxheads, 3364 of 3367 overlapping)."""
    threads, frames = 2, 20
    rc, text, err = record([GL_THREADS, str(threads), str(frames), "2", "alternate"])
    t = parse(text, "alternate")
    check(rc == 0, "alternate: exit status %d (%s)" % (rc, err))
    check_monotonic(t, "alternate")
    check_tracks_nest(t, "alternate")
    cpu = [e for e in t["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl"]
    check(len(cpu) == 2 * threads * frames, "alternate: %d CPU frames, %d expected"
          % (len(cpu), 2 * threads * frames))
    lanes = [n for n in names(t, "thread").values() if " frames (tid " in n]
    check(len(lanes) == threads, "alternate: one lane a thread: %s" % lanes)


def test_exit_status():
    # The GL example refuses a negative frame count with status 2: CMD's, as the trace says.
    rc, text, _ = record([GL, "-5"])
    t = parse(text, "exit")
    check(rc == 2 and t["otherData"].get("exit_status") == 2,
          "exit: status 2 expected, got %d, %s" % (rc, t["otherData"]))
    # A CMD found but not executable: perfq exits 126, and the trace says so (it said 127,
    # its child's exit, until 2026-11-30).
    rc, text, _ = record(["/etc/passwd"])
    t = parse(text, "exit, not executable")
    check(rc == 126 and t["otherData"].get("exit_status") == 126,
          "exit, not executable: status 126 expected, got %d, %s" % (rc, t["otherData"]))


def test_names():
    """CMD's process always has its process_name, its command line, from CMD's argv (otherData
    pid says which it is): also where CMD cannot be executed (there was none: no other event
    names it). Each thread of CMD is named after its comm and tid, and a thread that ended
    before its first record was read (its comm gone from /proc) after its process's comm, not
    "thread (tid N)": eight threads of one frame each end at once."""
    rc, text, err = record(["/nonexistent/perfq-no-such-program", "x"])
    t = parse(text, "names, not found")
    od = t["otherData"]
    procs = names(t, "process")
    check(rc == 127 and od.get("exit_status") == 127, "names, not found: status %d, %s"
          % (rc, od))
    check(procs.get((od.get("pid"), 0)) ==
          "/nonexistent/perfq-no-such-program x (pid %s)" % od.get("pid"),
          "names, not found: CMD's process_name: %s, otherData %s" % (procs, od))
    rc, text, err = record([GL_THREADS, "8", "1", "2"])
    t = parse(text, "names, threads")
    od = t["otherData"]
    pid = od.get("pid")
    check(rc == 0 and od.get("frames") == 8, "names, threads: status %d, %s" % (rc, od))
    check(names(t, "process").get((pid, 0)) == "%s 8 1 2 (pid %s)" % (GL_THREADS, pid),
          "names, threads: CMD's process_name: %s" % names(t, "process"))
    threads = {k: n for k, n in names(t, "thread").items() if k[0] == pid}
    check(len(threads) == 8 and
          all(n == "gl-threads-app (tid %d)" % tid for (_, tid), n in threads.items()),
          "names, threads: 8 threads named 'gl-threads-app (tid N)': %s" % threads)


def record_until_frame(prefix):
    """perfq record of the GL example (a million frames) in the background, until a frame
    reached the file: (the perfq process, the trace's path, CMD's pid or None)."""
    fd, path = tempfile.mkstemp(prefix=prefix, suffix=".json")
    os.close(fd)
    p = subprocess.Popen([PERFQ, "record", "-o", path, "--", GL, "1000000"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    pid = None
    deadline = time.monotonic() + 300
    # Frames reach the file once they are older than the writer's horizon (2 s): wait for one.
    while pid is None and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.2)
        with open(path) as f:
            for line in f:
                if '"cat":"gl"' in line:
                    pid = json.loads(line.rstrip().rstrip(","))["pid"]
                    break
    return p, path, pid


def finish_record(p, path, what):
    """Waits for perfq record to end: (its stderr, the parsed trace); the file is removed."""
    _, err = p.communicate(timeout=300)
    with open(path) as f:
        text = f.read()
    os.unlink(path)
    return err, parse(text, what)


def test_killed():
    """SIGKILL to CMD mid-run: perfq still finishes a valid trace and exits 128 + 9."""
    p, path, pid = record_until_frame("perfq-record-kill-")
    check(pid is not None, "killed: no frame reached the file while CMD ran")
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
    else:
        p.kill()
    err, t = finish_record(p, path, "killed")
    check(p.returncode == 128 + 9, "killed: exit status %d (%s)" % (p.returncode, err))
    check(t["otherData"].get("exit_status") == 137, "killed: otherData %s" % t["otherData"])
    frames = [e for e in t["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl"]
    check(len(frames) >= 1, "killed: frames in the trace")
    check_monotonic(t, "killed")


def test_stopped_mid_frame():
    """CMD stopped (SIGSTOP) for 2.6 s in the middle of a frame, longer than the writer's 2 s
    horizon: the host counter events of those seconds wait for the frame in progress, whose
    event comes at its swap with its start, so nothing is written out of order (before the
    hold, the frame and its GPU interval came after later events had been written)."""
    p, path, pid = record_until_frame("perfq-record-stop-")
    check(pid is not None, "stopped: no frame reached the file while CMD ran")
    if pid is not None:
        # Frames are back to back (each begins at the previous swap): a frame is in progress.
        os.kill(pid, signal.SIGSTOP)
        time.sleep(2.6)
        os.kill(pid, signal.SIGCONT)
        time.sleep(1.0)
        os.kill(pid, signal.SIGKILL)
    else:
        p.kill()
    err, t = finish_record(p, path, "stopped")
    frames = [e for e in t["traceEvents"] if e["ph"] == "X" and e["cat"] == "gl"]
    long_frames = [e for e in frames if e["dur"] >= 2.5e6]   # us
    check(len(long_frames) >= 1, "stopped: a frame of 2.5 s or more (%d frames)" % len(frames))
    check_monotonic(t, "stopped")


for test in (test_gl, test_gl_per_draw, test_gpu_tracks_nest, test_gl_threads, test_cl,
             test_cl_late, test_cl_inflight, test_cl_threads, test_cl_out_of_order,
             test_cl_queues_one_after_another, test_cl_forked, test_cl_child_gone, test_gl_alternate_contexts, test_exit_status,
             test_names, test_killed, test_stopped_mid_frame):
    print("==", test.__name__)
    test()
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
