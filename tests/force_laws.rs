//! Every normal force law of `forceLaw`, through the packaged FMU, against a reference
//! computed here another way (`tests/support/laws.rs`: the laws written out again from their
//! definitions, an RK4 integration at 1 µs with the lift-off located). A 1 kg body arrives at a
//! fixed housing at 1 m/s (c = 1e4 N/m, d = 20 N.s/m, n = 1 and 1.5, d_max = 1e-3 m, e = 0.8,
//! everything else at its default); the master couples it with `m_eff` = 1 kg at communication
//! steps of 1 ms and 10 ms (the contact lasts about 31 ms), holding `f_mean` (Gauss–Seidel) or
//! `f_next` (Jacobi). The effective coefficient of restitution and `E_loss` must agree with the
//! reference within 0.1 %.
//!
//! `cargo test --release --test force_laws -- --nocapture` prints the table of errors.

mod support;

use support::impact::{cosimulate_with_parameters, MASS, SPEED};
use support::laws::{model_exchange_impact, reference_impact, Contact, LawCase, Rebound};
use support::masters::Master;
use support::{Fmu, FmuState, Instance, Status};

const C: f64 = 1e4;
const D: f64 = 20.0;
const D_MAX: f64 = 1e-3;
const E: f64 = 0.8;
const REFERENCE_STEP: f64 = 1e-6;

/// Every law, with the settings above; RecurDyn's own defaults (`n_d` = 1, `rdf` = 0.001)
/// and once with `rdf` = 1 (no rebound factor); the Gap Force at its defaults (`n_v` = 1, its range
/// the one-sided contact `s_rel < s_rel0`) and with a nonlinear damper.
const CASES: [LawCase; 10] = [
    LawCase::ElastoGap,
    LawCase::SpringDamper,
    LawCase::NoPulling,
    LawCase::HuntCrossley { e: E },
    LawCase::AdamsImpact { d_max: D_MAX },
    LawCase::RecurDynPower {
        n_d: 1.0,
        rdf: 0.001,
    },
    LawCase::RecurDynStep {
        d_max: D_MAX,
        rdf: 0.001,
    },
    LawCase::RecurDynStep {
        d_max: D_MAX,
        rdf: 1.0,
    },
    LawCase::GapForce { n_v: 1.0 },
    LawCase::GapForce { n_v: 1.5 },
];

fn contact(law: LawCase, n: f64) -> Contact {
    Contact { law, c: C, d: D, n }
}

fn relative_error(value: f64, exact: f64) -> f64 {
    (value / exact - 1.0).abs()
}

#[test]
fn the_reference_impacts_are_converged_and_balance_energy() {
    for n in [1.0, 1.5] {
        for law in CASES {
            let fine = reference_impact(&contact(law, n), MASS, SPEED, REFERENCE_STEP);
            let coarse = reference_impact(&contact(law, n), MASS, SPEED, 2.0 * REFERENCE_STEP);
            assert!(
                relative_error(coarse.restitution, fine.restitution) < 1e-7
                    && relative_error(coarse.dissipated, fine.dissipated) < 1e-7,
                "{law:?}, n = {n}: {fine:?} at 1 µs, {coarse:?} at 2 µs"
            );
            // What the body lost is what the contact dissipated: the spring gives back all it
            // stored by the lift-off.
            let lost = 0.5 * MASS * SPEED * SPEED * (1.0 - fine.restitution.powi(2));
            assert!(
                (lost - fine.dissipated).abs() < 1e-8,
                "{law:?}, n = {n}: lost {lost}, dissipated {}",
                fine.dissipated
            );
            assert!(fine.restitution > 0.0 && fine.restitution <= 1.0 + 1e-12);
        }
    }
}

#[test]
fn the_spring_damper_reference_is_the_damped_oscillator_in_closed_form() {
    // Linear spring and damper in contact until the penetration is 0 again: half a damped
    // period, rebound exp(-zeta*pi/sqrt(1 - zeta^2)).
    let zeta = D / (2.0 * (C * MASS).sqrt());
    let exact = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
    let rebound = reference_impact(
        &contact(LawCase::SpringDamper, 1.0),
        MASS,
        SPEED,
        REFERENCE_STEP,
    );
    assert!(
        relative_error(rebound.restitution, exact) < 1e-9,
        "{rebound:?} against {exact}"
    );
}

