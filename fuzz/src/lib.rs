//! What both fuzz targets share: a logger that records the FMU's messages per call, the check that
//! every failed call said why, and the output invariants that are cheap to verify.
//!
//! The FMU is called in-process through the rlib (`elastogap::fmi2::*`), as an importer would call
//! the shared library, so the sanitizers see both sides.

pub mod fmi3;
pub mod fmi3_script;

use std::cell::RefCell;
use std::ffi::{c_void, CStr, CString};

use elastogap::fmi2::*;
use elastogap::laws::ForceLaw;
use elastogap::variables::{by_var, Kind, Var, STATES, VARIABLES};
use fmi_sys::fmi2::{
    fmi2Boolean, fmi2CallbackFunctions, fmi2CallbackLogger, fmi2Component,
    fmi2ComponentEnvironment, fmi2EventInfo, fmi2Real, fmi2Status, fmi2String, fmi2ValueReference,
};

pub const OK: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2OK;
pub const DISCARD: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Discard;
pub const ERROR: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Error;
pub const FATAL: fmi2Status = fmi_sys::fmi2::fmi2Status_fmi2Fatal;
pub const CO_SIMULATION: u32 = fmi_sys::fmi2::fmi2Type_fmi2CoSimulation;
pub const MODEL_EXCHANGE: u32 = fmi_sys::fmi2::fmi2Type_fmi2ModelExchange;
/// The most substeps per communication step the harness lets a step take; see
/// [`Instance::cap_substeps`].
pub const SUBSTEP_COUNT_CAP: i32 = 10_000;
pub const LAST_SUCCESSFUL_TIME: u32 = fmi_sys::fmi2::fmi2StatusKind_fmi2LastSuccessfulTime;

/// The template of the model description, whose `<LogCategories>` the FMU must log under.
const MODEL_DESCRIPTION: &str = include_str!("../../modelDescription.xml.in");

/// The category names `<LogCategories>` declares, `logAll` included.
pub fn declared_categories() -> Vec<&'static str> {
    MODEL_DESCRIPTION
        .split("<Category name=\"")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect()
}

#[derive(Debug, Clone)]
pub struct LogRecord {
    pub environment: usize,
    pub instance_name: Option<String>,
    pub status: fmi2Status,
    pub category: Option<String>,
    pub message: Option<String>,
}

thread_local! {
    static LOG: RefCell<Vec<LogRecord>> = const { RefCell::new(Vec::new()) };
}

fn text(pointer: fmi2String) -> Option<String> {
    if pointer.is_null() {
        return None;
    }
    // SAFETY: the FMU passes NUL-terminated strings valid for the duration of the callback.
    Some(
        unsafe { CStr::from_ptr(pointer) }
            .to_string_lossy()
            .into_owned(),
    )
}

extern "C" fn record(
    environment: fmi2ComponentEnvironment,
    instance_name: fmi2String,
    status: fmi2Status,
    category: fmi2String,
    message: fmi2String,
) {
    let entry = LogRecord {
        environment: environment as usize,
        instance_name: text(instance_name),
        status,
        category: text(category),
        message: text(message),
    };
    LOG.with(|log| log.borrow_mut().push(entry));
}

/// The recording logger in the variadic type `fmi2CallbackFunctions` declares. The FMU passes no
/// variadic arguments (its messages are preformatted, '%' escaped), so on the C ABIs cargo fuzz
/// supports the fixed-argument function is called correctly through this pointer.
pub fn recording_logger() -> fmi2CallbackLogger {
    type Fixed =
        extern "C" fn(fmi2ComponentEnvironment, fmi2String, fmi2Status, fmi2String, fmi2String);
    type Variadic = unsafe extern "C" fn(
        fmi2ComponentEnvironment,
        fmi2String,
        fmi2Status,
        fmi2String,
        fmi2String,
        ...
    );
    let f: Fixed = record;
    // SAFETY: same fixed arguments; see above.
    Some(unsafe { std::mem::transmute::<Fixed, Variadic>(f) })
}

pub fn take_log() -> Vec<LogRecord> {
    LOG.with(|log| std::mem::take(&mut *log.borrow_mut()))
}

/// True if `message` is safe to hand to printf with no arguments: every '%' is doubled.
fn is_printf_safe(message: &str) -> bool {
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        if c == '%' && chars.next() != Some('%') {
            return false;
        }
    }
    true
}

