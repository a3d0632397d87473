//! The step real masters take (`master` in `paired_ratios.json`): a 1 kg body at flange_b, flange_a
//! fixed, moved by a master through the C ABI as an importer moves it: on every step `fmi2SetReal`
//! of the body's position and velocity, `fmi2DoStep`, `fmi2GetReal` of the force the master holds,
//! and the body moved exactly under that force held over the step (and gravity, where the scenario
//! has it). Each configuration a master uses, in each kind of step an end stop sees, is timed per
//! step with its set and get calls, and paired in every round against the prescribed step
//! (`heldForce` = None, in the same scenario) and against the C step (`benches/c/baseline_step.c`
//! fed the same inputs). `benches/c/master.c` drives the packaged binary the same way from C.
//!
//! A scenario's steps are recorded once from the master's own run; every timed replay restores the
//! FMU state at their start and feeds the same inputs, so every replay does the same work (checked:
//! the same forces, bit for bit). The restore alone is timed beside it and subtracted.

use std::hint::black_box;
use std::ptr;

use elastogap::laws::GapLaw;
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi2;

use super::c_baseline::{CBaseline, CInstance};
use super::dynamic::SetState;
use super::library::{held_force, vr, Component, Library, OK};
use super::paired::{quartiles, time_calls, Fmi2DoStep, Fmi2SetReal, PAIRED_ROUNDS};

/// The communication step and the body.
const H: f64 = 1e-3;
const MASS: f64 = 1.0;
const GRAVITY: f64 = 9.81;
/// The stop: with 1 kg a contact of about 10 ms, ten steps; damping ratio 0.1.
const STIFFNESS: f64 = 1e5;
const DAMPING_RATIO: f64 = 0.1;
/// Each side of a row is timed for about this long per round, in ns.
const SIDE_NS: f64 = 3e5;

fn stop() -> GapLaw {
    GapLaw {
        c: STIFFNESS,
        d: 2.0 * DAMPING_RATIO * (STIFFNESS * MASS).sqrt(),
        s_rel0: 0.0,
        n: 1.0,
        s_ref: 1.0,
        f_ref: 0.0,
    }
}

/// How a master couples the FMU: `heldForce` and `m_eff`.
#[derive(Clone, Copy)]
struct Configuration {
    name: &'static str,
    held_force: &'static str,
    m_eff: f64,
}

/// The prescribed step first: every other configuration is paired against it.
const CONFIGURATIONS: [Configuration; 5] = [
    Configuration {
        name: "None",
        held_force: "None",
        m_eff: 0.0,
    },
    Configuration {
        name: "Auto_m0",
        held_force: "Auto",
        m_eff: 0.0,
    },
    Configuration {
        name: "Auto_m1",
        held_force: "Auto",
        m_eff: MASS,
    },
    Configuration {
        name: "FMean_m1",
        held_force: "FMean",
        m_eff: MASS,
    },
    Configuration {
        name: "FNext_m1",
        held_force: "FNext",
        m_eff: MASS,
    },
];

/// The kinds of step an end stop sees.
#[derive(Clone, Copy, PartialEq)]
enum Scenario {
    /// Far from the stop (1 m), drifting away at 1 mm/s.
    Free,
    /// Dropped from 5 cm under gravity: the last free step before the step of its touch-down.
    Approach,
    /// On the stop under gravity, at rest after 500 steps.
    Resting,
    /// Dropped from 5 cm under gravity: the steps of its first contact, touch-down to lift-off.
    Contact,
}

const SCENARIOS: [Scenario; 4] = [
    Scenario::Free,
    Scenario::Approach,
    Scenario::Resting,
    Scenario::Contact,
];

/// Steps a master runs to find a scenario's window: the drop touches down after about 100.
const SEARCH_STEPS: usize = 1000;

impl Scenario {
    /// The most a step of `configuration` may cost here against the prescribed step.
    fn limit(self, configuration: Configuration) -> Option<f64> {
        match self {
            _ if configuration.held_force == "None" => None,
            Scenario::Free => Some(1.05),
            Scenario::Resting if configuration.m_eff > 0.0 => Some(1.5),
            Scenario::Resting => Some(1.2),
            Scenario::Approach | Scenario::Contact => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Scenario::Free => "free",
            Scenario::Approach => "approach",
            Scenario::Resting => "resting",
            Scenario::Contact => "contact",
        }
    }

