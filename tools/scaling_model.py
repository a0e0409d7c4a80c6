#!/usr/bin/env python3
"""A scalability model for quadflood on P GPUs, in the spirit of source document 002.

Step time on P GPUs for N cells (n = N/P per GPU), with E exchanges per step (2: one per
Runge-Kutta stage, the step until 2026-11-26; 1: today's, whose ghosts run stage 1 on the
receiving rank; the calibration's "exchanges_per_step", default 2):

    T(P) = t_gpu(n) + t_sync + E * t_msg(s) + t_reduce(P)

  t_gpu(n)    GPU time of one step on n cells: n / R + t_launch, with R the per-GPU rate
              (cell updates/s) and t_launch the fixed per-step cost, both from 1-GPU runs.
  t_sync      host waits per step that nothing hides (mapping staging buffers, recording
              the next submissions), from the 2-GPU runs: T(2) - t_gpu(N/2).
  t_msg(s)    one exchange of s bytes, latency plus bandwidth, B(s) = s / (s/B0 + t0) as in
              document 002; the part hidden behind the internal blocks is subtracted.
  t_reduce(P) the global dt minimum: latency * log2(P).
  s           strips "strip_depth" cells deep (2; 4 with one exchange), "bytes_per_cell"
              bytes a cell (16; 12 with one exchange), along the perimeter of a compact
              (Hilbert) piece: about 4 * sqrt(n) cells along.

Usage: tools/scaling_model.py [calibration.json] [--plot out.png]  (defaults: the 2x H200
figures in docs/benchmarks-history.md). With --plot, draws the predicted efficiency for 82 M cells
against the GPU count beside the measured 2- and 4-GPU points and the documents' 85% at 64,
and what the same step would give if its fixed cost (t_sync and the exchanges) were paid
once per window of k steps. Prints the calibration fit, its prediction for the calibration's
4-GPU runs where it has them ("four_gpus", not fitted), and the predicted efficiency for
the documents' 82 M-cell strong-scaling case at 16, 64 and 256 GPUs.
"""
import json
import math
import sys

DEFAULT = {
    "machine": "2x NVIDIA H200 (nvidia-h200-x2), OpenMPI 4.1.6, intra-node",
    # 1 GPU: (cells, ms per step)
    "one_gpu": [[65536, 0.035], [16777216, 2.44], [33554432, 4.48], [67108864, 8.26]],
    # 2 GPUs: (total cells, ms per step)
    "two_gpus": [[16777216, 1.44], [33554432, 2.96], [67108864, 5.22]],
    # Host-to-host MPI, measured on the same node type (4 MiB in 0.76 ms).
    "mpi_bandwidth_bytes_per_s": 5.5e9,
    "mpi_latency_s": 5e-6,
    # Between nodes the documents' Piz Daint figures are slower; used beyond 8 GPUs.
    "internode_bandwidth_bytes_per_s": 10e9,
    "internode_latency_s": 2e-6,
    "reduce_latency_s": 10e-6,
}


def fit_gpu(points):
    """t = n / R + t_launch: R from the slope between the two largest runs (where the GPU
    is saturated), t_launch from the smallest run (where launches dominate)."""
    pts = sorted((n, ms * 1e-3) for n, ms in points)
    (n1, t1), (n2, t2) = pts[-2], pts[-1]
    rate = (n2 - n1) / (t2 - t1)
    n0, t0 = pts[0]
    return rate, max(0.0, t0 - n0 / rate)


def model(cal, window=1):
    """The step time model; `window` > 1 pays the fixed host cost and the exchanges once
    per that many steps (what issue 23's communication-avoiding windows aim at)."""
    rate, launch = fit_gpu(cal["one_gpu"])
    t_gpu = lambda n: n / rate + launch
    syncs = [ms * 1e-3 - t_gpu(n / 2) for n, ms in cal["two_gpus"]]
    t_sync = sum(syncs) / len(syncs)

    def step(total, p):
        n = total / p
        if p == 1:
            return t_gpu(n)
        inter = p > 8
        b0 = cal["internode_bandwidth_bytes_per_s" if inter else "mpi_bandwidth_bytes_per_s"]
        t0 = cal["internode_latency_s" if inter else "mpi_latency_s"]
        exchanges = cal.get("exchanges_per_step", 2)
        s = 4 * math.sqrt(n) * cal.get("strip_depth", 2) * cal.get("bytes_per_cell", 16)
        msg = s / b0 + t0
        # Each exchange overlaps the internal blocks' stage (half the step's GPU time).
        internal = max(0.0, (n - 4 * 16 * math.sqrt(n)) / rate / 2)
        exposed = max(0.0, msg - internal)
        fixed = t_sync + exchanges * exposed + cal["reduce_latency_s"] * math.log2(p)
        return t_gpu(n) + fixed / window

    return rate, launch, t_sync, step


