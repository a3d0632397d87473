//! Writes the committed seeds of the `deserialize_state` target: valid states the FMU serialized
//! itself, from situations that reach different code (contact, supplied derivatives, a full
//! velocity history, the heat port, Model Exchange in Event and Continuous-Time Mode), so mutations
//! start from meaningful buffers.
//!
//! `cargo run --example write_seeds -- corpus/deserialize_state` (from fuzz/).

use std::path::PathBuf;

use elastogap::fmi2::*;
use elastogap::variables::{by_var, Kind, Var};
use elastogap_fuzz::{Instance, CO_SIMULATION, MODEL_EXCHANGE, OK};
use fmi_sys::fmi2::{fmi2EventInfo, fmi2FMUstate};

fn ok(status: u32, what: &str) {
    assert_eq!(status, OK, "{what}");
}

/// Runs `scenario` on an initialized instance of `fmu_type` and returns the serialized state it
/// ends in.
fn serialized_after(
    fmu_type: u32,
    parameters: &[(Var, f64)],
    use_heat_port: bool,
    scenario: impl FnOnce(&Instance),
) -> Vec<u8> {
    let instance = Instance::standard_of(fmu_type);
    ok(
        instance.call("fmi2SetupExperiment", |c| unsafe {
            fmi2SetupExperiment(c, 0, 0.0, 0.0, 0, 0.0)
        }),
        "setup",
    );
    ok(
        instance.call("fmi2EnterInitializationMode", |c| unsafe {
            fmi2EnterInitializationMode(c)
        }),
        "enter",
    );
    // Reals by fmi2SetReal, the choices (Integers, Enumerations) by fmi2SetInteger.
    let (reals, choices): (Vec<_>, Vec<_>) = parameters
        .iter()
        .partition(|(var, _)| by_var(*var).kind == Kind::Real);
    ok(instance.set_reals(&reals), "parameters");
    for (var, value) in choices {
        let vr = [by_var(var).value_reference];
        let value = [value as i32];
        ok(
            instance.call("fmi2SetInteger", |c| unsafe {
                fmi2SetInteger(c, vr.as_ptr(), 1, value.as_ptr())
            }),
            "choice",
        );
    }
    let vr = [by_var(Var::UseHeatPort).value_reference];
    let flag = [i32::from(use_heat_port)];
    ok(
        instance.call("fmi2SetBoolean", |c| unsafe {
            fmi2SetBoolean(c, vr.as_ptr(), 1, flag.as_ptr())
        }),
        "useHeatPort",
    );
    ok(
        instance.call("fmi2ExitInitializationMode", |c| unsafe {
            fmi2ExitInitializationMode(c)
        }),
        "exit",
    );
    scenario(&instance);
    let mut state: fmi2FMUstate = std::ptr::null_mut();
    ok(
        instance.call("fmi2GetFMUstate", |c| unsafe {
            fmi2GetFMUstate(c, &mut state)
        }),
        "get state",
    );
    let mut size = 0;
    ok(
        instance.call("fmi2SerializedFMUstateSize", |c| unsafe {
            fmi2SerializedFMUstateSize(c, state, &mut size)
        }),
        "size",
    );
    let mut bytes = vec![0u8; size];
    ok(
        instance.call("fmi2SerializeFMUstate", |c| unsafe {
            fmi2SerializeFMUstate(c, state, bytes.as_mut_ptr().cast(), size)
        }),
        "serialize",
    );
    bytes
}

fn steps(instance: &Instance, count: u32, h: f64, inputs: impl Fn(f64) -> Vec<(Var, f64)>) {
    for k in 0..count {
        let t = f64::from(k) * h;
        ok(instance.set_reals(&inputs(t)), "inputs");
        ok(
            instance.call("fmi2DoStep", |c| unsafe { fmi2DoStep(c, t, h, 0) }),
            "step",
        );
    }
}

/// Model Exchange, from Event Mode: the inputs, the event, Continuous-Time Mode and one integrator
/// step to t = 1e-3 that sets E_loss.
fn integrator_step(instance: &Instance, inputs: &[(Var, f64)], e_loss: f64) {
    ok(instance.set_reals(inputs), "inputs");
    let mut info = fmi2EventInfo::default();
    ok(
        instance.call("fmi2NewDiscreteStates", |c| unsafe {
            fmi2NewDiscreteStates(c, &mut info)
        }),
        "event",
    );
    ok(
        instance.call("fmi2EnterContinuousTimeMode", |c| unsafe {
            fmi2EnterContinuousTimeMode(c)
        }),
        "continuous-time mode",
    );
    ok(
        instance.call("fmi2SetTime", |c| unsafe { fmi2SetTime(c, 1e-3) }),
        "time",
    );
    // E_loss, then the stick-slip deformation (xi_x, xi_y), at rest.
    let x = [e_loss, 0.0, 0.0];
    ok(
        instance.call("fmi2SetContinuousStates", |c| unsafe {
            fmi2SetContinuousStates(c, x.as_ptr(), x.len())
        }),
        "states",
    );
    let (mut enter, mut terminate) = (0, 0);
    ok(
        instance.call("fmi2CompletedIntegratorStep", |c| unsafe {
            fmi2CompletedIntegratorStep(c, 1, &mut enter, &mut terminate)
        }),
        "integrator step",
    );
}

