import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; t=float(sys.argv[2]); i=float(sys.argv[3])/3.6e6
lev=grid(d+'/check','block_level')
h=grid(d,'depth',t); u=grid(d,'u',t); v=grid(d,'v',t)
q=h*u; j=5
print('levels along row', j, ''.join(str(int(a)) for a in lev[j]))
for k in range(h.shape[1]):
    L=int(lev[j,k]); s=2**L; xc=(k//s)*s+s/2
    r=q[j,k]/(i*xc)
    if abs(r-1)>2e-3: print(k,L,f"xc={xc} h={h[j,k]:.5g} q={q[j,k]:.5g} ratio={r:.4f} v={v[j,k]:.3g}")
print('max |v|', np.nanmax(abs(v)))
for p in sorted(glob.glob(d+'/section_*.csv')):
    _,a=csvr(p); x=float(p.split('section_x')[1][:-4])
    kk=np.argmin(abs(a[:,0]-t))
    print(os.path.basename(p), f"{a[kk,1]:.6g}", 'Q/(i*32)= x_eff %.3f'%(a[kk,1]/(i*32)))
