"""The image's health check (the Dockerfile's HEALTHCHECK): exit 0 when the server of this container is ready
to take players — its ``GET /readyz``, on loopback at ``$PORT``, answers 200 — else exit 1, with the reason in
one line (``docker inspect`` shows it): the checks that fail (database, bots, jobs, draining) or that nothing
answers. Only the standard library: the image's Python runs it."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main() -> int:
    url = f"http://127.0.0.1:{os.environ.get('PORT', '8000')}/readyz"
    # (no proxy from the environment: the server is on this machine's loopback)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=4):
            return 0
    except urllib.error.HTTPError as exc:  # 503: not ready, each check's reason in the answer
        print(f"{url}: {exc.code} {exc.read(500).decode(errors='replace')}")
    except OSError as exc:
        print(f"{url}: {exc}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
