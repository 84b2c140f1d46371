#!/usr/bin/env python3
"""Checks that perfq's includes point down the layers of docs/design.md ("The house as built").

Every `#include "..."` of a source under src/ and tools/perfq/ names a folder (or, where the
table says so, a file) the including folder may use; in src/gl/ a folder includes only from
itself and from folders of a lower rank (no circle). A new folder must be added here and to
docs/design.md's table. Usage: check-includes.py SOURCE_ROOT

With `--calls NM ARCHIVE` (the GL layer's objects, libperfq-gl-objects.a) it checks the calls
too: no object calls a function defined in a folder of a higher rank, so that no folder reaches
up by declaring what it cannot include (a service reaches contexts/ through the hooks it
registers there, as a front end does). gl_layer.h, the interface, declares calls the services
define: a folder that calls them ranks above those services.
"""
import os
import re
import sys

# src/gl/: rank of each folder (gl_layer.h, the front ends' interface, is the file at the root).
GL_RANK = {
    'dispatch': 1,          # the one list, the real-function table, the wrappers' declarations
    'gl_layer.h': 2,        # the front-end module interface
    'contexts': 3,          # contexts, displays, share groups, the front-end registry, errors
    'virtualization': 4,    # service: query virtualisation
    'timing': 5,            # service: the trustworthy GPU timer (uses virtualisation)
    'providers': 6,         # the layer's counters as engine providers (uses the timer)
    'injection': 7,         # the program's calls: wrappers, GetProcAddress (counts calls)
    'angle': 8,             # front ends
    'nvres': 8,
    'stat': 8,
    'intel': 9,             # offers GL_NV_query_resource's "GL Memory" (nvres/) as a query type
}
# Objects of the GL layer built from outside src/gl/ (their archive member names).
OTHER_RANK = {'.._egl': 8, '.._core': 0}   # EGL front ends; the channels' sending ends

# Outside src/gl/: what each source folder may name: a top-level include folder ('core'), a
# folder below one ('gl/providers/'), or one file ('providers/opencl_command.h'). '' is the
# folder's own files, included without a folder (tools/perfq's "cli.h").
ALLOWED = {
    'src/core': {'perfq', 'core'},
    'src/providers': {'perfq', 'core', 'providers'},
    # the OpenCL layer: its counters as catalog data, the NVML history of past intervals
    'src/cl': {'perfq', 'core', 'cl', 'providers/opencl_command.h', 'providers/nvml_interval.h'},
    # EGL front ends sit on the GL layer's interface (and open its providers)
    'src/egl': {'perfq', 'core', 'gl/gl_layer.h', 'gl/providers/'},
    # the CLI: the C API, the layers' two channels (and the stat channel's socket), the cache
    # folder they share, what it notes of the environment it injects (PERFQ_INJECTED, which
    # the GL stub reads), and the rusage group's counters over CMD's rusage from wait4 (perfq
    # stat's default rows)
    'tools/perfq': {'perfq', 'core/stat_channel.h', 'core/stat_channel_socket.h',
                    'core/memory_channel.h', 'core/cache_dir.h', 'core/injected_env.h',
                    'providers/host_rusage.h', ''},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def gl_folder(rel):
    return rel.split('/')[2]           # src/gl/FOLDER/file, or src/gl/gl_layer.h itself


def check(root):
    bad = []
    walked = [w for top in ('src', 'tools/perfq') for w in os.walk(os.path.join(root, top))]
    for dirpath, _, files in sorted(walked):
        for name in sorted(files):
            if not name.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, '/')
            with open(path, encoding='utf-8') as f:
                for lineno, line in enumerate(f, 1):
                    m = INCLUDE.match(line)
                    why = m and verdict(rel, m.group(1))
                    if why:
                        bad.append(f'{rel}:{lineno}: #include "{m.group(1)}": {why}')
    return bad


def verdict(rel, target):
    head = target.split('/')[0]
    if rel.startswith('src/gl/'):
        src = gl_folder(rel)
        if src not in GL_RANK:
            return f'src/gl/{src} is not in scripts/check-includes.py (and docs/design.md)'
        if head in ('perfq', 'core'):
            return None
        if src == 'nvres' and target == 'providers/gl_memory.h':
            return None                # the "GL Memory" counters as catalog data (libperfq lists them)
        if head != 'gl':
            return 'src/gl may include perfq/, core/ and gl/ only'
        parts = target.split('/')
        dst = parts[1]
        if dst not in GL_RANK:
            return f'gl/{dst} is not a folder of src/gl'
        if dst == src or GL_RANK[dst] < GL_RANK[src]:
            return None
        return f'{src} (rank {GL_RANK[src]}) includes upward from {dst} (rank {GL_RANK[dst]})'
    folder = '/'.join(rel.split('/')[:2])
    allowed = ALLOWED.get(folder)
    if allowed is None:
        return f'{folder} is not in scripts/check-includes.py (and docs/design.md)'
    own = '' if '/' not in target else None
    if own in allowed or head in allowed or target in allowed or any(
            a.endswith('/') and target.startswith(a) for a in allowed):
        return None
    return f'{folder} may include {", ".join(sorted(a or "its own files" for a in allowed))} only'


def object_rank(member):
    """(folder, rank) of an archive member: FOLDER_file.c.o, or .._egl_file.c.o."""
    name = os.path.basename(member)
    for prefix, rank in OTHER_RANK.items():
        if name.startswith(prefix + '_'):
            return prefix[3:], rank
    folder = name.split('_')[0]
    return folder, GL_RANK.get(folder)


def check_calls(nm, archive):
    import subprocess
    out = subprocess.run([nm, '-A', archive], check=True, capture_output=True, text=True).stdout
    defined, used = {}, []
    for line in out.splitlines():   # ARCHIVE:MEMBER:[VALUE] TYPE NAME
        m = re.match(r'^.*?:([^:]+\.o):\s*[0-9a-f]*\s+(\w)\s+(\S+)$', line)
        if not m:
            continue
        member, kind, sym = m.groups()
        if kind in 'TDBRVW':
            defined[sym] = member
        elif kind == 'U':
            used.append((member, sym))
    bad = []
    for member, sym in used:
        if sym not in defined:
            continue
        (src, src_rank), (dst, dst_rank) = object_rank(member), object_rank(defined[sym])
        if src_rank is None or dst_rank is None:
            unknown = member if src_rank is None else defined[sym]
            bad.append(f'{os.path.basename(unknown)}: its folder is not in scripts/check-includes.py')
        elif src != dst and dst_rank > src_rank:
            bad.append(f'{os.path.basename(member)} ({src}, rank {src_rank}) calls {sym} of '
                       f'{os.path.basename(defined[sym])} ({dst}, rank {dst_rank})')
    return sorted(set(bad))


def main():
    args = sys.argv[1:]
    calls = None
    if '--calls' in args:
        i = args.index('--calls')
        calls = args[i + 1:i + 3]
        del args[i:i + 3]
    root = args[0] if args else os.path.join(os.path.dirname(__file__), '..')
    bad = check(root)
    for b in bad:
        print(b)
    if bad:
        print(f'{len(bad)} include(s) against the layers of docs/design.md')
        return 1
    print('every include points down the layers')
    if calls:
        bad = check_calls(*calls)
        for b in bad:
            print(b)
        if bad:
            print(f'{len(bad)} call(s) up the layers of docs/design.md')
            return 1
        print('every call in the GL layer points down the layers')
    return 0


if __name__ == '__main__':
    sys.exit(main())
