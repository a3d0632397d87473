//! Random sequences of FMI 3.0 calls on the `fmi3` layer, in any state, with random arguments:
//! instances of both interfaces (and Scheduled Execution, which must be refused) with any token,
//! name and resource path, early return, event mode and the intermediate-update callback in any
//! combination; value references of any type through every getter and setter (the types the FMU
//! has no variable of included), NULL arrays and counts that lie, extreme reals, any parameters,
//! steps of any size from any communication point, the callback asking for early returns where
//! none may be given and calling back into the instance, FMU states foreign, freed, NULL or of the
//! other interface, damaged serialized states, the Model Exchange calls with arrays of any length,
//! and the functions of features the FMU does not have. The script format is
//! `elastogap_fuzz::fmi3_script`.
//!
//! Findings are panics: a crash, a failed call that logged no reason, fmi3Fatal, an early return
//! that was not allowed, an OK call that returned a value breaking the model's invariants.

#![no_main]

use std::ffi::CString;

use elastogap::fmi3::*;
use elastogap::variables::{by_var, Causality, Kind, Var, EVENT_INDICATORS, STATES, VARIABLES};
use elastogap_fuzz::fmi3::{Instance3, Interface, Make, ERROR, OK};
use elastogap_fuzz::fmi3_script::{op, Reader};
use fmi_sys::fmi3::{fmi3FMUState, fmi3Status, fmi3String, fmi3ValueReference};
use libfuzzer_sys::fuzz_target;

const MAX_CALLS: usize = 48;
const MAX_STEPS: usize = 12;
const SLOTS: usize = 2;
const STATE_SLOTS: usize = 3;
/// The most substeps a step may take here (the FMU's own bound costs a second per step).
const SUBSTEP_COUNT_CAP: i32 = 10_000;

/// A value reference: mostly one of the table's, sometimes anything.
fn reference(r: &mut Reader) -> fmi3ValueReference {
    let b = r.byte();
    if b < 224 {
        VARIABLES[usize::from(b) % VARIABLES.len()].value_reference
    } else {
        r.u32()
    }
}

/// A text: NULL, empty, the plain one, or a few bytes (NULs dropped).
fn text(r: &mut Reader, plain: &str) -> Option<CString> {
    match r.byte() % 4 {
        0 => None,
        1 => Some(CString::default()),
        2 => Some(CString::new(plain).unwrap()),
        _ => {
            let n = r.count(8);
            let bytes: Vec<u8> = (0..n).map(|_| r.byte()).filter(|b| *b != 0).collect();
            Some(CString::new(bytes).unwrap())
        }
    }
}

/// How an array is passed: its pointer and a count that may lie (mode 0: true, 1: zero, 2: one
/// less, 3: NULL with the true count, at least 1).
fn pass<T>(mode: u8, values: &[T]) -> (*const T, usize) {
    match mode % 4 {
        0 => (values.as_ptr(), values.len()),
        1 => (values.as_ptr(), 0),
        2 => (values.as_ptr(), values.len().saturating_sub(1)),
        _ => (std::ptr::null(), values.len().max(1)),
    }
}

fn pass_mut<T>(mode: u8, values: &mut [T]) -> (*mut T, usize) {
    let (p, n) = pass(mode, values);
    (p.cast_mut(), n)
}

struct Harness {
    instances: [Option<Instance3>; SLOTS],
    current: usize,
    states: [fmi3FMUState; STATE_SLOTS],
    serialized: Vec<u8>,
    steps: usize,
    times: [f64; SLOTS],
}

impl Harness {
    fn instance(&self) -> Option<&Instance3> {
        self.instances[self.current].as_ref()
    }

