//! Helpers shared by the test modules: small helpers around the support importer, and the motions
//! the tests drive.

use std::ops::Range;
use std::sync::Arc;

use fmi_sys::fmi2;

use crate::support::{
    Fmu, Instance, InstantiateOptions, LogRecord, Status, VarType, INPUTS, REALS,
};

// ---------------------------------------------------------------------------------------------
// Small helpers around the support importer
// ---------------------------------------------------------------------------------------------

#[track_caller]
pub(crate) fn ok(status: Status) {
    assert_eq!(status, Status::Ok, "expected fmi2OK");
}

pub(crate) fn vr(inst: &Instance, name: &str, var_type: VarType) -> u32 {
    inst.vr(name, var_type)
}

pub(crate) fn real_vrs(inst: &Instance, names: &[&str]) -> Vec<u32> {
    names.iter().map(|n| vr(inst, n, VarType::Real)).collect()
}

/// Sets `name` with the setter of its type in the model description (Integers and Booleans given
/// as f64), as fmusim's `--start-value` does.
pub(crate) fn set(inst: &mut Instance, name: &str, value: f64) -> Status {
    inst.set_by_name(name, value)
}

/// Parameters (and start inputs) in the Instantiated state, then the usual initialization.
#[track_caller]
pub(crate) fn initialize(inst: &mut Instance, settings: &[(&str, f64)]) {
    for (name, value) in settings {
        assert_eq!(
            set(inst, name, *value),
            Status::Ok,
            "setting {name} = {value}"
        );
    }
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
}

pub(crate) fn set_inputs(inst: &mut Instance, values: [f64; 4]) {
    let vrs = real_vrs(inst, &INPUTS);
    ok(inst.set_real(&vrs, &values));
}

/// Every Real output and local plus `contact`, as bit patterns, for exact comparisons.
pub(crate) fn record(inst: &mut Instance) -> Vec<u64> {
    let vrs = real_vrs(inst, &REALS);
    let (status, values) = inst.get_real(&vrs);
    ok(status);
    let contact = vr(inst, "contact", VarType::Boolean);
    let (status, flag) = inst.get_boolean(&[contact]);
    ok(status);
    let mut bits: Vec<u64> = values.iter().map(|x| x.to_bits()).collect();
    bits.push(u64::from(flag[0]));
    bits
}

/// The Reals of a [`record`] row.
pub(crate) fn decode(bits: &[u64]) -> Vec<f64> {
    bits[..REALS.len()]
        .iter()
        .map(|b| f64::from_bits(*b))
        .collect()
}

/// The message of the newest logged record that has `status`, after checking every record.
#[track_caller]
pub(crate) fn expect_error(inst: &Instance, status: Status, needles: &[&str]) -> String {
    let logs = inst.sink().take();
    assert_eq!(
        status,
        Status::Error,
        "expected fmi2Error (wanted a message with {needles:?}); log: {logs:#?}"
    );
    check_records(
        &logs,
        inst.environment_pointer() as usize,
        inst.name(),
        inst,
    );
    let record = logs
        .iter()
        .rev()
        .find(|r| r.status == Status::Error)
        .unwrap_or_else(|| panic!("no fmi2Error message logged for {needles:?}; log: {logs:#?}"));
    assert_eq!(record.category.as_deref(), Some("logStatusError"));
    for needle in needles {
        assert!(
            record.message.contains(needle),
            "message {:?} does not contain {needle:?}",
            record.message
        );
    }
    record.message.clone()
}

/// What every importer needs of each logger call.
#[track_caller]
pub(crate) fn check_records(records: &[LogRecord], env: usize, name: &str, inst: &Instance) {
    let declared = inst.fmu().model_description.log_category_names();
    for r in records {
        assert_eq!(r.env, env, "componentEnvironment changed: {r:?}");
        assert_eq!(r.instance_name.as_deref(), Some(name), "{r:?}");
        let category = r
            .category
            .as_deref()
            .unwrap_or_else(|| panic!("NULL category: {r:?}"));
        assert!(
            declared.contains(&category) && category != "logAll",
            "category {category:?} is not a declared category {declared:?}"
        );
        assert_ne!(r.status, Status::Warning, "{r:?}");
        assert!(!r.lone_percent, "unescaped % in {r:?}");
        assert!(r.raw.is_some(), "NULL message: {r:?}");
    }
}

