#!/usr/bin/env python3
"""Real clients (issue 13): Debian's piglit tests of the query features perfq shares with the
program, each run three ways on llvmpipe, headless (PIGLIT_PLATFORM=surfaceless_egl):

  without   the test alone;
  run       under `perfq run` (the GL and OpenCL layers injected by LD_PRELOAD and
            OPENCL_LAYERS, as a user does it): the layer wraps every query entry point;
  stat      under `perfq stat --layers`: the layer also measures, from each context's first
            make-current, a GL_VERTICES_SUBMITTED_ARB query of its own (query virtualisation:
            the program's pipeline-statistics queries are split around it) and the GPU timer.

What passing means (docs/hardening.md, "Real clients"):
  - a test that passes without the layer passes in both other ways; where one does not, the
    three runs are made again, at most 3 times in all, and one attempt must pass (timer tests
    compare GPU and CPU clocks on a shared, loaded machine);
  - a test that fails without the layer on this driver (llvmpipe's own defects) must still end
    with a piglit verdict under the layer (no crash, no hang): its verdicts are printed;
  - group `intel`: llvmpipe has no GL_INTEL_performance_query, so without the layer the test
    must skip naming that extension, and with the layer (which exposes perfq's own) pass.

Arguments: PERFQ GROUP (occlusion, conditional-render, timer, pipeline-statistics, intel).
Exit 0 when every rule holds, 1 otherwise, and 1 when piglit is not installed
(scripts/install-deps.sh installs it: its absence is a broken set-up, never a skip)."""
import glob
import os
import re
import subprocess
import sys
import time

GROUPS = {
    "occlusion": [
        ["occlusion-query-discard"], ["occlusion_query"], ["occlusion_query_conform"],
        ["occlusion_query_lifetime"], ["occlusion_query_meta_fragments"],
        ["occlusion_query_meta_no_fragments"], ["occlusion_query_meta_save"],
        ["occlusion_query_order"], ["gen_delete_while_active"], ["arb_occlusion_query2-api"],
        ["arb_occlusion_query2-render"], ["ext_occlusion_query_boolean-any-samples"],
    ],
    # Conditional rendering decides on occlusion query results (the layer answers it itself for
    # queries it had to split: docs/gl-layer.md).
    "conditional-render": [
        ["nv_conditional_render-begin-while-active"], ["nv_conditional_render-begin-zero"],
        ["nv_conditional_render-bitmap"], ["nv_conditional_render-blitframebuffer"],
        ["nv_conditional_render-clear"], ["nv_conditional_render-clear-bug"],
        ["nv_conditional_render-copypixels"], ["nv_conditional_render-copyteximage"],
        ["nv_conditional_render-copytexsubimage"], ["nv_conditional_render-dlist"],
        ["nv_conditional_render-drawpixels"], ["nv_conditional_render-generatemipmap"],
        ["nv_conditional_render-vertex_array"], ["arb_indirect_parameters-conditional-render"],
    ],
    "timer": [
        ["ext_disjoint_timer_query-simple"], ["ext_timer_query-time-elapsed"],
        ["ext_timer_query-time-elapsed", "timestamp"], ["timer_query"],
        ["ext_timer_query-lifetime"], ["arb_timer_query-timestamp-get"],
    ],
    # arb_pipeline_statistics_query-comp: its first run on a machine compiles a large compute
    # shader (52-106 s on llvmpipe); Mesa's shader cache makes the next two runs about 3 s.
    "pipeline-statistics": [
        ["arb_pipeline_statistics_query-extra_prims"], ["arb_pipeline_statistics_query-vert"],
        ["arb_pipeline_statistics_query-vert_adj"], ["arb_pipeline_statistics_query-clip"],
        ["arb_pipeline_statistics_query-geom"], ["arb_pipeline_statistics_query-frag"],
        ["arb_query_buffer_object-qbo"], ["arb_query_buffer_object-coherency"],
        ["arb_pipeline_statistics_query-comp"],
    ],
    "intel": [["intel_performance_query-issue_2235"]],
}
ATTEMPTS = 3
TIMEOUT = 400   # a hang, not a slow run: the comp test's cold first run is up to 106 s

