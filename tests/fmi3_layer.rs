//! The FMI 3.0 layer called in-process (the library linked as an rlib): co-simulation with early
//! return, event mode and the intermediate update on a falling mass (the MSL example's motion,
//! without the spring: a body dropped onto a fixed housing), the plain step bit-identical to the
//! FMI 2.0 layer's, Model Exchange, and refusals of wrong calls without a crash.

use std::cell::{Cell, RefCell};
use std::ffi::{c_char, CStr, CString};
use std::ptr::{null, null_mut};

use elastogap::fmi3::*;
use elastogap::variables::{by_var, Causality, Kind, Var, VARIABLES};
use fmi_sys::fmi3::{fmi3Boolean, fmi3Float64, fmi3Instance, fmi3InstanceEnvironment, fmi3Status};

#[path = "support/random.rs"]
mod random;
use random::Random;

const OK: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3OK;
const ERROR: fmi3Status = fmi_sys::fmi3::fmi3Status_fmi3Error;

const G: f64 = 9.81;
/// The body's height over the housing when dropped at rest at t = 0.
const S0: f64 = 0.1;
const H: f64 = 0.01;

fn vr(var: Var) -> u32 {
    by_var(var).value_reference
}

/// One call of the intermediateUpdate callback, and what the instance gave inside it.
#[derive(Clone, Copy, Debug)]
struct Update {
    time: f64,
    set_requested: bool,
    get_allowed: bool,
    step_finished: bool,
    can_return_early: bool,
    time_got: f64,
    contact_got: bool,
}

/// The instanceEnvironment of every test instance: the logger and the callback find it again.
struct Recorder {
    mark: u64,
    instance: Cell<fmi3Instance>,
    messages: RefCell<Vec<(fmi3Status, String, String)>>,
    updates: RefCell<Vec<Update>>,
}

const MARK: u64 = 0x5445_5354_454e_5631;

impl Recorder {
    fn new() -> Box<Recorder> {
        Box::new(Recorder {
            mark: MARK,
            instance: Cell::new(null_mut()),
            messages: RefCell::new(Vec::new()),
            updates: RefCell::new(Vec::new()),
        })
    }

    fn environment(&self) -> fmi3InstanceEnvironment {
        (self as *const Recorder).cast_mut().cast()
    }

    fn logged(&self, text: &str) -> bool {
        self.messages
            .borrow()
            .iter()
            .any(|(_, _, m)| m.contains(text))
    }
}

/// # Safety
/// `environment` is a live `Recorder` (the instance hands it back unchanged).
unsafe fn recorder<'a>(environment: fmi3InstanceEnvironment) -> &'a Recorder {
    let recorder = unsafe { &*environment.cast::<Recorder>() };
    assert_eq!(recorder.mark, MARK, "instanceEnvironment came back changed");
    recorder
}

unsafe extern "C" fn log_message(
    environment: fmi3InstanceEnvironment,
    status: fmi3Status,
    category: *const c_char,
    message: *const c_char,
) {
    assert!(!category.is_null(), "a NULL category");
    assert!(!message.is_null(), "a NULL message");
    let recorder = unsafe { recorder(environment) };
    let category = unsafe { CStr::from_ptr(category) }
        .to_string_lossy()
        .into_owned();
    let message = unsafe { CStr::from_ptr(message) }
        .to_string_lossy()
        .into_owned();
    recorder
        .messages
        .borrow_mut()
        .push((status, category, message));
}

#[allow(clippy::too_many_arguments, non_snake_case)]
unsafe extern "C" fn intermediate_update(
    environment: fmi3InstanceEnvironment,
    intermediateUpdateTime: fmi3Float64,
    intermediateVariableSetRequested: fmi3Boolean,
    intermediateVariableGetAllowed: fmi3Boolean,
    intermediateStepFinished: fmi3Boolean,
    canReturnEarly: fmi3Boolean,
    earlyReturnRequested: *mut fmi3Boolean,
    earlyReturnTime: *mut fmi3Float64,
) {
    let recorder = unsafe { recorder(environment) };
    let instance = recorder.instance.get();
    // Calls back into the instance, as a master reading the intermediate values does.
    let mut time_got = f64::NAN;
    let mut contact_got = true;
    unsafe {
        assert_eq!(
            fmi3GetFloat64(instance, &vr(Var::Time), 1, &mut time_got, 1),
            OK
        );
        assert_eq!(
            fmi3GetBoolean(instance, &vr(Var::Contact), 1, &mut contact_got, 1),
            OK
        );
        *earlyReturnRequested = false;
        *earlyReturnTime = intermediateUpdateTime;
    }
    recorder.updates.borrow_mut().push(Update {
        time: intermediateUpdateTime,
        set_requested: intermediateVariableSetRequested,
        get_allowed: intermediateVariableGetAllowed,
        step_finished: intermediateStepFinished,
        can_return_early: canReturnEarly,
        time_got,
        contact_got,
    });
}