#[test]
fn every_law_gives_the_reference_restitution_and_loss_through_the_packaged_fmu() {
    let fmu = Fmu::load_default();
    let mut worst: f64 = 0.0;
    println!("law | n | step | master | e_eff FMU | e_eff reference | error | E_loss error");
    for n in [1.0, 1.5] {
        for law in CASES {
            let exact: Rebound = reference_impact(&contact(law, n), MASS, SPEED, REFERENCE_STEP);
            let mut parameters = vec![("c", C), ("d", D), ("n", n), ("m_eff", MASS)];
            parameters.extend(law.settings());
            for h in [1e-3, 1e-2] {
                for master in Master::ALL {
                    let run =
                        cosimulate_with_parameters(&fmu, h, &parameters, exact.duration, master)
                            .unwrap_or_else(|e| panic!("{law:?}, n = {n}, h = {h}: {e}"));
                    let restitution = run.impact.restitution;
                    let e_error = relative_error(restitution, exact.restitution);
                    let loss_error = relative_error(run.impact.dissipated, exact.dissipated);
                    println!(
                        "{law:?} | {n} | {h} | {} | {restitution:.9} | {:.9} | {e_error:.1e} | {loss_error:.1e}",
                        master.label(),
                        exact.restitution
                    );
                    assert!(
                        e_error < 1e-3 && loss_error < 1e-3,
                        "{law:?}, n = {n}, h = {h}, {master:?}: restitution {restitution} \
                         against {}, E_loss {} against {}",
                        exact.restitution,
                        run.impact.dissipated,
                        exact.dissipated
                    );
                    worst = worst.max(e_error).max(loss_error);
                }
            }
        }
    }
    println!("largest relative error: {worst:.2e}");
}

#[test]
fn every_law_gives_the_reference_impact_through_model_exchange_with_located_events() {
    // The importer's solver integrates; the FMU's event indicators must mark the contact and
    // every kink of the law, or steps across them would cost accuracy.
    let fmu = Fmu::load_default();
    for n in [1.0, 1.5] {
        for law in CASES {
            let exact = reference_impact(&contact(law, n), MASS, SPEED, REFERENCE_STEP);
            let mut parameters = vec![("c", C), ("d", D), ("n", n)];
            parameters.extend(law.settings());
            let (rebound, events) =
                model_exchange_impact(&fmu, &parameters, MASS, SPEED, 2.0 * REFERENCE_STEP)
                    .unwrap_or_else(|e| panic!("{law:?}, n = {n}: {e}"));
            let e_error = relative_error(rebound.restitution, exact.restitution);
            let loss_error = relative_error(rebound.dissipated, exact.dissipated);
            println!(
                "Model Exchange {law:?}, n = {n}: e_eff {:.9} ({e_error:.1e}), E_loss {:.9} \
                 ({loss_error:.1e}), {events} events",
                rebound.restitution, rebound.dissipated
            );
            assert!(
                e_error < 1e-5 && loss_error < 1e-5,
                "{law:?}, n = {n}: {rebound:?} against {exact:?}"
            );
            assert!(
                events >= 2,
                "{law:?}, n = {n}: contact start and end are events"
            );
        }
    }
}

