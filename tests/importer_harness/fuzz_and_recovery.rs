//! Inputs found by fuzzing the C ABI (steps refused, outputs beyond f64, states with unchecked
//! parameters, fuzzed serialized states) and recovery from fmi2Error.

use crate::common::{expect_error, fmu_time, initialize, ok, set, set_inputs};
use crate::support::{Fmu, FmuState, Instance, Status, VarType, REALS};

// ---------------------------------------------------------------------------------------------
// Inputs from fuzzing the C ABI (fuzz/)
// ---------------------------------------------------------------------------------------------

/// At a large time the relative slack on the communication point exceeds a short last step; a
/// step restated at the previous step's start must be refused, not run with a zero time
/// difference in the acceleration estimate (which would give NaN outputs under fmi2OK). A step too
/// small to advance the time in double precision is refused too.
#[test]
fn steps_that_restart_at_the_last_step_start_or_do_not_advance_time_are_refused() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "restated-time");
    ok(inst.setup_experiment(None, 1e6, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    set_inputs(&mut inst, [0.0, 0.0, 0.1, -1.0]);
    ok(inst.do_step(1e6, 1e-6, false));
    set_inputs(&mut inst, [0.0, 0.0, 0.1, -2.0]);
    let status = inst.do_step(1e6, 1e-3, false);
    expect_error(
        &inst,
        status,
        &["currentCommunicationPoint = 1000000 ", "FMU's time"],
    );

    let mut inst = Instance::new(&fmu, "no-advance");
    ok(inst.setup_experiment(None, 1e6, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    // Half an ulp of 1e6 is 5.8e-11: 1e6 + 1e-12 == 1e6.
    let status = inst.do_step(1e6, 1e-12, false);
    expect_error(
        &inst,
        status,
        &["communicationStepSize = 1e-12", "does not advance"],
    );
}

/// Parameters and inputs that each keep their rules can overflow the law together: f_ref =
/// 1e308 at ten times s_ref with n = 2 is a force of -1e310 N. fmi2GetReal must refuse such an
/// output with a reason rather than return -inf under fmi2OK; outputs that are finite still read.
#[test]
fn an_output_beyond_f64_is_refused_with_a_reason() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "overflowing-force");
    initialize(&mut inst, &[("f_ref", 1e308), ("n", 2.0), ("s_ref", 1.0)]);
    set_inputs(&mut inst, [0.0, 0.0, -10.0, 0.0]);
    let (status, _) = inst.get_real_by_name("f");
    expect_error(&inst, status, &["f = -inf is not finite"]);
    let mut inst = Instance::new(&fmu, "overflowing-force-s_rel");
    initialize(&mut inst, &[("f_ref", 1e308), ("n", 2.0), ("s_ref", 1.0)]);
    set_inputs(&mut inst, [0.0, 0.0, -10.0, 0.0]);
    assert_eq!(inst.real("s_rel"), -10.0);
}

/// An FMU state taken before initialization holds parameters nobody checked yet (d = -5 here);
/// restoring it once the parameters are in effect must be refused, or the damper would feed
/// energy in (lossPower < 0) under fmi2OK.
#[test]
fn a_state_with_unchecked_parameters_is_refused_after_initialization() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "unchecked-state");
    ok(set(&mut inst, "d", -5.0));
    let mut early = FmuState::null();
    ok(inst.get_fmu_state(&mut early));
    ok(set(&mut inst, "d", 1.0));
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    let status = inst.set_fmu_state(&early);
    expect_error(&inst, status, &["d = -5"]);
}

// ---------------------------------------------------------------------------------------------
// Recovery from fmi2Error
// ---------------------------------------------------------------------------------------------

/// FMI 2.0, 2.1.3: after fmi2Error the master may restore a previously retrieved FMU state and go
/// on. The instance must step again from the restored values, exactly as from the first visit.
#[test]
fn restoring_a_state_after_an_error_resumes_stepping_from_it() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "recovery");
    initialize(&mut inst, &[("c", 1e4), ("d", 20.0), ("s_rel0", 0.1)]);
    set_inputs(&mut inst, [0.0, 0.0, 0.5, -1.0]);
    ok(inst.do_step(0.0, 1e-3, false));
    let mut saved = FmuState::null();
    ok(inst.get_fmu_state(&mut saved));
    set_inputs(&mut inst, [0.0, 0.0, 0.099, -1.0]);
    ok(inst.do_step(1e-3, 1e-3, false));
    let first_visit = (inst.real("f_mean"), inst.real("E_loss"));
    assert!(
        first_visit.0 < 0.0,
        "the step must be in contact: {first_visit:?}"
    );

    let status = inst.do_step(5.0, 1e-3, false);
    expect_error(&inst, status, &["currentCommunicationPoint = 5"]);
    assert_eq!(
        inst.do_step(2e-3, 1e-3, false),
        Status::Error,
        "Error state"
    );

    ok(inst.set_fmu_state(&saved));
    set_inputs(&mut inst, [0.0, 0.0, 0.099, -1.0]);
    ok(inst.do_step(1e-3, 1e-3, false));
    let second_visit = (inst.real("f_mean"), inst.real("E_loss"));
    assert_eq!(
        (first_visit.0.to_bits(), first_visit.1.to_bits()),
        (second_visit.0.to_bits(), second_visit.1.to_bits())
    );
    ok(inst.free_fmu_state(&mut saved));
}

