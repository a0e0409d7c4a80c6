//! Forcing on dry land: inflow and stage segments, sources, stage and outfall lines and
//! rain on a dry (now and then partly ponded) bed, run to the end. The run must exit 0 with
//! its mass balance within 1e-5, the inflow and rain it counted equal to their series'
//! integrals, and no depth beyond what the stages, the initial water and the volume brought
//! in can make; or stop as documented. A segment laid over an earlier inflow, or a place
//! drawn on a wall levee's cells, must be refused naming it.

use super::case::{arg, Case};
use super::proc::Limits;
use super::tiny;

pub fn case(c: &mut Case) {
    let tiny = tiny::dry_forcing(&mut c.rng);
    c.note(tiny.what.clone());
    c.clock = tiny.end;
    let scenario = c.write("scenario.toml", tiny.toml.as_bytes());
    let out = c.dir.join("out");
    let args = ["run", &arg(&scenario), "--out", &arg(&out), "--quiet"].map(String::from);
    let o = c.quadflood(&args, &Limits::gpu());
    match &tiny.refused {
        Some(key) => {
            c.note(format!("{key} over an earlier inflow"));
            c.judge(&o, std::slice::from_ref(key));
            if o.code != Some(2) {
                c.fail(format!(
                    "{key}, over an earlier inflow segment, was not refused"
                ));
            }
        }
        None if tiny.walled && o.code == Some(2) => {
            let places = ["`source[", "`boundary.line[", "`gauge[", "`cross_section["];
            c.judge(&o, &places.map(String::from));
        }
        None => {
            c.judge(&o, &[arg(&c.dir)]);
            c.expect_run_of_sound_input(&o, &out, &tiny.bound);
        }
    }
    c.expect_whole(&out, false);
}
