//! Inputs a master does not set again, and a prescribed motion under the default parameters,
//! through the core as both FMI layers drive it:
//!
//! - A flange position the master has not set since it was given is that motion continued at the
//!   flange's velocity, wherever the FMU needs it: a step start (a master that sets the inputs only
//!   on its grid, as fmusim after an early return), the event indicators at a solver's trial times
//!   (fmusim's Model Exchange), the outputs. Set before or after the time, a position is the motion
//!   at the time of the first evaluation after it.
//! - With every parameter at its default (`heldForce` = Auto, `m_eff` = 0), a master whose motion
//!   answers no force (an input file that reads every output) gets the rows of `heldForce` = None
//!   from the step at which that is found, which one warning names. Not before the contact's third
//!   step: over its first, a master that holds `f_mean` one step late held the free step's
//!   nothing, and its silence is a prescribed motion's (`tests/contact_dynamics.rs` and
//!   `tests/coupling_robustness/` hold such masters).
//!
//! Each kind over seeded random cases (stiffness, damping, exponent, speed, step, and where in a
//! step the touch-down falls, on a communication point included); the expectation is the motion
//! written out (`s0 + v*t`) or the run with `heldForce` = None.

mod support;

use elastogap::model::{ElastoGap, Interface, StepReport};
use elastogap::variables::Var;
use support::random::Random;

/// A constant-speed approach of flange_b toward the fixed flange_a, as an input file gives it.
#[derive(Clone, Copy, Debug)]
struct Approach {
    c: f64,
    d: f64,
    n: f64,
    speed: f64,
    h: f64,
    /// Where the touch-down falls, in steps from the start.
    touchdown_steps: f64,
}

impl Approach {
    fn draw(random: &mut Random) -> Approach {
        let whole = 3.0 + (random.unit() * 20.0).floor();
        // Every fourth touch-down on a communication point, the others anywhere in a step.
        let fraction = if random.next_u64().is_multiple_of(4) {
            0.0
        } else {
            random.unit()
        };
        Approach {
            c: random.log_uniform(1e2, 1e7),
            d: random.log_uniform(1e-2, 1e3),
            n: [1.0, 1.5, 2.0][(random.next_u64() % 3) as usize],
            speed: random.log_uniform(0.01, 3.0),
            h: random.log_uniform(1e-5, 1e-2),
            touchdown_steps: whole + fraction,
        }
    }

    fn gap(&self) -> f64 {
        self.speed * self.h * self.touchdown_steps
    }

    /// flange_b's position and velocity at `t`: in at `speed`, and out again from `turn` (s).
    fn flange_b(&self, t: f64, turn: f64) -> (f64, f64) {
        if t <= turn {
            (self.gap() - self.speed * t, -self.speed)
        } else {
            (
                self.gap() - self.speed * turn + self.speed * (t - turn),
                self.speed,
            )
        }
    }

    fn instance(&self, held_force: f64) -> ElastoGap {
        let mut model = ElastoGap::new(Interface::CoSimulation, 0.0);
        for (var, value) in [
            (Var::C, self.c),
            (Var::D, self.d),
            (Var::N, self.n),
            (Var::HeldForce, held_force),
        ] {
            model.set_value(var, value);
        }
        let (s, v) = self.flange_b(0.0, f64::INFINITY);
        model.set_value(Var::FlangeBS, s);
        model.set_value(Var::FlangeBV, v);
        model.begin_run();
        model
    }
}

/// Every output a recording master reads after each step (fmusim, FMPy's `simulate_fmu`).
const OUTPUTS: [Var; 12] = [
    Var::F,
    Var::SRel,
    Var::VRel,
    Var::Contact,
    Var::LossPower,
    Var::FMean,
    Var::FNext,
    Var::MEffEstimate,
    Var::ELoss,
    Var::FC,
    Var::FD,
    Var::EPort,
];

/// One row: the outputs after a step, read as a recording master reads them.
fn row(model: &mut ElastoGap) -> [f64; OUTPUTS.len()] {
    OUTPUTS.map(|var| model.read(var))
}

/// A run of `steps` steps of an input-file master, the inputs set at each step's start only where
/// `sets(k)`; the rows and the warnings the steps gave.
fn input_file_run(
    approach: &Approach,
    held_force: f64,
    steps: usize,
    turn: f64,
    sets: impl Fn(usize) -> bool,
) -> (Vec<[f64; OUTPUTS.len()]>, Vec<(usize, String)>) {
    let mut model = approach.instance(held_force);
    let (mut rows, mut warnings, mut warned) = (Vec::new(), Vec::new(), false);
    rows.push(row(&mut model));
    for k in 0..steps {
        let t = k as f64 * approach.h;
        if sets(k) {
            let (s, v) = approach.flange_b(t, turn);
            model.set_value(Var::FlangeBS, s);
            model.set_value(Var::FlangeBV, v);
        }
        let mut report = StepReport::default();
        model
            .do_step(approach.h, &mut report)
            .expect("a finite step");
        model.step_warnings(t, approach.h, &report, &mut warned, |message| {
            warnings.push((k, message.to_string()))
        });
        rows.push(row(&mut model));
    }
    (rows, warnings)
}

