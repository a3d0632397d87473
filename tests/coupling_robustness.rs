//! The acceptance cases of the co-simulation coupling, through the packaged FMU: three
//! masters (Gauss–Seidel with the gap first, Gauss–Seidel with the body first, both holding
//! `f_mean`; Jacobi holding `f_next`; tests/support/masters.rs), steps from a tenth of the contact
//! to a hundred contact durations, c from 1e4 to 1e8 N/m, against references computed here without
//! the FMU (hybrid RK4 with located contact events, tests/support/reference.rs).
//!
//! One test per kind of case sweeps its parameters (tests/support/scenarios.rs), prints the worst
//! value of every criterion per master and case, and fails if any check failed.
//! `COUPLING_REPORT_ONLY=1` prints without failing. Run with `--nocapture` to see the tables.
//!
//! Every run also compares the FMU's output `E_port`, where it has one, with the energy the master
//! put into the port, `sum held * (s_rel(t_{k+1}) - s_rel(t_k))` over the steps whose both ends the
//! gap has been given: those before the last inputs it received.

mod support;

use std::sync::Arc;

use support::exact::{Body, Partner};
use support::masters::{
    cosimulate, cosimulate_plant, cosimulate_plant_run, Gap, Master, MasterBody, Plant, Reads, Run,
    Sample, State,
};
use support::random::Random;
use support::reference::{reference, Reference, Start};
use support::scenarios::{
    impact_sweep, issue_damping, worse, ImpactParameters, Placement, Report, STEP_RATIOS,
};
use support::Fmu;

const G: f64 = 9.81;

/// How far apart reading every output may move the bodies, as a share of their stroke, where the
/// master says which force it holds: the same steps, up to the rounding of what it reads.
const READ_EVERY_TOLERANCE: f64 = 1e-12;

fn free(_: f64, _: f64, _: f64) -> f64 {
    0.0
}

/// Steps after the exact contact's end a lone-body run goes on, for the FMU's corrections of the
/// master's motion to show.
const TAIL_STEPS: usize = 12;

/// A lone body hitting the stop at `p.speed` from `x0`: the master's run and the exact one.
struct LoneImpact {
    reference: Reference,
    h: f64,
    steps: usize,
    x0: f64,
    v_in: f64,
    v_out: f64,
    contact_end: f64,
}

impl LoneImpact {
    fn new(p: ImpactParameters, h: f64, x0: f64) -> LoneImpact {
        let t_c = p.contact_duration();
        let steps = ((x0 / p.speed + 1.5 * t_c) / h).ceil() as usize + TAIL_STEPS;
        let body = Body {
            mass: p.mass,
            c: p.c,
            d: p.d,
            s_rel0: 0.0,
            external: &free,
        };
        // Free flight is exact at any RK4 step; the contact gets 4000 steps per contact duration.
        let start = Start {
            x: x0,
            v: -p.speed,
            partner: None,
            dt_free: h,
            dt_contact: t_c / 4000.0,
        };
        let reference = reference(body, &start, h, steps, 1);
        assert_eq!(reference.events.len(), 1, "{:?}", reference.events);
        let event = reference.events[0];
        let (end, v_out) = (event.end.unwrap(), event.v_out.unwrap());
        // The reference's own energy balance: what the body lost is what the contact dissipated.
        let brought = 0.5 * p.mass * event.v_in.powi(2);
        let lost = brought - 0.5 * p.mass * v_out.powi(2);
        let dissipated = *reference.dissipated.last().unwrap();
        assert!(
            (lost - dissipated).abs() < 1e-8 * brought,
            "{lost} vs {dissipated}"
        );
        LoneImpact {
            reference,
            h,
            steps,
            x0,
            v_in: event.v_in,
            v_out,
            contact_end: end,
        }
    }

    fn run(&self, fmu: &Arc<Fmu>, p: ImpactParameters, m_eff: f64, master: Master) -> Vec<Sample> {
        let body = MasterBody::new(p.mass, self.x0, -p.speed, &free);
        let gap = Gap {
            c: p.c,
            d: p.d,
            m_eff,
            s_rel0: 0.0,
        };
        cosimulate(fmu, gap, &body, master, self.h, self.steps, 1)
    }

    fn end_step(&self) -> usize {
        self.reference.step_of(self.contact_end)
    }

    fn dissipated(&self) -> f64 {
        *self.reference.dissipated.last().unwrap()
    }
}

