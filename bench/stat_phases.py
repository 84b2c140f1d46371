#!/usr/bin/env python3
"""stat_phases.py PERFQ ROUNDS [--lib LIBPHASE_STAMPS] -- CMD [ARGS]: where the time a run of CMD
takes under perfq stat goes, side by side with CMD bare: from the launch to CMD's first
constructor (pre: perfq's own start, and a bare run's fork and exec), from there to CMD's last
destructor (body: CMD's own run, and what the layers cost it), and from there to the launcher's
wait returning (post: CMD's exit, perfq's report and exit). Variants: bare, perfq stat
--no-layers with rusage rows only (no perf event, no device counters), --no-layers, the default.
Each round runs each variant once, in an order that rotates every round (one warm-up round
first); libphase-stamps.so (built beside this script's build folder: bench/) is preloaded in
every variant. Prints, for each variant and part, the median in ms and the median of its
difference to the bare run of the same round. No assertions."""
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
lib = None
if '--lib' in args[:args.index('--')]:
    lib = args[args.index('--lib') + 1]
else:
    lib = os.path.join(os.path.dirname(os.path.abspath(perfq)), '..', '..', 'bench',
                       'libphase-stamps.so')
lib = os.path.abspath(lib)
if not os.path.exists(lib):
    sys.exit('stat_phases.py: %s not found (--lib)' % lib)
RUSAGE = 'rusage/user-time,rusage/system-time,rusage/minor-faults,proc-io/read-bytes'
variants = {
    'bare': cmd,
    'no-layers, rusage': [perfq, 'stat', '--no-layers', '-e', RUSAGE, '-o', '/dev/null', '--'] + cmd,
    'no-layers': [perfq, 'stat', '--no-layers', '-o', '/dev/null', '--'] + cmd,
    'default': [perfq, 'stat', '-o', '/dev/null', '--'] + cmd,
}
names = list(variants)
stamps = '/tmp/perfq-stat-phases-%d.txt' % os.getpid()
parts = ('wall', 'pre', 'body', 'post')
res = {n: {p: [] for p in parts} for n in names}
for r in range(rounds + 1):
    for k in range(len(names)):
        n = names[(r + k) % len(names)]
        if os.path.exists(stamps):
            os.unlink(stamps)
        t0 = time.monotonic_ns()
        env = dict(os.environ, LD_PRELOAD=lib, STAMP_FILE=stamps, STAMP_T0='%020d' % t0)
        subprocess.run(variants[n], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        t1 = time.monotonic_ns()
        if r == 0:
            continue   # the warm-up round
        with open(stamps) as f:
            _, start, end = (int(x) for x in f.readline().split())
        for p, v in zip(parts, (t1 - t0, start - t0, end - start, t1 - end)):
            res[n][p].append(v / 1e6)
os.unlink(stamps)
med = statistics.median
print('%s: %d rounds; medians in ms (median of the difference to bare, same round)'
      % (' '.join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)), rounds))
for n in names:
    row = '  %-18s' % n
    for p in parts:
        d = [a - b for a, b in zip(res[n][p], res['bare'][p])]
        row += '  %s %7.2f (%+.2f)' % (p, med(res[n][p]), med(d))
    print(row)
