//! Writes the committed seeds of the `deserialize_state` target: valid states the FMU serialized
//! itself, from situations that reach different code (contact, supplied derivatives, a full
//! velocity history, the heat port, Model Exchange in Event and Continuous-Time Mode), so mutations
//! start from meaningful buffers.
//!
//! `cargo run --example write_seeds -- corpus/deserialize_state` (from fuzz/).
//!
//! With `--fmi3-calls <dir>` it writes the seeds of `fmi3_calls` instead: FMI 3.0 scripts in the
//! format of `elastogap_fuzz::fmi3_script`, each a life cycle that reaches code a random script
//! rarely does (early return, event mode, the intermediate update, Model Exchange, FMU states
//! across instances and interfaces, every kind of refused call).

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
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--fmi3-calls") {
        let directory = PathBuf::from(args.get(1).map_or("corpus/fmi3_calls", String::as_str));
        fmi3_seeds::write(&directory);
        return;
    }
    let directory = PathBuf::from(
        args.first()
            .cloned()
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

/// The `fmi3_calls` seeds, written as scripts.
mod fmi3_seeds {
    use std::path::Path;

    use elastogap::variables::{Var, VARIABLES};
    use elastogap_fuzz::fmi3_script::{op, Writer};

    /// The reference byte that names `var` (its index in the table).
    fn reference(var: Var) -> u8 {
        let k = VARIABLES
            .iter()
            .position(|v| v.var == var)
            .expect("a variable");
        u8::try_from(k).expect("fewer than 224 variables")
    }

    /// A script under construction, one method per call.
    #[derive(Default)]
    struct Script(Writer);

    /// The instance flags of `op::INSTANTIATE_*`.
    #[derive(Default, Clone, Copy)]
    struct Flags {
        event_mode: bool,
        early_return: bool,
        intermediate: bool,
    }

    impl Script {
        fn instantiate(&mut self, code: u8, flags: Flags) -> &mut Self {
            // Name, token and resource path all "plain" (text selector 2); a logger; logging off.
            self.0
                .op(code)
                .byte(2)
                .byte(2)
                .byte(2)
                .flag(false)
                .flag(false);
            self.0
                .flag(flags.event_mode)
                .flag(flags.early_return)
                .flag(flags.intermediate)
                .flag(false);
            self
        }

        fn plain(&mut self, code: u8) -> &mut Self {
            self.0.op(code);
            self
        }

        fn enter_initialization(&mut self) -> &mut Self {
            self.0.op(op::ENTER_INITIALIZATION_MODE);
            self.0.real(0.0).real(0.0).flag(false).real(0.0);
            self
        }

        /// fmi3SetFloat64 of one variable, arrays passed truthfully.
        fn set(&mut self, var: Var, value: f64) -> &mut Self {
            self.0
                .op(op::SET_FLOAT64)
                .byte(1)
                .byte(reference(var))
                .real(value);
            self.0.byte(0).byte(0).byte(0);
            self
        }

        fn get(&mut self, vars: &[Var]) -> &mut Self {
            self.0.op(op::GET_FLOAT64).byte(vars.len() as u8);
            for var in vars {
                self.0.byte(reference(*var));
            }
            for _ in vars {
                self.0.real(0.0);
            }
            self.0.byte(0).byte(0).byte(0);
            self
        }

        /// A key input (index into the target's SET_KEY list).
        fn key(&mut self, which: u8, value: f64) -> &mut Self {
            self.0.op(op::SET_KEY).byte(which).real(value);
            self
        }

        fn step(&mut self, h: f64) -> &mut Self {
            self.0.op(op::DO_STEP).byte(0).real(h).flag(false).byte(0);
            self
        }

        fn update_discrete_states(&mut self) -> &mut Self {
            self.0.op(op::UPDATE_DISCRETE_STATES).byte(0);
            self
        }

        fn callback(&mut self, request: bool, insist: bool, step_inside: bool) -> &mut Self {
            self.0
                .op(op::CALLBACK)
                .flag(request)
                .flag(insist)
                .flag(step_inside);
            self
        }

        fn model_array(&mut self, which: u8) -> &mut Self {
            self.0
                .op(op::GET_MODEL_ARRAY)
                .byte(which)
                .flag(true)
                .byte(0)
                .flag(false);
            self
        }

        fn state(&mut self, code: u8, slot: u8) -> &mut Self {
            self.0.op(code).byte(slot);
            self
        }

        fn serialize(&mut self, slot: u8) -> &mut Self {
            self.0
                .op(op::SERIALIZE)
                .byte(slot)
                .flag(false)
                .byte(0)
                .flag(false);
            self
        }

        /// Deserializes the last serialized state into `slot`, with `flips` (offset, xor).
        fn deserialize(&mut self, slot: u8, flips: &[(u16, u8)]) -> &mut Self {
            self.0
                .op(op::DESERIALIZE)
                .byte(slot)
                .byte(0)
                .byte(flips.len() as u8);
            for (at, xor) in flips {
                self.0.byte(*at as u8).byte((*at >> 8) as u8).byte(*xor);
            }
            self.0.flag(false);
            self
        }

        /// Initialized with c = 1e4 and flange_b approaching at 0.5 m/s from 1 mm.
        fn approaching(&mut self) -> &mut Self {
            self.enter_initialization()
                .set(Var::C, 1e4)
                .set(Var::D, 20.0)
                .plain(op::EXIT_INITIALIZATION_MODE)
                .key(3, 1e-3)
                .key(4, -0.5)
        }
    }

    pub fn write(directory: &Path) {
        std::fs::create_dir_all(directory).expect("corpus directory");
        let cs = op::INSTANTIATE_CO_SIMULATION;
        let me = op::INSTANTIATE_MODEL_EXCHANGE;
        let mut seeds: Vec<(&str, Script)> = Vec::new();

        let mut s = Script::default();
        s.instantiate(cs, Flags::default()).approaching();
        s.step(1e-3)
            .step(1e-3)
            .step(1e-3)
            .get(&[Var::F, Var::FMean, Var::ELoss]);
        s.plain(op::TERMINATE)
            .plain(op::RESET)
            .approaching()
            .step(2e-3);
        seeds.push(("cs_life_cycle", s));

        let early = Flags {
            event_mode: true,
            early_return: true,
            intermediate: true,
        };
        let mut s = Script::default();
        s.instantiate(cs, early)
            .approaching()
            .plain(op::ENTER_STEP_MODE);
        s.callback(true, false, false)
            .step(5e-3)
            .plain(op::ENTER_EVENT_MODE);
        s.update_discrete_states()
            .get(&[Var::F])
            .plain(op::ENTER_STEP_MODE)
            .step(5e-3);
        s.step(5e-3)
            .plain(op::ENTER_EVENT_MODE)
            .update_discrete_states();
        s.plain(op::ENTER_STEP_MODE).step(5e-3);
        seeds.push(("cs_early_return_event_mode", s));

        let mut s = Script::default();
        let intermediate = Flags {
            intermediate: true,
            ..Flags::default()
        };
        s.instantiate(cs, intermediate).approaching();
        s.callback(true, true, true)
            .step(5e-3)
            .step(5e-3)
            .get(&[Var::F, Var::SRel]);
        seeds.push(("cs_intermediate_insisting", s));

        let mut s = Script::default();
        s.instantiate(me, Flags::default())
            .approaching()
            .update_discrete_states();
        s.plain(op::ENTER_CONTINUOUS_TIME_MODE);
        for k in 0..4 {
            s.0.op(op::SET_TIME).byte(1).real(f64::from(k + 1) * 1e-3);
            s.model_array(0)
                .model_array(1)
                .model_array(2)
                .model_array(3);
            s.0.op(op::COMPLETED_INTEGRATOR_STEP).flag(true).byte(0);
        }
        s.plain(op::ENTER_EVENT_MODE).update_discrete_states();
        s.plain(op::ENTER_CONTINUOUS_TIME_MODE)
            .model_array(4)
            .model_array(5);
        seeds.push(("me_life_cycle", s));

        let mut s = Script::default();
        s.instantiate(cs, Flags::default()).approaching().step(1e-3);
        s.state(op::GET_FMU_STATE, 0).serialize(0).step(1e-3);
        s.deserialize(1, &[]).state(op::SET_FMU_STATE, 1).step(1e-3);
        s.deserialize(2, &[(20, 0x40), (300, 0xff)]);
        s.0.op(op::USE_INSTANCE).byte(1);
        s.instantiate(me, Flags::default()).deserialize(2, &[]);
        s.state(op::SET_FMU_STATE, 0).state(op::FREE_FMU_STATE, 0);
        s.0.op(op::USE_INSTANCE).byte(0);
        s.state(op::SET_FMU_STATE, 0).state(op::FREE_FMU_STATE, 1);
        seeds.push(("fmu_states_across_instances", s));

        // Refused calls of every kind, on a running instance.
        let mut s = Script::default();
        s.plain(op::INSTANTIATE_SCHEDULED_EXECUTION);
        s.0.op(cs)
            .byte(2)
            .byte(1)
            .byte(2)
            .flag(false)
            .flag(false)
            .byte(0)
            .byte(0)
            .byte(0)
            .byte(0);
        s.instantiate(cs, Flags::default()).approaching().step(1e-3);
        for which in 0..9 {
            s.0.op(op::ABSENT_TYPE)
                .byte(1)
                .byte(reference(Var::C))
                .real(0.0);
            s.0.byte(0).byte(0).byte(0).byte(which);
            s.0.op(op::UNSUPPORTED).byte(which).byte(reference(Var::F));
            s.0.op(op::NULL_INSTANCE).byte(which);
        }
        s.plain(op::RESET).approaching().plain(op::ENTER_EVENT_MODE);
        s.plain(op::UPDATE_DISCRETE_STATES).byte_op(0);
        s.0.op(op::DO_STEP)
            .byte(0)
            .real(f64::NAN)
            .flag(false)
            .byte(0);
        s.plain(op::RESET).approaching().step(-1.0).plain(op::RESET);
        s.approaching().key(3, f64::INFINITY).step(1e-3);
        seeds.push(("refused_calls", s));

        for (name, script) in seeds {
            std::fs::write(directory.join(format!("seed-{name}")), &script.0.bytes)
                .expect("write seed");
        }
    }

    impl Script {
        /// One raw argument byte after a plain opcode.
        fn byte_op(&mut self, b: u8) -> &mut Self {
            self.0.byte(b);
            self
        }
    }
}
