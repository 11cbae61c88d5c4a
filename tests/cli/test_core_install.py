"""The core install (``make play``: rich and Textual, no extra) runs every door that needs no extra, and
the doors that need one say which in one line: a command module that imports a server, a plot or an
adapter library at load time would break ``converge`` itself for everyone without that extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

#: The top-level modules of the extras (web, rl, sim, ray and their dependencies).
EXTRAS = ("orjson", "fastapi", "uvicorn", "starlette", "sqlalchemy", "alembic", "pydantic", "disarm", "psycopg",
          "websockets", "httpx", "httpx2", "email_validator", "prometheus_client", "numpy", "pyspiel",
          "open_spiel", "gymnasium", "pettingzoo", "matplotlib", "pyarrow", "ray")

BLOCKER = f'''
import importlib.abc, sys
BLOCKED = set({list(EXTRAS)!r})
class NoExtras(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None
sys.meta_path.insert(0, NoExtras())
'''


@pytest.fixture
def bare(tmp_path: Path) -> dict[str, str]:
    """An environment in which no extra can be imported (a ``sitecustomize`` refuses them)."""
    folder = tmp_path / "site"
    folder.mkdir()
    (folder / "sitecustomize.py").write_text(BLOCKER, encoding="utf-8")
    env = dict(os.environ, HOME=str(tmp_path), NO_COLOR="1")
    env["PYTHONPATH"] = os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def converge(env: dict[str, str], *argv: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "converge", *argv], input=stdin, capture_output=True, text=True,
                          env=env, timeout=120)


def test_the_blocker_blocks(bare: dict[str, str]) -> None:
    done = subprocess.run([sys.executable, "-c", "import orjson"], capture_output=True, text=True, env=bare)
    assert done.returncode != 0 and "No module named 'orjson'" in done.stderr


@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["cards", "--skillset", "alchemist"],
                                  ["match", "-n", "2", "--bot1", "greedy", "--bot2", "random"],
                                  ["serve", "--help"], ["review", "--help"], ["calibrate", "--help"]])
def test_commands_that_need_no_extra_run_without_any(bare: dict[str, str], argv: list[str]) -> None:
    done = converge(bare, *argv)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr


def test_a_match_is_played_without_any_extra(bare: dict[str, str]) -> None:
    done = converge(bare, "play", "--plain", stdin="1\n1\nquit\n")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "Your choice" in done.stdout


def test_serve_without_the_web_extra_says_so_in_one_line(bare: dict[str, str]) -> None:
    done = converge(bare, "serve")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "pip install 'converge-game[web]'" in done.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("argv", [["db", "status"], ["db", "backup", "copy.sqlite3"],
                                  ["db", "restore", "copy.sqlite3"], ["db", "upgrade"], ["admin", "audit"],
                                  ["admin", "--config", "converge.toml", "players", "Ada"],
                                  ["config", "check", "converge.toml"], ["serve-bench"]])
def test_every_command_of_the_hosts_without_the_web_extra_says_so_in_one_line(bare: dict[str, str],
                                                                              argv: list[str]) -> None:
    done = converge(bare, *argv)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("converge: error: ") and "pip install 'converge-game[web]'" in line


@pytest.mark.parametrize("command", ["print", "tts"])
def test_printing_the_cards_without_the_cards_extra_says_so_in_one_line(bare: dict[str, str], tmp_path: Path,
                                                                       command: str) -> None:
    assert converge(bare, "cards", command, "--help").returncode == 0
    done = converge(bare, "cards", command, "--out", str(tmp_path / "out"))
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("converge: error: ") and "pip install 'converge-game[cards]'" in line
    assert not (tmp_path / "out").exists()