    /// The body's position, velocity and gravity at the start.
    fn start(self) -> Body {
        let (x, v, gravity) = match self {
            Scenario::Free => (1.0, 1e-3, 0.0),
            Scenario::Resting => (-MASS * GRAVITY / STIFFNESS, 0.0, GRAVITY),
            Scenario::Approach | Scenario::Contact => (0.05, 0.0, GRAVITY),
        };
        Body { x, v, gravity }
    }

    /// The steps timed, from the body's positions at the start of each step of a master's run
    /// (`x[k]` before step `k`, `x[k + 1]` after it; in contact below 0).
    fn window(self, x: &[f64]) -> (usize, usize) {
        let in_contact = |k: usize| x[k] < 0.0 || x[k + 1] < 0.0;
        let first_contact = (0..x.len() - 1).find(|&k| in_contact(k));
        match self {
            Scenario::Free => (20, 220),
            Scenario::Resting => (500, 700),
            Scenario::Approach => {
                let k = first_contact.expect("the drop touches down");
                assert!(k > 0, "the drop starts in contact");
                (k - 1, k)
            }
            Scenario::Contact => {
                let k = first_contact.expect("the drop touches down");
                let end = (k..x.len() - 1).find(|&j| !in_contact(j));
                (k, end.expect("the body lifts off"))
            }
        }
    }
}

/// The master's body.
#[derive(Clone, Copy)]
struct Body {
    x: f64,
    v: f64,
    gravity: f64,
}

impl Body {
    /// Moved over a step under the force the master holds (the body at flange_b feels `-f`).
    fn step(&mut self, held: f64) {
        let a = -self.gravity - held / MASS;
        self.x += H * (self.v + 0.5 * a * H);
        self.v += a * H;
        assert!(self.x.is_finite() && self.v.is_finite());
    }
}

type GetReal = unsafe extern "C" fn(
    fmi2::fmi2Component,
    *const fmi2::fmi2ValueReference,
    usize,
    *mut fmi2::fmi2Real,
) -> fmi2::fmi2Status;

/// The calls a master makes, resolved once.
#[derive(Clone, Copy)]
struct Calls {
    set_real: Fmi2SetReal,
    get_real: GetReal,
    do_step: Fmi2DoStep,
    set_state: SetState,
}

/// One configuration's instance in one scenario, at the start of its window: the FMU state there,
/// the inputs the master fed over the window and the forces it read.
struct Row<'a> {
    configuration: Configuration,
    scenario: Scenario,
    component: Component<'a>,
    state: fmi2::fmi2FMUstate,
    time: f64,
    held: fmi2::fmi2ValueReference,
    inputs: Vec<[f64; 2]>,
    forces: Vec<f64>,
    replays: u32,
}

/// The body's position and velocity inputs.
fn motion_references() -> [fmi2::fmi2ValueReference; 2] {
    [vr(Var::FlangeBS), vr(Var::FlangeBV)]
}

