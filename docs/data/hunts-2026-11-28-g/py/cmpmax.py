import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; dry=float(sys.argv[2]) if len(sys.argv)>2 else 1e-8
ms=grid(d,'max_speed')
worst=[]
for t in times(d):
    h=grid(d,'depth',t); s=grid(d,'speed',t); u=grid(d,'u',t); v=grid(d,'v',t)
    ok=np.isfinite(s)&(h>dry)&(s>1e-4)
    r=np.where(ok, s/np.maximum(ms,1e-30), 0)
    r[~ok]=0
    k=np.unravel_index(np.nanargmax(r),r.shape)
    q=np.hypot(u,v)*h
    print(f"t={t:7.1f} max speed {np.nanmax(np.where(ok,s,0)):.4g}  worst speed/max_speed {r[k]:.4g} at (j,i)={k} h={h[k]:.3g} s={s[k]:.4g} ms={ms[k]:.4g}  cells with ratio>1.01: {(r>1.01).sum()}")