fn token() -> CString {
    CString::new(elastogap::GUID).unwrap()
}

/// A co-simulation instance logging to `recorder`.
fn co_simulation(
    recorder: &Recorder,
    event_mode_used: bool,
    early_return_allowed: bool,
    with_callback: bool,
) -> fmi3Instance {
    let token = token();
    let instance = unsafe {
        fmi3InstantiateCoSimulation(
            c"falling mass".as_ptr(),
            token.as_ptr(),
            null(),
            false,
            false,
            event_mode_used,
            early_return_allowed,
            null(),
            0,
            recorder.environment(),
            Some(log_message),
            if with_callback {
                Some(intermediate_update)
            } else {
                None
            },
        )
    };
    assert!(!instance.is_null());
    recorder.instance.set(instance);
    instance
}

/// Initialized with c = 1e4, d = 20 (the housing's contact), the body on flange_b, the housing
/// (flange_a) at rest at 0.
fn initialize(instance: fmi3Instance) {
    initialize_holding(instance, None);
}

/// [`initialize`] with `heldForce` = None: the master prescribes the motion.
fn initialize_prescribed(instance: fmi3Instance) {
    let none = elastogap::variables::HELD_FORCE
        .items
        .iter()
        .position(|(name, _)| *name == "None")
        .expect("heldForce None") as i64
        + 1;
    initialize_holding(instance, Some(none));
}

/// [`initialize`], with `heldForce` set to `held` where given.
fn initialize_holding(instance: fmi3Instance, held: Option<i64>) {
    unsafe {
        assert_eq!(
            fmi3EnterInitializationMode(instance, false, 0.0, 0.0, false, 0.0),
            OK
        );
        let parameters = [vr(Var::C), vr(Var::D)];
        assert_eq!(
            fmi3SetFloat64(instance, parameters.as_ptr(), 2, [1e4, 20.0].as_ptr(), 2),
            OK
        );
        if let Some(held) = held {
            assert_eq!(fmi3SetInt64(instance, &vr(Var::HeldForce), 1, &held, 1), OK);
        }
        assert_eq!(fmi3ExitInitializationMode(instance), OK);
    }
}

fn set_motion(instance: fmi3Instance, s: f64, v: f64) {
    let inputs = [vr(Var::FlangeBS), vr(Var::FlangeBV)];
    unsafe {
        assert_eq!(
            fmi3SetFloat64(instance, inputs.as_ptr(), 2, [s, v].as_ptr(), 2),
            OK
        );
    }
}

fn contact(instance: fmi3Instance) -> bool {
    let mut value = false;
    unsafe {
        assert_eq!(
            fmi3GetBoolean(instance, &vr(Var::Contact), 1, &mut value, 1),
            OK
        );
    }
    value
}

/// What fmi3DoStep returned besides its status.
#[derive(Debug, Default)]
struct StepResult {
    event_handling_needed: bool,
    terminate: bool,
    early_return: bool,
    last_successful_time: f64,
}

fn do_step(instance: fmi3Instance, t: f64, h: f64) -> StepResult {
    let mut r = StepResult::default();
    let status = unsafe {
        fmi3DoStep(
            instance,
            t,
            h,
            false,
            &mut r.event_handling_needed,
            &mut r.terminate,
            &mut r.early_return,
            &mut r.last_successful_time,
        )
    };
    assert_eq!(status, OK, "fmi3DoStep({t}, {h})");
    r
}

/// Event Mode entered and its discrete states updated: the five flags fmi3UpdateDiscreteStates
/// returns (discreteStatesNeedUpdate, terminateSimulation, nominalsOfContinuousStatesChanged,
/// valuesOfContinuousStatesChanged, nextEventTimeDefined).
fn take_event(instance: fmi3Instance) -> [bool; 5] {
    let mut flags = [true; 5];
    let mut next_event_time = f64::NAN;
    let [a, b, c, d, e] = &mut flags;
    unsafe {
        assert_eq!(fmi3EnterEventMode(instance), OK);
        assert_eq!(
            fmi3UpdateDiscreteStates(instance, a, b, c, d, e, &mut next_event_time),
            OK
        );
    }
    flags
}