    fn run(&mut self, r: &mut Reader) {
        let code = r.byte() % op::OP_COUNT;
        static TRACE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
        if *TRACE.get_or_init(|| std::env::var_os("ELASTOGAP_FUZZ_TRACE").is_some()) {
            eprintln!("op {code} on slot {}", self.current);
        }
        match code {
            op::INSTANTIATE_CO_SIMULATION | op::INSTANTIATE_MODEL_EXCHANGE => {
                let make = Make {
                    name: text(r, "fuzz3"),
                    token: text(r, elastogap::GUID),
                    resources: text(r, "/tmp/fuzz resources/"),
                    logger: !r.flag(),
                    logging_on: r.flag(),
                    event_mode_used: r.flag(),
                    early_return_allowed: r.flag(),
                    intermediate_update: r.flag(),
                    null_required: r.flag().then(|| r.byte()),
                };
                if self.instances[self.current].is_none() {
                    let interface = if code == op::INSTANTIATE_CO_SIMULATION {
                        Interface::CoSimulation
                    } else {
                        Interface::ModelExchange
                    };
                    self.times[self.current] = 0.0;
                    self.instances[self.current] = Instance3::instantiate(&make, interface);
                }
            }
            op::INSTANTIATE_SCHEDULED_EXECUTION => {
                let make = Make::standard();
                // SAFETY: valid strings; the FMU must refuse and return NULL.
                let instance = unsafe {
                    fmi3InstantiateScheduledExecution(
                        make.name.as_ref().unwrap().as_ptr(),
                        make.token.as_ref().unwrap().as_ptr(),
                        make.resources.as_ref().unwrap().as_ptr(),
                        false,
                        false,
                        std::ptr::null_mut(),
                        Some(elastogap_fuzz::fmi3::record),
                        None,
                        None,
                        None,
                    )
                };
                assert!(instance.is_null(), "Scheduled Execution was instantiated");
                let log = elastogap_fuzz::fmi3::take_log();
                assert!(
                    log.iter().any(|e| e.status == ERROR),
                    "Scheduled Execution refused without a reason"
                );
            }
            op::FREE_INSTANCE => self.instances[self.current] = None,
            op::USE_INSTANCE => self.current = usize::from(r.byte()) % SLOTS,
            op::NULL_INSTANCE => null_instance(r.byte()),
            _ => {
                if self.instance().is_some() {
                    self.run_on_instance(code, r);
                }
            }
        }
    }

    fn state_pointer(&mut self, slot: u8) -> *mut fmi3FMUState {
        if slot >= 250 {
            std::ptr::null_mut()
        } else {
            &mut self.states[usize::from(slot) % STATE_SLOTS]
        }
    }

    fn run_on_instance(&mut self, code: u8, r: &mut Reader) {
        match code {
            op::SET_DEBUG_LOGGING => self.set_debug_logging(r),
            op::GET_FLOAT64..=op::ABSENT_TYPE => self.values(code, r),
            op::SET_KEY | op::CHOOSE_LAW => self.set_parameter(code, r),
            op::GET_FMU_STATE..=op::DESERIALIZE => self.fmu_states(code, r),
            op::DO_STEP => self.do_step(r),
            op::SET_TIME => self.set_time(r),
            op::DIRECTIONAL_DERIVATIVE | op::OUTPUT_DERIVATIVES => self.derivatives(code, r),
            op::UNSUPPORTED => self.unsupported(r),
            op::CALLBACK => {
                let environment = &self.instance().unwrap().environment;
                environment.request.set(r.flag());
                environment.insist.set(r.flag());
                environment.step_inside.set(r.flag());
            }
            _ => self.modes(code, r),
        }
    }

    fn set_debug_logging(&mut self, r: &mut Reader) {
        let on = r.flag();
        let declared = elastogap_fuzz::fmi3::declared_categories();
        let n = r.count(4);
        let owned: Vec<Option<CString>> = (0..n)
            .map(|_| match r.byte() % 3 {
                0 => Some(CString::new(declared[usize::from(r.byte()) % declared.len()]).unwrap()),
                1 => None,
                _ => text(r, "logNothing"),
            })
            .collect();
        let pointers: Vec<fmi3String> = owned
            .iter()
            .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
            .collect();
        let (p, n) = pass(r.byte(), &pointers);
        self.instance()
            .unwrap()
            .call("fmi3SetDebugLogging", |c| unsafe {
                fmi3SetDebugLogging(c, on, n, p)
            });
    }

