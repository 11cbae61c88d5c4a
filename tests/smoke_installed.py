"""Each door of an installed converge-game, once: run by ``.ci/wheel-smoke`` with the Python of a fresh venv
into which the built wheel was installed, from a folder outside the checkout, so that nothing of the
source tree can stand in for what the wheel lacks. (Not a pytest module: the checkout's tests run in
``make test``.)"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

CONVERGE = [sys.executable, "-m", "converge"]


def run(*argv: str, stdin: str = "", timeout: float = 600) -> str:
    done = subprocess.run([*CONVERGE, *argv], input=stdin, capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        sys.exit(f"smoke: converge {' '.join(argv)} failed ({done.returncode}):\n{done.stdout[-2000:]}\n"
                 f"{done.stderr[-2000:]}")
    return done.stdout


def main() -> None:
    import converge
    import converge.engine.state as state

    package = Path(converge.__file__).resolve().parent
    assert "site-packages" in str(package), f"converge comes from {package}, not from the installed wheel"
    assert state.__file__.endswith(".so"), f"the engine is not compiled: {state.__file__}"
    print("smoke:", run("--version").strip())

    # a whole line-mode match against the random bot (the first choice every time), to its end
    out = run("play", "--plain", "--opponent", "random", "--seed", "3", stdin="1\n" * 400)
    assert re.search(r"\b(wins?|lose) the match\b", out), out[-1500:]
    print("smoke: a line-mode match played to its end")

    decks = sorted((package / "cards" / "decks").glob("*.toml"))
    assert len(decks) == 9, decks
    run("cards", "validate", *map(str, decks))
    print("smoke: the nine decks validate")

    with tempfile.TemporaryDirectory() as folder:  # (the browser's style sheet, read for the colours, is shipped)
        run("cards", "print", "--skillset", "healer", "--size", "mini", "--out", folder)
        assert (Path(folder) / "cards.pdf").read_bytes().startswith(b"%PDF")
        assert len(list((Path(folder) / "png").glob("*.png"))) == 7
        run("cards", "tts", "--skillset", "healer", "--out", str(Path(folder) / "tts"))
        saved = json.loads((Path(folder) / "tts" / "converge-cards.json").read_text(encoding="utf-8"))
        assert len(saved["ObjectStates"][0]["ContainedObjects"]) == 6
    print("smoke: the cards printed, and made a Tabletop Simulator deck")

    with tempfile.TemporaryDirectory() as folder:
        run("simulate", "--playset", "alchemist,healer,delver", "-n", "4", "--workers", "1", "--no-progress",
            "--out", folder)
        summary = json.loads((Path(folder) / "summary.json").read_text(encoding="utf-8"))
        assert summary["settings"]["matches"] == 4 and (Path(folder) / "report.html").is_file()
    print("smoke: a simulation with its report")

    import gymnasium
    import pyspiel

    import converge.adapters.gymnasium  # (registers converge/Converge-v0)
    import converge.adapters.openspiel  # (registers python_converge)
    from converge.adapters.pettingzoo import env as pettingzoo_env

    game = pyspiel.load_game("python_converge")
    s = game.new_initial_state()
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0] if not s.is_chance_node() else s.chance_outcomes()[0][0])
    gym_env = gymnasium.make("converge/Converge-v0")
    gym_env.reset(seed=1)
    aec = pettingzoo_env()
    aec.reset(seed=1)
    print("smoke: the OpenSpiel, Gymnasium and PettingZoo adapters load and play")

    result = json.loads(run("serve-bench", "--matches", "2", "--think-ms", "0-20", "--json", timeout=900))
    assert result["lost"] == 0 and result["errors"] == 0 and result["duplicated"] == 0, result
    print("smoke: a server played bot matches over WebSockets")


if __name__ == "__main__":
    main()
