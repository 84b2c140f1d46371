#!/bin/sh
# Installs, from Debian 12's packages, everything perfq needs to build and test: the build
# tools, cmocka and json-c for the tests, the GL/EGL/GLES headers and Mesa (llvmpipe), the
# OpenCL headers, ICD loader and PoCL, Xvfb for the GLX tests, clang with its sanitizer
# runtimes, libmicrohttpd for perfq serve and Prometheus (promtool checks perfq serve's output),
# piglit and apitrace (real clients of the GL layer: tests/clients), pyte (a terminal emulator
# for the progress line's test).
# Run as root. Does nothing that is already done.
set -eu
packages="meson ninja-build pkg-config gcc clang libclang-rt-14-dev libcmocka-dev libjson-c-dev \
  libegl-dev libgl-dev libgles-dev libegl-mesa0 libgl1-mesa-dri libglx-mesa0 \
  opencl-headers ocl-icd-opencl-dev pocl-opencl-icd clinfo xvfb libmicrohttpd-dev prometheus \
  piglit apitrace apitrace-tracers python3-pyte"
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "perfq: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq --no-install-recommends $missing
fi