    /// The getters and setters of every type, with any references and counts.
    fn values(&mut self, code: u8, r: &mut Reader) {
        let instance = self.instance().unwrap();
        let n = r.count(4);
        let references: Vec<fmi3ValueReference> = (0..n).map(|_| reference(r)).collect();
        let reals: Vec<f64> = (0..n).map(|_| r.real()).collect();
        let (mode, values_mode, extra) = (r.byte(), r.byte(), usize::from(r.byte() % 2));
        let (p, n_refs) = pass(mode, &references);
        let n_values = n_refs + extra;
        let mut out = vec![0f64; n_values];
        let (q, _) = pass_mut(values_mode, &mut out);
        let status = match code {
            op::GET_FLOAT64 => {
                let status = instance.call("fmi3GetFloat64", |c| unsafe {
                    fmi3GetFloat64(c, p, n_refs, q, n_values)
                });
                if status == OK {
                    check_computed(&references[..n_refs], &out[..n_refs]);
                }
                status
            }
            op::SET_FLOAT64 => {
                let mut values = reals.clone();
                values.resize(n_values, 0.0);
                let (v, _) = pass(values_mode, &values);
                instance.call("fmi3SetFloat64", |c| unsafe {
                    fmi3SetFloat64(c, p, n_refs, v, n_values)
                })
            }
            op::GET_INT => {
                let mut values = vec![0i64; n_values];
                let (v, _) = pass_mut(values_mode, &mut values);
                if r.flag() {
                    instance.call("fmi3GetInt64", |c| unsafe {
                        fmi3GetInt64(c, p, n_refs, v, n_values)
                    })
                } else {
                    instance.call("fmi3GetInt32", |c| unsafe {
                        fmi3GetInt32(c, p, n_refs, v.cast(), n_values)
                    })
                }
            }
            op::SET_INT => {
                let mut values: Vec<i64> = reals.iter().map(|x| *x as i64).collect();
                values.resize(n_values, 1);
                if r.flag() {
                    let (v, _) = pass(values_mode, &values);
                    instance.call("fmi3SetInt64", |c| unsafe {
                        fmi3SetInt64(c, p, n_refs, v, n_values)
                    })
                } else {
                    let narrow: Vec<i32> = values.iter().map(|x| *x as i32).collect();
                    let (v, _) = pass(values_mode, &narrow);
                    instance.call("fmi3SetInt32", |c| unsafe {
                        fmi3SetInt32(c, p, n_refs, v, n_values)
                    })
                }
            }
            op::GET_BOOLEAN => {
                let mut values = vec![false; n_values];
                let (v, _) = pass_mut(values_mode, &mut values);
                instance.call("fmi3GetBoolean", |c| unsafe {
                    fmi3GetBoolean(c, p, n_refs, v, n_values)
                })
            }
            op::SET_BOOLEAN => {
                // Any byte: a C importer may pass any nonzero value for true.
                let mut bytes: Vec<u8> = reals.iter().map(|x| x.to_bits() as u8).collect();
                bytes.resize(n_values, 1);
                let (v, _) = pass(values_mode, &bytes);
                instance.call("fmi3SetBoolean", |c| unsafe {
                    fmi3SetBoolean(c, p, n_refs, v.cast(), n_values)
                })
            }
            op::GET_STRING => {
                let mut values: Vec<fmi3String> = vec![std::ptr::null(); n_values];
                let (v, _) = pass_mut(values_mode, &mut values);
                instance.call("fmi3GetString", |c| unsafe {
                    fmi3GetString(c, p, n_refs, v, n_values)
                })
            }
            op::SET_STRING => {
                let owned: Vec<Option<CString>> = (0..n_values).map(|_| text(r, "")).collect();
                let values: Vec<fmi3String> = owned
                    .iter()
                    .map(|s| s.as_ref().map_or(std::ptr::null(), |s| s.as_ptr()))
                    .collect();
                let (v, _) = pass(values_mode, &values);
                instance.call("fmi3SetString", |c| unsafe {
                    fmi3SetString(c, p, n_refs, v, n_values)
                })
            }
            _ => absent_type(instance, r.byte(), p, n_refs, q, n_values),
        };
        if code == op::ABSENT_TYPE && n_refs > 0 && !p.is_null() {
            assert_ne!(
                status, OK,
                "a value reference of a type the FMU has not accepted"
            );
        }
    }

