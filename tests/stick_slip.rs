//! Stick–slip co-simulated beyond the classic example: other blocks, normal forces, stiction
//! deformations and directions in the plane, communication steps from 0.5 to 10 ms, and masters
//! that order their units three ways. Each run's slip onsets against the reference with every
//! switch located (`tests/support/stick_slip.rs`), and the master's own account of the work its
//! block did on the contact against what the stiction spring can hold. A slip a rig prescribes,
//! against the model along the continuous slip.
//!
//! `cargo test --release --test stick_slip -- --nocapture` prints the table of docs/force-laws.md.

mod support;

use support::laws::adams_step;
use support::stick_slip::{
    assert_onsets_match, onset_errors, pressed, Order, Oscillator, OSCILLATOR,
};
use support::{Fmu, Status};

/// The oscillators: the classic one, and others whose oscillation on the stiction spring after
/// sticking again stays below `v_s` (so that the onsets are the reference's, not a quiver at the
/// threshold).
fn oscillators() -> Vec<(&'static str, Oscillator)> {
    vec![
        ("classic", OSCILLATOR),
        (
            "5 kg, 50 N, belt 0.05 m/s",
            Oscillator {
                mass: 5.0,
                pull: 500.0,
                belt: 0.05,
                normal: 50.0,
                ..OSCILLATOR
            },
        ),
        (
            "0.4 kg, delta 2e-5 m, at 2.2 rad",
            Oscillator {
                mass: 0.4,
                pull: 60.0,
                normal: 12.0,
                delta: 2e-5,
                angle: 2.2,
                ..OSCILLATOR
            },
        ),
        (
            "2 kg, delta 1e-3 m, v_s 0.2 m/s",
            Oscillator {
                mass: 2.0,
                pull: 150.0,
                belt: 0.3,
                normal: 30.0,
                mu_s: 0.6,
                mu_d: 0.25,
                delta: 1e-3,
                v_s: 0.2,
                v_d: 0.6,
                angle: -0.7,
                guided: false,
            },
        ),
    ]
}

/// The phase per step of the sticking spring up to which the onsets are held to 1 % of the
/// period: beyond it, the six steps before the master's answers tell the mass (the slip held over
/// each) may break the stick.
const ASSERTED_PHASE: f64 = 1.6;

