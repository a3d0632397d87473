//! Timing of the FMU through its C ABI, called the way an importer calls it: the built shared
//! library is loaded with libloading and every call goes through a C function pointer. In the same
//! run, two baselines:
//!
//! - `laws/evaluate`: the bare force law (`GapLaw::evaluate`) called from Rust in a loop, the
//!   floor that one piece's three Gauss points cannot go below; `kinematic/*` times
//!   `integrate_step` against it;
//! - `c_baseline/*`: the same step written as a plain C FMU would (`benches/c/baseline_step.c`,
//!   compiled here with `cc -O2 -shared -fPIC` and loaded the same way), doing the same work.
//!
//! - `dynamic/*`: the dynamic mode (`m_eff` = 1 kg set through `fmi2SetReal`), whole
//!   `fmi2DoStep`s through the C ABI holding a whole contact (n = 1 and 1.5, H = 1.05 to 100
//!   contact durations) or a step inside one; each timed call restores an FMU state first, and
//!   `dynamic/restore_*` times the restore alone to be subtracted.
//!
//! - `fmi3_over_fmi2` (paired only, `fmi_abi/fmi3.rs`): `fmi3DoStep` against `fmi2DoStep` on the
//!   same kinematic step, out of contact and in contact (at most 1.05).
//!
//! Which library is timed: the packaged FMU named by `$ELASTOGAP_FMU` (unpacked as an importer
//! does), else the cdylib that `cargo bench` has just built next to this benchmark, so the numbers
//! never belong to a stale package; for FMI 3.0, `$ELASTOGAP3_FMU`, else that cdylib when built
//! with `--features fmi3` (it then exports both layers). `examples/bench_ratios.rs` turns the
//! estimates into the ratios of the performance targets:
//!
//! `cargo bench --features fmi3 --bench fmi_abi && cargo run --release --example bench_ratios`
//!
//! Every scenario is checked once outside the timing (status, contact, substep count, agreement of
//! the C baseline with the Rust physics), so a timing never belongs to a failed or different call.

#[path = "../tests/support/mod.rs"]
mod support;

use std::cell::Cell;
use std::ffi::{c_int, c_void, CString};
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use elastogap::coupling::{Correction, Coupling, Pace, SpeedFuse};
use elastogap::laws::{AffineRegion, ContactLaw, Forces, GapLaw, Partials};
use elastogap::step::dynamic::Dynamics;
use elastogap::step::{integrate_dynamics, integrate_step, DynamicStep, Motion, SubstepLimits};
use elastogap::variables::{by_var, Var};
use fmi_sys::fmi2::{self, Fmi2Binding};
use support::Fmu;

// ---------------------------------------------------------------------------------------------
// The scenario: the single-mass impact of the accuracy tests, held at one instant of contact.
// ---------------------------------------------------------------------------------------------

const LAW: GapLaw = GapLaw {
    c: 1e4,
    d: 20.0,
    s_rel0: 0.0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

/// Communication step; the substep counts come from `maxSubstepSize` alone.
const STEP: f64 = 1e-3;
const SUBSTEP_COUNTS: [u32; 3] = [1, 10, 100];
const MAX_SUBSTEP_COUNT: i32 = 1000;
/// Relative accuracy of the adaptive pieces (laws with n != 1), as the FMU uses by default.
const TOLERANCE: f64 = 1e-6;
/// Relative agreement of two integrals that are exact for n = 1 up to rounding.
const EXACT_AGREEMENT: f64 = 1e-9;
/// Relative agreement of the C baseline's fixed substeps with the Rust adaptive pieces for n != 1.
const C_FIXED_SUBSTEP_AGREEMENT: f64 = 1e-5;
/// The FMU's default `maxSubstepSize`: the C baseline's substep in the step-size comparisons.
const DEFAULT_SUBSTEPS_PER_STEP: u32 = 10;
/// Communication steps of the step-size comparisons, with their labels in benchmark ids.
const STEP_SIZES: [(f64, &str); 4] = [
    (1e-4, "0.1ms"),
    (1e-3, "1ms"),
    (1e-2, "10ms"),
    (3e-2, "30ms"),
];
/// With n = 1 the law is piecewise affine: the FMU integrates a step in contact whose damper stays
/// linear and whose v_rel keeps its sign (`IN_CONTACT`) in one closed-form piece, whatever
/// `maxSubstepSize`.
const PIECES_IN_CONTACT: u32 = 1;
/// The law evaluations a kinematic `fmi2DoStep` in contact cannot do without (n = 1, one smooth
/// stretch): 3 Gauss points for `f_mean` over the step (`f_next` is made when a master reads it,
/// which this one does not).
const KINEMATIC_GAUSS_POINTS_IN_CONTACT: f64 = 3.0;

/// Flange inputs (s_a, v_a, s_b, v_b): 1 mm into the gap and closing at 0.1 m/s, so the damper
/// stays linear (|d*v_rel| = 2 N < |f_c| = 10 N) over the whole step; or 10 mm apart and opening.
const IN_CONTACT: [f64; 4] = [0.0, 0.1, -1e-3, 0.0];
const OUT_OF_CONTACT: [f64; 4] = [0.0, -0.1, 1e-2, 0.0];
/// Accelerations of flange_a and flange_b supplied as order-1 derivatives of the velocities.
const INPUT_ACCELERATIONS: [f64; 2] = [-2.0, 2.0];

fn max_substep_size(substeps: u32) -> f64 {
    STEP / f64::from(substeps)
}

fn relative_motion(inputs: [f64; 4], accelerations: Option<[f64; 2]>) -> Motion {
    Motion {
        s: inputs[2] - inputs[0],
        v: inputs[3] - inputs[1],
        a: accelerations.map_or(0.0, |[a_a, a_b]| a_b - a_a),
    }
}

fn limits(substeps: u32) -> SubstepLimits {
    SubstepLimits {
        max_size: max_substep_size(substeps),
        max_count: MAX_SUBSTEP_COUNT as u32,
        tolerance: TOLERANCE,
    }
}

// ---------------------------------------------------------------------------------------------
// The library under test
// ---------------------------------------------------------------------------------------------

const OK: fmi2::fmi2Status = fmi2::fmi2Status_fmi2OK;

enum Loaded {
    Packaged(Arc<Fmu>),
    Built(Box<Fmi2Binding>),
}

struct Library {
    loaded: Loaded,
    guid: CString,
    resource_uri: CString,
    origin: String,
}

impl Library {
    fn binding(&self) -> &Fmi2Binding {
        match &self.loaded {
            Loaded::Packaged(fmu) => &fmu.binding,
            Loaded::Built(binding) => binding,
        }
    }

    fn load() -> Library {
        match std::env::var_os(support::fmu::FMU_ENV) {
            Some(path) if !path.is_empty() => {
                let path = PathBuf::from(path);
                let fmu = Fmu::open(&path)
                    .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
                Library {
                    guid: CString::new(fmu.model_description.guid.clone()).unwrap(),
                    resource_uri: CString::new(fmu.resource_uri()).unwrap(),
                    origin: format!("packaged FMU {}", path.display()),
                    loaded: Loaded::Packaged(Arc::new(fmu)),
                }
            }
            _ => {
                let path = built_library();
                // SAFETY: loading runs the library's initialisers; it is the library under test.
                let binding = unsafe { Fmi2Binding::new(&path) }
                    .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
                let resources = path.parent().unwrap_or(Path::new("."));
                Library {
                    guid: CString::new(elastogap::GUID).unwrap(),
                    resource_uri: CString::new(support::fmu::file_uri(resources, true)).unwrap(),
                    origin: format!("cdylib {}", path.display()),
                    loaded: Loaded::Built(Box::new(binding)),
                }
            }
        }
    }
}

fn cdylib_name() -> &'static str {
    if cfg!(windows) {
        "elastogap.dll"
    } else if cfg!(target_os = "macos") {
        "libelastogap.dylib"
    } else {
        "libelastogap.so"
    }
}