/// The free fall's touch-down: s0 - g t^2 / 2 = 0.
fn touch_down() -> f64 {
    (2.0 * S0 / G).sqrt()
}

/// Steps the body in free fall on the grid k * H until a step returns early or `steps` ran;
/// the step that did and its start.
fn fall(instance: fmi3Instance, steps: usize) -> Option<(StepResult, f64)> {
    for k in 0..steps {
        let t = k as f64 * H;
        set_motion(instance, S0 - 0.5 * G * t * t, -G * t);
        let result = do_step(instance, t, H);
        assert!(!result.terminate);
        if result.early_return {
            return Some((result, t));
        }
        assert_eq!(result.last_successful_time, t + H);
        assert!(!result.event_handling_needed);
    }
    None
}

#[test]
fn early_return_stops_at_the_touch_down_and_event_mode_takes_the_switch() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, true, true, false);
    initialize(instance);
    unsafe { assert_eq!(fmi3EnterStepMode(instance), OK) };
    let (result, start) = fall(instance, 30).expect("an early return at the touch-down");
    // The FMU extrapolates the motion with the acceleration its inputs show (g, exactly
    // quadratic): the switch is the quadratic's crossing.
    let expected = touch_down();
    assert!(start < expected && expected < start + H);
    assert!(
        (result.last_successful_time - expected).abs() < 1e-9,
        "returned at {}, the touch-down is at {expected}",
        result.last_successful_time
    );
    assert!(result.event_handling_needed);
    assert!(
        !contact(instance),
        "contact takes its new value in event mode"
    );
    assert_eq!(take_event(instance), [false; 5]);
    assert!(contact(instance), "contact after the switch");
    unsafe { assert_eq!(fmi3EnterStepMode(instance), OK) };
    // The step on from the switch does not stop at it again.
    let t = result.last_successful_time;
    set_motion(instance, S0 - 0.5 * G * t * t, -G * t);
    let next = do_step(instance, t, start + 2.0 * H - t);
    assert!(!next.early_return);
    assert_eq!(next.last_successful_time, t + (start + 2.0 * H - t));
    assert!(contact(instance));
    unsafe { fmi3FreeInstance(instance) };
}

/// A state taken at an early return, before Event Mode, holds `contact` as it read before the
/// switch: serialized and restored, it reads so again, and Event Mode takes the switch. (FMI 2.0,
/// whose steps never return early, refuses such a state: `deserialize-latched-contact`.)
#[test]
fn a_state_taken_at_an_early_return_keeps_the_switch_to_take() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, true, true, false);
    initialize(instance);
    unsafe {
        assert_eq!(fmi3EnterStepMode(instance), OK);
        fall(instance, 30).expect("an early return at the touch-down");
        let mut state = null_mut();
        assert_eq!(fmi3GetFMUState(instance, &mut state), OK);
        let mut bytes = vec![0u8; elastogap::snapshot::SERIALIZED_SIZE];
        let size = bytes.len();
        assert_eq!(
            fmi3SerializeFMUState(instance, state, bytes.as_mut_ptr(), size),
            OK
        );
        let latch = elastogap::snapshot::HEADER_SIZE + 8 * elastogap::snapshot::CONTACT_LATCH_SLOT;
        assert_eq!(
            bytes[latch..latch + 8],
            1.0f64.to_le_bytes(),
            "latched false"
        );
        take_event(instance);
        assert!(contact(instance));
        let mut copy = null_mut();
        assert_eq!(
            fmi3DeserializeFMUState(instance, bytes.as_ptr(), size, &mut copy),
            OK
        );
        assert_eq!(fmi3SetFMUState(instance, copy), OK);
        assert!(!contact(instance), "contact as it read before the switch");
        take_event(instance);
        assert!(contact(instance), "contact after the switch, taken again");
        assert_eq!(fmi3FreeFMUState(instance, &mut state), OK);
        assert_eq!(fmi3FreeFMUState(instance, &mut copy), OK);
        fmi3FreeInstance(instance);
    }
}

