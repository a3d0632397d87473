//! The dynamic mode's cases, their paired rounds and their criterion rows.

use std::cell::Cell;
use std::hint::black_box;
use std::ptr;

use criterion::Criterion;
use elastogap::coupling::{Correction, Coupling, Pace, PlanStart, SpeedFuse};
use elastogap::laws::GapLaw;
use elastogap::step::dynamic::Dynamics;
use elastogap::step::{integrate_dynamics, DynamicStep, Motion};
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi2;

use super::benchmarks::Counting;
use super::library::{Component, Library, OK};
use super::paired::{quartiles, time_calls, Fmi2DoStep, PAIRED_ROUNDS};
use super::{criterion_dir, relative_motion, TOLERANCE};

// ---------------------------------------------------------------------------------------------
// The dynamic mode (m_eff > 0): whole contacts inside one step, and a step inside a contact
// ---------------------------------------------------------------------------------------------

/// The impact of the dynamic-mode targets: a 1 kg body (`m_eff` = 1 kg) at 1 m/s onto a fixed
/// housing; for n = 1 a contact of about pi*sqrt(m/c) = 3.14 ms.
const DYNAMIC_LAW: GapLaw = GapLaw {
    c: 1e6,
    d: 200.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};
const DYNAMIC_MASS: f64 = 1.0;
/// The body touches down this fraction of a contact duration `T` after the step starts.
const TOUCH_DOWN: f64 = 0.01;
/// Steps holding a whole contact, in contact durations `T` (measured for each law); the first is
/// a little over `T` so that touch-down at `0.01 T` and lift-off both fall inside it.
const WHOLE_CONTACT_STEPS: [(f64, &str); 3] = [(1.05, "1T"), (10.0, "10T"), (100.0, "100T")];
/// The step inside a contact, in contact durations; it is the eleventh of a run of such steps from
/// `TOUCH_DOWN` before the contact, so it holds the contact's middle.
const IN_CONTACT_STEP: f64 = 0.05;
const IN_CONTACT_STEP_INDEX: u32 = 10;
/// The targets' limits, in bare evaluations of the same law measured in the same run.
const WHOLE_CONTACT_LIMIT_N1: f64 = 300.0;
const IN_CONTACT_LIMIT_N1: f64 = 50.0;
const WHOLE_CONTACT_LIMIT_N1_5: f64 = 1000.0;

fn dynamics(tolerance: f64) -> Dynamics {
    Dynamics {
        mass: DYNAMIC_MASS,
        a_ext: 0.0,
        tolerance,
    }
}

/// The duration of the contact of the 1 m/s impact with `law`, integrated tightly.
fn measured_contact_duration(law: &GapLaw) -> f64 {
    let step = integrate_dynamics(
        law,
        Motion {
            s: 1e-9,
            v: -1.0,
            a: 0.0,
        },
        dynamics(1e-12),
        1.0,
    );
    let Some((start, end)) = step.integral.contact_within() else {
        panic!("one contact expected: {step:?}");
    };
    end - start
}

/// One timed dynamic-mode scenario: an instance and the FMU state to restore before every step,
/// so each timed `fmi2DoStep` does the same work.
pub(crate) struct DynamicCase<'a> {
    pub(crate) id: String,
    pub(crate) n: f64,
    h: f64,
    h_over_t: f64,
    limit: f64,
    /// Law (or closed-form) evaluations of the step's two plans (f_mean, f_next), counted by
    /// integrating the same motions in Rust.
    evaluations: u32,
    impulse_error: f64,
    pub(crate) component: Component<'a>,
    state: fmi2::fmi2FMUstate,
    time: f64,
    calls: u32,
    timings: Timings,
}

/// The paired rounds' measurements of one dynamic case.
struct Timings {
    /// The step over one bare evaluation.
    ratios: Vec<f64>,
    /// The same step for a master that steps all units at once: it reads `f_next` after it.
    jacobi_ratios: Vec<f64>,
    restore_ns: Vec<f64>,
    step_ns: Vec<f64>,
}

impl Default for Timings {
    fn default() -> Self {
        let rounds = || Vec::with_capacity(PAIRED_ROUNDS);
        Timings {
            ratios: rounds(),
            jacobi_ratios: rounds(),
            restore_ns: rounds(),
            step_ns: rounds(),
        }
    }
}

