"""A server's settings: ``converge serve --config FILE.toml`` (every setting has a key; a flag given wins over it;
secrets may come from the environment), ``converge config check`` (validates, prints the effective settings
with the secrets masked), ``converge config example``; and the logs (text or JSON, never a secret)."""

from __future__ import annotations

import json
import logging
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("fastapi")

from converge.server.config import ServerConfig
from converge.server.logs import configure_logging, redact
from converge.server.settings import (
    BY_KEY,
    SETTINGS,
    SettingsError,
    file_values,
    load_file,
    mask,
    resolve,
    server_config,
)
from tests.helpers import assert_user_error, run

#: A value for every setting that differs from its default, as a file writes it.
NOT_DEFAULT: dict[str, Any] = {
    "server.host": "0.0.0.0", "server.port": 8123, "server.db": "postgresql://converge:pw@db/converge",
    "server.sqlite_sync": "NORMAL", "server.deck_dirs": ["decks"], "server.log_level": "debug",
    "server.log_format": "json", "server.drain_seconds": 4, "server.ws_deflate": True, "bots.delay": 0.1,
    "bots.workers": 3,
    "bots.queue": 9, "bots.replace_after": 5, "bots.replacement": "hard", "tournaments.no_show_wait": 30.0,
    "chat.per_minute": 20.0, "chat.per_address_minute": 90.0, "chat.blocked_words": ["gronk"],
    "network.proxy_headers": True,
    "network.forwarded_allow_ips": ["10.0.0.0/8"], "network.allowed_origins": ["https://play.example.org"],
    "limits.rate": 7.5, "limits.seat_connections": 2, "limits.spectators": 10, "limits.spectators_per_address": 3,
    "limits.matches_per_hour": 0, "limits.lobby_connections": 11, "limits.lobby_connections_per_address": 4,
    "limits.max_header_bytes": 9000, "limits.max_header_line": 4000, "limits.header_timeout": 4,
    "limits.connections_per_client": 50, "lobby.bot_offer_after": 12,
    "lobby.players_per_hour": 5, "lobby.renames_per_hour": 1, "lobby.rename_interval": 600,
    "hints.simulations": 100, "reviews.simulations": 200, "reviews.seconds": 9, "turns.vacation_days": 2,
    "accounts.smtp": "smtp://u:secretpw@mail.example.org:587", "accounts.mail_from": "Club <club@example.org>",
    "accounts.public_url": "https://play.example.org", "accounts.mail_dir": "/var/mail/converge",
    "metrics.token": "m3tr1cs-t0ken-0123456789", "metrics.bind": "127.0.0.1:9100",
    "admin.token": "h0sts-t0ken-0123456789",
    "retention.keep_finished": 90, "retention.delete_unstarted_after": 2, "retention.delete_abandoned_after": 7,
}


def _tables(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tables: dict[str, dict[str, Any]] = {}
    for key, value in values.items():
        section, name = key.split(".")
        tables.setdefault(section, {})[name] = value
    return tables


def _toml(values: dict[str, Any]) -> str:
    lines = []
    for section, table in _tables(values).items():
        lines.append(f"[{section}]")
        lines += [f"{name} = {json.dumps(value)}" for name, value in table.items()]
    return "\n".join(lines) + "\n"


def test_every_setting_has_a_key_in_the_file_and_sets_what_it_says() -> None:
    assert set(NOT_DEFAULT) == set(BY_KEY)  # (a new setting gets a line here)
    effective = resolve(_tables(NOT_DEFAULT), environ={})
    config = server_config(effective)
    for key, value in effective.items():
        assert value.source == "file", key
        assert value.value != value.setting.default_value(), key
        if value.setting.config_field:
            assert getattr(config, value.setting.config_field) == value.value, key
    assert config.burst == 2 * 7.5  # the burst follows the rate, as with --rate


def test_a_flag_wins_over_the_environment_which_wins_over_the_file() -> None:
    tables = _tables({"server.db": "from-file.sqlite3", "server.port": 8001, "accounts.smtp": "smtp://f:1@h"})
    environ = {"CONVERGE_DATABASE_URL": "postgresql://u:env@db/c", "CONVERGE_SMTP_URL": "smtp://e:2@h"}
    effective = resolve(tables, flags={"db": "from-flag.sqlite3"}, environ=environ)
    assert (effective["server.db"].value, effective["server.db"].source) == ("from-flag.sqlite3", "command line")
    assert effective["accounts.smtp"].value == "smtp://e:2@h"
    assert effective["accounts.smtp"].source == "environment (CONVERGE_SMTP_URL)"
    assert (effective["server.port"].value, effective["server.port"].source) == (8001, "file")
    assert resolve({}, environ={})["server.port"].source == "default"


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(NOT_DEFAULT)), st.sampled_from(["file", "flag", "both"]),
                       max_size=12))
