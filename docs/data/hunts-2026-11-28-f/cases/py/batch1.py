import sys; sys.path.insert(0,'/tmp/hunt15/py')
from gen import *
opp={'east':'west','west':'east','north':'south','south':'north'}
RAIN='[rain]\nrate = { time = [0.0, 1200.0, 1200.001], value = [100.0, 100.0, 0.0] }\n'
def T(end, gi): return f'[time]\nend = {end}\noutput_interval = 60.0\ngauge_interval = {gi}\n'
for e in ['east','west','north','south']:
    nx,ny=orient(e)
    dom=f'[domain]\ncell_size = 2.0\nnx = {nx}\nny = {ny}\n'
    # steep plane, steep nd
    write(f'sn_{e}', dom+slope_terrain(e,0.05)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = 0.05\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
    # flat channel, inflow opposite, steep nd outlet
    write(f'fc_{e}', dom+'[terrain]\ntype = "flat"\nelevation = 5.0\n[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{opp[e]}"\ntype = "inflow"\ndischarge = 0.5\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = 0.5\n'+gauges(e,[0,1,2,5,50,99])+sections(e,[0,1,2,5,50])+T(1500.0,5.0)+OUT)
    # dam break onto steep nd
    if e=='east': reg='[[initial.region]]\nshape = "rectangle"\nmin = [0.0, 0.0]\nmax = [100.0, 32.0]\ndepth = 1.0\n'
    if e=='west': reg='[[initial.region]]\nshape = "rectangle"\nmin = [100.0, 0.0]\nmax = [200.0, 32.0]\ndepth = 1.0\n'
    if e=='north': reg='[[initial.region]]\nshape = "rectangle"\nmin = [0.0, 0.0]\nmax = [32.0, 100.0]\ndepth = 1.0\n'
    if e=='south': reg='[[initial.region]]\nshape = "rectangle"\nmin = [0.0, 100.0]\nmax = [32.0, 200.0]\ndepth = 1.0\n'
    write(f'db_{e}', dom+'[terrain]\ntype = "flat"\nelevation = 5.0\n'+reg+'[friction]\nmanning = 0.01\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = 0.5\n'+gauges(e,[0,1,2])+sections(e,[0,1])+T(400.0,0.5)+OUT)
e='east'; nx,ny=orient(e); dom=f'[domain]\ncell_size = 2.0\nnx = {nx}\nny = {ny}\n'
write('mild_east', dom+slope_terrain(e,0.05)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = 0.001\n'+RAIN+gauges(e,[0,1,2,5,10,20])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
for S in [0.016,0.02,0.012]:
    write(f'fr1_{S}', dom+slope_terrain(e,S)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = {S}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,1.0)+OUT)
# mild plane + rating huge, + nd slope 10
zedge = 10.0-0.001*199
write('mildr_east', dom+slope_terrain(e,0.001)+'[friction]\nmanning = 0.05\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "rating"\nrating = {{ level = [{zedge-0.002}, {zedge+0.01}], discharge = [0.0, 1000.0] }}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,2.0)+OUT)
write('mildn_east', dom+slope_terrain(e,0.001)+'[friction]\nmanning = 0.05\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "{e}"\ntype = "normal_depth"\nslope = 10.0\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,2.0)+OUT)