#[test]
fn stick_slip_onsets_hold_over_oscillators_steps_and_masters() {
    let fmu = Fmu::load_default();
    let duration = 6.0;
    println!("| oscillator | master | h (ms) | omega*h | onsets | worst onset error (% of period) | pull at onsets (%) | least port energy (share of the spring's) |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut failures = Vec::new();
    for (name, oscillator) in oscillators() {
        let reference = oscillator.reference(duration);
        assert!(reference.len() >= 3, "{name}: {reference:?}");
        // What the stiction spring holds at most.
        let capacity = 0.5 * oscillator.mu_s * oscillator.normal * oscillator.delta;
        for order in [Order::GapFirst, Order::BodiesFirst, Order::Jacobi] {
            for h in [5e-4, 1e-3, 2e-3, 5e-3, 1e-2] {
                let run = oscillator.cosimulate(&fmu, h, duration, order);
                let (timing, pull) = onset_errors(&run.onsets, &reference);
                let phase = oscillator.stiction_omega() * h;
                let energy = run.least_port_energy / capacity;
                println!(
                    "| {name} | {order:?} | {} | {phase:.2} | {} of {} | {:.2} | {:.3} | {energy:.3} |",
                    h * 1e3,
                    run.onsets.len(),
                    reference.len(),
                    100.0 * timing,
                    100.0 * pull,
                );
                let told = run.messages.iter().any(|m| m.contains("tell a mass"));
                let warned = run.messages.iter().any(|m| m.contains("omega*h"));
                let asserted = phase <= ASSERTED_PHASE && h <= 5e-3;
                let holds = run.onsets.len() == reference.len()
                    && timing <= 0.01
                    && pull <= 0.01
                    && energy >= -0.1;
                if !told || warned != (phase > 2.0) || (asserted && !holds) {
                    failures.push(format!(
                        "{name}, {order:?}, h = {h}: told a mass {told}, warned {warned}, {run:?}"
                    ));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The mean sticking or sliding force over a step of the slip `v` held, from the deformation
/// `xi` (1-D: the circle is `|xi| <= delta`), by 10,000 substeps of the clamped deformation: the
/// model along a prescribed slip, computed apart from the FMU. Returns the mean and the
/// deformation at the step's end.
fn held_step(o: &Oscillator, xi: f64, v: f64, h: f64) -> (f64, f64) {
    if v.abs() >= o.v_s {
        let mu = adams_step(v.abs(), o.v_s, o.mu_s, o.v_d, o.mu_d);
        return (v.signum() * mu * o.normal, o.delta.copysign(v));
    }
    let spring = o.mu_s * o.normal / o.delta;
    let pieces = 10_000;
    let dt = h / pieces as f64;
    let at = |t: f64| (xi + v * t).clamp(-o.delta, o.delta);
    let integral: f64 = (0..pieces)
        .map(|k| 0.5 * (at(k as f64 * dt) + at((k + 1) as f64 * dt)) * dt)
        .sum();
    (spring * integral / h, at(h))
}

/// The mean force over `[t, t + h]` along the continuous slip `slip(t)` (1-D), by 20,000
/// substeps: sticking (below `v_s`) the deformation follows the slip within `|xi| <= delta`,
/// slipping it lies at `delta` along it and the force is Adams' curve. Returns the mean and the
/// deformation at the end.
fn true_step(o: &Oscillator, xi: f64, slip: impl Fn(f64) -> f64, t: f64, h: f64) -> (f64, f64) {
    let spring = o.mu_s * o.normal / o.delta;
    let pieces = 20_000;
    let dt = h / pieces as f64;
    let (mut xi, mut impulse) = (xi, 0.0);
    for k in 0..pieces {
        let v = slip(t + (k as f64 + 0.5) * dt);
        let force = if v.abs() >= o.v_s {
            xi = o.delta.copysign(v);
            v.signum() * o.normal * adams_step(v.abs(), o.v_s, o.mu_s, o.v_d, o.mu_d)
        } else {
            let start = xi;
            xi = (xi + v * dt).clamp(-o.delta, o.delta);
            spring * 0.5 * (start + xi)
        };
        impulse += force * dt;
    }
    (impulse / h, xi)
}

#[test]
fn a_slip_the_master_prescribes_gets_the_force_of_its_path() {
    // A rig drives the slip as v = A*sin(2*pi*f*t), through sticking and slipping. The master
    // holds the slip over each step; the truth is the model along the continuous sine. While it
    // sticks inside the circle, such a slip answers the stiction spring exactly as a body of
    // mu_s*|f|/(delta*(2*pi*f)^2) kg would, and the FMU may take it for one and integrate the
    // slip through it. Its step means against the truth, next to those of the slip held over
    // each step (what the FMU gives without a mass), in RMS over the run.
    let fmu = Fmu::load_default();
    let o = OSCILLATOR;
    let capacity = o.mu_s * o.normal;
    for (amplitude, frequency, h) in [
        (0.02, 5.0, 1e-3),
        (0.2, 2.0, 2e-3),
        (1e-3, 40.0, 5e-4f64),
        (0.04, 1.0, 1e-3),
    ] {
        let slip = |t: f64| amplitude * (2.0 * std::f64::consts::PI * frequency * t).sin();
        let mut gap = pressed(&fmu, &o.parameters(), o.normal);
        let steps = (0.6 / h).round() as usize;
        let (mut xi_held, mut xi_true) = (0.0, 0.0);
        let (mut fmu_error, mut held_error) = (0.0, 0.0);
        for k in 0..steps {
            let t = k as f64 * h;
            assert_eq!(gap.set_real_by_name("v_tx", slip(t)), Status::Ok);
            assert_eq!(gap.do_step(t, h, true), Status::Ok, "{:?}", gap.logs());
            let (held, truth);
            (held, xi_held) = held_step(&o, xi_held, slip(t), h);
            (truth, xi_true) = true_step(&o, xi_true, slip, t, h);
            fmu_error += (gap.real("f_tx_mean") - truth).powi(2);
            held_error += (held - truth).powi(2);
        }
        let rms = |sum: f64| (sum / steps as f64).sqrt() / capacity;
        let told = gap
            .logs()
            .iter()
            .filter(|r| r.message.contains("tell a mass"))
            .count();
        println!(
            "A = {amplitude} m/s, f = {frequency} Hz, h = {h} s: RMS error of the step means against the continuous slip's, in mu_s*|f|: FMU {:.2e}, slip held {:.2e}; masses told {told}",
            rms(fmu_error),
            rms(held_error)
        );
        assert!(
            rms(fmu_error) <= 2.0 * rms(held_error) + 1e-3,
            "A = {amplitude}, f = {frequency}: {} against {}",
            rms(fmu_error),
            rms(held_error)
        );
    }
}

#[test]
fn a_block_guided_across_the_contacts_axes_holds_under_gauss_seidel() {
    // On a rail along 2.2 rad the block has no mass across the rail, which the FMU's isotropic
    // mass does not model. A master that holds the step's own force absorbs the rail's reaction
    // in each answer; under a Jacobi master (which holds the force a step older) the force across
    // the rail oscillates from step to step beyond 0.5 ms: printed, the limit docs/coupling.md
    // states.
    let fmu = Fmu::load_default();
    let guided = Oscillator {
        mass: 0.4,
        pull: 60.0,
        normal: 12.0,
        delta: 2e-5,
        angle: 2.2,
        guided: true,
        ..OSCILLATOR
    };
    let reference = guided.reference(6.0);
    for order in [Order::GapFirst, Order::BodiesFirst, Order::Jacobi] {
        for h in [5e-4, 1e-3, 2e-3] {
            let run = guided.cosimulate(&fmu, h, 6.0, order);
            let (timing, pull) = onset_errors(&run.onsets, &reference);
            let capacity = 0.5 * guided.mu_s * guided.normal * guided.delta;
            println!(
                "guided, {order:?}, h = {h}: {} of {} onsets, worst {:.2} % of the period, pull {:.3} %, least port energy {:.2} of the spring's",
                run.onsets.len(),
                reference.len(),
                100.0 * timing,
                100.0 * pull,
                run.least_port_energy / capacity
            );
            if order != Order::Jacobi || h <= 5e-4 {
                assert_onsets_match(&run, &reference, &format!("{order:?}, h = {h}"));
            }
        }
    }
}

#[test]
fn the_tangential_mass_comes_from_the_answers_whatever_m_eff_says() {
    // m_eff is the normal motion's effective mass, a user's estimate: set 2 times too large or
    // too small, it does not enter the slip's dynamics, and the onsets stay the reference's.
    let fmu = Fmu::load_default();
    let reference = OSCILLATOR.reference(6.0);
    for m_eff in [0.5, 2.0] {
        for h in [1e-3, 5e-3] {
            let run =
                OSCILLATOR.cosimulate_with(&fmu, h, 6.0, Order::GapFirst, &[("m_eff", m_eff)]);
            let (timing, pull) = onset_errors(&run.onsets, &reference);
            println!(
                "m_eff = {m_eff} kg, h = {h}: onsets {:.2} %, pull {:.3} %",
                100.0 * timing,
                100.0 * pull
            );
            assert_onsets_match(&run, &reference, &format!("m_eff = {m_eff}, h = {h}"));
        }
    }
}