/// Checks what one call logged against the status it returned; panics (a finding) if a failed
/// call gave no reason, if the FMU returned a status it never should, or if a message was
/// malformed. `logger` is false when the instance has no logger to talk to.
pub fn check_call(call: &str, status: fmi2Status, logger: Option<(usize, &str)>) {
    let log = take_log();
    assert!(
        status == OK || status == DISCARD || status == ERROR,
        "{call} returned status {status} (the FMU returns fmi2OK, fmi2Discard or fmi2Error; fmi2Fatal means an internal panic); log: {log:?}"
    );
    let declared = declared_categories();
    for entry in &log {
        let category = entry.category.as_deref().unwrap_or("<NULL>");
        assert!(
            category != "logAll" && declared.contains(&category),
            "{call} logged under undeclared category {category}: {entry:?}"
        );
        let message = entry
            .message
            .as_deref()
            .unwrap_or_else(|| panic!("{call} logged a NULL message: {entry:?}"));
        assert!(
            is_printf_safe(message),
            "{call} logged a message with an unescaped '%': {entry:?}"
        );
        if let Some((environment, name)) = logger {
            assert_eq!(
                entry.environment, environment,
                "{call} logged with a foreign componentEnvironment"
            );
            assert_eq!(
                entry.instance_name.as_deref(),
                Some(name),
                "{call} logged with a wrong instance name"
            );
        }
    }
    if status != OK && logger.is_some() {
        assert!(
            log.iter()
                .any(|e| e.status == status && !e.message.as_deref().unwrap_or("").is_empty()),
            "{call} returned status {status} without logging why; log: {log:?}"
        );
    }
}

/// A live instance with the recording logger, as the targets drive it.
pub struct Instance {
    pub component: fmi2Component,
    /// The componentEnvironment the logger must get back; boxed so its address is unique.
    environment: Box<u8>,
    pub name: String,
    pub has_logger: bool,
    /// Instantiated as fmi2ModelExchange: the importer integrates E_loss and may set it to any
    /// value, and `contact` changes only at events.
    pub model_exchange: bool,
}

impl Instance {
    pub fn environment(&self) -> usize {
        &*self.environment as *const u8 as usize
    }

    pub fn logger(&self) -> Option<(usize, &str)> {
        self.has_logger
            .then(|| (self.environment(), self.name.as_str()))
    }

    /// Runs one FMI call on this instance and checks it with [`check_call`].
    pub fn call(&self, name: &str, f: impl FnOnce(fmi2Component) -> fmi2Status) -> fmi2Status {
        take_log();
        let status = f(self.component);
        check_call(name, status, self.logger());
        status
    }

    /// Instantiates with the given arguments; `None` if the FMU refused, which must then have
    /// been logged when a logger was given.
    #[allow(clippy::too_many_arguments)]
    pub fn instantiate(
        name: Option<&CStr>,
        fmu_type: u32,
        guid: Option<&CStr>,
        resource: Option<&CStr>,
        with_callbacks: bool,
        with_logger: bool,
        logging_on: bool,
    ) -> Option<Instance> {
        let environment = Box::new(0u8);
        let environment_ptr = &*environment as *const u8 as *mut c_void;
        let callbacks = fmi2CallbackFunctions {
            logger: if with_logger {
                recording_logger()
            } else {
                None
            },
            allocateMemory: None,
            freeMemory: None,
            stepFinished: None,
            componentEnvironment: environment_ptr,
        };
        let as_ptr = |s: Option<&CStr>| s.map_or(std::ptr::null(), CStr::as_ptr);
        take_log();
        // SAFETY: every pointer is NULL or valid for the call; the callbacks struct is copied.
        let component = unsafe {
            fmi2Instantiate(
                as_ptr(name),
                fmu_type,
                as_ptr(guid),
                as_ptr(resource),
                if with_callbacks {
                    &callbacks
                } else {
                    std::ptr::null()
                },
                0,
                fmi2Boolean::from(logging_on),
            )
        };
        let log = take_log();
        let has_logger = with_callbacks && with_logger;
        if component.is_null() {
            if has_logger {
                assert!(
                    log.iter().any(|e| e.status == ERROR),
                    "fmi2Instantiate refused without logging why; log: {log:?}"
                );
            }
            return None;
        }
        let name = name
            .and_then(|n| n.to_str().ok())
            .unwrap_or_default()
            .to_string();
        Some(Instance {
            component,
            environment,
            name,
            has_logger,
            model_exchange: fmu_type == MODEL_EXCHANGE,
        })
    }

    /// A co-simulation instance with the defaults of the model description and a logger.
    pub fn standard() -> Instance {
        Instance::standard_of(CO_SIMULATION)
    }