    /// The inputs, maxSubstepSize and maxSubstepCount, or a law and one of its parameters: a
    /// random Int64 would rarely name an Enumeration item.
    fn set_parameter(&mut self, code: u8, r: &mut Reader) {
        let instance = self.instance().unwrap();
        let (which, value) = (r.byte(), r.real());
        if code == op::SET_KEY {
            const KEYS: [Var; 8] = [
                Var::MaxSubstepSize,
                Var::FlangeAS,
                Var::FlangeAV,
                Var::FlangeBS,
                Var::FlangeBV,
                Var::VTx,
                Var::VTy,
                Var::MEff,
            ];
            set_real(instance, KEYS[usize::from(which) % KEYS.len()], value);
            return;
        }
        let (law, variant) = (i64::from(which % 7) + 1, i64::from(r.byte()));
        set_int64(instance, Var::ForceLaw, law);
        set_int64(instance, Var::Hysteresis, variant % 5 + 1);
        set_int64(instance, Var::RecurDynDamping, variant % 2 + 1);
        set_int64(instance, Var::FrictionLaw, (variant / 2) % 3 + 1);
        const PARAMETERS: [Var; 12] = [
            Var::C,
            Var::D,
            Var::N,
            Var::SRef,
            Var::FRef,
            Var::E,
            Var::Chi,
            Var::NV,
            Var::Rdf,
            Var::MuS,
            Var::MaxStictionDeformation,
            Var::RangeMax,
        ];
        set_real(
            instance,
            PARAMETERS[usize::from(r.byte()) % PARAMETERS.len()],
            value,
        );
    }

    fn fmu_states(&mut self, code: u8, r: &mut Reader) {
        let slot = r.byte();
        let pointer = self.state_pointer(slot);
        let value = if pointer.is_null() {
            std::ptr::null_mut()
        } else {
            // SAFETY: a slot of the harness.
            unsafe { *pointer }
        };
        let instance = self.instances[self.current].as_ref().unwrap();
        match code {
            op::GET_FMU_STATE => {
                instance.call("fmi3GetFMUState", |c| unsafe {
                    fmi3GetFMUState(c, pointer)
                });
            }
            op::SET_FMU_STATE => {
                instance.call("fmi3SetFMUState", |c| unsafe { fmi3SetFMUState(c, value) });
            }
            op::FREE_FMU_STATE => {
                instance.call("fmi3FreeFMUState", |c| unsafe {
                    fmi3FreeFMUState(c, pointer)
                });
            }
            op::SERIALIZE => {
                let mut size = 0usize;
                let null_size = r.flag();
                let status = instance.call("fmi3SerializedFMUStateSize", |c| unsafe {
                    fmi3SerializedFMUStateSize(
                        c,
                        value,
                        if null_size {
                            std::ptr::null_mut()
                        } else {
                            &mut size
                        },
                    )
                });
                if status != OK {
                    return;
                }
                let asked = match r.byte() % 3 {
                    0 => size,
                    1 => size + 1,
                    _ => usize::from(r.byte()),
                };
                let mut buffer = vec![0u8; asked.max(size)];
                let null_buffer = r.flag();
                let status = instance.call("fmi3SerializeFMUState", |c| unsafe {
                    fmi3SerializeFMUState(
                        c,
                        value,
                        if null_buffer {
                            std::ptr::null_mut()
                        } else {
                            buffer.as_mut_ptr()
                        },
                        asked,
                    )
                });
                if status == OK {
                    buffer.truncate(asked);
                    self.serialized = buffer;
                }
            }
            _ => {
                let mut bytes = self.serialized.clone();
                match r.byte() % 4 {
                    0 => {
                        for _ in 0..r.count(4) {
                            let at = usize::from(r.u16());
                            let b = r.byte();
                            let len = bytes.len().max(1);
                            if let Some(x) = bytes.get_mut(at % len) {
                                *x ^= b;
                            }
                        }
                    }
                    1 => bytes.truncate(usize::from(r.u16())),
                    2 => bytes = (0..r.count(32)).map(|_| r.byte()).collect(),
                    _ => {}
                }
                let null = r.flag();
                instance.call("fmi3DeserializeFMUState", |c| unsafe {
                    fmi3DeserializeFMUState(
                        c,
                        if null {
                            std::ptr::null()
                        } else {
                            bytes.as_ptr()
                        },
                        bytes.len(),
                        pointer,
                    )
                });
            }
        }
    }

