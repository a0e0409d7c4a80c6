import sys
# kinematic plane like kw1 (2 m cells, 200 m, 32 m wide), falling toward edge E/W/N/S
L, W, dx, S = 200.0, 32.0, 2.0, 0.02
for edge in ['west','east','south','north']:
    if edge in ('west','east'):
        nx, ny = 100, 16
        sx, sy = (S, 0) if edge=='west' else (-S, 0)
        elev = 10.0 if edge=='east' else 6.0
        gx, gy = (1.0 if edge=='west' else 199.0), 16.0
        xs = [[1.0, 0.0],[1.0, 32.0]] if edge=='west' else [[199.0, 32.0],[199.0,0.0]]
    else:
        nx, ny = 16, 100
        sx, sy = (0, S) if edge=='south' else (0, -S)
        elev = 10.0 if edge=='north' else 6.0
        gx, gy = 16.0, (1.0 if edge=='south' else 199.0)
        xs = [[0.0, 1.0],[32.0, 1.0]] if edge=='south' else [[32.0, 199.0],[0.0,199.0]]
    s = f'''name = "kwo_{edge}"
[domain]
cell_size = {dx}
nx = {nx}
ny = {ny}
[terrain]
type = "slope"
elevation = {elev}
slope_x = {sx}
slope_y = {sy}
[friction]
manning = 0.05
[boundary]
default = "wall"
[[boundary.segment]]
edge = "{edge}"
type = "normal_depth"
slope = {S}
[rain]
rate = {{ time = [0.0, 2400.0, 2400.001], value = [50.0, 50.0, 0.0] }}
[[cross_section]]
name = "out"
line = {xs}
[[gauge]]
name = "g"
x = {gx}
y = {gy}
[time]
end = 3600.0
output_interval = 60.0
gauge_interval = 30.0
[output]
format = "ascii"
png = false
animation = false
rasters = false
maxima = false
'''
    open(f'/tmp/hunt14/cases/kwo_{edge}.toml','w').write(s)
