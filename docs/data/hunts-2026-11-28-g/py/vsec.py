import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; dx=float(sys.argv[2]); t=float(sys.argv[3])
i=10.8/3.6e6
for p in sorted(glob.glob(d+'/section_row_y*.csv'), key=lambda p:int(p.split('_y')[1][:-4])):
    y=int(p.split('_y')[1][:-4])
    # cell containing y (line on a boundary takes the cell above)
    yc=(np.floor(y/dx)+0.5)*dx
    _,a=csvr(p); k=np.argmin(abs(a[:,0]-t))
    e=i*1620*(1000-yc)
    print(f"y={y:4d} yc={yc:6.1f} Q={a[k,1]:.6g} expected {e:.6g} err {100*(a[k,1]/e-1):+.3f}%")
h,mb=csvr(d+'/mass_balance.csv'); print(mb[-2:, :6])