/// The cdylib built by this `cargo bench` (it sits in `deps/` beside the benchmark executable),
/// else one built now with the same profile.
fn built_library() -> PathBuf {
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    let deps = exe.parent().expect("the benchmark sits in a directory");
    for candidate in [
        deps.join(cdylib_name()),
        deps.parent().unwrap_or(deps).join(cdylib_name()),
    ] {
        if candidate.is_file() {
            return candidate;
        }
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "--release", "--lib", "--manifest-path"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release --lib failed");
    let built = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target/release")
        .join(cdylib_name());
    assert!(built.is_file(), "{} was not built", built.display());
    built
}

/// An entry point as a plain function pointer, resolved before the timing like an importer does
/// after loading.
macro_rules! entry {
    ($library:expr, $name:ident) => {
        *$library
            .binding()
            .$name
            .as_ref()
            .unwrap_or_else(|e| panic!("{} is not exported: {e}", stringify!($name)))
    };
}

#[path = "fmi_abi/fmi3.rs"]
mod fmi3_pairs;

fn vr(var: Var) -> fmi2::fmi2ValueReference {
    by_var(var).value_reference
}

/// One instance of the library under test, freed on drop.
struct Component<'a> {
    library: &'a Library,
    raw: fmi2::fmi2Component,
    // Boxed so the address stays valid for as long as the instance may use it.
    _callbacks: Box<fmi2::fmi2CallbackFunctions>,
}

fn callbacks() -> Box<fmi2::fmi2CallbackFunctions> {
    Box::new(fmi2::fmi2CallbackFunctions {
        logger: support::logger::logger_callback(),
        allocateMemory: Some(support::logger::memory::allocate),
        freeMemory: Some(support::logger::memory::release),
        stepFinished: None,
        componentEnvironment: ptr::null_mut(),
    })
}