    /// An instance of `fmu_type` with the defaults of the model description and a logger.
    pub fn standard_of(fmu_type: u32) -> Instance {
        let guid = CString::new(elastogap::GUID).expect("GUID has no NUL");
        Instance::instantiate(
            Some(c"fuzz"),
            fmu_type,
            Some(&guid),
            Some(c"file:///tmp/resources/"),
            true,
            true,
            false,
        )
        .expect("the standard instantiation succeeds")
    }

    /// The FMU's current time, if it can tell in its current state.
    pub fn time(&self) -> Option<f64> {
        let mut time = f64::NAN;
        let status = self.call("fmi2GetRealStatus", |c| unsafe {
            fmi2GetRealStatus(c, LAST_SUCCESSFUL_TIME, &mut time)
        });
        (status == OK).then_some(time)
    }

    /// Lowers maxSubstepCount to [`SUBSTEP_COUNT_CAP`] if it is above, so that one input's
    /// work stays far below the fuzzer's timeout and a timeout means a hang. The FMU's own bound
    /// (maxSubstepCount <= 1e6) costs about a second per step at its maximum, which is measured
    /// apart from fuzzing.
    pub fn cap_substeps(&self) {
        let vr = [by_var(Var::MaxSubstepCount).value_reference];
        let mut count = [0];
        let status = self.call("fmi2GetInteger", |c| unsafe {
            fmi2GetInteger(c, vr.as_ptr(), 1, count.as_mut_ptr())
        });
        if status == OK && count[0] > SUBSTEP_COUNT_CAP {
            let cap = [SUBSTEP_COUNT_CAP];
            self.call("fmi2SetInteger", |c| unsafe {
                fmi2SetInteger(c, vr.as_ptr(), 1, cap.as_ptr())
            });
        }
    }

    pub fn get_real(&self, var: Var) -> Option<f64> {
        let vr = [by_var(var).value_reference];
        let mut value = [f64::NAN];
        let status = self.call("fmi2GetReal", |c| unsafe {
            fmi2GetReal(c, vr.as_ptr(), 1, value.as_mut_ptr())
        });
        (status == OK).then_some(value[0])
    }

    pub fn get_integer(&self, var: Var) -> Option<i32> {
        let vr = [by_var(var).value_reference];
        let mut value = [0];
        let status = self.call("fmi2GetInteger", |c| unsafe {
            fmi2GetInteger(c, vr.as_ptr(), 1, value.as_mut_ptr())
        });
        (status == OK).then_some(value[0])
    }

    pub fn set_reals(&self, values: &[(Var, f64)]) -> fmi2Status {
        let vrs: Vec<fmi2ValueReference> = values
            .iter()
            .map(|(v, _)| by_var(*v).value_reference)
            .collect();
        let xs: Vec<fmi2Real> = values.iter().map(|(_, x)| *x).collect();
        self.call("fmi2SetReal", |c| unsafe {
            fmi2SetReal(c, vrs.as_ptr(), vrs.len(), xs.as_ptr())
        })
    }

    /// Reads every variable of the table and checks the invariants of the model that hold in
    /// any state reached through successful calls after initialization.
    pub fn check_outputs(&self, context: &str) -> Option<Snapshot> {
        // In Model Exchange `contact` is a discrete variable: it keeps its value from the last
        // event while the inputs move, so it follows the motion only right after an event.
        self.check_outputs_where(context, !self.model_exchange)
    }