/// Prints a run's samples where `COUPLING_TRACE` is a part of `"<case> <at> <master>"`: one
/// failing row of a report, looked at step by step.
fn trace_if_asked(master: Master, case: &str, at: &str, run: &[Sample], from: usize) {
    let key = format!("{case} {at} {}", master.label());
    if std::env::var("COUPLING_TRACE").is_ok_and(|wanted| key.contains(&wanted)) {
        println!("{key} (judged from sample {from})");
        for (k, s) in run.iter().enumerate() {
            println!(
                "  {k:3} t={:.4e} x={:+.6e} v={:+.6e} held={:+.4e} E_loss={:.6e} E_port={:?} (master {:.12e}) m_est={:.4} x2={:+.6e} v2={:+.6e}",
                s.t, s.x, s.v, s.held, s.e_loss, s.e_port, s.port_energy, s.m_eff_estimate, s.partner_x, s.partner_v
            );
        }
    }
}

/// The largest of `measure` over the samples from index `from` on (0 if there are none).
fn worst_from(run: &[Sample], from: usize, measure: impl Fn(usize, &Sample) -> f64) -> f64 {
    run.iter()
        .enumerate()
        .skip(from)
        .map(|(k, s)| measure(k, s))
        .fold(0.0, worse)
}

/// The FMU's `E_port` against the master's port energy over the steps the gap has seen both ends
/// of: after the gap's step from `t_k`, the Gauss–Seidel gap-first and the Jacobi masters have
/// given it `s_rel` up to `t_k`, the body-first master up to `t_{k+1}`.
fn check_port_energy(report: &mut Report, master: Master, case: &str, at: &str, run: &[Sample]) {
    if run.iter().all(|s| s.e_port.is_none()) {
        report.note("the FMU has no output E_port: its check is skipped".to_string());
        return;
    }
    let known_lag = usize::from(master != Master::GaussSeidelBodyFirst);
    let worst = run
        .iter()
        .enumerate()
        .skip(1)
        .map(|(k, s)| {
            let expected = run[k - known_lag].port_energy;
            let fmu = s.e_port.unwrap_or(f64::NAN);
            (fmu - expected).abs() / (1e-9 * expected.abs() + 1e-12)
        })
        .fold(0.0, worse);
    report.check(
        master,
        case,
        "E_port err/(1e-9 rel+1e-12 J)",
        worst,
        1.0,
        at,
    );
}

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

/// The height every ball is dropped from (m), at rest.
const DROP_HEIGHT: f64 = 0.05;

/// A ball of `mass` dropped from [`DROP_HEIGHT`] onto a stop of stiffness `c` and damping `d`, the
/// gap given `m_eff`, `steps` steps of `h` under `master`.
fn drop_ball(
    fmu: &Arc<Fmu>,
    (mass, c, d): (f64, f64, f64),
    m_eff: f64,
    master: Master,
    h: f64,
    steps: usize,
) -> Vec<Sample> {
    let gravity = move |_: f64, _: f64, _: f64| -mass * G;
    let ball = MasterBody::new(mass, DROP_HEIGHT, 0.0, &gravity);
    let gap = Gap {
        c,
        d,
        m_eff,
        s_rel0: 0.0,
    };
    cosimulate(fmu, gap, &ball, master, h, steps, 1)
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

/// A system with more than the contacting body: what the master integrates and what is compared.
struct System<'a> {
    case: String,
    c: f64,
    d: f64,
    /// The contacting body's mass (the contact sees it against the fixed stop).
    mass: f64,
    /// The `m_eff` the gap is given: the mass, or 0 (unknown).
    m_eff: f64,
    external: &'a dyn Fn(f64, f64, f64) -> f64,
    start: Start,
    energy: &'a dyn Fn(State) -> f64,
    duration: f64,
}

