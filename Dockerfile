# The server's image: `converge serve` behind nginx, on PostgreSQL (compose.yaml runs the whole site).
#
#   docker build -t converge .
#
# Two stages: the first builds the wheel users install (the rules engine compiled with mypyc, the native core
# in C: it needs a compiler), the second installs it with the web extra into /opt/converge, on a slim Python
# with no compiler, and runs it as the unprivileged user `converge`. Each RUN step is a script of
# deploy/docker/, which tests/test_container.py runs too (docs/containers.md says what is tested where).
ARG PYTHON_IMAGE=python:3.11-slim-bookworm

FROM ${PYTHON_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE ./
COPY src/ src/
COPY deploy/docker/build.sh /usr/local/bin/converge-build
RUN converge-build /src /wheels

FROM ${PYTHON_IMAGE}
RUN useradd --system --user-group --home-dir /var/lib/converge --create-home --shell /usr/sbin/nologin converge
COPY constraints.txt deploy/docker/install.sh /tmp/install/
COPY --from=build /wheels/ /tmp/install/
RUN sh /tmp/install/install.sh /opt/converge /tmp/install/converge_game-*.whl /tmp/install/constraints.txt \
    && rm -rf /tmp/install
COPY deploy/converge.toml /etc/converge/converge.toml
COPY deploy/docker/healthcheck.py /opt/converge/healthcheck.py
# XDG_DATA_HOME: the server's own files (mails written without SMTP, an SQLite database if no PostgreSQL is
# given) in /var/lib/converge, as the systemd unit keeps them. PORT: the port it listens on (compose.yaml gives
# each process its own, those deploy/nginx.conf sends players to).
ENV PATH=/opt/converge/bin:$PATH \
    XDG_DATA_HOME=/var/lib \
    PORT=8000
USER converge
WORKDIR /var/lib/converge
EXPOSE 8000
# ready: /readyz answers 200 (the database answers, the bots and jobs work, not draining)
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "/opt/converge/healthcheck.py"]
# SIGTERM (`docker stop`, `docker compose restart`) drains: give it drain_seconds (10) and more before a
# SIGKILL, as compose.yaml's stop_grace_period does
STOPSIGNAL SIGTERM
CMD ["sh", "-c", "exec converge serve --config /etc/converge/converge.toml --port \"$PORT\""]
