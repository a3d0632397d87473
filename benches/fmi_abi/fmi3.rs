//! `fmi3DoStep` against `fmi2DoStep` on the same step, paired: both layers' instances set up
//! alike (law, `maxSubstepSize`, `maxSubstepCount`, `heldForce` = None, the same flange inputs),
//! timed in alternation within each round of `paired_ratios`, the ratio taken per round.
//!
//! Which FMI 3.0 library: the packaged `$ELASTOGAP3_FMU` when set (beside a packaged
//! `$ELASTOGAP_FMU`: both shipped binaries), else the cdylib the benchmark built, which exports the
//! FMI 3.0 functions only when built with `--features fmi3` (then it exports both layers: one
//! library, one build, the fairest pairing). Without either, the pairs are left out with a note.

use std::ffi::{c_char, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr;
use std::sync::Arc;

use fmi_sys::fmi3::{self, Fmi3Binding};

use super::support::fmi3::{Fmu3, FMU3_ENV};
use super::{
    built_library, max_substep_size, quartiles, time_calls, vr, Component, GapLaw, Library, Loaded,
    Var, INPUTS, IN_CONTACT, LAW, MAX_SUBSTEP_COUNT, OUT_OF_CONTACT, PAIRED_ROUNDS, STEP,
};

const OK3: fmi3::fmi3Status = fmi3::fmi3Status_fmi3OK;

enum Loaded3 {
    Packaged(Arc<Fmu3>),
    Built(Box<Fmi3Binding>),
}

/// The FMI 3.0 library under test, as [`Library`] is the FMI 2.0 one.
pub struct Library3 {
    loaded: Loaded3,
    token: CString,
    resources: CString,
    pub origin: String,
}

impl Library3 {
    fn binding(&self) -> &Fmi3Binding {
        match &self.loaded {
            Loaded3::Packaged(fmu) => &fmu.binding,
            Loaded3::Built(binding) => binding,
        }
    }

    /// The FMI 3.0 library to pair with `fmi2`, or why there is none.
    pub fn load(fmi2: &Library) -> Result<Library3, String> {
        let token = CString::new(elastogap::GUID).unwrap();
        if let Some(path) = std::env::var_os(FMU3_ENV).filter(|p| !p.is_empty()) {
            let path = PathBuf::from(path);
            let fmu =
                Fmu3::open(&path).unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
            return Ok(Library3 {
                resources: CString::new(fmu.resource_path().to_string_lossy().as_ref()).unwrap(),
                origin: format!("packaged FMU {}", path.display()),
                loaded: Loaded3::Packaged(Arc::new(fmu)),
                token,
            });
        }
        if let Loaded::Packaged(_) = fmi2.loaded {
            return Err(format!(
                "the FMI 2.0 library is packaged: set {FMU3_ENV} to the packaged FMI 3.0 FMU as well"
            ));
        }
        let path = built_library();
        // SAFETY: loading runs the library's initialisers; it is the library under test.
        let binding = unsafe { Fmi3Binding::new(&path) }
            .unwrap_or_else(|e| panic!("cannot load {}: {e}", path.display()));
        if binding.fmi3DoStep.is_err() {
            return Err(format!(
                "{} exports no FMI 3.0 functions: run the benchmark with `--features fmi3`",
                path.display()
            ));
        }
        let resources = path.parent().unwrap_or(Path::new(".")).to_path_buf();
        Ok(Library3 {
            resources: CString::new(resources.to_string_lossy().as_ref()).unwrap(),
            origin: format!("cdylib {}", path.display()),
            loaded: Loaded3::Built(Box::new(binding)),
            token,
        })
    }
}

/// Errors the FMU logs while the benchmark sets up (none are expected) go to stderr.
unsafe extern "C" fn log_message(
    _environment: fmi3::fmi3InstanceEnvironment,
    status: fmi3::fmi3Status,
    category: fmi3::fmi3String,
    message: fmi3::fmi3String,
) {
    let text = |p: *const c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: the FMU passes NUL-terminated strings valid for the call.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    eprintln!("FMI 3.0 [{status}] {}: {}", text(category), text(message));
}

/// The signature of `fmi3DoStep`, resolved once before the timing as an importer does.
type Fmi3DoStep = unsafe extern "C" fn(
    fmi3::fmi3Instance,
    fmi3::fmi3Float64,
    fmi3::fmi3Float64,
    fmi3::fmi3Boolean,
    *mut fmi3::fmi3Boolean,
    *mut fmi3::fmi3Boolean,
    *mut fmi3::fmi3Boolean,
    *mut fmi3::fmi3Float64,
) -> fmi3::fmi3Status;

type Fmi2DoStep = super::Fmi2DoStep;
type Fmi2SetReal = super::paired::Fmi2SetReal;

/// The signature of `fmi3SetFloat64`.
type Fmi3SetFloat64 = unsafe extern "C" fn(
    fmi3::fmi3Instance,
    *const fmi3::fmi3ValueReference,
    usize,
    *const fmi3::fmi3Float64,
    usize,
) -> fmi3::fmi3Status;

/// One FMI 3.0 co-simulation instance, set up as [`Component::ready`] sets up the FMI 2.0 one.
struct Component3<'a> {
    library: &'a Library3,
    raw: fmi3::fmi3Instance,
}

