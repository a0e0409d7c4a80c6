#!/usr/bin/env python3
"""Plots the 2-GPU scaling runs of docs/data/scaling-2xh100-*.json: per case, the ideal time
per step (1-GPU time / 2; the 1-GPU time itself for weak scaling) against the 2-GPU time,
split into the GPU's busy time (pass timestamps) and the rest, when the GPU idles; and, where
the runs have them (from 2026-11-26), the GPU's time before each pass of the step (the
submission boundaries and copies where it waits).

Usage: tools/plot_scaling.py docs/data/scaling-2xh100-2026-11-26.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# (label, 1-GPU run, 2-GPU runs' prefix, ideal = one / divisor)
CASES = [
    ("weak\n16.8 M cells / GPU", "one_1", "w_", 1),
    ("strong\n16.8 M cells", "one_1", "s16_", 2),
    ("strong\n33.6 M cells", "one_2", "w_", 2),
    ("strong\n67.1 M cells", "one_3", "s67_", 2),
    ("strong, 3 levels\n33.3 M cells", "one_4", "m_", 2),
]


def main():
    data = json.load(open(sys.argv[1]))
    runs = data["final_spinning_waits"]
    gaps = any("gpu_before_passes" in p for r in runs.values()
               for p in r.get("per_rank_ms_per_step", []))
    fig, axes = plt.subplots(1, 2 if gaps else 1, figsize=(15 if gaps else 9, 4.5),
                             gridspec_kw={"width_ratios": [3, 2]} if gaps else None)
    ax = axes[0] if gaps else axes
    for x, (label, one, prefix, divisor) in enumerate(CASES):
        ideal = runs[one]["ms_per_step"] / divisor
        two = [r for k, r in runs.items() if k.startswith(prefix)]
        wall = min(r["ms_per_step"] for r in two)
        busy = max(p["gpu_busy"] for r in two for p in r["per_rank_ms_per_step"])
        ax.bar(x - 0.2, ideal, 0.4, color="#bbbbbb", label="ideal (1 GPU)" if x == 0 else None)
        ax.bar(x + 0.2, busy, 0.4, color="#1f77b4", label="2 GPUs: GPU busy" if x == 0 else None)
        ax.bar(x + 0.2, wall - busy, 0.4, bottom=busy, color="#ff7f0e",
               label="2 GPUs: GPU idle (host, MPI, dt)" if x == 0 else None)
        ax.text(x + 0.2, wall * 1.02, f"{ideal / wall:.0%}", ha="center", fontsize=9)
    ax.set_xticks(range(len(CASES)), [c[0] for c in CASES], fontsize=8)
    ax.set_ylabel("ms per step")
    ax.set_title("quadflood on 2 H100s (Vulkan, MPI): time per step and efficiency", fontsize=10)
    ax.legend(fontsize=8)
    if gaps:
        plot_gaps(axes[1], runs, data.get("before_passes_scale"))
    fig.text(0.01, 0.01, data["machine"] + ", " + data["date"], fontsize=6)
    fig.tight_layout(rect=(0, 0.03, 1, 1))
    fig.savefig(sys.argv[2], dpi=110)


def plot_gaps(ax, runs, scale=None):
    """Per case, rank 0's GPU time before each pass (µs), from its fastest run, stacked;
    `scale` corrects each pass's figure (runs from before the averaging fix)."""
    colors = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd"]
    # The passes of a ranked step, in the order the GPU runs them: the four of today's step
    # (one exchange), then the five of the step with two exchanges, for older data.
    order = ["dry_map_and_clock", "stage1_internal", "unpack_and_stage1_border",
             "stage2_and_pack", "stage1_border_and_pack", "stage2_unpack_border_and_pack",
             "stage2_internal", "unpack_dry_map_and_clock"]
    for y, (label, _, prefix, _) in enumerate(CASES):
        two = [r for k, r in runs.items() if k.startswith(prefix)]
        best = min(two, key=lambda r: r["ms_per_step"])
        before = best["per_rank_ms_per_step"][0]["gpu_before_passes"]
        names = sorted(before, key=lambda n: order.index(n) if n in order else len(order))
        left = 0.0
        for k, name in enumerate(names):
            us = 1e3 * before[name] * (scale[k] if scale else 1.0)
            ax.barh(y, us, left=left, color=colors[k % len(colors)],
                    label=f"before {name}" if y == 0 else None)
            left += us
        ax.text(left + 3, y, f"{left:.0f} µs", va="center", fontsize=8)
    ax.set_yticks(range(len(CASES)), [c[0].replace("\n", ", ") for c in CASES], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("µs per step the GPU spends between passes (rank 0, timed steps)")
    ax.set_title("Where the GPU waits in a step: before each pass", fontsize=10)
    ax.set_xlim(0, ax.get_xlim()[1] * 1.12)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)


if __name__ == "__main__":
    main()