/// Along a prescribed motion (`heldForce` = None, the inputs set before every step) a step with
/// early return allowed stops where the motion crosses the contact's end, going in and coming
/// out, and nowhere else: drawn depths, speeds and steps, the motion at a constant speed so that
/// the crossing is known exactly.
#[test]
fn a_prescribed_motion_returns_early_at_its_crossing_and_nowhere_else() {
    let mut random = Random(0x0047_5eed);
    for case in 0..60 {
        let speed = random.log_uniform(0.01, 3.0);
        let h = random.log_uniform(1e-4, 3e-2);
        let distance = speed * h * random.log_uniform(0.6, 40.0);
        let entering = case % 2 == 0;
        // From `distance` outside closing, or from `distance` inside opening.
        let (s0, v) = if entering {
            (distance, -speed)
        } else {
            (-distance, speed)
        };
        let crossing = distance / speed;
        let recorder = Recorder::new();
        let instance = co_simulation(&recorder, true, true, false);
        initialize_prescribed(instance);
        unsafe { assert_eq!(fmi3EnterStepMode(instance), OK) };
        let mut k = 0;
        let returned = loop {
            let t = k as f64 * h;
            set_motion(instance, s0 + v * t, v);
            let result = do_step(instance, t, h);
            if result.early_return {
                break result.last_successful_time;
            }
            assert!(
                t + h <= crossing * (1.0 + 1e-9),
                "case {case}: the step from {t} over {h} holds the crossing at {crossing} and ran whole"
            );
            k += 1;
        };
        assert!(
            (returned - crossing).abs() <= 1e-9 * crossing,
            "case {case}: returned at {returned}, the motion crosses at {crossing}"
        );
        unsafe { fmi3FreeInstance(instance) };
    }
}

#[test]
fn the_intermediate_update_is_called_at_the_switch_and_the_step_goes_on() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, false, false, true);
    initialize(instance);
    assert!(
        fall(instance, 20).is_none(),
        "no early return when it is not allowed"
    );
    let updates = recorder.updates.borrow().clone();
    // The first switch of the step (the touch-down); the step then goes on to its end.
    assert_eq!(
        updates.len(),
        1,
        "one call per step with a switch: {updates:?}"
    );
    let update = updates[0];
    assert!((update.time - touch_down()).abs() < 1e-9, "{update:?}");
    assert!(!update.set_requested && update.get_allowed && update.step_finished);
    assert!(!update.can_return_early);
    assert_eq!(
        update.time_got, update.time,
        "fmi3GetFloat64 of time in the callback"
    );
    assert!(
        !update.contact_got,
        "contact before the switch at the switch"
    );
    assert!(contact(instance));
    // Going on, the step is the plain one: the same run without the callback ends the same.
    let plain_recorder = Recorder::new();
    let plain = co_simulation(&plain_recorder, false, false, false);
    initialize(plain);
    assert!(fall(plain, 20).is_none());
    assert_eq!(outputs_fmi3(instance), outputs_fmi3(plain));
    unsafe {
        fmi3FreeInstance(instance);
        fmi3FreeInstance(plain);
    }
}

#[test]
fn with_early_return_allowed_the_intermediate_update_comes_before_the_return() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, false, true, true);
    initialize(instance);
    let (result, _) = fall(instance, 30).expect("an early return");
    assert!(!result.event_handling_needed, "event mode is not used");
    let updates = recorder.updates.borrow().clone();
    assert_eq!(updates.len(), 1);
    assert!(updates[0].can_return_early);
    assert_eq!(updates[0].time, result.last_successful_time);
    unsafe { fmi3FreeInstance(instance) };
}

/// The Real outputs and `contact`, as bits.
fn outputs_fmi3(instance: fmi3Instance) -> Vec<u64> {
    let mut out = Vec::new();
    for v in VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Output)
    {
        let mut x = 0.0;
        let mut b = false;
        let status = unsafe {
            match v.kind {
                Kind::Real => fmi3GetFloat64(instance, &v.value_reference, 1, &mut x, 1),
                _ => fmi3GetBoolean(instance, &v.value_reference, 1, &mut b, 1),
            }
        };
        assert_eq!(status, OK, "{}", v.name);
        out.push(if v.kind == Kind::Real {
            x.to_bits()
        } else {
            u64::from(b)
        });
    }
    out
}

