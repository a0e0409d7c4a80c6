import sys; sys.path.insert(0,'/tmp/hunt16/py')
from qf import *
d=sys.argv[1]; t=float(sys.argv[2]); row=int(sys.argv[3]); i=float(sys.argv[4])/3.6e6; dx=float(sys.argv[5]); n=int(sys.argv[6]) if len(sys.argv)>6 else 8
h=grid(d,'depth',t); u=grid(d,'u',t); v=grid(d,'v',t)
q=h*u
x=(np.arange(h.shape[1])+0.5)*dx
print("last cells: i, h, u, q, q/(i x)")
for k in range(h.shape[1]-n, h.shape[1]):
    print(k, f"{h[row,k]:.5g} {u[row,k]:.5g} {q[row,k]:.5g} {q[row,k]/(i*x[k]):.4f}")