impl System<'_> {
    /// The master's plant: the body at flange_b and, if there is one, its partner on a spring.
    fn derivative(&self, t: f64, y: State, held: f64) -> State {
        let on_partner = self
            .start
            .partner
            .map_or(0.0, |(p, _, _)| p.force_on_partner(y[0], y[2]));
        let partner_accel = self
            .start
            .partner
            .map_or(0.0, |(p, _, _)| on_partner / p.mass);
        [
            y[1],
            ((self.external)(t, y[0], y[1]) - on_partner - held) / self.mass,
            y[3],
            partner_accel,
        ]
    }

    /// The contacting body as the reference integrates it.
    fn body(&self) -> Body<'_> {
        Body {
            mass: self.mass,
            c: self.c,
            d: self.d,
            s_rel0: 0.0,
            external: self.external,
        }
    }

    /// The master's state at the start.
    fn initial(&self) -> State {
        let (x2, v2) = self.start.partner.map_or((0.0, 0.0), |(_, x, v)| (x, v));
        [self.start.x, self.start.v, x2, v2]
    }

    /// The master's RK4 substeps per communication step `h`: as fine as the reference between
    /// contacts.
    fn substeps(&self, h: f64) -> usize {
        (h / self.start.dt_free).ceil() as usize
    }

    /// One co-simulation of the system with the gap under `master` at steps `h`.
    fn run(&self, fmu: &Arc<Fmu>, master: Master, h: f64) -> Vec<Sample> {
        self.run_reading(fmu, master, h, Reads::Connected, &[])
    }

    /// [`Self::run`] with what the master reads, and more parameters by name.
    fn run_reading(
        &self,
        fmu: &Arc<Fmu>,
        master: Master,
        h: f64,
        reads: Reads,
        parameters: &[(&str, f64)],
    ) -> Vec<Sample> {
        let derivative = |t: f64, y: State, held: f64| self.derivative(t, y, held);
        let plant = Plant {
            initial: self.initial(),
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.d,
            m_eff: self.m_eff,
            s_rel0: 0.0,
        };
        let run = Run {
            master,
            h,
            steps: (self.duration / h).round() as usize,
            substeps: self.substeps(h),
            reads,
        };
        let (run, _) = cosimulate_plant_run(fmu, gap, parameters, &plant, run);
        run.unwrap_or_else(|message| panic!("{}: {message}", self.case))
    }

    /// Case 4's checks at steps `h` of 1, 5 and 10 ms for every master.
    fn check(&self, fmu: &Arc<Fmu>, report: &mut Report) {
        let t_c = std::f64::consts::PI * (self.mass / self.c).sqrt();
        let e0 = (self.energy)(self.initial());
        // The acceptance steps, or those listed in `COUPLING_STEPS` (seconds, comma-separated).
        let steps: Vec<f64> =
            std::env::var("COUPLING_STEPS").map_or(vec![1e-3, 5e-3, 10e-3], |list| {
                list.split(',')
                    .map(|h| {
                        h.trim()
                            .parse()
                            .expect("COUPLING_STEPS: step sizes in seconds")
                    })
                    .collect()
            });
        for h in steps {
            let steps = (self.duration / h).round() as usize;
            let exact = reference(self.body(), &self.start, h, steps, self.substeps(h));
            assert!(exact.events.len() >= 2, "{}: {:?}", self.case, exact.events);
            let at = format!(
                "h={}ms ({:.1}T_c) {} contacts",
                h * 1e3,
                h / t_c,
                exact.events.len()
            );
            for master in Master::EVERY_ORDERING {
                let run = self.run(fmu, master, h);
                let state = |s: &Sample| [s.x, s.v, s.partner_x, s.partner_v];
                // Judged from the 4th step after the one each contact ended in: a master that
                // held no force over the contact's step (body first, or Jacobi when the contact
                // was not foreseen) cannot have the exact motion before the coupling has corrected
                // it (case 1's window for such a contact). The energy "after each contact" is the
                // one at the window's first point (the driven body's energy passes near 0 between
                // contacts, where a relative error means nothing); "never above" holds at all of
                // the window's points, and so do the positions.
                let windows = exact.after_each_contact(4);
                let energy_error =
                    |k: usize| (self.energy)(state(&run[k])) - (self.energy)(exact.states[k]);
                let relative = windows
                    .iter()
                    .map(|w| energy_error(w.start).abs() / (self.energy)(exact.states[w.start]))
                    .fold(0.0, worse);
                let after: Vec<usize> = windows.into_iter().flatten().collect();
                let above = after
                    .iter()
                    .map(|&k| energy_error(k) / e0)
                    .fold(f64::MIN, worse);
                let position = |which: usize| {
                    after
                        .iter()
                        .map(|&k| {
                            let x = [run[k].x, run[k].partner_x][which];
                            (x - exact.states[k][2 * which]).abs() / exact.stroke(which)
                        })
                        .fold(0.0, worse)
                };
                let case = &self.case;
                trace_if_asked(master, case, &at, &run, after.first().copied().unwrap_or(0));
                report.check(
                    master,
                    case,
                    "energy rel. err after contacts",
                    relative,
                    0.02,
                    &at,
                );
                report.check(master, case, "energy above exact / E0", above, 5e-3, &at);
                report.check(
                    master,
                    case,
                    "position err / stroke",
                    position(0),
                    0.02,
                    &at,
                );
                if self.start.partner.is_some() {
                    report.check(
                        master,
                        case,
                        "partner pos err / stroke",
                        position(1),
                        0.02,
                        &at,
                    );
                }
                check_port_energy(report, master, case, &at, &run);
            }
        }
    }
}