pub(crate) fn instance_with(fmu: &Arc<Fmu>, options: InstantiateOptions) -> Instance {
    let name = options.instance_name.clone();
    Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate({name}) failed: {:#?}", f.logs))
}

/// `fmi2GetRealStatus(fmi2LastSuccessfulTime)`: the FMU's time.
pub(crate) fn fmu_time(inst: &mut Instance) -> f64 {
    let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
    ok(status);
    time
}

// ---------------------------------------------------------------------------------------------
// Motions
// ---------------------------------------------------------------------------------------------

/// flange_b runs into the gap and out again: `s_b = 0.04 - t + 5 t^2`, flange_a at rest; contact
/// (s_rel < 0) between the roots `(1 -+ sqrt(0.2))/10`.
pub(crate) fn bounce(t: f64) -> [f64; 4] {
    [0.0, 0.0, 0.04 - t + 5.0 * t * t, -1.0 + 10.0 * t]
}

pub(crate) const BOUNCE_ACCELERATION: f64 = 10.0;

pub(crate) fn bounce_contact_times() -> (f64, f64) {
    let root = 0.2f64.sqrt();
    ((1.0 - root) / 10.0, (1.0 + root) / 10.0)
}

/// flange_b oscillates in and out of contact, flange_a wobbles slowly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Oscillation {
    pub(crate) mean: f64,
    pub(crate) amplitude: f64,
    pub(crate) omega: f64,
}

impl Oscillation {
    pub(crate) const DEFAULT: Oscillation = Oscillation {
        mean: -0.002,
        amplitude: 0.02,
        omega: 2.0 * std::f64::consts::PI * 5.0,
    };

    pub(crate) fn inputs(&self, t: f64) -> [f64; 4] {
        [
            1e-3 * (3.0 * t).sin(),
            3e-3 * (3.0 * t).cos(),
            self.mean + self.amplitude * (self.omega * t).cos(),
            -self.amplitude * self.omega * (self.omega * t).sin(),
        ]
    }

    /// d/dt of flange_a.v and flange_b.v.
    pub(crate) fn accelerations(&self, t: f64) -> [f64; 2] {
        [
            -9e-3 * (3.0 * t).sin(),
            -self.amplitude * self.omega * self.omega * (self.omega * t).cos(),
        ]
    }
}

/// Parameters for the oscillation runs: the damper bound acts during part of each contact.
pub(crate) const OSCILLATION_SETTINGS: [(&str, f64); 5] = [
    ("c", 1e3),
    ("d", 20.0),
    ("n", 1.5),
    ("useHeatPort", 1.0),
    ("accelerationEstimate", 3.0),
];

/// Steps `k` in `steps` of the grid `t_k = k*h` (inputs at the left end, optionally their first
/// derivatives), recording everything after each step.
pub(crate) fn drive(
    inst: &mut Instance,
    motion: &Oscillation,
    h: f64,
    steps: Range<usize>,
    derivatives: bool,
) -> Vec<Vec<u64>> {
    let velocity_vrs = real_vrs(inst, &["flange_a.v", "flange_b.v"]);
    let mut rows = Vec::with_capacity(steps.len());
    for k in steps {
        let t = k as f64 * h;
        let next = (k + 1) as f64 * h;
        set_inputs(inst, motion.inputs(t));
        if derivatives {
            ok(inst.set_real_input_derivatives(&velocity_vrs, &[1, 1], &motion.accelerations(t)));
        }
        assert_eq!(
            inst.do_step(t, next - t, false),
            Status::Ok,
            "step {k} at t = {t}"
        );
        rows.push(record(inst));
    }
    rows
}