    fn check_outputs_where(&self, context: &str, contact_follows_motion: bool) -> Option<Snapshot> {
        let reals: Vec<&_> = VARIABLES.iter().filter(|v| v.kind == Kind::Real).collect();
        let vrs: Vec<fmi2ValueReference> = reals.iter().map(|v| v.value_reference).collect();
        let mut values = vec![f64::NAN; vrs.len()];
        let status = self.call("fmi2GetReal", |c| unsafe {
            fmi2GetReal(c, vrs.as_ptr(), vrs.len(), values.as_mut_ptr())
        });
        if status != OK {
            return None;
        }
        let value = |var: Var| {
            values[reals
                .iter()
                .position(|v| v.var == var)
                .expect("a Real variable")]
        };
        for (variable, x) in reals.iter().zip(&values) {
            assert!(
                x.is_finite(),
                "{context}: fmi2GetReal returned fmi2OK with {} = {x}; all values: {:?}",
                variable.name,
                reals
                    .iter()
                    .map(|v| v.name)
                    .zip(&values)
                    .collect::<Vec<_>>()
            );
        }
        let (f, f_c, f_d) = (value(Var::F), value(Var::FC), value(Var::FD));
        let loss_power = value(Var::LossPower);
        let law = self
            .get_integer(Var::ForceLaw)
            .and_then(ForceLaw::from_index)?;
        // ElastoGap bounds the damper by the spring; NoPulling, Hunt-Crossley and Adams' IMPACT
        // clamp the force at 0; SpringDamper, RecurDyn's contact and its two-sided Gap Force may
        // pull, as in those tools.
        let pulls = law.may_pull();
        if !pulls {
            assert!(
                f <= 0.0,
                "{context}: f = {f} > 0 under {law:?}, which never pulls"
            );
        }
        if law == ForceLaw::ElastoGap {
            assert!(
                f_d.abs() <= -f_c,
                "{context}: |f_d| = {} exceeds |f_c| = {}",
                f_d.abs(),
                -f_c
            );
        }
        // The Gap Force's spring is two-sided and carries the preload.
        if law != ForceLaw::GapForce {
            assert!(f_c <= 0.0, "{context}: f_c = {f_c} > 0");
        }
        assert!(loss_power >= 0.0, "{context}: lossPower = {loss_power} < 0");
        let f_t = [value(Var::FTx), value(Var::FTy)];
        let v_t = [value(Var::VTx), value(Var::VTy)];
        if law == ForceLaw::GapForce {
            // The Gap Force's tangential dampers, RecurDyn's formula in each direction while in
            // range, nothing outside it.
            let s_rel = value(Var::SRel);
            let in_range = value(Var::RangeMin) < s_rel && s_rel < value(Var::RangeMax);
            for (axis, (d, n, preload)) in [
                (Var::DX, Var::NX, Var::PreloadX),
                (Var::DY, Var::NY, Var::PreloadY),
            ]
            .into_iter()
            .enumerate()
            {
                let (d, n, preload) = (value(d), value(n), value(preload));
                let v = v_t[axis];
                let expected = if in_range {
                    d * v.abs().powf(n).copysign(v) - preload
                } else {
                    0.0
                };
                assert!(
                    f_t[axis] == expected || (f_t[axis] - expected).abs() <= 1e-12 * expected.abs(),
                    "{context}: f_t[{axis}] = {} against the Gap Force's {expected}",
                    f_t[axis]
                );
            }
        } else if value(Var::MaxStictionDeformation) > 0.0 && v_t[0].hypot(v_t[1]) < value(Var::VS)
        {
            // Sticking: a spring on the deformation, up to static friction and the bound.
            let magnitude = f_t[0].hypot(f_t[1]);
            let static_friction = value(Var::MuS) * f.abs();
            // Relative to the bound, and absolute below the smallest normal double: subnormal
            // forces keep a few bits, so a sticking force and its bound computed another way
            // may differ there by far more than the relative slack.
            let slack = |bound: f64| bound * (1.0 + 1e-12) + f64::MIN_POSITIVE;
            assert!(
                magnitude <= slack(static_friction),
                "{context}: sticking |f_t| = {magnitude} above mu_s*|f| = {static_friction}"
            );
            let f_t_max = value(Var::FTMax);
            assert!(
                f_t_max == 0.0 || magnitude <= slack(f_t_max),
                "{context}: |f_t| = {magnitude} above f_t_max = {f_t_max}"
            );
        } else {
            Self::check_friction(context, f_t, v_t, value(Var::FTMax));
        }
        if contact_follows_motion {
            let ends = if law == ForceLaw::GapForce {
                (Some(value(Var::RangeMin)), value(Var::RangeMax))
            } else {
                (None, value(Var::SRel0))
            };
            self.check_contact(
                context,
                value(Var::SRel),
                value(Var::VRel),
                ends,
                value(Var::SRef),
            );
        }
        Some(Snapshot {
            // With an effective mass, given or estimated, f_mean carries the momentum-free
            // position correction, which may pull.
            coupled: value(Var::MEff) > 0.0 || value(Var::MEffEstimate) > 0.0,
            pulls,
            f_mean: value(Var::FMean),
            e_loss: value(Var::ELoss),
            q_flow: value(Var::HeatPortQFlow),
        })
    }

