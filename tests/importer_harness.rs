//! Drives the packaged `ElastoGap.fmu` the way real importers do (fmusim in C and Rust, FMPy), and
//! the way careless or hostile ones do: every call goes through the C ABI of the binary unpacked
//! from the archive, via the test importer in `tests/support`.
//!
//! The FMU under test is `$ELASTOGAP_FMU`, else `target/fmu/ElastoGap.fmu`.
//!
//! The physics is checked against this file's own reading of the MSL 4.1 law:
//! `s_rel = flange_b.s - flange_a.s`, `v_rel = flange_b.v - flange_a.v`, `contact = s_rel < s_rel0`,
//! `f_c = -f_ref*|(s_rel - s_rel0)/s_ref|^n` in contact (`f_ref = 0` means `c*s_ref`),
//! `f_d = min(max(d*v_rel, f_c), -f_c)` in contact, `f = f_c + f_d`, `lossPower = f_d*v_rel`.

mod support;

use std::ops::Range;
use std::ptr;
use std::sync::{Arc, Barrier};
use std::thread;

use fmi_sys::fmi2;
use support::fmu::{binary_path_in_archive, file_uri};
use support::random::Random;
use support::{
    Environment, Fmu, FmuState, Instance, InstantiateOptions, LogRecord, ResourceUri, Status,
    VarType,
};

// ---------------------------------------------------------------------------------------------
// The standard's function list
// ---------------------------------------------------------------------------------------------

const INPUTS: [&str; 4] = ["flange_a.s", "flange_a.v", "flange_b.s", "flange_b.v"];
/// Every Real output and local, in the order [`record`] reads them.
const RECORDED_REALS: [&str; 9] = [
    "f",
    "s_rel",
    "v_rel",
    "lossPower",
    "heatPort.Q_flow",
    "f_mean",
    "E_loss",
    "f_c",
    "f_d",
];
/// The unknowns of the directional-derivative checks.
const DIRECT_FEEDTHROUGH: [&str; 6] = ["f", "s_rel", "v_rel", "lossPower", "f_c", "f_d"];

// ---------------------------------------------------------------------------------------------
// Small helpers around the support importer
// ---------------------------------------------------------------------------------------------

#[track_caller]
fn ok(status: Status) {
    assert_eq!(status, Status::Ok, "expected fmi2OK");
}

fn vr(inst: &Instance, name: &str, var_type: VarType) -> u32 {
    inst.vr(name, var_type)
}

fn real_vrs(inst: &Instance, names: &[&str]) -> Vec<u32> {
    names.iter().map(|n| vr(inst, n, VarType::Real)).collect()
}

/// Sets `name` with the setter of its type in the model description (Integers and Booleans given
/// as f64), as fmusim's `--start-value` does.
fn set(inst: &mut Instance, name: &str, value: f64) -> Status {
    inst.set_by_name(name, value)
}