/// Case 4a's second body: 1 kg behind the contacting one on a 1e3 N/m spring.
const PARTNER: Partner = Partner {
    mass: 1.0,
    stiffness: 1e3,
    rest_length: 0.1,
};

/// Both bodies' kinetic energy and the spring's between them (case 4a).
fn energy_with_partner(y: State) -> f64 {
    let stretch = y[2] - y[0] - PARTNER.rest_length;
    0.5 * y[1] * y[1]
        + 0.5 * PARTNER.mass * y[3] * y[3]
        + 0.5 * PARTNER.stiffness * stretch * stretch
}

/// Case 4a's systems: c = 1e4 to 1e8 N/m, 1 and 2 m/s, the gap given `m_eff`.
fn each_body_with_partner_behind(m_eff: f64, mut visit: impl FnMut(&System)) {
    for c in [1e4_f64, 1e5, 1e6, 1e7, 1e8] {
        for speed in [1.0, 2.0] {
            visit(&System {
                m_eff,
                ..with_partner_behind(c, speed)
            });
        }
    }
}

/// Case 4a's system at stiffness `c`: both bodies coming in together at `speed`, the first 5 mm
/// from the stop, 0.5 s (two contacts: the first hits the stop, the second pushes it back in).
fn with_partner_behind(c: f64, speed: f64) -> System<'static> {
    System {
        case: format!("c={c:.0e} d={:.0} v={speed}", issue_damping(c)),
        c,
        d: issue_damping(c),
        mass: 1.0,
        m_eff: 1.0,
        external: &free,
        start: Start {
            x: 0.005,
            v: -speed,
            partner: Some((PARTNER, 0.005 + PARTNER.rest_length, -speed)),
            dt_free: 1e-4,
            dt_contact: std::f64::consts::PI * (1.0 / c).sqrt() / 2000.0,
        },
        energy: &energy_with_partner,
        duration: 0.5,
    }
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

