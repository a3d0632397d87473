//! Balls met in the first step, of known, wrong or unknown mass: never thrown out, held to case
//! 2's bounds.

use crate::common::{drop_ball, falling_ball, trace_if_asked, DROP_HEIGHT, G};
use crate::support::masters::{cosimulate_plant, Gap, Master, Plant, Sample};
use crate::support::scenarios::{issue_damping, worse, Report};
use crate::support::Fmu;
/// A ball of known mass (`m_eff` its mass) dropped from rest onto the stop, its first contact inside
/// the first step: no external acceleration is known then, so the FMU's own model of that step
/// (the ball standing still) misses the contact, and the master lets the ball through the floor.
/// The contact is replayed from that step's start with the acceleration it showed, and delivered
/// in the following steps (Gauss–Seidel): the ball never moves faster than 5 times its impact
/// speed (room for the correction of a step's lost travel, which grows towards ten contact
/// durations) and, from the 4th step on, never has more energy than the drop gave it. Integrated
/// from where the master was, deep in the stop, the contact would throw the ball out far faster
/// than it came and with many times the drop's energy. Under a Jacobi master, which holds the
/// replay's force a step later still, it is open (docs/coupling.md).
#[test]
fn a_ball_of_known_mass_that_the_first_step_lets_through_the_floor_is_not_thrown() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("ball of known mass, contact in the first step");
    let impact_speed = (2.0 * G * DROP_HEIGHT).sqrt();
    // Soft enough that the steps stay within ten contact durations (case 3's range), stiff
    // contacts falling into the first step only at hundreds (where the ball bounces several times
    // within a step: another regime).
    for (mass, c, d) in [
        (1.0_f64, 1e4_f64, issue_damping(1e4)),
        (1.0, 3e3, issue_damping(3e3)),
        (0.3, 1e3, 0.5 * issue_damping(1e3)),
    ] {
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        // Steps at which the fall (0.1 s) ends inside the first step.
        let fall = (2.0 * DROP_HEIGHT / G).sqrt();
        for h in [1.2 * fall, 2.0 * fall, 3.0 * fall] {
            let steps = 30;
            let master = Master::GaussSeidel;
            let run = drop_ball(&fmu, (mass, c, d), mass, master, h, steps);
            let case = format!("m={mass} c={c:.0e}");
            let at = format!("h={:.0}T_c", h / t_c);
            trace_if_asked(master, &case, &at, &run, 0);
            let fastest = run.iter().map(|s| s.v.abs()).fold(0.0, f64::max);
            report.check(
                master,
                &case,
                "max speed / impact",
                fastest / impact_speed,
                5.0,
                &at,
            );
            let drop_energy = mass * G * DROP_HEIGHT;
            let most = run
                .iter()
                .skip(4)
                .map(|s| 0.5 * mass * s.v * s.v + mass * G * s.x)
                .fold(f64::MIN, f64::max);
            report.check(
                master,
                &case,
                "energy from step 4 / E_drop",
                most / drop_energy,
                // The port's bound lets the correction lend the ball back what the contact
                // dissipated, never more than the drop gave (to rounding).
                1.0 + 1e-9,
                &at,
            );
        }
    }
    report.finish_in_the_default_suite();
}

/// A ball of unknown mass (`m_eff` = 0) dropped onto the stop under the Gauss–Seidel master that
/// steps the body first: the FMU's first step sees the ball a step's fall below where it was set
/// during initialization, a step over which the master held no force. Its velocity change is
/// gravity's, which the answer to the first probe must take out: taken as 0, the answer gives a
/// negative mass, the probing ends, and the next step delivers the contact along the motion from
/// a step's fall deep in the floor, throwing the ball up far faster than it fell. Over three
/// balls and steps of 1 to 10 contact durations, the ball never moves up faster than 3 times its
/// impact speed (where the probed steps let it into the floor, the correction that takes it out
/// may speed it up for a step; case 3 measures the flights' energies).
#[test]
fn a_ball_of_unknown_mass_stepped_before_the_gap_is_not_thrown() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("ball of unknown mass, the body stepped first");
    let impact_speed = (2.0 * G * DROP_HEIGHT).sqrt();
    for (mass, c, d) in [
        (1.0_f64, 1e4_f64, issue_damping(1e4)),
        (0.3, 1e5, issue_damping(1e5)),
        (1.0, 1e6, issue_damping(1e6)),
    ] {
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        for ratio in [1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0] {
            let h = ratio * t_c;
            let steps = (0.6 / h).ceil().max(40.0) as usize;
            let master = Master::GaussSeidelBodyFirst;
            let run = drop_ball(&fmu, (mass, c, d), 0.0, master, h, steps);
            let case = format!("m={mass} c={c:.0e}");
            let at = format!("h={ratio}T_c");
            trace_if_asked(master, &case, &at, &run, 0);
            // Upward: falling, the ball gains gravity's speed over the probed steps.
            let fastest = run.iter().map(|s| s.v).fold(0.0, f64::max);
            report.check(
                master,
                &case,
                "max upward speed / impact",
                fastest / impact_speed,
                3.0,
                &at,
            );
        }
    }
    report.finish_in_the_default_suite();
}

