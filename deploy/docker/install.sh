#!/bin/sh
# converge installed from its wheel WHEEL, with the web extra (the server: FastAPI, uvicorn, SQLAlchemy, the
# PostgreSQL driver psycopg...) at the versions of CONSTRAINTS (constraints.txt, those the tests ran with),
# into the virtual environment VENV, which is made when it does not exist. Run by the image (Dockerfile) and
# by tests/test_container.py, which runs the image's steps in a fresh venv.
#
#   deploy/docker/install.sh VENV WHEEL CONSTRAINTS
set -eu
if [ $# -ne 3 ]; then
    echo "usage: $0 VENV WHEEL CONSTRAINTS" >&2
    exit 2
fi
[ -x "$1/bin/python" ] || "${PYTHON:-python3}" -m venv "$1"
"$1/bin/python" -m pip install -q --no-cache-dir --disable-pip-version-check -c "$3" "$2[web]"
