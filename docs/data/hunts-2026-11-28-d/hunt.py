# driver: python3 hunt.py case.toml [t...]  -> runs, prints E table with mode location
import sys, os, json, numpy as np
sys.path.insert(0,'/tmp/hunt11')
from lib import run, field
g=9.81
def analyse(out, ts, quiet=False, level0=None):
    rows=[]
    for t in ts:
        h=field(out,'depth',t);u=field(out,'u',t);v=field(out,'v',t);eta=field(out,'level',t)
        w=h>0
        m=np.nanmean(eta[w]) if level0 is None else level0
        sp=np.hypot(u,v); sp[~w]=0
        d=np.where(w,eta-m,0)
        Ek=np.nansum((0.5*h*(u*u+v*v))[w]); Ep=np.nansum((0.5*g*d**2)[w])
        k=np.unravel_index(np.nanargmax(sp),sp.shape)
        k2=np.unravel_index(np.nanargmax(np.abs(d)),d.shape)
        # checkerboard component of eta
        jj,ii=np.indices(d.shape); cb=np.nansum(np.where(w,d*(-1.0)**(ii+jj),0))/max(w.sum(),1)
        rows.append((t,Ek+Ep,Ek,Ep,sp[k],k[1],k[0],d[k2],k2[1],k2[0],cb))
        if not quiet:
            print(f"t={t:7.1f} E={Ek+Ep:.3e} (Ek {Ek:.2e} Ep {Ep:.2e}) maxspd {sp[k]:.2e} @({k[1]},{k[0]}) maxdeta {d[k2]:+.2e} @({k2[1]},{k2[0]}) cb {cb:+.1e}")
    return rows
if __name__=='__main__':
    case=sys.argv[1]; ts=[float(t) for t in sys.argv[2:]] or [1,60,150,300,600]
    out='/tmp/hunt11/runs/'+os.path.basename(case)[:-5]
    rc,s,dt=run(case,out)
    print(f"== {os.path.basename(case)} rc {rc} mass_err {s and s['mass_error_rel']:.2e} in {s and s['mass_inflow_m3']:.3e} out {s and s['mass_outflow_m3']:.3e} steps {s and s['steps']} wall {dt:.1f}s")
    if rc==0: analyse(out,ts)
