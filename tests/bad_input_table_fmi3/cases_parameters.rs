//! The cases of the parameter rules, inputs, and the table file of the Gap Force.

use std::ptr;
use std::sync::Arc;

use crate::harness::*;
use crate::support::fmi3::{Fmu3, Instance3};
use crate::support::{ok, vr, Status};
use elastogap::variables::Var;
use fmi_sys::fmi3;

/// Sets `var` before initialization (accepted: parameters are checked when they take effect) and
/// returns the status of `fmi3ExitInitializationMode`.
fn exit_with(inst: &mut Instance3, var: Var, value: f64) -> Status {
    ok(set(inst, var, value));
    initializing(inst);
    inst.exit_initialization_mode()
}

fn write_table(fmu: &Arc<Fmu3>, name: &str, text: &str) {
    std::fs::write(fmu.resource_path().join(name), text)
        .expect("the unpacked FMU's resources folder is writable");
}

fn exit_gap_force_with_table(inst: &mut Instance3, table: &str) -> Status {
    ok(set(inst, Var::ForceLaw, 7.0));
    ok(set_string(inst, Var::TableFile, table));
    initializing(inst);
    inst.exit_initialization_mode()
}

fn running_gap_force_with_table(inst: &mut Instance3) {
    ok(exit_gap_force_with_table(inst, "gap_force_example.json"));
    for (var, value) in INPUTS {
        ok(set(inst, var, value));
    }
    ok(inst.do_step(0.0, STEP).status);
}

/// Sets a tunable `var` while running; a refused value must leave the old one (reading is allowed
/// in the Error state).
fn tune_while_running(inst: &mut Instance3, var: Var, value: f64) -> Status {
    running(inst);
    let reference = [vr(var)];
    let before = get_floats(inst, &reference);
    let status = set(inst, var, value);
    if status != Status::Ok {
        assert_eq!(
            get_floats(inst, &reference).1,
            before.1,
            "a refused value leaves the previous one"
        );
    }
    status
}

/// The cases both FMI versions' tables make the same way (`support::parameter_cases`).
pub const SHARED_CASES: &[(&str, Case)] = &crate::support::parameter_cases::parameter_cases!();

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- parameter rules
    ("gap-force-range-emptied-while-running", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            let status = tune_while_running(i, Var::RangeMin, 1.0);
            assert_eq!(get_floats(i, &[vr(Var::RangeMax)]).1, vec![0.0]);
            status
        })
    }),
    ("nan-input", |fmu| {
        call(fmu, running, |i| set(i, Var::FlangeBS, f64::NAN))
    }),
    ("infinite-input", |fmu| {
        call(fmu, instantiated, |i| {
            set(i, Var::FlangeAV, f64::NEG_INFINITY)
        })
    }),
    // ---- the table file
    ("tableFile-relative-without-resources", |fmu| {
        let inst = fresh_with(fmu, |m| m.resources = None);
        call_on(inst, instantiated, |i| {
            exit_gap_force_with_table(i, "gap_force_example.json")
        })
    }),
    ("fixed-tableFile-while-running", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            set_string(i, Var::TableFile, "other.json")
        })
    }),
    ("state-with-other-tables", |fmu| {
        call(fmu, running_gap_force_with_table, |i| {
            let state = get_fmu_state(i);
            let bytes = serialize(i, state);
            ok(reset(i));
            let mut target: fmi3::fmi3FMUState = ptr::null_mut();
            let status = deserialize(i, &bytes, &mut target);
            assert!(target.is_null(), "a refused buffer hands out no state");
            status
        })
    }),
];
