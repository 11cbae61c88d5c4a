"""The browser's icons (one per effect keyword, ``web/dom.js``'s ``ICONS``: SVG paths on a 24 × 24 grid), read
from the browser's script, the one place they are drawn, as matplotlib paths for the printed cards.

An SVG path is read here as the browser reads it (the commands M L H V C A Z, absolute and relative), its
arcs turned into Bézier curves; the browser fills it by the even-odd rule (a gear's hole, a magnifier's ring)
and matplotlib by the non-zero rule, so each closed part is turned to run the way the non-zero rule fills as
the even-odd one does: the parts inside an even number of others anticlockwise, the others clockwise.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.path import Path

#: The icon of a name the script lacks (its ``ICONS.other``).
OTHER = "other"
#: The side of the grid the icons are drawn on.
GRID = 24.0

Point = tuple[float, float]


@dataclass
class _Part:
    """One closed part of a path: its start and its segments, each a line (one point) or a cubic (three)."""

    start: Point
    segments: list[tuple[Point, ...]]

    def outline(self) -> list[Point]:
        return [self.start, *(p for seg in self.segments for p in seg)]

    def reversed(self) -> _Part:
        points = [self.start] + [seg[-1] for seg in self.segments]
        out: list[tuple[Point, ...]] = []
        for i in range(len(self.segments) - 1, -1, -1):
            seg, before = self.segments[i], points[i]
            out.append((seg[1], seg[0], before) if len(seg) == 3 else (before,))
        return _Part(points[-1], out)


def _area(points: list[Point]) -> float:
    return sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(points, points[1:] + points[:1], strict=True)) / 2


def _inside(point: Point, polygon: list[Point]) -> bool:
    x, y = point
    hit = False
    for (x0, y0), (x1, y1) in zip(polygon, polygon[1:] + polygon[:1], strict=True):
        if (y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0):
            hit = not hit
    return hit


def _arc(p0: Point, rx: float, ry: float, angle: float, large: bool, sweep: bool,
         p1: Point) -> list[tuple[Point, ...]]:
    """An SVG arc from ``p0`` to ``p1`` as cubic Béziers of at most 90° each (the SVG spec's appendix B.2.4)."""
    if p0 == p1:
        return []
    if rx == 0 or ry == 0:
        return [(p1,)]
    phi = math.radians(angle)
    cos, sin = math.cos(phi), math.sin(phi)
    dx, dy = (p0[0] - p1[0]) / 2, (p0[1] - p1[1]) / 2
    x1, y1 = cos * dx + sin * dy, -sin * dx + cos * dy
    rx, ry = abs(rx), abs(ry)
    scale = x1 ** 2 / rx ** 2 + y1 ** 2 / ry ** 2
    if scale > 1:
        rx, ry = rx * math.sqrt(scale), ry * math.sqrt(scale)
    num = rx ** 2 * ry ** 2 - rx ** 2 * y1 ** 2 - ry ** 2 * x1 ** 2
    k = math.sqrt(max(num, 0) / (rx ** 2 * y1 ** 2 + ry ** 2 * x1 ** 2)) * (-1 if large == sweep else 1)
    cx1, cy1 = k * rx * y1 / ry, -k * ry * x1 / rx
    cx = cos * cx1 - sin * cy1 + (p0[0] + p1[0]) / 2
    cy = sin * cx1 + cos * cy1 + (p0[1] + p1[1]) / 2
    start = math.atan2((y1 - cy1) / ry, (x1 - cx1) / rx)
    delta = math.atan2((-y1 - cy1) / ry, (-x1 - cx1) / rx) - start
    if sweep and delta < 0:
        delta += 2 * math.pi
    elif not sweep and delta > 0:
        delta -= 2 * math.pi
    pieces = max(1, math.ceil(abs(delta) / (math.pi / 2) - 1e-9))
    step = delta / pieces
    t = 4 / 3 * math.tan(step / 4)

    def at(a: float) -> tuple[Point, Point]:  # the point at angle a, and the derivative there
        ex, ey = rx * math.cos(a), ry * math.sin(a)
        dx_, dy_ = -rx * math.sin(a), ry * math.cos(a)
        return ((cx + cos * ex - sin * ey, cy + sin * ex + cos * ey),
                (cos * dx_ - sin * dy_, sin * dx_ + cos * dy_))

    out: list[tuple[Point, ...]] = []
    a = start
    for i in range(pieces):
        (q0, d0), (q1, d1) = at(a), at(a + step)
        end = p1 if i == pieces - 1 else q1
        out.append(((q0[0] + t * d0[0], q0[1] + t * d0[1]), (q1[0] - t * d1[0], q1[1] - t * d1[1]), end))
        a += step
    return out


_TOKEN = re.compile(r"[MmLlHhVvCcAaZz]|[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def parse_path(d: str) -> list[_Part]:
    """The closed parts of the SVG path ``d`` (commands M L H V C A Z, either case)."""
    tokens = _TOKEN.findall(d)
    parts: list[_Part] = []
    pos: Point = (0.0, 0.0)
    i, command = 0, ""

    def numbers(n: int) -> list[float]:
        nonlocal i
        values = [float(v) for v in tokens[i:i + n]]
        if len(values) < n or any(re.fullmatch(r"[A-Za-z]", v) for v in tokens[i:i + n]):
            raise ValueError(f"an SVG path's {command} needs {n} numbers: {d[:40]!r}")
        i += n
        return values

    while i < len(tokens):
        if re.fullmatch(r"[A-Za-z]", tokens[i]):
            command = tokens[i]
            i += 1
        elif not command:
            raise ValueError(f"an SVG path must begin with M: {d[:40]!r}")
        rel = command.islower()
        base = pos if rel else (0.0, 0.0)
        c = command.upper()
        if c == "Z":
            if parts:
                pos = parts[-1].start
            continue
        if c == "M":
            x, y = numbers(2)
            pos = (base[0] + x, base[1] + y)
            parts.append(_Part(pos, []))
            command = "l" if rel else "L"  # (more pairs after M are lines)
            continue
        if not parts:
            raise ValueError(f"an SVG path must begin with M: {d[:40]!r}")
        segments = parts[-1].segments
        if c == "L":
            x, y = numbers(2)
            pos = (base[0] + x, base[1] + y)
            segments.append((pos,))
        elif c == "H":
            (x,) = numbers(1)
            pos = ((pos[0] if rel else 0.0) + x, pos[1])
            segments.append((pos,))
        elif c == "V":
            (y,) = numbers(1)
            pos = (pos[0], (pos[1] if rel else 0.0) + y)
            segments.append((pos,))
        elif c == "C":
            v = numbers(6)
            points = tuple((base[0] + v[k], base[1] + v[k + 1]) for k in (0, 2, 4))
            segments.append(points)
            pos = points[-1]
        elif c == "A":
            rx, ry, angle, large, sweep, x, y = numbers(7)
            end = (base[0] + x, base[1] + y)
            segments.extend(_arc(pos, rx, ry, angle, bool(large), bool(sweep), end))
            pos = end
        else:
            raise ValueError(f"an SVG path command the icons do not use: {command}")
    return parts


def nonzero_parts(parts: list[_Part]) -> list[_Part]:
    """``parts`` turned so that the non-zero rule fills them as the even-odd rule does (in a y-up frame: the
    parts inside an even number of others anticlockwise)."""
    outlines = [p.outline() for p in parts]
    out = []
    for i, part in enumerate(parts):
        depth = sum(_inside(part.start, outlines[j]) for j in range(len(parts)) if j != i)
        anticlockwise = _area(outlines[i]) > 0
        out.append(part if anticlockwise == (depth % 2 == 0) else part.reversed())
    return out


@cache
def browser_icons() -> dict[str, str]:
    """The browser's icons by name (an effect keyword, ``artifact``, ``other``): their SVG path data."""
    script = resources.files("converge").joinpath("web", "dom.js").read_text(encoding="utf-8")
    block = re.search(r"const ICONS = \{(.*?)\n\};", script, flags=re.DOTALL)
    if not block:
        raise ValueError("the browser's dom.js has no ICONS")
    return dict(re.findall(r"^\s*(\w+):\s*\"([^\"]+)\"", block.group(1), flags=re.MULTILINE))


@cache
def icon_path(name: str) -> Path:
    """The icon of ``name`` (the browser's ``other`` for a name it lacks) as a matplotlib path on a unit
    square, y up (the SVG grid turned the right way up), filled as the browser fills it."""
    from matplotlib.path import Path

    icons = browser_icons()
    d = icons.get(name, icons[OTHER])
    flipped = [_Part((x / GRID, 1 - y / GRID), [tuple((px / GRID, 1 - py / GRID) for px, py in seg)
                                                 for seg in part.segments])
               for part in parse_path(d) for (x, y) in [part.start]]
    vertices: list[Point] = []
    codes: list[Any] = []  # (Path.MOVETO and the others are numpy integers)
    for part in nonzero_parts(flipped):
        vertices.append(part.start)
        codes.append(Path.MOVETO)
        for seg in part.segments:
            vertices.extend(seg)
            codes.extend([Path.LINETO] if len(seg) == 1 else [Path.CURVE4] * 3)
        vertices.append(part.start)
        codes.append(Path.CLOSEPOLY)
    return Path(vertices, codes)
