//! The acceptance cases 1 to 4 (and 4c, with the default `m_eff` = 0), and the checks of what
//! they rest on: the reference against the closed form, the masters against a free throw, the
//! `E_port` check against made-up records.

use crate::common::{
    check_port_energy, drop_ball, each_body_with_partner_behind, each_driven_body, trace_if_asked,
    worst_from, LoneImpact, DROP_HEIGHT, G,
};
use crate::support::masters::{cosimulate, Gap, Master, MasterBody, Sample};
use crate::support::scenarios::{
    impact_sweep, issue_damping, worse, ImpactParameters, Placement, Report, STEP_RATIOS,
};
use crate::support::Fmu;
/// Case 1: with `m_eff` the body's mass, the rebound, the energy dissipated and the positions after
/// the contact are those of the exact solution wherever the contact falls, the first step included.
#[test]
#[ignore = "issue 19's acceptance, not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case1_a_known_mass_rebounds_exactly_wherever_the_contact_falls() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 1: m_eff exact, lone body");
    for p in impact_sweep() {
        let t_c = p.contact_duration();
        for ratio in STEP_RATIOS {
            let h = ratio * t_c;
            for placement in Placement::SWEEP {
                let impact = LoneImpact::new(p, h, placement.start_distance(p.speed, h));
                if p.c == 1e4 && p.d == 20.0 && p.mass == 1.0 && p.speed == 1.0 {
                    // The base example's known rebound coefficient and dissipated energy.
                    assert!((-impact.v_out / impact.v_in - 0.7586).abs() < 1e-4);
                    assert!((impact.dissipated() - 0.2122).abs() < 1e-4);
                }
                let dv_h = (impact.v_out - impact.v_in).abs() * h;
                for master in Master::EVERY_ORDERING {
                    let run = impact.run(&fmu, p, p.mass, master);
                    // Split by where the contact falls: in the first step the body-first and
                    // the Jacobi masters hold no force over it.
                    let case = if placement.is_first_step() {
                        format!("{} [step 0]", p.label())
                    } else {
                        format!("{} [later]", p.label())
                    };
                    let at = format!("h={ratio}T_c {}", placement.label());
                    trace_if_asked(master, &case, &at, &run, impact.end_step() + 4);
                    // Judged from the 4th step after the one the contact ended in, the acceptance
                    // window for a contact in a first step the master held no force over, used
                    // for every contact: the coupling may correct the master's motion in the
                    // three steps after a contact (the positions' window allows it too).
                    let from = impact.end_step() + 4;
                    let rebound = worst_from(&run, from, |_, s| {
                        (s.v - impact.v_out).abs() / impact.v_out.abs()
                    });
                    let e_loss = worst_from(&run, from, |_, s| {
                        (s.e_loss / impact.dissipated() - 1.0).abs()
                    });
                    let position = worst_from(&run, from, |k, s| {
                        (s.x - impact.reference.states[k][0]).abs() / dv_h
                    });
                    report.check(master, &case, "rebound rel. err", rebound, 5e-3, &at);
                    report.check(master, &case, "E_loss rel. err", e_loss, 5e-3, &at);
                    report.check(master, &case, "position err/(dv*h)", position, 1e-2, &at);
                    check_port_energy(&mut report, master, &case, &at, &run);
                }
            }
        }
    }
    report.finish();
}

/// Case 2: with `m_eff` wrong (or 0, unknown), the rebound is right from the 3rd step after
/// lift-off, the body never has more kinetic energy than the exact rebound's after that, `E_loss`
/// is the kinetic energy the body lost, and the body never flies off faster than 3x its impact.
#[test]
#[ignore = "issue 19's acceptance, not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case2_a_wrong_or_unknown_mass_is_learned_without_creating_energy() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 2: m_eff wrong (x0.5, 0.7, 1.3, 2) or 0, lone body");
    let placements = [
        Placement::FirstStep { phase: 0.02 },
        Placement::FirstStep { phase: 0.6 },
        Placement::LaterStep { phase: 0.1 },
        Placement::LaterStep { phase: 0.5 },
    ];
    for p in impact_sweep() {
        let t_c = p.contact_duration();
        let ke = |v: f64| 0.5 * p.mass * v * v;
        for ratio in STEP_RATIOS {
            let h = ratio * t_c;
            for placement in placements {
                let impact = LoneImpact::new(p, h, placement.start_distance(p.speed, h));
                for factor in [0.5, 0.7, 1.3, 2.0, 0.0] {
                    for master in Master::EVERY_ORDERING {
                        // From the 3rd step after lift-off; a contact in a first step the master
                        // held no force over (the body-first and Jacobi masters) is judged from
                        // the 4th, case 1's window for it: the master's answer to the first
                        // force it holds is what tells the mass.
                        let unanswered = placement.is_first_step() && master != Master::GaussSeidel;
                        let from = impact.end_step() + if unanswered { 4 } else { 3 };
                        let run = impact.run(&fmu, p, factor * p.mass, master);
                        let case = format!("{} m_eff=x{factor}", p.label());
                        let at = format!("h={ratio}T_c {}", placement.label());
                        trace_if_asked(master, &case, &at, &run, from);
                        let rebound = worst_from(&run, from, |_, s| {
                            (s.v - impact.v_out).abs() / impact.v_out.abs()
                        });
                        let gain = worst_from(&run, from, |_, s| ke(s.v) / ke(impact.v_out) - 1.0);
                        let e_loss = worst_from(&run, from, |_, s| {
                            let lost = ke(impact.v_in) - ke(s.v);
                            (s.e_loss - lost).abs() / lost
                        });
                        let speed = worst_from(&run, 0, |_, s| s.v.abs() / p.speed);
                        report.check(master, &case, "rebound rel. err", rebound, 1e-2, &at);
                        report.check(master, &case, "KE/KE_exact - 1", gain, 5e-3, &at);
                        report.check(master, &case, "E_loss vs KE lost", e_loss, 1e-2, &at);
                        report.check(master, &case, "max speed/impact speed", speed, 3.0, &at);
                        check_port_energy(&mut report, master, &case, &at, &run);
                    }
                }
            }
        }
    }
    report.finish();
}

