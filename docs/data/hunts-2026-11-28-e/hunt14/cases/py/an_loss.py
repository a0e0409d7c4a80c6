import sys, numpy as np
sys.path.insert(0,'/tmp/hunt14/py')
from kwlib import *
def ga_F(t, K, psd, i):
    """Mein-Larson + Green-Ampt, constant rain i (all in m, s)."""
    if i <= K: return i*t
    Fp = K*psd/(i-K); tp = Fp/i
    if t <= tp: return i*t
    lo, hi = Fp, Fp + i*(t-tp) + 1
    for _ in range(200):
        F = 0.5*(lo+hi)
        g = F - Fp - psd*np.log((psd+F)/(psd+Fp)) - K*(t-tp)
        if g > 0: hi = F
        else: lo = F
    return F
mode = sys.argv[1]; out = sys.argv[2]
_, mb = readcsv(out+'/mass_balance.csv')
area = 64*64
if mode == 'ga':
    K = 10/3.6e6; psd = 0.110*0.35; i = 40/3.6e6
    Fp = K*psd/(i-K); print("Fp mm", Fp*1e3, "tp s", Fp/i)
    for r in mb:
        t = r[0]; Fm = r[4]/area; Fa = ga_F(t, K, psd, i)
        print(f"{t:7.0f} F_model {Fm*1e3:9.4f} mm  F_exact {Fa*1e3:9.4f}  diff {1e3*(Fm-Fa):+.4f} mm ({(Fm/Fa-1)*100 if Fa>0 else 0:+.3f}%)  storage {r[5]:.4f}")
elif mode == 'ic':
    IL, CL, i, tr = [float(x) for x in sys.argv[3:7]]
    IL/=1e3; CL/=3.6e6; i/=3.6e6
    # flat closed box: exact
    ts = np.linspace(0, mb[-1,0], 200001); dt = ts[1]-ts[0]
    F = 0.0; pond = 0.0; Fs=[0.0]
    for t in ts[1:]:
        r = i*dt if t <= tr else 0.0
        cap = max(IL - F, 0)
        take = min(r + pond, cap)
        F += take; rem = r + pond - take
        if F >= IL - 1e-15 and rem > 0:
            c2 = min(rem, CL*dt); F += c2; rem -= c2
        pond = rem; Fs.append(F)
    Fs = np.array(Fs)
    for rw in mb:
        t = rw[0]; Fm = rw[4]/area; Fa = np.interp(t, ts, Fs)
        print(f"{t:7.0f} F_model {Fm*1e3:9.4f} mm  F_exact {Fa*1e3:9.4f}  diff {1e3*(Fm-Fa):+.4f} mm  storage {rw[5]:.4f}")