/// The correction of an instance's first step: no answer has confirmed `m_eff` yet, so the step
/// holds its own impulse and its shifts are capped (`Correction::robust`).
const FIRST_STEP_CORRECTION: Correction = Correction {
    remaining: [0.0; 2],
    count: 0,
    expected: (0.0, 0.0),
    pace: Pace::ThreeStep,
    robust: true,
    answer_pending: false,
    recover: false,
    energy_bounded: false,
    fuse: SpeedFuse {
        limit: 0.0,
        a_free: 0.0,
    },
};

/// Where the plan of a run's first dynamic step over `h` starts from the relative motion
/// `master`: nothing owed, the first step's correction, no passivity force.
fn first_step_from(master: Motion, h: f64) -> PlanStart {
    PlanStart {
        owed: (0.0, 0.0),
        correction: FIRST_STEP_CORRECTION,
        master,
        dynamics: dynamics(TOLERANCE),
        h,
        passivity: 0.0,
    }
}

/// The evaluations of the two plans of a dynamic step from the relative motion `start` (the
/// f_mean plan, then the f_next plan from where it ends), counted on a copy of the law.
fn dynamic_evaluations(law: &GapLaw, start: Motion, h: f64) -> (u32, DynamicStep) {
    let counting = Counting {
        law: *law,
        evaluations: Cell::new(0),
    };
    let plan = Coupling::plan(&counting, &first_step_from(start, h));
    let next = integrate_dynamics(&counting, plan.step.end, dynamics(TOLERANCE), h);
    (plan.step.evaluations + next.evaluations, plan.step)
}

/// The start of one law's dynamic cases: the 1 m/s impact, `TOUCH_DOWN` contact durations
/// before touch-down.
struct Impact {
    law: GapLaw,
    /// The contact duration `T`, measured.
    t_c: f64,
    /// flange_b's position at the start, `TOUCH_DOWN * T` from the housing.
    x0: f64,
    inputs: [f64; 4],
    /// The FMU's default `maxSubstepSize`.
    max_substep: f64,
}

impl Impact {
    fn new(law: GapLaw, max_substep: f64) -> Impact {
        let t_c = measured_contact_duration(&law);
        let x0 = TOUCH_DOWN * t_c;
        Impact {
            law,
            t_c,
            x0,
            inputs: [0.0, 0.0, x0, -1.0],
            max_substep,
        }
    }

    /// An instance in the dynamic mode with the impact's law, fed its start.
    fn component<'a>(&self, library: &'a Library, id: &str) -> Component<'a> {
        Component::with(
            library,
            id,
            &self.law,
            self.max_substep,
            DYNAMIC_MASS,
            self.inputs,
        )
    }
}

pub(crate) fn dynamic_cases(library: &Library) -> Vec<DynamicCase<'_>> {
    let default_max_substep = by_var(Var::MaxSubstepSize).start.unwrap();
    let mut cases = Vec::new();
    for (law, limit) in [
        (DYNAMIC_LAW, WHOLE_CONTACT_LIMIT_N1),
        (
            GapLaw {
                n: 1.5,
                ..DYNAMIC_LAW
            },
            WHOLE_CONTACT_LIMIT_N1_5,
        ),
    ] {
        let impact = Impact::new(law, default_max_substep);
        for (ratio, label) in WHOLE_CONTACT_STEPS {
            cases.push(whole_contact_case(library, &impact, limit, ratio, label));
        }
        if law.n != 1.0 {
            continue;
        }
        cases.push(in_contact_case(library, &impact));
    }
    calibrate_calls(library, &mut cases);
    cases
}

/// The relative error of `step`'s impulse against the same step from `start` integrated tightly.
fn impulse_error(law: &GapLaw, start: Motion, step: &DynamicStep, h: f64) -> f64 {
    let reference = integrate_dynamics(law, start, dynamics(1e-12), h);
    (step.integral.impulse - reference.integral.impulse).abs() / reference.integral.impulse.abs()
}

