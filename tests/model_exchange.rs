//! The FMU imported as Model Exchange, as Dymola and OpenModelica do it.
//!
//! - The MSL example with both gaps as Model Exchange instances under the adaptive integrator of
//!   `tests/support/model_exchange.rs`: against the high-accuracy solution computed here without
//!   the FMU, against the energy balance, and (when `../shared` is there) against the MSL
//!   reference result within 1e-4, twenty times tighter than the MSL tube.
//! - The interface itself: outputs as functions of the inputs of the moment, `contact` changing
//!   only in Event Mode, the event indicators and the state derivative against the law of
//!   `tests/support/gap_law.rs`, directional derivatives against finite differences, the joint
//!   state table and the FMU state.

mod support;

use std::sync::Arc;

use fmi_sys::fmi2;
use support::cosim::{Coupling, DemoOptions, TimeSeries, COMPARISON_SIGNALS};
use support::gap_law::{Forces, Law};
use support::model_exchange;
use support::msl_reference;
use support::{Fmu, FmuState, Instance, InstantiateOptions, Status, VarType};

/// The MSL comparison tube is 2e-3; Model Exchange must stay inside a twentieth of it.
const MODEL_EXCHANGE_TUBE: f64 = 1e-4;

fn me_instance(fmu: &Arc<Fmu>, name: &str) -> Instance {
    let options = InstantiateOptions {
        fmu_type: fmi2::fmi2Type_fmi2ModelExchange,
        ..InstantiateOptions::named(name)
    };
    Instance::instantiate(fmu, &options)
        .unwrap_or_else(|f| panic!("fmi2Instantiate(ModelExchange) failed: {:?}", f.logs))
}

const C: f64 = 1e4;
const D: f64 = 30.0;
const S_REL0: f64 = 0.01;
/// The test's law: the parameters it sets, the others at their defaults.
const LAW: Law = Law {
    c: C,
    d: D,
    s_rel0: S_REL0,
    n: 1.0,
    s_ref: 1.0,
    f_ref: 0.0,
};

