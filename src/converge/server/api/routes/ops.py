"""For operators, outside the API's schema: ``/healthz`` (the process lives), ``/readyz`` (it can serve:
:mod:`converge.server.ops.readiness`) and ``/metrics`` (Prometheus, with the metrics token:
:mod:`converge.server.ops.metrics`)."""

from __future__ import annotations

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, Response

from converge.server.api.deps import json_response, require_secret
from converge.server.api.errors import error_response
from converge.server.ops.metrics import Metrics
from converge.server.ops.readiness import Readiness
from converge.server.protocol.errors import ProtocolError

router = APIRouter(include_in_schema=False)


@router.api_route("/healthz", methods=["GET", "HEAD"])
async def healthz() -> JSONResponse:
    """200 while the process lives: nothing is checked (no database), so that only a hung process fails."""
    return json_response({"status": "ok"})


@router.api_route("/readyz", methods=["GET", "HEAD"])
async def readyz(request: Request) -> JSONResponse:
    """200 when every readiness check passes, else 503; each check's ``"ok"`` or reason either way."""
    readiness: Readiness = request.app.state.readiness
    ready, checks = await readiness.run()
    return json_response({"ready": ready, "checks": checks}, 200 if ready else 503)


@router.get("/metrics")
async def metrics(request: Request, authorization: str | None = Header(default=None),
                  accept: str | None = Header(default=None)) -> Response:
    """The Prometheus metrics, for ``Authorization: Bearer <metrics_token>`` only (not served without a
    token configured)."""
    found: Metrics = request.app.state.metrics
    try:
        require_secret(request, authorization, request.app.state.config.metrics_token, "metrics token")
    except ProtocolError as exc:
        if exc.code != "unauthorized":
            raise
        found.error(exc.code)
        return error_response(exc, {"www-authenticate": "Bearer"})  # (how a scraper learns the scheme)
    body, content_type = found.render(accept)
    return Response(body, media_type=content_type, headers={"cache-control": "no-store"})