/// A ball of given mass, the mass given 0.5 to 2 times off, falling under gravity into a stop
/// that it meets late in the first step (the master held next to no force over that step, and
/// no external acceleration was known before it), at 0.5 to 3 contact durations per step, under
/// every master, held to case 2's bounds: its speed never above 3 times the impact speed, and
/// from the 3rd step after the first contact's end (twice the undamped contact duration after
/// its start, a bound on the damped one) no more energy (kinetic and gravity's, from the stop's
/// edge) than it started with. The first step's answer is gravity's alone; read as the
/// contact's (the external acceleration taken as 0), it tells a wrong mass, and a Jacobi master
/// throws the ball out faster than it came and on to many times its initial energy. Not met on
/// the soft floor and with twice the mass (docs/coupling.md); the rest runs in the default suite
/// below.
#[test]
#[ignore = "not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn a_ball_met_late_in_the_first_step_under_gravity_stays_bounded_with_a_wrong_mass() {
    let mut report = Report::new("ball met late in the first step under gravity, m_eff off");
    balls_met_late_in_the_first_step(&mut report, &[5e3, 1e6], &[0.5, 0.75, 1.5, 2.0]);
    report.finish();
}

/// The part of the sweep above that is met: a stiff floor (1e6 N/m), `m_eff` 0.5 to 1.5 times the
/// ball's mass. The Jacobi masters meet it only because the first step's velocity change does
/// not settle which force a master holds where no external acceleration is known, and an answer
/// through an unknown acceleration waits for a second (through half the mass the ball would
/// otherwise leave at many times its impact speed).
#[test]
fn a_ball_met_late_in_the_first_step_on_a_stiff_floor_keeps_case_2s_bounds() {
    let mut report = Report::new("ball met late in the first step, c = 1e6, m_eff 0.5-1.5");
    balls_met_late_in_the_first_step(&mut report, &[1e6], &[0.5, 0.75, 1.5]);
    report.finish_in_the_default_suite();
}

/// Runs the balls of the two tests above on the floors `stiffnesses` with `m_eff` the given
/// `factors` of the ball's mass.
fn balls_met_late_in_the_first_step(report: &mut Report, stiffnesses: &[f64], factors: &[f64]) {
    let fmu = Fmu::load_default();
    let mass = 0.5_f64;
    for &c in stiffnesses {
        let d = 0.5 * 2.0 * (c * mass).sqrt();
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        for gravity in [3.0, 9.81, 30.0] {
            for speed in [0.3, 1.0] {
                for ratio in [0.5, 1.15, 3.0] {
                    let h = ratio * t_c;
                    for phase in [0.9, 0.98] {
                        let t_in = phase * h;
                        let impact = speed + gravity * t_in;
                        let settled_from = ((t_in + 2.0 * t_c) / h).ceil() as usize + 3;
                        let (initial, derivative) = falling_ball(mass, gravity, speed, t_in);
                        let x0 = initial[0];
                        let plant = Plant {
                            initial,
                            derivative: &derivative,
                        };
                        let energy = |s: &Sample| 0.5 * mass * s.v * s.v + mass * gravity * s.x;
                        let e0 = 0.5 * mass * speed * speed + mass * gravity * x0;
                        for &factor in factors {
                            let gap = Gap {
                                c,
                                d,
                                m_eff: factor * mass,
                                s_rel0: 0.0,
                            };
                            let case = format!("c={c:.0e} g={gravity} v={speed} m_eff=x{factor}");
                            let at = format!("h={ratio}T_c @{phase}");
                            for master in Master::EVERY_ORDERING {
                                let steps = settled_from + (0.2 / h).ceil() as usize;
                                let run = cosimulate_plant(&fmu, gap, &plant, master, h, steps, 8);
                                let fastest =
                                    run.iter().map(|s| s.v.abs() / impact).fold(0.0, worse);
                                let gained = run
                                    .iter()
                                    .skip(settled_from)
                                    .map(|s| energy(s) / e0 - 1.0)
                                    .fold(f64::MIN, worse);
                                trace_if_asked(master, &case, &at, &run, settled_from);
                                let criterion = "speed / impact speed";
                                report.check(master, &case, criterion, fastest, 3.0, &at);
                                let criterion = "energy / E0 - 1, settled";
                                report.check(master, &case, criterion, gained, 5e-3, &at);
                            }
                        }
                    }
                }
            }
        }
    }
}
