#!/usr/bin/env python3
"""Draws docs/benchmarks-<name>.png from a measured-figures file in docs/data/ (time per
step against cells, cost against wet fraction, GPU time per kernel), so the plots in
docs/benchmarks-history.md are remade from the numbers in its tables. Needs matplotlib.

    tools/plot_benchmarks.py docs/data/h100-2026-11-24.json docs/benchmarks-h100.png
"""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def size_panel(ax, d):
    cells = [n * n for n in d["n"]]
    us = [1e6 * c / r for c, r in zip(cells, d["cell_updates_per_s"])]
    ax.loglog(cells, us, "o-", label="measured")
    # Linear in cells from the largest grid: what a bandwidth-bound step would do.
    k = us[-1] / cells[-1]
    ax.loglog(cells, [k * c for c in cells], "--", color="grey", label="linear in cells")
    ax.set_xlabel("cells")
    ax.set_ylabel("time per step (µs)")
    ax.set_title("fully wet dam break")
    ax.legend()


def wet_series(ax, d, water):
    f = [100 * x for x in d["wet_fraction"]]
    full = d["ms_per_step"][-1]
    line = ax.plot(f, [100 * m / full for m in d["ms_per_step"]], "o-", label=f"{water}: wall clock")
    ax.plot(f, [100 * b for b in d["blocks_launched"]], "s--", color=line[0].get_color(),
            alpha=0.6, label=f"{water}: blocks launched")


def wet_panel(ax, d, confined=None):
    wet_series(ax, d, "spreading")
    if confined:
        wet_series(ax, confined, "confined")
    ax.axhline(20, color="red", lw=0.8, ls=":", label="target at 10% wet")
    ax.set_xlabel("wet at the start (% of domain)")
    ax.set_ylabel("% of the all-wet step")
    ax.set_title("4096², dry blocks skipped")
    ax.legend(fontsize=8)


def kernel_panel(ax, d):
    labels = [f"{n}²" for n in d["n"]]
    bottom = [0.0] * len(labels)
    # The kernels of a step, whichever the file's build had (scan and finalize were two
    # kernels until 2026-11-25).
    keys = [k for k in d if k.endswith("_us") and k != "host_us"]
    total = [sum(d[k][i] for k in keys) for i in range(len(labels))]
    for key in keys:
        share = [100 * v / t for v, t in zip(d[key], total)]
        ax.bar(labels, share, bottom=bottom, label=key.removesuffix("_us"))
        bottom = [b + s for b, s in zip(bottom, share)]
    ax.set_ylabel("% of GPU time per step")
    ax.set_title("GPU time per kernel")
    ax.legend(fontsize=8)


def main():
    data = json.load(open(sys.argv[1]))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.5))
    size_panel(axes[0], data["size_sweep"])
    wet_panel(axes[1], data["wet_sweep"], data.get("wet_sweep_confined"))
    kernel_panel(axes[2], data["kernels"])
    fig.suptitle(f"{data['machine']}, {data['date']}", fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=90)


if __name__ == "__main__":
    main()