impl<'a> Component3<'a> {
    fn ready(
        library: &'a Library3,
        name: &str,
        substeps: u32,
        inputs: [f64; 4],
        early_return_allowed: bool,
    ) -> Component3<'a> {
        let b = library.binding();
        let name = CString::new(name).unwrap();
        // SAFETY: valid strings; no environment, a logger that needs none.
        let raw = unsafe {
            b.fmi3InstantiateCoSimulation(
                name.as_ptr(),
                library.token.as_ptr(),
                library.resources.as_ptr(),
                false,
                false,
                false,
                early_return_allowed,
                ptr::null(),
                0,
                ptr::null_mut(),
                Some(log_message),
                None,
            )
        };
        assert!(!raw.is_null(), "fmi3InstantiateCoSimulation failed");
        let component = Component3 { library, raw };
        let law: &GapLaw = &LAW;
        let parameters = [
            (Var::C, law.c),
            (Var::D, law.d),
            (Var::SRel0, law.s_rel0),
            (Var::N, law.n),
            (Var::SRef, law.s_ref),
            (Var::FRef, law.f_ref),
            (Var::MaxSubstepSize, max_substep_size(substeps)),
            (Var::MEff, 0.0),
        ];
        let references: Vec<_> = parameters.iter().map(|(var, _)| vr(*var)).collect();
        let values: Vec<_> = parameters.iter().map(|(_, value)| *value).collect();
        let n = references.len();
        // SAFETY: a live instance and arrays of the announced lengths.
        unsafe {
            assert_eq!(
                b.fmi3SetFloat64(raw, references.as_ptr(), n, values.as_ptr(), n),
                OK3
            );
            let count = [MAX_SUBSTEP_COUNT];
            let reference = [vr(Var::MaxSubstepCount)];
            assert_eq!(
                b.fmi3SetInt32(raw, reference.as_ptr(), 1, count.as_ptr(), 1),
                OK3
            );
            // The prescribed motion, declared as the FMI 2.0 rows declare it (an Enumeration:
            // fmi3SetInt64).
            let prescribed = [4i64];
            let reference = [vr(Var::HeldForce)];
            assert_eq!(
                b.fmi3SetInt64(raw, reference.as_ptr(), 1, prescribed.as_ptr(), 1),
                OK3
            );
            assert_eq!(
                b.fmi3EnterInitializationMode(raw, false, 0.0, 0.0, false, 0.0),
                OK3
            );
            assert_eq!(b.fmi3ExitInitializationMode(raw), OK3);
            assert_eq!(
                b.fmi3SetFloat64(raw, INPUTS.as_ptr(), 4, inputs.as_ptr(), 4),
                OK3
            );
        }
        component
    }

    fn real(&self, var: Var) -> f64 {
        let mut value = f64::NAN;
        let reference = [vr(var)];
        // SAFETY: a live instance and arrays of length 1.
        let status = unsafe {
            self.library
                .binding()
                .fmi3GetFloat64(self.raw, reference.as_ptr(), 1, &mut value, 1)
        };
        assert_eq!(status, OK3);
        value
    }
}

