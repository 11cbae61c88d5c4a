"""The server's log: lines for people (``text``) or one JSON object per line for a log collector (``json``),
and never a secret in either.

Seat tokens, invitation links, sign-in links and the player's cookie travel where logs do not look (a URL's
fragment, a message's body, a header), but a line at ``debug`` can carry a WebSocket message, and an
exception's text can carry anything: every line is passed through :func:`redact` as it is written, whatever
logger wrote it, so a token, a cookie, a password in a URL, a bearer credential or the data a database error
quotes (a statement's parameters, a row) shows as ``***``.

>>> redact('hello {"type": "hello", "token": "s3cr3t"} from /m/ab12#token=s3cr3t')
'hello {"type": "hello", "token": "***"} from /m/ab12#token=***'
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time

#: What a secret looks like in a line, each with the part kept before it (group 1) and after it (group 2).
SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    # a JSON field: {"token": "..."}, "invite_token", "seat_token", a cookie, a password
    re.compile(r'("[A-Za-z_]*(?:token|secret|password|cookie|key)"\s*:\s*")(?:[^"\\]|\\.)*(")', re.IGNORECASE),
    # the same as Python prints a dict: {'token': '...'}
    re.compile(r"('[A-Za-z_]*(?:token|secret|password|cookie|key)'\s*:\s*')[^']*(')", re.IGNORECASE),
    # a URL's query or fragment: ?token=..., #token=..., &key=...; and the player's cookie: converge_player=...
    re.compile(r"((?:[?#&;\s]|^)[A-Za-z_]*(?:token|secret|password|key|sig|converge_player)=)[^&#\s\"';,]*()",
               re.IGNORECASE),
    # Authorization: Bearer ...
    re.compile(r"(Bearer\s+)[^\s\"',;]+()", re.IGNORECASE),
    # a password in a URL: scheme://user:password@host
    re.compile(r"(://[^/:@\s\"']*:)[^@\s\"'/]+(@)"),
    # a database error's data: a statement's parameters (the engines hide them; any other SQLAlchemy error would
    # not) and PostgreSQL's DETAIL, which quotes the values of a row ("Failing row contains (..., seed, ...)")
    re.compile(r"(\[parameters: )[^\n]*(\])"),
    re.compile(r"(DETAIL: +)[^\n]*()"),
)


def redact(line: str) -> str:
    """``line`` with every secret it seems to hold replaced by ``***``."""
    for pattern in SECRET_PATTERNS:
        line = pattern.sub(r"\1***\2", line)
    return line


class RedactingFormatter(logging.Formatter):
    """A line for people, ``2026-12-01 12:00:00,123 INFO converge.server: ...``, with no secret in it."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class JsonFormatter(logging.Formatter):
    """One JSON object per line: ``time`` (UTC, ISO 8601), ``level``, ``logger``, ``message``, and
    ``exception`` when there is one; uvicorn's access lines also give ``client``, ``method``, ``path`` and
    ``status``. No secret in any field."""

    def format(self, record: logging.LogRecord) -> str:
        # each field redacted before it is encoded: in the encoded line a message's quotes are escaped
        doc: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(), "logger": record.name, "message": redact(record.getMessage())}
        if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
            client, method, path, _version, status = record.args
            doc.update(client=str(client), method=str(method), path=redact(str(path)), status=status)
        if record.exc_info:
            doc["exception"] = redact(self.formatException(record.exc_info))
        elif record.exc_text:
            doc["exception"] = redact(record.exc_text)
        return json.dumps(doc, ensure_ascii=False, default=str)


FORMATTERS: dict[str, type[logging.Formatter]] = {"text": RedactingFormatter, "json": JsonFormatter}


#: uvicorn's loggers: they write through the root's handler, not their own.
UVICORN_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access", "uvicorn.asgi")


def configure_logging(level: str = "info", fmt: str = "text") -> dict[str, object]:
    """Send every logger's lines (the server's, uvicorn's, the libraries') through one handler on stderr in
    the format ``fmt``, at ``level`` and above; return the same configuration for uvicorn (``log_config``),
    which applies it again when it starts.

    (Applied here by hand rather than by ``logging.config.dictConfig``, which also closes every handler the
    process ever made: absl's, for one, then closes the stream it was given, which need not be stderr any
    more.)"""
    if fmt not in FORMATTERS:
        raise ValueError(f"unknown log format {fmt!r} (known: {', '.join(FORMATTERS)})")
    formatter = f"{__name__}.{FORMATTERS[fmt].__name__}"
    upper = level.upper()
    config: dict[str, object] = {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"converge": {"()": formatter}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "converge",
                                "stream": "ext://sys.stderr"}},
        "root": {"handlers": ["stderr"], "level": upper},
        # uvicorn's loggers write through the root's handler, not their own
        "loggers": {name: {"handlers": [], "propagate": True, "level": upper}
                    for name in UVICORN_LOGGERS},
    }
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(FORMATTERS[fmt]())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(upper)
    for name in UVICORN_LOGGERS:
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
        logger.setLevel(upper)
    return config


__all__ = ["SECRET_PATTERNS", "JsonFormatter", "RedactingFormatter", "configure_logging", "redact"]
