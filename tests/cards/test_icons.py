"""The browser's icons, read from its script for the printed cards: each keyword's own, arcs and holes as the
browser draws them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from converge.cards.icons import OTHER, _area, browser_icons, icon_path, nonzero_parts, parse_path
from converge.cards.loader import load_catalog


def test_every_built_in_keyword_has_its_own_icon() -> None:
    icons = browser_icons()
    keywords = {deck.keyword for deck in load_catalog(()).values()}
    assert len(keywords) == 9 and keywords <= set(icons) and OTHER in icons
    other = icon_path(OTHER).vertices.tolist()
    assert icon_path("Tinkering").vertices.tolist() == other  # (a keyword without one: the browser's circle)
    assert all(icon_path(k).vertices.tolist() != other for k in keywords)


def test_an_arc_becomes_the_circle_it_draws() -> None:
    path = icon_path(OTHER)  # M12 3a9 9 0 1 1 0 18a9 9 0 0 1 0-18z: a circle of radius 9 about (12, 12)
    extents = path.get_extents()
    assert extents.x0 == pytest.approx(3 / 24, abs=1e-3) and extents.x1 == pytest.approx(21 / 24, abs=1e-3)
    assert extents.y0 == pytest.approx(3 / 24, abs=1e-3) and extents.y1 == pytest.approx(21 / 24, abs=1e-3)
    points = [tuple(segment(t / 8)) for segment, code in path.iter_bezier() if code == path.CURVE4
              for t in range(9)]
    assert len(points) == 4 * 9  # (two half circles, each two Béziers of 90°)
    assert all(abs(math.hypot(x - 0.5, y - 0.5) - 9 / 24) < 0.001 for x, y in points)


@pytest.mark.parametrize("name, hole, solid", [
    ("Assemble", (12, 12), (12, 5)),  # the gear's hole, its rim
    ("Search", (10, 10), (10, 3.5)),  # the magnifier's glass, its ring
])
def test_holes_stay_holes_as_the_browser_fills_them(name: str, hole: tuple[float, float],
                                                    solid: tuple[float, float]) -> None:
    """The browser fills by the even-odd rule, matplotlib by the non-zero rule: the hole's part is turned."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from converge.cards.faces import draw_icon

    fig = Figure(figsize=(2.4, 2.4), dpi=100)  # 10 pixels to a unit of the icons' 24 × 24 grid
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    ax.set_xlim(0, 24)
    ax.set_ylim(0, 24)
    draw_icon(ax, name, 0.0, 0.0, 24.0, "#000000")
    canvas.draw()
    pixels = np.asarray(canvas.buffer_rgba())

    def filled(point: tuple[float, float]) -> bool:  # (the grid's y runs down, as the image's rows do)
        return bool(pixels[round(point[1] * 10), round(point[0] * 10), 0] < 128)

    assert not filled(hole) and filled(solid)


def test_a_path_that_does_not_begin_with_a_move_is_refused() -> None:
    with pytest.raises(ValueError, match="must begin with M"):
        parse_path("L1 2")


def test_a_hole_drawn_the_same_way_round_as_its_outline_is_turned() -> None:
    """The browser's own icons draw their holes the other way round already; an icon that does not (the
    even-odd rule fills it the same) has its hole turned, the non-zero rule's way of leaving it empty."""
    parts = parse_path("M0 0h10v10h-10z M3 3h4v4h-4z M4 4h2v2h-2z")  # a square, a hole, an island in it
    assert [_area(p.outline()) > 0 for p in parts] == [True, True, True]
    turned = nonzero_parts(parts)
    assert [_area(p.outline()) > 0 for p in turned] == [True, False, True]
    assert sorted(turned[1].outline()) == sorted(parts[1].outline())  # (the same corners)