    fn derivatives(&mut self, code: u8, r: &mut Reader) {
        let instance = self.instance().unwrap();
        let n = r.count(3);
        let references: Vec<fmi3ValueReference> = (0..n).map(|_| reference(r)).collect();
        let seeds: Vec<f64> = (0..n).map(|_| r.real()).collect();
        let (mode, out_mode) = (r.byte(), r.byte());
        let (p, n) = pass(mode, &references);
        let mut out = vec![f64::NAN; n];
        let (q, m) = pass_mut(out_mode, &mut out);
        let status = if code == op::DIRECTIONAL_DERIVATIVE {
            let knowns = [reference(r)];
            let (s, ns) = pass(r.byte(), &seeds[..seeds.len().min(1)]);
            instance.call("fmi3GetDirectionalDerivative", |c| unsafe {
                fmi3GetDirectionalDerivative(c, p, n, knowns.as_ptr(), ns.min(1), s, ns, q, m)
            })
        } else {
            let orders: Vec<i32> = (0..n).map(|_| i32::from(r.byte() % 3)).collect();
            instance.call("fmi3GetOutputDerivatives", |c| unsafe {
                fmi3GetOutputDerivatives(c, p, n, orders.as_ptr(), q, m)
            })
        };
        if status == OK {
            assert!(
                out[..m].iter().all(|x| x.is_finite()),
                "a derivative returned with fmi3OK is not finite: {out:?}"
            );
        }
    }

    fn do_step(&mut self, r: &mut Reader) {
        let (when, h, no_set_prior, nulls) = (r.byte(), r.real(), r.flag(), r.byte());
        if self.steps >= MAX_STEPS {
            return;
        }
        self.steps += 1;
        let instance = self.instances[self.current].as_ref().unwrap();
        cap_substeps(instance);
        let now = instance.get_real(Var::Time).unwrap_or(0.0);
        let t = match when % 4 {
            0 => now,
            1 => now + f64::from(when) * 1e-3,
            2 => now * (1.0 + 1e-12),
            _ => f64::from(when) - 128.0,
        };
        let before = instance.get_real(Var::ELoss);
        instance.environment.seen.borrow_mut().clear();
        let (mut event, mut terminate, mut early, mut last) = (false, false, false, f64::NAN);
        let ptr = |bit: u8, p: *mut bool| {
            if nulls & bit != 0 {
                std::ptr::null_mut()
            } else {
                p
            }
        };
        let status = instance.call("fmi3DoStep", |c| unsafe {
            fmi3DoStep(
                c,
                t,
                h,
                no_set_prior,
                ptr(1, &mut event),
                ptr(2, &mut terminate),
                ptr(4, &mut early),
                if nulls & 8 != 0 {
                    std::ptr::null_mut()
                } else {
                    &mut last
                },
            )
        });
        if status != OK {
            return;
        }
        let allowed = instance.environment.early_return_allowed.get();
        assert!(
            !early || allowed,
            "fmi3DoStep returned early where earlyReturnAllowed = false"
        );
        assert!(!terminate, "fmi3DoStep asked to terminate");
        assert!(
            !event || (early && instance.event_mode_used),
            "eventHandlingNeeded = true without event mode used and an early return"
        );
        let end = t + h;
        if early {
            assert!(
                t <= last && last <= end,
                "lastSuccessfulTime {last} outside [{t}, {end}]"
            );
        } else {
            assert!(
                (last - end).abs() <= 1e-12 * end.abs().max(1.0),
                "lastSuccessfulTime {last} is not the step's end {end}"
            );
        }
        check_outputs(instance);
        if let (Some(before), Some(after)) = (before, instance.get_real(Var::ELoss)) {
            assert!(
                after >= before,
                "E_loss fell from {before} to {after} over a step"
            );
        }
    }

    fn set_time(&mut self, r: &mut Reader) {
        let (which, x) = (r.byte(), r.real());
        let base = self.times[self.current];
        let time = if which % 2 == 0 {
            base + x.abs().min(1.0)
        } else {
            x
        };
        let instance = self.instance().unwrap();
        let status = instance.call("fmi3SetTime", |c| unsafe { fmi3SetTime(c, time) });
        if status == OK {
            self.times[self.current] = time;
        }
    }

