#!/usr/bin/env python3
"""Soil classes for a loss model, derived from a DEM alone, for a study with no soil map.

    tools/derive_soil_classes.py DEM.tif OUT.tif [--channel-km2 0.5] [--hand 3] [--steep 0.6]

Three classes, each the terrain position that a soil survey's texture usually follows:
  1  valley floor: cells less than `--hand` metres above the channel they drain to (height
     above nearest drainage) and flatter than 10% (alluvial meadow, fine and wet soils);
  2  hillslope: everything else (forest soils);
  3  steep: slopes over `--steep` (rise over run; thin soil and rock).
A channel is a cell that at least `--channel-km2` drains through (priority flood, D8).

These are a stand-in, not a survey: a real study takes its classes from a soil or land-use
map (SSURGO, NLCD, CORINE) and gives the same `[losses] landuse` key that map instead.
Needs only Python and GDAL's command-line tools (gdal_translate).
"""

import argparse
import heapq
import math
import os
import subprocess
import sys
import tempfile

VALLEY, HILLSLOPE, STEEP = 1, 2, 3
NEIGHBOURS = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]


def read_ascii_grid(path):
    header, rows = {}, []
    with open(path) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            if parts[0][0].isalpha():
                header[parts[0].lower()] = parts[1]
            else:
                rows.append([float(v) for v in parts])
    return header, rows


def drainage(z, nx, ny):
    """Each cell's downstream neighbour (or None at an edge) and the pop order of a priority
    flood from the edges: every cell comes after the cell it drains to."""
    receiver = [None] * (nx * ny)
    seen = [False] * (nx * ny)
    heap = []
    for j in range(ny):
        for i in range(nx):
            if i in (0, nx - 1) or j in (0, ny - 1):
                c = j * nx + i
                seen[c] = True
                heapq.heappush(heap, (z[c], c))
    order = []
    while heap:
        level, c = heapq.heappop(heap)
        order.append(c)
        j, i = divmod(c, nx)
        for dj, di in NEIGHBOURS:
            jj, ii = j + dj, i + di
            if 0 <= jj < ny and 0 <= ii < nx:
                n = jj * nx + ii
                if not seen[n]:
                    seen[n] = True
                    receiver[n] = c
                    heapq.heappush(heap, (max(z[n], level), n))
    return receiver, order


def slope(z, nx, ny, dx):
    s = [0.0] * (nx * ny)
    for j in range(ny):
        for i in range(nx):
            c = j * nx + i
            e, w = z[j * nx + min(i + 1, nx - 1)], z[j * nx + max(i - 1, 0)]
            n, so = z[max(j - 1, 0) * nx + i], z[min(j + 1, ny - 1) * nx + i]
            sx = (e - w) / (dx * (min(i + 1, nx - 1) - max(i - 1, 0)))
            sy = (n - so) / (dx * (min(j + 1, ny - 1) - max(j - 1, 0)))
            s[c] = math.hypot(sx, sy)
    return s


def classes(z, nx, ny, dx, channel_km2, hand_m, steep):
    receiver, order = drainage(z, nx, ny)
    area = [dx * dx] * (nx * ny)
    for c in reversed(order):
        if receiver[c] is not None:
            area[receiver[c]] += area[c]
    base = [0.0] * (nx * ny)
    for c in order:
        r = receiver[c]
        base[c] = z[c] if r is None or area[c] >= channel_km2 * 1e6 else base[r]
    s = slope(z, nx, ny, dx)
    out = []
    for c in range(nx * ny):
        if s[c] > steep:
            out.append(STEEP)
        elif z[c] - base[c] < hand_m and s[c] < 0.1:
            out.append(VALLEY)
        else:
            out.append(HILLSLOPE)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("dem")
    p.add_argument("out")
    p.add_argument("--channel-km2", type=float, default=0.5)
    p.add_argument("--hand", type=float, default=3.0)
    p.add_argument("--steep", type=float, default=0.6)
    a = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asc = os.path.join(tmp, "dem.asc")
        subprocess.run(["gdal_translate", "-q", "-of", "AAIGrid", a.dem, asc], check=True)
        header, rows = read_ascii_grid(asc)
        nx, ny = int(header["ncols"]), int(header["nrows"])
        dx = float(header["cellsize"])
        z = [v for row in rows for v in row]
        if "nodata_value" in header and float(header["nodata_value"]) in z:
            sys.exit("derive_soil_classes: DEMs with nodata cells are not handled")
        cls = classes(z, nx, ny, dx, a.channel_km2, a.hand, a.steep)
        out_asc = os.path.join(tmp, "classes.asc")
        with open(out_asc, "w") as f:
            for key in ("ncols", "nrows", "xllcorner", "yllcorner", "cellsize"):
                f.write(f"{key} {header[key]}\n")
            for j in range(ny):
                f.write(" ".join(str(v) for v in cls[j * nx:(j + 1) * nx]) + "\n")
        if os.path.exists(os.path.join(tmp, "dem.prj")):
            os.replace(os.path.join(tmp, "dem.prj"), os.path.join(tmp, "classes.prj"))
        tmp_out = a.out + ".partial.tif"
        subprocess.run(["gdal_translate", "-q", "-ot", "Byte",
                        "-co", "COMPRESS=DEFLATE", "-co", "PREDICTOR=2",
                        out_asc, tmp_out], check=True)
        os.replace(tmp_out, a.out)
    counts = {k: cls.count(k) for k in (VALLEY, HILLSLOPE, STEEP)}
    total = nx * ny
    print(f"{a.out}: valley floor {counts[VALLEY] / total:.1%}, hillslope "
          f"{counts[HILLSLOPE] / total:.1%}, steep {counts[STEEP] / total:.1%}")


if __name__ == "__main__":
    main()
