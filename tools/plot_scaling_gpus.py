#!/usr/bin/env python3
"""Plots scaling over 1, 2 and 4 GPUs from one call's runs (docs/data/scaling-4xh200-*.json):
the efficiency of each case at each GPU count, and the time per step split into the GPU's
busy time (pass timestamps of the slowest rank) and the rest, when it idles.

Usage: tools/plot_scaling_gpus.py docs/data/scaling-4xh200-2026-11-26.json OUT.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# (label, 1-GPU run, run name prefix per GPU count, weak scaling)
CASES = [
    ("weak, 16.8 M / GPU", "g1_16", {2: "g2_33", 4: "g4_weak_"}, True),
    ("strong, 16.8 M", "g1_16", {2: "g2_16", 4: "g4_16_"}, False),
    ("strong, 33.6 M", "g1_33", {2: "g2_33", 4: "g4_33_"}, False),
    ("strong, 67.1 M", "g1_67", {2: "g2_67", 4: "g4_67_"}, False),
    ("strong, 3 levels, 33.3 M", "g1_m", {2: "g2_m", 4: "g4_m_"}, False),
]


def runs_of(runs, prefix):
    return [r for k, r in runs.items() if k == prefix or (prefix.endswith("_") and k.startswith(prefix))]


def main():
    runs = json.load(open(sys.argv[1]))["runs"]
    fig, (eff, split) = plt.subplots(1, 2, figsize=(14, 4.8))
    for label, one, many, weak in CASES:
        t1 = runs[one]["ms_per_step"]
        xs, ys = [1], [1.0]
        for p, prefix in many.items():
            best = min(r["ms_per_step"] for r in runs_of(runs, prefix))
            xs.append(p)
            ys.append(t1 / best if weak else t1 / (p * best))
        eff.plot(xs, [100 * y for y in ys], marker="o", label=label)
    eff.axhline(95, color="grey", ls=":", lw=1)
    eff.axhline(85, color="grey", ls="--", lw=1)
    eff.text(4.05, 95, "weak target", va="center", fontsize=8)
    eff.text(4.05, 85, "strong target", va="center", fontsize=8)
    eff.set_xticks([1, 2, 4])
    eff.set_xlabel("GPUs (NVIDIA H200)")
    eff.set_ylabel("efficiency (%)")
    eff.set_ylim(50, 102)
    eff.legend(fontsize=8)
    eff.set_title("Scaling efficiency (best run of each)")

    labels, busy, idle = [], [], []
    for label, one, many, weak in CASES:
        for p in [1, 2, 4]:
            if p == 1:
                r = runs[one]
                b = r["ms_per_step"]
            else:
                r = min(runs_of(runs, many[p]), key=lambda r: r["ms_per_step"])
                b = max(q["gpu_busy"] for q in r["per_rank_ms_per_step"])
            labels.append(f"{label.split(',')[0]} {label.split(',', 1)[1].strip()}\n{p} GPU")
            busy.append(b)
            idle.append(max(0.0, r["ms_per_step"] - b))
    x = range(len(labels))
    split.bar(x, busy, label="GPU busy (slowest rank)")
    split.bar(x, idle, bottom=busy, label="rest of the step (GPU idle)")
    split.set_xticks(list(x))
    split.set_xticklabels(labels, rotation=90, fontsize=6)
    split.set_ylabel("ms per step")
    split.legend(fontsize=8)
    split.set_title("Time per step: GPU work and what is left")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