def test_each_setting_comes_from_the_flag_when_given_else_the_file_else_the_default(
        where: dict[str, str]) -> None:
    in_file = {key: NOT_DEFAULT[key] for key, w in where.items() if w in ("file", "both")}
    flags = {BY_KEY[key].name: BY_KEY[key].read_value(NOT_DEFAULT[key]) for key, w in where.items()
             if w in ("flag", "both")}
    effective = resolve(_tables(in_file), flags=flags, environ={})
    for setting in SETTINGS:
        got = effective[setting.key]
        if where.get(setting.key) in ("flag", "both"):
            assert got.source == "command line"
        elif setting.key in in_file:
            assert got.source == "file" and got.value == setting.read_value(in_file[setting.key])
        else:
            assert got.source == "default" and got.value == setting.default_value()


@pytest.mark.parametrize(("text", "message"), [
    ("[limits]\nspectators = -1\n", "limits.spectators: expected a positive whole number, got -1"),
    ("[limits]\nspectators = \"ten\"\n", "limits.spectators: expected a positive whole number, got 'ten'"),
    ("[limits]\nspectator = 3\n", "limits.spectator: unknown setting (did you mean spectators?)"),
    ("[limit]\nspectators = 3\n", "[limit]: unknown section (did you mean limits?)"),
    ("limits = 3\n", "limits: expected a table ([limits])"),
    ("[server]\nport = 70000\n", "server.port: expected a port number from 0 to 65535, got 70000"),
    ("[server]\nsqlite_sync = \"OFF\"\n", "server.sqlite_sync: expected one of FULL, NORMAL, got 'OFF'"),
    ("[server]\nws_deflate = \"yes\"\n", "server.ws_deflate: expected true or false, got 'yes'"),
    ("[bots]\ndelay = inf\n", "bots.delay: expected a number from 0, got inf"),
    ("[bots]\nreplacement = \"grandmaster\"\n", "bots.replacement: unknown bot 'grandmaster'"),
    ("[network]\nallowed_origins = [\"https://x.org/path\"]\n", "network.allowed_origins: "),
    ("[network]\nforwarded_allow_ips = [\"10.0.0.0/8\", \"nope\"]\n", "network.forwarded_allow_ips: 'nope'"),
    ("[metrics]\ntoken = \"hunter2\"\n", "metrics.token: expected 16 to 256 printable ASCII characters"),
    ("[metrics]\nbind = \"9100\"\n", "metrics.bind: expected host:port"),
    ("[metrics]\nbind = \"::1:9100\"\n", "metrics.bind: write an IPv6 address in brackets"),
    ("[server]\ndrain_seconds = 0\n", "server.drain_seconds: expected a positive number, got 0"),
    ("[limits\n", "not valid TOML: "),
])
def test_a_mistake_in_the_file_is_one_line_naming_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch, text: str,
                                                          message: str) -> None:
    path = tmp_path / "converge.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as caught:
        resolve(load_file(path), where=str(path))
    assert message in str(caught.value) and "\n" not in str(caught.value)
    served = _no_serving(monkeypatch)
    for argv in (["config", "check", str(path)], ["serve", "--config", str(path)]):
        code, out, err = run(capsys, *argv)
        assert_user_error(code, err, str(path), message)
        assert out == ""
    assert served == []  # nothing started