/// One instance of the gap with `parameters`, initialized with the body at `x`, `v`.
fn gap_with(fmu: &std::sync::Arc<Fmu>, name: &str, parameters: &[(&str, f64)]) -> Instance {
    let mut gap = Instance::new(fmu, name);
    assert_eq!(gap.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(gap.enter_initialization_mode(), Status::Ok);
    for &(parameter, value) in parameters {
        assert_eq!(gap.set_by_name(parameter, value), Status::Ok, "{parameter}");
    }
    assert_eq!(gap.exit_initialization_mode(), Status::Ok);
    gap
}

/// A Gauss–Seidel master moving the body at flange_b (flange_a fixed at 0) exactly under
/// `-f_mean` of each step; returns the body's motion and the heat that left through the heat port.
struct Body {
    t: f64,
    x: f64,
    v: f64,
    heat: f64,
}

impl Body {
    fn step(&mut self, gap: &mut Instance, h: f64) {
        assert_eq!(gap.set_real_by_name("flange_b.s", self.x), Status::Ok);
        assert_eq!(gap.set_real_by_name("flange_b.v", self.v), Status::Ok);
        assert_eq!(gap.do_step(self.t, h, true), Status::Ok, "{:?}", gap.logs());
        let a = -gap.real("f_mean") / MASS;
        self.heat -= gap.real("heatPort.Q_flow") * h;
        self.x += h * (self.v + 0.5 * a * h);
        self.v += a * h;
        self.t += h;
    }
}

#[test]
fn every_law_sends_its_loss_through_the_heat_port_and_continues_identically_from_a_state() {
    // Stopped in the middle of the contact, a serialized state restored in another instance
    // continues bit for bit: Hunt-Crossley's touch-down speed is in the state too. The heat that
    // left through the heat port over the steps is E_loss.
    let fmu = Fmu::load_default();
    let h = 2e-3;
    for n in [1.0, 1.5] {
        for law in CASES {
            for m_eff in [0.0, MASS] {
                let mut parameters = vec![
                    ("c", C),
                    ("d", D),
                    ("n", n),
                    ("m_eff", m_eff),
                    ("useHeatPort", 1.0),
                ];
                parameters.extend(law.settings());
                let label = format!("{law:?}, n = {n}, m_eff = {m_eff}");
                let mut source = gap_with(&fmu, "source", &parameters);
                let mut body = Body {
                    t: 0.0,
                    x: 2.5 * h * SPEED,
                    v: -SPEED,
                    heat: 0.0,
                };
                // The contact starts in step 3 and lasts about 16 steps.
                for _ in 0..10 {
                    body.step(&mut source, h);
                }
                assert!(source.boolean("contact"), "{label}: in contact at the cut");
                let mut state = FmuState::null();
                assert_eq!(source.get_fmu_state(&mut state), Status::Ok);
                let (status, bytes) = source.serialize_fmu_state(&state);
                assert_eq!(status, Status::Ok);
                let cut = Body { ..body };
                for _ in 10..40 {
                    body.step(&mut source, h);
                }
                let e_loss = source.real("E_loss");
                assert!(
                    (body.heat - e_loss).abs() <= 1e-12 * e_loss,
                    "{label}: heat {} against E_loss {e_loss}",
                    body.heat
                );
                assert!(body.v > 0.0 && e_loss > 0.0, "{label}: a rebound");

                let mut target = gap_with(&fmu, "target", &[]);
                let mut restored = FmuState::null();
                assert_eq!(
                    target.deserialize_fmu_state(&bytes, &mut restored),
                    Status::Ok
                );
                assert_eq!(target.set_fmu_state(&restored), Status::Ok);
                let mut again = cut;
                for _ in 10..40 {
                    again.step(&mut target, h);
                }
                assert_eq!(
                    (again.x.to_bits(), again.v.to_bits(), again.heat.to_bits()),
                    (body.x.to_bits(), body.v.to_bits(), body.heat.to_bits()),
                    "{label}: the restored state continues otherwise"
                );
                assert_eq!(target.real("E_loss").to_bits(), e_loss.to_bits(), "{label}");
                assert_eq!(source.free_fmu_state(&mut state), Status::Ok);
                assert_eq!(target.free_fmu_state(&mut restored), Status::Ok);
            }
        }
    }
}

#[test]
fn every_law_gives_directional_derivatives_of_its_force_and_loss() {
    // fmi2GetDirectionalDerivative of f and lossPower by the positions and velocities, against
    // central differences of the values read through fmi2GetReal, in contact on either side of
    // every kink.
    let fmu = Fmu::load_default();
    for n in [1.0, 1.5] {
        for law in CASES {
            let mut parameters = vec![("c", C), ("d", D), ("n", n)];
            parameters.extend(law.settings());
            let mut gap = gap_with(&fmu, "derivatives", &parameters);
            let [f, loss, s_b, v_b] = ["f", "lossPower", "flange_b.s", "flange_b.v"]
                .map(|name| gap.vr(name, support::VarType::Real));
            let points = [
                (-3.1e-3_f64, -1.07_f64),
                (-2.3e-3, 0.31),
                (-6.7e-3, 2.53),
                (-5.3e-4, -0.21),
                (-1.1e-3, 2.9),
            ];
            for (s, v) in points {
                let read = |gap: &mut Instance, s: f64, v: f64| {
                    assert_eq!(gap.set_real(&[s_b, v_b], &[s, v]), Status::Ok);
                    let (status, values) = gap.get_real(&[f, loss]);
                    assert_eq!(status, Status::Ok);
                    values
                };
                let (hs, hv) = (1e-6 * s.abs(), 1e-7);
                let ds: Vec<f64> = read(&mut gap, s + hs, v)
                    .iter()
                    .zip(read(&mut gap, s - hs, v))
                    .map(|(up, down)| (up - down) / (2.0 * hs))
                    .collect();
                let dv: Vec<f64> = read(&mut gap, s, v + hv)
                    .iter()
                    .zip(read(&mut gap, s, v - hv))
                    .map(|(up, down)| (up - down) / (2.0 * hv))
                    .collect();
                read(&mut gap, s, v);
                for (known, numeric) in [(s_b, ds), (v_b, dv)] {
                    let (status, analytic) =
                        gap.get_directional_derivative(&[f, loss], &[known], &[1.0]);
                    assert_eq!(status, Status::Ok);
                    for (a, b) in analytic.iter().zip(&numeric) {
                        assert!(
                            (a - b).abs() <= 1e-5 * a.abs().max(b.abs()).max(1.0),
                            "{law:?}, n = {n}, at s = {s}, v = {v}, by vr {known}: \
                             {analytic:?} against {numeric:?}"
                        );
                    }
                }
            }
        }
    }
}