impl<'a> Component<'a> {
    /// Instantiated, parameterised for `substeps` substeps per step in contact, initialised, with
    /// `inputs` set.
    fn ready(library: &'a Library, name: &str, substeps: u32, inputs: [f64; 4]) -> Component<'a> {
        Component::with(library, name, &LAW, max_substep_size(substeps), 0.0, inputs)
    }

    /// Instantiated with the law `law`, `maxSubstepSize`, `m_eff` (0: kinematic mode), initialised,
    /// with `inputs` set.
    fn with(
        library: &'a Library,
        name: &str,
        law: &GapLaw,
        max_substep: f64,
        m_eff: f64,
        inputs: [f64; 4],
    ) -> Component<'a> {
        let callbacks = callbacks();
        let name = CString::new(name).unwrap();
        let instantiate = entry!(library, fmi2Instantiate);
        // SAFETY: valid strings and callbacks that outlive the instance.
        let raw = unsafe {
            instantiate(
                name.as_ptr(),
                fmi2::fmi2Type_fmi2CoSimulation,
                library.guid.as_ptr(),
                library.resource_uri.as_ptr(),
                &*callbacks,
                0,
                0,
            )
        };
        assert!(!raw.is_null(), "fmi2Instantiate failed");
        let component = Component {
            library,
            raw,
            _callbacks: callbacks,
        };
        let parameters = [
            (Var::C, law.c),
            (Var::D, law.d),
            (Var::SRel0, law.s_rel0),
            (Var::N, law.n),
            (Var::SRef, law.s_ref),
            (Var::FRef, law.f_ref),
            (Var::MaxSubstepSize, max_substep),
            (Var::MEff, m_eff),
        ];
        let references: Vec<_> = parameters.iter().map(|(var, _)| vr(*var)).collect();
        let values: Vec<_> = parameters.iter().map(|(_, value)| *value).collect();
        let (setup, enter, exit, set_real, set_integer) = (
            entry!(library, fmi2SetupExperiment),
            entry!(library, fmi2EnterInitializationMode),
            entry!(library, fmi2ExitInitializationMode),
            entry!(library, fmi2SetReal),
            entry!(library, fmi2SetInteger),
        );
        // SAFETY: a live instance and arrays of the announced lengths.
        unsafe {
            assert_eq!(setup(raw, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(
                set_real(raw, references.as_ptr(), references.len(), values.as_ptr()),
                OK
            );
            let count = [MAX_SUBSTEP_COUNT];
            assert_eq!(
                set_integer(raw, &vr(Var::MaxSubstepCount), 1, count.as_ptr()),
                OK
            );
            // Without a mass the rows feed the same inputs at every step, a motion no body makes:
            // a prescribed motion, which the user declares (`heldForce` = None). Left at Auto, the
            // FMU reads it as a body's answers and bounds the forces of the model it fits to them.
            if m_eff == 0.0 {
                let prescribed = [4];
                assert_eq!(
                    set_integer(raw, &vr(Var::HeldForce), 1, prescribed.as_ptr()),
                    OK
                );
            }
            assert_eq!(enter(raw), OK);
            assert_eq!(exit(raw), OK);
        }
        component.set_inputs(inputs);
        component
    }

    fn set_inputs(&self, inputs: [f64; 4]) {
        let set_real = entry!(self.library, fmi2SetReal);
        // SAFETY: a live instance and arrays of the announced lengths.
        let status = unsafe { set_real(self.raw, INPUTS.as_ptr(), 4, inputs.as_ptr()) };
        assert_eq!(status, OK);
    }

    fn real(&self, var: Var) -> f64 {
        let get_real = entry!(self.library, fmi2GetReal);
        let mut value = f64::NAN;
        // SAFETY: a live instance and arrays of length 1.
        assert_eq!(unsafe { get_real(self.raw, &vr(var), 1, &mut value) }, OK);
        value
    }

    fn contact(&self) -> bool {
        let get_boolean = entry!(self.library, fmi2GetBoolean);
        let mut value = 0;
        // SAFETY: a live instance and arrays of length 1.
        assert_eq!(
            unsafe { get_boolean(self.raw, &vr(Var::Contact), 1, &mut value) },
            OK
        );
        value != 0
    }
}

impl Drop for Component<'_> {
    fn drop(&mut self) {
        let free = entry!(self.library, fmi2FreeInstance);
        // SAFETY: a live instance, freed once.
        unsafe { free(self.raw) };
    }
}

const INPUTS: [fmi2::fmi2ValueReference; 4] = [11, 12, 13, 14];
const VELOCITY_INPUTS: [fmi2::fmi2ValueReference; 2] = [12, 14];
const DERIVATIVE_ORDERS: [fmi2::fmi2Integer; 2] = [1, 1];
const REAL_OUTPUTS: [fmi2::fmi2ValueReference; 7] = [20, 21, 22, 24, 25, 26, 27];
const BOOLEAN_OUTPUTS: [fmi2::fmi2ValueReference; 1] = [23];

/// The signature of `fmi2SetRealInputDerivatives`.
type SetInputDerivatives = unsafe extern "C" fn(
    fmi2::fmi2Component,
    *const fmi2::fmi2ValueReference,
    usize,
    *const fmi2::fmi2Integer,
    *const fmi2::fmi2Real,
) -> fmi2::fmi2Status;

/// Supplies `INPUT_ACCELERATIONS` as the first derivatives of the two velocity inputs.
///
/// # Safety
/// `raw` is a live instance of the library `set` comes from.
#[inline(always)]
unsafe fn supply_accelerations(
    set: SetInputDerivatives,
    raw: fmi2::fmi2Component,
) -> fmi2::fmi2Status {
    unsafe {
        set(
            raw,
            VELOCITY_INPUTS.as_ptr(),
            2,
            DERIVATIVE_ORDERS.as_ptr(),
            INPUT_ACCELERATIONS.as_ptr(),
        )
    }
}

/// The literal reference arrays above are what an importer would take from the model description;
/// they must name the variables the benchmark means.
fn check_value_references() {
    let inputs = [Var::FlangeAS, Var::FlangeAV, Var::FlangeBS, Var::FlangeBV].map(vr);
    assert_eq!(INPUTS, inputs);
    assert_eq!(VELOCITY_INPUTS, [vr(Var::FlangeAV), vr(Var::FlangeBV)]);
    let outputs = [
        Var::F,
        Var::SRel,
        Var::VRel,
        Var::LossPower,
        Var::HeatPortQFlow,
        Var::FMean,
        Var::ELoss,
    ]
    .map(vr);
    assert_eq!(REAL_OUTPUTS, outputs);
    assert_eq!(BOOLEAN_OUTPUTS, [vr(Var::Contact)]);
}

// ---------------------------------------------------------------------------------------------
// The C baseline
// ---------------------------------------------------------------------------------------------

#[repr(C)]
struct CLaw {
    c: f64,
    d: f64,
    s_rel0: f64,
    n: f64,
    s_ref: f64,
    f_ref: f64,
}

type CIntegrate = unsafe extern "C" fn(
    law: *const CLaw,
    s: f64,
    v: f64,
    a: f64,
    h: f64,
    max_substep_size: f64,
    max_substep_count: c_int,
    impulse: *mut f64,
    dissipated: *mut f64,
) -> c_int;
type CInstantiate = unsafe extern "C" fn(
    c: f64,
    d: f64,
    s_rel0: f64,
    n: f64,
    s_ref: f64,
    f_ref: f64,
    max_substep_size: f64,
    max_substep_count: c_int,
    start_time: f64,
) -> *mut c_void;
type CFree = unsafe extern "C" fn(instance: *mut c_void);
type CSetInputs = unsafe extern "C" fn(instance: *mut c_void, f64, f64, f64, f64);
type CSetAccelerations = unsafe extern "C" fn(instance: *mut c_void, a_a: f64, a_b: f64);
type CDoStep = unsafe extern "C" fn(instance: *mut c_void, time: f64, h: f64) -> c_int;
type CFMean = unsafe extern "C" fn(instance: *const c_void) -> f64;

struct CBaseline {
    integrate: CIntegrate,
    instantiate: CInstantiate,
    free: CFree,
    set_inputs: CSetInputs,
    set_accelerations: CSetAccelerations,
    do_step: CDoStep,
    f_mean: CFMean,
    _library: libloading::Library,
    _dir: tempfile::TempDir,
}

impl CBaseline {
    /// Compiles `benches/c/baseline_step.c` with the system C compiler (`$CC`, else `cc`) as a
    /// plain C FMU binary would be, and loads it.
    fn build() -> CBaseline {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c/baseline_step.c");
        let dir = tempfile::tempdir().expect("a temporary directory");
        let library = dir.path().join(if cfg!(windows) {
            "baseline_step.dll"
        } else {
            "libbaseline_step.so"
        });
        let compiler = std::env::var_os("CC").unwrap_or_else(|| "cc".into());
        let output = Command::new(&compiler)
            .args(["-O2", "-shared", "-fPIC", "-o"])
            .arg(&library)
            .arg(&source)
            .arg("-lm")
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler {compiler:?}: {e}"));
        assert!(
            output.status.success(),
            "{compiler:?} failed on {}:\n{}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        // SAFETY: our own C file, with no initialisers.
        let loaded = unsafe { libloading::Library::new(&library) }.expect("load the C baseline");
        macro_rules! symbol {
            ($name:literal) => {
                // SAFETY: the C file defines the function with this signature.
                *unsafe { loaded.get($name.as_bytes()) }
                    .unwrap_or_else(|e| panic!("the C baseline does not export {}: {e}", $name))
            };
        }
        CBaseline {
            integrate: symbol!("baseline_integrate"),
            instantiate: symbol!("baseline_instantiate"),
            free: symbol!("baseline_free"),
            set_inputs: symbol!("baseline_set_inputs"),
            set_accelerations: symbol!("baseline_set_input_accelerations"),
            do_step: symbol!("baseline_do_step"),
            f_mean: symbol!("baseline_f_mean"),
            _library: loaded,
            _dir: dir,
        }
    }

    fn integrate(&self, law: &GapLaw, motion: Motion, h: f64, limits: SubstepLimits) -> [f64; 3] {
        let law = CLaw {
            c: law.c,
            d: law.d,
            s_rel0: law.s_rel0,
            n: law.n,
            s_ref: law.s_ref,
            f_ref: law.f_ref,
        };
        let (mut impulse, mut dissipated) = (0.0, 0.0);
        // SAFETY: valid pointers for the call.
        let substeps = unsafe {
            (self.integrate)(
                &law,
                motion.s,
                motion.v,
                motion.a,
                h,
                limits.max_size,
                limits.max_count as c_int,
                &mut impulse,
                &mut dissipated,
            )
        };
        [impulse, dissipated, f64::from(substeps)]
    }

    /// A C instance parameterised and fed like [`Component::ready`].
    fn instance(&self, substeps: u32, inputs: [f64; 4]) -> CInstance<'_> {
        // SAFETY: plain values; the result is checked.
        let raw = unsafe {
            (self.instantiate)(
                LAW.c,
                LAW.d,
                LAW.s_rel0,
                LAW.n,
                LAW.s_ref,
                LAW.f_ref,
                max_substep_size(substeps),
                MAX_SUBSTEP_COUNT,
                0.0,
            )
        };
        assert!(!raw.is_null());
        // SAFETY: a live C instance.
        unsafe { (self.set_inputs)(raw, inputs[0], inputs[1], inputs[2], inputs[3]) };
        CInstance {
            baseline: self,
            raw,
        }
    }