/// Parameters (and start inputs) in the Instantiated state, then the usual initialization.
#[track_caller]
fn initialize(inst: &mut Instance, settings: &[(&str, f64)]) {
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

fn set_inputs(inst: &mut Instance, values: [f64; 4]) {
    let vrs = real_vrs(inst, &INPUTS);
    ok(inst.set_real(&vrs, &values));
}

/// Every Real output and local plus `contact`, as bit patterns, for exact comparisons.
fn record(inst: &mut Instance) -> Vec<u64> {
    let vrs = real_vrs(inst, &RECORDED_REALS);
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
fn decode(bits: &[u64]) -> Vec<f64> {
    bits[..RECORDED_REALS.len()]
        .iter()
        .map(|b| f64::from_bits(*b))
        .collect()
}

/// The message of the newest logged record that has `status`, after checking every record.
#[track_caller]
fn expect_error(inst: &Instance, status: Status, needles: &[&str]) -> String {
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

/// What the warning of a motion found prescribed under `heldForce` = Auto asks for.
const PRESCRIBED_WARNING: &str = "Set heldForce = None (4) for a master that prescribes the motion";

/// The log of a run whose inputs are a prescribed motion, with `heldForce` left at Auto, less the
/// one warning (logged whatever loggingOn says) that names `heldForce` = None.
#[track_caller]
fn after_the_prescribed_warning(logs: Vec<LogRecord>) -> Vec<LogRecord> {
    let (prescribed, logs): (Vec<LogRecord>, Vec<LogRecord>) = logs
        .into_iter()
        .partition(|r| r.status == Status::Warning && r.message.contains(PRESCRIBED_WARNING));
    assert_eq!(prescribed.len(), 1, "{prescribed:#?}");
    logs
}

/// What every importer needs of each logger call.
#[track_caller]
fn check_records(records: &[LogRecord], env: usize, name: &str, inst: &Instance) {
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

/// The instance's state, read without changing it: `fmi2CancelStep` is refused in every state the
/// FMU can reach (steps complete synchronously) and its message names the state. Clears the log.
fn state_of(inst: &mut Instance) -> String {
    inst.sink().take();
    assert_eq!(inst.cancel_step(), Status::Error);
    let logs = inst.sink().take();
    let message = &logs.last().expect("fmi2CancelStep logs why").message;
    message
        .split("not allowed in state ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("unexpected message {message:?}"))
        .to_string()
}

fn instance_with(fmu: &Arc<Fmu>, options: InstantiateOptions) -> Instance {
    let name = options.instance_name.clone();
    Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate({name}) failed: {:#?}", f.logs))
}

/// `fmi2GetRealStatus(fmi2LastSuccessfulTime)`: the FMU's time.
fn fmu_time(inst: &mut Instance) -> f64 {
    let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
    ok(status);
    time
}

/// Reads every variable of the model description of every type, each alone and all of a type in
/// one call, as fmusim does after initialization: all `fmi2OK`, same values.
fn read_every_variable(inst: &mut Instance) {
    let fmu = Arc::clone(inst.fmu());
    let md = &fmu.model_description;
    let of_type = |t: VarType| -> Vec<u32> {
        md.variables
            .iter()
            .filter(|v| v.var_type == t)
            .map(|v| v.value_reference)
            .collect()
    };
    let reals = of_type(VarType::Real);
    // An Enumeration is read and written as an Integer (FMI 2.0, 2.2.7).
    let integers: Vec<u32> = [of_type(VarType::Integer), of_type(VarType::Enumeration)].concat();
    let booleans = of_type(VarType::Boolean);
    let strings = of_type(VarType::String);
    assert!(!reals.is_empty() && !integers.is_empty() && !booleans.is_empty());
    assert_eq!(
        reals.len() + integers.len() + booleans.len() + strings.len(),
        md.variables.len(),
        "only Real, Integer, Enumeration, Boolean and String variables expected"
    );

    let (status, all) = inst.get_real(&reals);
    ok(status);
    for (reference, value) in reals.iter().zip(&all) {
        let (status, one) = inst.get_real(&[*reference]);
        ok(status);
        assert_eq!(one[0].to_bits(), value.to_bits(), "vr {reference}");
        assert!(value.is_finite(), "vr {reference} = {value}");
    }
    let (status, all) = inst.get_integer(&integers);
    ok(status);
    for (reference, value) in integers.iter().zip(&all) {
        let (status, one) = inst.get_integer(&[*reference]);
        ok(status);
        assert_eq!(one[0], *value, "vr {reference}");
    }
    let (status, all) = inst.get_boolean_raw(&booleans);
    ok(status);
    for (reference, value) in booleans.iter().zip(&all) {
        let (status, one) = inst.get_boolean_raw(&[*reference]);
        ok(status);
        assert_eq!(one[0], *value, "vr {reference}");
        assert!(*value == 0 || *value == 1, "vr {reference} = {value}");
    }
    let (status, none) = inst.get_string(&[]);
    ok(status);
    assert!(none.is_empty());
    // tableFile, empty as it starts.
    let (status, texts) = inst.get_string(&strings);
    ok(status);
    assert_eq!(texts, vec![Some(String::new()); strings.len()]);
}

// ---------------------------------------------------------------------------------------------
// This file's own implementation of the law and a high-accuracy quadrature along a motion
// ---------------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug)]
struct Law {
    c: f64,
    d: f64,
    s_rel0: f64,
    n: f64,
    s_ref: f64,
    f_ref: f64,
}

#[derive(Clone, Copy, Debug)]
struct Forces {
    contact: bool,
    f_c: f64,
    f_d: f64,
    f: f64,
    loss_power: f64,
}

impl Law {
    fn settings(&self) -> Vec<(&'static str, f64)> {
        vec![
            ("c", self.c),
            ("d", self.d),
            ("s_rel0", self.s_rel0),
            ("n", self.n),
            ("s_ref", self.s_ref),
            ("f_ref", self.f_ref),
        ]
    }

    fn forces(&self, s_rel: f64, v_rel: f64) -> Forces {
        let contact = s_rel < self.s_rel0;
        if !contact {
            return Forces {
                contact,
                f_c: 0.0,
                f_d: 0.0,
                f: 0.0,
                loss_power: 0.0,
            };
        }
        let reference = if self.f_ref == 0.0 {
            self.c * self.s_ref
        } else {
            self.f_ref
        };
        let ratio = (s_rel - self.s_rel0) / self.s_ref;
        let f_c = -reference * ratio.abs().powf(self.n);
        let f_d = (self.d * v_rel).max(f_c).min(-f_c);
        Forces {
            contact,
            f_c,
            f_d,
            f: f_c + f_d,
            loss_power: f_d * v_rel,
        }
    }
}

/// Five-point Gauss–Legendre rule on `[a, b]` for the pair (f, lossPower) of `g`.
fn gauss5(g: &dyn Fn(f64) -> (f64, f64), a: f64, b: f64) -> (f64, f64) {
    const X: [f64; 5] = [
        -0.906_179_845_938_664,
        -0.538_469_310_105_683_1,
        0.0,
        0.538_469_310_105_683_1,
        0.906_179_845_938_664,
    ];
    const W: [f64; 5] = [
        0.236_926_885_056_189_1,
        0.478_628_670_499_366_5,
        0.568_888_888_888_888_9,
        0.478_628_670_499_366_5,
        0.236_926_885_056_189_1,
    ];
    let (mid, half) = (0.5 * (a + b), 0.5 * (b - a));
    let mut sum = (0.0, 0.0);
    for (x, w) in X.iter().zip(W) {
        let (p, q) = g(mid + half * x);
        sum.0 += w * p;
        sum.1 += w * q;
    }
    (sum.0 * half, sum.1 * half)
}

/// Adaptive bisection on the five-point rule: a piece is accepted when its halves agree with it to
/// the absolute `tol`, or when it has become too short for its nodes to be distinct (`min_width`).
fn adaptive(
    g: &dyn Fn(f64) -> (f64, f64),
    a: f64,
    b: f64,
    whole: (f64, f64),
    tol: (f64, f64),
    min_width: f64,
) -> (f64, f64) {
    let m = 0.5 * (a + b);
    let left = gauss5(g, a, m);
    let right = gauss5(g, m, b);
    let both = (left.0 + right.0, left.1 + right.1);
    if b - a <= min_width
        || ((both.0 - whole.0).abs() <= tol.0 && (both.1 - whole.1).abs() <= tol.1)
    {
        return both;
    }
    let l = adaptive(g, a, m, left, tol, min_width);
    let r = adaptive(g, m, b, right, tol, min_width);
    (l.0 + r.0, l.1 + r.1)
}

/// (integral of f, integral of lossPower) over `[0, h]` along the relative motion
/// `s(t) = s0 + v0 t + a t^2/2`, to about 1e-12 relative: adaptive Gauss–Legendre, which refines
/// only around the kinks (contact start and end, damper bound switching).
fn reference_integral(law: &Law, s0: f64, v0: f64, a: f64, h: f64) -> (f64, f64) {
    let g = |t: f64| {
        let forces = law.forces(s0 + v0 * t + 0.5 * a * t * t, v0 + a * t);
        (forces.f, forces.loss_power)
    };
    let pieces = 64;
    let width = h / f64::from(pieces);
    let coarse: Vec<(f64, f64)> = (0..pieces)
        .map(|k| gauss5(&g, f64::from(k) * width, f64::from(k + 1) * width))
        .collect();
    let scale = coarse
        .iter()
        .fold((0.0f64, 0.0f64), |s, p| (s.0 + p.0.abs(), s.1 + p.1.abs()));
    // Each accepted piece is good to 1e-15 of the whole; a few hundred pieces at most.
    let tol = (1e-15 * scale.0, 1e-15 * scale.1);
    let mut total = (0.0, 0.0);
    for (k, piece) in coarse.iter().enumerate() {
        let (a0, b0) = (k as f64 * width, (k + 1) as f64 * width);
        let p = adaptive(&g, a0, b0, *piece, tol, 1e-12 * h);
        total.0 += p.0;
        total.1 += p.1;
    }
    total
}

#[track_caller]
fn assert_close(actual: f64, expected: f64, relative: f64, what: &str) {
    let error = (actual - expected).abs();
    assert!(
        error <= relative * expected.abs().max(f64::MIN_POSITIVE),
        "{what}: {actual:e} vs {expected:e} (relative error {:e} > {relative:e})",
        error / expected.abs()
    );
}

// ---------------------------------------------------------------------------------------------
// Motions
// ---------------------------------------------------------------------------------------------

/// flange_b runs into the gap and out again: `s_b = 0.04 - t + 5 t^2`, flange_a at rest; contact
/// (s_rel < 0) between the roots `(1 -+ sqrt(0.2))/10`.
fn bounce(t: f64) -> [f64; 4] {
    [0.0, 0.0, 0.04 - t + 5.0 * t * t, -1.0 + 10.0 * t]
}

const BOUNCE_ACCELERATION: f64 = 10.0;

fn bounce_contact_times() -> (f64, f64) {
    let root = 0.2f64.sqrt();
    ((1.0 - root) / 10.0, (1.0 + root) / 10.0)
}

/// flange_b oscillates in and out of contact, flange_a wobbles slowly.
#[derive(Clone, Copy, Debug)]
struct Oscillation {
    mean: f64,
    amplitude: f64,
    omega: f64,
}

impl Oscillation {
    const DEFAULT: Oscillation = Oscillation {
        mean: -0.002,
        amplitude: 0.02,
        omega: 2.0 * std::f64::consts::PI * 5.0,
    };

    fn inputs(&self, t: f64) -> [f64; 4] {
        [
            1e-3 * (3.0 * t).sin(),
            3e-3 * (3.0 * t).cos(),
            self.mean + self.amplitude * (self.omega * t).cos(),
            -self.amplitude * self.omega * (self.omega * t).sin(),
        ]
    }

    /// d/dt of flange_a.v and flange_b.v.
    fn accelerations(&self, t: f64) -> [f64; 2] {
        [
            -9e-3 * (3.0 * t).sin(),
            -self.amplitude * self.omega * self.omega * (self.omega * t).cos(),
        ]
    }
}

/// Parameters for the oscillation runs: the damper bound acts during part of each contact.
const OSCILLATION_SETTINGS: [(&str, f64); 5] = [
    ("c", 1e3),
    ("d", 20.0),
    ("n", 1.5),
    ("useHeatPort", 1.0),
    ("accelerationEstimate", 3.0),
];

/// Steps `k` in `steps` of the grid `t_k = k*h` (inputs at the left end, optionally their first
/// derivatives), recording everything after each step.
fn drive(
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

// ---------------------------------------------------------------------------------------------
// Loading
// ---------------------------------------------------------------------------------------------

#[test]
fn every_fmi2_common_and_co_simulation_function_is_exported() {
    let fmu = Fmu::load_default();
    // Resolved by name straight from the unpacked binary, as fmusim does with dlsym.
    let binary = fmu.root.join(binary_path_in_archive(
        &fmu.model_description.model_identifier,
    ));
    // SAFETY: loading the library under test (already loaded by the importer).
    let library = unsafe { libloading::Library::new(&binary) }.expect("the binary loads");
    let missing: Vec<&str> = support::fmi2_names::all()
        .filter(|name| {
            // SAFETY: only the symbol's presence is checked; nothing is called.
            unsafe { library.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_err()
        })
        .collect();
    assert!(missing.is_empty(), "missing FMI 2.0 functions: {missing:?}");
    for name in support::fmi2_names::all() {
        assert!(
            fmu.has_function(name),
            "the importer's binding lacks {name}"
        );
    }
    assert_eq!(fmu.get_version().as_deref(), Some("2.0"));
    assert_eq!(fmu.get_types_platform().as_deref(), Some("default"));
}

// ---------------------------------------------------------------------------------------------
// fmusim (C), fmusim 0.8 (Rust) and FMPy call sequences
// ---------------------------------------------------------------------------------------------

/// fmusim's run: start values of every type in the Instantiated state, `stopTimeDefined = 0`,
/// every variable read after initialization, step sizes as differences of grid times with a
/// shortened last step, the callback struct gone (zeroed) once `fmi2Instantiate` returned.
fn fmusim_run(logging_on: bool) {
    let fmu = Fmu::load_default();
    let name = format!("fmusim-logging-{logging_on}");
    let uri = fmu.resource_uri();
    assert!(
        uri.starts_with("file:///") && uri.ends_with("/resources/"),
        "{uri}"
    );
    let mut inst = instance_with(
        &fmu,
        InstantiateOptions {
            instance_name: name.clone(),
            resource_uri: ResourceUri::Default,
            logging_on,
            visible: false,
            scrub_callbacks: true,
            ..Default::default()
        },
    );

    // --start-value of every type, before fmi2SetupExperiment.
    for (variable, value) in [
        ("c", 1e4),
        ("d", 30.0),
        ("maxSubstepCount", 500.0),
        ("accelerationEstimate", 2.0),
        ("useHeatPort", 1.0),
        ("flange_b.s", 0.04),
        ("flange_b.v", -1.0),
    ] {
        assert_eq!(set(&mut inst, variable, value), Status::Ok, "{variable}");
    }
    ok(inst.set_string(&[], &[]));
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    read_every_variable(&mut inst);
    assert_eq!(inst.real("c"), 1e4);
    assert_eq!(inst.integer("maxSubstepCount"), 500);
    assert!(inst.boolean("useHeatPort"));
    assert_eq!(inst.real("s_rel"), 0.04);

    // The grid of fmusim: t_k = t0 + k*dt, h = t_{k+1} - t_k, the last step cut at stopTime.
    let (dt, stop) = (0.01, 0.205);
    let input_vrs = real_vrs(&inst, &INPUTS);
    let mut sizes = Vec::new();
    let mut time = 0.0;
    let mut k = 0u32;
    let mut e_loss = 0.0;
    while time < stop - 1e-12 {
        let next = (f64::from(k + 1) * dt).min(stop);
        let h = next - time;
        ok(inst.set_real(&input_vrs, &bounce(time)));
        assert_eq!(
            inst.do_step(time, h, false),
            Status::Ok,
            "step at {time} by {h}"
        );
        sizes.push(h);
        read_every_variable(&mut inst);
        let e = inst.real("E_loss");
        assert!(e >= e_loss, "E_loss decreased");
        e_loss = e;
        time = next;
        k += 1;
    }
    assert!(sizes.contains(&0.009999999999999998), "{sizes:?}");
    let last = *sizes.last().unwrap();
    assert!(last < dt && (last - 0.005).abs() < 1e-12, "{sizes:?}");
    assert!(e_loss > 0.0);
    assert!((fmu_time(&mut inst) - stop).abs() < 1e-12);
    let (status, terminated) = inst.get_boolean_status(fmi2::fmi2StatusKind_fmi2Terminated);
    ok(status);
    assert!(!terminated);
    ok(inst.terminate());

    let logs = after_the_prescribed_warning(inst.logs());
    check_records(&logs, inst.environment_pointer() as usize, &name, &inst);
    if logging_on {
        let events: Vec<&LogRecord> = logs
            .iter()
            .filter(|r| r.category.as_deref() == Some("logEvents"))
            .collect();
        assert_eq!(events.len(), logs.len(), "only event messages: {logs:#?}");
        assert_eq!(events.len(), 2, "{events:#?}");
        let (enter, leave) = bounce_contact_times();
        for (record, (verb, expected)) in events.iter().zip([("starts", enter), ("ends", leave)]) {
            assert_eq!(record.status, Status::Ok);
            let prefix = format!("contact {verb} at t = ");
            let at: f64 = record
                .message
                .strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{:?}", record.message))
                .parse()
                .expect("a time");
            assert!((at - expected).abs() < 1e-9, "{at} vs {expected}");
        }
    } else {
        assert!(logs.is_empty(), "loggingOn = 0 but {logs:#?}");
    }
    inst.free();
}

#[test]
fn fmusim_sequence_without_logging() {
    fmusim_run(false);
}

#[test]
fn fmusim_sequence_with_logging() {
    fmusim_run(true);
}

/// fmusim 0.8: NULL resource location (no `resources/` in the archive), NULL memory callbacks
/// (`canNotUseMemoryManagementFunctions`), the model name as instance name, categories switched
/// on later with `fmi2SetDebugLogging`.
#[test]
fn fmusim_rust_sequence() {
    let fmu = Fmu::load_default();
    assert!(fmu
        .model_description
        .cs_flag("canNotUseMemoryManagementFunctions"));
    let name = fmu.model_description.model_name.clone();
    let mut inst = instance_with(
        &fmu,
        InstantiateOptions {
            instance_name: name.clone(),
            resource_uri: ResourceUri::Null,
            memory_callbacks: false,
            scrub_callbacks: true,
            logging_on: false,
            ..Default::default()
        },
    );
    ok(inst.set_debug_logging(true, &["logEvents"]));
    initialize(&mut inst, &[("c", 1e4), ("d", 30.0)]);
    let input_vrs = real_vrs(&inst, &INPUTS);
    let f_vr = vr(&inst, "f", VarType::Real);
    for k in 0..20 {
        let t = f64::from(k) * 0.01;
        ok(inst.set_real(&input_vrs, &bounce(t)));
        ok(inst.do_step(t, 0.01, false));
        // One single-value call per recorded variable.
        let (status, f) = inst.get_real(&[f_vr]);
        ok(status);
        assert!(f[0] <= 0.0);
        let (status, _) = inst.get_boolean(&[vr(&inst, "contact", VarType::Boolean)]);
        ok(status);
    }
    ok(inst.terminate());
    let logs = after_the_prescribed_warning(inst.logs());
    check_records(&logs, inst.environment_pointer() as usize, &name, &inst);
    assert_eq!(logs.len(), 2, "{logs:#?}");
    assert!(logs[0].message.starts_with("contact starts"));
    assert!(logs[1].message.starts_with("contact ends"));
}

/// FMPy: NULL componentEnvironment, resource URI without the trailing slash, stop time defined,
/// inputs and their first derivatives applied at t_k (`canInterpolateInputs`), outputs read at
/// t_{k+1}.
#[test]
fn fmpy_sequence() {
    let fmu = Fmu::load_default();
    assert!(fmu.model_description.cs_flag("canInterpolateInputs"));
    let name = "fmpy-sequence-with-null-environment";
    let uri = file_uri(&fmu.root.join("resources"), false);
    assert!(uri.starts_with("file:///") && !uri.ends_with('/'), "{uri}");
    let mut inst = instance_with(
        &fmu,
        InstantiateOptions {
            instance_name: name.to_string(),
            environment: Environment::Null,
            resource_uri: ResourceUri::Custom(uri),
            logging_on: true,
            ..Default::default()
        },
    );
    ok(inst.setup_experiment(None, 0.0, Some(0.2)));
    ok(inst.enter_initialization_mode());
    for (variable, value) in [("c", 1e4), ("d", 30.0), ("useHeatPort", 1.0)] {
        assert_eq!(set(&mut inst, variable, value), Status::Ok);
    }
    set_inputs(&mut inst, bounce(0.0));
    ok(inst.exit_initialization_mode());
    let input_vrs = real_vrs(&inst, &INPUTS);
    let mut f_mean_min: f64 = 0.0;
    for k in 0..20 {
        let t = f64::from(k) * 0.01;
        let inputs = bounce(t);
        ok(inst.set_real(&input_vrs, &inputs));
        // FMPy's Input gives the slope of each input: velocity of a position, acceleration of a
        // velocity.
        ok(inst.set_real_input_derivatives(
            &input_vrs,
            &[1, 1, 1, 1],
            &[0.0, 0.0, inputs[3], BOUNCE_ACCELERATION],
        ));
        ok(inst.do_step(t, 0.01, true));
        f_mean_min = f_mean_min.min(inst.real("f_mean"));
        // With the exact acceleration the end of the step is the motion's.
        let expected = bounce(t + 0.01);
        assert!((inst.real("s_rel") - expected[2]).abs() < 1e-14);
        assert!((inst.real("v_rel") - expected[3]).abs() < 1e-13);
    }
    assert!(f_mean_min < -10.0, "{f_mean_min}");
    ok(inst.terminate());
    // A refused call after terminate: its message also goes to the NULL environment.
    assert_eq!(inst.do_step(0.2, 0.01, true), Status::Error);

    let logs = after_the_prescribed_warning(inst.logs());
    check_records(&logs, 0, name, &inst);
    let events: Vec<&str> = logs
        .iter()
        .filter(|r| r.category.as_deref() == Some("logEvents"))
        .map(|r| r.message.as_str())
        .collect();
    assert_eq!(events.len(), 2, "{logs:#?}");
    let (enter, leave) = bounce_contact_times();
    for (message, expected) in events.iter().zip([enter, leave]) {
        let at: f64 = message.rsplit(' ').next().unwrap().parse().unwrap();
        assert!((at - expected).abs() < 1e-12, "{message} vs {expected}");
    }
    let refused = logs.last().unwrap();
    assert_eq!(refused.status, Status::Error);
    assert!(refused
        .message
        .contains("fmi2DoStep: not allowed in state Terminated"));
}

// ---------------------------------------------------------------------------------------------
// Instantiation
// ---------------------------------------------------------------------------------------------

#[test]
fn instantiation_refuses_wrong_guid_unknown_type_and_non_file_uris() {
    let fmu = Fmu::load_default();
    let refused = |options: InstantiateOptions, needles: &[&str]| {
        let name = options.instance_name.clone();
        let failure = Instance::instantiate(&fmu, &options)
            .err()
            .unwrap_or_else(|| panic!("{name}: fmi2Instantiate must return NULL"));
        let record = failure
            .logs
            .iter()
            .find(|r| r.status == Status::Error)
            .unwrap_or_else(|| panic!("{name}: nothing logged: {:#?}", failure.logs));
        assert_eq!(record.category.as_deref(), Some("logStatusError"));
        assert!(record.category.is_some() && !record.lone_percent);
        for needle in needles {
            assert!(
                record.message.contains(needle),
                "{name}: {:?} lacks {needle:?}",
                record.message
            );
        }
    };
    // loggingOn = 0 in all of these: the reason of a failure is logged regardless.
    refused(
        InstantiateOptions {
            instance_name: "wrong-guid".into(),
            guid: Some("{00000000-0000-0000-0000-000000000000}".into()),
            ..Default::default()
        },
        &[
            "fmi2Instantiate",
            "wrong GUID",
            "{00000000-0000-0000-0000-000000000000}",
        ],
    );
    refused(
        InstantiateOptions {
            instance_name: "unknown-type".into(),
            fmu_type: 7,
            ..Default::default()
        },
        &[
            "fmi2Instantiate",
            "fmuType 7 is not an FMI 2.0 type",
            "fmi2ModelExchange (0) and fmi2CoSimulation (1)",
        ],
    );
    for uri in [
        "http://example.com/resources/",
        "file://otherhost/tmp/resources/",
        "/tmp/resources",
        "",
    ] {
        refused(
            InstantiateOptions {
                instance_name: format!("uri {uri}"),
                resource_uri: ResourceUri::Custom(uri.into()),
                ..Default::default()
            },
            &["fmuResourceLocation", "is not a file URI"],
        );
    }
    refused(
        InstantiateOptions {
            instance_name: String::new(),
            ..Default::default()
        },
        &["instanceName"],
    );
}

#[test]
fn instantiation_accepts_every_file_uri_form() {
    let fmu = Fmu::load_default();
    let resources = fmu.root.join("resources");
    // A URI's path has forward slashes, and on Windows a slash before the drive (`/C:/dir`).
    let mut path = resources.to_string_lossy().replace('\\', "/");
    if !path.starts_with('/') {
        path.insert(0, '/');
    }
    let uris = [
        fmu.resource_uri(),
        file_uri(&resources, false),
        format!("file://{}", path.replace(' ', "%20")),
        format!("file:{}", path.replace(' ', "%20")),
        format!("file://localhost{}/", path.replace(' ', "%20")),
        "file:///tmp/with%20space/resources/".to_string(),
        "file:/tmp/x".to_string(),
        "file://localhost/tmp/x".to_string(),
        "file:///tmp/x".to_string(),
    ];
    for uri in uris {
        let mut inst = instance_with(
            &fmu,
            InstantiateOptions {
                instance_name: format!("uri {uri}"),
                resource_uri: ResourceUri::Custom(uri.clone()),
                ..Default::default()
            },
        );
        initialize(&mut inst, &[]);
        ok(inst.do_step(0.0, 0.01, false));
        assert!(inst.logs().is_empty(), "{uri}: {:#?}", inst.logs());
    }
}

// ---------------------------------------------------------------------------------------------
// Bad input: fmi2Error, a message naming the variable or call and the rule, the Error state
// ---------------------------------------------------------------------------------------------

/// Brings a fresh instance to where the bad call is made and makes it.
type BadCall = fn(&mut Instance) -> Status;

struct Case {
    what: &'static str,
    bad: BadCall,
    needles: &'static [&'static str],
    /// The state afterwards: "Error" when the call failed on its arguments, the state it was
    /// called in when it was refused by the state machine.
    state_after: &'static str,
}

fn running(inst: &mut Instance) {
    initialize(inst, &[("c", 1e4)]);
    set_inputs(inst, bounce(0.0));
    ok(inst.do_step(0.0, 0.01, false));
}

fn in_instantiated_then_exit(inst: &mut Instance, name: &str, value: f64) -> Status {
    // Parameters are checked when they take effect, so the set itself succeeds.
    ok(set(inst, name, value));
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    inst.exit_initialization_mode()
}

fn raw_get_real(inst: &mut Instance, null_vr: bool, null_value: bool) -> Status {
    let vrs = [1u32, 2];
    let mut values = [0.0; 2];
    let f = *inst.binding().fmi2GetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays with nvr = 2; the FMU must check them.
    Status::from(unsafe {
        f(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            2,
            if null_value {
                ptr::null_mut()
            } else {
                values.as_mut_ptr()
            },
        )
    })
}

fn raw_set_real(inst: &mut Instance, null_vr: bool, null_value: bool) -> Status {
    let vrs = [
        vr(inst, "flange_a.s", VarType::Real),
        vr(inst, "flange_b.s", VarType::Real),
    ];
    let values = [0.0; 2];
    let f = *inst.binding().fmi2SetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays with nvr = 2; the FMU must check them.
    Status::from(unsafe {
        f(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            2,
            if null_value {
                ptr::null()
            } else {
                values.as_ptr()
            },
        )
    })
}

const CASES: &[Case] = &[
    Case {
        what: "negative c, checked at fmi2ExitInitializationMode",
        bad: |i| in_instantiated_then_exit(i, "c", -1.0),
        needles: &[
            "fmi2ExitInitializationMode",
            "c = -1",
            "a finite number >= 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "negative tunable c during the run",
        bad: |i| {
            running(i);
            set(i, "c", -1.0)
        },
        needles: &["fmi2SetReal", "c = -1", "a finite number >= 0"],
        state_after: "Error",
    },
    Case {
        what: "negative d",
        bad: |i| in_instantiated_then_exit(i, "d", -2.0),
        needles: &["d = -2", ">= 0"],
        state_after: "Error",
    },
    Case {
        what: "n < 1 at initialization",
        bad: |i| in_instantiated_then_exit(i, "n", 0.5),
        needles: &[
            "fmi2ExitInitializationMode",
            "n = 0.5",
            "a finite number >= 1",
        ],
        state_after: "Error",
    },
    Case {
        what: "n < 1 during the run",
        bad: |i| {
            running(i);
            set(i, "n", 0.9)
        },
        needles: &["fmi2SetReal", "n = 0.9", ">= 1"],
        state_after: "Error",
    },
    Case {
        what: "s_ref = 0",
        bad: |i| in_instantiated_then_exit(i, "s_ref", 0.0),
        needles: &["s_ref = 0", "a finite number > 0"],
        state_after: "Error",
    },
    Case {
        what: "s_ref < 0 during the run",
        bad: |i| {
            running(i);
            set(i, "s_ref", -0.5)
        },
        needles: &["fmi2SetReal", "s_ref = -0.5", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "negative f_ref",
        bad: |i| in_instantiated_then_exit(i, "f_ref", -3.0),
        needles: &["f_ref = -3", ">= 0"],
        state_after: "Error",
    },
    Case {
        what: "NaN parameter",
        bad: |i| in_instantiated_then_exit(i, "s_rel0", f64::NAN),
        needles: &["s_rel0 = NaN", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "maxSubstepCount = 0",
        bad: |i| in_instantiated_then_exit(i, "maxSubstepCount", 0.0),
        needles: &["maxSubstepCount = 0", "an integer from 1 to 1000000"],
        state_after: "Error",
    },
    Case {
        what: "negative accelerationEstimate during the run",
        bad: |i| {
            running(i);
            set(i, "accelerationEstimate", -1.0)
        },
        needles: &[
            "fmi2SetInteger",
            "accelerationEstimate = -1",
            "an integer from 0 to",
        ],
        state_after: "Error",
    },
    Case {
        what: "maxSubstepSize = 0 during the run",
        bad: |i| {
            running(i);
            set(i, "maxSubstepSize", 0.0)
        },
        needles: &["maxSubstepSize = 0", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "NaN input",
        bad: |i| {
            running(i);
            set(i, "flange_b.s", f64::NAN)
        },
        needles: &["fmi2SetReal", "flange_b.s = NaN", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "infinite input",
        bad: |i| {
            running(i);
            set(i, "flange_a.v", f64::INFINITY)
        },
        needles: &["flange_a.v = inf", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "-inf input as a start value",
        bad: |i| set(i, "flange_b.v", f64::NEG_INFINITY),
        needles: &["flange_b.v = -inf", "a finite number"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2GetReal",
        bad: |i| {
            running(i);
            i.get_real(&[999]).0
        },
        needles: &["fmi2GetReal", "unknown value reference 999"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2SetReal",
        bad: |i| {
            running(i);
            i.set_real(&[11, 999], &[0.0, 1.0])
        },
        needles: &["fmi2SetReal", "unknown value reference 999"],
        state_after: "Error",
    },
    Case {
        what: "unknown value reference in fmi2SetInteger before initialization",
        bad: |i| i.set_integer(&[12345], &[1]),
        needles: &["fmi2SetInteger", "unknown value reference 12345"],
        state_after: "Error",
    },
    Case {
        what: "Real value reference of a Boolean",
        bad: |i| {
            running(i);
            let reference = vr(i, "useHeatPort", VarType::Boolean);
            i.get_real(&[reference]).0
        },
        needles: &["fmi2GetReal", "useHeatPort (Boolean)", "not Real"],
        state_after: "Error",
    },
    Case {
        what: "Integer access to a Real",
        bad: |i| {
            running(i);
            let reference = vr(i, "c", VarType::Real);
            i.get_integer(&[reference]).0
        },
        needles: &["fmi2GetInteger", "c (Real)", "not Integer"],
        state_after: "Error",
    },
    Case {
        what: "Boolean set of a Real input",
        bad: |i| {
            let reference = vr(i, "flange_a.s", VarType::Real);
            i.set_boolean(&[reference], &[true])
        },
        needles: &["fmi2SetBoolean", "flange_a.s (Real)", "not Boolean"],
        state_after: "Error",
    },
    Case {
        what: "String access",
        bad: |i| {
            running(i);
            let reference = vr(i, "c", VarType::Real);
            i.get_string(&[reference]).0
        },
        needles: &["fmi2GetString", "c (Real), not String"],
        state_after: "Error",
    },
    Case {
        what: "setting an output",
        bad: |i| {
            running(i);
            set(i, "f", -1.0)
        },
        needles: &[
            "fmi2SetReal",
            "f is an output",
            "only parameters and inputs can be set",
        ],
        state_after: "Error",
    },
    Case {
        what: "setting a Boolean output as a start value",
        bad: |i| set(i, "contact", 1.0),
        needles: &["fmi2SetBoolean", "contact is an output"],
        state_after: "Error",
    },
    Case {
        what: "setting a local",
        bad: |i| {
            running(i);
            set(i, "f_c", -1.0)
        },
        needles: &[
            "f_c is a local variable",
            "only parameters and inputs can be set",
        ],
        state_after: "Error",
    },
    Case {
        what: "setting the fixed useHeatPort after initialization",
        bad: |i| {
            running(i);
            set(i, "useHeatPort", 1.0)
        },
        needles: &[
            "fmi2SetBoolean",
            "useHeatPort is a fixed parameter",
            "cannot change after initialization",
        ],
        state_after: "Error",
    },
    Case {
        what: "fmi2GetReal before fmi2EnterInitializationMode",
        bad: |i| i.get_real(&[1]).0,
        needles: &["fmi2GetReal: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2GetDirectionalDerivative before fmi2EnterInitializationMode",
        bad: |i| {
            let (f, s_b) = (
                vr(i, "f", VarType::Real),
                vr(i, "flange_b.s", VarType::Real),
            );
            i.get_directional_derivative(&[f], &[s_b], &[1.0]).0
        },
        needles: &["fmi2GetDirectionalDerivative: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep before initialization",
        bad: |i| i.do_step(0.0, 0.01, false),
        needles: &["fmi2DoStep: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep in initialization mode",
        bad: |i| {
            ok(i.setup_experiment(None, 0.0, None));
            ok(i.enter_initialization_mode());
            i.do_step(0.0, 0.01, false)
        },
        needles: &["fmi2DoStep: not allowed in state InitializationMode"],
        state_after: "InitializationMode",
    },
    Case {
        what: "fmi2ExitInitializationMode without entering it",
        bad: |i| i.exit_initialization_mode(),
        needles: &["fmi2ExitInitializationMode: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2SetupExperiment after initialization",
        bad: |i| {
            running(i);
            i.setup_experiment(None, 0.0, None)
        },
        needles: &["fmi2SetupExperiment: not allowed in state StepComplete"],
        state_after: "StepComplete",
    },
    Case {
        what: "fmi2Terminate before initialization",
        bad: |i| i.terminate(),
        needles: &["fmi2Terminate: not allowed in state Instantiated"],
        state_after: "Instantiated",
    },
    Case {
        what: "fmi2DoStep after fmi2Terminate",
        bad: |i| {
            running(i);
            ok(i.terminate());
            i.do_step(0.01, 0.01, false)
        },
        needles: &["fmi2DoStep: not allowed in state Terminated"],
        state_after: "Terminated",
    },
    Case {
        what: "fmi2SetReal after fmi2Terminate",
        bad: |i| {
            running(i);
            ok(i.terminate());
            set(i, "flange_a.s", 0.0)
        },
        needles: &["fmi2SetReal: not allowed in state Terminated"],
        state_after: "Terminated",
    },
    Case {
        what: "h = 0",
        bad: |i| {
            running(i);
            i.do_step(0.01, 0.0, false)
        },
        needles: &[
            "fmi2DoStep",
            "communicationStepSize = 0",
            "a finite number > 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "h < 0",
        bad: |i| {
            running(i);
            i.do_step(0.01, -0.01, false)
        },
        needles: &["communicationStepSize = -0.01", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "h = NaN",
        bad: |i| {
            running(i);
            i.do_step(0.01, f64::NAN, false)
        },
        needles: &["communicationStepSize = NaN", "> 0"],
        state_after: "Error",
    },
    Case {
        what: "h = inf",
        bad: |i| {
            initialize(i, &[]);
            i.do_step(0.0, f64::INFINITY, false)
        },
        needles: &["communicationStepSize = inf"],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint ahead of the FMU",
        bad: |i| {
            initialize(i, &[]);
            i.do_step(0.5, 0.01, false)
        },
        needles: &["currentCommunicationPoint = 0.5", "is not the FMU's time 0"],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint half a step off",
        bad: |i| {
            running(i);
            i.do_step(0.015, 0.01, false)
        },
        needles: &[
            "currentCommunicationPoint = 0.015",
            "is not the FMU's time 0.01",
        ],
        state_after: "Error",
    },
    Case {
        what: "currentCommunicationPoint repeating the last step",
        bad: |i| {
            running(i);
            i.do_step(0.0, 0.01, false)
        },
        needles: &["currentCommunicationPoint = 0 ", "FMU's time 0.01"],
        state_after: "Error",
    },
    Case {
        what: "NULL vr[] with nvr > 0 in fmi2GetReal",
        bad: |i| {
            running(i);
            raw_get_real(i, true, false)
        },
        needles: &["fmi2GetReal", "vr[] is NULL but 2 values were announced"],
        state_after: "Error",
    },
    Case {
        what: "NULL value[] with nvr > 0 in fmi2GetReal",
        bad: |i| {
            running(i);
            raw_get_real(i, false, true)
        },
        needles: &["fmi2GetReal", "value[] is NULL but 2 values were announced"],
        state_after: "Error",
    },
    Case {
        what: "NULL vr[] with nvr > 0 in fmi2SetReal",
        bad: |i| raw_set_real(i, true, false),
        needles: &["fmi2SetReal", "vr[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "NULL value[] with nvr > 0 in fmi2SetReal",
        bad: |i| {
            running(i);
            raw_set_real(i, false, true)
        },
        needles: &["fmi2SetReal", "value[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "NULL dvKnown[] in fmi2GetDirectionalDerivative",
        bad: |i| {
            running(i);
            let f = *i.binding().fmi2GetDirectionalDerivative.as_ref().unwrap();
            let unknown = [vr(i, "f", VarType::Real)];
            let known = [vr(i, "flange_b.s", VarType::Real)];
            let mut out = [0.0];
            // SAFETY: deliberately NULL seed array with nKnown = 1.
            Status::from(unsafe {
                f(
                    i.component(),
                    unknown.as_ptr(),
                    1,
                    known.as_ptr(),
                    1,
                    ptr::null(),
                    out.as_mut_ptr(),
                )
            })
        },
        needles: &["fmi2GetDirectionalDerivative", "dvKnown[] is NULL"],
        state_after: "Error",
    },
    Case {
        what: "directional derivative of an input",
        bad: |i| {
            running(i);
            let (s_a, s_b) = (
                vr(i, "flange_a.s", VarType::Real),
                vr(i, "flange_b.s", VarType::Real),
            );
            i.get_directional_derivative(&[s_a], &[s_b], &[1.0]).0
        },
        needles: &["flange_a.s is not an output, local or state derivative"],
        state_after: "Error",
    },
    Case {
        what: "directional derivative with respect to a parameter",
        bad: |i| {
            running(i);
            let (f, c) = (vr(i, "f", VarType::Real), vr(i, "c", VarType::Real));
            i.get_directional_derivative(&[f], &[c], &[1.0]).0
        },
        needles: &["c is not an input"],
        state_after: "Error",
    },
    Case {
        what: "input derivative of order 3",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_b.v", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[3], &[1.0])
        },
        needles: &[
            "fmi2SetRealInputDerivatives",
            "order 3 of flange_b.v is not supported",
        ],
        state_after: "Error",
    },
    Case {
        what: "input derivative of an output",
        bad: |i| {
            running(i);
            let reference = vr(i, "f", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[1], &[1.0])
        },
        needles: &["fmi2SetRealInputDerivatives", "f is not an input"],
        state_after: "Error",
    },
    Case {
        what: "NaN input derivative",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_a.v", VarType::Real);
            i.set_real_input_derivatives(&[reference], &[1], &[f64::NAN])
        },
        needles: &["flange_a.v", "NaN is not finite"],
        state_after: "Error",
    },
    Case {
        what: "output derivative of order 2",
        bad: |i| {
            running(i);
            let reference = vr(i, "s_rel", VarType::Real);
            i.get_real_output_derivatives(&[reference], &[2]).0
        },
        needles: &[
            "fmi2GetRealOutputDerivatives",
            "order 2 of s_rel is not available",
            "maxOutputDerivativeOrder is 1",
        ],
        state_after: "Error",
    },
    Case {
        what: "output derivative of an input",
        bad: |i| {
            running(i);
            let reference = vr(i, "flange_b.s", VarType::Real);
            i.get_real_output_derivatives(&[reference], &[1]).0
        },
        needles: &["flange_b.s is not an output"],
        state_after: "Error",
    },
    Case {
        what: "fmi2GetFMUstate with a NULL FMUstate pointer",
        bad: |i| {
            running(i);
            let f = *i.binding().fmi2GetFMUstate.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { f(i.component(), ptr::null_mut()) })
        },
        needles: &["fmi2GetFMUstate", "FMUstate is NULL"],
        state_after: "Error",
    },
    Case {
        what: "unknown log category",
        bad: |i| i.set_debug_logging(true, &["logNonsense"]),
        needles: &["fmi2SetDebugLogging", "unknown log category 'logNonsense'"],
        state_after: "Error",
    },
    Case {
        what: "stopTime before startTime",
        bad: |i| i.setup_experiment(None, 0.0, Some(-1.0)),
        needles: &[
            "fmi2SetupExperiment",
            "stopTime = -1",
            "before startTime = 0",
        ],
        state_after: "Error",
    },
    Case {
        what: "non-finite startTime",
        bad: |i| i.setup_experiment(None, f64::NAN, None),
        needles: &["fmi2SetupExperiment", "startTime = NaN", "finite"],
        state_after: "Error",
    },
];

#[test]
fn every_bad_input_gets_fmi2error_with_a_message_and_reset_recovers() {
    let fmu = Fmu::load_default();
    // A clean run to compare the recovered instances with.
    let mut clean = Instance::new(&fmu, "clean");
    initialize(&mut clean, &[("c", 2e4)]);
    set_inputs(&mut clean, bounce(0.05));
    ok(clean.do_step(0.0, 0.02, false));
    let expected = record(&mut clean);

    for case in CASES {
        let mut inst = instance_with(
            &fmu,
            InstantiateOptions {
                instance_name: case.what.to_string(),
                logging_on: true,
                ..Default::default()
            },
        );
        let status = (case.bad)(&mut inst);
        let message = expect_error(&inst, status, case.needles);
        assert_eq!(
            state_of(&mut inst),
            case.state_after,
            "{}: state after {message:?}",
            case.what
        );
        if case.state_after == "Error" {
            // Only reading, logging switches, states, reset and free are left.
            let status = inst.do_step(0.0, 0.01, false);
            expect_error(&inst, status, &["fmi2DoStep: not allowed in state Error"]);
            let status = set(&mut inst, "flange_a.s", 0.0);
            expect_error(&inst, status, &["fmi2SetReal: not allowed in state Error"]);
            let status = inst.terminate();
            expect_error(
                &inst,
                status,
                &["fmi2Terminate: not allowed in state Error"],
            );
        }
        if case.state_after != "Instantiated" {
            ok(inst.reset());
            assert_eq!(state_of(&mut inst), "Instantiated", "{}", case.what);
        }
        // Reset gives back a new instance: start values again, time 0, nothing accumulated.
        ok(inst.setup_experiment(None, 0.0, None));
        ok(inst.enter_initialization_mode());
        ok(inst.exit_initialization_mode());
        assert_eq!(inst.real("c"), 1.0, "{}: c after reset", case.what);
        ok(set(&mut inst, "c", 2e4));
        set_inputs(&mut inst, bounce(0.05));
        ok(inst.do_step(0.0, 0.02, false));
        assert_eq!(
            record(&mut inst),
            expected,
            "{}: run after recovery",
            case.what
        );
        let logs = inst.sink().take();
        check_records(&logs, inst.environment_pointer() as usize, case.what, &inst);
        assert!(
            logs.iter().all(|r| r.status == Status::Ok),
            "{}: {logs:#?}",
            case.what
        );
    }
}

#[test]
fn a_refused_tunable_value_leaves_the_previous_one() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "tunable");
    running(&mut inst);
    ok(set(&mut inst, "c", 3e4));
    let status = set(&mut inst, "c", -1.0);
    expect_error(&inst, status, &["c = -1"]);
    assert_eq!(inst.real("c"), 3e4);
    let status = set(&mut inst, "flange_b.s", f64::NAN);
    expect_error(&inst, status, &["fmi2SetReal: not allowed in state Error"]);
}

#[test]
fn a_wrong_state_call_leaves_the_state_alone() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "wrong-state");
    assert_eq!(inst.get_real(&[1]).0, Status::Error);
    assert_eq!(inst.do_step(0.0, 0.01, false), Status::Error);
    // Still Instantiated: the whole normal sequence works.
    initialize(&mut inst, &[("c", 1e4)]);
    assert_eq!(inst.setup_experiment(None, 0.0, None), Status::Error);
    set_inputs(&mut inst, bounce(0.0));
    ok(inst.do_step(0.0, 0.01, false));
    ok(inst.terminate());
    assert_eq!(inst.terminate(), Status::Error);
    assert_eq!(state_of(&mut inst), "Terminated");
}

// ---------------------------------------------------------------------------------------------
// FMU state
// ---------------------------------------------------------------------------------------------

#[test]
fn fmu_state_round_trip_continues_bit_identically() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    let (n, m) = (60, 150);
    let mut inst = Instance::new(&fmu, "state");
    initialize(&mut inst, &OSCILLATION_SETTINGS);
    drive(&mut inst, &motion, h, 0..n, false);
    let at_snapshot = record(&mut inst);
    let mut state = FmuState::null();
    ok(inst.get_fmu_state(&mut state));
    assert!(!state.is_null());

    let first = drive(&mut inst, &motion, h, n..n + m, false);
    ok(inst.set_fmu_state(&state));
    // Everything the outputs are made of is back, before any input is set.
    assert_eq!(record(&mut inst), at_snapshot);
    assert!((fmu_time(&mut inst) - n as f64 * h).abs() < 1e-15);
    let second = drive(&mut inst, &motion, h, n..n + m, false);
    assert_eq!(first, second, "continuation without input derivatives");

    // The run covers contact, the damper bound, heat flow and the history-based acceleration.
    assert!(first.iter().any(|r| r[9] == 1) && first.iter().any(|r| r[9] == 0));
    let values: Vec<Vec<f64>> = first.iter().map(|r| decode(r)).collect();
    assert!(values.iter().any(|r| r[4] < 0.0), "heatPort.Q_flow flows");
    let bound = |r: &Vec<f64>| r[7] != 0.0 && (r[8].abs() - r[7].abs()).abs() <= 1e-12 * r[7].abs();
    assert!(values.iter().any(bound), "damper bound acting");
    assert!(
        values.iter().any(|r| r[7] != 0.0 && !bound(r)),
        "linear damper"
    );

    // With input derivatives supplied.
    ok(inst.set_fmu_state(&state));
    let third = drive(&mut inst, &motion, h, n..n + m, true);
    ok(inst.set_fmu_state(&state));
    let fourth = drive(&mut inst, &motion, h, n..n + m, true);
    assert_eq!(third, fourth, "continuation with input derivatives");
    assert_ne!(first, third, "input derivatives change the result");

    // The state holds inputs and input derivatives set before it was taken.
    ok(inst.set_fmu_state(&state));
    drive(&mut inst, &motion, h, n..n + 3, false);
    let k = n + 3;
    let t = k as f64 * h;
    set_inputs(&mut inst, motion.inputs(t));
    let velocity_vrs = real_vrs(&inst, &["flange_a.v", "flange_b.v"]);
    ok(inst.set_real_input_derivatives(&velocity_vrs, &[1, 1], &[0.7, -250.0]));
    ok(inst.get_fmu_state(&mut state)); // overwrites the existing state
    ok(inst.do_step(t, h, false));
    let after = record(&mut inst);
    ok(inst.set_fmu_state(&state));
    ok(inst.do_step(t, h, false));
    assert_eq!(record(&mut inst), after);

    let raw = state.0;
    ok(inst.free_fmu_state(&mut state));
    assert!(state.is_null(), "fmi2FreeFMUstate sets the pointer to NULL");
    // Freeing NULL is a no-op.
    ok(inst.free_fmu_state(&mut state));
    let stale = FmuState(raw);
    let status = inst.set_fmu_state(&stale);
    expect_error(
        &inst,
        status,
        &["fmi2SetFMUstate", "not a state of this instance"],
    );
}

#[test]
fn serialized_state_continues_identically_in_a_new_instance() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    let (n, m) = (75, 120);
    let mut source = Instance::new(&fmu, "source");
    initialize(&mut source, &OSCILLATION_SETTINGS);
    drive(&mut source, &motion, h, 0..n, true);
    let mut state = FmuState::null();
    ok(source.get_fmu_state(&mut state));
    let (status, size) = source.serialized_fmu_state_size(&state);
    ok(status);
    let (status, bytes) = source.serialize_fmu_state(&state);
    ok(status);
    assert_eq!(bytes.len(), size);
    let (status, again) = source.serialize_fmu_state(&state);
    ok(status);
    assert_eq!(bytes, again, "serialization is deterministic");
    let expected = drive(&mut source, &motion, h, n..n + m, false);

    // A new instance with other parameters (and useHeatPort off) takes everything from the state.
    let mut target = Instance::new(&fmu, "target");
    initialize(&mut target, &[("c", 5.0), ("accelerationEstimate", 0.0)]);
    let mut restored = FmuState::null();
    ok(target.deserialize_fmu_state(&bytes, &mut restored));
    assert!(!restored.is_null());
    ok(target.set_fmu_state(&restored));
    let continued = drive(&mut target, &motion, h, n..n + m, false);
    assert_eq!(expected, continued);
    assert!(target.boolean("useHeatPort"));

    // Deserializing into an existing state of the instance overwrites it.
    ok(target.deserialize_fmu_state(&bytes, &mut restored));
    ok(target.set_fmu_state(&restored));
    assert_eq!(drive(&mut target, &motion, h, n..n + m, false), expected);

    // A new instance that is only instantiated accepts the state too (restored in
    // fmi2Instantiated, it then needs initialization before stepping).
    let mut fresh = Instance::new(&fmu, "fresh");
    let mut early = FmuState::null();
    ok(fresh.deserialize_fmu_state(&bytes, &mut early));
    ok(fresh.set_fmu_state(&early));
    ok(fresh.free_fmu_state(&mut early));
    assert!(early.is_null());

    ok(source.free_fmu_state(&mut state));
    ok(target.free_fmu_state(&mut restored));
}

const SERIALIZED_C: f64 = 1_234.567_890_123;

#[test]
fn corrupt_serialized_states_are_refused_without_a_crash() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let mut source = Instance::new(&fmu, "serializer");
    initialize(&mut source, &OSCILLATION_SETTINGS);
    ok(set(&mut source, "c", SERIALIZED_C));
    drive(&mut source, &motion, 1e-3, 0..40, false);
    let mut state = FmuState::null();
    ok(source.get_fmu_state(&mut state));
    let (status, bytes) = source.serialize_fmu_state(&state);
    ok(status);
    let mut random = Random(0x9e37_79b9_7f4a_7c15);

    let f64_at = |bytes: &[u8], slot: usize, value: f64| {
        // The layout of src/snapshot.rs: a 12-byte header (magic, format version), then f64
        // slots; every slot must hold a finite number.
        let mut copy = bytes.to_vec();
        copy[12 + 8 * slot..20 + 8 * slot].copy_from_slice(&value.to_le_bytes());
        copy
    };
    let mut corrupt: Vec<(String, Vec<u8>)> = vec![
        ("empty".into(), Vec::new()),
        ("truncated by one".into(), bytes[..bytes.len() - 1].to_vec()),
        ("half".into(), bytes[..bytes.len() / 2].to_vec()),
        ("header only".into(), bytes[..12].to_vec()),
        (
            "one byte too long".into(),
            [bytes.clone(), vec![0]].concat(),
        ),
        ("wrong header".into(), {
            let mut b = bytes.clone();
            b[0] ^= 0xff;
            b
        }),
        ("wrong format version".into(), {
            let mut b = bytes.clone();
            b[8] = b[8].wrapping_add(1);
            b
        }),
        ("zeros".into(), vec![0; bytes.len()]),
        (
            "random bytes".into(),
            (0..bytes.len()).map(|_| random.next_u64() as u8).collect(),
        ),
        ("random bytes behind the header".into(), {
            let mut b = bytes.clone();
            for x in &mut b[12..] {
                *x = random.next_u64() as u8;
            }
            b
        }),
    ];
    for slot in 0..(bytes.len() - 12) / 8 {
        corrupt.push((
            format!("NaN in slot {slot}"),
            f64_at(&bytes, slot, f64::NAN),
        ));
    }
    // c was set to a value that appears once in the buffer: make it negative wherever it is.
    let c_bytes = SERIALIZED_C.to_le_bytes();
    let at = bytes
        .windows(8)
        .position(|w| w == c_bytes)
        .expect("c is in the serialized state");
    let mut negative_c = bytes.clone();
    negative_c[at..at + 8].copy_from_slice(&(-SERIALIZED_C).to_le_bytes());
    corrupt.push(("negative c".into(), negative_c));

    let mut deserializer = Instance::new(&fmu, "deserializer");
    initialize(&mut deserializer, &[]);
    for (what, buffer) in &corrupt {
        let mut target = FmuState::null();
        let status = deserializer.deserialize_fmu_state(buffer, &mut target);
        expect_error(&deserializer, status, &["fmi2DeSerializeFMUstate"]);
        assert!(target.is_null(), "{what}: no state handed out");
        ok(deserializer.reset());
        initialize(&mut deserializer, &[]);
    }

    // Random damage: refused, or accepted and then usable without a crash or fmi2Fatal.
    let mut accepted = 0;
    for round in 0..400 {
        let mut buffer = bytes.clone();
        for _ in 0..1 + round % 3 {
            let at = (random.next_u64() as usize) % buffer.len();
            buffer[at] = random.next_u64() as u8;
        }
        let mut target = FmuState::null();
        let status = deserializer.deserialize_fmu_state(&buffer, &mut target);
        match status {
            Status::Ok => {
                accepted += 1;
                ok(deserializer.set_fmu_state(&target));
                let (_, time) =
                    deserializer.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
                let stepped = deserializer.do_step(time, 1e-3, false);
                assert!(
                    matches!(stepped, Status::Ok | Status::Error),
                    "round {round}: {stepped:?}"
                );
                read_if_running(&mut deserializer, stepped);
                ok(deserializer.free_fmu_state(&mut target));
            }
            Status::Error => assert!(target.is_null()),
            other => panic!("round {round}: fmi2DeSerializeFMUstate returned {other:?}"),
        }
        deserializer.sink().take();
        ok(deserializer.reset());
        initialize(&mut deserializer, &[]);
    }
    assert!(accepted > 0, "some single-byte changes are harmless values");
    ok(source.free_fmu_state(&mut state));
}

fn read_if_running(inst: &mut Instance, stepped: Status) {
    if stepped == Status::Ok {
        let vrs = real_vrs(inst, &RECORDED_REALS);
        let (status, _) = inst.get_real(&vrs);
        ok(status);
    }
}

#[test]
fn foreign_freed_and_fabricated_state_pointers_are_refused() {
    let fmu = Fmu::load_default();
    let mut a = Instance::new(&fmu, "owner");
    let mut b = Instance::new(&fmu, "stranger");
    initialize(&mut a, &[]);
    initialize(&mut b, &[]);
    let mut state = FmuState::null();
    ok(a.get_fmu_state(&mut state));

    let needles = &["not a state of this instance"];
    let status = b.set_fmu_state(&state);
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let status = b.serialized_fmu_state_size(&state).0;
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let mut foreign = FmuState(state.0);
    let status = b.free_fmu_state(&mut foreign);
    expect_error(&b, status, needles);
    assert!(!foreign.is_null(), "a refused free leaves the pointer");
    ok(b.reset());
    initialize(&mut b, &[]);
    let (status, bytes) = a.serialize_fmu_state(&state);
    ok(status);
    let mut foreign = FmuState(state.0);
    let status = b.deserialize_fmu_state(&bytes, &mut foreign);
    expect_error(&b, status, &["neither NULL nor a state of this instance"]);
    ok(b.reset());
    initialize(&mut b, &[]);
    let mut local = 0u64;
    let fabricated = FmuState((&mut local as *mut u64).cast());
    let status = b.set_fmu_state(&fabricated);
    expect_error(&b, status, needles);
    ok(b.reset());
    initialize(&mut b, &[]);
    let status = b.set_fmu_state(&FmuState::null());
    expect_error(&b, status, &["fmi2SetFMUstate", "NULL"]);

    // The owner still uses its state after all that.
    ok(a.do_step(0.0, 0.01, false));
    ok(a.set_fmu_state(&state));
    assert_eq!(fmu_time(&mut a), 0.0);
    let raw = state.0;
    ok(a.free_fmu_state(&mut state));
    assert!(state.is_null());
    let status = a.serialize_fmu_state(&FmuState(raw)).0;
    expect_error(&a, status, needles);
    ok(a.reset());
    let mut stale = FmuState(raw);
    let status = a.free_fmu_state(&mut stale);
    expect_error(&a, status, needles);

    // States outlive fmi2Reset: the importer owns them until it frees them.
    ok(a.reset());
    initialize(&mut a, &[("c", 3e4), ("s_rel0", 0.1)]);
    set_inputs(&mut a, [0.0, 0.0, 0.09, -1.0]);
    ok(a.do_step(0.0, 1e-3, false));
    let mut before_reset = FmuState::null();
    ok(a.get_fmu_state(&mut before_reset));
    let f_mean = a.real("f_mean");
    assert!(f_mean < 0.0, "in contact: f_mean = {f_mean}");
    ok(a.reset());
    initialize(&mut a, &[]);
    ok(a.set_fmu_state(&before_reset));
    assert_eq!(
        (a.real("c"), a.real("f_mean"), fmu_time(&mut a)),
        (3e4, f_mean, 1e-3)
    );
    ok(a.free_fmu_state(&mut before_reset));
}

// ---------------------------------------------------------------------------------------------
// No globals: instances on threads
// ---------------------------------------------------------------------------------------------

const THREAD_SETTINGS_B: [(&str, f64); 8] = [
    ("c", 5e4),
    ("d", 100.0),
    ("n", 1.0),
    ("s_rel0", 0.001),
    ("f_ref", 30.0),
    ("maxSubstepSize", 5e-5),
    ("accelerationEstimate", 1.0),
    ("useHeatPort", 1.0),
];

const THREAD_MOTION_B: Oscillation = Oscillation {
    mean: 0.0,
    amplitude: 0.01,
    omega: 2.0 * std::f64::consts::PI * 7.0,
};

const THREAD_STEPS: usize = 3000;

#[test]
fn instances_on_two_threads_match_sequential_runs() {
    let fmu = Fmu::load_default();
    let run = |inst: &mut Instance, settings: &[(&str, f64)], motion: &Oscillation| {
        initialize(inst, settings);
        drive(inst, motion, 1e-3, 0..THREAD_STEPS, false)
    };
    let motion_a = Oscillation::DEFAULT;
    let sequential_a = run(
        &mut Instance::new(&fmu, "a"),
        &OSCILLATION_SETTINGS,
        &motion_a,
    );
    let sequential_b = run(
        &mut Instance::new(&fmu, "b"),
        &THREAD_SETTINGS_B,
        &THREAD_MOTION_B,
    );
    assert_ne!(sequential_a, sequential_b);

    // Both on their own threads at the same time.
    let mut a = Instance::new(&fmu, "thread-a");
    let mut b = Instance::new(&fmu, "thread-b");
    let start = Arc::new(Barrier::new(2));
    let start_b = Arc::clone(&start);
    let thread_a = thread::spawn(move || {
        start.wait();
        let rows = run(&mut a, &OSCILLATION_SETTINGS, &motion_a);
        (rows, a.logs())
    });
    let thread_b = thread::spawn(move || {
        start_b.wait();
        let rows = run(&mut b, &THREAD_SETTINGS_B, &THREAD_MOTION_B);
        (rows, b.logs())
    });
    let (parallel_a, logs_a) = thread_a.join().expect("thread a");
    let (parallel_b, logs_b) = thread_b.join().expect("thread b");
    assert!(parallel_a == sequential_a, "instance a on a thread differs");
    assert!(parallel_b == sequential_b, "instance b on a thread differs");
    assert!(logs_a.is_empty() && logs_b.is_empty());

    // Interleaved step by step on one thread: any shared state would show deterministically.
    let mut a = Instance::new(&fmu, "lockstep-a");
    let mut b = Instance::new(&fmu, "lockstep-b");
    initialize(&mut a, &OSCILLATION_SETTINGS);
    initialize(&mut b, &THREAD_SETTINGS_B);
    let (mut rows_a, mut rows_b) = (Vec::new(), Vec::new());
    for k in 0..THREAD_STEPS {
        rows_a.extend(drive(&mut a, &motion_a, 1e-3, k..k + 1, false));
        rows_b.extend(drive(&mut b, &THREAD_MOTION_B, 1e-3, k..k + 1, false));
    }
    assert!(rows_a == sequential_a, "instance a interleaved differs");
    assert!(rows_b == sequential_b, "instance b interleaved differs");
}

// ---------------------------------------------------------------------------------------------
// Directional derivatives
// ---------------------------------------------------------------------------------------------

#[test]
fn directional_derivatives_match_central_differences() {
    let fmu = Fmu::load_default();
    let laws = [
        Law {
            c: 1e4,
            d: 30.0,
            s_rel0: 0.001,
            n: 1.5,
            s_ref: 0.01,
            f_ref: 0.0,
        },
        Law {
            c: 1.0,
            d: 5.0,
            s_rel0: -0.02,
            n: 1.0,
            s_ref: 0.5,
            f_ref: 80.0,
        },
        Law {
            c: 2e3,
            d: 0.0,
            s_rel0: 0.0,
            n: 2.5,
            s_ref: 0.1,
            f_ref: 0.0,
        },
    ];
    for (l, law) in laws.iter().enumerate() {
        let mut inst = Instance::new(&fmu, &format!("dd-{l}"));
        initialize(&mut inst, &law.settings());
        set_inputs(&mut inst, [0.0, 0.0, 0.5, 0.0]);
        ok(inst.do_step(0.0, 0.01, false));
        let (s_a, v_a) = (0.002, 0.1);
        let reference = if law.f_ref == 0.0 {
            law.c * law.s_ref
        } else {
            law.f_ref
        };
        // Relative positions and velocities: out of contact, in contact with the linear damper
        // (both directions), with the damper bound acting from above and from below.
        let compression = 0.4 * law.s_ref;
        let s_in = law.s_rel0 - compression;
        let f_c = reference * 0.4f64.powf(law.n);
        let v_linear = if law.d > 0.0 { 0.3 * f_c / law.d } else { 0.7 };
        let v_bound = if law.d > 0.0 { 3.0 * f_c / law.d } else { 2.0 };
        let mut points = vec![
            ("out of contact", law.s_rel0 + 0.5 * law.s_ref, -0.3),
            ("contact, linear damper, closing", s_in, -v_linear),
            ("contact, linear damper, opening", s_in, v_linear),
        ];
        if law.d > 0.0 {
            points.push(("contact, damper bound from above", s_in, v_bound));
            points.push(("contact, damper bound from below", s_in, -v_bound));
        }
        for (label, s_rel, v_rel) in points {
            let point = [s_a, v_a, s_a + s_rel, v_a + v_rel];
            check_directional_derivatives(&mut inst, law, point, &format!("law {l}, {label}"));
        }
        let logs = inst.logs();
        assert!(logs.is_empty(), "{logs:#?}");
    }
}

fn check_directional_derivatives(inst: &mut Instance, law: &Law, point: [f64; 4], label: &str) {
    let unknowns = real_vrs(inst, &DIRECT_FEEDTHROUGH);
    let knowns = real_vrs(inst, &INPUTS);
    ok(inst.set_real(&knowns, &point));
    let (status, base) = inst.get_real(&unknowns);
    ok(status);

    // The outputs are the law's.
    let (s_rel, v_rel) = (point[2] - point[0], point[3] - point[1]);
    let forces = law.forces(s_rel, v_rel);
    let expected = [
        forces.f,
        s_rel,
        v_rel,
        forces.loss_power,
        forces.f_c,
        forces.f_d,
    ];
    for ((name, value), wanted) in DIRECT_FEEDTHROUGH.iter().zip(&base).zip(expected) {
        assert!(
            (value - wanted).abs() <= 1e-13 * wanted.abs().max(1e-300),
            "{label}: {name} = {value} but the law gives {wanted}"
        );
    }
    assert_eq!(inst.boolean("contact"), forces.contact, "{label}");

    let mut columns = Vec::new();
    for (j, known) in knowns.iter().enumerate() {
        let (status, derivative) = inst.get_directional_derivative(&unknowns, &[*known], &[1.0]);
        ok(status);
        let delta = 1e-7;
        let mut shifted = point;
        shifted[j] = point[j] + delta;
        ok(inst.set_real(&knowns, &shifted));
        let (_, plus) = inst.get_real(&unknowns);
        shifted[j] = point[j] - delta;
        ok(inst.set_real(&knowns, &shifted));
        let (_, minus) = inst.get_real(&unknowns);
        ok(inst.set_real(&knowns, &point));
        for (i, name) in DIRECT_FEEDTHROUGH.iter().enumerate() {
            let difference = (plus[i] - minus[i]) / (2.0 * delta);
            let scale = derivative[i].abs().max(difference.abs());
            assert!(
                (derivative[i] - difference).abs() <= 1e-6 * scale + 1e-6,
                "{label}: d{name}/d{} = {} but central differences give {difference}",
                INPUTS[j],
                derivative[i]
            );
        }
        columns.push(derivative);
    }
    // Several knowns at once: the seeds combine the columns linearly.
    let seed = [0.3, -1.2, 2.0, 0.7];
    let (status, combined) = inst.get_directional_derivative(&unknowns, &knowns, &seed);
    ok(status);
    for (i, name) in DIRECT_FEEDTHROUGH.iter().enumerate() {
        let sum: f64 = columns.iter().zip(seed).map(|(c, s)| c[i] * s).sum();
        assert!(
            (combined[i] - sum).abs() <= 1e-12 * sum.abs().max(1.0),
            "{label}: seeded d{name} = {} vs {sum}",
            combined[i]
        );
    }
    // No knowns, no change.
    let (status, none) = inst.get_directional_derivative(&unknowns, &[], &[]);
    ok(status);
    assert!(none.iter().all(|x| *x == 0.0));
}

// ---------------------------------------------------------------------------------------------
// Input and output derivatives; the step integral against an independent quadrature
// ---------------------------------------------------------------------------------------------

/// One step from a fresh instance: flange_a at `(s_a, v_a)` accelerating with `a_a`, flange_b at
/// `(s_a + s0, v_a + v0)`; the relative acceleration `a` supplied as the first derivative of the
/// velocities (if `supplied`). Returns the instance after the step.
#[derive(Clone, Copy, Debug)]
struct OneStep {
    law: Law,
    s0: f64,
    v0: f64,
    a: f64,
    h: f64,
    /// `maxSubstepSize` (and a `maxSubstepCount` that allows it), if not the default.
    substep: Option<f64>,
}

impl OneStep {
    fn run(
        &self,
        fmu: &Arc<Fmu>,
        name: &str,
        flange_a: (f64, f64, f64),
        supply: Supply,
    ) -> Instance {
        let mut inst = Instance::new(fmu, name);
        let mut settings = self.law.settings();
        settings.push(("useHeatPort", 1.0));
        if let Some(size) = self.substep {
            settings.push(("maxSubstepSize", size));
            settings.push(("maxSubstepCount", 1e6));
        }
        initialize(&mut inst, &settings);
        let (s_a, v_a, a_a) = flange_a;
        set_inputs(&mut inst, [s_a, v_a, s_a + self.s0, v_a + self.v0]);
        let references = real_vrs(&inst, &INPUTS);
        match supply {
            Supply::Nothing => {}
            Supply::VelocityOrder1 => ok(inst.set_real_input_derivatives(
                &[references[1], references[3]],
                &[1, 1],
                &[a_a, a_a + self.a],
            )),
            Supply::PositionOrder2 => ok(inst.set_real_input_derivatives(
                &[references[0], references[2]],
                &[2, 2],
                &[a_a, a_a + self.a],
            )),
        }
        ok(inst.do_step(0.0, self.h, false));
        inst
    }

    fn check(&self, inst: &mut Instance, a: f64, tolerance: f64, label: &str) {
        let (impulse, dissipated) = reference_integral(&self.law, self.s0, self.v0, a, self.h);
        // Without a mass, a contact that begins in the step is probed: the step holds
        // PROBE_SHARE of the integral along the motion (docs/coupling.md).
        let share = if self.s0 >= self.law.s_rel0 {
            support::PROBE_SHARE
        } else {
            1.0
        };
        let (impulse, dissipated) = (share * impulse, share * dissipated);
        assert_close(
            inst.real("f_mean"),
            impulse / self.h,
            tolerance,
            &format!("{label}: f_mean"),
        );
        assert_close(
            inst.real("E_loss"),
            dissipated,
            tolerance,
            &format!("{label}: E_loss"),
        );
        assert_close(
            inst.real("heatPort.Q_flow"),
            -dissipated / self.h,
            tolerance,
            &format!("{label}: heatPort.Q_flow"),
        );
        let (s_end, v_end) = (
            self.s0 + self.v0 * self.h + 0.5 * a * self.h * self.h,
            self.v0 + a * self.h,
        );
        assert!(
            (inst.real("s_rel") - s_end).abs() <= 1e-15 + 1e-12 * s_end.abs(),
            "{label}"
        );
        assert!(
            (inst.real("v_rel") - v_end).abs() <= 1e-15 + 1e-12 * v_end.abs(),
            "{label}"
        );
    }
}

#[derive(Clone, Copy, Debug)]
enum Supply {
    Nothing,
    VelocityOrder1,
    PositionOrder2,
}

const STIFF_LAW: Law = Law {
    c: 1e4,
    d: 30.0,
    s_rel0: 0.0,
    n: 1.5,
    s_ref: 0.01,
    f_ref: 0.0,
};

#[test]
fn input_derivatives_give_the_step_integral_along_the_accelerated_motion() {
    let fmu = Fmu::load_default();
    // In contact all through the step, linear damper.
    let in_contact = OneStep {
        law: STIFF_LAW,
        s0: -0.004,
        v0: -0.2,
        a: 150.0,
        h: 1e-3,
        substep: None,
    };
    let mut with = in_contact.run(&fmu, "supplied", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    in_contact.check(&mut with, in_contact.a, 1e-9, "in contact, a supplied");
    let mut without = in_contact.run(&fmu, "estimated", (0.0, 0.0, 0.0), Supply::Nothing);
    in_contact.check(
        &mut without,
        0.0,
        1e-9,
        "in contact, first step without derivatives",
    );
    let (f_with, f_without) = (with.real("f_mean"), without.real("f_mean"));
    assert!(
        (f_with - f_without).abs() > 1e-3 * f_with.abs(),
        "the derivative must matter: {f_with} vs {f_without}"
    );
    // Order 2 of the positions is the same information.
    let mut by_position = in_contact.run(&fmu, "order-2", (0.0, 0.0, 0.0), Supply::PositionOrder2);
    assert_eq!(record(&mut by_position), record(&mut with));
    // Both flanges moving and accelerating: only the relative motion counts.
    let mut moving = in_contact.run(&fmu, "moving", (0.3, 0.1, -40.0), Supply::VelocityOrder1);
    in_contact.check(&mut moving, in_contact.a, 1e-9, "both flanges moving");

    // Output derivatives at the end of the step.
    let (s_rel, v_rel, f) = (
        vr(&with, "s_rel", VarType::Real),
        vr(&with, "v_rel", VarType::Real),
        vr(&with, "f", VarType::Real),
    );
    let (e_loss, loss_power) = (
        vr(&with, "E_loss", VarType::Real),
        vr(&with, "lossPower", VarType::Real),
    );
    let (status, derivatives) =
        with.get_real_output_derivatives(&[s_rel, v_rel, f, e_loss], &[1, 1, 1, 1]);
    ok(status);
    let (status, values) = with.get_real(&[v_rel, loss_power, s_rel]);
    ok(status);
    assert_eq!(
        derivatives[0].to_bits(),
        values[0].to_bits(),
        "d s_rel/dt = v_rel"
    );
    assert_eq!(derivatives[1], in_contact.a, "d v_rel/dt = a");
    assert_eq!(derivatives[3], values[1], "d E_loss/dt = lossPower");
    let law = &in_contact.law;
    let compression = (law.s_rel0 - values[2]) / law.s_ref;
    let df_dt = law.c * law.s_ref * law.n * compression.powf(law.n - 1.0) * values[0] / law.s_ref
        + law.d * in_contact.a;
    assert_close(derivatives[2], df_dt, 1e-12, "d f/dt");
    let status = with.get_real_output_derivatives(&[s_rel], &[2]).0;
    expect_error(&with, status, &["order 2 of s_rel is not available"]);

    // The damper bound switches off inside the step.
    let bound_switch = OneStep {
        law: Law {
            d: 300.0,
            ..STIFF_LAW
        },
        ..in_contact
    };
    let mut inst = bound_switch.run(
        &fmu,
        "bound-switch",
        (0.0, 0.0, 0.0),
        Supply::VelocityOrder1,
    );
    bound_switch.check(&mut inst, bound_switch.a, 1e-9, "damper bound switching");
}

#[test]
fn step_integral_across_contact_start_and_end() {
    let fmu = Fmu::load_default();
    // Touch-down inside the step with the linear spring.
    let touch_down = OneStep {
        law: Law {
            n: 1.0,
            ..STIFF_LAW
        },
        s0: 3e-4,
        v0: -0.5,
        a: 40.0,
        h: 1e-3,
        substep: None,
    };
    let mut inst = touch_down.run(&fmu, "touch-down", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    touch_down.check(&mut inst, touch_down.a, 1e-9, "touch-down, n = 1");
    let logs = inst.logs();
    assert!(logs.is_empty(), "loggingOn = 0: {logs:#?}");

    // Touch-down and lift-off inside one step, maximum compression on a substep boundary.
    let in_and_out = OneStep {
        law: Law {
            n: 1.0,
            ..STIFF_LAW
        },
        s0: 2e-4,
        v0: -0.5,
        a: 600.0,
        h: 2e-3,
        substep: None,
    };
    let mut inst = in_and_out.run(&fmu, "in-and-out", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    in_and_out.check(
        &mut inst,
        in_and_out.a,
        1e-9,
        "touch-down and lift-off, n = 1",
    );

    // With n = 1.5 the force grows like (t - t_touch)^1.5 after touch-down, which the fixed
    // quadrature of the substeps resolves to about 2e-4 with the default maxSubstepSize (1e-4 s)
    // over this short contact, and converging with order 2.5 as the substeps shrink.
    let in_and_out = OneStep {
        law: STIFF_LAW,
        ..in_and_out
    };
    let mut inst = in_and_out.run(
        &fmu,
        "n=1.5 default",
        (0.0, 0.0, 0.0),
        Supply::VelocityOrder1,
    );
    in_and_out.check(
        &mut inst,
        in_and_out.a,
        1e-3,
        "touch-down and lift-off, n = 1.5",
    );
    let fine = OneStep {
        substep: Some(1e-7),
        ..in_and_out
    };
    let mut inst = fine.run(&fmu, "n=1.5 fine", (0.0, 0.0, 0.0), Supply::VelocityOrder1);
    fine.check(
        &mut inst,
        fine.a,
        1e-9,
        "touch-down and lift-off, n = 1.5, substeps of 1e-7 s",
    );
}

/// In contact, where `v_rel` passes through 0 at the deepest compression, the damper leaves its
/// lower bound, is linear for a short time and reaches its upper bound (`f` from `2 f_c` to 0).
/// That window may lie inside one substep, away from the substep's start, middle and end, where no
/// sample sees it: both switches must still be found, or f_mean is off by per cent.
#[test]
fn damper_bound_switching_twice_inside_one_substep() {
    let fmu = Fmu::load_default();
    for (label, step) in [
        (
            "touch-down, deepest point inside a substep, n = 1",
            OneStep {
                law: Law {
                    n: 1.0,
                    ..STIFF_LAW
                },
                s0: 2e-4,
                v0: -0.5,
                a: 600.0,
                h: 9e-4,
                substep: None,
            },
        ),
        (
            "in contact all through, d = 3000, n = 1",
            OneStep {
                law: Law {
                    n: 1.0,
                    d: 3000.0,
                    ..STIFF_LAW
                },
                s0: -1e-5,
                v0: -0.052,
                a: 100.0,
                h: 1e-3,
                substep: None,
            },
        ),
    ] {
        let mut inst = step.run(&fmu, label, (0.0, 0.0, 0.0), Supply::VelocityOrder1);
        step.check(&mut inst, step.a, 1e-9, label);
    }
}

#[test]
fn supplied_derivatives_override_the_estimate_for_one_step_only() {
    let fmu = Fmu::load_default();
    let law = STIFF_LAW;
    let h = 1e-3;
    let mut settings = law.settings();
    settings.push(("accelerationEstimate", 2.0));
    // The harness prescribes the motion (heldForce = None): the step is the law's integral
    // along it from the first contact step on.
    settings.push(("heldForce", 4.0));
    let mut inst = Instance::new(&fmu, "history");
    initialize(&mut inst, &settings);
    // A history whose estimate would be -300 m/s^2.
    let k0 = 5;
    for k in 0..k0 {
        let t = k as f64 * h;
        let v = -0.2 - 300.0 * (t - k0 as f64 * h);
        set_inputs(&mut inst, [0.0, 0.0, -0.004, v]);
        ok(inst.do_step(t, (k + 1) as f64 * h - t, false));
    }
    let t = k0 as f64 * h;
    let step = (k0 + 1) as f64 * h - t;
    let (s0, v0, a) = (-0.004, -0.2, 150.0);
    set_inputs(&mut inst, [0.0, 0.0, s0, v0]);
    let vb = vr(&inst, "flange_b.v", VarType::Real);
    ok(inst.set_real_input_derivatives(&[vb], &[1], &[a]));
    let e_before = inst.real("E_loss");
    ok(inst.do_step(t, step, false));
    let (impulse, dissipated) = reference_integral(&law, s0, v0, a, step);
    assert_close(
        inst.real("f_mean"),
        impulse / step,
        1e-9,
        "supplied over history",
    );
    assert_close(
        inst.real("E_loss") - e_before,
        dissipated,
        1e-9,
        "E_loss increment",
    );

    // accelerationEstimate = 0: without a new derivative the next step assumes no acceleration.
    ok(set(&mut inst, "accelerationEstimate", 0.0));
    let t = (k0 + 1) as f64 * h;
    let step = (k0 + 2) as f64 * h - t;
    let (s1, v1) = (-0.0041, -0.15);
    set_inputs(&mut inst, [0.0, 0.0, s1, v1]);
    ok(inst.do_step(t, step, false));
    let (impulse, _) = reference_integral(&law, s1, v1, 0.0, step);
    assert_close(
        inst.real("f_mean"),
        impulse / step,
        1e-9,
        "derivative not carried over",
    );
}

// ---------------------------------------------------------------------------------------------
// Heat port
// ---------------------------------------------------------------------------------------------

#[test]
fn heat_flow_is_the_negative_mean_dissipated_power() {
    let fmu = Fmu::load_default();
    let motion = Oscillation::DEFAULT;
    let h = 1e-3;
    for use_heat_port in [true, false] {
        let mut inst = Instance::new(&fmu, &format!("heat-port-{use_heat_port}"));
        let settings: Vec<(&str, f64)> = OSCILLATION_SETTINGS
            .iter()
            .map(|&(name, value)| {
                if name == "useHeatPort" {
                    (name, f64::from(u8::from(use_heat_port)))
                } else {
                    (name, value)
                }
            })
            .collect();
        initialize(&mut inst, &settings);
        assert_eq!(inst.boolean("useHeatPort"), use_heat_port);
        assert_eq!(inst.real("heatPort.Q_flow"), 0.0);
        let mut e_previous = inst.real("E_loss");
        assert_eq!(e_previous, 0.0);
        let mut flowing = 0;
        for k in 0..400 {
            let t = k as f64 * h;
            let step = (k + 1) as f64 * h - t;
            set_inputs(&mut inst, motion.inputs(t));
            ok(inst.do_step(t, step, k % 2 == 0));
            let (e, q) = (inst.real("E_loss"), inst.real("heatPort.Q_flow"));
            assert!(e >= e_previous, "E_loss is monotone");
            if use_heat_port {
                let expected = -(e - e_previous) / step;
                assert!(
                    (q - expected).abs() <= 1e-12 * (e / step) + 1e-300,
                    "step {k}: heatPort.Q_flow = {q} vs -(dE_loss)/h = {expected}"
                );
                if q < 0.0 {
                    flowing += 1;
                }
            } else {
                assert_eq!(q, 0.0, "useHeatPort = false: no heat flow");
            }
            e_previous = e;
        }
        assert!(e_previous > 0.0);
        if use_heat_port {
            assert!(flowing > 50, "{flowing} steps with heat flow");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs from fuzzing the C ABI (fuzz/)
// ---------------------------------------------------------------------------------------------

/// At a large time the relative slack on the communication point exceeds a short last step; a
/// step restated at the previous step's start must be refused, not run with a zero time
/// difference in the acceleration estimate (which would give NaN outputs under fmi2OK). A step too
/// small to advance the time in double precision is refused too.
#[test]
fn steps_that_restart_at_the_last_step_start_or_do_not_advance_time_are_refused() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "restated-time");
    ok(inst.setup_experiment(None, 1e6, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    set_inputs(&mut inst, [0.0, 0.0, 0.1, -1.0]);
    ok(inst.do_step(1e6, 1e-6, false));
    set_inputs(&mut inst, [0.0, 0.0, 0.1, -2.0]);
    let status = inst.do_step(1e6, 1e-3, false);
    expect_error(
        &inst,
        status,
        &["currentCommunicationPoint = 1000000 ", "FMU's time"],
    );

    let mut inst = Instance::new(&fmu, "no-advance");
    ok(inst.setup_experiment(None, 1e6, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    // Half an ulp of 1e6 is 5.8e-11: 1e6 + 1e-12 == 1e6.
    let status = inst.do_step(1e6, 1e-12, false);
    expect_error(
        &inst,
        status,
        &["communicationStepSize = 1e-12", "does not advance"],
    );
}

/// Parameters and inputs that each keep their rules can overflow the law together: f_ref =
/// 1e308 at ten times s_ref with n = 2 is a force of -1e310 N. fmi2GetReal must refuse such an
/// output with a reason rather than return -inf under fmi2OK; outputs that are finite still read.
#[test]
fn an_output_beyond_f64_is_refused_with_a_reason() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "overflowing-force");
    initialize(&mut inst, &[("f_ref", 1e308), ("n", 2.0), ("s_ref", 1.0)]);
    set_inputs(&mut inst, [0.0, 0.0, -10.0, 0.0]);
    let (status, _) = inst.get_real_by_name("f");
    expect_error(&inst, status, &["f = -inf is not finite"]);
    let mut inst = Instance::new(&fmu, "overflowing-force-s_rel");
    initialize(&mut inst, &[("f_ref", 1e308), ("n", 2.0), ("s_ref", 1.0)]);
    set_inputs(&mut inst, [0.0, 0.0, -10.0, 0.0]);
    assert_eq!(inst.real("s_rel"), -10.0);
}

/// An FMU state taken before initialization holds parameters nobody checked yet (d = -5 here);
/// restoring it once the parameters are in effect must be refused, or the damper would feed
/// energy in (lossPower < 0) under fmi2OK.
#[test]
fn a_state_with_unchecked_parameters_is_refused_after_initialization() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "unchecked-state");
    ok(set(&mut inst, "d", -5.0));
    let mut early = FmuState::null();
    ok(inst.get_fmu_state(&mut early));
    ok(set(&mut inst, "d", 1.0));
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    let status = inst.set_fmu_state(&early);
    expect_error(&inst, status, &["d = -5"]);
}

// ---------------------------------------------------------------------------------------------
// Recovery from fmi2Error
// ---------------------------------------------------------------------------------------------

/// FMI 2.0, 2.1.3: after fmi2Error the master may restore a previously retrieved FMU state and go
/// on. The instance must step again from the restored values, exactly as from the first visit.
#[test]
fn restoring_a_state_after_an_error_resumes_stepping_from_it() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "recovery");
    initialize(&mut inst, &[("c", 1e4), ("d", 20.0), ("s_rel0", 0.1)]);
    set_inputs(&mut inst, [0.0, 0.0, 0.5, -1.0]);
    ok(inst.do_step(0.0, 1e-3, false));
    let mut saved = FmuState::null();
    ok(inst.get_fmu_state(&mut saved));
    set_inputs(&mut inst, [0.0, 0.0, 0.099, -1.0]);
    ok(inst.do_step(1e-3, 1e-3, false));
    let first_visit = (inst.real("f_mean"), inst.real("E_loss"));
    assert!(
        first_visit.0 < 0.0,
        "the step must be in contact: {first_visit:?}"
    );

    let status = inst.do_step(5.0, 1e-3, false);
    expect_error(&inst, status, &["currentCommunicationPoint = 5"]);
    assert_eq!(
        inst.do_step(2e-3, 1e-3, false),
        Status::Error,
        "Error state"
    );

    ok(inst.set_fmu_state(&saved));
    set_inputs(&mut inst, [0.0, 0.0, 0.099, -1.0]);
    ok(inst.do_step(1e-3, 1e-3, false));
    let second_visit = (inst.real("f_mean"), inst.real("E_loss"));
    assert_eq!(
        (first_visit.0.to_bits(), first_visit.1.to_bits()),
        (second_visit.0.to_bits(), second_visit.1.to_bits())
    );
    ok(inst.free_fmu_state(&mut saved));
}

/// A refused fmi2SetReal changes none of its values, also those listed before the refused one.
#[test]
fn a_refused_set_changes_none_of_its_values() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "all-or-nothing");
    initialize(&mut inst, &[("c", 1e4), ("d", 20.0)]);
    let (c, d) = (inst.vr("c", VarType::Real), inst.vr("d", VarType::Real));
    let status = inst.set_real(&[c, d], &[2e4, -1.0]);
    expect_error(&inst, status, &["d = -1 is not allowed"]);
    // Values stay readable in the Error state.
    assert_eq!(inst.real("c"), 1e4);
    assert_eq!(inst.real("d"), 20.0);
}

/// A serialized state from fuzz/deserialize_state whose step ends with a finite f but an infinite
/// lossPower (the bounded damper force near the largest double times v_rel): stepped with fmi2OK,
/// it would leave outputs that cannot be read. Every step fmi2DoStep accepts must leave all
/// outputs and locals readable.
#[test]
fn every_step_accepted_from_a_fuzzed_state_leaves_readable_outputs() {
    let accepted = steps_from_a_fuzzed_state(
        "fuzzed-state",
        include_bytes!("data/state_with_overflowing_loss_power.bin"),
    );
    assert!(
        accepted >= 1,
        "the first step from the state is an ordinary one"
    );
}

/// A state from fuzz/deserialize_state from which a step would leave E_port (the sum of held force
/// times displacement) infinite, and unreadable: a step whose port energy is not finite is
/// refused, like one whose E_loss is not.
#[test]
fn every_step_accepted_from_a_state_near_the_port_energys_range_leaves_it_readable() {
    steps_from_a_fuzzed_state(
        "fuzzed-port-energy",
        include_bytes!("data/state_with_overflowing_port_energy.bin"),
    );
}

/// A state from fuzz/deserialize_state from which a step of a law that is not piecewise affine
/// meets a piece whose damper bound switches three times (on each side of the turn of v_rel and
/// once after it): the integration must take every kink of the piece rather than panic into
/// fmi2Fatal, and every step from it is an ordinary one.
#[test]
fn a_state_whose_step_has_three_kinks_in_one_piece_steps() {
    let accepted = steps_from_a_fuzzed_state(
        "fuzzed-three-kinks",
        include_bytes!("data/state_with_three_kinks_in_one_piece.bin"),
    );
    assert_eq!(
        accepted, 3,
        "all three steps from the state are ordinary ones"
    );
}

/// Restores `bytes` and steps by 1e-3, 0.25 and 1000 s while the FMU accepts the steps, checking
/// after each that every recorded Real and E_port reads back finite; returns how many it accepted.
fn steps_from_a_fuzzed_state(name: &str, bytes: &[u8]) -> usize {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, name);
    initialize(&mut inst, &[]);
    ok(inst.do_step(0.0, 1e-3, false));
    let mut state = FmuState::null();
    ok(inst.deserialize_fmu_state(bytes, &mut state));
    ok(inst.set_fmu_state(&state));
    let every_real: Vec<u32> = RECORDED_REALS
        .iter()
        .chain(["E_port"].iter())
        .map(|name| inst.vr(name, VarType::Real))
        .collect();
    let mut accepted = 0;
    for h in [1e-3, 0.25, 1e3] {
        let time = fmu_time(&mut inst);
        let status = inst.do_step(time, h, false);
        assert_ne!(status, Status::Fatal, "a step of {h} s from the state");
        if status != Status::Ok {
            break;
        }
        accepted += 1;
        let (status, values) = inst.get_real(&every_real);
        assert_eq!(
            status,
            Status::Ok,
            "outputs after an accepted step of {h} s"
        );
        assert!(values.iter().all(|v| v.is_finite()), "{values:?}");
        ok(set(&mut inst, "flange_b.v", -0.1));
    }
    accepted
}
