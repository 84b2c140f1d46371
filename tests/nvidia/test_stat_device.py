"""perfq stat's device counters (docs/perfq-stat.md, "Device counters"), against the test-only
libnvidia-ml.so.1 (tests/nvidia/fake-nvml, on LD_LIBRARY_PATH): by default (issue 12) the table
holds every available nvml-gpu0 counter, with the fake's known readings, and says from when they
counted and what started NVML (on a thread of perfq, PERFQ_STAT_DEVICE_DELAY_MS after CMD's
start, or past it at the first frame or OpenCL command of a CMD still in its driver start); a CMD that
ends before NVML started, or while it starts, gets a note and no device counters (--device: listed,
not counted); --no-device leaves them out; an -e
list replaces the defaults, device counters included, and --device adds them to it; CUPTI's are
never among them. Where NVML has no device (PERFQ_DISABLE=nvml,gpm here) the default says
nothing of them, and --device says why they are missing. perfq runs with --no-layers: the
device counters do not depend on the layers, and in a sanitizer build the instrumented layers
cannot load into sleep and true (tests/test_cli.c); but for the examples' runs (given where
they are built), which show that their first frame and OpenCL command start NVML.
Usage: test_stat_device.py PERFQ [EXAMPLE_GL EXAMPLE_CL]"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

perfq = sys.argv[1]
example_gl = sys.argv[2] if len(sys.argv) > 2 else ""
example_cl = sys.argv[3] if len(sys.argv) > 3 else ""


# NVML starts 1 s after CMD's start by default; the runs below that are not about when it starts
# set 0.2 s, so that a CMD of 0.5 s has them.
short_delay = dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="200")
env_unset = {k: v for k, v in os.environ.items() if k != "PERFQ_STAT_DEVICE_DELAY_MS"}


def stat(*args, cmd=("sleep", "0.5"), env=short_delay):
    r = subprocess.run([perfq, "stat", "--no-layers", "--json", *args, "--", *cmd], capture_output=True,
                       text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stderr)
    return {c["name"]: c for c in doc["counters"]}, doc


# The default delay: NVML starts 1 s after CMD's start; a CMD of 0.5 s has no device counters.
default, doc = stat(cmd=("sleep", "1.4"), env=env_unset)
assert doc["device_start"] == "delay" and 1000000000 <= doc["device_start_ns"], doc
assert doc["device_begin_ns"] is not None, doc
assert default["nvml-gpu0/average-power"]["counted"], default["nvml-gpu0/average-power"]
short, doc = stat(env=env_unset)
assert not [n for n in short if "gpu" in n], short.keys()
assert doc["device_start"] == "not_started", doc

default, doc = stat()
doc_default = doc
assert "rusage/user-time" in default, default.keys()
power = default.get("nvml-gpu0/average-power")
assert power is not None, default.keys()
# The fake's constant 100 W (a time-weighted mean), counted over the last 0.3 s of the 0.5 s run
# (NVML starts 0.2 s after CMD here: PERFQ_STAT_DEVICE_DELAY_MS).
assert power["available"] and abs(power["value"] - 100) < 1e-6, power
assert not [n for n in default if n.startswith("cupti")], default.keys()
# NVML's PCIe throughput is not among them (its reads block the sampler 20 ms each): -e names it.
assert "nvml-gpu0/pcie-tx" not in default and "nvml-gpu0/energy" in default, default.keys()
assert 0 <= doc["device_begin_ns"] < doc["elapsed_ns"], doc
pcie, _ = stat("-e", "nvml-gpu0/pcie-tx")
assert pcie["nvml-gpu0/pcie-tx"]["available"] and pcie["nvml-gpu0/pcie-tx"]["value"] > 0, pcie

none, doc = stat("--no-device")
assert "rusage/user-time" in none
assert not [n for n in none if "gpu" in n], none.keys()
assert "device_begin_ns" not in doc, doc

named, _ = stat("-e", "host/page-faults")
assert list(named) == ["host/page-faults"], named.keys()

named, _ = stat("--device", "-e", "host/page-faults")
assert "host/page-faults" in named and "rusage/user-time" not in named, named.keys()
assert "nvml-gpu0/energy" in named, named.keys()

# The table says from when they counted.
r = subprocess.run([perfq, "stat", "--no-layers", "--", "sleep", "0.5"], capture_output=True, text=True,
                   timeout=60, env=short_delay)
assert r.returncode == 0, r.stderr
assert "nvml-gpu0/average-power" in r.stderr and "device counters from" in r.stderr, r.stderr

# NVML starts after CMD's driver start: without the layers' first frame or OpenCL command,
# PERFQ_STAT_DEVICE_DELAY_MS after CMD's start (0: at once).
assert doc_default["device_start"] == "delay", doc_default
assert doc_default["device_start_ns"] <= doc_default["device_begin_ns"], doc_default
_, doc = stat(env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="0"))
assert doc["device_start"] == "at_once" and doc["device_begin_ns"] is not None, doc

# --device asks for them from CMD's start: NVML starts at once (the delay unset).
asked, doc = stat("--device", cmd=("sleep", "0.3"), env=env_unset)
assert doc["device_start"] == "at_once" and doc["device_begin_ns"] is not None, doc
assert asked["nvml-gpu0/average-power"]["counted"], asked["nvml-gpu0/average-power"]

# A command that ends before NVML's start: no device counters, said so; NVML never started.
short, doc = stat(cmd=("true",), env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="60000"))
assert not [n for n in short if "gpu" in n], short.keys()
assert doc["device_start"] == "not_started" and doc["device_begin_ns"] is None, doc
assert doc["device_start_ns"] is None, doc
r = subprocess.run([perfq, "stat", "--no-layers", "--", "true"], capture_output=True, text=True,
                   timeout=60, env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="60000"))
assert r.returncode == 0 and "CMD ended before NVML was to start" in r.stderr, r.stderr
# NVML is loaded when it starts, not before: such a run never loads it (the fake's load mark),
# one whose counters start (at once, CMD long enough to see them begin) does.
load_dir = tempfile.mkdtemp(prefix="perfq-stat-device-load-")
load_mark = os.path.join(load_dir, "loaded")
for delay, cmd, loaded in (("60000", ["true"], False), ("0", ["sleep", "0.3"], True)):
    r = subprocess.run([perfq, "stat", "--no-layers", "-o", "/dev/null", "--"] + cmd,
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS=delay,
                                FAKE_NVML_LOAD_MARK=load_mark))
    assert r.returncode == 0, r.stderr
    assert os.path.exists(load_mark) == loaded, (delay, r.stderr)
    if os.path.exists(load_mark):
        os.unlink(load_mark)
os.rmdir(load_dir)
# A command that ends as NVML starts: perfq may leave its thread inside the start, which may then
# end before perfq does. That thread is detached (never joined): no leak, the status is CMD's
# (ThreadSanitizer's CI build reports an unjoined finished thread, and exits 66).
for _ in range(8):
    r = subprocess.run([perfq, "stat", "--no-layers", "-o", "/dev/null", "--", "true"],
                       capture_output=True, text=True, timeout=60,
                       env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="0"))
    assert r.returncode == 0 and "ThreadSanitizer" not in r.stderr, r.stderr
# One that ends while NVML starts (the fake's nvmlInit_v2 takes 3 s here): perfq does not wait
# for it (no counters, said so; its exit status is CMD's). CMD ends once nvmlInit_v2 has begun
# (the fake's mark): a CMD that merely ends soon may end before perfq's thread gets there.
mark_dir = tempfile.mkdtemp(prefix="perfq-stat-device-")
mark = os.path.join(mark_dir, "nvml-init")
slow = dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="0", FAKE_NVML_INIT_MS="3000",
            FAKE_NVML_INIT_MARK=mark)
r = subprocess.run([perfq, "stat", "--no-layers", "--json", "--", "sh", "-c",
                    'while [ ! -e "$0" ]; do sleep 0.01; done; exit 3', mark],
                   capture_output=True, text=True, timeout=60, env=slow)
shutil.rmtree(mark_dir, ignore_errors=True)
doc = json.loads(r.stderr)
assert r.returncode == 3, r.stderr
assert doc["device_start"] == "at_once" and doc["device_start_ns"] is not None, doc
assert doc["device_begin_ns"] is None, doc
assert not [c["name"] for c in doc["counters"] if "gpu" in c["name"]], doc
# With --device they are listed all the same, not counted (NVML is waited for, for them).
asked, doc = stat("--device", cmd=("true",),
                  env=dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="60000"))
assert asked["nvml-gpu0/average-power"]["counted"] is False, asked["nvml-gpu0/average-power"]
assert doc["device_begin_ns"] is None, doc

# With the layers, NVML starts no sooner than the delay (50 ms here), and past it waits for the
# first frame (GL) or OpenCL command of a CMD that loaded a layer and sent neither yet, at most
# 0.8 s: which of them started it depends on how fast the example starts here.
layers_env = dict(os.environ, PERFQ_STAT_DEVICE_DELAY_MS="50",
                  ASAN_OPTIONS="verify_asan_link_order=0:detect_leaks=0")
for example, args, first in ((example_gl, ["300"], "first_frame"),
                             (example_cl, ["100"], "first_command")):
    if not example:
        continue
    with tempfile.NamedTemporaryFile(suffix=".json") as out:
        r = subprocess.run([perfq, "stat", "--json", "-o", out.name, "--", example, *args],
                           capture_output=True, text=True, timeout=120, env=layers_env)
        assert r.returncode == 0, r.stderr
        doc = json.load(open(out.name))
    counted = {c["name"]: c for c in doc["counters"]}
    assert doc["device_start"] in ("delay", first, "no_first"), (example, doc)
    if doc["device_start"] == "no_first":
        assert doc["device_start_ns"] >= 850000000, doc
    assert 50000000 <= doc["device_start_ns"] <= doc["device_begin_ns"] < doc["elapsed_ns"], doc
    # Counted once the sampler sampled after their begin (every 20 ms): on a loaded machine the
    # example may end sooner after its first frame or command.
    if doc["elapsed_ns"] - doc["device_begin_ns"] > 100000000:
        assert counted["nvml-gpu0/average-power"]["counted"], (example, doc)

# No NVML device: nothing by default, the reason with --device.
env = dict(os.environ, PERFQ_DISABLE="nvml,gpm")
absent, doc = stat(env=env)
assert not [n for n in absent if n.startswith(("nvml", "gpm"))], absent.keys()
assert "device_begin_ns" not in doc, doc
r = subprocess.run([perfq, "stat", "--no-layers", "-o", "/dev/stdout", "--", "true"], capture_output=True,
                   text=True, timeout=60, env=env)
assert r.returncode == 0 and "nvml" not in r.stdout and "device counters" not in r.stdout, r.stdout
asked, doc = stat("--device", env=env)
missing = [c for n, c in asked.items() if n.startswith(("nvml", "gpm"))]
assert missing and all(not c["available"] and "PERFQ_DISABLE" in c["reason"] for c in missing), \
    missing
# Their rows say why; nothing about when NVML started (it has none to count).
assert "device_start" not in doc and "device_begin_ns" not in doc, doc
print("ok: default with nvml-gpu0 (%d counters), --no-device, -e, --device, none without NVML"
      % len([n for n in default if "gpu" in n]))