    /// The C physics must be the Rust physics, not a cheaper approximation: for n = 1 the same
    /// integrals to rounding, for n = 1.5 the same to the accuracy of the
    /// C baseline's fixed substeps, on motions that enter and leave contact and cross the damper
    /// bound.
    fn check_against_rust(&self) {
        let cases = [
            (LAW, relative_motion(IN_CONTACT, None), STEP, 10),
            (
                LAW,
                relative_motion(IN_CONTACT, Some(INPUT_ACCELERATIONS)),
                STEP,
                100,
            ),
            (
                LAW,
                Motion {
                    s: 2e-3,
                    v: -1.0,
                    a: 50.0,
                },
                0.04,
                37,
            ),
            (
                GapLaw { d: 500.0, ..LAW },
                Motion {
                    s: 1e-3,
                    v: -1.0,
                    a: 40.0,
                },
                0.05,
                10,
            ),
            (
                GapLaw {
                    d: 30.0,
                    s_ref: 0.01,
                    ..LAW
                },
                Motion {
                    s: 2e-4,
                    v: -0.5,
                    a: 600.0,
                },
                9e-4,
                1,
            ),
            (
                GapLaw {
                    n: 1.5,
                    f_ref: 300.0,
                    s_rel0: 0.2,
                    ..LAW
                },
                Motion {
                    s: 0.21,
                    v: -0.8,
                    a: 9.0,
                },
                0.2,
                50,
            ),
        ];
        for (law, motion, h, substeps) in cases {
            let limits = SubstepLimits {
                max_size: h / f64::from(substeps),
                max_count: 1000,
                tolerance: TOLERANCE,
            };
            let rust = integrate_step(&law, motion, h, limits);
            let [impulse, dissipated, c_substeps] = self.integrate(&law, motion, h, limits);
            let difference =
                |a: f64, b: f64| (a - b).abs() / a.abs().max(b.abs()).max(f64::MIN_POSITIVE);
            let (impulse_difference, dissipated_difference) = (
                difference(rust.impulse, impulse),
                difference(rust.dissipated, dissipated),
            );
            // The C baseline's fixed substeps and the Rust pieces integrate n = 1 exactly, so
            // they differ by rounding; any other n, each by its own discretization error.
            let (bound, what) = if law.n == 1.0 {
                (EXACT_AGREEMENT, "rounding")
            } else {
                (C_FIXED_SUBSTEP_AGREEMENT, "discretization")
            };
            eprintln!(
                "C baseline ({c_substeps} substeps) vs Rust ({} pieces), n = {}, h = {h}: \
                 impulse {impulse_difference:.1e}, dissipated {dissipated_difference:.1e} \
                 (relative; {what})",
                rust.substeps, law.n
            );
            assert!(
                impulse_difference <= bound && dissipated_difference <= bound,
                "C baseline differs from the Rust physics for {law:?} {motion:?} h = {h}: \
                 {impulse} vs {}, {dissipated} vs {}",
                rust.impulse,
                rust.dissipated
            );
        }
    }
}

struct CInstance<'a> {
    baseline: &'a CBaseline,
    raw: *mut c_void,
}

impl Drop for CInstance<'_> {
    fn drop(&mut self) {
        // SAFETY: a live C instance, freed once.
        unsafe { (self.baseline.free)(self.raw) };
    }
}

// ---------------------------------------------------------------------------------------------
// Benchmarks
// ---------------------------------------------------------------------------------------------

/// Points of the contact motion a step visits, all in contact and on the linear damper branch, so
/// the bare evaluations do the same work as those inside a step.
const EVALUATION_POINTS: usize = 256;

fn evaluation_points() -> Vec<(f64, f64)> {
    let motion = relative_motion(IN_CONTACT, Some(INPUT_ACCELERATIONS));
    let points: Vec<(f64, f64)> = (0..EVALUATION_POINTS)
        .map(|k| {
            let p = motion.at(STEP * k as f64 / EVALUATION_POINTS as f64);
            (p.s, p.v)
        })
        .collect();
    assert!(points.iter().all(|&(s, v)| {
        let forces = LAW.evaluate(s, v);
        forces.contact && forces.f_d == LAW.d * v
    }));
    points
}

/// The floor: the bare law at every point, summed so that no evaluation can be skipped.
fn evaluate_all(points: &[(f64, f64)]) -> f64 {
    evaluate_all_with(&LAW, points)
}

fn evaluate_all_with(law: &GapLaw, points: &[(f64, f64)]) -> f64 {
    // The law is read through a reference, as the step reads its instance's parameters.
    let law = black_box(law);
    let mut sum = 0.0;
    for &(s, v) in black_box(points) {
        let forces = law.evaluate(s, v);
        sum += forces.f + forces.loss_power;
    }
    sum
}

fn bench_laws(c: &mut Criterion) {
    let mut group = c.benchmark_group("laws");
    let points = evaluation_points();
    group.throughput(Throughput::Elements(EVALUATION_POINTS as u64));
    group.bench_function("evaluate", |b| b.iter(|| evaluate_all(&points)));
    // The other exponents go through powf: the floor of the n = 1.5 rows of `kinematic`.
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    group.bench_function("evaluate_n1.5", |b| {
        b.iter(|| evaluate_all_with(&law_1_5, &points))
    });
    group.finish();
}

/// The law with a count of its evaluations, for the evaluations per step that the report puts
/// beside the times.
struct Counting {
    law: GapLaw,
    evaluations: Cell<u32>,
}

impl ContactLaw for Counting {
    fn s_rel0(&self) -> f64 {
        self.law.s_rel0
    }
    fn evaluate(&self, s_rel: f64, v_rel: f64) -> Forces {
        self.evaluations.set(self.evaluations.get() + 1);
        self.law.evaluate(s_rel, v_rel)
    }
    fn partials(&self, s_rel: f64, v_rel: f64) -> Partials {
        self.law.partials(s_rel, v_rel)
    }
    fn kink_indicator(&self, s_rel: f64, v_rel: f64) -> f64 {
        ContactLaw::kink_indicator(&self.law, s_rel, v_rel)
    }
    fn kink_indicator_with(&self, forces: &Forces, s_rel: f64, v_rel: f64) -> f64 {
        self.law.kink_indicator_with(forces, s_rel, v_rel)
    }
    fn kink_indicator_rate(&self, s_rel: f64, v_rel: f64, a_rel: f64) -> f64 {
        self.law.kink_indicator_rate(s_rel, v_rel, a_rel)
    }
    fn affine_region(&self, s_rel: f64, v_rel: f64) -> Option<AffineRegion> {
        self.law.affine_region(s_rel, v_rel)
    }
    fn is_piecewise_affine(&self) -> bool {
        self.law.is_piecewise_affine()
    }
    fn length_scale(&self) -> f64 {
        self.law.length_scale()
    }
}

/// Touches down at `0.1 h` and lifts off at `0.9 h`, at 1 m/s both times, `0.2 h` deep at most:
/// one whole contact inside the step, with the damper bound acting at both ends.
fn whole_contact(h: f64) -> Motion {
    let (enter, leave) = (0.1 * h, 0.9 * h);
    let a = 2.5 / h;
    Motion {
        s: 0.5 * a * enter * leave,
        v: -0.5 * a * (enter + leave),
        a,
    }
}