/// Each flight's largest energy at a communication point and its energy at the highest one. A
/// flight runs from one bounce (the velocity turning from down to up) to the next and counts its
/// points above the stop only: at large steps a contact straddles communication points with the
/// ball still above the stop (the held force slows it before it gets there), and those belong to
/// the contact, not to a flight that would start or end there. Flights without a point above the
/// stop are left out.
fn flight_energies(run: &[Sample], mass: f64) -> Vec<(f64, f64)> {
    let mut flights: Vec<(f64, f64, f64)> = Vec::new();
    let mut open = false;
    for (k, s) in run.iter().enumerate() {
        let bounce = k > 0 && run[k - 1].v < 0.0 && s.v >= 0.0;
        if bounce {
            open = false;
        }
        if s.x <= 0.0 {
            continue;
        }
        let energy = 0.5 * mass * s.v * s.v + mass * G * s.x;
        match flights.last_mut() {
            Some(last) if open => {
                last.0 = last.0.max(energy);
                if s.x > last.2 {
                    (last.1, last.2) = (energy, s.x);
                }
            }
            _ => {
                flights.push((energy, energy, s.x));
                open = true;
            }
        }
    }
    flights
        .into_iter()
        .map(|(largest, apex, _)| (largest, apex))
        .collect()
}

/// Case 3: a ball of unknown mass (`m_eff = 0`) bouncing under gravity never leaves a contact with
/// more energy than it came in with, the first contact (where the mass is still unknown) included.
#[test]
#[ignore = "issue 19's acceptance, not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case3_a_bouncing_ball_of_unknown_mass_never_gains_energy() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 3: ball of unknown mass (m_eff = 0) under gravity");
    let balls = [
        (1.0_f64, 1e4_f64, issue_damping(1e4)),
        (1.0, 1e6, issue_damping(1e6)),
        (0.3, 1e5, issue_damping(1e5)),
        (0.3, 1e7, 0.25 * issue_damping(1e7)),
        (5.0, 1e8, 0.25 * issue_damping(1e8)),
    ];
    for (mass, c, d) in balls {
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        for ratio in [1.0, 1.5, 2.0, 3.0, 5.0, 7.0, 10.0] {
            let h = ratio * t_c;
            // The drop and about five bounces, and at least 40 steps.
            let steps = (0.6 / h).ceil().max(40.0) as usize;
            for master in Master::EVERY_ORDERING {
                let run = drop_ball(&fmu, (mass, c, d), 0.0, master, h, steps);
                let flights = flight_energies(&run, mass);
                let case = format!("m={mass} c={c:.0e} d={d:.1}");
                let at = format!("h={ratio}T_c");
                trace_if_asked(master, &case, &at, &run, 0);
                // The gain over the flight before, against the drop's energy: rounding-level
                // slack only.
                let drop_energy = mass * G * DROP_HEIGHT;
                let gain = flights
                    .windows(2)
                    .map(|w| (w[1].0 - w[0].0) / drop_energy)
                    .fold(f64::MIN, worse);
                report.check(master, &case, "flight E gain / E_drop", gain, 1e-9, &at);
                // The same at each flight's highest point: once a correction is over.
                let apex = flights
                    .windows(2)
                    .map(|w| (w[1].1 - w[0].1) / drop_energy)
                    .fold(f64::MIN, worse);
                report.check(master, &case, "apex E gain / E_drop", apex, 1e-9, &at);
                // At least the drop and two flights after it, or the run says nothing.
                report.check(
                    master,
                    &case,
                    "flights missing (of 3)",
                    3.0 - flights.len().min(3) as f64,
                    0.0,
                    &at,
                );
                check_port_energy(&mut report, master, &case, &at, &run);
            }
        }
    }
    report.finish();
}