/// The step of `ratio` contact durations (`label` in its id) that holds the whole contact of
/// `impact`, from its start.
fn whole_contact_case<'a>(
    library: &'a Library,
    impact: &Impact,
    limit: f64,
    ratio: f64,
    label: &str,
) -> DynamicCase<'a> {
    let (do_step, get_state) = (
        entry!(library, fmi2DoStep),
        entry!(library, fmi2GetFMUstate),
    );
    let law = impact.law;
    let master = relative_motion(impact.inputs, None);
    let id = format!("n{}_whole_contact_{label}", law.n);
    let h = ratio * impact.t_c;
    let component = impact.component(library, &id);
    let raw = component.raw;
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    // SAFETY: a live instance.
    unsafe {
        assert_eq!(get_state(raw, &mut state), OK, "{id}");
        assert_eq!(do_step(raw, 0.0, h, 1), OK, "{id}");
    }
    assert!(!component.contact(), "{id}: the contact ended in the step");
    // The FMU's force is the Rust plan's: the same step is timed as counted here.
    let (evaluations, step) = dynamic_evaluations(&law, master, h);
    assert_eq!(step.integral.transition_count, 2, "{id}: {step:?}");
    let plan = Coupling::plan(&law, &first_step_from(master, h));
    let f_mean = component.real(Var::FMean);
    assert!(
        (f_mean - plan.force).abs() <= 1e-9 * plan.force.abs(),
        "{id}: FMU f_mean {f_mean} vs plan {}",
        plan.force
    );
    let impulse_error = impulse_error(&law, master, &step, h);
    // Reported against the target's 1e-6 (bench_ratios); only a gross error stops the run.
    assert!(
        impulse_error <= 1e-4,
        "{id}: impulse error {impulse_error:e}"
    );
    DynamicCase {
        id,
        n: law.n,
        h,
        h_over_t: ratio,
        limit,
        evaluations,
        impulse_error,
        component,
        state,
        time: 0.0,
        calls: 0,
        timings: Timings::default(),
    }
}

/// A step inside the contact, no switch in it: reached by a Gauss-Seidel master moving the
/// body under the held f_mean.
fn in_contact_case<'a>(library: &'a Library, impact: &Impact) -> DynamicCase<'a> {
    let (do_step, get_state) = (
        entry!(library, fmi2DoStep),
        entry!(library, fmi2GetFMUstate),
    );
    let law = impact.law;
    let id = format!("n{}_in_contact_0.05T", law.n);
    let h = IN_CONTACT_STEP * impact.t_c;
    let component = impact.component(library, &id);
    let raw = component.raw;
    let (mut x, mut v) = (impact.x0, -1.0);
    let mut time = 0.0;
    for _ in 0..IN_CONTACT_STEP_INDEX {
        component.set_inputs([0.0, 0.0, x, v]);
        // SAFETY: a live instance.
        assert_eq!(unsafe { do_step(raw, time, h, 1) }, OK, "{id}");
        time += h;
        let held = component.real(Var::FMean);
        x += h * (v - 0.5 * h * held / DYNAMIC_MASS);
        v -= h * held / DYNAMIC_MASS;
    }
    component.set_inputs([0.0, 0.0, x, v]);
    let start = Motion { s: x, v, a: 0.0 };
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    // SAFETY: a live instance.
    unsafe {
        assert_eq!(get_state(raw, &mut state), OK, "{id}");
        assert_eq!(do_step(raw, time, h, 1), OK, "{id}");
    }
    // In contact at both ends, on the linear damper branch (no bound switch) at both ends.
    let linear = |s: f64, v: f64| {
        let forces = law.evaluate(s, v);
        forces.contact && forces.f_d == law.d * v
    };
    let (s_end, v_end) = (component.real(Var::SRel), component.real(Var::VRel));
    assert!(
        component.contact() && linear(x, v) && linear(s_end, v_end),
        "{id}"
    );
    let (evaluations, step) = dynamic_evaluations(&law, start, h);
    assert_eq!(step.integral.transition_count, 0, "{id}");
    let impulse_error = impulse_error(&law, start, &step, h);
    DynamicCase {
        id,
        n: law.n,
        h,
        h_over_t: IN_CONTACT_STEP,
        limit: IN_CONTACT_LIMIT_N1,
        evaluations,
        impulse_error,
        component,
        state,
        time,
        calls: 0,
        timings: Timings::default(),
    }
}