/// `a` and `b` are the same to `relative` of their size (both zero, or both below the smallest
/// normal number, count as the same).
fn same(a: f64, b: f64, relative: f64) -> bool {
    (a - b).abs() <= relative * a.abs().max(b.abs()) || a.abs().max(b.abs()) < f64::MIN_POSITIVE
}

#[test]
fn a_position_not_set_again_is_the_motion_continued() {
    let mut random = Random(0x1a2b_3c4d_5e6f_7081);
    for case in 0..40 {
        let approach = Approach::draw(&mut random);
        let skip = 2 + random.next_u64() % 3;
        let steps = (approach.touchdown_steps as usize) + 12;
        for held_force in [1.0, 4.0] {
            // A master that sets the inputs only every `skip` steps against one that sets them
            // at every step: the same motion, so the same rows but for rounding.
            let (sparse, _) = input_file_run(&approach, held_force, steps, f64::INFINITY, |k| {
                (k as u64).is_multiple_of(skip)
            });
            let (every, _) = input_file_run(&approach, held_force, steps, f64::INFINITY, |_| true);
            for (k, (a, b)) in sparse.iter().zip(&every).enumerate() {
                let t = k as f64 * approach.h;
                let exact = approach.flange_b(t, f64::INFINITY).0;
                let scale = approach.gap() + approach.speed * t;
                assert!(
                    (a[1] - exact).abs() <= 1e-12 * scale,
                    "case {case} {approach:?}, heldForce {held_force}: s_rel {} at row {k}, the motion is at {exact}",
                    a[1]
                );
                // heldForce = None: f_mean and f_next along the same motion agree but for the
                // rounding of the motion's start, against the run's largest force. (Under Auto the
                // probes' answers read that rounding too.)
                let compared: &[usize] = if held_force == 4.0 { &[5, 6] } else { &[] };
                for &j in compared {
                    let largest = every.iter().map(|r| r[j].abs()).fold(0.0, f64::max);
                    assert!(
                        (a[j] - b[j]).abs() <= 1e-6 * largest,
                        "case {case} {approach:?}, heldForce {held_force}: {:?} {} against {} at row {k}",
                        OUTPUTS[j],
                        a[j],
                        b[j]
                    );
                }
            }
        }
    }
}

#[test]
fn a_step_after_an_early_return_starts_where_the_motion_is() {
    let mut random = Random(0x7071_7273_7475_7677);
    for case in 0..40 {
        let mut approach = Approach::draw(&mut random);
        // Inside a step, so that the step returns early there.
        approach.touchdown_steps = approach.touchdown_steps.floor() + 0.1 + 0.8 * random.unit();
        let touchdown = approach.gap() / approach.speed;
        for held_force in [1.0, 4.0] {
            let mut model = approach.instance(held_force);
            let mut start = model.clone();
            let (mut time, mut starts, mut grid) = (0.0, Vec::new(), 0usize);
            while time < touchdown + 5.0 * approach.h {
                let next_grid = (grid + 1) as f64 * approach.h;
                if time == grid as f64 * approach.h {
                    // The inputs on the master's grid only, as fmusim sets them.
                    let (s, v) = approach.flange_b(time, f64::INFINITY);
                    model.set_value(Var::FlangeBS, s);
                    model.set_value(Var::FlangeBV, v);
                }
                model.time = time;
                let mut report = StepReport::default();
                let switch = model
                    .do_step_to_switch(next_grid - time, &mut start, &mut report)
                    .expect("a finite step");
                starts.extend(switch.filter(|s| s.entering).map(|s| time + s.tau));
                match switch {
                    Some(switch) => time += switch.tau,
                    None => {
                        time = next_grid;
                        grid += 1;
                    }
                }
                let exact = approach.flange_b(time, f64::INFINITY).0;
                let s_rel = model.read(Var::SRel);
                assert!(
                    (s_rel - exact).abs() <= 1e-12 * (approach.gap() + approach.speed * time),
                    "case {case} {approach:?}, heldForce {held_force}: s_rel {s_rel} at {time}, the motion is at {exact}"
                );
            }
            assert_eq!(
                starts.len(),
                1,
                "case {case} {approach:?}: contact starts at {starts:?}"
            );
            assert!(
                (starts[0] - touchdown).abs() <= 1e-9,
                "case {case} {approach:?}, heldForce {held_force}: the contact starts at {}, the motion touches down at {touchdown}",
                starts[0]
            );
        }
    }
}