/// Case 4a: the contacting body has a second 1 kg body behind it on a 1e3 N/m spring; both come
/// in together, the first hits the stop, the second pushes it back in: several contacts.
#[test]
#[ignore = "issue 19's acceptance, not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case4a_a_body_with_a_second_body_behind_it_follows_the_exact_motion() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 4a: second 1 kg body behind on a 1e3 N/m spring, m_eff = 1");
    each_body_with_partner_behind(1.0, |system| system.check(&fmu, &mut report));
    report.finish();
}

/// Case 4b: a 1 kg body on a 200 N/m spring, driven near its resonance by a sinusoidal force into
/// a stiff stop (c = 1e6 N/m): several impacts.
#[test]
#[ignore = "issue 19's acceptance, not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case4b_a_driven_body_on_a_spring_against_a_stiff_stop_follows_the_exact_motion() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 4b: driven 1 kg on a 200 N/m spring into a stop, c = 1e6");
    each_driven_body(1.0, |system| system.check(&fmu, &mut report));
    report.finish();
}

/// Case 4 with the default `m_eff` = 0 (beyond the acceptance cases, which ask case 4 with the
/// mass given and `m_eff` = 0 for a lone body only, but what a user gets who leaves the default):
/// the same systems and criteria. Measured, not met (docs/coupling.md).
#[test]
#[ignore = "not met yet: cargo test --release --test coupling_robustness -- --ignored --nocapture"]
fn case4c_bodies_not_alone_with_the_default_unknown_mass() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("Case 4c: case 4a and 4b with m_eff = 0");
    each_body_with_partner_behind(0.0, |system| system.check(&fmu, &mut report));
    each_driven_body(0.0, |system| system.check(&fmu, &mut report));
    report.finish();
}

/// The reference against the closed form where there is one: without damping the contact is half
/// a period of the undamped oscillator, pi*sqrt(m/c), the body leaves at the speed it came with and
/// nothing is dissipated (the damper's clamp is what has no closed form).
#[test]
fn the_reference_is_the_closed_form_undamped_contact() {
    for (mass, c, speed) in [(1.0, 1e4, 1.0), (0.3, 1e6, 3.0), (5.0, 1e8, 1.0)] {
        let p = ImpactParameters {
            c,
            d: 0.0,
            mass,
            speed,
        };
        let h = p.contact_duration();
        let impact = LoneImpact::new(p, h, 0.5 * speed * h);
        let event = impact.reference.events[0];
        let duration = event.end.unwrap() - event.start;
        assert!(
            (duration / p.contact_duration() - 1.0).abs() < 1e-9,
            "{p:?}: {duration}"
        );
        assert!(
            (impact.v_out / speed - 1.0).abs() < 1e-9,
            "{p:?}: {}",
            impact.v_out
        );
        assert!(impact.dissipated().abs() < 1e-12, "{p:?}");
    }
}

/// The master's own integrator against the closed form of a free throw under gravity (no contact:
/// the body moves away from the stop), through every master: the gap holds no force.
#[test]
fn every_master_moves_a_free_body_along_the_closed_form_throw() {
    let fmu = Fmu::load_default();
    let gravity = |_: f64, _: f64, _: f64| -G;
    let (x0, v0, h) = (1.0, 2.0, 0.01);
    for master in Master::EVERY_ORDERING {
        let body = MasterBody::new(1.0, x0, v0, &gravity);
        let gap = Gap {
            c: 1e6,
            d: 200.0,
            m_eff: 1.0,
            s_rel0: 0.0,
        };
        let run = cosimulate(&fmu, gap, &body, master, h, 30, 1);
        for s in &run {
            let x = x0 + v0 * s.t - 0.5 * G * s.t * s.t;
            assert!(
                (s.x - x).abs() < 1e-12,
                "{master:?} at {}: {} vs {x}",
                s.t,
                s.x
            );
            assert!(
                (s.v - (v0 - G * s.t)).abs() < 1e-12,
                "{master:?} at {}",
                s.t
            );
            assert_eq!((s.held, s.e_loss, s.port_energy), (0.0, 0.0, 0.0));
        }
    }
}

/// The `E_port` check itself, on made-up records: an FMU that counts the port energy over the steps
/// it has seen both ends of passes, one that is off by more than 1e-9 does not.
#[test]
fn the_port_energy_check_accepts_only_the_masters_count() {
    let records = |master: Master, offset: f64| -> Vec<Sample> {
        let lag = usize::from(master != Master::GaussSeidelBodyFirst);
        let port_energy = |k: usize| 0.1 * k as f64;
        (0..10)
            .map(|k| Sample {
                port_energy: port_energy(k),
                e_port: (k > 0).then(|| port_energy(k - lag) + offset),
                ..Sample::default()
            })
            .collect()
    };
    for master in Master::EVERY_ORDERING {
        let mut report = Report::new("self-check");
        check_port_energy(&mut report, master, "right", "", &records(master, 0.0));
        assert_eq!(report.violations(), 0, "{master:?}");
        check_port_energy(&mut report, master, "off", "", &records(master, 1e-6));
        assert_eq!(report.violations(), 1, "{master:?}");
    }
}