/// A refused fmi2SetReal changes none of its values, also those listed before the refused one.
#[test]
fn a_refused_set_changes_none_of_its_values() {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, "all-or-nothing");
    initialize(&mut inst, &[("c", 1e4), ("d", 20.0)]);
    let (c, d) = (inst.vr("c", VarType::Real), inst.vr("d", VarType::Real));
    let status = inst.set_real(&[c, d], &[2e4, -1.0]);
    expect_error(&inst, status, &["d = -1 is not allowed"]);
    // Values stay readable in the Error state.
    assert_eq!(inst.real("c"), 1e4);
    assert_eq!(inst.real("d"), 20.0);
}

/// A serialized state from fuzz/deserialize_state whose step ends with a finite f but an infinite
/// lossPower (the bounded damper force near the largest double times v_rel): stepped with fmi2OK,
/// it would leave outputs that cannot be read. Every step fmi2DoStep accepts must leave all
/// outputs and locals readable.
#[test]
fn every_step_accepted_from_a_fuzzed_state_leaves_readable_outputs() {
    let accepted = steps_from_a_fuzzed_state(
        "fuzzed-state",
        include_bytes!("../data/state_with_overflowing_loss_power.bin"),
    );
    assert!(
        accepted >= 1,
        "the first step from the state is an ordinary one"
    );
}

/// A state from fuzz/deserialize_state from which a step would leave E_port (the sum of held force
/// times displacement) infinite, and unreadable: a step whose port energy is not finite is
/// refused, like one whose E_loss is not.
#[test]
fn every_step_accepted_from_a_state_near_the_port_energys_range_leaves_it_readable() {
    steps_from_a_fuzzed_state(
        "fuzzed-port-energy",
        include_bytes!("../data/state_with_overflowing_port_energy.bin"),
    );
}

/// A state from fuzz/deserialize_state from which a step of a law that is not piecewise affine
/// meets a piece whose damper bound switches three times (on each side of the turn of v_rel and
/// once after it): the integration must take every kink of the piece rather than panic into
/// fmi2Fatal, and every step from it is an ordinary one.
#[test]
fn a_state_whose_step_has_three_kinks_in_one_piece_steps() {
    let accepted = steps_from_a_fuzzed_state(
        "fuzzed-three-kinks",
        include_bytes!("../data/state_with_three_kinks_in_one_piece.bin"),
    );
    assert_eq!(
        accepted, 3,
        "all three steps from the state are ordinary ones"
    );
}

/// Restores `bytes` and steps by 1e-3, 0.25 and 1000 s while the FMU accepts the steps, checking
/// after each that every recorded Real and E_port reads back finite; returns how many it accepted.
fn steps_from_a_fuzzed_state(name: &str, bytes: &[u8]) -> usize {
    let fmu = Fmu::load_default();
    let mut inst = Instance::new(&fmu, name);
    initialize(&mut inst, &[]);
    ok(inst.do_step(0.0, 1e-3, false));
    let mut state = FmuState::null();
    ok(inst.deserialize_fmu_state(bytes, &mut state));
    ok(inst.set_fmu_state(&state));
    let every_real: Vec<u32> = REALS
        .iter()
        .chain(["E_port"].iter())
        .map(|name| inst.vr(name, VarType::Real))
        .collect();
    let mut accepted = 0;
    for h in [1e-3, 0.25, 1e3] {
        let time = fmu_time(&mut inst);
        let status = inst.do_step(time, h, false);
        assert_ne!(status, Status::Fatal, "a step of {h} s from the state");
        if status != Status::Ok {
            break;
        }
        accepted += 1;
        let (status, values) = inst.get_real(&every_real);
        assert_eq!(
            status,
            Status::Ok,
            "outputs after an accepted step of {h} s"
        );
        assert!(values.iter().all(|v| v.is_finite()), "{values:?}");
        ok(set(&mut inst, "flange_b.v", -0.1));
    }
    accepted
}
