#!/usr/bin/env python3
"""Draws core-ns per solution against N, one line per table, as an SVG.

Each table is the Markdown that scripts/estimate-table.sh prints (a row per
N with a "core-ns per solution" column; "about 0.80 (at 2.5e18)" rows, the
unpublished N, are drawn hollow). No plotting library needed.

    scripts/estimate-table.sh 2 200 21 22 23 24 25 26 27 28 > docs/data/estimate-zen5-avx512.md
    scripts/cost-chart.py docs/cost.svg "Zen 5, AVX-512=docs/data/estimate-zen5-avx512.md" \\
        "Zen 5, AVX2=docs/data/estimate-zen5-avx2.md" "Zen 3, AVX2=docs/data/estimate-zen3-avx2.md"
"""
import math
import re
import sys

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e"]
WIDTH, HEIGHT = 640, 400
LEFT, RIGHT, TOP, BOTTOM = 64, 170, 40, 48


def read_table(path):
    """(N, core-ns, published) points of one estimate table."""
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    header = next((line for line in lines if line.startswith("| N |")), None)
    if header is None:
        raise ValueError(f"{path}: no '| N |' table header")
    columns = [cell.strip() for cell in header.strip("|").split("|")]
    if "core-ns per solution" not in columns:
        raise ValueError(f"{path}: no 'core-ns per solution' column")
    where = columns.index("core-ns per solution")
    points = []
    for line in lines:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if not line.startswith("|") or not cells[0].isdigit():
            continue
        found = re.search(r"[0-9]+(\.[0-9]+)?", cells[where])
        if found:
            points.append((int(cells[0]), float(found.group(0)), "about" not in cells[where]))
    if not points:
        raise ValueError(f"{path}: no rows with a core-ns figure")
    return points, lines[0].lstrip("# ") if lines and lines[0].startswith("#") else ""


def main() -> int:
    if len(sys.argv) < 3:
        print(f"usage: {sys.argv[0]} CHART.svg 'LABEL=TABLE.md' [...]", file=sys.stderr)
        return 2
    target, series = sys.argv[1], []
    for spec in sys.argv[2:]:
        label, _, path = spec.rpartition("=")
        try:
            points, source = read_table(path)
        except (OSError, ValueError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 1
        series.append((label or path, points, source))
    ns = [n for _, points, _ in series for n, _, _ in points]
    values = [v for _, points, _ in series for _, v, _ in points]
    n_lo, n_hi = min(ns), max(ns)
    v_hi = max(values) * 1.15
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    x = lambda n: LEFT + (n - n_lo) / max(n_hi - n_lo, 1) * plot_w
    y = lambda v: TOP + plot_h - v / v_hi * plot_h
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="22" font-size="14">core-ns per solution (predicted by plan N --estimate)</text>',
    ]
    step = 10 ** (math.floor(math.log10(v_hi)) - 1)
    for mult in (1, 2, 5):
        if v_hi / (step * mult) <= 8:
            step *= mult
            break
    tick = 0.0
    while tick <= v_hi:
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#dddddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(tick) + 4:.1f}" text-anchor="end">{tick:g}</text>')
        tick = round(tick + step, 10)
    for n in range(n_lo, n_hi + 1):
        out.append(f'<text x="{x(n):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{n}</text>')
    out.append(f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 10}" text-anchor="middle">N</text>')
    out.append(f'<rect x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#444444"/>')
    for index, (label, points, source) in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v, _ in points)
        out.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for n, v, published in points:
            fill = colour if published else "#ffffff"
            out.append(
                f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="4" fill="{fill}" stroke="{colour}" stroke-width="2">'
                f"<title>{label}, N = {n}: {v:g} core-ns per solution</title></circle>"
            )
        legend_y = TOP + 12 + index * 36
        out.append(f'<line x1="{LEFT + plot_w + 12}" x2="{LEFT + plot_w + 32}" y1="{legend_y}" y2="{legend_y}" stroke="{colour}" stroke-width="2"/>')
        out.append(f'<text x="{LEFT + plot_w + 38}" y="{legend_y + 4}">{label}</text>')
        cpu = source.split(",")[0] if source else ""
        out.append(f'<text x="{LEFT + plot_w + 38}" y="{legend_y + 18}" font-size="10" fill="#666666">{cpu}</text>')
    note_y = TOP + 12 + len(series) * 36
    out.append(f'<text x="{LEFT + plot_w + 12}" y="{note_y}" font-size="10" fill="#666666">hollow: Q(N) unpublished,</text>')
    out.append(f'<text x="{LEFT + plot_w + 12}" y="{note_y + 12}" font-size="10" fill="#666666">taken as 2.5e18 at N = 28</text>')
    out.append("</svg>")
    try:
        with open(target, "w", encoding="utf-8") as handle:
            handle.write("\n".join(out) + "\n")
    except OSError as err:
        print(f"error: cannot write {target}: {err}", file=sys.stderr)
        return 1
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
