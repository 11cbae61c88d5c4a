"""Extensions loaded as plugins: a card mechanic defined outside the package, in a temporary folder, loaded by
`converge` from an installed distribution's entry point or from ``--plugin`` / ``CONVERGE_PLUGINS``, in the
command's own process and in every process it starts (the simulator's spawned workers, the server's bot
workers). The commands run as subprocesses: each is a fresh process, as a designer's is, and the kind it
registers stays out of this one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from tests.helpers import ROOT

#: An effect kind of the extension's own: it moves up to N cards of any faction on top of the deck.
KIND = '''
from converge.engine import EffectKind, register_effect
from converge.engine.params import Param
from converge.engine.zones import DECK, FACTION


class Entomb(EffectKind):
    def __init__(self):
        super().__init__("entomb", "Entomb", "put cards of a faction on top of the deck",
                         (Param("count", "int", 1, 1, 2, doc="how many cards, up to"),), commutes=False)

    def text(self, params, own_skillset):
        return f"Entomb: put up to {params['count']} card(s) of a faction on top of the deck."

    def picks(self, args):
        return args[0]

    def optional(self, args):
        return True

    def targets(self, m, step):
        z, p = m.zones, m.turn.player
        return [c for f in z.factions for c in f if z.movable(c, p)]

    def act(self, m, action):
        m.move_card(action, FACTION + m.zones.faction_of(action), DECK)
        m.effect.remaining -= 1
        m.continue_effect()
'''

CARDS = [("GRA1", "Shovel Hand", 1, "most_cards"), ("GRA2", "Night Warden", 2, "highest_skillset"),
         ("GRA3", "Lantern Bearer", 1, "most_cards"), ("GRA4", "Mourner", 1, "most_cards"),
         ("GRA5", "Sexton", 2, "highest_skillset"), ("GRA6", "Old Digger", 2, "rank_total")]


def _deck(folder: Path) -> None:
    lines = ['skillset = "Gravedigger"', 'set = "Home Brew"', 'keyword = "Entomb"', 'color = "white"']
    for rank, (cid, name, count, goal) in enumerate(CARDS, start=1):
        goal_params = {"highest_skillset": 'skillset = "own", ', "rank_total": "at_least = 12, "}.get(goal, "")
        lines += ["", "[[card]]", f'id = "{cid}"', f'name = "{name}"', f"rank = {rank}",
                  f'goal = {{ kind = "{goal}", {goal_params}stars = 1 }}',
                  f'effect = {{ kind = "entomb", count = {count} }}']
    folder.mkdir()
    (folder / "gravedigger.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


def _dist_info(folder: Path, name: str, entry_point: str) -> Path:
    """An installed distribution as importlib.metadata finds it on the path: its METADATA and its entry point
    in the group converge.extensions (what ``pip install`` of a pyproject.toml declaring it writes)."""
    info = folder / f"{name}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[converge.extensions]\n{entry_point}\n", encoding="utf-8")
    return folder


class Extension:
    """The extension's folders: ``lib`` holds its modules (on PYTHONPATH, not installed), ``installed`` and
    ``installed_callable`` a distribution each whose entry point names them, ``decks`` a deck naming its kind."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.lib = root / "lib"
        self.lib.mkdir()
        # gravemech registers its kind as it is imported; gravemech_later when its register() is called (and counts
        # the calls); broken_mech fails as it is imported
        (self.lib / "gravemech.py").write_text(KIND + "\nregister_effect(Entomb())\n", encoding="utf-8")
        (self.lib / "gravemech_later.py").write_text(KIND + textwrap.dedent("""
            CALLS = []


            def register():
                CALLS.append(1)
                register_effect(Entomb())
            """), encoding="utf-8")
        (self.lib / "broken_mech.py").write_text('raise RuntimeError("the crypt is not ready")\n',
                                                 encoding="utf-8")
        self.installed = _dist_info(root / "installed", "gravemech", "gravemech = gravemech")
        self.installed_callable = _dist_info(root / "installed_callable", "gravemech-later",
                                             "later = gravemech_later:register")
        self.installed_broken = _dist_info(root / "installed_broken", "broken-mech", "broken = broken_mech")
        self.decks = root / "decks"
        _deck(self.decks)

    def run(self, *argv: str, path: tuple[Path, ...] = (), env: dict[str, str] | None = None,
            code: str | None = None) -> subprocess.CompletedProcess[str]:
        """``converge ARGV`` (or ``python -c CODE``) in a fresh process whose path holds the checkout's sources,
        the extension's modules and the folders ``path``."""
        environ = {k: v for k, v in os.environ.items() if k not in ("CONVERGE_PLUGINS", "PYTHONPATH")}
        environ["PYTHONPATH"] = os.pathsep.join(str(p) for p in (ROOT / "src", self.lib, *path))
        environ.update(env or {})
        cmd = [sys.executable, "-c", code] if code is not None else [sys.executable, "-m", "converge", *argv]
        return subprocess.run(cmd, capture_output=True, text=True, env=environ, cwd=self.root, timeout=120,
                              check=False)


