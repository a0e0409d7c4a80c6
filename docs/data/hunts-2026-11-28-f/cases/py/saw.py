import sys; sys.path.insert(0,'/tmp/hunt15/py'); from an import rd
# count local extrema of h and u at a gauge in [t0,t1]
f,t0,t1=sys.argv[1],float(sys.argv[2]),float(sys.argv[3])
h,G=rd(f); R=[r for r in G if t0<=r[0]<=t1]
for col,nm in [(1,'h'),(2,'u'),(3,'v')]:
    x=[r[col] for r in R]; ext=0; amp=0
    for i in range(1,len(x)-1):
        if (x[i]-x[i-1])*(x[i+1]-x[i])<0: ext+=1; amp=max(amp,abs(x[i]-x[i-1]))
    print(f'{f} {nm}: n={len(x)} local extrema={ext} max jump={amp:.3g} range=[{min(x):.5g},{max(x):.5g}]')
