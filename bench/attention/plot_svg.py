"""Plot an attention run (run.py --json) as an SVG bar chart, written by hand
(no matplotlib): TFLOP/s per sequence length, one panel per head dim and
causality, ours and each torch backend (and Triton's tutorial kernel where
the run has it). ``--config-for``: one bar of ours per row, the
configuration attention.config_for picks (table.py), instead of every
configuration the run timed.

    python bench/attention/plot_svg.py [bench/results/attention/6_final/attn.json] [--config-for] [-o OUT.svg]
"""
from __future__ import annotations

import argparse
import json
import os
from xml.sax.saxutils import escape

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT = os.path.join(HERE, "..", "results", "attention", "6_final", "attn.json")
COLOURS = ["#1f77b4", "#17becf", "#aec7e8", "#ff7f0e", "#d62728", "#7f7f7f", "#9467bd"]
TORCH = ("flash", "cudnn", "efficient")
OTHERS = TORCH + ("triton",)
CHOSEN = "ours: config_for"


def panel(rows, x0, y0, w, h, title, series, ymax):
    out = [f'<text x="{x0 + w / 2}" y="{y0 - 8}" text-anchor="middle" font-size="13">'
           f'{escape(title)}</text>']
    for t in range(0, ymax + 1, 100):
        y = y0 + h * (1 - t / ymax)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{x0 - 4}" y="{y + 4:.1f}" text-anchor="end">{t}</text>')
    gw = w / len(rows)
    bw = gw * 0.85 / len(series)
    for i, r in enumerate(rows):
        for j, (key, colour) in enumerate(series):
            v = r["tflops"].get(key)
            if v is None:
                continue
            bh = h * v / ymax
            x = x0 + i * gw + gw * 0.075 + j * bw
            out.append(f'<rect x="{x:.1f}" y="{y0 + h - bh:.1f}" width="{bw - 1:.1f}" '
                       f'height="{bh:.1f}" fill="{colour}"><title>{key}: {v:.0f}</title></rect>')
            out.append(f'<text x="{x + bw / 2:.1f}" y="{y0 + h - bh - 2:.1f}" font-size="7" '
                       f'text-anchor="middle">{v:.0f}</text>')
        out.append(f'<text x="{x0 + (i + 0.5) * gw:.1f}" y="{y0 + h + 14}" '
                   f'text-anchor="middle">seq {r["seq"]}</text>')
    return out


def svg(data: dict) -> str:
    rows = data["bench"]
    groups = sorted({(r["head_dim"], r["causal"]) for r in rows}, key=lambda g: (-g[0], g[1]))
    keys = []
    for r in rows:
        for k in r["tflops"]:
            if k not in keys:
                keys.append(k)
    ours = [k for k in keys if k not in OTHERS]
    others = [k for k in OTHERS if k in keys]
    W, PH, PW, left, top = 1000, 230, 440, 50, 60
    H = top + 2 * (PH + 50) + 60
    ymax = 100 * (int(max(v for r in rows for v in r["tflops"].values())) // 100 + 1)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
           f'font-family="sans-serif" font-size="10">', f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">bf16 attention forward on '
           f'the H200, TFLOP/s (16 heads, 16k tokens per call, median of 5 interleaved rounds; '
           f'{escape(data.get("torch", ""))})</text>']
    for gi, (d, causal) in enumerate(groups):
        grows = [r for r in rows if (r["head_dim"], r["causal"]) == (d, causal)]
        mine = [k for k in ours if any(k in r["tflops"] for r in grows)]
        series = list(zip(mine + others, COLOURS[:len(mine)] + COLOURS[3:3 + len(others)]))
        x0 = left + (gi % 2) * (PW + 60)
        y0 = top + (gi // 2) * (PH + 50)
        out += panel(grows, x0, y0, PW, PH, f"head dim {d}, {'causal' if causal else 'non-causal'}",
                     series, ymax)
        ly = y0 + PH + 28
        for j, (key, colour) in enumerate(series):
            x = x0 + j * (PW / len(series))
            out.append(f'<rect x="{x:.1f}" y="{ly - 8}" width="9" height="9" fill="{colour}"/>')
            out.append(f'<text x="{x + 12:.1f}" y="{ly}">{escape(key)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("json", nargs="?", default=DEFAULT)
    ap.add_argument("--config-for", action="store_true",
                    help="one bar of ours: the configuration config_for picks")
    ap.add_argument("-o", "--out", default=os.path.join(HERE, "..", "results", "attention", "attention.svg"))
    args = ap.parse_args()
    if args.config_for:
        import table
        data, cfgs = table.load(args.json)
        for r in data["bench"]:
            name = table.chosen(r, cfgs)
            r["tflops"] = {CHOSEN: r["tflops"][name],
                           **{n: v for n, v in r["tflops"].items() if n in OTHERS}}
    else:
        data = json.load(open(args.json))
    with open(args.out, "w") as f:
        f.write(svg(data))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