PERFQ, GROUP = sys.argv[1], sys.argv[2]
failures = []


def piglit_bin():
    for d in [os.environ.get("PERFQ_PIGLIT_BIN", "")] + sorted(
            glob.glob("/usr/lib/*/piglit/bin")) + ["/usr/lib/piglit/bin"]:
        if d and os.path.isdir(d):
            return d
    return None


def run(way, argv):
    """One run: (verdict, output). Verdict: pass, fail, skip, warn, crash, timeout."""
    cmd = argv + ["-auto", "-fbo"]
    if way == "run":
        cmd = [PERFQ, "run", "--"] + cmd
    elif way == "stat":
        cmd = [PERFQ, "stat", "--layers", "-o", os.devnull, "--"] + cmd
    env = dict(os.environ, PIGLIT_PLATFORM="surfaceless_egl", EGL_PLATFORM="surfaceless")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors="replace", env=env,
                           timeout=TIMEOUT)
    except subprocess.TimeoutExpired as e:
        out = e.stdout or ""
        return "timeout", out if isinstance(out, str) else out.decode(errors="replace")
    out = p.stdout + p.stderr
    m = re.findall(r'PIGLIT: \{"result": "(\w+)"', out)
    # perfq run / stat exit with CMD's status; a signal shows as a negative code (direct) or
    # 128+N (through perfq).
    if p.returncode < 0 or p.returncode >= 128 or not m:
        return "crash(rc=%d)" % p.returncode, out
    return m[-1], out


def main():
    bindir = piglit_bin()
    if not bindir:
        # Installed by scripts/install-deps.sh: its absence is a broken set-up, not a skip.
        print("FAIL: piglit is not installed (Debian package piglit; scripts/install-deps.sh)")
        return 1
    started = time.monotonic()
    rows = []
    for test in GROUPS[GROUP]:
        name = " ".join(test)
        argv = [os.path.join(bindir, test[0])] + test[1:]
        if not os.path.exists(argv[0]):
            failures.append("%s: not in %s" % (name, bindir))
            continue
        for attempt in range(1, ATTEMPTS + 1):
            res = {w: run(w, argv) for w in ("without", "run", "stat")}
            v = {w: res[w][0] for w in res}
            if GROUP == "intel":
                ok = (v["without"] == "skip" and "GL_INTEL_performance_query" in
                      res["without"][1] and v["run"] == "pass" and v["stat"] == "pass")
            elif v["without"] == "pass":
                ok = v["run"] == "pass" and v["stat"] == "pass"
            else:
                # Fails without the layer: the driver's verdict; the layer must not crash.
                ok = not any(x.startswith(("crash", "timeout")) for x in v.values())
            if ok:
                break
        why = ""
        if not ok:
            for w in res:
                tail = "\n".join(res[w][1].strip().splitlines()[-6:])
                print("--- %s, %s (attempt %d), last lines:\n%s" % (name, w, attempt, tail))
            failures.append("%s: without %s, run %s, stat %s" % (name, v["without"], v["run"],
                                                                  v["stat"]))
        elif v["without"] != "pass" and GROUP != "intel":
            why = "  (fails without the layer on this driver)"
        rows.append((name, v["without"], v["run"], v["stat"], attempt, why))
    print("%-48s %-9s %-9s %-9s %s" % ("piglit test", "without", "run", "stat", "attempts"))
    for r in rows:
        print("%-48s %-9s %-9s %-9s %d%s" % r)
    passed = sum(1 for r in rows if r[1] == "pass")
    print("group %s: %d tests; without the layer %d pass; with it (run, stat) %d and %d pass; "
          "%.1f s" % (GROUP, len(rows), passed, sum(1 for r in rows if r[2] == "pass"),
                      sum(1 for r in rows if r[3] == "pass"), time.monotonic() - started))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


sys.exit(main())
