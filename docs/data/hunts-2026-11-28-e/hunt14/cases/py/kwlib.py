import numpy as np, csv
def kw_q(t, L, S, n, i, tr):
    """outlet discharge per unit width, kinematic wave, rain i (m/s) from 0 to tr (assume tr>=tc or handle)"""
    a = np.sqrt(S)/n; m = 5/3
    tc = (L/(a*i**(m-1)))**(1/m)
    t = np.asarray(t, float); out = np.zeros_like(t)
    for k, tt in enumerate(t):
        if tt <= min(tc, tr):
            out[k] = a*(i*tt)**m
        elif tt <= tr:
            out[k] = i*L
        else:
            if tr >= tc:
                # solve L = a h^m / i + a m h^(m-1) (t-tr) for h
                lo, hi = 0.0, (i*L/a)**(1/m)
                for _ in range(200):
                    h = 0.5*(lo+hi)
                    f = a*h**m/i + a*m*h**(m-1)*(tt-tr) - L
                    if f > 0: hi = h
                    else: lo = h
                out[k] = a*h**m
            else:
                # partial equilibrium: plateau at h=i*tr until the end of plateau then recession
                hp = i*tr
                # characteristic from upstream x0=0 starting at 0 with h growing: reaches outlet position at time when x = ... 
                # plateau lasts while the characteristic from x0 with h(tr)=i tr (from the uniform region) hasn't arrived
                # position at tr of characteristic from x=0: x = a*(i tr)^m / i
                # after tr it moves at a m hp^(m-1)
                xtr = a*hp**m/i
                tend = tr + (L - xtr)/(a*m*hp**(m-1))
                if tt <= tend: out[k] = a*hp**m
                else:
                    # falling: characteristics from rain-period nonuniform region x0 < xtr at tr with h(x0): a h^m = i x0
                    lo, hi = 0.0, hp
                    for _ in range(200):
                        h = 0.5*(lo+hi)
                        f = a*h**m/i + a*m*h**(m-1)*(tt-tr) - L
                        if f > 0: hi = h
                        else: lo = h
                    out[k] = a*h**m
    return out, tc
def readcsv(p):
    rows = [r for r in csv.reader(l for l in open(p) if not l.startswith('#'))]
    hdr = rows[0]; d = np.array([[float(x) for x in r] for r in rows[1:]])
    return hdr, d
def readasc(p):
    with open(p) as f:
        hdr = {}
        for _ in range(6):
            pos = f.tell(); l = f.readline().split()
            if l[0].lower() in ('ncols','nrows','xllcorner','yllcorner','cellsize','nodata_value','xllcenter','yllcenter'):
                hdr[l[0].lower()] = float(l[1])
            else:
                f.seek(pos); break
        a = np.loadtxt(f)
    return hdr, a[::-1]  # row 0 = south
