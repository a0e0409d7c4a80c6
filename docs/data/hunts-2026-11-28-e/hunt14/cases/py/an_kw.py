import sys, numpy as np
sys.path.insert(0,'/tmp/hunt14/py')
from kwlib import *
out, L, S, n, imm, tr, W = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), float(sys.argv[7])
i = imm/1000/3600
_, xs = readcsv(out+'/section_out.csv')
t = xs[:,0]; Qx = xs[:,1]
qa, tc = kw_q(t, L, S, n, i, tr)
Qa = qa*W
_, mb = readcsv(out+'/mass_balance.csv')
tm = mb[:,0]; Qm = np.diff(mb[:,2])/np.diff(tm); tmm = 0.5*(tm[1:]+tm[:-1])
# analytic mean over interval
tf = np.linspace(0, tm[-1], 200001); qf,_ = kw_q(tf[::50], L,S,n,i,tr)
qfi = np.interp(tf, tf[::50], qf)*W
cum = np.concatenate([[0], np.cumsum(0.5*(qfi[1:]+qfi[:-1])*np.diff(tf))])
cumA = np.interp(tm, tf, cum)
Qma = np.diff(cumA)/np.diff(tm)
print(f"tc = {tc:.1f} s, equilibrium Q = {i*L*W:.6g} m3/s")
print("   t     Q_xs      Q_kin    err%   |  tmid   Q_mb     Q_kin(mean)  err%")
for k in range(0, len(t), max(1,len(t)//40)):
    j = np.argmin(abs(tmm-t[k]))
    e1 = (Qx[k]/Qa[k]-1)*100 if Qa[k]>0 else float('nan')
    e2 = (Qm[j]/Qma[j]-1)*100 if Qma[j]>0 else float('nan')
    print(f"{t[k]:7.0f} {Qx[k]:.5g} {Qa[k]:.5g} {e1:7.2f} | {tmm[j]:7.0f} {Qm[j]:.5g} {Qma[j]:.5g} {e2:7.2f}")
print("cum outflow end: model %.5g analytic %.5g  (%.3f%%)"%(mb[-1,2], cumA[-1], (mb[-1,2]/cumA[-1]-1)*100))
