"""perfq stat's device counters (docs/perfq-stat.md, "Device counters"), against the test-only
libnvidia-ml.so.1 (tests/nvidia/fake-nvml, on LD_LIBRARY_PATH): by default (issue 12) the table
holds every available nvml-gpu0 counter, with the fake's known readings, and says from when they
counted (NVML starts on a thread of perfq while CMD runs); --no-device leaves them out; an -e
list replaces the defaults, device counters included, and --device adds them to it; CUPTI's are
never among them. Where NVML has no device (PERFQ_DISABLE=nvml,gpm here) the default says
nothing of them, and --device says why they are missing. perfq runs with --no-layers: the
device counters do not depend on the layers, and in a sanitizer build the instrumented layers
cannot load into sleep and true (tests/test_cli.c).
Usage: test_stat_device.py PERFQ"""
import json
import os
import subprocess
import sys

perfq = sys.argv[1]


def stat(*args, cmd=("sleep", "0.3"), env=None):
    r = subprocess.run([perfq, "stat", "--no-layers", "--json", *args, "--", *cmd], capture_output=True,
                       text=True, timeout=60, env=env)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stderr)
    return {c["name"]: c for c in doc["counters"]}, doc


default, doc = stat()
assert "host/task-clock" in default, default.keys()
power = default.get("nvml-gpu0/average-power")
assert power is not None, default.keys()
# The fake's constant 100 W (a time-weighted mean); counted over part of a 0.3 s run at least.
assert power["available"] and abs(power["value"] - 100) < 1e-6, power
assert not [n for n in default if n.startswith("cupti")], default.keys()
# NVML's PCIe throughput is not among them (its reads block the sampler 20 ms each): -e names it.
assert "nvml-gpu0/pcie-tx" not in default and "nvml-gpu0/energy" in default, default.keys()
assert 0 <= doc["device_begin_ns"] < doc["elapsed_ns"], doc
pcie, _ = stat("-e", "nvml-gpu0/pcie-tx")
assert pcie["nvml-gpu0/pcie-tx"]["available"] and pcie["nvml-gpu0/pcie-tx"]["value"] > 0, pcie

none, doc = stat("--no-device")
assert "host/task-clock" in none
assert not [n for n in none if "gpu" in n], none.keys()
assert "device_begin_ns" not in doc, doc

named, _ = stat("-e", "host/page-faults")
assert list(named) == ["host/page-faults"], named.keys()

named, _ = stat("--device", "-e", "host/page-faults")
assert "host/page-faults" in named and "host/task-clock" not in named, named.keys()
assert "nvml-gpu0/energy" in named, named.keys()

# The table says from when they counted.
r = subprocess.run([perfq, "stat", "--no-layers", "--", "sleep", "0.3"], capture_output=True, text=True,
                   timeout=60)
assert r.returncode == 0, r.stderr
assert "nvml-gpu0/average-power" in r.stderr and "device counters from" in r.stderr, r.stderr

# A command shorter than NVML's start: the counters are there, not counted, and said so.
short, doc = stat(cmd=("true",))
if doc["device_begin_ns"] is None:
    assert short["nvml-gpu0/average-power"]["counted"] is False, short["nvml-gpu0/average-power"]

# No NVML device: nothing by default, the reason with --device.
env = dict(os.environ, PERFQ_DISABLE="nvml,gpm")
absent, doc = stat(env=env)
assert not [n for n in absent if n.startswith(("nvml", "gpm"))], absent.keys()
assert "device_begin_ns" not in doc, doc
r = subprocess.run([perfq, "stat", "--no-layers", "-o", "/dev/stdout", "--", "true"], capture_output=True,
                   text=True, timeout=60, env=env)
assert r.returncode == 0 and "nvml" not in r.stdout and "device counters" not in r.stdout, r.stdout
asked, _ = stat("--device", env=env)
missing = [c for n, c in asked.items() if n.startswith(("nvml", "gpm"))]
assert missing and all(not c["available"] and "PERFQ_DISABLE" in c["reason"] for c in missing), \
    missing
print("ok: default with nvml-gpu0 (%d counters), --no-device, -e, --device, none without NVML"
      % len([n for n in default if "gpu" in n]))