@pytest.fixture
def ext(tmp_path_factory: pytest.TempPathFactory) -> Extension:
    # (a few small files: each test writes its own, and the tests spread over pytest's workers)
    return Extension(tmp_path_factory.mktemp("extension"))


def _one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


BALANCE = ("balance", "--playset", "gravedigger,alchemist,searcher", "--per-playset", "4", "--chunk-size", "2",
           "--bot1", "random", "--bot2", "random", "--format", "csv", "--no-report", "--no-progress")


@pytest.mark.parametrize("route", ["entry point", "--plugin"])
def test_balance_plays_an_extension_deck_in_its_worker_processes(ext: Extension, tmp_path: Path,
                                                                 route: str) -> None:
    """The simulator's workers are spawned: each loads the extension itself (an installed one from its entry
    point, a --plugin one from the job), or its deck would not load there."""
    path, plugin = ((ext.installed,), ()) if route == "entry point" else ((), ("--plugin", "gravemech"))
    done = ext.run(*BALANCE, "--deck-dir", str(ext.decks), "--workers", "2", "--out", str(tmp_path / "out"),
                   *plugin, path=path)
    assert done.returncode in (0, 1), done.stdout + done.stderr  # (1: something flagged, in 4 matches)
    assert "Traceback" not in done.stderr
    assert "4 matches" in done.stdout and "2 local workers" in done.stdout
    assert "Gravedigger" in done.stdout
    table = (tmp_path / "out" / "rounds.csv").read_text(encoding="utf-8")
    assert table.count("alchemist/searcher/gravedigger,") >= 4  # (a round per match at least)


def test_without_the_extension_the_deck_is_refused_in_one_line(ext: Extension, tmp_path: Path) -> None:
    line = _one_error_line(ext.run(*BALANCE, "--deck-dir", str(ext.decks), "--out", str(tmp_path / "out")))
    assert line.startswith("converge: error: cannot load the decks: ") and "unknown effect kind 'entomb'" in line


def test_cards_and_cards_validate_with_the_plugin_option_before_or_after_the_command(ext: Extension) -> None:
    decks = str(ext.decks)
    for argv in (["--plugin", "gravemech", "cards", "validate", decks],
                 ["cards", "validate", decks, "--plugin", "gravemech"]):
        done = ext.run(*argv)
        assert (done.returncode, done.stdout, done.stderr) == (0, "OK: 1 file valid: Gravedigger (6 cards)\n", "")
    done = ext.run("cards", "--deck-dir", decks, "--skillset", "gravedigger", "--plugin", "gravemech")
    assert done.returncode == 0, done.stderr
    assert "Night Warden" in done.stdout and "Entomb: put up to 2 card(s) of a faction on top of the deck." in \
        " ".join(done.stdout.split())
    done = ext.run("cards", "validate", decks)  # (the same files, without the extension)
    assert done.returncode == 1 and "unknown effect kind 'entomb'" in done.stdout


def test_the_environment_names_plugins_too(ext: Extension) -> None:
    done = ext.run("cards", "validate", str(ext.decks), env={"CONVERGE_PLUGINS": " gravemech , "})
    assert (done.returncode, done.stdout) == (0, "OK: 1 file valid: Gravedigger (6 cards)\n"), done.stderr


def test_a_missing_plugin_is_one_line_naming_it(ext: Extension) -> None:
    line = _one_error_line(ext.run("--plugin", "gravemeck", "cards"))
    assert line == ("converge: error: cannot load the plugin 'gravemeck' (named by --plugin): "
                    "ModuleNotFoundError: No module named 'gravemeck'")
    line = _one_error_line(ext.run("cards", env={"CONVERGE_PLUGINS": "gravemeck"}))
    assert line == ("converge: error: cannot load the plugin 'gravemeck' (named in CONVERGE_PLUGINS): "
                    "ModuleNotFoundError: No module named 'gravemeck'")


def test_a_plugin_that_raises_is_one_line_naming_it_and_the_error(ext: Extension) -> None:
    line = _one_error_line(ext.run("cards", "--plugin", "broken_mech"))
    assert line == ("converge: error: cannot load the plugin 'broken_mech' (named by --plugin): RuntimeError: "
                    "the crypt is not ready")
    line = _one_error_line(ext.run("cards", path=(ext.installed_broken,)))
    assert line == ("converge: error: cannot load the plugin 'broken' (entry point broken = broken_mech of "
                    "broken-mech 0.1): RuntimeError: the crypt is not ready")
    # registering a kind twice (the extension named twice under two names) is the plugin's error too
    line = _one_error_line(ext.run("--plugin", "gravemech", "cards", path=(ext.installed_callable,)))
    assert line == ("converge: error: cannot load the plugin 'gravemech' (named by --plugin): ValueError: effect "
                    "kind 'entomb' is already registered")


