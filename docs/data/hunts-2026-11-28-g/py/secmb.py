import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; T=[float(a) for a in sys.argv[2:]]
h,mb=csvr(d+'/mass_balance.csv'); tm=mb[:,0]; out=mb[:,h.index('outflow_m3')]
secs=sorted(glob.glob(d+'/section_*.csv'))
for t in T:
    k=np.argmin(abs(tm-t)); rate=(out[k]-out[k-1])/(tm[k]-tm[k-1])
    s=f"t={t}: mb outflow rate [{tm[k-1]},{tm[k]}] = {rate:.6g};"
    for p in secs:
        _,a=csvr(p); j=np.argmin(abs(a[:,0]-t)); s+=f" {os.path.basename(p)[8:-4]}={a[j,1]:.6g}"
    print(s)
