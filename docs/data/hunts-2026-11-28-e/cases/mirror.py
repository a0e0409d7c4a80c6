import sys
W=128.0
def mx(x): return W-x
def pts(ps,m): return '['+', '.join(f'[{(mx(x) if m else x)}, {y}]' for x,y in ps)+']'
def case(m, name):
    X = '(128-x)' if m else 'x'
    t=f'''name = "{name}"
[domain]
cell_size = 1.0
nx = 128
ny = 64
[terrain]
type = "expression"
expression = "2 + 0.012*{X} + 0.4*sin(y/8)*cos({X}/10) + 0.0004*(y-32)^2"
[refinement]
levels = 3
[[refinement.region]]
shape = "rectangle"
min = {pts([(30.0,10.0)],m)[1:-1] if not m else f'[{mx(60.0)}, 10.0]'}
max = {pts([(60.0,40.0)],m)[1:-1] if not m else f'[{mx(30.0)}, 40.0]'}
level = 0
[initial]
[[initial.region]]
shape = "rectangle"
min = {'[0.0, 0.0]' if not m else f'[{mx(25.0)}, 0.0]'}
max = {'[25.0, 64.0]' if not m else f'[{W}, 64.0]'}
water_level = 2.6
[friction]
manning = 0.03
[[boundary.line]]
type = "stage"
line = {pts([(10.5,10.5),(12.5,50.5)],m)}
level = {{ time = [0.0, 60.0, 200.0], value = [2.6, 3.1, 2.9] }}
[[boundary.line]]
type = "rating"
line = {pts([(127.5,4.5),(127.5,60.5)],m)}
rating = {{ level = [2.5, 3.0, 4.0], discharge = [0.0, 2.0, 12.0] }}
[[boundary.line]]
type = "normal_depth"
line = {pts([(90.5,0.5),(110.5,0.5)],m)}
slope = 0.005
[[source]]
name = "p"
polygon = {pts([(70.23,40.17),(80.11,40.17),(80.11,50.41)],m)}
discharge = {{ time = [0.0, 50.0, 150.0], value = [0.0, 3.0, 0.0] }}
[[levee]]
name = "L"
line = {pts([(45.3,5.5),(52.6,58.5)],m)}
crest = 3.0
[[culvert]]
name = "c"
shape = "box"
width = 0.8
height = 0.6
inlet = {pts([(20.5,30.5)],m)[1:-1]}
outlet = {pts([(100.5,30.5)],m)[1:-1]}
[rain]
rate = {{ time = [0.0, 100.0, 150.0], value = [30.0, 30.0, 0.0] }}
[losses]
model = "initial_continuing"
initial = 1.0
continuing = 5.0
[[gauge]]
name = "g"
x = {mx(60.0) if m else 60.0}
y = 30.0
[time]
end = 200.0
output_interval = 100.0
gauge_interval = 10.0
[output]
format = "ascii"
png = false
animation = false
'''
    return t
open('/tmp/hunt13/cases/mir_a.toml','w').write(case(False,'mir_a'))
open('/tmp/hunt13/cases/mir_b.toml','w').write(case(True,'mir_b'))