def test_a_file_is_not_a_plugin_name(ext: Extension) -> None:
    done = ext.run("cards", "--plugin", "lib/gravemech.py")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "converge: error: argument --plugin: expected a module name such as mymech or mymech.kinds (not a file: "
        "put its folder on PYTHONPATH and name the module), got 'lib/gravemech.py'")


def test_an_entry_point_callable_is_called_once_however_often_the_extensions_load(ext: Extension) -> None:
    env = {"CONVERGE_PLUGINS": "gravemech_later"}
    done = ext.run(path=(ext.installed_callable,), env=env, code=textwrap.dedent("""
        from converge.extensions import load_extensions, named_plugins
        load_extensions(["gravemech_later"])
        load_extensions()
        load_extensions(["gravemech_later"])
        import gravemech_later
        from converge.engine.effects import effect_kinds
        print(len(gravemech_later.CALLS), "entomb" in effect_kinds(), named_plugins())
        """))
    assert (done.returncode, done.stdout, done.stderr) == (0, "1 True ('gravemech_later',)\n", "")


def test_the_servers_bot_workers_load_the_plugins_of_the_server(ext: Extension) -> None:
    """A bot of the server decides in a spawned worker, which replays the match from the server's decks: it
    loads the extension the server loaded by name (from the pool, not from the environment)."""
    pytest.importorskip("fastapi")
    done = ext.run(code=textwrap.dedent(f"""
        import asyncio
        from converge.engine.state import Match
        from converge.extensions import load_extensions
        from converge.server.play.owner.botpool import BotPool

        load_extensions(["gravemech"])
        decks = [{str(ext.decks)!r}]
        match = Match.new(["gravedigger", "alchemist", "searcher"], seed=3, deck_dirs=decks)
        pool = BotPool(1, decks)
        try:
            action = asyncio.run(pool.decide(match, match.turn.player, "random", 1))
        finally:
            pool.close()
        print(action in match.legal_actions())
        """))
    assert (done.returncode, done.stdout) == (0, "True\n"), done.stderr


def test_serve_offers_the_extension_deck(ext: Extension, tmp_path: Path) -> None:
    """`converge serve --plugin` loads the extension before it checks its decks, and offers the new skillset."""
    pytest.importorskip("fastapi")
    from converge.server.storage.pgcluster import free_port

    port = free_port()
    environ = {k: v for k, v in os.environ.items() if k != "CONVERGE_PLUGINS"}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ext.lib)])
    cmd = [sys.executable, "-m", "converge", "serve", "--plugin", "gravemech", "--deck-dir", str(ext.decks),
           "--port", str(port), "--db", str(tmp_path / "db.sqlite3"), "--bot-workers", "1"]
    log = tmp_path / "server.log"
    with log.open("w") as err, subprocess.Popen(cmd, env=environ, stdout=subprocess.DEVNULL, stderr=err) as server:
        try:
            options = _get_json(f"http://127.0.0.1:{port}/api/options", server, log)
        finally:
            server.terminate()
            server.wait(timeout=30)
    assert {"key": "gravedigger", "name": "Gravedigger", "set": "Home Brew", "keyword": "Entomb",
            "color": "white"} in options["skillsets"]


def _get_json(url: str, server: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> dict[str, Any]:
    """The JSON document at ``url`` once the server answers there."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            raise AssertionError(f"the server exited: {log.read_text(encoding='utf-8')}")
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                doc: dict[str, Any] = json.load(answer)
                return doc
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not answer in time")


def test_ray_tasks_load_the_plugins_the_job_names(ext: Extension) -> None:
    """A Ray task's worker may be on another machine, with no environment of ours: the job names the modules."""
    pytest.importorskip("ray")
    done = ext.run(code=textwrap.dedent(f"""
        import os
        import ray
        from converge.extensions import load_extensions
        from converge.simulation.backends import make_backend
        from converge.simulation.jobs import SimulationSpec, plan_chunks

        load_extensions(["gravemech"])  # (by name, as --plugin does, but not in the environment)
        assert "CONVERGE_PLUGINS" not in os.environ
        spec = SimulationSpec.build([["gravedigger", "alchemist", "searcher"]], 4, "random", "random", 1,
                                    [{str(ext.decks)!r}])
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        try:
            backend = make_backend("ray", 2)
            results = list(backend.map(spec, plan_chunks(spec, 2)))
        finally:
            ray.shutdown()
        print(spec.plugins, sorted({{row[1] for r in results for row in r.rows}}))
        """))
    assert (done.returncode, done.stdout) == (0, "('gravemech',) [0, 1, 2, 3]\n"), done.stderr[-2000:]