#[cfg(feature = "fmi2")]
fn outputs_fmi2(c: fmi_sys::fmi2::fmi2Component) -> Vec<u64> {
    use elastogap::fmi2::{fmi2GetBoolean, fmi2GetReal};
    let mut out = Vec::new();
    for v in VARIABLES
        .iter()
        .filter(|v| v.causality == Causality::Output)
    {
        let mut x = 0.0;
        let mut b = 0;
        let status = unsafe {
            match v.kind {
                Kind::Real => fmi2GetReal(c, &v.value_reference, 1, &mut x),
                _ => fmi2GetBoolean(c, &v.value_reference, 1, &mut b),
            }
        };
        assert_eq!(status, 0, "{}", v.name);
        out.push(if v.kind == Kind::Real {
            x.to_bits()
        } else {
            b as u64
        });
    }
    out
}

/// Without early return and intermediate update the step is FMI 2's, bit for bit: the body
/// dropped onto the housing, bouncing under the FMU's f_mean.
#[cfg(feature = "fmi2")]
#[test]
fn the_plain_step_is_bit_identical_to_the_fmi2_layers() {
    use elastogap::fmi2::*;
    let recorder = Recorder::new();
    let three = co_simulation(&recorder, false, false, false);
    initialize(three);
    let callbacks = fmi_sys::fmi2::fmi2CallbackFunctions {
        logger: None,
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: null_mut(),
    };
    let guid = token();
    let two = unsafe {
        fmi2Instantiate(
            c"falling mass".as_ptr(),
            fmi_sys::fmi2::fmi2Type_fmi2CoSimulation,
            guid.as_ptr(),
            null(),
            &callbacks,
            0,
            0,
        )
    };
    assert!(!two.is_null());
    let parameters = [vr(Var::C), vr(Var::D)];
    unsafe {
        assert_eq!(fmi2SetupExperiment(two, 0, 0.0, 0.0, 0, 0.0), 0);
        assert_eq!(fmi2EnterInitializationMode(two), 0);
        assert_eq!(
            fmi2SetReal(two, parameters.as_ptr(), 2, [1e4, 20.0].as_ptr()),
            0
        );
        assert_eq!(fmi2ExitInitializationMode(two), 0);
    }
    let (mut s, mut v, mass) = (S0, 0.0, 1.0);
    let mut contacts = 0;
    for k in 0..60 {
        let t = k as f64 * H;
        let inputs = [vr(Var::FlangeBS), vr(Var::FlangeBV)];
        set_motion(three, s, v);
        unsafe {
            assert_eq!(fmi2SetReal(two, inputs.as_ptr(), 2, [s, v].as_ptr()), 0);
            assert_eq!(fmi2DoStep(two, t, H, 1), 0);
        }
        let result = do_step(three, t, H);
        assert!(!result.early_return && !result.event_handling_needed);
        let (o2, o3) = (outputs_fmi2(two), outputs_fmi3(three));
        assert_eq!(o2, o3, "step {k}");
        let mut f = 0.0;
        unsafe { assert_eq!(fmi3GetFloat64(three, &vr(Var::FMean), 1, &mut f, 1), OK) };
        contacts += usize::from(contact(three));
        // The body under gravity and the contact force over the step.
        let a = -G - f / mass;
        s += H * (v + 0.5 * H * a);
        v += H * a;
    }
    assert!(contacts > 0, "the run reaches the contact");
    unsafe {
        fmi2FreeInstance(two);
        fmi3FreeInstance(three);
    }
}

