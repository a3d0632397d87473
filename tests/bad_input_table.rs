//! The bad-input tables of `docs/bad-input.md`, executed. Every row of its tables names a
//! case by its key; this file runs that case through the packaged FMU (the test importer in
//! `tests/support`) and checks what the row promises: the returned status, the logged message and
//! the state the instance is left in, then that a legal call from that state succeeds. A row
//! without a case and a case without a row both fail the test, so the table and the FMU cannot
//! drift apart.
//!
//! Every instance here has `loggingOn = fmi2False`: the table says errors are logged regardless.

mod support;

use std::collections::BTreeSet;
use std::ffi::{c_char, CString};
use std::ptr;
use std::sync::Arc;

use elastogap::variables::{by_var, Kind, Var};
use fmi_sys::fmi2;
use support::{
    ok, vr, Fmu, FmuState, Instance, InstantiateOptions, LogRecord, ResourceUri, Status,
};

// ---------------------------------------------------------------------------------------------
// The table side
// ---------------------------------------------------------------------------------------------

/// One row of a bad-input table, its cells as written (backslash-escaped pipes resolved).
#[derive(Debug)]
struct Row {
    line: usize,
    key: String,
    status: String,
    message: String,
    state: String,
}

fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|');
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(ch) = chars.next() {
        match ch {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            other => cells.last_mut().unwrap().push(other),
        }
    }
    cells.iter().map(|c| c.trim().to_string()).collect()
}

fn is_separator(line: &str) -> bool {
    let cells = split_cells(line);
    !cells.is_empty()
        && cells
            .iter()
            .all(|c| !c.is_empty() && c.chars().all(|ch| matches!(ch, '-' | ':')))
}

/// Where the tables are, relative to the crate.
const TABLE_FILE: &str = "docs/bad-input.md";

fn table_document() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/bad-input.md");
    std::fs::read_to_string(path).expect("docs/bad-input.md is readable")
}

/// The rows of every table in the `# Bad input` document. Columns are found by their
/// header, so they may be reordered.
fn bad_input_rows(document: &str) -> Vec<Row> {
    let lines: Vec<&str> = document.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.trim_end() == "# Bad input")
        .expect("docs/bad-input.md starts with '# Bad input'");
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("# ") || l.starts_with("## "))
        .map_or(lines.len(), |k| start + 1 + k);

    let mut rows = Vec::new();
    let mut k = start + 1;
    while k < end {
        let is_header =
            lines[k].trim_start().starts_with('|') && k + 1 < end && is_separator(lines[k + 1]);
        if !is_header {
            k += 1;
            continue;
        }
        let header = split_cells(lines[k]);
        let column = |prefix: &str| {
            header
                .iter()
                .position(|h| h.to_lowercase().starts_with(prefix))
                .unwrap_or_else(|| {
                    panic!(
                        "{TABLE_FILE}:{}: table header {header:?} has no column '{prefix}…'",
                        k + 1
                    )
                })
        };
        let (key, status, message, state) = (
            column("key"),
            column("status"),
            column("logged message"),
            column("state after"),
        );
        k += 2;
        while k < end && lines[k].trim_start().starts_with('|') {
            let cells = split_cells(lines[k]);
            assert_eq!(
                cells.len(),
                header.len(),
                "{TABLE_FILE}:{}: {} cells under a header of {}",
                k + 1,
                cells.len(),
                header.len()
            );
            rows.push(Row {
                line: k + 1,
                key: cells[key].trim_matches('`').to_string(),
                status: cells[status].clone(),
                message: cells[message].clone(),
                state: cells[state].clone(),
            });
            k += 1;
        }
    }
    rows
}

/// The text inside each pair of backticks.
fn code_spans(cell: &str) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// What the Status cell promises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Returned {
    Status(Status),
    /// `fmi2Instantiate` returned an instance (`true`) or NULL (`false`).
    Instance(bool),
}

fn expected_return(cell: &str) -> Result<Returned, String> {
    let text = cell.replace('`', "");
    let word = text
        .split_whitespace()
        .find(|w| !matches!(*w, "a" | "an"))
        .unwrap_or("");
    Ok(match word {
        "fmi2OK" => Returned::Status(Status::Ok),
        "fmi2Warning" => Returned::Status(Status::Warning),
        "fmi2Discard" => Returned::Status(Status::Discard),
        "fmi2Error" => Returned::Status(Status::Error),
        "fmi2Fatal" => Returned::Status(Status::Fatal),
        "NULL" => Returned::Instance(false),
        "instance" => Returned::Instance(true),
        other => return Err(format!("unknown status {other:?} in cell {cell:?}")),
    })
}

const STATES: [&str; 8] = [
    "Instantiated",
    "InitializationMode",
    "StepComplete",
    "EventMode",
    "ContinuousTimeMode",
    "Terminated",
    "Error",
    "Fatal",
];

/// The state the State-after cell names (its first word), or `None` for "no instance".
fn expected_state(cell: &str) -> Result<Option<&'static str>, String> {
    let word = cell
        .split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric());
    if word.is_empty() || word == "none" {
        return Ok(None);
    }
    STATES
        .iter()
        .find(|s| **s == word)
        .map(|s| Some(*s))
        .ok_or_else(|| format!("unknown state {word:?} in cell {cell:?}"))
}

// ---------------------------------------------------------------------------------------------
// The FMU side: driving an instance
// ---------------------------------------------------------------------------------------------

/// Sets `var` with the setter of its type (Integers and Booleans given as f64).
fn set(inst: &mut Instance, var: Var, value: f64) -> Status {
    let reference = [vr(var)];
    match by_var(var).kind {
        Kind::Real => inst.set_real(&reference, &[value]),
        Kind::Integer => inst.set_integer(&reference, &[value as i32]),
        Kind::Boolean => inst.set_boolean(&reference, &[value != 0.0]),
        Kind::String => panic!("{var:?} is text: set it with set_string"),
    }
}

/// The motion the running instances are given: flange_b pushed into flange_a.
const INPUTS: [(Var, f64); 4] = [
    (Var::FlangeAS, 0.0),
    (Var::FlangeAV, 0.0),
    (Var::FlangeBS, -0.001),
    (Var::FlangeBV, -0.1),
];
const STEP: f64 = 0.01;

fn instantiated(_: &mut Instance) {}

fn initializing(inst: &mut Instance) {
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
}

/// Initialized with c = 1e4 and one step taken: the FMU's time is [`STEP`].
fn running(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP, false));
}

/// A Model Exchange instance initialized with c = 1e4 and the inputs of [`INPUTS`]: in Event Mode.
fn event_mode(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e4));
    initializing(inst);
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.exit_initialization_mode());
}

/// [`event_mode`], then on to Continuous-Time Mode.
fn continuous_time_mode(inst: &mut Instance) {
    event_mode(inst);
    ok(inst.new_discrete_states().0);
    ok(inst.enter_continuous_time_mode());
}

fn terminated(inst: &mut Instance) {
    running(inst);
    ok(inst.terminate());
}

/// Running, then put into the Error state by an unknown value reference.
fn failed(inst: &mut Instance) {
    running(inst);
    assert_eq!(inst.get_real(&[99]).0, Status::Error);
    inst.sink().take();
}