/// Calls per round: about half a millisecond each side.
fn calibrate_calls(library: &Library, cases: &mut [DynamicCase]) {
    let do_step = entry!(library, fmi2DoStep);
    let set_state = entry!(library, fmi2SetFMUstate);
    for case in cases {
        let (raw, state, time, h) = (case.component.raw, case.state, case.time, case.h);
        let per_call = time_calls(50, || unsafe {
            // SAFETY: a live instance and one of its states.
            assert_eq!(set_state(raw, state), OK);
            assert_eq!(do_step(raw, time, h, 1), OK);
        });
        case.calls = (5e5 / per_call).clamp(20.0, 2000.0) as u32;
    }
}

impl DynamicCase<'_> {
    /// Restores the state and steps: the timed body.
    fn restore_and_step(&self, set_state: SetState, do_step: Fmi2DoStep) {
        // SAFETY: a live instance and one of its states.
        unsafe {
            assert_eq!(set_state(self.component.raw, self.state), OK);
            assert_eq!(do_step(self.component.raw, self.time, self.h, 1), OK);
        }
    }

    /// Restores, steps and reads `f_next`, as a master that steps all units at once does.
    fn restore_step_and_predict(&self, set_state: SetState, do_step: Fmi2DoStep) {
        self.restore_and_step(set_state, do_step);
        black_box(self.component.real(Var::FNext));
    }

    fn restore(&self, set_state: SetState) {
        // SAFETY: a live instance and one of its states.
        unsafe { assert_eq!(set_state(self.component.raw, self.state), OK) };
    }

    /// One paired round: restore + step, restore alone, and the bare evaluation of the same law.
    pub(crate) fn round(&mut self, set_state: SetState, do_step: Fmi2DoStep, evaluation: f64) {
        let step = time_calls(self.calls, || self.restore_and_step(set_state, do_step));
        let restore = time_calls(self.calls, || self.restore(set_state));
        let jacobi = time_calls(self.calls, || {
            self.restore_step_and_predict(set_state, do_step)
        });
        let ns = step - restore;
        let timings = &mut self.timings;
        timings.step_ns.push(ns);
        timings.restore_ns.push(restore);
        timings.ratios.push(ns / evaluation);
        timings.jacobi_ratios.push((jacobi - restore) / evaluation);
    }

    pub(crate) fn report(&mut self) -> serde_json::Value {
        serde_json::json!({
            "n": self.n,
            "h": self.h,
            "h_over_contact_duration": self.h_over_t,
            "limit": self.limit,
            "evaluations": self.evaluations,
            "impulse_error": self.impulse_error,
            "step_ns": quartiles(std::mem::take(&mut self.timings.step_ns)),
            "restore_ns": quartiles(std::mem::take(&mut self.timings.restore_ns)),
            "step_over_evaluation": quartiles(std::mem::take(&mut self.timings.ratios)),
            "step_and_f_next_over_evaluation": quartiles(std::mem::take(&mut self.timings.jacobi_ratios)),
        })
    }
}

pub(crate) type SetState =
    unsafe extern "C" fn(fmi2::fmi2Component, fmi2::fmi2FMUstate) -> fmi2::fmi2Status;

/// Criterion rows of the dynamic cases: `dynamic/<id>` restores the state and steps;
/// `dynamic/restore_<id>` restores alone, to be subtracted.
pub(crate) fn bench_dynamic(c: &mut Criterion, cases: &[DynamicCase]) {
    let library = cases[0].component.library;
    let (set_state, do_step) = (
        entry!(library, fmi2SetFMUstate),
        entry!(library, fmi2DoStep),
    );
    let mut group = c.benchmark_group("dynamic");
    let mut counts = serde_json::Map::new();
    for case in cases {
        group.bench_function(&case.id, |b| {
            b.iter(|| case.restore_and_step(set_state, do_step))
        });
        group.bench_function(format!("restore_{}", case.id), |b| {
            b.iter(|| case.restore(set_state))
        });
        counts.insert(
            case.id.clone(),
            serde_json::json!({
                "n": case.n,
                "h": case.h,
                "h_over_contact_duration": case.h_over_t,
                "limit": case.limit,
                "evaluations": case.evaluations,
                "impulse_error": case.impulse_error,
            }),
        );
    }
    group.finish();
    let path = criterion_dir().join("dynamic_counts.json");
    std::fs::create_dir_all(path.parent().unwrap()).expect("criterion's folder");
    std::fs::write(&path, serde_json::to_string_pretty(&counts).unwrap()).expect("write counts");
}
