"""The contract between the server and its clients, declared once (converge.server.protocol): one table of
error codes and their statuses, whose codes are the type every refusal's code has."""

from __future__ import annotations

from typing import get_args

import pytest

pytest.importorskip("fastapi")

from converge.server.protocol.errors import ERROR_STATUS, ErrorCode, ProtocolError


def test_every_error_code_has_its_status_in_the_one_table_and_only_those() -> None:
    assert set(ERROR_STATUS) == set(get_args(ErrorCode))
    assert all(400 <= status < 600 for status in ERROR_STATUS.values())


def test_a_refusal_builds_its_socket_message_and_its_http_body() -> None:
    exc = ProtocolError("table_gone", "no such table")
    assert exc.status == 409  # (a lobby code: once in a table of its own)
    assert exc.to_message() == {"type": "error", "code": "table_gone", "message": "no such table"}
    assert exc.to_body() == {"error": {"code": "table_gone", "message": "no such table"}}
    assert exc.http_body() == b'{"error":{"code":"table_gone","message":"no such table"}}'
