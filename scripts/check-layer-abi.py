#!/usr/bin/env python3
"""Checks the shipped libraries' ABI (docs/design.md, "One engine per process"):

- libperfq-gl.so exports the GL, EGL and GLX entry points and dlopen only (names gl*, egl*,
  glX*), nothing of perfq: the tests' diagnostics call is in libperfq-gl-test.so;
- libperfq-cl.so exports the OpenCL loader's layer entry points only;
- libperfq.so's public node (PERFQ_0) holds only what include/perfq/perfq.h declares;
- neither layer names a GL, EGL or OpenCL library as a dependency: the GL layer calls the
  libraries the program loaded, so a program that uses none loads none;
- the GL layer's preload stub libperfq-gl-lazy.so exports exactly the GL layer's names plus
  perfq_gl_lazy_next (the one call the layer makes into it) and the exec and posix_spawn
  functions (exec_follow.c: perfq's environment put back into a child's), and needs nothing but
  libc and the dynamic loader (a process that never calls GL loads nothing else:
  lazy_preload.c).

Usage: check-layer-abi.py NM READELF PERFQ_H LIBPERFQ [GL_LAYER] [CL_LAYER] [GL_LAZY]
(a layer path is '' where the build has no such layer).
"""
import re
import subprocess
import sys

EXEC_WRAPPERS = {'execve', 'execv', 'execvp', 'execvpe', 'execl', 'execle', 'execlp', 'fexecve',
                 'posix_spawn', 'posix_spawnp'}
CL_ENTRY_POINTS = {'clGetLayerInfo', 'clInitLayer', 'clInitLayerWithProperties', 'clDeinitLayer'}
GRAPHICS_LIBS = re.compile(r'^lib(GL|OpenGL|GLESv[12]_CM|GLESv2|EGL|GLX|GLdispatch|OpenCL)\.so')


def exported(nm, lib):
    """{name: version} of the defined dynamic symbols."""
    out = subprocess.run([nm, '-D', '--defined-only', lib], check=True, capture_output=True,
                         text=True).stdout
    syms = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 3 or parts[1] in ('A',):      # version nodes are absolute symbols
            continue
        name, _, version = parts[2].partition('@')
        syms[name] = version.lstrip('@')
    return syms


def needed(readelf, lib):
    out = subprocess.run([readelf, '-d', lib], check=True, capture_output=True, text=True).stdout
    return re.findall(r'\(NEEDED\)\s+Shared library: \[([^\]]+)\]', out)


def main():
    nm, readelf, header, engine = sys.argv[1:5]
    gl = sys.argv[5] if len(sys.argv) > 5 else ''
    cl = sys.argv[6] if len(sys.argv) > 6 else ''
    lazy = sys.argv[7] if len(sys.argv) > 7 else ''
    bad = []
    with open(header, encoding='utf-8') as f:
        declared = set(re.findall(r'\b(perfq_[a-z0-9_]+)\s*\(', f.read()))
    for name, version in sorted(exported(nm, engine).items()):
        if version == 'PERFQ_0' and name not in declared:
            bad.append(f'{engine}: {name} is in the public node but not declared in perfq.h')
    if gl:
        syms = exported(nm, gl)
        for name in sorted(syms):
            if name != 'dlopen' and not re.match(r'^(gl|egl|glX)[A-Z]', name):
                bad.append(f'{gl}: exports {name}, not a GL/EGL/GLX entry point')
        if not any(n.startswith('egl') for n in syms) or not any(n.startswith('gl') for n in syms):
            bad.append(f'{gl}: exports no GL or no EGL entry point')
    if cl:
        syms = set(exported(nm, cl))
        if syms != CL_ENTRY_POINTS:
            bad.append(f'{cl}: exports {sorted(syms)}, not the layer entry points '
                       f'{sorted(CL_ENTRY_POINTS)}')
    if lazy and gl:
        want = set(exported(nm, gl)) | {'perfq_gl_lazy_next'} | EXEC_WRAPPERS
        have = set(exported(nm, lazy))
        if have != want:
            bad.append(f'{lazy}: exports {sorted(have - want)} more and {sorted(want - have)} '
                       f'fewer than {gl}, perfq_gl_lazy_next and the exec wrappers')
        for dep in needed(readelf, lazy):
            if not re.match(r'^(libc\.so\.6|ld-linux[-a-z0-9_.]*\.so\.[0-9]+|libdl\.so\.2|'
                            r'libpthread\.so\.0)$', dep):
                bad.append(f'{lazy}: depends on {dep} (loaded into every process at its start)')
    for lib in (gl, cl):
        if lib:
            for dep in needed(readelf, lib):
                if GRAPHICS_LIBS.match(dep):
                    bad.append(f'{lib}: depends on {dep} (loaded into every program it is '
                               'injected in)')
    for b in bad:
        print(b)
    if bad:
        return 1
    print('the layers export their API only and depend on no GL, EGL or OpenCL library' +
          ('; the GL stub exports the layer\'s names and needs libc only' if lazy else ''))
    return 0


if __name__ == '__main__':
    sys.exit(main())