#[test]
fn model_exchange_evaluates_states_indicators_and_events() {
    let recorder = Recorder::new();
    let token = token();
    let instance = unsafe {
        fmi3InstantiateModelExchange(
            c"me".as_ptr(),
            token.as_ptr(),
            c"/tmp/".as_ptr(),
            false,
            false,
            recorder.environment(),
            Some(log_message),
        )
    };
    assert!(!instance.is_null());
    unsafe {
        let (mut nx, mut nz) = (0, 0);
        assert_eq!(fmi3GetNumberOfContinuousStates(instance, &mut nx), OK);
        assert_eq!(fmi3GetNumberOfEventIndicators(instance, &mut nz), OK);
        assert_eq!((nx, nz), (3, 4));
        initialize(instance);
        let mut flags = [true; 5];
        let mut next = 0.0;
        let [a, b, c, d, e] = &mut flags;
        assert_eq!(
            fmi3UpdateDiscreteStates(instance, a, b, c, d, e, &mut next),
            OK
        );
        assert_eq!(fmi3EnterContinuousTimeMode(instance), OK);
        assert_eq!(fmi3SetTime(instance, 0.5), OK);
        // Pressed into the housing by 1 mm, moving in at 0.1 m/s: the damper dissipates.
        set_motion(instance, -1e-3, -0.1);
        let mut x = [f64::NAN; 3];
        assert_eq!(fmi3GetContinuousStates(instance, x.as_mut_ptr(), 3), OK);
        assert_eq!(fmi3SetContinuousStates(instance, x.as_ptr(), 3), OK);
        let mut dx = [f64::NAN; 3];
        assert_eq!(
            fmi3GetContinuousStateDerivatives(instance, dx.as_mut_ptr(), 3),
            OK
        );
        assert!(dx[0] > 0.0, "lossPower in contact: {dx:?}");
        let mut z = [f64::NAN; 4];
        assert_eq!(fmi3GetEventIndicators(instance, z.as_mut_ptr(), 4), OK);
        assert!(z.iter().all(|z| z.is_finite()));
        let mut indicator = f64::NAN;
        assert_eq!(
            fmi3GetFloat64(instance, &vr(Var::IndicatorContact), 1, &mut indicator, 1),
            OK
        );
        assert_eq!(indicator, z[0], "the indicator variable is the indicator");
        let mut nominals = [0.0; 3];
        assert_eq!(
            fmi3GetNominalsOfContinuousStates(instance, nominals.as_mut_ptr(), 3),
            OK
        );
        assert_eq!(nominals, [1.0; 3]);
        let (mut enter, mut terminate) = (true, true);
        assert_eq!(
            fmi3CompletedIntegratorStep(instance, true, &mut enter, &mut terminate),
            OK
        );
        assert!(!enter && !terminate);
        // The contact started since the last event: Event Mode takes it.
        assert_eq!(fmi3EnterEventMode(instance), OK);
        assert_eq!(
            fmi3UpdateDiscreteStates(instance, a, b, c, d, e, &mut next),
            OK
        );
        assert!(contact(instance));
        // A directional derivative: d f / d flange_b.s is the contact's stiffness.
        let mut df = f64::NAN;
        let status = fmi3GetDirectionalDerivative(
            instance,
            &vr(Var::F),
            1,
            &vr(Var::FlangeBS),
            1,
            &1.0,
            1,
            &mut df,
            1,
        );
        assert_eq!(status, OK);
        assert!(df.abs() > 0.0);
        // Time and the indicators have no partial derivatives.
        let status = fmi3GetDirectionalDerivative(
            instance,
            &vr(Var::IndicatorContact),
            1,
            &vr(Var::FlangeBS),
            1,
            &1.0,
            1,
            &mut df,
            1,
        );
        assert_eq!(status, ERROR);
        fmi3FreeInstance(instance);
    }
}

#[test]
fn fmu_states_serialize_as_in_fmi2_and_restore() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, false, false, false);
    initialize(instance);
    unsafe {
        set_motion(instance, 0.01, -1.0);
        do_step(instance, 0.0, H);
        let mut state = null_mut();
        assert_eq!(fmi3GetFMUState(instance, &mut state), OK);
        let mut size = 0;
        assert_eq!(fmi3SerializedFMUStateSize(instance, state, &mut size), OK);
        assert_eq!(size, elastogap::snapshot::SERIALIZED_SIZE);
        let mut bytes = vec![0u8; size];
        assert_eq!(
            fmi3SerializeFMUState(instance, state, bytes.as_mut_ptr(), size),
            OK
        );
        let before = outputs_fmi3(instance);
        set_motion(instance, -0.01, -1.0);
        do_step(instance, H, H);
        assert_ne!(outputs_fmi3(instance), before);
        let mut copy = null_mut();
        assert_eq!(
            fmi3DeserializeFMUState(instance, bytes.as_ptr(), size, &mut copy),
            OK
        );
        assert_eq!(fmi3SetFMUState(instance, copy), OK);
        assert_eq!(outputs_fmi3(instance), before);
        assert_eq!(fmi3FreeFMUState(instance, &mut state), OK);
        assert_eq!(fmi3FreeFMUState(instance, &mut copy), OK);
        assert!(state.is_null() && copy.is_null());
        fmi3FreeInstance(instance);
    }
}