/// Initialized with parameters that each keep their rule, and a compression at which the spring
/// force exceeds the largest double: c*s_ref*10 with c = 1e308.
fn overflowing_force(inst: &mut Instance) {
    ok(set(inst, Var::C, 1e308));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -10.0));
}

/// Initialized so that the force is finite (-f_ref = -1e300 at a compression of s_ref) but its
/// slope n*f_ref/s_ref = 1e310 is not; the flanges approach each other.
fn overflowing_stiffness(inst: &mut Instance) {
    ok(set(inst, Var::FRef, 1e300));
    ok(set(inst, Var::SRef, 1e-10));
    initializing(inst);
    ok(inst.exit_initialization_mode());
    ok(set(inst, Var::FlangeBS, -1e-10));
    ok(set(inst, Var::FlangeBV, -1.0));
}

/// Sets `var` before initialization (accepted: parameters are checked when they take effect) and
/// returns the status of `fmi2ExitInitializationMode`.
fn exit_with(inst: &mut Instance, var: Var, value: f64) -> Status {
    ok(set(inst, var, value));
    initializing(inst);
    inst.exit_initialization_mode()
}

/// Writes a table file into the unpacked FMU's `resources/` folder, where a relative `tableFile`
/// is looked up.
fn write_table(fmu: &Arc<Fmu>, name: &str, text: &str) {
    std::fs::write(fmu.dir().join("resources").join(name), text)
        .expect("the unpacked FMU's resources folder is writable");
}

/// Chooses the Gap Force with `table` as its table file and returns the status of
/// `fmi2ExitInitializationMode`, where the file is read.
fn exit_gap_force_with_table(inst: &mut Instance, table: &str) -> Status {
    ok(set(inst, Var::ForceLaw, 7.0));
    ok(inst.set_string(&[vr(Var::TableFile)], &[table]));
    initializing(inst);
    inst.exit_initialization_mode()
}

/// A Gap Force with the FMU's example table, initialized and stepped once.
fn running_gap_force_with_table(inst: &mut Instance) {
    ok(exit_gap_force_with_table(inst, "gap_force_example.json"));
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP, false));
}

/// Sets a tunable `var` while running; when refused, checks the old value is still in place
/// (reading is allowed in the Error state).
fn tune_while_running(inst: &mut Instance, var: Var, value: f64) -> Status {
    running(inst);
    let reference = [vr(var)];
    let before = inst.get_real(&reference);
    let status = set(inst, var, value);
    if status != Status::Ok {
        assert_eq!(
            inst.get_real(&reference),
            before,
            "a refused value leaves the previous one"
        );
    }
    status
}

/// The instance's state, read without changing it: `fmi2CancelStep` is refused in every state the
/// FMU can reach (steps complete synchronously) and its message names the state.
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

/// A legal continuation from `state` succeeds without a message: what an importer does next.
fn continue_from(inst: &mut Instance, state: &str) -> Result<(), String> {
    if inst.is_model_exchange() {
        return continue_model_exchange_from(inst, state);
    }
    let mut calls: Vec<(&str, Status)> = Vec::new();
    let from_instantiated = |inst: &mut Instance, calls: &mut Vec<(&str, Status)>| {
        calls.push((
            "fmi2SetupExperiment",
            inst.setup_experiment(None, 0.0, None),
        ));
        calls.push((
            "fmi2EnterInitializationMode",
            inst.enter_initialization_mode(),
        ));
        calls.push((
            "fmi2ExitInitializationMode",
            inst.exit_initialization_mode(),
        ));
        calls.push(("fmi2DoStep", inst.do_step(0.0, STEP, false)));
    };
    match state {
        "Instantiated" => from_instantiated(inst, &mut calls),
        "InitializationMode" => {
            calls.push((
                "fmi2ExitInitializationMode",
                inst.exit_initialization_mode(),
            ));
            let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
            calls.push(("fmi2GetRealStatus", status));
            calls.push(("fmi2DoStep", inst.do_step(time, STEP, false)));
        }
        "StepComplete" => {
            let (status, time) = inst.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime);
            calls.push(("fmi2GetRealStatus", status));
            calls.push(("fmi2DoStep", inst.do_step(time, STEP, false)));
        }
        "Terminated" | "Error" => {
            calls.push(("fmi2Reset", inst.reset()));
            from_instantiated(inst, &mut calls);
        }
        other => return Err(format!("no legal continuation from {other}")),
    }
    continuation_succeeded(inst, state, &calls)
}

/// [`continue_from`] for a Model Exchange instance: on to Continuous-Time Mode and one
/// integrator step there.
fn continue_model_exchange_from(inst: &mut Instance, state: &str) -> Result<(), String> {
    let mut calls: Vec<(&str, Status)> = Vec::new();
    let mut from = state;
    if matches!(from, "Terminated" | "Error") {
        calls.push(("fmi2Reset", inst.reset()));
        from = "Instantiated";
    }
    if from == "Instantiated" {
        calls.push((
            "fmi2SetupExperiment",
            inst.setup_experiment(None, 0.0, None),
        ));
        calls.push((
            "fmi2EnterInitializationMode",
            inst.enter_initialization_mode(),
        ));
        from = "InitializationMode";
    }
    if from == "InitializationMode" {
        calls.push((
            "fmi2ExitInitializationMode",
            inst.exit_initialization_mode(),
        ));
        from = "EventMode";
    }
    if from == "EventMode" {
        calls.push(("fmi2NewDiscreteStates", inst.new_discrete_states().0));
        calls.push((
            "fmi2EnterContinuousTimeMode",
            inst.enter_continuous_time_mode(),
        ));
        from = "ContinuousTimeMode";
    }
    if from != "ContinuousTimeMode" {
        return Err(format!("no legal continuation from {state}"));
    }
    calls.push(("fmi2SetTime", inst.set_time(STEP)));
    calls.push(("fmi2GetDerivatives", inst.get_derivatives(3).0));
    calls.push((
        "fmi2CompletedIntegratorStep",
        inst.completed_integrator_step(true).0,
    ));
    continuation_succeeded(inst, state, &calls)
}

/// Every call of a continuation returned fmi2OK and nothing was logged.
fn continuation_succeeded(
    inst: &mut Instance,
    state: &str,
    calls: &[(&str, Status)],
) -> Result<(), String> {
    let logs = inst.sink().take();
    if calls.iter().any(|(_, s)| *s != Status::Ok) || !logs.is_empty() {
        return Err(format!(
            "continuing from {state}: {calls:?}, log {:?}",
            messages(&logs)
        ));
    }
    Ok(())
}

