#!/usr/bin/env python3
"""Plots the core loop against memory size from scale_bench's --json outputs, as one SVG.

    python3 bench/plot_scale.py docs/scale.svg build/scale-sqlite.json [build/scale-pg.json]

Left: remember/s over HTTP against the number of entries (log scale), one line per store. Right:
search p99 in ms (solid) and p50 (dotted) per mode and store. Standard library only (no matplotlib
on the build machines), so the plot is made wherever the benchmark runs.
"""
import json
import math
import sys

PANEL_W, H = 430, 420
LEFT, RIGHT, TOP, BOTTOM = 64, 16, 48, 110
COLORS = {"fts": "#1f77b4", "vector": "#2ca02c", "hybrid": "#d62728", "remember": "#9467bd",
          "vector_graph": "#17becf"}
LABELS = {"vector": "vector (at once)", "vector_graph": "vector (graph built)"}
DASH = {"sqlite": "", "postgresql": ' stroke-dasharray="8 4"'}


def nice_top(v):
    step = next(s for s in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000) if v / s <= 8)
    return step, step * max(1, math.ceil(v / step))


def panel(out, x0, title, ylabel, sizes, lines):
    """lines: [(label, color, dash, [(entries, value)])]"""
    top_value = max([v for _, _, _, pts in lines for _, v in pts] + [1e-9])
    step, ytop = nice_top(top_value)
    lo, hi = math.log10(min(sizes)), math.log10(max(sizes))
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    w = PANEL_W - LEFT - RIGHT

    def x(n):
        return x0 + LEFT + (math.log10(n) - lo) / (hi - lo) * w

    def y(v):
        return H - BOTTOM - v / ytop * (H - TOP - BOTTOM)

    out.append(f'<text x="{x0 + LEFT}" y="{TOP - 16}" font-size="14">{title}</text>')
    for i in range(int(round(ytop / step)) + 1):
        v = i * step
        out.append(f'<line x1="{x0 + LEFT}" x2="{x0 + LEFT + w}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 + LEFT - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    for n in sizes:
        out.append(f'<text x="{x(n):.1f}" y="{H - BOTTOM + 16}" text-anchor="middle">{n:,}</text>')
    out.append(f'<text x="{x0 + LEFT + w / 2}" y="{H - BOTTOM + 34}" text-anchor="middle">entries in the scope</text>')
    cy = (TOP + H - BOTTOM) / 2
    out.append(f'<text x="{x0 + 16}" y="{cy}" transform="rotate(-90 {x0 + 16} {cy})" text-anchor="middle">{ylabel}</text>')
    for k, (label, color, dash, pts) in enumerate(lines):
        pts = sorted(pts)
        path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in pts)
        out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
        for n, v in pts:
            out.append(f'<circle cx="{x(n):.1f}" cy="{y(v):.1f}" r="3" fill="{color}"/>')
        lx, ly = x0 + LEFT + (k % 2) * 190, H - BOTTOM + 54 + (k // 2) * 16
        out.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{ly - 4}" y2="{ly - 4}" stroke="{color}" stroke-width="2"{dash}/>')
        out.append(f'<text x="{lx + 30}" y="{ly}">{label}</text>')


def main(dst, sources):
    runs = [r for src in sources for r in json.load(open(src))]
    sizes = sorted({r["entries"] for r in runs})
    stores = [s for s in ("sqlite", "postgresql") if any(r["store"] == s for r in runs)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{2 * PANEL_W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{2 * PANEL_W}" height="{H}" fill="white"/>']
    remember = [(f"{s}", COLORS["remember"], DASH[s],
                 [(r["entries"], r["remember"]["per_second"]) for r in runs if r["store"] == s]) for s in stores]
    panel(out, 0, "remember/s over HTTP (default gates)", "remember/s", sizes, remember)
    search = []
    for s in stores:
        for mode in ("fts", "vector", "hybrid", "vector_graph"):  # vector_graph: runs that measured it
            pts = [(r["entries"], r[mode]["p99"]) for r in runs if r["store"] == s and mode in r]
            if pts:
                search.append((f"{LABELS.get(mode, mode)} p99, {s}", COLORS[mode], DASH[s], pts))
    panel(out, PANEL_W, "search p99 over HTTP (4 clients)", "ms", sizes, search)
    out.append("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: plot_scale.py OUT_SVG SCALE_JSON [SCALE_JSON ...]")
    main(sys.argv[1], sys.argv[2:])
