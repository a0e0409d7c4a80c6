#!/usr/bin/env python3
"""Draws where a real run's wall clock went (set-up, stepping, reading results, writing
files) from a figures file in docs/data/, one bar per run. Needs matplotlib.

    tools/plot_end_to_end.py docs/data/sagehen-end-to-end-2026-11-26.json \\
        docs/sagehen-end-to-end-2026-11-26.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PARTS = ["setup", "stepping", "reading_results", "writing_files", "other"]


def main(src, dst):
    d = json.load(open(src))
    runs = d["runs"][::-1]  # first run on top
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(runs) + 1.5))
    labels = [r["label"] for r in runs]
    left = [0.0] * len(runs)
    for part in PARTS:
        widths = [r["wall_clock_s"].get(part, 0.0) for r in runs]
        ax.barh(labels, widths, left=left, label=part.replace("_", " "))
        left = [a + b for a, b in zip(left, widths)]
    # Runs from before the split show their total only.
    unsplit = [r["wall_s"] if not r["wall_clock_s"] else 0.0 for r in runs]
    ax.barh(labels, unsplit, color="lightgrey", hatch="//", label="not split (before)")
    for y, r in enumerate(runs):
        ax.text(r["wall_s"] + 0.5, y, f"{r['wall_s']:.1f} s", va="center", fontsize=8)
    ax.set_xlabel("wall clock (s)")
    ax.set_title(f"Sagehen Creek rain at 2.5 m, 8.2 M cells ({d['date']})")
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    fig.savefig(dst, dpi=110)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