def _no_serving(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """The serving replaced: what it was given (the app's settings among them), without serving."""
    from converge.server.transport import draining

    calls: list[dict[str, Any]] = []

    def fake_run(app: Any, **kwargs: Any) -> None:
        calls.append({"config": app.state.config, **kwargs})

    monkeypatch.setattr(draining, "serve", fake_run)
    return calls


def test_serve_runs_with_the_file_and_a_flag_given_wins(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        own_logging: None) -> None:
    path = tmp_path / "converge.toml"
    db = tmp_path / "club.sqlite3"
    path.write_text(_toml({"server.db": str(db), "server.port": 8123, "limits.spectators": 10,
                           "bots.workers": 0, "network.allowed_origins": ["https://a.example.org"],
                           "server.log_format": "json"}))
    served = _no_serving(monkeypatch)
    code, out, _ = run(capsys, "serve", "--config", str(path), "--port", "9001", "--spectators", "12",
                       "--allowed-origin", "https://b.example.org", "--allowed-origin", "https://c.example.org")
    assert code == 0, out
    (call,) = served
    config: ServerConfig = call["config"]
    assert call["port"] == 9001 and call["host"] == "127.0.0.1"  # the flag, then the default
    assert config.max_spectators_per_match == 12 and config.bot_workers == 0
    assert config.allowed_origins == ("https://b.example.org", "https://c.example.org")  # the flags' only
    assert config.db_url == str(db) and db.exists()
    assert call["log_config"]["formatters"]["converge"]["()"].endswith("JsonFormatter")
    assert "http://127.0.0.1:9001/" in out


def test_the_database_url_comes_from_the_environment_and_no_password_is_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "converge.toml"
    path.write_text(_toml({"accounts.public_url": "https://play.example.org"}))
    path.chmod(0o600)
    monkeypatch.setenv("CONVERGE_DATABASE_URL", "postgresql://converge:hunter2@db.example.org/converge")
    monkeypatch.setenv("CONVERGE_SMTP_URL", "smtp://club:mailpw@mail.example.org:587")
    monkeypatch.setenv("CONVERGE_METRICS_TOKEN", "scrape-me-4f9c1d2e7a6b")
    code, out, err = run(capsys, "config", "check", str(path))
    assert code == 0, err
    assert "postgresql://converge:***@db.example.org/converge" in out
    assert "environment (CONVERGE_DATABASE_URL)" in out and "smtp://club:***@mail.example.org:587" in out
    assert "environment (CONVERGE_METRICS_TOKEN)" in out
    assert "hunter2" not in out + err and "mailpw" not in out + err and "scrape-me" not in out + err
    assert "warning" not in out  # no secret in the file


def test_config_check_warns_of_a_secret_in_a_file_others_can_read(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "converge.toml"
    path.write_text(_toml({"server.db": "postgresql://converge:hunter2@db/converge"}))
    path.chmod(0o644)
    code, out, _ = run(capsys, "config", "check", str(path))
    assert code == 0 and "hunter2" not in out
    assert f"warning: {path} holds server.db, and every user of this machine may read it" in out
    path.chmod(0o600)
    code, out, _ = run(capsys, "config", "check", str(path))
    assert code == 0 and "warning" not in out


@pytest.mark.parametrize(("db", "secret"), [
    ("/var/lib/converge/server.sqlite3", False), ("matches.sqlite3", False), ("sqlite:////srv/m.sqlite3", False),
    ("postgresql://converge@db.internal/converge", False), ("postgresql://converge@/converge?host=/run/pg", False),
    ("postgresql://converge:hunter2@db.internal/converge", True),
    ("postgresql://converge@db.internal/converge?password=hunter2", True),
])
def test_only_a_value_that_holds_a_password_is_a_secret_to_hide(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 db: str, secret: bool) -> None:
    """A database's file path or a URL without a password is no secret: a file that holds one, readable by
    everyone, is not worth a warning (the shipped deploy/converge.toml, installed 644, warned at every start),
    and its path is shown whole."""
    path = tmp_path / "converge.toml"
    path.write_text(_toml({"server.db": db}))
    path.chmod(0o644)
    code, out, err = run(capsys, "config", "check", str(path))
    assert code == 0, err
    assert ("warning: " in out) is secret and "hunter2" not in out
    assert (f"{db} " in out) is not secret  # (shown whole, or masked)


def test_the_shipped_settings_file_installed_as_the_docs_say_warns_of_nothing(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from tests.helpers import ROOT

    path = tmp_path / "converge.toml"  # `sudo install -D -m 644 deploy/converge.toml /etc/converge/converge.toml`
    path.write_bytes((ROOT / "deploy" / "converge.toml").read_bytes())
    path.chmod(0o644)
    code, out, err = run(capsys, "config", "check", str(path))
    assert code == 0 and "warning" not in out + err, out + err
    assert "/var/lib/converge/server.sqlite3" in out


def test_a_file_with_several_mistakes_reports_each_on_a_line_of_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "converge.toml"
    path.write_text('[limits]\nspectators = -1\nspectator = 3\n[server]\nport = "http"\n[lobbby]\nx = 1\n')
    mistakes = ["limits.spectators: expected a positive whole number, got -1",
                "limits.spectator: unknown setting (did you mean spectators?)",
                "server.port: expected a port number from 0 to 65535, got 'http'",
                "[lobbby]: unknown section (did you mean lobby?)"]
    monkeypatch.setenv("CONVERGE_METRICS_TOKEN", "short")  # (and one in the environment)
    served = _no_serving(monkeypatch)
    for argv in (["config", "check", str(path)], ["serve", "--config", str(path)],
                 ["db", "status", "--config", str(path)], ["admin", "--config", str(path), "audit"]):
        code, out, err = run(capsys, *argv)
        lines = err.strip().splitlines()
        assert code == 2 and out == "" and len(lines) == 5 and "Traceback" not in err, err
        assert all(line.startswith("converge: error: ") for line in lines)
        for mistake in mistakes:
            assert any(line.startswith(f"converge: error: {path}: {mistake}") for line in lines), (mistake, err)
        assert "converge: error: the environment variable CONVERGE_METRICS_TOKEN: expected 16 to 256" in err
    assert served == []


def test_config_check_runs_the_checks_made_before_a_server_starts(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "converge.toml"
    path.write_text(_toml({"accounts.smtp": "smtp://mail.example.org"}))  # and no public address
    code, _, err = run(capsys, "config", "check", str(path))
    assert_user_error(code, err, "--public-url", "public_url in a settings file's [accounts]")
    path.write_text(_toml({"server.deck_dirs": [str(tmp_path / "missing")]}))
    code, _, err = run(capsys, "config", "check", str(path))
    assert_user_error(code, err, "missing")
    code, _, err = run(capsys, "config", "check", str(tmp_path / "nowhere.toml"))
    assert_user_error(code, err, "nowhere.toml: cannot read the settings file")


def test_the_example_file_holds_every_setting_at_its_default(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "config", "example")
    assert code == 0
    values = file_values(tomllib.loads(out))
    for setting in SETTINGS:
        if setting.key in values:
            assert values[setting.key] == setting.default_value(), setting.key
        else:  # left for the host to fill in: a secret better given in the environment, or nothing by default
            assert f"# {setting.key.split('.')[1]} = ..." in out, setting.key
    assert all(len(line) <= 102 for line in out.splitlines())


def test_a_secret_is_masked_wherever_it_is_shown() -> None:
    assert mask("postgresql://converge:hunter2@db:5432/converge?sslmode=require") == \
        "postgresql://converge:***@db:5432/converge?***"
    assert mask("smtps://club@mail.example.org:465") == "smtps://club@mail.example.org:465"
    assert mask("sqlite:////var/lib/converge/server.sqlite3") == "sqlite:////var/lib/converge/server.sqlite3"
    assert mask("/var/lib/converge/server.sqlite3") == "/var/lib/converge/server.sqlite3"
    assert mask("a-metrics-token") == "***"


# ------------------------------------------------------------------------------------------------ logs


PLANTED = "tok_" + "Zq8" * 10


@pytest.mark.parametrize("line", [
    f'< TEXT \'{{"type": "hello", "token": "{PLANTED}", "seq": 3}}\' [52 bytes]',
    f'{{"type":"matched","url":"/m/ab#token={PLANTED}","invite_token":"{PLANTED}"}}',
    f"GET /signin?token={PLANTED}&next=/ HTTP/1.1",
    f"Authorization: Bearer {PLANTED}",
    f"cookie converge_player={PLANTED}; other=1",
    f"{{'token': '{PLANTED}', 'seat': 0}}",
    f"could not connect to postgresql://converge:{PLANTED}@db/converge",
    f"mail link http://testserver/signin#token={PLANTED}",
])
def test_no_secret_survives_a_log_line(line: str) -> None:
    assert PLANTED in line  # (the control: the line as written holds it)
    assert PLANTED not in redact(line) and "***" in redact(line)


def _log_through(capsys: pytest.CaptureFixture[str], fmt: str,
                 *records: tuple[str, int, str, tuple[Any, ...]]) -> list[str]:
    """The lines the server's logging writes (to stderr) for these records, in format ``fmt``."""
    capsys.readouterr()
    configure_logging("debug", fmt)
    for name, level, msg, args in records:
        logging.getLogger(name).log(level, msg, *args)
    return capsys.readouterr().err.splitlines()


def test_json_logs_are_one_object_per_line_with_the_access_fields_and_no_secret(
        capsys: pytest.CaptureFixture[str], own_logging: None) -> None:
    lines = _log_through(capsys, "json",
                         ("uvicorn.access", logging.INFO, '%s - "%s %s HTTP/%s" %d',
                          ("127.0.0.1:5000", "GET", "/api/status", "1.1", 200)),
                         ("converge.server", logging.WARNING, "hello %s", (f'{{"token": "{PLANTED}"}}',)))
    access, warning = (json.loads(line) for line in lines)
    assert access["logger"] == "uvicorn.access" and access["level"] == "info"
    assert (access["method"], access["path"], access["status"]) == ("GET", "/api/status", 200)
    assert access["time"].endswith("Z") and "T" in access["time"]
    assert warning["level"] == "warning" and PLANTED not in lines[1]
    assert warning["message"] == 'hello {"token": "***"}'


def test_text_logs_are_lines_for_people_with_no_secret(capsys: pytest.CaptureFixture[str],
                                                       own_logging: None) -> None:
    (line,) = _log_through(capsys, "text",
                           ("converge.server", logging.INFO, "link %s", (f"/m/x#token={PLANTED}",)))
    assert " INFO converge.server: link /m/x#token=***" in line