/// An ME instance in Continuous-Time Mode with the test's law and the heat port on.
fn running(fmu: &Arc<Fmu>, name: &str) -> Instance {
    let mut inst = me_instance(fmu, name);
    for (p, v) in [("c", C), ("d", D), ("s_rel0", S_REL0)] {
        assert_eq!(inst.set_real_by_name(p, v), Status::Ok);
    }
    assert_eq!(inst.set_boolean_by_name("useHeatPort", true), Status::Ok);
    assert_eq!(inst.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(inst.enter_initialization_mode(), Status::Ok);
    assert_eq!(inst.exit_initialization_mode(), Status::Ok);
    let (status, _) = inst.new_discrete_states();
    assert_eq!(status, Status::Ok);
    assert_eq!(inst.enter_continuous_time_mode(), Status::Ok);
    inst
}

fn set_motion(inst: &mut Instance, s_rel: f64, v_rel: f64) {
    let md = &inst.fmu().model_description;
    let vrs = support::INPUTS.map(|n| md.vr(n, VarType::Real));
    // flange_a moves too, so that both inputs enter with their signs.
    assert_eq!(
        inst.set_real(&vrs, &[0.3, -0.2, 0.3 + s_rel, -0.2 + v_rel]),
        Status::Ok
    );
}

#[test]
fn msl_example_as_model_exchange_matches_the_high_accuracy_solution_and_msl() {
    let fmu = Fmu::load_default();
    let options = DemoOptions {
        step: 0.005,
        coupling: Coupling::ModelExchange,
        ..DemoOptions::default()
    };
    let (run, stats) = model_exchange::run(&fmu, &options).expect("the Model Exchange run");
    println!("Model Exchange integration: {stats:?}");
    assert!(
        stats.events >= 10,
        "the example has many contact switches: {stats:?}"
    );

    let times: Vec<f64> = run.rows.iter().map(|r| r.time).collect();
    let exact = msl_reference::comparison_at(&times);
    let mut worst = [0.0f64; 4];
    for (row, expected) in run.rows.iter().zip(&exact) {
        for (j, (ours, theirs)) in row.comparison().iter().zip(expected).enumerate() {
            worst[j] = worst[j].max((ours - theirs).abs());
        }
    }
    for (name, deviation) in COMPARISON_SIGNALS.iter().zip(worst) {
        println!("  {name}: {deviation:.2e} from the high-accuracy solution");
    }
    assert!(
        worst.iter().all(|d| *d < 1e-6),
        "Model Exchange deviates from the high-accuracy solution by {worst:?}"
    );

    // Energy: mass2 and the two gap springs lose exactly what the gaps report as E_loss.
    let energy = |row: &support::cosim::Row| {
        let spring = |s_rel: f64| {
            let delta = (msl_reference::GAP_S_REL0 - s_rel).max(0.0);
            0.5 * msl_reference::GAP_C * delta * delta
        };
        0.5 * msl_reference::M * row.v2 * row.v2
            + spring(row.gap1.s_rel)
            + spring(row.gap2.s_rel)
            + row.gap1.e_loss
            + row.gap2.e_loss
    };
    let initial = energy(&run.rows[0]);
    let drift = run
        .rows
        .iter()
        .map(|r| (energy(r) - initial).abs())
        .fold(0.0, f64::max);
    let last = run.rows.last().expect("rows");
    println!(
        "energy balance: {initial:.6} J at start, E_loss = {:.6} + {:.6} J at the end, drift {drift:.2e} J",
        last.gap1.e_loss, last.gap2.e_loss
    );
    assert!(
        last.gap1.e_loss + last.gap2.e_loss > 1.0,
        "the gaps dissipate"
    );
    assert!(drift < 1e-7, "energy is not conserved: drift {drift:e} J");

    let Some(reference) = msl_reference::shared_reference_csv() else {
        return;
    };
    let msl = TimeSeries::read_csv(&reference).expect("read the MSL reference");
    let deviation = support::cosim::max_deviation_from_csv(&run, &msl).expect("compare");
    for (name, (d, t)) in COMPARISON_SIGNALS.iter().zip(deviation) {
        println!("  {name}: {d:.2e} from the MSL reference (at t = {t:.3} s)");
        assert!(
            d < MODEL_EXCHANGE_TUBE,
            "{name} leaves the {MODEL_EXCHANGE_TUBE} tube: {d:e} at t = {t}"
        );
    }
}

#[test]
fn outputs_are_functions_of_the_inputs_and_contact_changes_only_at_events() {
    let fmu = Fmu::load_default();
    let mut inst = running(&fmu, "me");
    let mut checked = 0;
    for s_rel in [0.02, 0.01, 0.009, 0.005, 0.0, -0.002] {
        for v_rel in [-3.0, -1.0, -0.1, 0.0, 0.1, 1.0, 3.0] {
            set_motion(&mut inst, s_rel, v_rel);
            let Forces {
                f,
                f_c,
                f_d,
                loss_power: loss,
                ..
            } = LAW.forces(s_rel, v_rel);
            let got = [
                inst.real("f"),
                inst.real("f_c"),
                inst.real("f_d"),
                inst.real("lossPower"),
                inst.real("heatPort.Q_flow"),
                inst.real("der(E_loss)"),
            ];
            let want = [f, f_c, f_d, loss, -loss, loss];
            for (g, w) in got.iter().zip(want) {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs().max(1.0),
                    "s_rel = {s_rel}, v_rel = {v_rel}: got {got:?}, law {want:?}"
                );
            }
            let (status, dx) = inst.get_derivatives(3);
            assert_eq!(status, Status::Ok);
            assert_eq!(dx[0], got[5], "fmi2GetDerivatives is der(E_loss)");
            let (status, z) = inst.get_event_indicators(4);
            assert_eq!(status, Status::Ok);
            // The FMU sees s_rel as flange_b.s - flange_a.s, rounded as set_motion's inputs are.
            assert_eq!(z[0], (0.3 + s_rel) - 0.3 - S_REL0, "contact indicator");
            let bound = (D * v_rel).abs() + f_c;
            assert!(
                (z[1] - bound).abs() <= 1e-12 * bound.abs().max(1.0),
                "bound indicator {z:?}"
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 42);

    // Out of contact in Continuous-Time Mode; moving into contact there leaves `contact` as it
    // was at the last event until the importer handles the event.
    set_motion(&mut inst, 0.02, 0.0);
    assert_eq!(inst.enter_event_mode(), Status::Ok);
    assert_eq!(inst.new_discrete_states().0, Status::Ok);
    assert_eq!(inst.enter_continuous_time_mode(), Status::Ok);
    assert!(!inst.boolean("contact"));
    set_motion(&mut inst, 0.005, -1.0);
    assert!(inst.real("f") < 0.0, "the force acts at once");
    assert!(
        !inst.boolean("contact"),
        "a discrete output waits for the event"
    );
    assert_eq!(inst.enter_event_mode(), Status::Ok);
    let (status, info) = inst.new_discrete_states();
    assert_eq!(status, Status::Ok);
    assert_eq!(
        (
            info.newDiscreteStatesNeeded,
            info.terminateSimulation,
            info.valuesOfContinuousStatesChanged,
            info.nextEventTimeDefined
        ),
        (0, 0, 0, 0)
    );
    assert!(inst.boolean("contact"));
    assert_eq!(
        inst.real("f_mean"),
        inst.real("f"),
        "f_mean holds f as of the event"
    );
}

#[test]
fn the_state_is_the_importers_and_directional_derivatives_match_finite_differences() {
    let fmu = Fmu::load_default();
    let mut inst = running(&fmu, "me");
    // E_loss, then the stiction deformation (0 without stick-slip).
    let (status, x) = inst.get_continuous_states(3);
    assert_eq!((status, x), (Status::Ok, vec![0.0; 3]));
    let (status, nominal) = inst.get_nominals_of_continuous_states(3);
    assert_eq!((status, nominal), (Status::Ok, vec![1.0; 3]));
    assert_eq!(inst.set_continuous_states(&[2.5, 0.0, 0.0]), Status::Ok);
    assert_eq!(inst.real("E_loss"), 2.5);
    assert_eq!(inst.set_time(0.125), Status::Ok);
    let (status, x) = inst.get_continuous_states(3);
    assert_eq!((status, x[0]), (Status::Ok, 2.5));

    let md = fmu.model_description.clone();
    let vr = |n: &str| md.vr(n, VarType::Real);
    let knowns = [
        "flange_a.s",
        "flange_a.v",
        "flange_b.s",
        "flange_b.v",
        "E_loss",
    ];
    let unknowns = ["f", "lossPower", "heatPort.Q_flow", "der(E_loss)", "E_loss"];
    let unknown_vrs: Vec<u32> = unknowns.iter().map(|n| vr(n)).collect();
    for (s_rel, v_rel) in [(0.005, -0.4), (0.005, 0.1), (0.002, 2.0), (0.02, -1.0)] {
        set_motion(&mut inst, s_rel, v_rel);
        let base: Vec<f64> = unknowns.iter().map(|n| inst.real(n)).collect();
        for known in knowns {
            let (status, analytic) =
                inst.get_directional_derivative(&unknown_vrs, &[vr(known)], &[1.0]);
            assert_eq!(status, Status::Ok, "d/d{known}");
            let h = 1e-7;
            let (_, current) = inst.get_real(&[vr(known)]);
            let perturbed = current[0] + h;
            if known == "E_loss" {
                assert_eq!(
                    inst.set_continuous_states(&[perturbed, 0.0, 0.0]),
                    Status::Ok
                );
            } else {
                assert_eq!(inst.set_real(&[vr(known)], &[perturbed]), Status::Ok);
            }
            for (k, name) in unknowns.iter().enumerate() {
                let numeric = (inst.real(name) - base[k]) / h;
                assert!(
                    (numeric - analytic[k]).abs() <= 1e-4 * numeric.abs().max(1.0),
                    "d{name}/d{known} at s_rel = {s_rel}, v_rel = {v_rel}: {} analytic, {numeric} numeric",
                    analytic[k]
                );
            }
            if known == "E_loss" {
                assert_eq!(
                    inst.set_continuous_states(&[current[0], 0.0, 0.0]),
                    Status::Ok
                );
            } else {
                assert_eq!(inst.set_real(&[vr(known)], &[current[0]]), Status::Ok);
            }
        }
    }
}

#[test]
fn each_interface_refuses_the_others_calls_and_states() {
    let fmu = Fmu::load_default();
    let mut me = running(&fmu, "me");
    assert_eq!(me.do_step(0.0, 1e-3, true), Status::Error);
    let message = me
        .logs()
        .last()
        .map(|r| r.message.clone())
        .unwrap_or_default();
    assert!(
        message.contains("fmi2DoStep") && message.contains("Model Exchange"),
        "{message}"
    );

    let mut cs = Instance::new(&fmu, "cs");
    assert_eq!(cs.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(cs.enter_initialization_mode(), Status::Ok);
    assert_eq!(cs.exit_initialization_mode(), Status::Ok);
    assert_eq!(cs.set_time(0.5), Status::Error);
    let message = cs
        .logs()
        .last()
        .map(|r| r.message.clone())
        .unwrap_or_default();
    assert!(
        message.contains("fmi2SetTime") && message.contains("co-simulation"),
        "{message}"
    );

    // Model Exchange's own state machine: no derivatives before initialization, no continuous
    // states outside Continuous-Time Mode, no tunable parameters there either.
    let mut fresh = me_instance(&fmu, "fresh");
    assert_eq!(fresh.get_derivatives(3).0, Status::Error);
    let mut fresh = me_instance(&fmu, "fresh2");
    assert_eq!(fresh.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(fresh.enter_initialization_mode(), Status::Ok);
    assert_eq!(fresh.exit_initialization_mode(), Status::Ok);
    assert_eq!(
        fresh.set_continuous_states(&[1.0, 0.0, 0.0]),
        Status::Error,
        "Event Mode"
    );
    let mut ct = running(&fmu, "ct");
    assert_eq!(ct.set_real_by_name("d", 5.0), Status::Error);
    assert!(ct.logs().last().unwrap().message.contains("Event Mode"));
    let mut ct = running(&fmu, "ct2");
    assert_eq!(ct.get_event_indicators(5).0, Status::Error, "wrong ni");
    let mut ct = running(&fmu, "ct3");
    assert_eq!(
        ct.set_continuous_states(&[f64::NAN, 0.0, 0.0]),
        Status::Error
    );

    // A state of one interface is not restored into the other.
    let mut cs_state = FmuState::null();
    assert_eq!(cs.get_fmu_state(&mut cs_state), Status::Ok);
    let (status, bytes) = cs.serialize_fmu_state(&cs_state);
    assert_eq!(status, Status::Ok);
    let mut me2 = running(&fmu, "me2");
    let mut into_me = FmuState::null();
    assert_eq!(
        me2.deserialize_fmu_state(&bytes, &mut into_me),
        Status::Error
    );
    assert!(me2
        .logs()
        .last()
        .unwrap()
        .message
        .contains("co-simulation instance"));
}

#[test]
fn fmu_state_of_a_model_exchange_instance_restores_everything() {
    let fmu = Fmu::load_default();
    let mut inst = running(&fmu, "me");
    set_motion(&mut inst, 0.004, -0.5);
    assert_eq!(inst.set_continuous_states(&[0.75, 0.0, 0.0]), Status::Ok);
    assert_eq!(inst.enter_event_mode(), Status::Ok);
    assert_eq!(inst.new_discrete_states().0, Status::Ok);
    assert_eq!(inst.enter_continuous_time_mode(), Status::Ok);
    let names = ["f", "lossPower", "E_loss", "f_mean", "heatPort.Q_flow"];
    let before: Vec<f64> = names.iter().map(|n| inst.real(n)).collect();
    let mut state = FmuState::null();
    assert_eq!(inst.get_fmu_state(&mut state), Status::Ok);
    let (status, bytes) = inst.serialize_fmu_state(&state);
    assert_eq!(status, Status::Ok);

    set_motion(&mut inst, 0.02, 1.0);
    assert_eq!(inst.set_continuous_states(&[9.0, 0.0, 0.0]), Status::Ok);
    assert_eq!(inst.enter_event_mode(), Status::Ok);
    assert_eq!(inst.new_discrete_states().0, Status::Ok);
    assert!(!inst.boolean("contact"));

    let mut restored = FmuState::null();
    assert_eq!(
        inst.deserialize_fmu_state(&bytes, &mut restored),
        Status::Ok
    );
    assert_eq!(inst.set_fmu_state(&restored), Status::Ok);
    let after: Vec<f64> = names.iter().map(|n| inst.real(n)).collect();
    assert_eq!(before, after);
    assert!(inst.boolean("contact"));
    assert_eq!(inst.free_fmu_state(&mut state), Status::Ok);
    assert_eq!(inst.free_fmu_state(&mut restored), Status::Ok);
}

/// What OpenModelica's Model Exchange import does: `fmi2SetTime` right after instantiation (before
/// 2022) and every parameter written again after `fmi2ExitInitializationMode` (before 2026-08).
/// Both are accepted, the second only as long as a fixed parameter keeps its value.
#[test]
fn openmodelica_call_sequence_is_accepted() {
    let fmu = Fmu::load_default();
    let mut inst = me_instance(&fmu, "openmodelica");
    assert_eq!(inst.set_time(0.0), Status::Ok);
    assert_eq!(inst.setup_experiment(None, 0.0, None), Status::Ok);
    assert_eq!(inst.enter_initialization_mode(), Status::Ok);
    assert_eq!(inst.exit_initialization_mode(), Status::Ok);
    for (p, v) in [("c", C), ("d", D), ("s_rel0", S_REL0)] {
        assert_eq!(inst.set_real_by_name(p, v), Status::Ok, "{p}");
    }
    assert_eq!(inst.set_boolean_by_name("useHeatPort", false), Status::Ok);
    assert_eq!(inst.new_discrete_states().0, Status::Ok);
    assert_eq!(inst.enter_continuous_time_mode(), Status::Ok);
    set_motion(&mut inst, 0.005, -1.0);
    let f = LAW.forces(0.005, -1.0).f;
    assert!(
        (inst.real("f") - f).abs() <= 1e-12 * f.abs(),
        "the parameters took effect"
    );
    assert_eq!(inst.real("heatPort.Q_flow"), 0.0);
    assert!(inst.logs().is_empty(), "{:?}", inst.logs());

    // A change of the fixed parameter cannot be honoured after initialization: refused.
    assert_eq!(inst.enter_event_mode(), Status::Ok);
    assert_eq!(inst.set_boolean_by_name("useHeatPort", true), Status::Error);
    assert!(inst
        .logs()
        .last()
        .unwrap()
        .message
        .contains("fixed parameter"));
}

/// A solver locates a contact event a rounding error before or after `s_rel0`. At the event,
/// `contact` must already take the side the motion heads to: FMPy's CVode returns roots just short
/// of the crossing, which would otherwise leave `contact` false through a whole contact.
#[test]
fn contact_at_a_located_root_follows_the_direction_of_motion() {
    let fmu = Fmu::load_default();
    let mut inst = running(&fmu, "me");
    let event = |inst: &mut Instance, s_rel: f64, v_rel: f64| {
        set_motion(inst, s_rel, v_rel);
        assert_eq!(inst.enter_event_mode(), Status::Ok);
        assert_eq!(inst.new_discrete_states().0, Status::Ok);
        assert_eq!(inst.enter_continuous_time_mode(), Status::Ok);
        inst.boolean("contact")
    };
    let just = 1e-13;
    assert!(
        event(&mut inst, S_REL0 + just, -0.5),
        "closing, a hair before the crossing"
    );
    assert!(
        !event(&mut inst, S_REL0 - just, 0.5),
        "opening, a hair before the crossing"
    );
    assert!(
        event(&mut inst, S_REL0 - 1e-6, 0.5),
        "clearly inside, whatever the motion"
    );
    assert!(
        !event(&mut inst, S_REL0 + 1e-6, -0.5),
        "clearly outside, whatever the motion"
    );
    assert!(
        !event(&mut inst, S_REL0, 0.0),
        "grazing at rest: no contact"
    );
}