fn bench_kinematic(c: &mut Criterion) {
    let mut group = c.benchmark_group("kinematic");
    let mut counts = serde_json::Map::new();
    // The in-contact step of `do_step`: one piece for any maxSubstepSize.
    for substeps in SUBSTEP_COUNTS {
        let motion = relative_motion(IN_CONTACT, None);
        assert_eq!(
            integrate_step(&LAW, motion, STEP, limits(substeps)).substeps,
            PIECES_IN_CONTACT
        );
        group.bench_function(format!("integrate_step_{substeps}"), |b| {
            b.iter(|| {
                integrate_step(
                    black_box(&LAW),
                    black_box(motion),
                    black_box(STEP),
                    black_box(limits(substeps)),
                )
            })
        });
    }
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    for (h, label) in STEP_SIZES {
        let motion = whole_contact(h);
        let default_limits = limits(DEFAULT_SUBSTEPS_PER_STEP);
        let unbounded = SubstepLimits {
            max_size: h,
            ..default_limits
        };
        for (id, law, limits) in [
            (format!("n1_whole_contact_{label}"), LAW, default_limits),
            (format!("n1.5_whole_contact_{label}"), law_1_5, unbounded),
            (
                format!("n1.5_max_1e-4_whole_contact_{label}"),
                law_1_5,
                default_limits,
            ),
        ] {
            let counting = Counting {
                law,
                evaluations: Cell::new(0),
            };
            let step = integrate_step(&counting, motion, h, limits);
            assert_eq!(step.transition_count, 2, "{id}");
            // Outside the timing: the tolerance is met, against the same integration far tighter.
            let reference = integrate_step(
                &law,
                motion,
                h,
                SubstepLimits {
                    max_size: h,
                    max_count: 1_000_000,
                    tolerance: 1e-12,
                },
            );
            let error = |a: f64, b: f64| (a - b).abs() / b.abs();
            let (impulse_error, dissipated_error) = (
                error(step.impulse, reference.impulse),
                error(step.dissipated, reference.dissipated),
            );
            let bound = if law.n == 1.0 { 1e-12 } else { TOLERANCE };
            assert!(
                impulse_error <= bound && dissipated_error <= bound,
                "{id}: {step:?} vs {reference:?}"
            );
            counts.insert(
                id.clone(),
                serde_json::json!({
                    "pieces": step.substeps,
                    "evaluations": counting.evaluations.get(),
                    "impulse_error": impulse_error,
                    "dissipated_error": dissipated_error,
                }),
            );
            group.bench_function(&id, |b| {
                b.iter(|| {
                    integrate_step(
                        black_box(&law),
                        black_box(motion),
                        black_box(h),
                        black_box(limits),
                    )
                })
            });
        }
    }
    group.finish();
    let path = criterion_dir().join("kinematic_counts.json");
    std::fs::create_dir_all(path.parent().unwrap()).expect("criterion's folder");
    std::fs::write(&path, serde_json::to_string_pretty(&counts).unwrap()).expect("write counts");
}

fn bench_do_step(c: &mut Criterion, library: &Library) {
    let do_step = entry!(library, fmi2DoStep);
    let set_derivatives = entry!(library, fmi2SetRealInputDerivatives);
    let mut group = c.benchmark_group("do_step");
    for (label, inputs) in [("contact", IN_CONTACT), ("free", OUT_OF_CONTACT)] {
        for substeps in SUBSTEP_COUNTS {
            for with_derivatives in [false, true] {
                let id = format!(
                    "{label}_{substeps}{}",
                    if with_derivatives {
                        "_with_derivatives"
                    } else {
                        ""
                    }
                );
                let accelerations = with_derivatives.then_some(INPUT_ACCELERATIONS);
                let expected = if label == "contact" {
                    PIECES_IN_CONTACT
                } else {
                    0
                };
                let integrated = integrate_step(
                    &LAW,
                    relative_motion(inputs, accelerations),
                    STEP,
                    limits(substeps),
                );
                assert_eq!(integrated.substeps, expected, "{id}");
                assert_eq!(integrated.transition_count, 0, "{id}");

                let instance = Component::ready(library, &id, substeps, inputs);
                let raw = instance.raw;
                let mut time = 0.0;
                group.bench_function(&id, |b| {
                    b.iter(|| {
                        // SAFETY: a live instance and arrays of the announced lengths.
                        unsafe {
                            if with_derivatives {
                                supply_accelerations(set_derivatives, raw);
                            }
                            let status = do_step(raw, time, STEP, 1);
                            time += STEP;
                            status
                        }
                    })
                });
                // A failed call leaves the instance in the error state, where every later step
                // fails too: one good step now shows that none failed while timed.
                // SAFETY: a live instance and arrays of the announced lengths.
                let status = unsafe {
                    if with_derivatives {
                        supply_accelerations(set_derivatives, raw);
                    }
                    do_step(raw, time, STEP, 1)
                };
                assert_eq!(status, OK, "{id}");
                assert_eq!(instance.contact(), label == "contact", "{id}");
                assert!(
                    (instance.real(Var::FMean) - integrated.impulse / STEP).abs()
                        <= 1e-12 * integrated.impulse.abs() / STEP,
                    "{id}"
                );
            }
        }
    }
    group.finish();
}

fn bench_c_baseline(c: &mut Criterion, library: &Library) {
    let baseline = CBaseline::build();
    baseline.check_against_rust();
    let (do_step, set_accelerations) = (baseline.do_step, baseline.set_accelerations);
    let mut group = c.benchmark_group("c_baseline");
    for substeps in SUBSTEP_COUNTS {
        for with_derivatives in [false, true] {
            let id = format!(
                "contact_{substeps}{}",
                if with_derivatives {
                    "_with_derivatives"
                } else {
                    ""
                }
            );
            // The FMU's mean force after the same first step is the reference for the C one.
            let fmu = Component::ready(library, &id, substeps, IN_CONTACT);
            let instance = baseline.instance(substeps, IN_CONTACT);
            let raw = instance.raw;
            // SAFETY: live instances and arrays of the announced lengths.
            unsafe {
                if with_derivatives {
                    let set_derivatives = entry!(library, fmi2SetRealInputDerivatives);
                    let status = supply_accelerations(set_derivatives, fmu.raw);
                    assert_eq!(status, OK);
                    set_accelerations(raw, INPUT_ACCELERATIONS[0], INPUT_ACCELERATIONS[1]);
                }
                assert_eq!(entry!(library, fmi2DoStep)(fmu.raw, 0.0, STEP, 1), OK);
                assert_eq!(do_step(raw, 0.0, STEP), 0);
                // One closed-form piece against the C baseline's equal substeps: both exact for n = 1.
                let (rust, c) = (fmu.real(Var::FMean), (baseline.f_mean)(raw));
                assert!(
                    (rust - c).abs() <= EXACT_AGREEMENT * rust.abs(),
                    "{id}: {rust} vs {c}"
                );
            }
            let mut time = STEP;
            group.bench_function(&id, |b| {
                b.iter(|| {
                    // SAFETY: a live C instance.
                    unsafe {
                        if with_derivatives {
                            set_accelerations(raw, INPUT_ACCELERATIONS[0], INPUT_ACCELERATIONS[1]);
                        }
                        let status = do_step(raw, time, STEP);
                        time += STEP;
                        status
                    }
                })
            });
            // SAFETY: a live C instance.
            assert_eq!(unsafe { do_step(raw, time, STEP) }, 0, "{id}");
        }
    }
    group.finish();
}

fn bench_io(c: &mut Criterion, library: &Library) {
    let (set_real, get_real, get_boolean, do_step, set_derivatives) = (
        entry!(library, fmi2SetReal),
        entry!(library, fmi2GetReal),
        entry!(library, fmi2GetBoolean),
        entry!(library, fmi2DoStep),
        entry!(library, fmi2SetRealInputDerivatives),
    );
    let mut group = c.benchmark_group("io");
    let instance = Component::ready(library, "io", 10, IN_CONTACT);
    let raw = instance.raw;
    // SAFETY: a live instance.
    assert_eq!(unsafe { do_step(raw, 0.0, STEP, 1) }, OK);
    let mut time = STEP;
    let mut reals = [0.0; REAL_OUTPUTS.len()];
    let mut booleans = [0; BOOLEAN_OUTPUTS.len()];
    group.bench_function("set_all_inputs", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe { set_real(raw, INPUTS.as_ptr(), 4, black_box(IN_CONTACT).as_ptr()) }
        })
    });
    group.bench_function("get_all_outputs", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe {
                let status = get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr());
                (
                    status,
                    get_boolean(raw, BOOLEAN_OUTPUTS.as_ptr(), 1, booleans.as_mut_ptr()),
                )
            }
        })
    });
    // Read once more here: with a filter (`cargo bench --bench fmi_abi -- <filter>`, which runs
    // the paired ratios alone) the benchmark above has not run.
    // SAFETY: a live instance and arrays of the announced lengths.
    assert_eq!(
        unsafe { get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr()) },
        OK
    );
    assert!(instance.contact());
    assert_eq!(reals[0], instance.real(Var::F));
    // What a master does per communication step: inputs and their derivatives in, step, outputs
    // out.
    group.bench_function("communication_step_10", |b| {
        b.iter(|| {
            // SAFETY: a live instance and arrays of the announced lengths.
            unsafe {
                set_real(raw, INPUTS.as_ptr(), 4, black_box(IN_CONTACT).as_ptr());
                supply_accelerations(set_derivatives, raw);
                let status = do_step(raw, time, STEP, 1);
                time += STEP;
                get_real(raw, REAL_OUTPUTS.as_ptr(), 7, reals.as_mut_ptr());
                get_boolean(raw, BOOLEAN_OUTPUTS.as_ptr(), 1, booleans.as_mut_ptr());
                status
            }
        })
    });
    // SAFETY: a live instance.
    assert_eq!(unsafe { do_step(raw, time, STEP, 1) }, OK);
    group.finish();
}