def plot(cal, path, total=82e6):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    gpus = [1, 2, 4, 8, 16, 32, 64, 128, 256]
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for window, style in [(1, "-"), (4, "--"), (8, ":")]:
        step = model(cal, window)[3]
        base = step(total, 1)
        label = "model, this step" if window == 1 else f"model, fixed cost once per {window} steps"
        ax.plot(gpus, [100 * base / step(total, p) / p for p in gpus], style, color="C0", label=label)
    one = dict((n, ms) for n, ms in cal["one_gpu"])
    for k, (key, p) in enumerate([("two_gpus", 2), ("four_gpus", 4)]):
        for n, ms in cal.get(key, []):
            if n in one:
                ax.plot([p], [100 * one[n] / ms / p], "o", color=f"C{k + 1}",
                        label=f"measured, {p} GPUs" if n == cal[key][0][0] else None)
                ax.annotate(f"{n / 1e6:.0f} M", (p, 100 * one[n] / ms / p), fontsize=7,
                            xytext=(4, -3), textcoords="offset points")
    ax.plot([64], [85], "s", color="C3", label="documents: PARFLOOD, 82 M cells, P100s")
    ax.set_xscale("log", base=2)
    ax.set_xticks(gpus, [str(p) for p in gpus])
    ax.set_ylim(0, 105)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("strong-scaling efficiency, %")
    ax.set_title(f"{total / 1e6:.0f} M cells: {cal['machine'][:60]}", fontsize=8)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    args = sys.argv[1:]
    out = None
    if "--plot" in args:
        i = args.index("--plot")
        out = args[i + 1]
        del args[i:i + 2]
    cal = DEFAULT if not args else json.load(open(args[0]))
    if out:
        plot(cal, out)
    rate, launch, t_sync, step = model(cal)
    print(f"calibration: {cal['machine']}")
    print(f"  per-GPU rate {rate:.3e} cell updates/s, fixed per step {launch * 1e6:.0f} us, "
          f"unhidden host waits on >1 GPU {t_sync * 1e3:.3f} ms/step")
    print("  check against the 2-GPU runs:")
    for n, ms in cal["two_gpus"]:
        print(f"    {n / 1e6:6.1f} M cells: measured {ms:.2f} ms, model {step(n, 2) * 1e3:.2f} ms")
    # 4-GPU runs, where the calibration has them, are not fitted: they test the model.
    if "four_gpus" in cal:
        print("  prediction against the 4-GPU runs (not used in the fit):")
        for n, ms in cal["four_gpus"]:
            print(f"    {n / 1e6:6.1f} M cells: measured {ms:.3f} ms, model {step(n, 4) * 1e3:.3f} ms")
    total = 82e6
    print(f"prediction, {total / 1e6:.0f} M cells (the documents' strong-scaling case, Hilbert):")
    base = step(total, 1)
    print(f"  {'GPUs':>5} {'ms/step':>8} {'speed-up':>9} {'efficiency':>10}")
    for p in [1, 2, 4, 8, 16, 64, 256]:
        t = step(total, p)
        print(f"  {p:5d} {t * 1e3:8.3f} {base / t:9.1f} {base / t / p:10.0%}")
    print("  documents (PARFLOOD, HSFC, P100): 85% at 64 GPUs")
    for window in [4, 8]:
        w = model(cal, window)[3]
        eff = {p: w(total, 1) / w(total, p) / p for p in [64, 256]}
        print(f"  with the fixed cost paid once per {window} steps: "
              f"{eff[64]:.0%} at 64, {eff[256]:.0%} at 256")


if __name__ == "__main__":
    main()