#[test]
fn a_wrong_instantiation_token_gives_null_and_says_why() {
    let recorder = Recorder::new();
    for token in [Some(c"{00000000-0000-0000-0000-000000000000}"), None] {
        let instance = unsafe {
            fmi3InstantiateCoSimulation(
                c"x".as_ptr(),
                token.map_or(null(), CStr::as_ptr),
                null(),
                false,
                false,
                false,
                false,
                null(),
                0,
                recorder.environment(),
                Some(log_message),
                None,
            )
        };
        assert!(instance.is_null());
    }
    let messages = recorder.messages.borrow();
    assert_eq!(messages.len(), 2);
    assert!(messages
        .iter()
        .all(|(status, category, message)| *status == ERROR
            && category == "logStatusError"
            && message.contains("wrong instantiationToken")));
    let scheduled = unsafe {
        let token = token();
        fmi3InstantiateScheduledExecution(
            c"x".as_ptr(),
            token.as_ptr(),
            null(),
            false,
            false,
            null_mut(),
            None,
            None,
            None,
            None,
        )
    };
    assert!(scheduled.is_null());
    let version = unsafe { CStr::from_ptr(fmi3GetVersion()) };
    assert_eq!(version, c"3.0");
}

#[test]
fn wrong_calls_and_null_pointers_are_errors_not_crashes() {
    let recorder = Recorder::new();
    let instance = co_simulation(&recorder, false, false, false);
    let mut flag = false;
    let mut time = 0.0;
    unsafe {
        // No instance.
        assert_eq!(
            fmi3DoStep(
                null_mut(),
                0.0,
                H,
                false,
                &mut flag,
                &mut flag,
                &mut flag,
                &mut time
            ),
            ERROR
        );
        assert_eq!(fmi3Terminate(null_mut()), ERROR);
        fmi3FreeInstance(null_mut());
        // Before initialization.
        assert_eq!(
            fmi3DoStep(instance, 0.0, H, false, &mut flag, &mut flag, &mut flag, &mut time),
            ERROR
        );
        assert!(recorder.logged("fmi3DoStep: not allowed in state Instantiated"));
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        // Model Exchange functions on a co-simulation instance; event mode not asked for.
        assert_eq!(fmi3EnterContinuousTimeMode(instance), ERROR);
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        assert_eq!(fmi3EnterEventMode(instance), ERROR);
        assert!(recorder.logged("eventModeUsed = false"));
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        // NULL out-parameters and arrays.
        assert_eq!(
            fmi3DoStep(
                instance,
                0.0,
                H,
                false,
                null_mut(),
                &mut flag,
                &mut flag,
                &mut time
            ),
            ERROR
        );
        assert!(recorder.logged("eventHandlingNeeded is NULL"));
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        assert_eq!(
            fmi3GetFloat64(instance, &vr(Var::F), 1, null_mut(), 1),
            ERROR
        );
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        assert_eq!(fmi3GetFloat64(instance, null(), 1, &mut time, 1), ERROR);
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        // A type the FMU has no variable of: fine when empty, an error with a value reference.
        assert_eq!(fmi3GetFloat32(instance, null(), 0, null_mut(), 0), OK);
        let mut x32 = 0.0f32;
        assert_eq!(fmi3GetFloat32(instance, &vr(Var::F), 1, &mut x32, 1), ERROR);
        assert!(recorder.logged("is not of type Float32"));
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        // An Enumeration through Int64, not Int32.
        let mut law = 0i64;
        assert_eq!(
            fmi3GetInt64(instance, &vr(Var::ForceLaw), 1, &mut law, 1),
            OK
        );
        assert!(law >= 1);
        let mut law32 = 0i32;
        assert_eq!(
            fmi3GetInt32(instance, &vr(Var::ForceLaw), 1, &mut law32, 1),
            ERROR
        );
        assert_eq!(fmi3Reset(instance), OK);
        initialize(instance);
        // The unsupported features.
        assert_eq!(fmi3EvaluateDiscreteStates(instance), ERROR);
        assert!(recorder.logged("fmi3EvaluateDiscreteStates: not supported"));
        // Every message had a category (the logger asserts it) and came with the recorder.
        assert!(recorder
            .messages
            .borrow()
            .iter()
            .all(|(status, category, _)| *status != ERROR || category == "logStatusError"));
        fmi3FreeInstance(instance);
    }
}
