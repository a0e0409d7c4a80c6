import os
C='/tmp/hunt15/c'
def orient(edge, L=200.0, W=32.0, dx=2.0):
    """returns nx,ny, slope multipliers (sx,sy) for 'falling toward edge', gauge pts along axis"""
    n, m = int(L/dx), int(W/dx)
    if edge in ('east','west'): return n, m
    return m, n
def pos(edge, s, L=200.0, W=32.0):
    """s = distance from the far (upstream) end along flow, returns (x,y) at mid width"""
    if edge=='east': return (s, W/2)
    if edge=='west': return (L-s, W/2)
    if edge=='north': return (W/2, s)
    if edge=='south': return (W/2, L-s)
def xsline(edge, s, L=200.0, W=32.0):
    # section perpendicular to flow at distance s, discharge positive in flow direction
    if edge=='east': return [[s, W],[s,0.0]]
    if edge=='west': return [[L-s,0.0],[L-s,W]]
    if edge=='north': return [[0.0,s],[W,s]]
    if edge=='south': return [[W,L-s],[0.0,L-s]]
def slope_terrain(edge, S, L=200.0, top=10.0):
    # bed falls toward edge by S
    sx=sy=0.0; el=top
    if edge=='east': sx=-S
    elif edge=='west': sx=S; el=top-S*L
    elif edge=='north': sy=-S
    elif edge=='south': sy=S; el=top-S*L
    return f'[terrain]\ntype = "slope"\nelevation = {el}\nslope_x = {sx}\nslope_y = {sy}\n'
def write(name, body):
    open(f'{C}/{name}.toml','w').write(f'name = "{name}"\n'+body)
def gauges(edge, dists, dx=2.0, L=200.0):
    s=''
    for d in dists:  # d = cell index from the outlet (0 = outlet cell)
        x,y = pos(edge, L-dx/2-d*dx)
        s+=f'[[gauge]]\nname = "g{d}"\nx = {x}\ny = {y}\n'
    return s
def sections(edge, dists, dx=2.0, L=200.0):
    s=''
    for d in dists:
        s+=f'[[cross_section]]\nname = "x{d}"\nline = {xsline(edge, L-dx/2-d*dx)}\n'
    return s
OUT='[output]\nformat = "ascii"\npng = false\nanimation = false\nrasters = false\nmaxima = false\n'