impl<'a> Row<'a> {
    fn new(library: &'a Library, configuration: Configuration, scenario: Scenario) -> Row<'a> {
        let calls = Calls::of(library);
        let id = format!("{}_{}", configuration.name, scenario.name());
        let fresh = || {
            let max_substep = by_var(Var::MaxSubstepSize).start.expect("a default");
            let held = Some(held_force(configuration.held_force));
            let start = scenario.start();
            let inputs = [0.0, 0.0, start.x, start.v];
            Component::holding(
                library,
                &id,
                &stop(),
                max_substep,
                configuration.m_eff,
                held,
                inputs,
            )
        };
        let held = vr(if configuration.held_force == "FNext" {
            Var::FNext
        } else {
            Var::FMean
        });
        // A first run finds the window; a second stops at its start, keeps the state there and
        // records the window's inputs and forces.
        let mut master = Master::new(fresh(), scenario.start(), held, calls);
        let positions: Vec<f64> = (0..=SEARCH_STEPS).map(|_| master.step().0[0]).collect();
        let (from, to) = scenario.window(&positions);
        let mut master = Master::new(fresh(), scenario.start(), held, calls);
        for _ in 0..from {
            master.step();
        }
        let get_state = entry!(library, fmi2GetFMUstate);
        let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
        // SAFETY: a live instance and a place for its state.
        assert_eq!(unsafe { get_state(master.component.raw, &mut state) }, OK);
        let time = master.time;
        let (inputs, forces) = (from..to).map(|_| master.step()).unzip();
        Row {
            configuration,
            scenario,
            component: master.component,
            state,
            time,
            held,
            inputs,
            forces,
            replays: 1,
        }
    }

    /// Restores the window's start and feeds its inputs again; the forces read, into `forces`.
    fn replay(&self, calls: Calls, forces: &mut [f64]) {
        let raw = self.component.raw;
        let motion = motion_references();
        // SAFETY: a live instance, one of its states, arrays of the announced lengths.
        unsafe {
            assert_eq!((calls.set_state)(raw, self.state), OK);
            // The times the master's run passed, summed the same way.
            let mut time = self.time;
            for (inputs, force) in self.inputs.iter().zip(forces) {
                assert_eq!(
                    (calls.set_real)(raw, motion.as_ptr(), 2, inputs.as_ptr()),
                    OK
                );
                assert_eq!((calls.do_step)(raw, time, H, 1), OK);
                assert_eq!((calls.get_real)(raw, &self.held, 1, force), OK);
                time += H;
            }
        }
    }

    fn restore(&self, calls: Calls) {
        // SAFETY: a live instance and one of its states.
        unsafe { assert_eq!((calls.set_state)(self.component.raw, self.state), OK) };
    }

    /// Mean ns per step of the window, the restore taken out.
    fn time_step(&self, calls: Calls, forces: &mut [f64]) -> f64 {
        let replay = time_calls(self.replays, || self.replay(calls, forces));
        let restore = time_calls(self.replays, || self.restore(calls));
        (replay - restore) / self.inputs.len() as f64
    }

    /// The replay gives what the master's own run gave: the same work is timed.
    fn check_replay(&self, calls: Calls) {
        let mut forces = vec![f64::NAN; self.forces.len()];
        self.replay(calls, &mut forces);
        let same = forces
            .iter()
            .zip(&self.forces)
            .all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(
            same,
            "{}: a replay read {forces:?}, the run {:?}",
            self.id(),
            self.forces
        );
    }

    fn id(&self) -> String {
        format!("{}_{}", self.configuration.name, self.scenario.name())
    }
}

impl Calls {
    fn of(library: &Library) -> Calls {
        Calls {
            set_real: entry!(library, fmi2SetReal),
            get_real: entry!(library, fmi2GetReal),
            do_step: entry!(library, fmi2DoStep),
            set_state: entry!(library, fmi2SetFMUstate),
        }
    }
}

/// A master's run of one instance.
struct Master<'a> {
    component: Component<'a>,
    body: Body,
    held: fmi2::fmi2ValueReference,
    /// What a Jacobi master read after the step before (it holds that over the next).
    read_before: f64,
    time: f64,
    calls: Calls,
}

impl<'a> Master<'a> {
    fn new(
        component: Component<'a>,
        body: Body,
        held: fmi2::fmi2ValueReference,
        calls: Calls,
    ) -> Master<'a> {
        Master {
            component,
            body,
            held,
            read_before: 0.0,
            time: 0.0,
            calls,
        }
    }

    /// One step: the inputs it fed, and the force it read.
    fn step(&mut self) -> ([f64; 2], f64) {
        let (raw, calls) = (self.component.raw, self.calls);
        let inputs = [self.body.x, self.body.v];
        let mut read = f64::NAN;
        // SAFETY: a live instance and arrays of the announced lengths.
        unsafe {
            let motion = motion_references();
            assert_eq!(
                (calls.set_real)(raw, motion.as_ptr(), 2, inputs.as_ptr()),
                OK
            );
            assert_eq!((calls.do_step)(raw, self.time, H, 1), OK);
            assert_eq!((calls.get_real)(raw, &self.held, 1, &mut read), OK);
        }
        let jacobi = self.held == vr(Var::FNext);
        let held = if jacobi { self.read_before } else { read };
        self.read_before = read;
        self.body.step(held);
        self.time += H;
        (inputs, read)
    }
}

