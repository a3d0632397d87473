//! Which force the master holds: a master that reads every output gets the motion of one that
//! reads the held force, and `E_port` is the Jacobi masters' own count where a step's answer
//! could mislead the FMU about which force they hold.

use crate::common::{
    check_port_energy, each_body_with_partner_behind, each_driven_body, falling_ball,
    trace_if_asked, LoneImpact, System,
};
use crate::support::masters::{cosimulate_plant, Gap, Master, Plant, Reads};
use crate::support::scenarios::{impact_sweep, Placement, Report};
use crate::support::Fmu;
/// How far apart reading every output may move the bodies, as a share of their stroke, where the
/// master says which force it holds: the same steps, up to the rounding of what it reads.
const READ_EVERY_TOLERANCE: f64 = 1e-12;

/// A master that reads every output (FMPy's `simulate_fmu`, cofmupy) and says which
/// force it holds (`heldForce`) gets the motion of one that reads only that force, with `m_eff`
/// right, for case 4's bodies that are not alone (a second body behind, a driven body on a spring)
/// at 1, 5 and 10 ms under each ordering. Left at Auto, a master that reads both forces is bounded
/// through the smaller of the two accounts (docs/coupling.md, "Which force the master holds"): how
/// far that moves the bodies is printed.
#[test]
fn reading_every_output_gives_the_motion_reading_the_held_force_gives() {
    let fmu = Fmu::load_default();
    // A master that reads the outputs only after each step reads none before the first: reading
    // every output after initialization is another master.
    let masters = [
        Master::GaussSeidel,
        Master::GaussSeidelBodyFirst,
        Master::Jacobi,
    ];
    let mut worst: [(f64, String); 3] = Default::default();
    let mut compare = |system: &System| {
        for (k, h) in [1e-3, 5e-3, 10e-3].into_iter().enumerate() {
            for master in masters {
                let told = [(
                    "heldForce",
                    if master == Master::Jacobi { 3.0 } else { 2.0 },
                )];
                let apart = |parameters: &[(&str, f64)]| {
                    let run = |reads| system.run_reading(&fmu, master, h, reads, parameters);
                    let (connected, every) = (run(Reads::Connected), run(Reads::Every));
                    let stroke = connected.iter().map(|s| s.x).fold(f64::MIN, f64::max)
                        - connected.iter().map(|s| s.x).fold(f64::MAX, f64::min);
                    connected
                        .iter()
                        .zip(&every)
                        .map(|(a, b)| (a.x - b.x).abs().max((a.partner_x - b.partner_x).abs()))
                        .fold(0.0, f64::max)
                        / stroke
                };
                let context = format!("{}, h = {h}, {}", system.case, master.label());
                let told_apart = apart(&told);
                assert!(
                    told_apart <= READ_EVERY_TOLERANCE,
                    "{context}, heldForce told: reading every output moves the bodies {told_apart:.2e} of the stroke apart"
                );
                let auto_apart = apart(&[]);
                if auto_apart > worst[k].0 {
                    worst[k] = (auto_apart, context);
                }
            }
        }
    };
    each_body_with_partner_behind(1.0, &mut compare);
    each_driven_body(1.0, &mut compare);
    for (h, (apart, context)) in ["1 ms", "5 ms", "10 ms"].iter().zip(&worst) {
        println!("heldForce Auto, reading every output, {h}: the bodies at most {apart:.2e} of the stroke apart ({context})");
    }
}

/// A body pushed through its contacts by a second body on a spring behind it, under the Jacobi
/// masters (which read both `f_mean` and `f_next`): `E_port` is the master's own count at every
/// step, over stiffnesses from 1e4 to 1e8 N/m, two speeds and steps of 1 to 10 ms (0.03 to 32
/// contact durations), the first contact in the first step at 10 ms. The spring changes the
/// body's acceleration during a contact, so one step's answer can fit the force the master did
/// not hold a little better; the FMU must not take that as a change of the master's scheme, which
/// would put `E_port` far off the master's count.
#[test]
fn a_body_pushed_by_a_spring_behind_it_does_not_change_which_force_a_jacobi_master_holds() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Jacobi masters, a second body behind: E_port");
    each_body_with_partner_behind(1.0, |system| {
        for h in [1e-3, 5e-3, 10e-3] {
            for master in [Master::Jacobi, Master::JacobiReadingAfter] {
                let run = system.run(&fmu, master, h);
                let at = format!("h={}ms", h * 1e3);
                check_port_energy(&mut report, master, &system.case, &at, &run);
            }
        }
    });
    report.finish_in_the_default_suite();
}

/// An unknown mass's contact inside the first step, under the masters that held no force over it
/// (Jacobi, reading `f_next` before each step or only after): `E_port` is the master's own count
/// from the first step on, over a range of stiffnesses, masses, steps and places in the step. The
/// FMU must tell that the master held nothing from a velocity change of zero before it knows any
/// external acceleration: taking the probe it output as held would put `E_port` off for the two
/// steps after the contact.
#[test]
fn an_unknown_mass_met_in_the_first_step_counts_the_port_energy_the_master_gave() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("first-step contact, m_eff = 0, Jacobi masters: E_port");
    for p in impact_sweep().into_iter().step_by(3) {
        let t_c = p.contact_duration();
        for ratio in [0.5, 3.0, 30.0, 100.0] {
            let h = ratio * t_c;
            for phase in [0.02, 0.6] {
                let placement = Placement::FirstStep { phase };
                let impact = LoneImpact::new(p, h, placement.start_distance(p.speed, h));
                for master in [Master::Jacobi, Master::JacobiReadingAfter] {
                    let run = impact.run(&fmu, p, 0.0, master);
                    let at = format!("h={ratio}T_c {}", placement.label());
                    check_port_energy(&mut report, master, &p.label(), &at, &run);
                }
            }
        }
    }
    report.finish_in_the_default_suite();
}

/// A ball of given mass (0.5 to 2 times off) under gravity, met late in the first step by the
/// masters that step all units at once: over that step they held nothing, and the velocity change
/// that tells so is gravity's, which nothing had measured. `E_port` must be the master's own count
/// at every step, the reading of which force the master holds told before it counts one it never
/// held.
#[test]
fn a_ball_met_in_the_first_step_under_gravity_counts_a_jacobi_masters_port_energy() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("ball met in the first step under gravity, Jacobi: E_port");
    let mass = 0.5_f64;
    let c = 1e6_f64;
    let d = 0.5 * 2.0 * (c * mass).sqrt();
    let t_c = std::f64::consts::PI * (mass / c).sqrt();
    for gravity in [3.0, 9.81, 30.0] {
        for ratio in [0.5, 1.15, 3.0] {
            let h = ratio * t_c;
            let (initial, derivative) = falling_ball(mass, gravity, 1.0, 0.9 * h);
            let plant = Plant {
                initial,
                derivative: &derivative,
            };
            for factor in [0.5, 0.75, 1.5, 2.0] {
                let gap = Gap {
                    c,
                    d,
                    m_eff: factor * mass,
                    s_rel0: 0.0,
                };
                let case = format!("g={gravity} m_eff=x{factor}");
                let at = format!("h={ratio}T_c");
                for master in [Master::Jacobi, Master::JacobiReadingAfter] {
                    let run = cosimulate_plant(&fmu, gap, &plant, master, h, 40, 8);
                    trace_if_asked(master, &case, &at, &run, 0);
                    check_port_energy(&mut report, master, &case, &at, &run);
                }
            }
        }
    }
    report.finish();
}