    /// Friction opposes the slip in the tangential plane, along it, and keeps to its bound.
    fn check_friction(context: &str, f_t: [f64; 2], v_t: [f64; 2], f_t_max: f64) {
        let magnitude = f_t[0].hypot(f_t[1]);
        // Compared as directions, scaled first: slips near the largest double overflow products.
        let direction = |x: [f64; 2]| {
            let largest = x[0].abs().max(x[1].abs());
            let scaled = x.map(|c| c / largest);
            let norm = scaled[0].hypot(scaled[1]);
            scaled.map(|c| c / norm)
        };
        if magnitude > 0.0 && v_t != [0.0, 0.0] {
            let (force, slip) = (direction(f_t), direction(v_t));
            assert!(
                force[0] * slip[0] + force[1] * slip[1] >= 0.0,
                "{context}: f_t = {f_t:?} drives v_t = {v_t:?}"
            );
            let across = force[0] * slip[1] - force[1] * slip[0];
            // A subnormal force keeps fewer bits: each of its few roundings may move a component
            // by up to the least subnormal, which turns its direction by that over its magnitude.
            let rounding = 16.0 * f64::from_bits(1) / magnitude;
            assert!(
                across.abs() <= 1e-9 + rounding,
                "{context}: f_t = {f_t:?} not along v_t = {v_t:?}"
            );
        }
        assert!(
            f_t_max == 0.0 || magnitude <= f_t_max * (1.0 + 1e-12),
            "{context}: |f_t| = {magnitude} above f_t_max = {f_t_max}"
        );
    }

    /// `contact` agrees with the motion `s_rel` and the contact range `(lower, upper)` read with it
    /// (contact while `lower < s_rel < upper`; the one-sided laws: `s_rel < s_rel0`). In Model
    /// Exchange an event lands on a located root, a rounding error on either side of an end: within
    /// 1e-9 (relative) of it the direction of motion decides.
    fn check_contact(
        &self,
        context: &str,
        s_rel: f64,
        v_rel: f64,
        (lower, upper): (Option<f64>, f64),
        s_ref: f64,
    ) {
        let vr = [by_var(Var::Contact).value_reference];
        let mut contact = [0];
        let status = self.call("fmi2GetBoolean", |c| unsafe {
            fmi2GetBoolean(c, vr.as_ptr(), 1, contact.as_mut_ptr())
        });
        if status != OK {
            return;
        }
        // The nearer end, and whether moving towards the inside means v_rel < 0 there.
        let (end, inward_is_down) = match lower {
            Some(lower) if (s_rel - lower).abs() < (upper - s_rel).abs() => (lower, false),
            _ => (upper, true),
        };
        let at_root = self.model_exchange
            && (s_rel - end).abs() <= 1e-9 * s_ref.max(end.abs()).max(s_rel.abs());
        let expected = if at_root {
            if inward_is_down {
                v_rel < 0.0
            } else {
                v_rel > 0.0
            }
        } else {
            lower.is_none_or(|lower| lower < s_rel) && s_rel < upper
        };
        assert_eq!(
            contact[0] != 0,
            expected,
            "{context}: contact = {} but s_rel = {s_rel}, v_rel = {v_rel}, range {lower:?} to {upper}",
            contact[0]
        );
    }

    /// Whether the simulation runs (initialization ended, parameters checked), asked in a way each
    /// interface answers without side effects on success: co-simulation by its status query,
    /// Model Exchange by the derivatives, which are also checked.
    pub fn running(&self) -> bool {
        if !self.model_exchange {
            return self.time().is_some();
        }
        self.derivatives().is_some()
    }

    /// Model Exchange: the state derivatives, checked, if fmi2GetDerivatives returns fmi2OK.
    pub fn derivatives(&self) -> Option<[f64; STATES.len()]> {
        let mut values = [f64::NAN; STATES.len()];
        let status = self.call("fmi2GetDerivatives", |c| unsafe {
            fmi2GetDerivatives(c, values.as_mut_ptr(), values.len())
        });
        (status == OK).then(|| {
            self.check_derivatives("fmi2GetDerivatives", &values);
            values
        })
    }

    /// Checks what fmi2GetDerivatives returned with fmi2OK: the state is the dissipated energy,
    /// so its derivative is `lossPower` at the same point, never negative.
    pub fn check_derivatives(&self, context: &str, derivatives: &[f64]) {
        assert_eq!(
            derivatives.len(),
            STATES.len(),
            "{context}: an OK call with a wrong nx"
        );
        assert!(
            derivatives.iter().all(|x| x.is_finite()),
            "{context}: fmi2GetDerivatives returned fmi2OK with {derivatives:?}"
        );
        let loss_power = self
            .get_real(Var::LossPower)
            .expect("lossPower is readable wherever the derivatives are");
        let position = STATES
            .iter()
            .position(|(state, _)| *state == Var::ELoss)
            .expect("E_loss is a state");
        let der_e_loss = derivatives[position];
        assert!(
            der_e_loss == loss_power,
            "{context}: der(E_loss) = {der_e_loss} but lossPower = {loss_power}"
        );
        assert!(
            der_e_loss >= 0.0,
            "{context}: der(E_loss) = {der_e_loss} < 0"
        );
    }