fn bench_lifecycle(c: &mut Criterion, library: &Library) {
    let (instantiate, setup, enter, exit, free) = (
        entry!(library, fmi2Instantiate),
        entry!(library, fmi2SetupExperiment),
        entry!(library, fmi2EnterInitializationMode),
        entry!(library, fmi2ExitInitializationMode),
        entry!(library, fmi2FreeInstance),
    );
    let callbacks = callbacks();
    let name = CString::new("lifecycle").unwrap();
    let run = || {
        // SAFETY: valid strings and callbacks; the instance is freed before they go.
        unsafe {
            let raw = instantiate(
                name.as_ptr(),
                fmi2::fmi2Type_fmi2CoSimulation,
                library.guid.as_ptr(),
                library.resource_uri.as_ptr(),
                &*callbacks,
                0,
                0,
            );
            let statuses = [setup(raw, 0, 0.0, 0.0, 1, 1.0), enter(raw), exit(raw)];
            free(raw);
            (raw.is_null(), statuses)
        }
    };
    assert_eq!(run(), (false, [OK; 3]));
    let mut group = c.benchmark_group("lifecycle");
    group.bench_function("instantiate_initialize_free", |b| b.iter(run));
    group.finish();
}

fn bench_fmu_state(c: &mut Criterion, library: &Library) {
    let (get_state, set_state, free_state, size_of, serialize, deserialize, do_step) = (
        entry!(library, fmi2GetFMUstate),
        entry!(library, fmi2SetFMUstate),
        entry!(library, fmi2FreeFMUstate),
        entry!(library, fmi2SerializedFMUstateSize),
        entry!(library, fmi2SerializeFMUstate),
        entry!(library, fmi2DeSerializeFMUstate),
        entry!(library, fmi2DoStep),
    );
    let instance = Component::ready(library, "state", 10, IN_CONTACT);
    let raw = instance.raw;
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: a live instance; `state` is NULL or one of its states.
    let mut bytes = unsafe {
        assert_eq!(do_step(raw, 0.0, STEP, 1), OK);
        assert_eq!(get_state(raw, &mut state), OK);
        assert_eq!(size_of(raw, state, &mut size), OK);
        let mut bytes = vec![0u8; size];
        assert_eq!(serialize(raw, state, bytes.as_mut_ptr().cast(), size), OK);
        assert_eq!(
            deserialize(raw, bytes.as_ptr().cast(), size, &mut state),
            OK
        );
        assert_eq!(set_state(raw, state), OK);
        bytes
    };
    let mut group = c.benchmark_group("fmu_state");
    // SAFETY (all closures): a live instance, `state` one of its states, buffers of `size` bytes.
    group.bench_function("get_into_existing", |b| {
        b.iter(|| unsafe { get_state(raw, &mut state) })
    });
    group.bench_function("get_new_and_free", |b| {
        b.iter(|| unsafe {
            let mut fresh: fmi2::fmi2FMUstate = ptr::null_mut();
            (get_state(raw, &mut fresh), free_state(raw, &mut fresh))
        })
    });
    group.bench_function("set", |b| b.iter(|| unsafe { set_state(raw, state) }));
    group.bench_function("serialize", |b| {
        b.iter(|| unsafe {
            let mut size = 0usize;
            let status = size_of(raw, state, &mut size);
            (
                status,
                serialize(raw, state, bytes.as_mut_ptr().cast(), size),
            )
        })
    });
    group.bench_function("deserialize_into_existing", |b| {
        b.iter(|| unsafe { deserialize(raw, bytes.as_ptr().cast(), size, &mut state) })
    });
    group.finish();
    // SAFETY: as above; one good step shows that no timed call failed.
    unsafe {
        assert_eq!(do_step(raw, STEP, STEP, 1), OK);
        assert_eq!(free_state(raw, &mut state), OK);
    }
}

// ---------------------------------------------------------------------------------------------
// Paired ratios: each target's two sides timed in alternation
// ---------------------------------------------------------------------------------------------

/// Rounds of the paired measurement; each round times every side once, for about 2 ms each.
const PAIRED_ROUNDS: usize = 101;

/// Mean time per call, ns, of `calls` calls of `body`.
fn time_calls(calls: u32, mut body: impl FnMut()) -> f64 {
    let start = Instant::now();
    for _ in 0..calls {
        body();
    }
    start.elapsed().as_secs_f64() * 1e9 / f64::from(calls)
}

/// The median and the quartiles of `values`.
fn quartiles(mut values: Vec<f64>) -> [f64; 3] {
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    [at(0.25), at(0.5), at(0.75)]
}