/// Case 4b's systems: a 1 kg body on a 200 N/m spring, driven near its resonance by a sinusoidal
/// force into a stiff stop (c = 1e6 N/m), two dampings and four drive frequencies, the gap given
/// `m_eff`.
fn each_driven_body(m_eff: f64, mut visit: impl FnMut(&System)) {
    let (mass, k_s, rest, amplitude) = (1.0_f64, 200.0_f64, 0.01, 2.0);
    let natural = (k_s / mass).sqrt();
    let energy = |y: State| 0.5 * mass * y[1] * y[1] + 0.5 * k_s * (y[0] - rest).powi(2);
    for d in [200.0, 2000.0] {
        for tuning in [0.8, 0.9, 1.0, 1.1] {
            let omega = tuning * natural;
            let external =
                move |t: f64, x: f64, _: f64| -k_s * (x - rest) + amplitude * (omega * t).sin();
            let start = Start {
                x: rest,
                v: -0.5,
                partner: None,
                dt_free: 1e-4,
                dt_contact: std::f64::consts::PI * (mass / 1e6).sqrt() / 2000.0,
            };
            visit(&System {
                case: format!("d={d} drive {tuning}*w_n"),
                c: 1e6,
                d,
                mass,
                m_eff,
                external: &external,
                start,
                energy: &energy,
                duration: 2.0,
            });
        }
    }
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

/// Case 4's systems with the default `m_eff` = 0 under every master (case 4c's, beyond the
/// acceptance cases; docs/coupling.md): at every communication point the bodies' energy stays
/// within 10 times the initial energy of the exact motion's. A body pushed by a spring or a drive
/// never gives the steady external acceleration a clear probe's answer needs, so an unclear probe
/// must not let the next step deliver the whole impulse along the extrapolated motion, nor, under
/// Jacobi, a rough answer let the contact the probes held back be integrated from where the master
/// then is, deep in the stop: either multiplies the energy by many orders of magnitude. The
/// correction through an estimated mass is held to the model's energy; a driven body comes
/// closest to the bound, its drive doing more work on a motion whose phase the first contact put
/// off.
#[test]
fn bodies_not_alone_of_unknown_mass_stay_bounded_under_every_master() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("case 4c's systems: energy above the exact");
    let mut check = |system: &System| {
        let e0 = (system.energy)(system.initial());
        for h in [1e-3, 5e-3, 10e-3] {
            let steps = (system.duration / h).round() as usize;
            let exact = reference(system.body(), &system.start, h, steps, system.substeps(h));
            for master in Master::EVERY_ORDERING {
                let run = system.run(&fmu, master, h);
                let above = run
                    .iter()
                    .zip(&exact.states)
                    .map(|(s, &y)| {
                        let state = [s.x, s.v, s.partner_x, s.partner_v];
                        ((system.energy)(state) - (system.energy)(y)) / e0
                    })
                    .fold(f64::MIN, worse);
                let at = format!("h={}ms", h * 1e3);
                trace_if_asked(master, &system.case, &at, &run, 0);
                report.check(
                    master,
                    &system.case,
                    "energy above exact / E0",
                    above,
                    10.0,
                    &at,
                );
            }
        }
    };
    each_body_with_partner_behind(0.0, &mut check);
    each_driven_body(0.0, check);
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

/// A ball of `mass` falling under `gravity` toward the stop at `speed`, from the height where it
/// meets the stop's edge after `t_in`: its start and its motion under the gap's held force.
fn falling_ball(
    mass: f64,
    gravity: f64,
    speed: f64,
    t_in: f64,
) -> (State, impl Fn(f64, State, f64) -> State) {
    let x0 = speed * t_in + 0.5 * gravity * t_in * t_in;
    let derivative =
        move |_: f64, y: State, held: f64| -> State { [y[1], -held / mass - gravity, 0.0, 0.0] };
    ([x0, -speed, 0.0, 0.0], derivative)
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

/// Random systems a user might couple the gap to, beyond the acceptance cases' grids: a body of
/// 0.1 to 10 kg, alone or with a second body behind it on a spring, under gravity toward the stop
/// or free, meeting c = 1e3 to 1e9 N/m with any damping up to the critical, anywhere in its first
/// three steps, at 0.1 to 100 contact durations per step, the gap given the mass, a mass 0.5 to 2
/// times off, or none, under every master. None of these systems gains energy, so the bodies'
/// energy (kinetic, the spring's, gravity's) at every communication point must stay below 10
/// times the initial energy: what the correction of a held force may lend for a step (case 2's
/// bound of 3 times the impact speed is 9 times the energy), never a blow-up. Not met: with
/// `STRESS_SYSTEMS=1000`, runs under every master go above; docs/coupling.md says which. One
/// system or one master on request: `STRESS_ONLY=<index>`, `STRESS_MASTER=<label>`.
#[test]
#[ignore = "a measurement: cargo test --release --test coupling_robustness stress -- --ignored --nocapture"]
fn stress_random_systems_never_blow_up() {
    let fmu = Fmu::load_default();
    let mut report = Report::new("stress: random systems, energy / E0 at any point");
    let mut draw = Random(0x9e37_79b9_7f4a_7c15);
    let systems: usize = std::env::var("STRESS_SYSTEMS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(200);
    for index in 0..systems {
        let mass = draw.log_uniform(0.1, 10.0);
        let c = draw.log_uniform(1e3, 1e9);
        let critical = 2.0 * (c * mass).sqrt();
        let d = critical * draw.unit().powi(2);
        let speed = draw.log_uniform(0.1, 10.0);
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        let h = t_c * draw.log_uniform(0.1, 100.0);
        let x0 = speed * h * 3.0 * draw.unit();
        let gravity = if draw.unit() < 0.3 {
            draw.log_uniform(0.1, 100.0)
        } else {
            0.0
        };
        let partner = (draw.unit() < 0.5).then(|| {
            let m2 = mass * draw.log_uniform(0.1, 10.0);
            // The two bodies' own oscillation resolved by the master's steps: a period of 10 to
            // 200 steps (a coarser one no held force can follow, contact or not).
            let period = h * draw.log_uniform(10.0, 200.0);
            let k = (2.0 * std::f64::consts::PI / period).powi(2) / (1.0 / mass + 1.0 / m2);
            (m2, k)
        });
        let m_eff = match (draw.unit() * 3.0) as u32 {
            0 => 0.0,
            1 => mass,
            _ => mass * draw.log_uniform(0.5, 2.0),
        };
        let system = Loose {
            mass,
            c,
            d,
            speed,
            h,
            x0,
            gravity,
            partner,
            m_eff,
        };
        let case = format!(
            "#{index} m={mass:.2} c={c:.1e} d/dc={:.2} v={speed:.2} g={gravity:.1} partner={} m_eff={:.2}",
            d / critical,
            partner.map_or("-".to_string(), |(m2, k)| format!("{m2:.2}/{k:.1e}")),
            m_eff / mass
        );
        // One system, or one master, on request: a failing row looked at on its own.
        if std::env::var("STRESS_ONLY").is_ok_and(|only| only != index.to_string()) {
            continue;
        }
        for master in Master::EVERY_ORDERING {
            if std::env::var("STRESS_MASTER").is_ok_and(|m| m != master.label()) {
                continue;
            }
            let (worst, run) = system.worst_energy(&fmu, master, 60);
            let at = format!("h={:.2}T_c x0={:.2}vh", h / t_c, x0 / (speed * h));
            trace_if_asked(master, &case, &at, &run, 0);
            report.check(master, &case, "energy / E0", worst, 10.0, &at);
        }
    }
    report.finish();
}

/// Checks each of `systems` under each of `masters`: no more than `bound` times the initial
/// energy at any communication point over 60 steps.
fn stays_bounded(report: &mut Report, masters: &[Master], systems: &[(String, Loose)], bound: f64) {
    let fmu = Fmu::load_default();
    for (case, system) in systems {
        for &master in masters {
            let at = format!("h={:.2}T_c", system.h / system.contact_duration());
            let key = format!("{case} {at} {}", master.label());
            // One system on request, as in the stress sweep: a failing row looked at on its own.
            if std::env::var("BOUNDED_ONLY").is_ok_and(|only| !key.contains(&only)) {
                continue;
            }
            let (worst, run) = system.worst_energy(&fmu, master, 60);
            trace_if_asked(master, case, &at, &run, 0);
            report.check(master, case, "energy / E0", worst, bound, &at);
        }
    }
}

/// A heavy ball given a mass 0.6 or 0.7 times its own, under strong gravity on a soft floor,
/// met in its first steps at one or two contact durations per step, under a master that steps
/// all units at once: its answers read through the given mass pollute every external
/// acceleration measured after them, so estimates from one answer each wander and the loop can
/// run away (the stress sweep's #1). The answers fitted together tell the mass
/// (`coupling::mass_fit`) and the loop stops. Not met: the stress sweep's bound of 10 times; the
/// ball goes deep into the floor before six answers are in, and its way back up costs more than
/// 10 times the (small) initial energy (docs/coupling.md). Asserted: no runaway, at most 1e4
/// times.
#[test]
fn a_heavy_ball_given_too_little_mass_under_a_jacobi_master_does_not_run_away() {
    let mut report = Report::new("heavy ball, m_eff 0.6-0.7x, Jacobi: energy / E0 (runaway)");
    let mut systems = Vec::new();
    for mass in [1.0_f64, 3.0] {
        for c in [8e3, 3e4] {
            for gravity in [20.0, 37.0] {
                for factor in [0.6, 0.7] {
                    for ratio in [1.0, 2.0] {
                        let system = Loose {
                            gravity,
                            m_eff: factor * mass,
                            ..Loose::lone(mass, c, 0.85, 0.14, ratio, 0.43)
                        };
                        let case = format!("m={mass} c={c:.0e} g={gravity} m_eff=x{factor}");
                        systems.push((case, system));
                    }
                }
            }
        }
    }
    stays_bounded(
        &mut report,
        &[Master::Jacobi, Master::JacobiReadingAfter],
        &systems,
        1e4,
    );
    report.finish();
}

/// A lone body of unknown mass (`m_eff` = 0) under weak gravity, met in the first step at 10 to
/// 70 contact durations per step: no step before tells the external acceleration, so the probes'
/// answers read with it as 0 tell no mass; were probing to end as for a master that prescribes
/// the motion, the next step would give the whole impulse along a motion deep in the stop (the
/// stress sweep's #284). Two answers to probes of different size tell the mass and the
/// acceleration together.
#[test]
fn a_body_of_unknown_mass_met_in_the_first_step_under_weak_gravity_stays_bounded() {
    let mut report = Report::new("unknown mass, first step, weak gravity: energy / E0");
    let mut systems = Vec::new();
    for mass in [0.5_f64, 2.0] {
        for gravity in [0.1, 1.0] {
            for ratio in [10.0, 30.0, 70.0] {
                for phase in [0.2, 0.4, 0.7] {
                    let system = Loose {
                        gravity,
                        ..Loose::lone(mass, 3e5, 0.03, 0.6, ratio, phase)
                    };
                    let case = format!("m={mass} g={gravity} @{phase}");
                    systems.push((case, system));
                }
            }
        }
    }
    stays_bounded(
        &mut report,
        &[Master::GaussSeidel, Master::GaussSeidelBodyFirst],
        &systems,
        10.0,
    );
    report.finish();
}

/// A body of `mass` under `gravity` (m/s^2, toward the stop), alone or with a second body behind
/// it on a spring (`partner`: its mass and the spring's stiffness), `x0` from the stop at `speed`
/// toward it, meeting a stop of stiffness `c` and damping `d` whose gap is given `m_eff`, at steps
/// of `h`: the stress sweep's systems and the sweeps built on its failures.
#[derive(Clone, Copy)]
struct Loose {
    mass: f64,
    c: f64,
    d: f64,
    speed: f64,
    h: f64,
    x0: f64,
    gravity: f64,
    partner: Option<(f64, f64)>,
    m_eff: f64,
}

impl Loose {
    /// The spring's length at rest.
    const REST: f64 = 1.0;

    /// A lone body, free and of unknown mass (`m_eff` = 0), meeting the stop with `damping` of
    /// the critical at `steps_per_contact` contact durations per step, `phase` of its first
    /// step's travel from the stop.
    fn lone(
        mass: f64,
        c: f64,
        damping: f64,
        speed: f64,
        steps_per_contact: f64,
        phase: f64,
    ) -> Loose {
        let t_c = std::f64::consts::PI * (mass / c).sqrt();
        let h = steps_per_contact * t_c;
        Loose {
            mass,
            c,
            d: damping * 2.0 * (c * mass).sqrt(),
            speed,
            h,
            x0: phase * speed * h,
            gravity: 0.0,
            partner: None,
            m_eff: 0.0,
        }
    }

    fn contact_duration(&self) -> f64 {
        std::f64::consts::PI * (self.mass / self.c).sqrt()
    }

    /// The bodies' mechanical energy (kinetic, the spring's, gravity's).
    fn energy(&self, y: State) -> f64 {
        let spring = self.partner.map_or(0.0, |(m2, k)| {
            0.5 * k * (y[2] - y[0] - Self::REST).powi(2) + 0.5 * m2 * y[3] * y[3]
        });
        0.5 * self.mass * y[1] * y[1] + self.mass * self.gravity * y[0] + spring
    }

    /// The largest energy at a communication point over `steps` steps under `master`, in units of
    /// the initial energy, and the run.
    fn worst_energy(&self, fmu: &Arc<Fmu>, master: Master, steps: usize) -> (f64, Vec<Sample>) {
        let Loose {
            mass,
            gravity,
            partner,
            ..
        } = *self;
        let derivative = move |_: f64, y: State, held: f64| -> State {
            let spring = partner.map_or(0.0, |(_, k)| k * (y[2] - y[0] - Self::REST));
            let partner_accel = partner.map_or(0.0, |(m2, _)| -spring / m2);
            [y[1], (spring - held) / mass - gravity, y[3], partner_accel]
        };
        let plant = Plant {
            initial: match partner {
                Some(_) => [self.x0, -self.speed, self.x0 + Self::REST, -self.speed],
                None => [self.x0, -self.speed, 0.0, 0.0],
            },
            derivative: &derivative,
        };
        let gap = Gap {
            c: self.c,
            d: self.d,
            m_eff: self.m_eff,
            s_rel0: 0.0,
        };
        let substeps = partner.map_or(4, |_| 40);
        let run = cosimulate_plant(fmu, gap, &plant, master, self.h, steps, substeps);
        let e0 = self.energy(plant.initial);
        let worst = run
            .iter()
            .map(|s| self.energy([s.x, s.v, s.partner_x, s.partner_v]) / e0)
            .fold(0.0, worse);
        (worst, run)
    }
}
