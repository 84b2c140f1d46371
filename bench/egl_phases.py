#!/usr/bin/env python3
"""egl_phases.py PERFQ ROUNDS [--libs DIR] -- CMD [ARGS]: where a GL program's time goes under
perfq, EGL call by EGL call, side by side with CMD bare. Variants: bare, perfq run (the layers,
nothing counted), perfq stat --no-device --no-stats and perfq stat --no-device. CMD runs under
`sh -c` in every variant (so that the stamp libraries go around perfq's layer in LD_PRELOAD:
libegl-call-stamps.so before it, libegl-call-stamps-driver.so after it; built in build/bench/gl,
or --libs DIR). Each round runs each variant once, in an order that rotates every round (one
warm-up round first). Prints, per variant, the median in ms and the median of its difference
to the bare run of the same round of: pre (launch to CMD's constructor), start (to its first
EGL call), frames (first swap's end to last swap's end), exit (last EGL call's end to CMD's
last destructor), post (to the launcher's wait returning), wall, and the time in each EGL call
(init, choose, ctx, surf, make, swap, dctx, dsurf, term, bind); then the same calls seen after
the layer (the driver's part). For single-threaded programs that call EGL through the dynamic
linker, as perfq-example-gl. No assertions."""
import os
import statistics
import subprocess
import sys
import time

args = sys.argv[1:]
if '--' not in args or len(args) < 4:
    sys.exit(__doc__)
perfq, rounds = args[0], int(args[1])
cmd = args[args.index('--') + 1:]
head = args[:args.index('--')]
libs = head[head.index('--libs') + 1] if '--libs' in head else os.path.join(
    os.path.dirname(os.path.abspath(perfq)), '..', '..', 'bench', 'gl')
lib = os.path.abspath(os.path.join(libs, 'libegl-call-stamps.so'))
lib_driver = os.path.abspath(os.path.join(libs, 'libegl-call-stamps-driver.so'))
for path in (lib, lib_driver):
    if not os.path.exists(path):
        sys.exit('egl_phases.py: %s not found (--libs)' % path)
inner = 'LD_PRELOAD=%s${LD_PRELOAD:+:$LD_PRELOAD}:%s exec "$0" "$@"' % (lib, lib_driver)
variants = [('bare', ['sh', '-c', inner]),
            ('run', [perfq, 'run', '--', 'sh', '-c', inner]),
            ('no-stats', [perfq, 'stat', '--no-device', '--no-stats', '-o', '/dev/null', '--',
                          'sh', '-c', inner]),
            ('default', [perfq, 'stat', '--no-device', '-o', '/dev/null', '--', 'sh', '-c',
                         inner])]
cols = ['pre', 'start', 'frames', 'exit', 'post', 'wall', 'init', 'choose', 'ctx', 'surf',
        'make', 'swap', 'dctx', 'dsurf', 'term', 'bind']
seen = {n: {c: [] for c in cols} for n, _ in variants}
driver = {n: {c: [] for c in cols} for n, _ in variants}
stamps = '/tmp/perfq-egl-phases-%d' % os.getpid()
stamps_driver = stamps + '-driver'


def last_line(path):
    with open(path) as f:
        lines = [line for line in f.read().split('\n') if line]
    return [int(x) for x in lines[-1].split()]


for r in range(rounds + 1):
    for k in range(len(variants)):
        name, launcher = variants[(r + k) % len(variants)]
        for path in (stamps, stamps_driver):
            if os.path.exists(path):
                os.unlink(path)
        env = dict(os.environ, STAMP_FILE=stamps, STAMP_FILE_DRIVER=stamps_driver)
        t0 = time.monotonic_ns()
        subprocess.run(launcher + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       env=env, check=True)
        t1 = time.monotonic_ns()
        if r == 0:
            continue   # the warm-up round
        v = last_line(stamps)
        constructed, start, frames, exit_part, end = v[:5]
        for c, x in zip(cols, [constructed - t0, start, frames, exit_part, t1 - end, t1 - t0]
                        + v[5:]):
            seen[name][c].append(x / 1e6)
        v = last_line(stamps_driver)
        for c, x in zip(cols, [0, 0, v[2], 0, 0, 0] + v[5:]):
            driver[name][c].append(x / 1e6)
for path in (stamps, stamps_driver):
    if os.path.exists(path):
        os.unlink(path)
med = statistics.median


def table(res):
    for name, _ in variants:
        print(name.ljust(9) + ' '.join(
            '%s %.2f(%+.2f)' % (c, med(res[name][c]),
                                med([a - b for a, b in zip(res[name][c], res['bare'][c])]))
            for c in cols if max(res[name][c]) > 0.005))


print('%s: %d rounds; medians in ms (median of the difference to bare, same round)'
      % (' '.join(cmd), rounds))
table(seen)
print('the same EGL calls after the layer (the driver):')
table(driver)
