import sys, numpy as np
sys.path.insert(0,'/tmp/hunt11')
from lib import run, field
case=sys.argv[1]; out='/tmp/hunt11/runs/'+case.split('/')[-1][:-5]
rc,s,dt=run(case,out); print(case,'rc',rc,'mass_err %.2e'%s['mass_error_rel'])
g=9.81
for t in [100.,200.,300.,400.,500.,600.,700.,800.,1000.,1200.]:
    h=field(out,'depth',t);u=field(out,'u',t);v=field(out,'v',t);eta=field(out,'level',t)
    # checkerboard amplitude in first 3 columns: eta minus 3-pt y average
    e=eta[:,:3]; cbw=np.max(np.abs(e[1:-1]-(e[2:]+e[:-2])/2))
    um=u[1:-1].mean(0)  # interior row mean
    wall=np.max(np.abs(u[[0,-1]]-um[None,:]))
    E=np.sum(0.5*h*(u*u+v*v)+0.5*g*(eta-eta.mean())**2)
    print(f't={t:6.0f} edge-cb {cbw:.2e} wall-row |u-u_interior| max {wall:.2e} u_interior@edge {um[0]:+.2e} E {E:.2e} maxspd {np.hypot(u,v).max():.2e}')
