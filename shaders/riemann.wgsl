// The HLLC approximate Riemann solver for the shallow-water equations, as a pure function.
// States are (h, un, ut): depth, velocity normal to the face, velocity along it. The result
// is the flux (mass, normal momentum, tangential momentum) in the normal direction.
// x-faces pass (h, u, v), y-faces (h, v, u): one function serves both directions.

fn physical_flux(h: f32, un: f32, ut: f32, g: f32) -> vec3<f32> {
    let q = h * un;
    return vec3<f32>(q, q * un + 0.5 * g * h * h, q * ut);
}

// The fastest wave speed (m/s, either way) of the faces this invocation has solved: the
// step that follows must not outrun it. The two-rarefaction and dry-bed speeds below can
// pass every cell's |u| + c (a deep cell beside a shallow or dry one: up to twice), and a
// step bounded by the cells' speeds alone then let a cell pass out more water than it held
// (issue 22: an isolated wet cell made a sixth of its water from nothing). Its one side
// effect; kernels that never read it compile it out.
var<private> fastest_wave: f32;

fn hllc(hl: f32, ul: f32, vl: f32, hr: f32, ur: f32, vr: f32, g: f32) -> vec3<f32> {
    if (hl <= 0.0 && hr <= 0.0) {
        return vec3<f32>(0.0);
    }
    let cl = sqrt(g * hl);
    let cr = sqrt(g * hr);
    var sl: f32;
    var sr: f32;
    if (hl <= 0.0) {
        // Dry left: the front moves at u - 2c of the wet side (Toro's dry-bed speeds).
        sl = ur - 2.0 * cr;
        sr = ur + cr;
    } else if (hr <= 0.0) {
        sl = ul - cl;
        sr = ul + 2.0 * cl;
    } else {
        // Two-rarefaction estimate of the star state bounds both waves.
        let us = 0.5 * (ul + ur) + cl - cr;
        let cs = max(0.5 * (cl + cr) + 0.25 * (ul - ur), 0.0);
        sl = min(ul - cl, us - cs);
        sr = max(ur + cr, us + cs);
    }
    fastest_wave = max(fastest_wave, max(-sl, sr));
    let fl = physical_flux(hl, ul, vl, g);
    let fr = physical_flux(hr, ur, vr, g);
    if (sl >= 0.0) {
        return fl;
    }
    if (sr <= 0.0) {
        return fr;
    }
    let inv = 1.0 / (sr - sl);
    let f_mass = (sr * fl.x - sl * fr.x + sl * sr * (hr - hl)) * inv;
    let f_mom = (sr * fl.y - sl * fr.y + sl * sr * (hr * ur - hl * ul)) * inv;
    // The contact wave between the two HLL waves carries the tangential velocity.
    let s_star = (sl * hr * (ur - sr) - sr * hl * (ul - sl)) / (hr * (ur - sr) - hl * (ul - sl));
    let ut = select(vr, vl, s_star >= 0.0);
    return vec3<f32>(f_mass, f_mom, f_mass * ut);
}
