//! Unit tests of the instance through its own interface: refused steps, and what a master that
//! reads `f_next` or not, told or untold which force it holds, gets.

use super::{ElastoGap, Interface, StepReport};
use crate::coupling::Prediction;
use crate::variables::Var;

/// A co-simulation instance with c = 1e4, d = 20 and the effective mass `m_eff`.
fn gap(m_eff: f64) -> ElastoGap {
    let mut gap = ElastoGap::new(Interface::CoSimulation, 0.0);
    gap.set_value(Var::C, 1e4);
    gap.set_value(Var::D, 20.0);
    gap.set_value(Var::MEff, m_eff);
    gap
}

/// A step whose friction would leave `lossPower` infinite (a finite normal force times a
/// slip near the largest double) is refused, so that no output read after an OK step is
/// infinite; the same contact at a slip of 1 m/s steps.
#[test]
fn a_step_whose_friction_power_overflows_is_refused() {
    for (slip, finite) in [(1.0, true), (1e300, false)] {
        // Held still inside the contact, without a mass to push it out.
        let mut gap = gap(0.0);
        gap.set_value(
            Var::FrictionLaw,
            crate::laws::FrictionLaw::Adams as i32 as f64,
        );
        gap.set_value(Var::MuS, 0.5);
        gap.set_value(Var::MuD, 0.4);
        gap.set_value(Var::C, 1e12);
        gap.set_value(Var::FlangeBS, -0.01);
        gap.set_value(Var::VTx, slip);
        let step = gap.do_step(1e-3, &mut StepReport::default());
        assert_eq!(step.is_ok(), finite, "slip {slip}");
        if finite {
            assert!(gap.read(Var::LossPower).is_finite());
        }
    }
}

/// A step whose stiction deformation overflows (a stiction circle near the largest double, a
/// slip near 1e200 over long steps) is refused, so that `xi_x`, `xi_y` read after an OK step are
/// finite and a state taken then restores; the same contact at a slip of 1 m/s steps.
#[test]
fn a_step_whose_stiction_deformation_overflows_is_refused() {
    for (slip, finite) in [(-1.0, true), (-1.2e200, false)] {
        let mut gap = gap(1.0);
        gap.set_value(Var::FrictionLaw, 2.0);
        gap.set_value(Var::MuS, 0.3);
        gap.set_value(Var::MuD, 0.2);
        gap.set_value(Var::FTMax, 15.0);
        gap.set_value(Var::MaxStictionDeformation, 4.5e303);
        gap.set_value(Var::FlangeBS, -1e-3);
        gap.set_value(Var::FlangeBV, -0.5);
        gap.set_value(Var::VTx, 0.3);
        gap.set_value(Var::VTy, slip);
        let mut refused = false;
        for h in [1e-3, 0.25, 1e3] {
            if gap.do_step(h, &mut StepReport::default()).is_err() {
                refused = true;
                break;
            }
            let xi = [gap.read(Var::XiX), gap.read(Var::XiY)];
            assert!(
                xi.iter().all(|x| x.is_finite()),
                "slip {slip}, h = {h}: {xi:?}"
            );
            gap.set_value(Var::FlangeBV, -0.1);
        }
        assert_eq!(refused, !finite, "slip {slip}");
    }
}

/// A body of 1 kg at 1 m/s onto a housing, stepped by a master that holds `f_mean` over each
/// step (it steps the gap first) and reads `f_next` after each step or never, with
/// `heldForce` = `held`: the `f_mean`s it gets, the final `f_next` when read at the end, and
/// the body's final speed.
fn impact(read_f_next: bool, m_eff: f64, held: f64) -> (Vec<f64>, f64, f64) {
    impact_with(m_eff, held, |gap, _| {
        let f_mean = gap.read(Var::FMean);
        if read_f_next {
            gap.read(Var::FNext);
        }
        f_mean
    })
}