/// Criterion times one benchmark after another, so on a shared machine a change of speed between
/// two of them (another process, the CPU clock) enters their ratio. Here the two sides of each
/// target are timed in alternation, many times over, and the ratio is taken within each round:
/// the median of those ratios is what `examples/bench_ratios.rs` reports as the targets.
fn paired_ratios(
    library: &Library,
    dynamic: &mut [DynamicCase],
    fmi3: Result<&mut [fmi3_pairs::Pair], &str>,
) {
    let set_state = entry!(library, fmi2SetFMUstate);
    let law_1_5 = GapLaw { n: 1.5, ..LAW };
    let do_step = entry!(library, fmi2DoStep);
    let instantiate = entry!(library, fmi2Instantiate);
    let setup = entry!(library, fmi2SetupExperiment);
    let enter = entry!(library, fmi2EnterInitializationMode);
    let exit = entry!(library, fmi2ExitInitializationMode);
    let free = entry!(library, fmi2FreeInstance);
    let baseline = CBaseline::build();
    let c_instance = baseline.instance(10, IN_CONTACT);
    let fmu_10 = Component::ready(library, "paired 10", 10, IN_CONTACT);
    let fmu_100 = Component::ready(library, "paired 100", 100, IN_CONTACT);
    let points = evaluation_points();
    let name = CString::new("paired lifecycle").unwrap();
    let callbacks = callbacks();
    let (mut t_fmu_10, mut t_c_10, mut t_fmu_100) = (0.0, 0.0, 0.0);
    let mut steps = step_comparisons(library, &baseline);

    let mut in_contact_over_gauss_points = Vec::with_capacity(PAIRED_ROUNDS);
    let mut step_10_over_c = Vec::with_capacity(PAIRED_ROUNDS);
    let mut lifecycle_over_3000_evaluations = Vec::with_capacity(PAIRED_ROUNDS);
    let mut fmi3 = fmi3;
    for round in 0..PAIRED_ROUNDS {
        let evaluation = time_calls(1_000, || {
            black_box(evaluate_all(&points));
        }) / EVALUATION_POINTS as f64;
        // SAFETY (all calls below): live instances, arrays of the announced lengths.
        let in_contact = time_calls(600, || unsafe {
            assert_eq!(do_step(fmu_100.raw, t_fmu_100, STEP, 1), OK);
            t_fmu_100 += STEP;
        });
        let fmu_step = time_calls(4_000, || unsafe {
            assert_eq!(do_step(fmu_10.raw, t_fmu_10, STEP, 1), OK);
            t_fmu_10 += STEP;
        });
        let c_step = time_calls(4_000, || unsafe {
            assert_eq!((baseline.do_step)(c_instance.raw, t_c_10, STEP), 0);
            t_c_10 += STEP;
        });
        let lifecycle = time_calls(4_000, || unsafe {
            let raw = instantiate(
                name.as_ptr(),
                fmi2::fmi2Type_fmi2CoSimulation,
                library.guid.as_ptr(),
                library.resource_uri.as_ptr(),
                &*callbacks,
                0,
                0,
            );
            assert_eq!(setup(raw, 0, 0.0, 0.0, 0, 0.0), OK);
            assert_eq!(enter(raw), OK);
            assert_eq!(exit(raw), OK);
            free(raw);
        });
        in_contact_over_gauss_points
            .push(in_contact / (KINEMATIC_GAUSS_POINTS_IN_CONTACT * evaluation));
        step_10_over_c.push(fmu_step / c_step);
        lifecycle_over_3000_evaluations.push(lifecycle / (3000.0 * evaluation));
        for comparison in &mut steps {
            comparison.round(do_step, baseline.do_step);
        }
        if let Ok(pairs) = &mut fmi3 {
            for pair in pairs.iter_mut() {
                pair.round(round, do_step);
            }
        }
        let evaluation_1_5 = time_calls(200, || {
            black_box(evaluate_all_with(&law_1_5, &points));
        }) / EVALUATION_POINTS as f64;
        for case in dynamic.iter_mut() {
            let floor = if case.n == 1.0 {
                evaluation
            } else {
                evaluation_1_5
            };
            case.round(set_state, do_step, floor);
        }
    }
    let mut report = serde_json::json!({
        "rounds": PAIRED_ROUNDS,
        "do_step_in_contact_over_3_evaluations": quartiles(in_contact_over_gauss_points),
        "do_step_10_over_c_baseline_10": quartiles(step_10_over_c),
        "lifecycle_over_3000_evaluations": quartiles(lifecycle_over_3000_evaluations),
    });
    let mut comparisons = serde_json::Map::new();
    for comparison in steps {
        comparisons.insert(
            comparison.key.clone(),
            serde_json::json!({
                "h": comparison.h,
                "max_substep_size": max_substep_size(comparison.substeps),
                "c_substeps": comparison.c_substeps,
                "fmu_pieces": PIECES_IN_CONTACT,
                "do_step_over_c_baseline": quartiles(comparison.ratios),
            }),
        );
    }
    report["do_step_over_c_baseline"] = serde_json::Value::Object(comparisons);
    let mut cases = serde_json::Map::new();
    for case in dynamic.iter_mut() {
        cases.insert(case.id.clone(), case.report());
    }
    report["dynamic"] = serde_json::Value::Object(cases);
    report["fmi3_over_fmi2"] = match fmi3 {
        Ok(pairs) => {
            serde_json::Value::Object(pairs.iter_mut().map(|pair| pair.report()).collect())
        }
        Err(why) => serde_json::json!({ "not_measured": why }),
    };
    let path = criterion_dir().join("paired_ratios.json");
    std::fs::create_dir_all(path.parent().unwrap()).expect("criterion's folder");
    std::fs::write(&path, serde_json::to_string_pretty(&report).unwrap()).expect("write ratios");
    eprintln!("paired ratios (quartiles) in {}: {report}", path.display());
}

/// A whole `fmi2DoStep` in contact against the C baseline's, both with the same inputs, step and
/// `maxSubstepSize`: n = 1, so the FMU integrates one Gauss piece where the C baseline integrates
/// its fixed substeps.
struct StepComparison<'a> {
    key: String,
    fmu: Component<'a>,
    c: CInstance<'a>,
    h: f64,
    substeps: u32,
    c_substeps: u32,
    calls: u32,
    time: (f64, f64),
    ratios: Vec<f64>,
}

impl StepComparison<'_> {
    fn round(&mut self, do_step: Fmi2DoStep, c_do_step: CDoStep) {
        let (raw, c_raw, h) = (self.fmu.raw, self.c.raw, self.h);
        let (t_fmu, t_c) = &mut self.time;
        // SAFETY (both): live instances.
        let fmu = time_calls(self.calls, || unsafe {
            assert_eq!(do_step(raw, *t_fmu, h, 1), OK);
            *t_fmu += h;
        });
        let c = time_calls(self.calls, || unsafe {
            assert_eq!(c_do_step(c_raw, *t_c, h), 0);
            *t_c += h;
        });
        self.ratios.push(fmu / c);
    }
}

type Fmi2DoStep = unsafe extern "C" fn(
    fmi2::fmi2Component,
    fmi2::fmi2Real,
    fmi2::fmi2Real,
    fmi2::fmi2Boolean,
) -> fmi2::fmi2Status;

/// Every `maxSubstepSize` of `SUBSTEP_COUNTS` at the step `STEP`, and every step of `STEP_SIZES`
/// at the default `maxSubstepSize`; each side called about 1 ms per round.
fn step_comparisons<'a>(library: &'a Library, baseline: &'a CBaseline) -> Vec<StepComparison<'a>> {
    let do_step = entry!(library, fmi2DoStep);
    let mut configurations: Vec<(String, f64, u32)> = SUBSTEP_COUNTS
        .iter()
        .map(|&n| (format!("h_1ms_c_substeps_{n}"), STEP, n))
        .collect();
    for (h, label) in STEP_SIZES {
        configurations.push((
            format!("h_{label}_max_substep_1e-4"),
            h,
            DEFAULT_SUBSTEPS_PER_STEP,
        ));
    }
    configurations
        .into_iter()
        .map(|(key, h, substeps)| {
            let fmu = Component::ready(library, &key, substeps, IN_CONTACT);
            let c = baseline.instance(substeps, IN_CONTACT);
            let motion = relative_motion(IN_CONTACT, None);
            let limits = limits(substeps);
            let rust = integrate_step(&LAW, motion, h, limits);
            let [_, _, c_substeps] = baseline.integrate(&LAW, motion, h, limits);
            assert_eq!(rust.substeps, PIECES_IN_CONTACT, "{key}");
            assert_eq!(rust.transition_count, 0, "{key}");
            // One step each, checked: same mean force, so both do the same work when timed.
            // SAFETY: live instances.
            unsafe {
                assert_eq!(do_step(fmu.raw, 0.0, h, 1), OK);
                assert_eq!((baseline.do_step)(c.raw, 0.0, h), 0);
            }
            // SAFETY: a live C instance.
            let (rust_mean, c_mean) = (fmu.real(Var::FMean), unsafe { (baseline.f_mean)(c.raw) });
            assert!(
                (rust_mean - c_mean).abs() <= EXACT_AGREEMENT * c_mean.abs(),
                "{key}: {rust_mean} vs {c_mean}"
            );
            let started = Instant::now();
            let mut time = h;
            for _ in 0..20 {
                // SAFETY: a live instance.
                unsafe { assert_eq!((baseline.do_step)(c.raw, time, h), 0) };
                time += h;
            }
            let per_call = started.elapsed().as_secs_f64() * 1e9 / 20.0;
            StepComparison {
                key,
                fmu,
                c,
                h,
                substeps,
                c_substeps: c_substeps as u32,
                calls: (1e6 / per_call).clamp(20.0, 4000.0) as u32,
                time: (h, time),
                ratios: Vec::with_capacity(PAIRED_ROUNDS),
            }
        })
        .collect()
}

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
struct DynamicCase<'a> {
    id: String,
    n: f64,
    h: f64,
    h_over_t: f64,
    limit: f64,
    /// Law (or closed-form) evaluations of the step's two plans (f_mean, f_next), counted by
    /// integrating the same motions in Rust.
    evaluations: u32,
    impulse_error: f64,
    component: Component<'a>,
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

