//! The C baseline: `benches/c/baseline_step.c` compiled and loaded, checked against the Rust
//! physics.

use std::ffi::{c_int, c_void};
use std::path::Path;
use std::process::Command;

use elastogap::laws::GapLaw;
use elastogap::step::{integrate_step, Motion, SubstepLimits};

use super::{
    max_substep_size, relative_motion, C_FIXED_SUBSTEP_AGREEMENT, EXACT_AGREEMENT,
    INPUT_ACCELERATIONS, IN_CONTACT, LAW, MAX_SUBSTEP_COUNT, STEP, TOLERANCE,
};

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
pub(crate) type CDoStep = unsafe extern "C" fn(instance: *mut c_void, time: f64, h: f64) -> c_int;
type CFMean = unsafe extern "C" fn(instance: *const c_void) -> f64;

pub(crate) struct CBaseline {
    integrate: CIntegrate,
    instantiate: CInstantiate,
    free: CFree,
    set_inputs: CSetInputs,
    pub(crate) set_accelerations: CSetAccelerations,
    pub(crate) do_step: CDoStep,
    pub(crate) f_mean: CFMean,
    _library: libloading::Library,
    _dir: tempfile::TempDir,
}

impl CBaseline {
    /// Compiles `benches/c/baseline_step.c` with the system C compiler (`$CC`, else `cc`) as a
    /// plain C FMU binary would be, and loads it.
    pub(crate) fn build() -> CBaseline {
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

    pub(crate) fn integrate(
        &self,
        law: &GapLaw,
        motion: Motion,
        h: f64,
        limits: SubstepLimits,
    ) -> [f64; 3] {
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

    /// A C instance parameterised and fed like [`Component::ready`](super::library::Component::ready).
    pub(crate) fn instance(&self, substeps: u32, inputs: [f64; 4]) -> CInstance<'_> {
        self.instance_with(&LAW, max_substep_size(substeps), inputs)
    }

    /// A C instance of `law` with `max_substep` and `inputs`.
    pub(crate) fn instance_with(
        &self,
        law: &GapLaw,
        max_substep: f64,
        inputs: [f64; 4],
    ) -> CInstance<'_> {
        // SAFETY: plain values; the result is checked.
        let raw = unsafe {
            (self.instantiate)(
                law.c,
                law.d,
                law.s_rel0,
                law.n,
                law.s_ref,
                law.f_ref,
                max_substep,
                MAX_SUBSTEP_COUNT,
                0.0,
            )
        };
        assert!(!raw.is_null());
        // SAFETY: a live C instance.
        unsafe { self.set_inputs(raw, inputs) };
        CInstance {
            baseline: self,
            raw,
        }
    }

    /// Sets the flanges' positions and velocities (s_a, v_a, s_b, v_b).
    ///
    /// # Safety
    /// `raw` is a live instance of this baseline.
    #[inline(always)]
    pub(crate) unsafe fn set_inputs(&self, raw: *mut c_void, inputs: [f64; 4]) {
        unsafe { (self.set_inputs)(raw, inputs[0], inputs[1], inputs[2], inputs[3]) }
    }

    /// The C physics must be the Rust physics, not a cheaper approximation: for n = 1 the same
    /// integrals to rounding, for n = 1.5 the same to the accuracy of the
    /// C baseline's fixed substeps, on motions that enter and leave contact and cross the damper
    /// bound.
    pub(crate) fn check_against_rust(&self) {
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

pub(crate) struct CInstance<'a> {
    baseline: &'a CBaseline,
    pub(crate) raw: *mut c_void,
}

impl Drop for CInstance<'_> {
    fn drop(&mut self) {
        // SAFETY: a live C instance, freed once.
        unsafe { (self.baseline.free)(self.raw) };
    }
}
