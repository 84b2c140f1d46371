#!/usr/bin/env python3
"""Checks that perfq's includes point down the layers of docs/design.md ("The house as built").

Every `#include "..."` of a source under src/ names a folder the including folder may use; in
src/gl/ a folder includes only from itself and from folders of a lower rank (no circle). A new
folder must be added here and to docs/design.md's table. Usage: check-includes.py SOURCE_ROOT
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

# Outside src/gl/: which top-level include folders each source folder may name.
ALLOWED = {
    'src/core': {'perfq', 'core'},
    'src/providers': {'perfq', 'core', 'providers'},
    'src/cl': {'perfq', 'core', 'providers', 'cl'},
    'src/egl': {'perfq', 'core', 'gl'},     # EGL front ends sit on the GL layer's interface
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def gl_folder(rel):
    return rel.split('/')[2]           # src/gl/FOLDER/file, or src/gl/gl_layer.h itself


def check(root):
    bad = []
    for dirpath, _, files in os.walk(os.path.join(root, 'src')):
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
    if head not in allowed:
        return f'{folder} may include {", ".join(sorted(allowed))} only'
    return None


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