fn main() {
    let directory = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "corpus/deserialize_state".into()),
    );
    std::fs::create_dir_all(&directory).expect("corpus directory");
    let stiff = [(Var::C, 1e4), (Var::D, 20.0), (Var::N, 1.5)];
    // An impact: flange_b approaches and bounces, in contact at the end.
    let approach = |t: f64| vec![(Var::FlangeBS, 1e-3 - 0.5 * t), (Var::FlangeBV, -0.5)];
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("fresh", serialized_after(CO_SIMULATION, &[], false, |_| {})),
        (
            "one_step_free",
            serialized_after(CO_SIMULATION, &[], false, |i| steps(i, 1, 1e-3, |_| vec![])),
        ),
        (
            "impact_in_contact",
            serialized_after(CO_SIMULATION, &stiff, false, |i| {
                steps(i, 5, 1e-3, approach)
            }),
        ),
        (
            "impact_heat_port",
            serialized_after(CO_SIMULATION, &stiff, true, |i| steps(i, 5, 1e-3, approach)),
        ),
        (
            "supplied_derivatives",
            serialized_after(CO_SIMULATION, &stiff, false, |i| {
                steps(i, 2, 1e-3, approach);
                let vrs = [
                    by_var(Var::FlangeAV).value_reference,
                    by_var(Var::FlangeBS).value_reference,
                ];
                let orders = [1, 2];
                let values = [0.25, -3.0];
                ok(
                    i.call("fmi2SetRealInputDerivatives", |c| unsafe {
                        fmi2SetRealInputDerivatives(
                            c,
                            vrs.as_ptr(),
                            2,
                            orders.as_ptr(),
                            values.as_ptr(),
                        )
                    }),
                    "derivatives",
                );
            }),
        ),
        (
            "nonlinear_fine_substeps",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::C, 1e6),
                    (Var::N, 3.0),
                    (Var::SRel0, 0.01),
                    (Var::MaxSubstepSize, 1e-6),
                    (Var::FRef, 50.0),
                ],
                false,
                |i| {
                    steps(i, 4, 2e-3, |t| {
                        vec![(Var::FlangeAV, 2.0 + t), (Var::FlangeAS, 2.0 * t)]
                    })
                },
            ),
        ),
        (
            // The contact's own dynamics with a given mass, a correction under way.
            "dynamic_in_contact",
            serialized_after(
                CO_SIMULATION,
                &[(Var::C, 1e4), (Var::D, 20.0), (Var::MEff, 1.0)],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            // A whole contact inside one step with the mass unknown: the episode behind the mass
            // estimate, then the estimate and the replay of the first contact.
            "dynamic_estimated",
            serialized_after(
                CO_SIMULATION,
                &[(Var::C, 1e6), (Var::D, 200.0)],
                false,
                |i| {
                    let h = 0.02;
                    let (mut x, mut v) = (0.05, -1.0);
                    for k in 0..6 {
                        let t = f64::from(k) * h;
                        ok(
                            i.set_reals(&[(Var::FlangeBS, x), (Var::FlangeBV, v)]),
                            "inputs",
                        );
                        ok(
                            i.call("fmi2DoStep", |c| unsafe { fmi2DoStep(c, t, h, 0) }),
                            "step",
                        );
                        let f_mean = i.get_real(Var::FMean).expect("f_mean");
                        x += h * (v - 0.5 * f_mean * h);
                        v -= f_mean * h;
                    }
                },
            ),
        ),
        (
            // Hunt-Crossley in contact: chi from the touch-down speed located in a step.
            "hunt_crossley_in_contact",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::ForceLaw, 4.0),
                    (Var::C, 1e4),
                    (Var::N, 1.5),
                    (Var::E, 0.6),
                ],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            "adams_impact_dynamic",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::ForceLaw, 5.0),
                    (Var::C, 1e4),
                    (Var::D, 20.0),
                    (Var::DMax, 2e-4),
                    (Var::MEff, 1.0),
                ],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            "recurdyn_step_damping",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::ForceLaw, 6.0),
                    (Var::RecurDynDamping, 2.0),
                    (Var::C, 1e4),
                    (Var::D, 20.0),
                    (Var::Rdf, 0.1),
                ],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            // The two-sided Gap Force (analytic: its deserialized state needs no tables), in its
            // range with a preload and the dynamics.
            "gap_force_dynamic",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::ForceLaw, 7.0),
                    (Var::C, 1e4),
                    (Var::D, 20.0),
                    (Var::NV, 1.5),
                    (Var::Preload, 2.0),
                    (Var::RangeMin, -0.01),
                    (Var::RangeMax, 0.002),
                    (Var::MEff, 1.0),
                ],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            // Adams friction on ElastoGap, sliding, with the dynamics.
            "friction_adams_dynamic",
            serialized_after(
                CO_SIMULATION,
                &[
                    (Var::FrictionLaw, 2.0),
                    (Var::C, 1e4),
                    (Var::D, 20.0),
                    (Var::FTMax, 15.0),
                    (Var::VTx, 0.3),
                    (Var::VTy, -0.4),
                    (Var::MEff, 1.0),
                ],
                false,
                |i| steps(i, 5, 1e-3, approach),
            ),
        ),
        (
            "spring_damper_model_exchange",
            serialized_after(
                MODEL_EXCHANGE,
                &[(Var::ForceLaw, 2.0), (Var::C, 1e4), (Var::D, 20.0)],
                true,
                |i| integrator_step(i, &[(Var::FlangeBS, -1e-3), (Var::FlangeBV, 0.5)], 0.25),
            ),
        ),
        (
            "model_exchange_event_mode",
            serialized_after(MODEL_EXCHANGE, &[], true, |_| {}),
        ),
        (
            "model_exchange_in_contact",
            serialized_after(MODEL_EXCHANGE, &stiff, true, |i| {
                integrator_step(i, &[(Var::FlangeBS, -1e-3), (Var::FlangeBV, -0.5)], 0.25)
            }),
        ),
    ];
    for (name, bytes) in seeds {
        std::fs::write(directory.join(format!("seed-{name}")), bytes).expect("write seed");
    }
}
