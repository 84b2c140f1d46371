#!/usr/bin/env python3
"""Writes a shell script that runs a build's meson tests without meson, for the GPU machine.

The GPU machine's meson is newer than Debian's and cannot run a build made here, so the tests
run from the build made here, copied there (docs/hardening.md, "The suites on the GPU
machine"). This reads `meson introspect BUILD --tests`, keeps the tests of the suites named (all
with none), and writes a POSIX sh script that runs each with its environment, arguments and
working folder, the build's path replaced by DEST_BUILD and the source tree's by DEST_SRC (shell
words: "$PWD/.device-lead/build" is expanded there). Exit 77 is a skip, as in meson. The
script's last line is "N passed, M failed, K skipped"; its exit status is 1 when any failed.
On the GPU machine put ocl-icd's libOpenCL before CUDA's on LD_LIBRARY_PATH (CUDA's loads no
layers) and promtool on PATH (cli-serve).

    scripts/device-tests.py BUILD DEST_BUILD DEST_SRC [SUITE...] > run.sh
"""
import json
import os
import shlex
import subprocess
import sys


def main():
    if len(sys.argv) < 4:
        sys.stderr.write(__doc__)
        return 2
    build, dest_build, dest_src = sys.argv[1:4]
    suites = set(sys.argv[4:])
    build = os.path.realpath(build)
    src = os.path.dirname(build)
    tests = json.loads(subprocess.check_output(["meson", "introspect", build, "--tests"]))

    def moved(word):
        if word.startswith("/"):
            word = os.path.normpath(word)
        # Longest first: the build folder lies inside the source tree.
        for old, new in ((build, dest_build), (src, dest_src)):
            if word.startswith(old):
                return new + shlex.quote(word[len(old):]) if word != old else new
        return shlex.quote(word)

    out = ["#!/bin/sh", "passed=0; failed=0; skipped=0"]
    for t in tests:
        names = {s.split(":")[-1] for s in t["suite"]}
        if suites and not names & suites:
            continue
        # A path list's parts each; the machine's own LD_LIBRARY_PATH (libraries copied
        # there) stays after the test's.
        env = " ".join("%s=%s%s" % (k, ":".join(moved(p) for p in v.split(":")),
                                    ':"$LD_LIBRARY_PATH"' if k == "LD_LIBRARY_PATH" else "")
                       for k, v in sorted(t["env"].items()))
        words = t["cmd"] + t.get("args", [])
        if os.path.basename(words[0]).startswith("python3"):
            words = ["python3"] + words[1:]    # the interpreter of that machine
        cmd = " ".join(moved(w) for w in words)
        cwd = moved(t["workdir"]) if t.get("workdir") else dest_build
        timeout = int(t.get("timeout") or 30) * 2
        out.append("echo '=== %s'" % t["name"])
        out.append("(cd %s && env %s timeout %d %s); rc=$?" % (cwd, env, timeout, cmd))
        out.append('case $rc in 0) passed=$((passed+1)); echo "ok %s";; '
                   '77) skipped=$((skipped+1)); echo "SKIP %s";; '
                   '*) failed=$((failed+1)); echo "FAIL %s (exit $rc)";; esac'
                   % (t["name"], t["name"], t["name"]))
    out.append('echo "$passed passed, $failed failed, $skipped skipped"')
    out.append('[ "$failed" -eq 0 ]')
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