#[test]
fn event_indicators_at_trial_times_see_the_motion_there() {
    let mut random = Random(0x0f1e_2d3c_4b5a_6978);
    for case in 0..200 {
        let gap = random.log_uniform(1e-4, 1.0);
        let speed = random.log_uniform(0.01, 10.0);
        let (t1, dt) = (random.unit(), random.log_uniform(1e-9, 1e-1));
        let mut model = ElastoGap::new(Interface::ModelExchange, 0.0);
        model.set_value(Var::C, random.log_uniform(1.0, 1e6));
        let position = |t: f64| gap - speed * t;
        let before_time = random.next_u64().is_multiple_of(2);
        // The inputs for t1, set before or after the time (FMPy and OMSimulator differ there).
        if !before_time {
            model.time = t1;
        }
        model.set_value(Var::FlangeBS, position(t1));
        model.set_value(Var::FlangeBV, -speed);
        model.time = t1;
        let at_t1 = model.derivatives();
        let indicator_t1 = model.event_indicators()[0];
        assert!(
            (indicator_t1 - position(t1)).abs() <= 1e-15 * gap.max(speed),
            "case {case}: the contact indicator at t1 is {indicator_t1}, the gap {}",
            position(t1)
        );
        // A trial time with the inputs not set again, ahead of t1 and behind it.
        for trial in [t1 + dt, t1 - dt.min(t1)] {
            model.time = trial;
            let indicator = model.event_indicators()[0];
            let exact = position(trial);
            assert!(
                (indicator - exact).abs() <= 1e-12 * (gap + speed),
                "case {case}: the contact indicator at {trial} is {indicator}, the gap {exact} (set at {t1})"
            );
        }
        // And the derivative at t1 again: the same as before the trial times.
        model.time = t1;
        assert_eq!(model.derivatives(), at_t1, "case {case}");
    }
}

/// How many of [`defaults_on_an_input_file_give_the_prescribed_rows_once_found`]'s 120 motions are
/// found prescribed by the contact's fourth step at least. The others (a touch-down late in its step
/// or on a communication point, whose first probe is too small to tell; an `f_next` the port's bound
/// made zero) stay along the motion as the probes leave it, as they did before any was found.
const FOUND_BY_THE_FOURTH_STEP: usize = 80;

#[test]
fn defaults_on_an_input_file_give_the_prescribed_rows_once_found() {
    let mut random = Random(0x5eed_0044_0000_0003);
    let (mut on_the_grid, mut found_by_the_fourth) = (0, 0);
    for case in 0..120 {
        let approach = Approach::draw(&mut random);
        let first_contact = approach.touchdown_steps.floor() as usize;
        on_the_grid += usize::from(approach.touchdown_steps.fract() == 0.0);
        // Out again after a few contact steps: the answers are read at constant speed until the
        // contact's fifth step starts (a turn is the motion's own velocity change, which no
        // probe's answer can be told from).
        let turn = (first_contact as f64 + 5.0 + random.unit() * 6.0).floor() * approach.h;
        let steps = first_contact + 20;
        let (auto, warnings) = input_file_run(&approach, 1.0, steps, turn, |_| true);
        let (none, none_warnings) = input_file_run(&approach, 4.0, steps, turn, |_| true);
        assert!(none_warnings.is_empty(), "case {case}: {none_warnings:?}");
        let found: Vec<usize> = warnings
            .iter()
            .filter(|(_, message)| message.contains("Set heldForce = None (4)"))
            .map(|(k, _)| *k)
            .collect();
        assert!(found.len() <= 1, "case {case} {approach:?}: {warnings:?}");
        let Some(&found) = found.first() else {
            continue;
        };
        // Row k + 1 ends step k; the contact's first step is the one the touch-down falls in (or,
        // on a communication point, the one that starts there). Over it a master one step late
        // held nothing: not found before the third.
        let step_of_contact = found + 1 - first_contact;
        assert!(
            step_of_contact >= 3,
            "case {case} {approach:?}: found at the contact's step {step_of_contact}"
        );
        found_by_the_fourth += usize::from(step_of_contact <= 4);
        for (k, (a, b)) in auto.iter().zip(&none).enumerate().skip(found + 1) {
            for (j, var) in OUTPUTS.iter().enumerate() {
                assert!(
                    same(a[j], b[j], 1e-12),
                    "case {case} {approach:?}: {var:?} = {} at row {k}, heldForce = None gives {}",
                    a[j],
                    b[j]
                );
            }
        }
    }
    println!("{found_by_the_fourth} of 120 found by the contact's fourth step");
    assert!(
        found_by_the_fourth >= FOUND_BY_THE_FOURTH_STEP,
        "{found_by_the_fourth} of 120 found by the contact's fourth step"
    );
    assert!(
        on_the_grid >= 20,
        "{on_the_grid} touch-downs on a grid point"
    );
}
