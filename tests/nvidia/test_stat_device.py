"""perfq stat's device counters are opt-in (--device, docs/perfq-stat.md): against the test-only
libnvidia-ml.so.1 (tests/nvidia/fake-nvml, on LD_LIBRARY_PATH), the default table holds no
device counter; --device adds every available one
(nvml-gpu0's, with the fake's known readings), also beside -e; CUPTI's are never among them.
Usage: test_stat_device.py PERFQ"""
import json
import subprocess
import sys

perfq = sys.argv[1]


def stat(*args):
    r = subprocess.run([perfq, "stat", "--json", *args, "--", "true"], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return {c["name"]: c for c in json.loads(r.stderr)["counters"]}


default = stat()
assert "host/task-clock" in default, default.keys()
assert not [n for n in default if "gpu" in n], default.keys()

device = stat("--device")
assert "host/task-clock" in device
power = device.get("nvml-gpu0/average-power")
assert power is not None, device.keys()
assert abs(power["value"] - 100) < 1e-6, power   # the fake's constant 100 W (a time-weighted mean)
assert not [n for n in device if n.startswith("cupti")], device.keys()

named = stat("--device", "-e", "host/page-faults")
assert "host/page-faults" in named and "host/task-clock" not in named, named.keys()
assert "nvml-gpu0/energy" in named, named.keys()
print("ok: default without device counters, --device with nvml-gpu0 (%d counters)"
      % len([n for n in device if "gpu" in n]))
