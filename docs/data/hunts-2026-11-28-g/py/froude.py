import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]
ms=grid(d,'max_speed')
for t in times(d):
    h=grid(d,'depth',t); s=grid(d,'speed',t)
    ok=(h>1e-6)&np.isfinite(s)
    Fr=np.where(ok, s/np.sqrt(9.81*np.maximum(h,1e-12)),0)
    k=np.unravel_index(np.argmax(Fr),Fr.shape)
    print(f"t={t}: max Fr {Fr[k]:.3g} at {k} h={h[k]:.3g} s={s[k]:.3g} ms={ms[k]:.3g}; cells Fr>2: {(Fr>2).sum()}, Fr>5: {(Fr>5).sum()}; max s {np.nanmax(np.where(ok,s,0)):.3g}")