/// The evaluations of the two plans of a dynamic step from the relative motion `start` (the
/// f_mean plan, then the f_next plan from where it ends), counted on a copy of the law.
fn dynamic_evaluations(law: &GapLaw, start: Motion, h: f64) -> (u32, DynamicStep) {
    let counting = Counting {
        law: *law,
        evaluations: Cell::new(0),
    };
    let plan = Coupling::plan(
        (0.0, 0.0),
        FIRST_STEP_CORRECTION,
        &counting,
        start,
        dynamics(TOLERANCE),
        h,
        0.0,
    );
    let next = integrate_dynamics(&counting, plan.step.end, dynamics(TOLERANCE), h);
    (plan.step.evaluations + next.evaluations, plan.step)
}

fn dynamic_cases(library: &Library) -> Vec<DynamicCase<'_>> {
    let (do_step, get_state) = (
        entry!(library, fmi2DoStep),
        entry!(library, fmi2GetFMUstate),
    );
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
        let t_c = measured_contact_duration(&law);
        let x0 = TOUCH_DOWN * t_c;
        let inputs = [0.0, 0.0, x0, -1.0];
        let master = relative_motion(inputs, None);
        for (ratio, label) in WHOLE_CONTACT_STEPS {
            let id = format!("n{}_whole_contact_{label}", law.n);
            let h = ratio * t_c;
            let component = Component::with(
                library,
                &id,
                &law,
                default_max_substep,
                DYNAMIC_MASS,
                inputs,
            );
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
            let plan = Coupling::plan(
                (0.0, 0.0),
                FIRST_STEP_CORRECTION,
                &law,
                master,
                dynamics(TOLERANCE),
                h,
                0.0,
            );
            let f_mean = component.real(Var::FMean);
            assert!(
                (f_mean - plan.force).abs() <= 1e-9 * plan.force.abs(),
                "{id}: FMU f_mean {f_mean} vs plan {}",
                plan.force
            );
            let reference = integrate_dynamics(&law, master, dynamics(1e-12), h);
            let impulse_error = (step.integral.impulse - reference.integral.impulse).abs()
                / reference.integral.impulse.abs();
            // Reported against the target's 1e-6 (bench_ratios); only a gross error stops the run.
            assert!(
                impulse_error <= 1e-4,
                "{id}: impulse error {impulse_error:e}"
            );
            cases.push(DynamicCase {
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
            });
        }
        if law.n != 1.0 {
            continue;
        }
        // A step inside the contact, no switch in it: reached by a Gauss-Seidel master moving the
        // body under the held f_mean.
        let id = format!("n{}_in_contact_0.05T", law.n);
        let h = IN_CONTACT_STEP * t_c;
        let component = Component::with(
            library,
            &id,
            &law,
            default_max_substep,
            DYNAMIC_MASS,
            inputs,
        );
        let raw = component.raw;
        let (mut x, mut v) = (x0, -1.0);
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
        let reference = integrate_dynamics(&law, start, dynamics(1e-12), h);
        let impulse_error = (step.integral.impulse - reference.integral.impulse).abs()
            / reference.integral.impulse.abs();
        cases.push(DynamicCase {
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
        });
    }
    // Calls per round: about half a millisecond each side.
    let set_state = entry!(library, fmi2SetFMUstate);
    for case in &mut cases {
        let (raw, state, time, h) = (case.component.raw, case.state, case.time, case.h);
        let per_call = time_calls(50, || unsafe {
            // SAFETY: a live instance and one of its states.
            assert_eq!(set_state(raw, state), OK);
            assert_eq!(do_step(raw, time, h, 1), OK);
        });
        case.calls = (5e5 / per_call).clamp(20.0, 2000.0) as u32;
    }
    cases
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
    fn round(&mut self, set_state: SetState, do_step: Fmi2DoStep, evaluation: f64) {
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

    fn report(&mut self) -> serde_json::Value {
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

type SetState = unsafe extern "C" fn(fmi2::fmi2Component, fmi2::fmi2FMUstate) -> fmi2::fmi2Status;

/// Criterion rows of the dynamic cases: `dynamic/<id>` restores the state and steps;
/// `dynamic/restore_<id>` restores alone, to be subtracted.
fn bench_dynamic(c: &mut Criterion, cases: &[DynamicCase]) {
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

/// Where criterion keeps its estimates: `$CARGO_TARGET_DIR/criterion`, else `target/criterion`.
fn criterion_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"))
        .join("criterion")
}

fn benches(c: &mut Criterion) {
    check_value_references();
    let library = Library::load();
    eprintln!("timing {}", library.origin);
    if std::env::var_os("ELASTOGAP_BENCH_FMI3_ONLY").is_some() {
        fmi3_pairs_only(&library);
        return;
    }
    bench_laws(c);
    bench_kinematic(c);
    bench_do_step(c, &library);
    bench_c_baseline(c, &library);
    bench_io(c, &library);
    bench_lifecycle(c, &library);
    bench_fmu_state(c, &library);
    let mut dynamic = dynamic_cases(&library);
    bench_dynamic(c, &dynamic);
    let library3 = fmi3_pairs::Library3::load(&library);
    match &library3 {
        Ok(library3) => eprintln!("pairing FMI 3.0 with FMI 2.0: {}", library3.origin),
        Err(why) => eprintln!("fmi3DoStep against fmi2DoStep not measured: {why}"),
    }
    let mut pairs = library3
        .as_ref()
        .map(|library3| fmi3_pairs::pairs(&library, library3));
    paired_ratios(
        &library,
        &mut dynamic,
        pairs.as_deref_mut().map_err(|why| why.as_str()),
    );
}

/// `ELASTOGAP_BENCH_FMI3_ONLY=1`: only the pairs of `fmi3DoStep` against `fmi2DoStep`, their
/// quartiles printed (a quick look while working on the FMI 3.0 layer; nothing is written).
fn fmi3_pairs_only(library: &Library) {
    let library3 = fmi3_pairs::Library3::load(library).unwrap_or_else(|why| panic!("{why}"));
    let do_step = entry!(library, fmi2DoStep);
    let mut pairs = fmi3_pairs::pairs(library, &library3);
    for round in 0..PAIRED_ROUNDS {
        for pair in pairs.iter_mut() {
            pair.round(round, do_step);
        }
    }
    for pair in pairs.iter_mut() {
        let (key, value) = pair.report();
        eprintln!("{key}: {}", value["fmi3_over_fmi2"]);
    }
}

fn config() -> Criterion {
    // Short runs: the whole benchmark finishes in a few minutes on two shared cores.
    Criterion::default()
        .warm_up_time(Duration::from_millis(800))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20)
}

criterion_group! {
    name = fmi_abi;
    config = config();
    targets = benches
}
criterion_main!(fmi_abi);
