# usage: /usr/bin/python3 energy.py CASE.toml [times...]  -> runs the case, prints disturbance energy and max speed
import sys, subprocess, numpy as np, os
from lib import run, field
g=9.81
case=sys.argv[1]; ts=[float(t) for t in sys.argv[2:]] or [0.5,60.0,300.0]
out='out_'+os.path.basename(case)[:-5]
rc,s,dt=run(case,out); print(case,'rc',rc,'mass_error_rel',s['mass_error_rel'])
for t in ts:
    h=field(out,'depth',t);u=field(out,'u',t);v=field(out,'v',t);eta=field(out,'level',t)
    w=h>0; m=np.nanmean(eta[w]); sp=np.hypot(u,v)
    E=np.nansum((0.5*h*(u*u+v*v)+0.5*g*(eta-m)**2)[w])
    k=np.unravel_index(np.nanargmax(np.where(w,sp,-1)),sp.shape)
    print(f't={t}: E={E:.3e} (sum over cells, m^3/s^2 per unit cell area) max speed {sp[k]:.3f} m/s at (i,j)=({k[1]},{k[0]}), depth {h[k]:.3f} m')