    fn unsupported(&mut self, r: &mut Reader) {
        let instance = self.instance().unwrap();
        let which = r.byte();
        let vr = [reference(r)];
        let (mut x, mut u, mut q, mut n) = (0.0, 0u64, 0, 0usize);
        // SAFETY: valid pointers to locals for every argument.
        let status = instance.call("an unsupported function", |c| unsafe {
            match which % 9 {
                0 => fmi3GetIntervalDecimal(c, vr.as_ptr(), 1, &mut x, &mut q),
                1 => fmi3GetIntervalFraction(c, vr.as_ptr(), 1, &mut u, &mut u, &mut q),
                2 => fmi3GetShiftDecimal(c, vr.as_ptr(), 1, &mut x),
                3 => fmi3SetIntervalDecimal(c, vr.as_ptr(), 1, &x),
                4 => fmi3EnterConfigurationMode(c),
                5 => fmi3ExitConfigurationMode(c),
                6 => fmi3EvaluateDiscreteStates(c),
                7 => fmi3ActivateModelPartition(c, vr[0], x),
                _ => fmi3GetNumberOfVariableDependencies(c, vr[0], &mut n),
            }
        });
        assert_ne!(
            status, OK,
            "a function of a feature the FMU does not have returned fmi3OK"
        );
    }

    /// The mode changes and the Model Exchange calls.
    fn modes(&mut self, code: u8, r: &mut Reader) {
        let instance = self.instances[self.current].as_ref().unwrap();
        match code {
            op::ENTER_INITIALIZATION_MODE => {
                let (tolerance, start, stop_defined, stop) =
                    (r.real(), r.real(), r.flag(), r.real());
                instance.call("fmi3EnterInitializationMode", |c| unsafe {
                    fmi3EnterInitializationMode(
                        c,
                        tolerance > 0.0,
                        tolerance,
                        start,
                        stop_defined,
                        stop,
                    )
                });
            }
            op::EXIT_INITIALIZATION_MODE => {
                if instance.call("fmi3ExitInitializationMode", |c| unsafe {
                    fmi3ExitInitializationMode(c)
                }) == OK
                {
                    check_outputs(instance);
                }
            }
            op::ENTER_EVENT_MODE => {
                instance.call("fmi3EnterEventMode", |c| unsafe { fmi3EnterEventMode(c) });
            }
            op::TERMINATE => {
                instance.call("fmi3Terminate", |c| unsafe { fmi3Terminate(c) });
            }
            op::RESET => {
                if instance.call("fmi3Reset", |c| unsafe { fmi3Reset(c) }) == OK {
                    self.times[self.current] = 0.0;
                }
            }
            op::UPDATE_DISCRETE_STATES => {
                let nulls = r.byte();
                let mut flags = [true; 5];
                let mut next = f64::NAN;
                let [a, b, c2, d, e] = &mut flags;
                let ptr = |bit: u8, p: *mut bool| {
                    if nulls & bit != 0 {
                        std::ptr::null_mut()
                    } else {
                        p
                    }
                };
                let status = instance.call("fmi3UpdateDiscreteStates", |c| unsafe {
                    fmi3UpdateDiscreteStates(
                        c,
                        ptr(1, a),
                        ptr(2, b),
                        ptr(4, c2),
                        ptr(8, d),
                        ptr(16, e),
                        &mut next,
                    )
                });
                if status == OK {
                    assert!(
                        !flags[0] && !flags[1] && !flags[2] && !flags[4],
                        "fmi3UpdateDiscreteStates flags {flags:?}"
                    );
                    check_outputs(instance);
                }
            }
            op::ENTER_STEP_MODE => {
                instance.call("fmi3EnterStepMode", |c| unsafe { fmi3EnterStepMode(c) });
            }
            op::ENTER_CONTINUOUS_TIME_MODE => {
                instance.call("fmi3EnterContinuousTimeMode", |c| unsafe {
                    fmi3EnterContinuousTimeMode(c)
                });
            }
            op::COMPLETED_INTEGRATOR_STEP => {
                let (no_set_prior, nulls) = (r.flag(), r.byte());
                let (mut enter, mut terminate) = (true, true);
                let status = instance.call("fmi3CompletedIntegratorStep", |c| unsafe {
                    fmi3CompletedIntegratorStep(
                        c,
                        no_set_prior,
                        if nulls & 1 != 0 {
                            std::ptr::null_mut()
                        } else {
                            &mut enter
                        },
                        if nulls & 2 != 0 {
                            std::ptr::null_mut()
                        } else {
                            &mut terminate
                        },
                    )
                });
                if status == OK {
                    assert!(
                        !enter && !terminate,
                        "fmi3CompletedIntegratorStep asked for an event or the end"
                    );
                }
            }
            op::SET_CONTINUOUS_STATES => {
                let values: Vec<f64> = (0..r.count(4)).map(|_| r.real()).collect();
                let (p, n) = pass(r.byte(), &values);
                instance.call("fmi3SetContinuousStates", |c| unsafe {
                    fmi3SetContinuousStates(c, p, n)
                });
            }
            _ => model_arrays(instance, r),
        }
    }
}

