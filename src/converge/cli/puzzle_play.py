"""``converge puzzles``: the puzzles played in the terminal (being built)."""

from __future__ import annotations

import argparse

from converge.cli.common import UserError


def play_puzzles(args: argparse.Namespace) -> int:
    raise UserError("playing puzzles in the terminal is not built yet")
