#!/bin/sh
# The wheel users install, built from the checkout SRC into the folder OUT: the rules engine compiled with
# mypyc and the native core in C (a C compiler is needed; CONVERGE_PURE=1 leaves mypyc out). Run by the
# image's build stage (Dockerfile) and by `make test`, whose wheel tests/test_container.py installs as the
# image does. PYTHON: the interpreter whose pip builds it (python3 by default).
#
#   deploy/docker/build.sh SRC OUT
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 SRC OUT" >&2
    exit 2
fi
"${PYTHON:-python3}" -m pip wheel -q --no-cache-dir --disable-pip-version-check --no-deps -w "$2" "$1"