/// The Model Exchange arrays and counts, of the model's length or another.
fn model_arrays(instance: &Instance3, r: &mut Reader) {
    let which = r.byte() % 6;
    let model = if which == 1 {
        EVENT_INDICATORS.len()
    } else {
        STATES.len()
    };
    let length = if r.flag() {
        model
    } else {
        usize::from(r.byte() % 8)
    };
    let mut values = vec![f64::NAN; length];
    let (p, n) = pass_mut(r.byte(), &mut values);
    let mut count = 0usize;
    let null_count = r.flag();
    let count_ptr = if null_count {
        std::ptr::null_mut()
    } else {
        &mut count
    };
    // SAFETY: arrays of the lengths passed, or NULL.
    let status = instance.call("a Model Exchange array", |c| unsafe {
        match which {
            0 => fmi3GetContinuousStateDerivatives(c, p, n),
            1 => fmi3GetEventIndicators(c, p, n),
            2 => fmi3GetContinuousStates(c, p, n),
            3 => fmi3GetNominalsOfContinuousStates(c, p, n),
            4 => fmi3GetNumberOfEventIndicators(c, count_ptr),
            _ => fmi3GetNumberOfContinuousStates(c, count_ptr),
        }
    });
    if status != OK {
        return;
    }
    match which {
        4 => assert_eq!(count, EVENT_INDICATORS.len()),
        5 => assert_eq!(count, STATES.len()),
        _ => {
            assert_eq!(n, model, "an OK Model Exchange call with a wrong length");
            // Only the n values announced are the FMU's to write.
            assert!(
                values[..n]
                    .iter()
                    .all(|x| x.is_finite() && (which != 3 || *x > 0.0)),
                "a Model Exchange array returned with fmi3OK: {values:?}"
            );
        }
    }
}

/// Every function that takes an instance refuses NULL.
fn null_instance(which: u8) {
    let null = std::ptr::null_mut();
    let mut x = [0.0; 3];
    let (mut a, mut b, mut c, mut d) = (false, false, false, 0.0);
    // SAFETY: a NULL instance with otherwise valid arguments.
    let status = unsafe {
        match which % 8 {
            0 => fmi3DoStep(null, 0.0, 1e-3, false, &mut a, &mut b, &mut c, &mut d),
            1 => fmi3EnterInitializationMode(null, false, 0.0, 0.0, false, 0.0),
            2 => fmi3GetFloat64(null, [1].as_ptr(), 1, x.as_mut_ptr(), 1),
            3 => fmi3EnterEventMode(null),
            4 => fmi3SetTime(null, 0.0),
            5 => fmi3GetContinuousStates(null, x.as_mut_ptr(), 3),
            6 => fmi3EvaluateDiscreteStates(null),
            _ => {
                fmi3FreeInstance(null);
                ERROR
            }
        }
    };
    assert_ne!(status, OK, "a call on a NULL instance returned fmi3OK");
    elastogap_fuzz::fmi3::take_log();
}

