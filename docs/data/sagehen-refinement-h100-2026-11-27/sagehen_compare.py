"""Compare Sagehen runs on multi-level grids with the uniform finest run of the same cell
size: max depth at the gauges and over the wetted area, peak outlet discharge, cell updates."""
import csv, json, sys, os, math
root = sys.argv[1]

def grid(path):
    with open(path) as f:
        head = {}
        for _ in range(6):
            k, v = f.readline().split()
            head[k.lower()] = float(v)
        vals = [float(x) for line in f for x in line.split()]
    return head, vals

def gauge_peaks(d):
    out = {}
    for name in sorted(os.listdir(d)):
        if name.startswith("gauge_"):
            with open(os.path.join(d, name)) as f:
                rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
            out[name[6:-4]] = max(float(r["h_m"]) for r in rows)
    return out

def outlet_peak(d):
    path = os.path.join(d, "section_outlet.csv")
    with open(path) as f:
        rows = list(csv.DictReader(l for l in f if not l.startswith("#")))
    return max(abs(float(r["discharge_m3s"])) for r in rows)

def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")

pairs = [("relief4", "uniform"), ("ch1e6", "uniform"), ("ch3e5", "uniform"), ("ch1e5", "uniform"),
         ("ch1e6-5", "uniform5"), ("ch3e5-5", "uniform5")]
report = {}
for var, ref in pairs:
    a, b = os.path.join(root, var), os.path.join(root, ref)
    if not (os.path.isdir(a) and os.path.isdir(b)):
        continue
    sa, sb = (json.load(open(os.path.join(x, "summary.json"))) for x in (a, b))
    _, da = grid(os.path.join(a, "max_depth.asc"))
    _, db = grid(os.path.join(b, "max_depth.asc"))
    wet = [k for k in range(len(da)) if da[k] >= 0.05 or db[k] >= 0.05]
    diff = [abs(da[k] - db[k]) for k in wet if da[k] > -9000 and db[k] > -9000]
    only = sum(1 for k in wet if (da[k] >= 0.05) != (db[k] >= 0.05))
    ga, gb = gauge_peaks(a), gauge_peaks(b)
    r = {
        "cell_updates_ratio": sb["cell_updates"] / sa["cell_updates"],
        "blocks": [sa["blocks"], sb["blocks"]],
        "blocks_per_level": sa["blocks_per_level"],
        "steps": [sa["steps"], sb["steps"]],
        "wall_s": [round(sa["wall_s"], 2), round(sb["wall_s"], 2)],
        "mass_error": [sa["mass_error_rel"], sb["mass_error_rel"]],
        "wetted_cells": len(wet),
        "wet_in_one_only": only,
        "mean_abs_dmax_m": sum(diff) / len(diff),
        "p95_abs_dmax_m": pct(diff, 0.95),
        "p99_abs_dmax_m": pct(diff, 0.99),
        "max_abs_dmax_m": max(diff),
        "within_5cm": sum(1 for x in diff if x <= 0.05) / len(diff),
        "gauge_peak_depth_m": {g: [round(ga[g], 4), round(gb[g], 4)] for g in ga},
        "gauge_max_abs_diff_m": max(abs(ga[g] - gb[g]) for g in ga),
        "outlet_peak_q_m3s": [outlet_peak(a), outlet_peak(b)],
    }
    report[f"{var} vs {ref}"] = r
    print(f"{var} vs {ref}: {r['cell_updates_ratio']:.2f}x fewer cell updates; gauges max |d| "
          f"{r['gauge_max_abs_diff_m']*100:.1f} cm; wetted {len(wet)} cells: mean {r['mean_abs_dmax_m']*100:.2f} cm, "
          f"p95 {r['p95_abs_dmax_m']*100:.1f} cm, p99 {r['p99_abs_dmax_m']*100:.1f} cm, max {r['max_abs_dmax_m']*100:.0f} cm, "
          f"{r['within_5cm']*100:.1f}% within 5 cm, {only} wet in one only; outlet peak Q {r['outlet_peak_q_m3s'][0]:.2f} vs {r['outlet_peak_q_m3s'][1]:.2f}")
json.dump(report, open(sys.argv[2], "w"), indent=1)