fn messages(logs: &[LogRecord]) -> Vec<String> {
    logs.iter()
        .map(|r| format!("{:?} {:?}: {}", r.status, r.category, r.message))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The cases
// ---------------------------------------------------------------------------------------------

/// What a case did: the return of the bad call, everything logged by it, and where the instance
/// is left.
struct Outcome {
    returned: Returned,
    logs: Vec<LogRecord>,
    after: After,
}

enum After {
    /// The instance the bad call was made on, to probe its state.
    Instance(Instance),
    /// No instance exists (fmi2Instantiate failed, or the call had none).
    NoInstance,
    /// The case had no logger to probe with and established the state itself.
    Checked(&'static str),
}

type Case = fn(&Arc<Fmu>) -> Outcome;

fn fresh(fmu: &Arc<Fmu>) -> Instance {
    fresh_of_type(fmu, fmi2::fmi2Type_fmi2CoSimulation)
}

fn fresh_of_type(fmu: &Arc<Fmu>, fmu_type: fmi2::fmi2Type) -> Instance {
    let options = InstantiateOptions {
        fmu_type,
        ..InstantiateOptions::named("bad-input")
    };
    Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate failed: {:#?}", f.logs))
}

/// A fresh instance brought to `stage` (which must log nothing), then `bad`.
fn call(fmu: &Arc<Fmu>, stage: fn(&mut Instance), bad: fn(&mut Instance) -> Status) -> Outcome {
    call_on(fresh(fmu), stage, bad)
}

/// [`call`] on an instance made for Model Exchange.
fn call_model_exchange(
    fmu: &Arc<Fmu>,
    stage: fn(&mut Instance),
    bad: fn(&mut Instance) -> Status,
) -> Outcome {
    call_on(
        fresh_of_type(fmu, fmi2::fmi2Type_fmi2ModelExchange),
        stage,
        bad,
    )
}

fn call_on(
    mut inst: Instance,
    stage: fn(&mut Instance),
    bad: fn(&mut Instance) -> Status,
) -> Outcome {
    stage(&mut inst);
    let staged = inst.sink().take();
    assert!(
        staged.is_empty(),
        "the stage logged {:?}",
        messages(&staged)
    );
    let status = bad(&mut inst);
    Outcome {
        returned: Returned::Status(status),
        logs: inst.sink().take(),
        after: After::Instance(inst),
    }
}

fn instantiate(fmu: &Arc<Fmu>, options: InstantiateOptions) -> Outcome {
    match Instance::instantiate(fmu, &options) {
        Ok(inst) => Outcome {
            returned: Returned::Instance(true),
            logs: inst.sink().take(),
            after: After::Instance(inst),
        },
        Err(failure) => Outcome {
            returned: Returned::Instance(false),
            logs: failure.logs,
            after: After::NoInstance,
        },
    }
}

/// `fmi2Instantiate` with raw arguments the test importer never passes; the instance, if any, is
/// freed again. Logger calls land in a sink passed as `componentEnvironment`.
fn instantiate_raw(
    fmu: &Arc<Fmu>,
    name: Option<&str>,
    guid: Option<&str>,
    callbacks: Option<fn(&support::LogSink) -> fmi2::fmi2CallbackFunctions>,
) -> (fmi2::fmi2Component, Vec<LogRecord>) {
    let sink = Box::new(support::LogSink::new());
    let name = name.map(|n| CString::new(n).unwrap());
    let guid = guid.map(|g| CString::new(g).unwrap());
    let uri = CString::new(fmu.resource_uri()).unwrap();
    let functions = callbacks.map(|make| make(&sink));
    let as_ptr = |s: &Option<CString>| s.as_ref().map_or(ptr::null(), |s| s.as_ptr());
    let instantiate = *fmu.binding.fmi2Instantiate.as_ref().unwrap();
    // SAFETY: every pointer is NULL or valid for the call; the sink outlives the instance, which
    // the caller frees before returning.
    let component = unsafe {
        instantiate(
            as_ptr(&name),
            fmi2::fmi2Type_fmi2CoSimulation,
            as_ptr(&guid),
            uri.as_ptr(),
            functions
                .as_ref()
                .map_or(ptr::null(), |f| f as *const fmi2::fmi2CallbackFunctions),
            0,
            0,
        )
    };
    let logs = sink.take();
    // The FMU copied the callbacks; the sink must stay valid while the component lives.
    Box::leak(sink);
    (component, logs)
}

fn callbacks_into(sink: &support::LogSink) -> fmi2::fmi2CallbackFunctions {
    fmi2::fmi2CallbackFunctions {
        logger: support::logger::logger_callback(),
        allocateMemory: None,
        freeMemory: None,
        stepFinished: None,
        componentEnvironment: support::logger::env_of(sink),
    }
}

fn callbacks_without_logger(sink: &support::LogSink) -> fmi2::fmi2CallbackFunctions {
    fmi2::fmi2CallbackFunctions {
        logger: None,
        ..callbacks_into(sink)
    }
}

fn free_raw(fmu: &Arc<Fmu>, component: fmi2::fmi2Component) {
    if !component.is_null() {
        let free = *fmu.binding.fmi2FreeInstance.as_ref().unwrap();
        // SAFETY: a live component of this FMU, freed once.
        unsafe { free(component) };
    }
}

fn raw_instantiate_outcome(
    fmu: &Arc<Fmu>,
    name: Option<&str>,
    guid: Option<&str>,
    callbacks: Option<fn(&support::LogSink) -> fmi2::fmi2CallbackFunctions>,
) -> Outcome {
    let (component, logs) = instantiate_raw(fmu, name, guid, callbacks);
    let created = !component.is_null();
    free_raw(fmu, component);
    Outcome {
        returned: Returned::Instance(created),
        logs,
        after: if created {
            After::Checked("Instantiated")
        } else {
            After::NoInstance
        },
    }
}

fn raw_get_real(inst: &mut Instance, null_vr: bool, null_value: bool, n: usize) -> Status {
    let vrs = [vr(Var::C), vr(Var::D)];
    let mut values = [0.0; 2];
    let get = *inst.binding().fmi2GetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL arrays; the FMU must check them against n.
    Status::from(unsafe {
        get(
            inst.component(),
            if null_vr { ptr::null() } else { vrs.as_ptr() },
            n,
            if null_value {
                ptr::null_mut()
            } else {
                values.as_mut_ptr()
            },
        )
    })
}

fn raw_set_real_null_values(inst: &mut Instance) -> Status {
    let vrs = [vr(Var::FlangeAS), vr(Var::FlangeBS)];
    let set = *inst.binding().fmi2SetReal.as_ref().unwrap();
    // SAFETY: deliberately NULL value array with nvr = 2.
    Status::from(unsafe { set(inst.component(), vrs.as_ptr(), 2, ptr::null()) })
}

/// A state of this instance, taken while running.
fn own_state(inst: &mut Instance) -> FmuState {
    let mut state = FmuState::null();
    ok(inst.get_fmu_state(&mut state));
    state
}

/// The serialized state of a running instance and a copy changed by `damage`, deserialized into
/// `inst`.
fn deserialize_damaged(inst: &mut Instance, damage: fn(Vec<u8>) -> Vec<u8>) -> Status {
    running(inst);
    let state = own_state(inst);
    let (status, bytes) = inst.serialize_fmu_state(&state);
    ok(status);
    let bytes = damage(bytes);
    let mut target = FmuState::null();
    let status = inst.deserialize_fmu_state(&bytes, &mut target);
    assert!(
        status == Status::Ok || target.is_null(),
        "a refused buffer hands out no state"
    );
    status
}

/// Offset of the f64 slot of `c` in a serialized state: after the 8-byte magic and the 4-byte
/// format version, `c` is the first slot.
const C_SLOT: usize = 12;

fn one_byte_short(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes.pop();
    bytes
}

fn wrong_magic(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[..8].copy_from_slice(b"NOTAGAP!");
    bytes
}

fn next_format_version(mut bytes: Vec<u8>) -> Vec<u8> {
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
    bytes[8..12].copy_from_slice(&(version + 1).to_le_bytes());
    bytes
}

fn nan_in_a_slot(mut bytes: Vec<u8>) -> Vec<u8> {
    let last = bytes.len() - 8;
    bytes[last..].copy_from_slice(&f64::NAN.to_le_bytes());
    bytes
}

/// A probe's held-back impulse that pulls, under ElastoGap (which never pulls).
fn pulling_probe_rest(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 128;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

/// The heat port's mean flow (slot 32) into the gap, of an instance without the heat port.
fn heat_flowing_in(mut bytes: Vec<u8>) -> Vec<u8> {
    let at = elastogap::snapshot::HEADER_SIZE + 8 * 32;
    bytes[at..at + 8].copy_from_slice(&1e-300f64.to_le_bytes());
    bytes
}

fn negative_c(mut bytes: Vec<u8>) -> Vec<u8> {
    bytes[C_SLOT..C_SLOT + 8].copy_from_slice(&(-1.0f64).to_le_bytes());
    bytes
}

/// A state taken by another instance of the same FMU.
fn foreign_state(fmu: &Arc<Fmu>) -> (Instance, FmuState) {
    let mut owner = fresh(fmu);
    running(&mut owner);
    let state = own_state(&mut owner);
    (owner, state)
}

fn status_kind_call(inst: &mut Instance, which: &str) -> Status {
    use fmi2::{
        fmi2StatusKind_fmi2DoStepStatus as DO_STEP, fmi2StatusKind_fmi2PendingStatus as PENDING,
        fmi2StatusKind_fmi2Terminated as TERMINATED,
    };
    running(inst);
    match which {
        "do-step" => inst.get_status(DO_STEP).0,
        "pending" => inst.get_string_status(PENDING).0,
        "integer" => inst.get_integer_status(DO_STEP).0,
        "real-terminated" => inst.get_real_status(TERMINATED).0,
        "unknown" => inst.get_boolean_status(99).0,
        other => unreachable!("{other}"),
    }
}

/// Every function that takes an instance, called with NULL: all must refuse alike.
fn null_instance_calls(fmu: &Arc<Fmu>) -> Status {
    let b = &fmu.binding;
    let c: fmi2::fmi2Component = ptr::null_mut();
    let mut real = 0.0;
    let reference = vr(Var::C);
    let mut state: fmi2::fmi2FMUstate = ptr::null_mut();
    // SAFETY: the FMU must refuse a NULL instance before touching any other argument; the others
    // are valid anyway.
    let statuses = unsafe {
        [
            b.fmi2DoStep.as_ref().unwrap()(c, 0.0, STEP, 0),
            b.fmi2GetReal.as_ref().unwrap()(c, &reference, 1, &mut real),
            b.fmi2SetReal.as_ref().unwrap()(c, &reference, 1, &real),
            b.fmi2SetupExperiment.as_ref().unwrap()(c, 0, 0.0, 0.0, 0, 0.0),
            b.fmi2EnterInitializationMode.as_ref().unwrap()(c),
            b.fmi2Reset.as_ref().unwrap()(c),
            b.fmi2Terminate.as_ref().unwrap()(c),
            b.fmi2GetFMUstate.as_ref().unwrap()(c, &mut state),
            b.fmi2SetDebugLogging.as_ref().unwrap()(c, 1, 0, ptr::null()),
            b.fmi2CancelStep.as_ref().unwrap()(c),
        ]
    };
    // SAFETY: fmi2FreeInstance(NULL) must be a no-op.
    unsafe { b.fmi2FreeInstance.as_ref().unwrap()(c) };
    let first = Status::from(statuses[0]);
    assert!(
        statuses.iter().all(|s| Status::from(*s) == first),
        "all calls with a NULL instance return the same: {statuses:?}"
    );
    first
}

/// The cases by table key.
const CASES: &[(&str, Case)] = &[
    // ---- fmi2Instantiate
    ("wrong-guid", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                guid: Some("{00000000-0000-0000-0000-000000000000}".into()),
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-guid", |fmu| {
        raw_instantiate_outcome(fmu, Some("bad-input"), None, Some(callbacks_into))
    }),
    ("unknown-fmu-type", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                fmu_type: 2,
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("empty-instance-name", |fmu| {
        instantiate(fmu, InstantiateOptions::named(""))
    }),
    ("null-instance-name", |fmu| {
        raw_instantiate_outcome(fmu, None, Some(elastogap::GUID), Some(callbacks_into))
    }),
    ("non-file-resource-uri", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                resource_uri: ResourceUri::Custom("http://example.com/resources/".into()),
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-resource-uri", |fmu| {
        instantiate(
            fmu,
            InstantiateOptions {
                resource_uri: ResourceUri::Null,
                ..InstantiateOptions::named("bad-input")
            },
        )
    }),
    ("null-callbacks", |fmu| {
        raw_instantiate_outcome(fmu, Some("bad-input"), Some(elastogap::GUID), None)
    }),
    ("null-logger", |fmu| {
        let (component, logs) = instantiate_raw(
            fmu,
            Some("bad-input"),
            Some(elastogap::GUID),
            Some(callbacks_without_logger),
        );
        assert!(!component.is_null(), "instantiated without a logger");
        let b = &fmu.binding;
        let unknown = 99;
        let mut value = 0.0;
        // SAFETY: a live component and valid arguments.
        let (refused, sequence) = unsafe {
            let refused = b.fmi2GetReal.as_ref().unwrap()(component, &unknown, 1, &mut value);
            let sequence = [
                b.fmi2Reset.as_ref().unwrap()(component),
                b.fmi2SetupExperiment.as_ref().unwrap()(component, 0, 0.0, 0.0, 0, 0.0),
                b.fmi2EnterInitializationMode.as_ref().unwrap()(component),
                b.fmi2ExitInitializationMode.as_ref().unwrap()(component),
                b.fmi2DoStep.as_ref().unwrap()(component, 0.0, STEP, 0),
            ];
            (refused, sequence)
        };
        free_raw(fmu, component);
        assert_eq!(
            Status::from(refused),
            Status::Error,
            "errors are still returned, only not reported"
        );
        assert!(
            sequence.iter().all(|s| Status::from(*s) == Status::Ok),
            "usable after fmi2Reset: {sequence:?}"
        );
        Outcome {
            returned: Returned::Instance(true),
            logs,
            after: After::Checked("Instantiated"),
        }
    }),
    // ---- the instance and pointer arguments
    ("null-instance", |fmu| {
        // A live instance alongside: nothing may reach its logger.
        let witness = fresh(fmu);
        let status = null_instance_calls(fmu);
        Outcome {
            returned: Returned::Status(status),
            logs: witness.sink().take(),
            after: After::NoInstance,
        }
    }),
    ("null-vr-array", |fmu| {
        call(fmu, running, |i| raw_get_real(i, true, false, 2))
    }),
    ("null-value-array", |fmu| {
        call(fmu, running, raw_set_real_null_values)
    }),
    ("empty-null-arrays", |fmu| {
        call(fmu, running, |i| raw_get_real(i, true, true, 0))
    }),
    ("null-state-pointer", |fmu| {
        call(fmu, running, |i| {
            let get = *i.binding().fmi2GetFMUstate.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { get(i.component(), ptr::null_mut()) })
        })
    }),
    ("null-size-pointer", |fmu| {
        call(fmu, running, |i| {
            let state = own_state(i);
            let size = *i.binding().fmi2SerializedFMUstateSize.as_ref().unwrap();
            // SAFETY: deliberately NULL out pointer.
            Status::from(unsafe { size(i.component(), state.0, ptr::null_mut()) })
        })
    }),
    ("null-category-name", |fmu| {
        call(fmu, running, |i| {
            let set = *i.binding().fmi2SetDebugLogging.as_ref().unwrap();
            let categories: [*const c_char; 1] = [ptr::null()];
            // SAFETY: an array of one (NULL) string.
            Status::from(unsafe { set(i.component(), 1, 1, categories.as_ptr()) })
        })
    }),
    // ---- value references and causality
    ("unknown-value-reference", |fmu| {
        call(fmu, running, |i| i.get_real(&[99]).0)
    }),
    ("wrong-type", |fmu| {
        call(fmu, running, |i| i.get_real(&[vr(Var::MaxSubstepCount)]).0)
    }),
    ("string-variable", |fmu| {
        call(fmu, running, |i| i.get_string(&[vr(Var::C)]).0)
    }),
    ("set-output", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::F)], &[0.0]))
    }),
    ("set-local", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::FC)], &[0.0]))
    }),
    ("set-time", |fmu| {
        call(fmu, running, |i| i.set_real(&[vr(Var::Time)], &[1.0]))
    }),
    ("fixed-parameter-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::UseHeatPort, 1.0))
    }),
    // ---- parameter rules
    ("negative-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, -1.0))
    }),
    ("infinite-c", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::C, f64::INFINITY))
    }),
    ("negative-d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::D, -0.5))
    }),
    ("non-finite-s_rel0", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRel0, f64::NAN))
    }),
    ("n-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::N, 0.5))
    }),
    ("s_ref-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::SRef, 0.0))
    }),
    ("negative-f_ref", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FRef, -1.0))
    }),
    ("maxSubstepSize-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepSize, 0.0)
        })
    }),
    ("maxSubstepCount-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxSubstepCount, 0.0)
        })
    }),
    ("accelerationEstimate-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::AccelerationEstimate, 4.0)
        })
    }),
    ("negative-m_eff", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MEff, -1.0))
    }),
    ("relativeTolerance-not-positive", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RelativeTolerance, 0.0)
        })
    }),
    ("forceLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ForceLaw, 8.0))
    }),
    ("hysteresis-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Hysteresis, 0.0))
    }),
    ("negative-chi", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Chi, -0.1))
    }),
    ("e-not-in-unit-interval", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 0.0))
    }),
    ("e-above-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::E, 1.5))
    }),
    ("v0_min-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::V0Min, 0.0))
    }),
    ("d_max-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DMax, -1e-3))
    }),
    ("recurDynDamping-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RecurDynDamping, 3.0)
        })
    }),
    ("negative-n_d", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::ND, -1.0))
    }),
    ("rdf-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::Rdf, f64::NAN))
    }),
    ("n_v-below-1", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::NV, 0.5))
    }),
    ("preload-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::Preload, f64::INFINITY)
        })
    }),
    ("negative-d_x", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::DX, -3.0)
        })
    }),
    ("n_y-below-1", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::NY, 0.5)
        })
    }),
    ("preload_x-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::PreloadX, f64::NAN)
        })
    }),
    ("gap-dampers-without-gap-force", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::DY, 40.0))
    }),
    ("range-end-not-finite", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::RangeMin, f64::NEG_INFINITY)
        })
    }),
    ("gap-force-empty-range", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            ok(set(i, Var::RangeMin, 0.0));
            exit_with(i, Var::RangeMax, -0.5)
        })
    }),
    ("gap-force-range-emptied-while-running", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            let status = tune_while_running(i, Var::RangeMin, 1.0);
            assert_eq!(i.get_real(&[vr(Var::RangeMax)]).1, vec![0.0]);
            status
        })
    }),
    ("frictionLaw-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FrictionLaw, 4.0))
    }),
    ("frictionInterpolation-out-of-range", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::FrictionInterpolation, 0.0)
        })
    }),
    ("heldForce-out-of-range", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::HeldForce, 5.0))
    }),
    ("negative-mu", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::MuS, -0.1))
    }),
    ("v_s-not-positive", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::VS, 0.0))
    }),
    ("v_d-not-above-v_s", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            ok(set(i, Var::VS, 0.01));
            exit_with(i, Var::VD, 0.01)
        })
    }),
    ("negative-f_t_max", |fmu| {
        call(fmu, instantiated, |i| exit_with(i, Var::FTMax, -1.0))
    }),
    ("negative-maxStictionDeformation", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::FrictionLaw, 2.0));
            exit_with(i, Var::MaxStictionDeformation, -1e-4)
        })
    }),
    ("stiction-without-friction", |fmu| {
        call(fmu, instantiated, |i| {
            exit_with(i, Var::MaxStictionDeformation, 1e-4)
        })
    }),
    ("friction-with-gap-force", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            exit_with(i, Var::FrictionLaw, 2.0)
        })
    }),
    ("nan-v_tx", |fmu| {
        call(fmu, running, |i| set(i, Var::VTx, f64::NAN))
    }),
    ("infinite-v_ty", |fmu| {
        call(fmu, running, |i| set(i, Var::VTy, f64::INFINITY))
    }),
    ("tableFile-missing", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "no_such_table.json")
        })
    }),
    ("tableFile-malformed-json", |fmu| {
        write_table(fmu, "malformed.json", r#"{"stiffness": [[0, 0], [1, 1]"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "malformed.json")
        })
    }),
    ("tableFile-unknown-key", |fmu| {
        write_table(fmu, "unknown_key.json", r#"{"stifness": [[0, 0], [1, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unknown_key.json")
        })
    }),
    ("tableFile-unsorted", |fmu| {
        write_table(
            fmu,
            "unsorted.json",
            r#"{"stiffness": [[0, 0], [-0.001, 10]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "unsorted.json")
        })
    }),
    ("tableFile-repeated", |fmu| {
        write_table(fmu, "repeated.json", r#"{"damping": [[0, 0], [0, 1]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "repeated.json")
        })
    }),
    ("tableFile-too-few-points", |fmu| {
        write_table(fmu, "too_few.json", r#"{"stiffness": [[0, 0]]}"#);
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "too_few.json")
        })
    }),
    ("tableFile-not-finite", |fmu| {
        write_table(
            fmu,
            "not_finite.json",
            r#"{"stiffness": [[0, 0], [1, 1e999]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "not_finite.json")
        })
    }),
    ("tableFile-damping-feeds-energy", |fmu| {
        write_table(
            fmu,
            "pushing_damper.json",
            r#"{"damping": [[-1, 1], [1, 3]]}"#,
        );
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "pushing_damper.json")
        })
    }),
    ("tableFile-relative-without-resources", |fmu| {
        let options = InstantiateOptions {
            resource_uri: ResourceUri::Null,
            ..InstantiateOptions::named("bad-input")
        };
        let inst = Instance::instantiate(fmu, &options)
            .unwrap_or_else(|f| panic!("fmi2Instantiate failed: {:#?}", f.logs));
        call_on(inst, instantiated, |i| {
            exit_gap_force_with_table(i, "gap_force_example.json")
        })
    }),
    ("tableFile-foreign-uri", |fmu| {
        call(fmu, instantiated, |i| {
            exit_gap_force_with_table(i, "file://otherhost/t.json")
        })
    }),
    ("fixed-tableFile-while-running", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            i.set_string(&[vr(Var::TableFile)], &["other.json"])
        })
    }),
    ("state-with-other-tables", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            let state = own_state(i);
            let (status, bytes) = i.serialize_fmu_state(&state);
            ok(status);
            ok(i.reset());
            let mut target = FmuState::null();
            let status = i.deserialize_fmu_state(&bytes, &mut target);
            assert!(target.is_null(), "a refused buffer hands out no state");
            status
        })
    }),
    ("fixed-forceLaw-while-running", |fmu| {
        call(fmu, running, |i| set(i, Var::ForceLaw, 4.0))
    }),
    ("tunable-parameter-while-running", |fmu| {
        call(fmu, instantiated, |i| tune_while_running(i, Var::N, 0.5))
    }),
    // ---- values beyond the numeric range of the law
    ("non-finite-force", |fmu| {
        call(fmu, overflowing_force, |i| i.do_step(0.0, STEP, false))
    }),
    ("non-finite-output", |fmu| {
        call(fmu, overflowing_force, |i| i.get_real(&[vr(Var::F)]).0)
    }),
    ("non-finite-directional-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("non-finite-output-derivative", |fmu| {
        call(fmu, overflowing_stiffness, |i| {
            i.get_real_output_derivatives(&[vr(Var::F)], &[1]).0
        })
    }),
    ("step-does-not-advance", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, 1e-20, false))
    }),
    // ---- inputs
    ("nan-input", |fmu| {
        call(fmu, running, |i| set(i, Var::FlangeBS, f64::NAN))
    }),
    ("infinite-input", |fmu| {
        call(fmu, instantiated, |i| {
            set(i, Var::FlangeAV, f64::NEG_INFINITY)
        })
    }),
    // ---- the state machine
    ("step-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.do_step(0.0, STEP, false))
    }),
    ("step-in-initialization-mode", |fmu| {
        call(fmu, initializing, |i| i.do_step(0.0, STEP, false))
    }),
    ("read-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.get_real(&[vr(Var::F)]).0)
    }),
    ("exit-without-enter", |fmu| {
        call(fmu, instantiated, |i| i.exit_initialization_mode())
    }),
    ("setup-after-initialization", |fmu| {
        call(fmu, running, |i| i.setup_experiment(None, 0.0, None))
    }),
    ("step-after-terminate", |fmu| {
        call(fmu, terminated, |i| i.do_step(STEP, STEP, false))
    }),
    ("set-after-terminate", |fmu| {
        call(fmu, terminated, |i| set(i, Var::FlangeAS, 0.0))
    }),
    ("terminate-before-initialization", |fmu| {
        call(fmu, instantiated, |i| i.terminate())
    }),
    ("call-in-error-state", |fmu| {
        call(fmu, failed, |i| i.do_step(STEP, STEP, false))
    }),
    ("cancel-step", |fmu| call(fmu, running, |i| i.cancel_step())),
    ("status-before-initialization", |fmu| {
        call(fmu, instantiated, |i| {
            i.get_real_status(fmi2::fmi2StatusKind_fmi2LastSuccessfulTime)
                .0
        })
    }),
    // ---- fmi2SetupExperiment and fmi2DoStep arguments
    ("stop-before-start", |fmu| {
        call(fmu, instantiated, |i| {
            i.setup_experiment(None, 0.0, Some(-1.0))
        })
    }),
    ("non-finite-start-time", |fmu| {
        call(fmu, instantiated, |i| {
            i.setup_experiment(None, f64::NAN, None)
        })
    }),
    ("zero-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, 0.0, false))
    }),
    ("negative-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, -STEP, false))
    }),
    ("nan-step-size", |fmu| {
        call(fmu, running, |i| i.do_step(STEP, f64::NAN, false))
    }),
    ("wrong-communication-point", |fmu| {
        call(fmu, running, |i| i.do_step(0.5, STEP, false))
    }),
    ("rounded-communication-point", |fmu| {
        call(fmu, running, |i| {
            i.do_step(STEP * (1.0 + 1e-12), STEP, false)
        })
    }),
    ("no-set-fmu-state-prior", |fmu| {
        call(fmu, running, |i| {
            let mut state = own_state(i);
            ok(i.do_step(STEP, STEP, true));
            let status = i.set_fmu_state(&state);
            ok(i.free_fmu_state(&mut state));
            status
        })
    }),
    // ---- input and output derivatives, directional derivatives
    ("input-derivative-order", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::FlangeBV)], &[2], &[1.0])
        })
    }),
    ("input-derivative-of-non-input", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::F)], &[1], &[1.0])
        })
    }),
    ("non-finite-input-derivative", |fmu| {
        call(fmu, running, |i| {
            i.set_real_input_derivatives(&[vr(Var::FlangeAV)], &[1], &[f64::NAN])
        })
    }),
    ("output-derivative-order", |fmu| {
        call(fmu, running, |i| {
            i.get_real_output_derivatives(&[vr(Var::SRel)], &[2]).0
        })
    }),
    ("output-derivative-of-non-output", |fmu| {
        call(fmu, running, |i| {
            i.get_real_output_derivatives(&[vr(Var::FlangeBS)], &[1]).0
        })
    }),
    ("directional-derivative-known", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::C)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-unknown", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::FlangeAS)], &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-indicator", |fmu| {
        call(fmu, running, |i| {
            let unknowns = [vr(Var::IndicatorContact)];
            i.get_directional_derivative(&unknowns, &[vr(Var::FlangeBS)], &[1.0])
                .0
        })
    }),
    ("directional-derivative-seed", |fmu| {
        call(fmu, running, |i| {
            i.get_directional_derivative(&[vr(Var::F)], &[vr(Var::FlangeBS)], &[f64::INFINITY])
                .0
        })
    }),
    // ---- Model Exchange
    ("co-simulation-call-on-model-exchange", |fmu| {
        call_model_exchange(fmu, event_mode, |i| i.do_step(0.0, STEP, false))
    }),
    ("model-exchange-call-on-co-simulation", |fmu| {
        call(fmu, running, |i| i.set_time(STEP))
    }),
    ("derivatives-before-initialization", |fmu| {
        call_model_exchange(fmu, instantiated, |i| i.get_derivatives(3).0)
    }),
    ("continuous-states-in-event-mode", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            i.set_continuous_states(&[1.0, 0.0, 0.0])
        })
    }),
    ("tunable-parameter-in-continuous-time-mode", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| set(i, Var::D, 5.0))
    }),
    ("wrong-number-of-states", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.get_continuous_states(2).0)
    }),
    ("wrong-number-of-event-indicators", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.get_event_indicators(3).0)
    }),
    ("non-finite-continuous-state", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| {
            i.set_continuous_states(&[f64::NAN, 0.0, 0.0])
        })
    }),
    ("non-finite-time", |fmu| {
        call_model_exchange(fmu, continuous_time_mode, |i| i.set_time(f64::INFINITY))
    }),
    ("null-event-info", |fmu| {
        call_model_exchange(fmu, event_mode, |i| {
            let f = *i.binding().fmi2NewDiscreteStates.as_ref().unwrap();
            // SAFETY: the FMU must refuse the NULL pointer without writing through it.
            Status::from(unsafe { f(i.component(), std::ptr::null_mut()) })
        })
    }),
    ("fmu-state-of-other-interface", |fmu| {
        let mut co_simulation = fresh(fmu);
        running(&mut co_simulation);
        let mut state = FmuState::null();
        ok(co_simulation.get_fmu_state(&mut state));
        let (status, bytes) = co_simulation.serialize_fmu_state(&state);
        ok(status);
        let mut outcome = call_model_exchange(fmu, continuous_time_mode, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut into = FmuState::null();
            outcome.returned = Returned::Status(inst.deserialize_fmu_state(&bytes, &mut into));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    // ---- FMU states
    ("foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            outcome.returned = Returned::Status(inst.set_fmu_state(&state));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    ("freed-fmu-state", |fmu| {
        call(fmu, running, |i| {
            let mut state = own_state(i);
            let stale = FmuState(state.0);
            ok(i.free_fmu_state(&mut state));
            assert!(state.is_null(), "fmi2FreeFMUstate sets the pointer to NULL");
            i.set_fmu_state(&stale)
        })
    }),
    ("null-fmu-state", |fmu| {
        call(fmu, running, |i| i.set_fmu_state(&FmuState::null()))
    }),
    ("free-foreign-fmu-state", |fmu| {
        let (_owner, state) = foreign_state(fmu);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut copy = FmuState(state.0);
            outcome.returned = Returned::Status(inst.free_fmu_state(&mut copy));
            assert_eq!(copy.0, state.0, "a refused free leaves the pointer");
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    ("free-null-fmu-state", |fmu| {
        call(fmu, running, |i| i.free_fmu_state(&mut FmuState::null()))
    }),
    ("serialize-wrong-size", |fmu| {
        call(fmu, running, |i| {
            let state = own_state(i);
            let (status, size) = i.serialized_fmu_state_size(&state);
            ok(status);
            let mut buffer = vec![0u8; size + 1];
            let serialize = *i.binding().fmi2SerializeFMUstate.as_ref().unwrap();
            // SAFETY: a buffer of size + 1 bytes, announced as such.
            Status::from(unsafe {
                serialize(
                    i.component(),
                    state.0,
                    buffer.as_mut_ptr().cast(),
                    buffer.len(),
                )
            })
        })
    }),
    ("deserialize-truncated", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, one_byte_short)
        })
    }),
    ("deserialize-wrong-header", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, wrong_magic))
    }),
    ("deserialize-wrong-version", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, next_format_version)
        })
    }),
    ("deserialize-non-finite", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, nan_in_a_slot))
    }),
    ("deserialize-pulling-probe-rest", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, pulling_probe_rest)
        })
    }),
    ("deserialize-heat-flowing-in", |fmu| {
        call(fmu, instantiated, |i| {
            deserialize_damaged(i, heat_flowing_in)
        })
    }),
    ("deserialize-invalid-parameter", |fmu| {
        call(fmu, instantiated, |i| deserialize_damaged(i, negative_c))
    }),
    ("deserialize-into-foreign-state", |fmu| {
        let (mut owner, state) = foreign_state(fmu);
        let (status, bytes) = owner.serialize_fmu_state(&state);
        ok(status);
        let mut outcome = call(fmu, running, |_| Status::Ok);
        if let After::Instance(inst) = &mut outcome.after {
            let mut target = FmuState(state.0);
            outcome.returned = Returned::Status(inst.deserialize_fmu_state(&bytes, &mut target));
            outcome.logs = inst.sink().take();
        }
        outcome
    }),
    // ---- status queries and logging
    ("do-step-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "do-step"))
    }),
    ("pending-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "pending"))
    }),
    ("integer-status", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "integer"))
    }),
    ("status-of-other-type", |fmu| {
        call(fmu, instantiated, |i| {
            status_kind_call(i, "real-terminated")
        })
    }),
    ("unknown-status-kind", |fmu| {
        call(fmu, instantiated, |i| status_kind_call(i, "unknown"))
    }),
    ("unknown-log-category", |fmu| {
        call(fmu, instantiated, |i| {
            i.set_debug_logging(true, &["logEverything"])
        })
    }),
];