/// The impact of [`impact`], the master holding over each step `k` the force `master` reads.
fn impact_with(
    m_eff: f64,
    held: f64,
    mut master: impl FnMut(&mut ElastoGap, usize) -> f64,
) -> (Vec<f64>, f64, f64) {
    let mut gap = gap(m_eff);
    gap.set_value(Var::HeldForce, held);
    let (h, mass) = (0.01, 1.0);
    let (mut s, mut v) = (0.035, -1.0);
    let mut forces = Vec::new();
    for k in 0..12 {
        gap.set_value(Var::FlangeBS, s);
        gap.set_value(Var::FlangeBV, v);
        gap.do_step(h, &mut StepReport::default())
            .expect("a finite step");
        let f = master(&mut gap, k);
        forces.push(f);
        s += h * (v - 0.5 * h * f / mass);
        v -= h * f / mass;
    }
    (forces, gap.read(Var::FNext), v)
}

/// A made `f_next` is read as made (`value`), without bounding it again: it is what the
/// bound gives it at any point before the next step, for every mass and reading of the
/// master, through contact and free flight.
#[test]
fn a_made_f_next_is_what_the_bound_still_gives_it() {
    // Steps where the bound cuts a force: it acts in these runs, so its leaving the made
    // force alone says something.
    let mut cut = 0;
    let h = 0.01;
    for (m_eff, held) in [(0.0, 1.0), (1.0, 1.0), (0.5, 1.0), (2.0, 3.0), (1.0, 2.0)] {
        impact_with(m_eff, held, |gap, k| {
            let made = gap.read(Var::FNext);
            assert!(matches!(
                gap.co_simulation.coupling.f_next(),
                Prediction::Known(_)
            ));
            let law = gap.law();
            let (least_mass, held) = (gap.least_mass(), gap.co_simulation.coupling.next_held());
            let limits = gap.substep_limits();
            // Bounded over the step it is made for, as when it was made.
            let bounded = gap
                .co_simulation
                .coupling
                .bound_next(made, h, least_mass, held);
            let again = gap
                .co_simulation
                .coupling
                .predicted_next(&law, limits, least_mass, held)
                .0;
            let context = format!("m_eff = {m_eff}, heldForce = {held}, step {k}");
            assert_eq!(bounded.to_bits(), made.to_bits(), "{context}");
            assert_eq!(again.to_bits(), made.to_bits(), "{context}");
            cut += usize::from(
                gap.co_simulation
                    .coupling
                    .bound_next(2.0 * made - 1e3, h, least_mass, held)
                    != 2.0 * made - 1e3,
            );
            gap.read(Var::FNext)
        });
    }
    assert!(cut > 0, "the bound never acted");
}

/// Told that the master holds `f_mean`, the FMU gives it the same forces whether it reads
/// `f_next` too or not: after the contact the two forces differ by rounding, and reading
/// `f_next` must not let the fit of the master's answer pick between them by that noise.
#[test]
fn reading_f_next_changes_nothing_a_master_holding_f_mean_gets() {
    for m_eff in [0.0, 1.0] {
        let (reading, next_reading, _) = impact(true, m_eff, 2.0);
        let (not_reading, next_not_reading, _) = impact(false, m_eff, 2.0);
        assert!(reading.iter().any(|f| *f != 0.0), "the body meets the stop");
        let scale = reading.iter().fold(0.0f64, |m, f| m.max(f.abs()));
        let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * scale;
        assert!(
            reading.iter().zip(&not_reading).all(|(a, b)| close(*a, *b)),
            "m_eff = {m_eff}: {reading:?} vs {not_reading:?}"
        );
        assert!(close(next_reading, next_not_reading), "m_eff = {m_eff}");
    }
}

/// Not told (`heldForce` = Auto), a master that reads both forces may hold either: the FMU
/// never sends the body back faster than it came, with or without a mass.
#[test]
fn a_master_reading_both_forces_untold_gets_no_energy() {
    for m_eff in [0.0, 1.0] {
        let (forces, _, v) = impact(true, m_eff, 1.0);
        assert!(forces.iter().any(|f| *f != 0.0), "the body meets the stop");
        assert!(forces.iter().all(|f| f.is_finite()));
        assert!(
            v > 0.0 && v <= 1.0,
            "m_eff = {m_eff}: leaves at {v} m/s from 1"
        );
    }
}

