//! Loading, the call sequences of fmusim (C), fmusim 0.8 (Rust) and FMPy, and instantiation.

use std::sync::Arc;

use fmi_sys::fmi2;

use crate::common::{
    bounce, bounce_contact_times, check_records, fmu_time, initialize, instance_with, ok, real_vrs,
    set, set_inputs, vr, BOUNCE_ACCELERATION,
};
use crate::support;
use crate::support::fmu::{binary_path_in_archive, file_uri};
use crate::support::{
    Environment, Fmu, Instance, InstantiateOptions, LogRecord, ResourceUri, Status, VarType, INPUTS,
};

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
