#!/usr/bin/env python3
"""Checks that perfq's includes point down the layers of docs/design.md ("The house as built").

Every `#include "..."` of a source under src/ and tools/perfq/ names a folder (or, where the
table says so, a file) the including folder may use; in src/gl/ a folder includes only from
itself and from folders of a lower rank (no circle). A new folder must be added here and to
docs/design.md's table. Usage: check-includes.py SOURCE_ROOT
"""
import os
import re
import sys

# src/gl/: rank of each folder (gl_layer.h, the front ends' interface, is the file at the root).
GL_RANK = {
    'dispatch': 1,          # the one list, the real-function table, the wrappers' declarations
    'gl_layer.h': 2,        # the front-end module interface
    'contexts': 3,          # contexts, share groups, the front-end registry, layer_internal.h
    'virtualization': 4,    # service: query virtualisation
    'providers': 4,         # the layer's counters as engine providers (gl, driver counters)
    'timing': 5,            # service: the trustworthy GPU timer (uses virtualisation)
    'injection': 6,         # the program's calls: wrappers, GetProcAddress, extensions, errors
    'angle': 7,             # front ends
    'nvres': 7,
    'stat': 7,
    'intel': 8,             # offers GL_NV_query_resource's "GL Memory" (nvres/) as a query type
}

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
    # the CLI: the C API and the layers' two channels
    'tools/perfq': {'perfq', 'core/stat_channel.h', 'core/memory_channel.h', ''},
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


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    bad = check(root)
    for b in bad:
        print(b)
    if bad:
        print(f'{len(bad)} include(s) against the layers of docs/design.md')
        return 1
    print('every include points down the layers')
    return 0


if __name__ == '__main__':
    sys.exit(main())