    /// Checks what fmi2GetContinuousStates returned with fmi2OK: finite and the value of E_loss.
    pub fn check_continuous_states(&self, context: &str, states: &[f64]) {
        assert_eq!(
            states.len(),
            STATES.len(),
            "{context}: an OK call with a wrong nx"
        );
        assert!(
            states.iter().all(|x| x.is_finite()),
            "{context}: fmi2GetContinuousStates returned fmi2OK with {states:?}"
        );
        self.check_states_read_back(context, states);
    }

    /// The states set or returned are what fmi2GetReal reads for the state variables.
    pub fn check_states_read_back(&self, context: &str, states: &[f64]) {
        for ((state, _), x) in STATES.iter().zip(states) {
            if let Some(read) = self.get_real(*state) {
                assert!(
                    read == *x,
                    "{context}: the state {} is {x}, but fmi2GetReal reads {read}",
                    by_var(*state).name
                );
            }
        }
    }

    /// Checks an fmi2EventInfo filled with fmi2OK, then the outputs of the event: the model has no
    /// discrete state that feeds back and no time events, so one pass settles it, and `contact`
    /// now follows the motion. Only stick-slip's deformation may jump (set along the slip where
    /// slipping turns to sticking, onto the circle, or released out of contact): then it is
    /// within the circle, or 0 (out of contact, or without stick-slip).
    pub fn check_event(&self, context: &str, info: &fmi2EventInfo) {
        let flags = [
            info.newDiscreteStatesNeeded,
            info.terminateSimulation,
            info.nominalsOfContinuousStatesChanged,
            info.nextEventTimeDefined,
        ];
        assert!(
            flags.iter().all(|flag| *flag == 0),
            "{context}: fmi2NewDiscreteStates returned fmi2OK with the flags {flags:?} (all must be fmi2False)"
        );
        if info.valuesOfContinuousStatesChanged != 0 {
            let delta = self.get_real(Var::MaxStictionDeformation).unwrap_or(0.0);
            let xi = [Var::XiX, Var::XiY].map(|var| self.get_real(var).unwrap_or(f64::NAN));
            let released = xi == [0.0, 0.0];
            assert!(
                released || (delta > 0.0 && xi[0].hypot(xi[1]) <= delta * (1.0 + 1e-12)),
                "{context}: the states jumped to a stiction deformation {xi:?} (maxStictionDeformation {delta})"
            );
        }
        self.check_outputs_where(context, true);
    }
}

/// Checks an array of Reals a Model Exchange call returned with fmi2OK: finite, and for nominals
/// positive (FMI 2.0, 3.2.2: a nominal is > 0).
pub fn check_returned_array(call: &str, values: &[f64], positive: bool) {
    assert!(
        values
            .iter()
            .all(|x| x.is_finite() && (!positive || *x > 0.0)),
        "{call} returned fmi2OK with {values:?}"
    );
}

/// The step results read after a call, to compare across steps.
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    pub coupled: bool,
    /// The force law may pull (SpringDamper, RecurDynContact).
    pub pulls: bool,
    pub f_mean: f64,
    pub e_loss: f64,
    pub q_flow: f64,
}

/// Checks what a successful step must have produced, given the outputs read before it.
pub fn check_step(before: Option<Snapshot>, after: Snapshot, h: f64) {
    assert!(
        after.coupled || after.pulls || after.f_mean <= 0.0,
        "f_mean = {} > 0 after a step of {h} without an effective mass, under a law that never pulls",
        after.f_mean
    );
    assert!(
        after.q_flow <= 0.0,
        "heatPort.Q_flow = {} > 0 after a step of {h} (heat only leaves the gap)",
        after.q_flow
    );
    if let Some(before) = before {
        assert!(
            after.e_loss >= before.e_loss,
            "E_loss fell from {} to {} over a step of {h}",
            before.e_loss,
            after.e_loss
        );
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the component is live; it is freed exactly once, here.
        unsafe { fmi2FreeInstance(self.component) };
        take_log();
    }
}