impl Drop for Component3<'_> {
    fn drop(&mut self) {
        // SAFETY: a live instance, freed once.
        unsafe { self.library.binding().fmi3FreeInstance(self.raw) };
    }
}

/// One step of an FMI 3.0 instance: OK (checked as the FMI 2.0 side checks its status); the flags
/// go through `black_box`, so that the call writes them, and are checked outside the timing
/// ([`pairs`], [`Pair::report`]).
///
/// # Safety
/// `raw` is a live instance of the library `do_step` comes from.
#[inline(always)]
unsafe fn step3(do_step: Fmi3DoStep, raw: fmi3::fmi3Instance, time: f64) {
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    // SAFETY: as the caller promises; valid output pointers.
    let status = unsafe {
        do_step(
            raw,
            time,
            STEP,
            true,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        )
    };
    assert_eq!(status, OK3);
    std::hint::black_box((event, terminate, early, last));
}

/// One step, checked to be whole and without event.
///
/// # Safety
/// As for [`step3`].
unsafe fn checked_step3(do_step: Fmi3DoStep, raw: fmi3::fmi3Instance, time: f64) {
    let (mut event, mut terminate, mut early, mut last) = (false, false, false, 0.0);
    // SAFETY: as the caller promises; valid output pointers.
    let status = unsafe {
        do_step(
            raw,
            time,
            STEP,
            true,
            &mut event,
            &mut terminate,
            &mut early,
            &mut last,
        )
    };
    assert!(status == OK3 && !early && !event && !terminate && last == time + STEP);
}

/// One paired target: the same step through both layers.
pub struct Pair<'a> {
    key: &'static str,
    inputs: [f64; 4],
    early_return_allowed: bool,
    limit: f64,
    fmi2: Component<'a>,
    fmi3: Component3<'a>,
    calls: u32,
    time: (f64, f64),
    ratios: Vec<f64>,
    fmi2_ns: Vec<f64>,
    fmi3_ns: Vec<f64>,
}

/// The targets, each with its limit on `fmi3DoStep` over `fmi2DoStep`: a kinematic step out of
/// contact and one in contact (10 substeps' worth of `maxSubstepSize`, one closed-form piece), as
/// the FMI 2.0 rows `do_step/free_10` and `do_step/contact_10`; and the step in contact with early
/// return allowed (no switch in it). Out of contact the four output arguments are most of what
/// `fmi3DoStep` adds; with early return allowed, the test whether a switch can come.
pub fn pairs<'a>(fmi2: &'a Library, fmi3: &'a Library3) -> Vec<Pair<'a>> {
    let do_step2 = entry!(fmi2, fmi2DoStep);
    let do_step3: Fmi3DoStep = *fmi3
        .binding()
        .fmi3DoStep
        .as_ref()
        .expect("fmi3DoStep is exported");
    [
        ("kinematic_free", OUT_OF_CONTACT, false, 1.10),
        ("kinematic_contact", IN_CONTACT, false, 1.05),
        (
            "kinematic_contact_early_return_allowed",
            IN_CONTACT,
            true,
            1.2,
        ),
    ]
    .into_iter()
    .map(|(key, inputs, early_return_allowed, limit)| {
        let two = Component::ready(fmi2, key, 10, inputs);
        let three = Component3::ready(fmi3, key, 10, inputs, early_return_allowed);
        // One step each, checked: the same outputs, so both do the same work when timed.
        // SAFETY: live instances.
        unsafe {
            assert_eq!(do_step2(two.raw, 0.0, STEP, 1), super::OK, "{key}");
            checked_step3(do_step3, three.raw, 0.0);
        }
        for var in [Var::FMean, Var::F, Var::ELoss] {
            let (a, b) = (two.real(var), three.real(var));
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "{key}: {var:?} {a} (FMI 2) vs {b} (FMI 3)"
            );
        }
        assert_eq!(two.contact(), inputs == IN_CONTACT, "{key}");
        let mut time = STEP;
        let per_call = time_calls(200, || {
            // SAFETY: a live instance.
            unsafe { assert_eq!(do_step2(two.raw, time, STEP, 1), super::OK) };
            time += STEP;
        });
        Pair {
            key,
            inputs,
            early_return_allowed,
            limit,
            fmi2: two,
            fmi3: three,
            calls: (1e6 / per_call).clamp(20.0, 20_000.0) as u32,
            time: (time, STEP),
            ratios: Vec::with_capacity(PAIRED_ROUNDS),
            fmi2_ns: Vec::with_capacity(PAIRED_ROUNDS),
            fmi3_ns: Vec::with_capacity(PAIRED_ROUNDS),
        }
    })
    .collect()
}

