#!/usr/bin/env python3
"""Plots search latency against memory size from search_bench's --json output, as an SVG.

    python3 bench/plot_search.py build/search.json docs/search-latency.svg

One line per mode: p95 (solid) and p50 (dotted) in ms against the number of entries (log scale).
Standard library only (no matplotlib on the build machines), so the plot is made wherever the
benchmark runs.
"""
import json
import math
import sys

W, H = 760, 440
LEFT, RIGHT, TOP, BOTTOM = 70, 220, 40, 60
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"]
MODES = ["fts", "hybrid", "vector", "prepare_context", "fts, sentence queries",
         "hybrid, sentence queries"]


def main(src, dst):
    runs = sorted(json.load(open(src)), key=lambda r: r["entries"])
    sizes = [r["entries"] for r in runs]
    modes = [m for m in MODES if any(m in r.get("modes", {}) for r in runs)]
    ymax = max(r["modes"][m]["p95"] for r in runs for m in modes if m in r["modes"])
    step = next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500) if ymax / s <= 8)
    ytop = step * math.ceil(ymax / step)
    lo, hi = math.log10(min(sizes)), math.log10(max(sizes))
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5

    def x(n):
        return LEFT + (math.log10(n) - lo) / (hi - lo) * (W - LEFT - RIGHT)

    def y(ms):
        return H - BOTTOM - ms / ytop * (H - TOP - BOTTOM)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{LEFT}" y="22" font-size="15">Search latency against memory size '
           f'(search_bench, in process)</text>']
    for i in range(int(ytop / step) + 1):
        v = i * step
        out.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(v) + 4:.1f}" text-anchor="end">{v:g}</text>')
    for n in sizes:
        out.append(f'<line x1="{x(n):.1f}" x2="{x(n):.1f}" y1="{TOP}" y2="{H - BOTTOM}" stroke="#eee"/>')
        out.append(f'<text x="{x(n):.1f}" y="{H - BOTTOM + 18}" text-anchor="middle">{n:,}</text>')
    out.append(f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 15}" text-anchor="middle">entries in the memory</text>')
    out.append(f'<text x="18" y="{(TOP + H - BOTTOM) / 2}" transform="rotate(-90 18 {(TOP + H - BOTTOM) / 2})" '
               f'text-anchor="middle">ms per search</text>')
    for k, mode in enumerate(modes):
        color = COLORS[k % len(COLORS)]
        for stat, dash in (("p95", ""), ("p50", ' stroke-dasharray="3 3"')):
            pts = [(x(r["entries"]), y(r["modes"][mode][stat])) for r in runs if mode in r["modes"]]
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in pts)
            out.append(f'<polyline points="{path}" fill="none" stroke="{color}" stroke-width="2"{dash}/>')
            for px, py in pts:
                out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3" fill="{color}"/>')
        ly = TOP + 10 + k * 22
        out.append(f'<line x1="{W - RIGHT + 15}" x2="{W - RIGHT + 40}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"/>')
        out.append(f'<text x="{W - RIGHT + 46}" y="{ly + 4}">{mode}</text>')
    ly = TOP + 10 + len(modes) * 22 + 10
    out.append(f'<text x="{W - RIGHT + 15}" y="{ly}">solid: p95, dotted: p50</text>')
    out.append("</svg>")
    with open(dst, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: plot_search.py SEARCH_JSON OUT_SVG")
    main(sys.argv[1], sys.argv[2])
