import sys; sys.path.insert(0,'/tmp/hunt15/py')
from gen import *
RAIN='[rain]\nrate = { time = [0.0, 1200.0, 1200.001], value = [100.0, 100.0, 0.0] }\n'
def T(end, gi): return f'[time]\nend = {end}\noutput_interval = 60.0\ngauge_interval = {gi}\n'
def linepts(e, L=200.0, W=32.0):
    if e=='east': return [[199.0,1.0],[199.0,31.0]]
    if e=='west': return [[1.0,1.0],[1.0,31.0]]
    if e=='north': return [[1.0,199.0],[31.0,199.0]]
    if e=='south': return [[1.0,1.0],[31.0,1.0]]
for e in ['east','west','north','south']:
    nx,ny=orient(e); dom=f'[domain]\ncell_size = 2.0\nnx = {nx}\nny = {ny}\n'
    write(f'snl_{e}', dom+slope_terrain(e,0.05)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "normal_depth"\nslope = 0.05\nline = {linepts(e)}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
    write(f'sol_{e}', dom+slope_terrain(e,0.05)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "open"\nline = {linepts(e)}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
e='east'; nx,ny=orient(e); dom=f'[domain]\ncell_size = 2.0\nnx = {nx}\nny = {ny}\n'
write('mildl_east', dom+slope_terrain(e,0.05)+'[friction]\nmanning = 0.02\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "normal_depth"\nslope = 0.001\nline = {linepts(e)}\n'+RAIN+gauges(e,[0,1,2,5,10])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
zl=10.0-0.001*199
write('mildrl_east', dom+slope_terrain(e,0.001)+'[friction]\nmanning = 0.05\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "rating"\nline = {linepts(e)}\nrating = {{ level = [{zl-0.002}, {zl+0.01}], discharge = [0.0, 1000.0] }}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,2.0)+OUT)
# subcritical plane (kw1-like S=0.02 n=0.05) open line and nd line
for ty,extra in [('open',''),('normal_depth','slope = 0.02\n')]:
    write(f'sub_{ty}', dom+slope_terrain(e,0.02)+'[friction]\nmanning = 0.05\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "{ty}"\n{extra}line = {linepts(e)}\n'+RAIN+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(1500.0,5.0)+OUT)
# thin film: S=0.1 n=0.01 rain 2 mm/h, nd line & nd edge & open line
RT='[rain]\nrate = { time = [0.0, 3000.0, 3000.001], value = [2.0, 2.0, 0.0] }\n'
write('thin_ndl', dom+slope_terrain(e,0.1,top=30.0)+'[friction]\nmanning = 0.01\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "normal_depth"\nslope = 0.1\nline = {linepts(e)}\n'+RT+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(3000.0,10.0)+OUT)
write('thin_nde', dom+slope_terrain(e,0.1,top=30.0)+'[friction]\nmanning = 0.01\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.segment]]\nedge = "east"\ntype = "normal_depth"\nslope = 0.1\n'+RT+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(3000.0,10.0)+OUT)
write('thin_ol', dom+slope_terrain(e,0.1,top=30.0)+'[friction]\nmanning = 0.01\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "open"\nline = {linepts(e)}\n'+RT+gauges(e,[0,1,2,5])+sections(e,[0,1,2,5])+T(3000.0,10.0)+OUT)
# lake at rest: bed slopes 0.01 up to east and 0.02 in y, level 10.5 (bed 10.0..12.0 in x, +0..0.64 in y): shoreline crosses domain
LK='[terrain]\ntype = "slope"\nelevation = 9.0\nslope_x = 0.01\nslope_y = 0.02\n[initial]\nwater_level = 10.5\n'
for ty,extra in [('rating','rating = { level = [11.0, 12.0], discharge = [0.0, 100.0] }\n'),('open','')]:
  for side in ['east','west']:
    write(f'lake_{ty}_{side}', dom+LK+'[friction]\nmanning = 0.03\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "{ty}"\n{extra}line = {linepts(side)}\n'+gauges(side,[0,1,2])+T(600.0,10.0)+OUT)
# lake flat bed with open line : exact rest
write('lake_flat_open', dom+'[terrain]\ntype = "flat"\nelevation = 1.0\n[initial]\nwater_level = 1.7\n[friction]\nmanning = 0.03\n[boundary]\ndefault = "wall"\n'
      f'[[boundary.line]]\ntype = "open"\nline = {linepts("east")}\n'+gauges('east',[0,1,2])+T(600.0,10.0)+OUT)