/// The C step fed a row's inputs, its time running on from replay to replay.
struct CSide<'a> {
    instance: CInstance<'a>,
    time: f64,
}

impl CSide<'_> {
    fn replay(&mut self, baseline: &CBaseline, inputs: &[[f64; 2]]) {
        for [x, v] in inputs {
            // SAFETY: a live C instance.
            unsafe {
                baseline.set_inputs(self.instance.raw, [0.0, 0.0, *x, *v]);
                assert_eq!((baseline.do_step)(self.instance.raw, self.time, H), 0);
                black_box((baseline.f_mean)(self.instance.raw));
            }
            self.time += H;
        }
    }
}

/// Every configuration in every scenario, recorded, checked and calibrated, ready for the rounds.
pub(crate) struct MasterRows<'a> {
    rows: Vec<Row<'a>>,
    c_sides: Vec<CSide<'a>>,
    calls: Calls,
    ns: Vec<Vec<f64>>,
    over_prescribed: Vec<Vec<f64>>,
    over_c: Vec<Vec<f64>>,
}

impl<'a> MasterRows<'a> {
    pub(crate) fn new(library: &'a Library, baseline: &'a CBaseline) -> MasterRows<'a> {
        let calls = Calls::of(library);
        let mut rows = Vec::new();
        for scenario in SCENARIOS {
            for configuration in CONFIGURATIONS {
                rows.push(Row::new(library, configuration, scenario));
            }
        }
        let law = stop();
        let max_substep = by_var(Var::MaxSubstepSize).start.expect("a default");
        let c_sides = rows
            .iter()
            .map(|_| CSide {
                instance: baseline.instance_with(&law, max_substep, [0.0; 4]),
                time: 0.0,
            })
            .collect();
        for row in &mut rows {
            row.check_replay(calls);
            let mut forces = vec![0.0; row.inputs.len()];
            let per_step = row.time_step(calls, &mut forces).max(10.0);
            let steps = row.inputs.len() as f64;
            row.replays = (SIDE_NS / (per_step * steps)).clamp(1.0, 10_000.0) as u32;
        }
        let rounds = || vec![Vec::with_capacity(PAIRED_ROUNDS); rows.len()];
        MasterRows {
            ns: rounds(),
            over_prescribed: rounds(),
            over_c: rounds(),
            rows,
            c_sides,
            calls,
        }
    }

    /// One paired round: every row, the prescribed row of its scenario and its C step.
    pub(crate) fn round(&mut self, baseline: &CBaseline) {
        let mut forces = vec![0.0; 1024];
        let mut prescribed = f64::NAN;
        for (k, row) in self.rows.iter().enumerate() {
            let forces = &mut forces[..row.inputs.len()];
            let ns = row.time_step(self.calls, forces);
            if row.configuration.name == CONFIGURATIONS[0].name {
                prescribed = ns;
            }
            let c_side = &mut self.c_sides[k];
            let c = time_calls(row.replays, || c_side.replay(baseline, &row.inputs));
            let c = c / row.inputs.len() as f64;
            self.ns[k].push(ns);
            self.over_prescribed[k].push(ns / prescribed);
            self.over_c[k].push(ns / c);
        }
    }

    /// The rows' quartiles: ns per step, and the ratios to the prescribed and the C step.
    pub(crate) fn report(&mut self) -> serde_json::Value {
        let mut rows = serde_json::Map::new();
        for (k, row) in self.rows.iter().enumerate() {
            rows.insert(
                row.id(),
                serde_json::json!({
                    "configuration": row.configuration.name,
                    "scenario": row.scenario.name(),
                    "steps": row.inputs.len(),
                    "limit": row.scenario.limit(row.configuration),
                    "ns_per_step": quartiles(std::mem::take(&mut self.ns[k])),
                    "over_prescribed": quartiles(std::mem::take(&mut self.over_prescribed[k])),
                    "over_c": quartiles(std::mem::take(&mut self.over_c[k])),
                }),
            );
        }
        serde_json::Value::Object(rows)
    }
}
