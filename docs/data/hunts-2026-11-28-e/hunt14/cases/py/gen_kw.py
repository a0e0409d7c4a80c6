import sys
def gen(name, dx=2.0, L=200.0, S=0.02, n=0.05, rain=50.0, tr=2400.0, end=3600.0, outlet="nd", ny=16, extra="", xs_x=None, levels=1):
    nx = int(round(L/dx)); W = ny*dx
    s = f'''name = "{name}"
[domain]
cell_size = {dx}
nx = {nx}
ny = {ny}
[terrain]
type = "slope"
elevation = 10.0
slope_x = {-S}
[friction]
manning = {n}
[boundary]
default = "wall"
'''
    if outlet == "nd":
        s += f'''[[boundary.segment]]
edge = "east"
type = "normal_depth"
slope = {S}
'''
    elif outlet == "open":
        s += 'east = "open"\n'
    elif outlet == "outfall":
        s += f'''[[boundary.line]]
type = "outfall"
line = [[{L-dx/2}, {dx/2}], [{L-dx/2}, {W-dx/2}]]
'''
    elif outlet == "openline":
        s += f'''[[boundary.line]]
type = "open"
line = [[{L-dx/2}, {dx/2}], [{L-dx/2}, {W-dx/2}]]
'''
    elif outlet == "ndline":
        s += f'''[[boundary.line]]
type = "normal_depth"
slope = {S}
line = [[{L-dx/2}, {dx/2}], [{L-dx/2}, {W-dx/2}]]
'''
    if levels > 1:
        s += f"[refinement]\nlevels = {levels}\n"
    xs = xs_x if xs_x is not None else L - dx/2
    s += f'''[rain]
rate = {{ time = [0.0, {tr}, {tr+0.001}], value = [{rain}, {rain}, 0.0] }}
[[cross_section]]
name = "out"
line = [[{xs}, {W}], [{xs}, 0.0]]
[[gauge]]
name = "g"
x = {L-dx/2}
y = {W/2}
[time]
end = {end}
output_interval = 60.0
gauge_interval = 30.0
[output]
format = "ascii"
png = false
animation = false
rasters = false
maxima = false
{extra}
'''
    open(f'/tmp/hunt14/cases/{name}.toml','w').write(s)
if __name__ == "__main__":
    kw = {}
    for a in sys.argv[2:]:
        k, v = a.split('=',1)
        try: v = float(v) if '.' in v or 'e' in v else int(v)
        except: pass
        kw[k] = v
    gen(sys.argv[1], **kw)