/// A getter or setter of a type the FMU has no variable of.
fn absent_type(
    instance: &Instance3,
    which: u8,
    p: *const fmi3ValueReference,
    n: usize,
    q: *mut f64,
    m: usize,
) -> fmi3Status {
    // SAFETY: `q` holds at least m eight-byte values, enough for each type's m values.
    instance.call("a getter or setter of an absent type", |c| unsafe {
        match which % 9 {
            0 => fmi3GetFloat32(c, p, n, q.cast(), m),
            1 => fmi3SetInt8(c, p, n, q.cast(), m),
            2 => fmi3GetUInt8(c, p, n, q.cast(), m),
            3 => fmi3SetInt16(c, p, n, q.cast(), m),
            4 => fmi3GetUInt16(c, p, n, q.cast(), m),
            5 => fmi3SetUInt32(c, p, n, q.cast(), m),
            6 => fmi3GetUInt64(c, p, n, q.cast(), m),
            7 => fmi3GetClock(c, p, n, q.cast()),
            _ => fmi3SetClock(c, p, n, q.cast()),
        }
    })
}

fn set_real(instance: &Instance3, var: Var, value: f64) {
    let vr = [by_var(var).value_reference];
    instance.call("fmi3SetFloat64", |c| unsafe {
        fmi3SetFloat64(c, vr.as_ptr(), 1, &value, 1)
    });
}

fn set_int64(instance: &Instance3, var: Var, value: i64) {
    let vr = [by_var(var).value_reference];
    instance.call("fmi3SetInt64", |c| unsafe {
        fmi3SetInt64(c, vr.as_ptr(), 1, &value, 1)
    });
}

/// Keeps maxSubstepCount at most [`SUBSTEP_COUNT_CAP`] before a step (a tunable parameter, set
/// where the state allows it; otherwise the step is refused anyway).
fn cap_substeps(instance: &Instance3) {
    let vr = [by_var(Var::MaxSubstepCount).value_reference];
    let mut count = [0i32];
    // SAFETY: arrays of one element.
    unsafe {
        if fmi3GetInt32(instance.instance, vr.as_ptr(), 1, count.as_mut_ptr(), 1) == OK
            && count[0] > SUBSTEP_COUNT_CAP
        {
            fmi3SetInt32(instance.instance, vr.as_ptr(), 1, &SUBSTEP_COUNT_CAP, 1);
        }
    }
    elastogap_fuzz::fmi3::take_log();
}

/// Computed values returned with fmi3OK are finite.
fn check_computed(references: &[fmi3ValueReference], values: &[f64]) {
    for (reference, x) in references.iter().zip(values) {
        let variable = elastogap::variables::by_value_reference(*reference)
            .expect("an OK call names known variables");
        if matches!(variable.causality, Causality::Output | Causality::Local) {
            assert!(
                x.is_finite(),
                "fmi3GetFloat64 returned fmi3OK with {} = {x}",
                variable.name
            );
        }
    }
}

/// The Float64 outputs and locals read in one call: if OK, finite, with f_c <= 0 and lossPower >= 0.
fn check_outputs(instance: &Instance3) {
    let outputs: Vec<(Var, fmi3ValueReference)> = VARIABLES
        .iter()
        .filter(|v| {
            v.kind == Kind::Real && matches!(v.causality, Causality::Output | Causality::Local)
        })
        .map(|v| (v.var, v.value_reference))
        .collect();
    let references: Vec<fmi3ValueReference> = outputs.iter().map(|(_, r)| *r).collect();
    let mut values = vec![f64::NAN; references.len()];
    let status = instance.call("fmi3GetFloat64", |c| unsafe {
        fmi3GetFloat64(
            c,
            references.as_ptr(),
            references.len(),
            values.as_mut_ptr(),
            values.len(),
        )
    });
    if status != OK {
        return;
    }
    check_computed(&references, &values);
    for ((var, _), x) in outputs.iter().zip(&values) {
        match var {
            Var::LossPower => assert!(*x >= 0.0, "lossPower = {x} < 0"),
            Var::FC => assert!(*x <= 0.0, "f_c = {x} > 0"),
            _ => {}
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    let mut harness = Harness {
        instances: [None, None],
        current: 0,
        states: [std::ptr::null_mut(); STATE_SLOTS],
        serialized: Vec::new(),
        steps: 0,
        times: [0.0; SLOTS],
    };
    let mut reader = Reader::new(bytes);
    let mut calls = 0;
    while !reader.is_empty() && calls < MAX_CALLS {
        harness.run(&mut reader);
        calls += 1;
    }
    // Instances free their FMU states; the leak sanitizer checks that they do.
});