#[test]
fn an_unread_prediction_is_made_when_first_read() {
    let (_, eager, _) = impact(true, 1.0, 1.0);
    let mut gap = gap(1.0);
    gap.set_value(Var::FlangeBS, -1e-3);
    gap.set_value(Var::FlangeBV, -0.5);
    gap.do_step(0.01, &mut StepReport::default())
        .expect("a finite step");
    assert!(matches!(
        gap.co_simulation.coupling.f_next(),
        Prediction::Dynamic(_)
    ));
    let value = gap.value(Var::FNext);
    assert!(value.is_finite() && value != 0.0, "{value}");
    // Read, it is kept: later reads do not integrate again.
    assert_eq!(gap.read(Var::FNext).to_bits(), value.to_bits());
    assert_eq!(
        *gap.co_simulation.coupling.f_next(),
        Prediction::Known(value)
    );
    assert!(gap.co_simulation.coupling.master_reads_next());
    assert!(eager.is_finite());
}

thread_local! {
    /// Set by a test: the next steps are refused as if they had not been finite.
    static REFUSING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// Set by a test: the next steps take the whole machinery, free or not.
    static WHOLE_STEPS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    /// The free steps taken on this thread.
    static FREE_STEPS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// A free step as planned, unless a test has the steps take the whole machinery
/// (`do_step_with`); counted where it is taken.
pub(super) fn unless_whole_steps<T>(free: Option<T>) -> Option<T> {
    let free = free.filter(|_| !WHOLE_STEPS.with(std::cell::Cell::get));
    if free.is_some() {
        FREE_STEPS.with(|n| n.set(n.get() + 1));
    }
    free
}

/// Whether a test refuses the steps (`do_step_with`).
pub(super) fn refusing() -> bool {
    REFUSING.with(std::cell::Cell::get)
}

/// A refused step leaves the coupling as it learnt from the master's motion at the step's
/// start, whatever the step planned, replayed or probed before its test (`ElastoGap::put_back`
/// asserts it): drawn runs of a body dropped onto the stop, with and without
/// gravity, under every held force and a given, wrong or no mass, a master reading `f_next`
/// or not, each step refused once on a copy before it is taken.
#[test]
fn a_refused_step_leaves_the_coupling_as_it_learnt() {
    let mut rng = crate::test_random::Xorshift(0x0dd_5eed);
    let (mut refused, mut replays) = ([0usize; 2], 0);
    for run in 0..48 {
        let mut pick = |low: f64, high: f64| low + (high - low) * rng.unit();
        let held = [1.0, 2.0, 3.0][run % 3];
        let m_eff = [0.0, 1.0, pick(0.3, 3.0)][(run / 3) % 3];
        let reads_next = held == 3.0 || (run / 9) % 2 == 1;
        let gravity = [0.0, 9.81][(run / 18) % 2];
        let mut gap = gap(m_eff);
        gap.set_value(Var::HeldForce, held);
        let (h, mass) = (pick(1e-4, 5e-3), 1.0);
        let (mut s, mut v) = (pick(0.0, 0.02), -pick(0.05, 1.0));
        let mut next = 0.0;
        for _ in 0..200 {
            gap.set_value(Var::FlangeBS, s);
            gap.set_value(Var::FlangeBV, v);
            let mut copy = gap.clone();
            REFUSING.with(|r| r.set(true));
            let result = copy.do_step(h, &mut StepReport::default());
            REFUSING.with(|r| r.set(false));
            assert!(result.is_err(), "run {run}: the step was not refused");
            let mut report = StepReport::default();
            gap.do_step(h, &mut report).expect("a finite step");
            refused[usize::from(report.dynamic)] += 1;
            replays += usize::from(report.replayed_owed.is_some());
            let f_mean = gap.read(Var::FMean);
            let f = if held == 3.0 { next } else { f_mean };
            if reads_next {
                next = gap.read(Var::FNext);
            }
            s += h * (v - 0.5 * h * (f / mass + gravity));
            v -= h * (f / mass + gravity);
        }
    }
    assert!(refused.iter().all(|&n| n > 500), "{refused:?}");
    assert!(replays > 10, "{replays} replays");
}

/// A free step gives what the whole machinery gives, bit for bit: the instance (its coupling
/// and every output) and the step's report after every step of drawn runs, stepped once with
/// free steps and once without. Bodies fly free under gravity or a spring to ground, drift, and
/// are dropped onto the stop, with a given, wrong or no mass, every held force, `f_next` read or
/// not, a contact range off 0, and steps that change their size.
#[test]
fn a_free_step_is_the_whole_step_bit_for_bit() {
    let mut rng = crate::test_random::Xorshift(0xf4ee_57e9);
    let start = FREE_STEPS.with(std::cell::Cell::get);
    let mut steps = 0;
    for run in 0..96 {
        let mut pick = |low: f64, high: f64| low + (high - low) * rng.unit();
        let held = [1.0, 2.0, 3.0][run % 3];
        let m_body = pick(0.2, 5.0);
        let m_eff = [0.0, m_body, m_body * pick(0.3, 3.0)][(run / 3) % 3];
        let reads_next = held == 3.0 || (run / 9) % 2 == 1;
        let (gravity, spring) = [(9.81, 0.0), (0.0, 0.0), (0.0, pick(10.0, 1e3))][(run / 18) % 3];
        let s_rel0 = [0.0, pick(-0.05, 0.05)][(run / 54) % 2];
        let mut fast = gap(m_eff);
        fast.set_value(Var::HeldForce, held);
        fast.set_value(Var::SRel0, s_rel0);
        fast.set_value(Var::C, 10f64.powf(pick(3.0, 6.0)));
        let mut whole = fast.clone();
        let mut h = pick(1e-4, 5e-3);
        let (mut s, mut v) = (s_rel0 + pick(-0.001, 0.2), pick(-1.0, 1.0));
        let mut next = 0.0;
        for k in 0..300 {
            if k % 50 == 49 {
                h *= pick(0.5, 2.0);
            }
            let mut reports = [StepReport::default(), StepReport::default()];
            let pair = [(&mut fast, false), (&mut whole, true)];
            for ((gap, take_whole), report) in pair.into_iter().zip(&mut reports) {
                gap.set_value(Var::FlangeBS, s);
                gap.set_value(Var::FlangeBV, v);
                WHOLE_STEPS.with(|w| w.set(take_whole));
                let done = gap.do_step(h, report);
                WHOLE_STEPS.with(|w| w.set(false));
                done.expect("a finite step");
            }
            let context = format!("run {run}, step {k}");
            assert_eq!(
                format!("{:?}", reports[0]),
                format!("{:?}", reports[1]),
                "{context}"
            );
            let f_mean = fast.read(Var::FMean);
            assert_eq!(
                f_mean.to_bits(),
                whole.read(Var::FMean).to_bits(),
                "{context}"
            );
            let f = if held == 3.0 { next } else { f_mean };
            if reads_next {
                next = fast.read(Var::FNext);
                assert_eq!(
                    next.to_bits(),
                    whole.read(Var::FNext).to_bits(),
                    "{context}"
                );
            }
            assert_eq!(format!("{fast:?}"), format!("{whole:?}"), "{context}");
            let a = -(f + spring * (s - s_rel0 - 0.1)) / m_body - gravity;
            s += h * (v + 0.5 * h * a);
            v += h * a;
            steps += 1;
        }
    }
    let free = FREE_STEPS.with(std::cell::Cell::get) - start;
    assert!(free > steps / 4, "{free} free steps of {steps}");
}
