//! The cases of the parameter rules, the table file of the Gap Force, and parameters set while
//! running.

use std::sync::Arc;

use crate::harness::*;
use crate::support::{ok, vr, Fmu, FmuState, Instance, InstantiateOptions, ResourceUri, Status};
use elastogap::variables::Var;

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

/// The cases both FMI versions' tables make the same way (`support::parameter_cases`).
pub const SHARED_CASES: &[(&str, Case)] = &crate::support::parameter_cases::parameter_cases!();

/// These cases by table key.
pub const CASES: &[(&str, Case)] = &[
    // ---- parameter rules
    ("gap-force-range-emptied-while-running", |fmu| {
        call(fmu, instantiated, |i| {
            ok(set(i, Var::ForceLaw, 7.0));
            let status = tune_while_running(i, Var::RangeMin, 1.0);
            assert_eq!(i.get_real(&[vr(Var::RangeMax)]).1, vec![0.0]);
            status
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
];