impl Pair<'_> {
    /// One round: each side `calls` steps, each after its inputs are set as a master sets them,
    /// the side that goes first alternating between rounds.
    pub fn round(&mut self, round: usize, set_real2: Fmi2SetReal, do_step2: Fmi2DoStep) {
        let binding = self.fmi3.library.binding();
        let do_step3: Fmi3DoStep = *binding.fmi3DoStep.as_ref().expect("fmi3DoStep is exported");
        let set_real3: Fmi3SetFloat64 = *binding
            .fmi3SetFloat64
            .as_ref()
            .expect("fmi3SetFloat64 is exported");
        let (raw2, raw3, inputs) = (self.fmi2.raw, self.fmi3.raw, self.inputs);
        let (t2, t3) = &mut self.time;
        let mut two = || {
            time_calls(self.calls, || {
                // SAFETY: a live instance and arrays of the announced lengths.
                unsafe {
                    set_real2(raw2, INPUTS.as_ptr(), 4, inputs.as_ptr());
                    assert_eq!(do_step2(raw2, *t2, STEP, 1), super::OK);
                }
                *t2 += STEP;
            })
        };
        let mut three = || {
            time_calls(self.calls, || {
                // SAFETY: a live instance and arrays of the announced lengths.
                unsafe {
                    set_real3(raw3, INPUTS.as_ptr(), 4, inputs.as_ptr(), 4);
                    step3(do_step3, raw3, *t3);
                }
                *t3 += STEP;
            })
        };
        let (ns2, ns3) = if round.is_multiple_of(2) {
            let ns2 = two();
            (ns2, three())
        } else {
            let ns3 = three();
            (two(), ns3)
        };
        self.fmi2_ns.push(ns2);
        self.fmi3_ns.push(ns3);
        self.ratios.push(ns3 / ns2);
    }

    /// The quartiles for `paired_ratios.json`, and a last checked step of each side.
    pub fn report(&mut self) -> (String, serde_json::Value) {
        let do_step3: Fmi3DoStep = *self
            .fmi3
            .library
            .binding()
            .fmi3DoStep
            .as_ref()
            .expect("fmi3DoStep is exported");
        let b = self.fmi3.library.binding();
        let do_step2 = entry!(self.fmi2.library, fmi2DoStep);
        self.fmi2.set_inputs(self.inputs);
        // SAFETY: live instances and arrays of the announced lengths.
        unsafe {
            assert_eq!(do_step2(self.fmi2.raw, self.time.0, STEP, 1), super::OK);
            let inputs = self.inputs.as_ptr();
            assert_eq!(
                b.fmi3SetFloat64(self.fmi3.raw, INPUTS.as_ptr(), 4, inputs, 4),
                OK3
            );
            checked_step3(do_step3, self.fmi3.raw, self.time.1);
        }
        for var in [Var::FMean, Var::F] {
            let (a, b) = (self.fmi2.real(var), self.fmi3.real(var));
            assert_eq!(
                a.to_bits(),
                b.to_bits(),
                "{}: {var:?} after the rounds",
                self.key
            );
        }
        let value = serde_json::json!({
            "h": STEP,
            "max_substep_size": max_substep_size(10),
            "in_contact": self.inputs == IN_CONTACT,
            "early_return_allowed": self.early_return_allowed,
            "limit": self.limit,
            "calls_per_round": self.calls,
            "fmi2_ns": quartiles(std::mem::take(&mut self.fmi2_ns)),
            "fmi3_ns": quartiles(std::mem::take(&mut self.fmi3_ns)),
            "fmi3_over_fmi2": quartiles(std::mem::take(&mut self.ratios)),
        });
        (self.key.to_string(), value)
    }
}
