"""Plot the interleaved GEMM run as an SVG bar chart, written by hand (no
matplotlib): TFLOP/s (median of the rounds) per shape, ours, torch.matmul
and (where the run had it) Triton; under each shape the configuration the
"auto" schedule chose.

    python bench/gemm/plot_svg.py [bench/results/gemm/run12c_interleave.json] [-o bench/results/gemm/gemm.svg]
"""
from __future__ import annotations

import argparse
import json
import os
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
SERIES = [  # key in the JSON, legend, colour
    ("auto", "ours, auto schedule (gemm_parts/schedule.py)", "#1f77b4"),
    ("p1_256_ts", "ours p1_256_ts (persistent 128x256, cooperative)", "#9edae5"),
    ("pp_128x128_ts", "ours pp_128x128_ts (ping-pong)", "#ff7f0e"),
    ("pp_64x256_ts", "ours pp_64x256_ts (ping-pong)", "#ffbb78"),
    ("c1_256", "ours 1-CTA (pipe)", "#1f77b4"),
    ("c2_256", "ours 2x1 multicast (pipe)", "#2ca02c"),
    ("c1_256_raw", "ours 1-CTA (raw barriers)", "#aec7e8"),
    ("c2_256_raw_r", "ours 2x1 (raw, relaxed release)", "#98df8a"),
    ("torch", "torch.matmul (cuBLAS)", "#d62728"),
    ("triton", "Triton tutorial matmul", "#7f7f7f"),
]


def svg(data: dict, title: str) -> str:
    rows = data["shapes"]
    series = [s for s in SERIES if any(s[0] in r for r in rows)]
    W, H, left, top, bottom = max(900, 120 * len(rows) + 80), 440, 60, 50, 90
    plot_w, plot_h = W - left - 20, H - top - bottom
    ymax = 100 * (int(max(r[k]["tflops"] for r in rows for k, _, _ in series if k in r)) // 100 + 1)
    group_w = plot_w / len(rows)
    bar_w = group_w * 0.8 / len(series)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{escape(title)}</text>']
    for t in range(0, ymax + 1, 100):
        y = top + plot_h * (1 - t / ymax)
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{W - 20}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 5}" y="{y + 4:.1f}" text-anchor="end">{t}</text>')
    out.append(f'<text x="15" y="{top + plot_h / 2}" transform="rotate(-90 15 {top + plot_h / 2})" '
               f'text-anchor="middle">TFLOP/s</text>')
    for i, r in enumerate(rows):
        x0 = left + i * group_w + group_w * 0.1
        for j, (key, _, colour) in enumerate(series):
            if key not in r:
                continue
            v = r[key]["tflops"]
            h = plot_h * v / ymax
            x = x0 + j * bar_w
            out.append(f'<rect x="{x:.1f}" y="{top + plot_h - h:.1f}" width="{bar_w - 1:.1f}" '
                       f'height="{h:.1f}" fill="{colour}"><title>{key}: {v:.0f}</title></rect>')
            out.append(f'<text x="{x + bar_w / 2:.1f}" y="{top + plot_h - h - 3:.1f}" '
                       f'text-anchor="middle" font-size="8">{v:.0f}</text>')
        label = "x".join(map(str, r["shape"]))
        out.append(f'<text x="{left + (i + 0.5) * group_w:.1f}" y="{top + plot_h + 15}" '
                   f'text-anchor="middle">{label}</text>')
        if "schedule" in r.get("auto", {}):
            out.append(f'<text x="{left + (i + 0.5) * group_w:.1f}" y="{top + plot_h + 28}" '
                       f'text-anchor="middle" font-size="9">auto: {escape(r["auto"]["schedule"])}</text>')
    for j, (_, name, colour) in enumerate(series):
        x = left + (j % 3) * 330
        y = H - 40 + (j // 3) * 16
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour}"/>')
        out.append(f'<text x="{x + 14}" y="{y}">{escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="?", default=os.path.join(HERE, "..", "results", "gemm", "run12c_interleave.json"))
    ap.add_argument("-o", "--out", default=os.path.join(HERE, "..", "results", "gemm", "gemm.svg"))
    args = ap.parse_args()
    data = json.load(open(args.json))
    title = (f"bf16 GEMM on the H200, TFLOP/s (median of {data['rounds']} interleaved rounds "
             f"of 10 launches)")
    with open(args.out, "w") as f:
        f.write(svg(data, title))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
