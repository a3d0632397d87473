//! The library under test: the packaged FMU or the cdylib just built, its instances, and the
//! value references the benchmark feeds and reads.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::ptr;
use std::sync::Arc;

use elastogap::laws::GapLaw;
use elastogap::variables::{by_var, Var, HELD_FORCE};
use fmi_sys::fmi2::{self, Fmi2Binding};

use super::support::{self, Fmu};
use super::{max_substep_size, INPUT_ACCELERATIONS, LAW, MAX_SUBSTEP_COUNT};

// ---------------------------------------------------------------------------------------------
// The library under test
// ---------------------------------------------------------------------------------------------

pub(crate) const OK: fmi2::fmi2Status = fmi2::fmi2Status_fmi2OK;

pub(crate) enum Loaded {
    Packaged(Arc<Fmu>),
    Built(Box<Fmi2Binding>),
}

pub(crate) struct Library {
    pub(crate) loaded: Loaded,
    pub(crate) guid: CString,
    pub(crate) resource_uri: CString,
    pub(crate) origin: String,
}

impl Library {
    pub(crate) fn binding(&self) -> &Fmi2Binding {
        match &self.loaded {
            Loaded::Packaged(fmu) => &fmu.binding,
            Loaded::Built(binding) => binding,
        }
    }

    pub(crate) fn load() -> Library {
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
pub(crate) fn built_library() -> PathBuf {
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

pub(crate) fn vr(var: Var) -> fmi2::fmi2ValueReference {
    by_var(var).value_reference
}

/// One instance of the library under test, freed on drop.
pub(crate) struct Component<'a> {
    pub(crate) library: &'a Library,
    pub(crate) raw: fmi2::fmi2Component,
    // Boxed so the address stays valid for as long as the instance may use it.
    _callbacks: Box<fmi2::fmi2CallbackFunctions>,
}

pub(crate) fn callbacks() -> Box<fmi2::fmi2CallbackFunctions> {
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
    pub(crate) fn ready(
        library: &'a Library,
        name: &str,
        substeps: u32,
        inputs: [f64; 4],
    ) -> Component<'a> {
        Component::with(library, name, &LAW, max_substep_size(substeps), 0.0, inputs)
    }

    /// [`Component::with`] with `heldForce` left at its default where a mass is given, and `None`
    /// without one.
    pub(crate) fn with(
        library: &'a Library,
        name: &str,
        law: &GapLaw,
        max_substep: f64,
        m_eff: f64,
        inputs: [f64; 4],
    ) -> Component<'a> {
        // Without a mass the kinematic rows feed the same inputs at every step, a motion no body
        // makes: a prescribed motion (`heldForce` = None). Left at Auto, the FMU would read it as
        // a body's answers and bound the forces of the model it fits to them.
        let held = (m_eff == 0.0).then(|| held_force("None"));
        Component::holding(library, name, law, max_substep, m_eff, held, inputs)
    }

    /// Instantiated with the law `law`, `maxSubstepSize`, `m_eff` (0: none), `heldForce` (its
    /// numeric code; `None` leaves the default), initialised, with `inputs` set.
    pub(crate) fn holding(
        library: &'a Library,
        name: &str,
        law: &GapLaw,
        max_substep: f64,
        m_eff: f64,
        held_force: Option<i32>,
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
            if let Some(held) = held_force {
                assert_eq!(set_integer(raw, &vr(Var::HeldForce), 1, &held), OK);
            }
            assert_eq!(enter(raw), OK);
            assert_eq!(exit(raw), OK);
        }
        component.set_inputs(inputs);
        component
    }

    pub(crate) fn set_inputs(&self, inputs: [f64; 4]) {
        let set_real = entry!(self.library, fmi2SetReal);
        // SAFETY: a live instance and arrays of the announced lengths.
        let status = unsafe { set_real(self.raw, INPUTS.as_ptr(), 4, inputs.as_ptr()) };
        assert_eq!(status, OK);
    }

    pub(crate) fn real(&self, var: Var) -> f64 {
        let get_real = entry!(self.library, fmi2GetReal);
        let mut value = f64::NAN;
        // SAFETY: a live instance and arrays of length 1.
        assert_eq!(unsafe { get_real(self.raw, &vr(var), 1, &mut value) }, OK);
        value
    }

    pub(crate) fn contact(&self) -> bool {
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

/// The numeric code of the `heldForce` item `name`, as an importer reads it from the model
/// description.
pub(crate) fn held_force(name: &str) -> i32 {
    let position = HELD_FORCE.items.iter().position(|(item, _)| *item == name);
    position.expect("a heldForce item") as i32 + 1
}

pub(crate) const INPUTS: [fmi2::fmi2ValueReference; 4] = [11, 12, 13, 14];
const VELOCITY_INPUTS: [fmi2::fmi2ValueReference; 2] = [12, 14];
const DERIVATIVE_ORDERS: [fmi2::fmi2Integer; 2] = [1, 1];
pub(crate) const REAL_OUTPUTS: [fmi2::fmi2ValueReference; 7] = [20, 21, 22, 24, 25, 26, 27];
pub(crate) const BOOLEAN_OUTPUTS: [fmi2::fmi2ValueReference; 1] = [23];

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
pub(crate) unsafe fn supply_accelerations(
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
pub(crate) fn check_value_references() {
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