// ---------------------------------------------------------------------------------------------
// Checking a row
// ---------------------------------------------------------------------------------------------

fn check_row(fmu: &Arc<Fmu>, row: &Row, case: Case) -> Result<(), String> {
    let returned = expected_return(&row.status)?;
    let excerpts = code_spans(&row.message);
    let state = expected_state(&row.state)?;
    let outcome = case(fmu);

    if outcome.returned != returned {
        return Err(format!(
            "returned {:?}, the table says {returned:?}; log {:?}",
            outcome.returned,
            messages(&outcome.logs)
        ));
    }
    if let Some(bad) = outcome
        .logs
        .iter()
        .find(|r| r.lone_percent || r.raw.is_none())
    {
        return Err(format!("malformed log record {bad:?}"));
    }
    // The table promises that a message starts with the name of the function that failed.
    if let Some(unnamed) = outcome
        .logs
        .iter()
        .find(|r| !(r.message.starts_with("fmi2") && r.message.contains(": ")))
    {
        return Err(format!(
            "the message {:?} does not start with the function's name",
            unnamed.message
        ));
    }
    if excerpts.is_empty() {
        if !outcome.logs.is_empty() {
            return Err(format!(
                "the table says nothing is logged, but: {:?}",
                messages(&outcome.logs)
            ));
        }
    } else {
        // Failed calls log with their own status; a refused fmi2Instantiate with fmi2Error.
        let status = match returned {
            Returned::Status(s) => s,
            Returned::Instance(_) => Status::Error,
        };
        let category = match status {
            Status::Fatal => "logStatusFatal",
            Status::Discard => "logStatusDiscard",
            _ => "logStatusError",
        };
        let found = outcome.logs.iter().any(|r| {
            r.status == status
                && r.category.as_deref() == Some(category)
                && excerpts.iter().all(|e| r.message.contains(e.as_str()))
        });
        if !found {
            return Err(format!(
                "no {status:?} record under {category} contains {excerpts:?}; log {:?}",
                messages(&outcome.logs)
            ));
        }
    }
    match (outcome.after, state) {
        (After::NoInstance, None) => Ok(()),
        (After::Checked(actual), Some(expected)) if actual == expected => Ok(()),
        (After::Instance(mut inst), Some(expected)) => {
            let actual = state_of(&mut inst);
            if actual != expected {
                return Err(format!("left in state {actual}, the table says {expected}"));
            }
            continue_from(&mut inst, expected)
        }
        (After::NoInstance, Some(expected)) => Err(format!(
            "no instance is left, the table says state {expected}"
        )),
        (After::Checked(actual), expected) => Err(format!(
            "left in state {actual}, the table says {expected:?}"
        )),
        (After::Instance(mut inst), None) => Err(format!(
            "an instance is left in state {}, the table says none",
            state_of(&mut inst)
        )),
    }
}

/// Everything wrong with `rows`: keys without a case or used twice, cases without a row, and rows
/// that do not hold.
fn table_failures(fmu: &Arc<Fmu>, rows: &[Row]) -> Vec<String> {
    let mut failures = Vec::new();
    let mut keys = BTreeSet::new();
    for row in rows {
        if !keys.insert(row.key.as_str()) {
            failures.push(format!(
                "{TABLE_FILE}:{}: key `{}` is used twice",
                row.line, row.key
            ));
        }
    }
    let case_keys: BTreeSet<&str> = CASES.iter().map(|(key, _)| *key).collect();
    assert_eq!(case_keys.len(), CASES.len(), "a case key is defined twice");
    for key in case_keys.difference(&keys) {
        failures.push(format!("case `{key}` has no row in the table"));
    }
    for row in rows {
        let failure = match CASES.iter().find(|(key, _)| *key == row.key) {
            None => Some("the row has no case in tests/bad_input_table.rs".to_string()),
            Some((_, case)) => check_row(fmu, row, *case).err(),
        };
        if let Some(failure) = failure {
            failures.push(format!(
                "{TABLE_FILE}:{} `{}`: {failure}",
                row.line, row.key
            ));
        }
    }
    failures
}

#[test]
fn every_row_of_the_bad_input_table_holds() {
    let rows = bad_input_rows(&table_document());
    assert!(
        rows.len() >= 40,
        "the bad-input tables have only {} rows; is the section intact?",
        rows.len()
    );
    let failures = table_failures(&Fmu::load_default(), &rows);
    assert!(
        failures.is_empty(),
        "{} problems with the {} rows:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
}

/// The table document with the cell text `from` replaced by `to` in the row of `key`.
fn with_row_changed(document: &str, key: &str, from: &str, to: &str) -> String {
    let marker = format!("| `{key}` |");
    let mut changed = 0;
    let lines: Vec<String> = document
        .lines()
        .map(|line| {
            if line.starts_with(&marker) && line.contains(from) {
                changed += 1;
                line.replacen(from, to, 1)
            } else {
                line.to_string()
            }
        })
        .collect();
    assert_eq!(changed, 1, "the row `{key}` holds {from:?} once");
    lines.join("\n")
}

/// The check itself can fail: each kind of drift between the table and the FMU is reported.
#[test]
fn drift_between_table_and_fmu_is_reported() {
    let fmu = Fmu::load_default();
    let document = table_document();
    let row_of = |key: &str| {
        document
            .lines()
            .find(|l| l.starts_with(&format!("| `{key}` |")))
            .unwrap_or_else(|| panic!("the table has a row `{key}`"))
            .to_string()
    };
    let drifts = [
        (
            with_row_changed(
                &document,
                "unknown-value-reference",
                "reference 99`",
                "reference 98`",
            ),
            "no Error record under logStatusError contains",
        ),
        (
            with_row_changed(&document, "negative-c", "`fmi2Error`", "`fmi2OK`"),
            "returned Status(Error), the table says Status(Ok)",
        ),
        (
            with_row_changed(
                &document,
                "step-before-initialization",
                "Instantiated (unchanged)",
                "Error",
            ),
            "left in state Instantiated, the table says Error",
        ),
        (
            with_row_changed(&document, "set-output", "| Error |", "| StepComplete |"),
            "left in state Error, the table says StepComplete",
        ),
        (
            with_row_changed(
                &document,
                "null-resource-uri",
                "| Instantiated |",
                "| none |",
            ),
            "the table says none",
        ),
        (
            with_row_changed(&document, "wrong-guid", "| NULL |", "| an instance |"),
            "returned Instance(false), the table says Instance(true)",
        ),
        (
            with_row_changed(
                &document,
                "n-below-1",
                "`n = 0.5 is not allowed: it must be a finite number >= 1`",
                "—",
            ),
            "the table says nothing is logged",
        ),
        (
            with_row_changed(
                &document,
                "empty-null-arrays",
                "| — |",
                "| `vr[] is NULL` |",
            ),
            "no Ok record",
        ),
        (
            document.replace(&format!("{}\n", row_of("cancel-step")), ""),
            "case `cancel-step` has no row in the table",
        ),
        (
            document.replace(
                &row_of("cancel-step"),
                &format!(
                    "{}\n{}",
                    row_of("cancel-step"),
                    row_of("cancel-step").replace("`cancel-step`", "`cancel-twice`")
                ),
            ),
            "the row has no case",
        ),
        (
            document.replace(
                &row_of("cancel-step"),
                &format!("{}\n{}", row_of("cancel-step"), row_of("cancel-step")),
            ),
            "key `cancel-step` is used twice",
        ),
    ];
    for (changed, expected) in drifts {
        let failures = table_failures(&fmu, &bad_input_rows(&changed));
        assert!(
            failures.iter().any(|f| f.contains(expected)),
            "a table changed to fail with {expected:?} gave {failures:#?}"
        );
        assert_eq!(
            failures.len(),
            1,
            "only the changed row fails: {failures:#?}"
        );
    }
}

#[test]
fn table_cells_parse_as_documented() {
    assert_eq!(
        split_cells("| `a` | x \\| y | `b` and `c` |"),
        ["`a`", "x | y", "`b` and `c`"]
    );
    assert!(is_separator("|---|:--:|---|"));
    assert!(!is_separator("| a | --- |"));
    assert_eq!(code_spans("`b` and `c`, not d"), ["b", "c"]);
    assert!(code_spans("— (nothing logged)").is_empty());
    assert_eq!(
        expected_return("`fmi2Error`"),
        Ok(Returned::Status(Status::Error))
    );
    assert_eq!(expected_return("NULL"), Ok(Returned::Instance(false)));
    assert_eq!(expected_return("an instance"), Ok(Returned::Instance(true)));
    assert!(expected_return("fmi2Oops").is_err());
    assert_eq!(
        expected_state("Instantiated (unchanged)"),
        Ok(Some("Instantiated"))
    );
    assert_eq!(expected_state("—"), Ok(None));
    assert!(expected_state("Broken").is_err());
}
