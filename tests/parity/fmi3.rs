//! The FMI 3.0 call script of `tests/parity.rs`: the same single-mass impacts as the FMI 2.0
//! script, co-simulated through `ElastoGap3` without early return, with early return, with early
//! return and event mode, and with the intermediate-update callback, and the impact as Model
//! Exchange under a fixed-step RK4 master with its events handled at the step ends. Each run ends
//! with the serialized FMU state. The masters use `+ - * /` only.
//!
//! The body starts 0.4 mm further away than in the FMI 2.0 script, so that touch-down falls inside
//! a step. The plain co-simulation runs make the records of the FMI 2.0 script's master on the
//! FMI 2.0 FMU exactly (FMI 3.0 without early return or event mode is the FMI 2.0 step, bit for
//! bit): [`the_plain_runs_are_fmi2s`] checks that on the platform it runs on, so that under Wine
//! the win64 FMI 3.0 DLL is held to the win64 FMI 2.0 DLL as well as to linux64.

use std::sync::Arc;

use super::support::fmi3::{vr, CsOptions, Fmu3, Instance3};
use super::support::{Status, REALS};
use super::{tag, Law, Record};

/// Communication step and run length of the co-simulations, as the FMI 2.0 script's impacts.
const H: f64 = 1e-3;
const STEPS: usize = 400;
/// Where the body starts (at -1 m/s): touch-down at 0.1004 s, inside a step, not on the grid as
/// in the FMI 2.0 script (whose body reaches the gap exactly at a communication point).
const S0: f64 = 0.2004;
/// The Model Exchange master's fixed step, and its step count (the same 0.4 s).
const ME_H: f64 = 2.5e-4;
const ME_STEPS: usize = 1600;

/// The two impact laws of the FMI 2.0 script: closed form (n = 1) and through `pow` (n = 1.5).
pub const IMPACT_LAWS: [Law; 2] = [
    Law {
        c: 1e4,
        d: 20.0,
        s_rel0: 0.1,
        n: 1.0,
        s_ref: 1.0,
        f_ref: 0.0,
    },
    Law {
        c: 1e4,
        d: 20.0,
        s_rel0: 0.1,
        n: 1.5,
        s_ref: 0.01,
        f_ref: 0.0,
    },
];

fn check(status: fmi_sys::fmi3::fmi3Status, what: &str) {
    assert_eq!(Status::from(status), Status::Ok, "{what}");
}

/// The parameters of `law` and the FMI 2.0 script's settings (acceleration estimate 3, heat port
/// used); called in Initialization Mode.
fn parameterize(inst: &mut Instance3, law: &Law) {
    for (name, value) in law.settings() {
        assert_eq!(inst.set_f64(name, value), Status::Ok, "{name}");
    }
    let b = &inst.fmu.binding;
    // SAFETY: a live instance, arrays of one element.
    unsafe {
        let estimate = [3i32];
        let refs = [vr("accelerationEstimate")];
        check(
            b.fmi3SetInt32(inst.instance, refs.as_ptr(), 1, estimate.as_ptr(), 1),
            "fmi3SetInt32(accelerationEstimate)",
        );
        let heat_port = [true];
        let refs = [vr("useHeatPort")];
        check(
            b.fmi3SetBoolean(inst.instance, refs.as_ptr(), 1, heat_port.as_ptr(), 1),
            "fmi3SetBoolean(useHeatPort)",
        );
    }
}

/// `fmi3UpdateDiscreteStates` until the FMU needs no more: how many passes it took.
fn update_until_settled(inst: &mut Instance3) -> usize {
    for pass in 1..=10 {
        let (status, again) = inst.update_discrete_states();
        assert_eq!(status, Status::Ok, "fmi3UpdateDiscreteStates");
        if !again {
            return pass;
        }
    }
    panic!("the discrete states did not settle in 10 passes");
}

/// The outputs in the FMI 2.0 script's layout: REALS, then contact as 0 or 1.
fn outputs(inst: &mut Instance3) -> Vec<f64> {
    let mut values: Vec<f64> = REALS.iter().map(|name| inst.get_f64(name)).collect();
    values.push(if inst.get_bool("contact") { 1.0 } else { 0.0 });
    values
}

/// The instance's FMU state, serialized, as f64 words (bytes, not numbers: compared bit for bit).
fn serialized_state(inst: &mut Instance3) -> Vec<f64> {
    let b = &inst.fmu.binding;
    let mut state: fmi_sys::fmi3::fmi3FMUState = std::ptr::null_mut();
    let mut size = 0usize;
    // SAFETY: a live instance; `state` is NULL, then its own state, freed once.
    let bytes = unsafe {
        check(
            b.fmi3GetFMUState(inst.instance, &mut state),
            "fmi3GetFMUState",
        );
        check(
            b.fmi3SerializedFMUStateSize(inst.instance, state, &mut size),
            "fmi3SerializedFMUStateSize",
        );
        let mut bytes = vec![0u8; size];
        check(
            b.fmi3SerializeFMUState(inst.instance, state, bytes.as_mut_ptr(), size),
            "fmi3SerializeFMUState",
        );
        check(
            b.fmi3FreeFMUState(inst.instance, &mut state),
            "fmi3FreeFMUState",
        );
        bytes
    };
    bytes
        .chunks(8)
        .map(|c| {
            let mut word = [0u8; 8];
            word[..c.len()].copy_from_slice(c);
            f64::from_bits(u64::from_le_bytes(word))
        })
        .collect()
}

/// The co-simulation variants of the script.
#[derive(Clone, Copy)]
enum Variant {
    /// Neither early return nor event mode: the FMI 2.0 step.
    Plain,
    EarlyReturn,
    EarlyReturnEventMode,
    /// The callback at each switch, no early return: the step goes on to its end.
    IntermediateUpdate,
}

impl Variant {
    const ALL: [Variant; 4] = [
        Variant::Plain,
        Variant::EarlyReturn,
        Variant::EarlyReturnEventMode,
        Variant::IntermediateUpdate,
    ];

    fn label(self) -> &'static str {
        match self {
            Variant::Plain => "plain",
            Variant::EarlyReturn => "early",
            Variant::EarlyReturnEventMode => "early_event",
            Variant::IntermediateUpdate => "intermediate",
        }
    }

    fn options(self) -> CsOptions {
        CsOptions {
            early_return_allowed: matches!(
                self,
                Variant::EarlyReturn | Variant::EarlyReturnEventMode
            ),
            event_mode_used: matches!(self, Variant::EarlyReturnEventMode),
            intermediate_update: matches!(self, Variant::IntermediateUpdate),
        }
    }
}

/// What a co-simulation run did besides its records, for the checks that it did what it claims.
#[derive(Default)]
struct Counts {
    early_returns: usize,
    contact_changes_in_event_mode: usize,
    callbacks: usize,
}

/// The FMI 2.0 script's impact master (1 kg at flange_b, 0.2 m away at -1 m/s, `-f_mean` held)
/// on the grid `k H`; a step that returns early ends where the FMU says, and the next one goes
/// from there to the same grid point.
fn cs_run(
    fmu: &Arc<Fmu3>,
    law: &Law,
    m_eff: f64,
    variant: Variant,
    name: &str,
) -> (Vec<Record>, Counts) {
    let mut inst = Instance3::co_simulation(fmu, variant.options()).expect("instantiate");
    assert_eq!(inst.enter_initialization_mode(0.0), Status::Ok);
    parameterize(&mut inst, law);
    assert_eq!(inst.exit_initialization_mode(), Status::Ok);
    if variant.options().event_mode_used {
        update_until_settled(&mut inst);
        assert_eq!(inst.enter_step_mode(), Status::Ok);
    }
    // After initialization, as the FMI 2.0 script sets it: a tunable parameter.
    if m_eff > 0.0 {
        assert_eq!(inst.set_f64("m_eff", m_eff), Status::Ok, "m_eff");
    }
    let (mut records, mut counts) = (Vec::new(), Counts::default());
    let (mut s, mut v, mut t) = (S0, -1.0, 0.0);
    // The FMI 2.0 script's steps (t, H) while the run is on the grid; after an early return, the
    // rest of the way to the grid point.
    let (mut grid, mut on_grid) = (1usize, true);
    let mut step = 0usize;
    while grid <= STEPS {
        let length = if on_grid { H } else { grid as f64 * H - t };
        assert_eq!(inst.set_f64("flange_b.s", s), Status::Ok);
        assert_eq!(inst.set_f64("flange_b.v", v), Status::Ok);
        let outcome = inst.do_step(t, length);
        assert_eq!(outcome.status, Status::Ok, "{name}: fmi3DoStep at {t}");
        let (end, dt) = if outcome.early_return {
            counts.early_returns += 1;
            on_grid = false;
            let end = outcome.last_successful_time;
            (end, end - t)
        } else {
            grid += 1;
            on_grid = true;
            (t + length, length)
        };
        let mut event = [0.0; 2];
        if outcome.event_handling_needed {
            let before = inst.get_bool("contact");
            assert_eq!(inst.enter_event_mode(), Status::Ok);
            event = [1.0, update_until_settled(&mut inst) as f64];
            assert_eq!(inst.enter_step_mode(), Status::Ok);
            counts.contact_changes_in_event_mode += usize::from(inst.get_bool("contact") != before);
        }
        let values = outputs(&mut inst);
        let a = -values[5];
        v += a * dt;
        s += v * dt;
        t = end;
        let mut record = values;
        record.extend([s, v]);
        if !matches!(variant, Variant::Plain) {
            let early = if outcome.early_return { 1.0 } else { 0.0 };
            record.extend([t, early, event[0], event[1], inst.get_f64("E_port")]);
        }
        records.push(Record::new(format!("{name}/{step}"), tag(law), &record));
        step += 1;
        assert!(step < 4 * STEPS, "{name}: the run does not advance");
    }
    records.push(Record::new(
        format!("{name}/state"),
        tag(law),
        &serialized_state(&mut inst),
    ));
    let seen = inst.seen();
    if !seen.intermediate.is_empty() {
        counts.callbacks = seen.intermediate.len();
        let mut values: Vec<f64> = Vec::new();
        for ((time, can_return_early), (f, contact)) in
            seen.intermediate.iter().zip(&seen.read_inside)
        {
            values.extend([
                *time,
                if *can_return_early { 1.0 } else { 0.0 },
                *f,
                *contact,
            ]);
        }
        records.push(Record::new(format!("{name}/callbacks"), tag(law), &values));
    }
    drop(seen);
    assert_eq!(inst.terminate(), Status::Ok);
    (records, counts)
}

/// Every law with the FMU's own acceleration estimate and with `m_eff` = 1 kg, in every variant;
/// each variant checked to have done what it is for.
pub fn cs_records(fmu: &Arc<Fmu3>, records: &mut Vec<Record>) {
    for law in &IMPACT_LAWS {
        for m_eff in [0.0, 1.0] {
            for variant in Variant::ALL {
                let name = fmi2_label(law, m_eff);
                let name = match variant {
                    Variant::Plain => name,
                    other => format!("{name}_{}", other.label()),
                };
                let (run, counts) = cs_run(fmu, law, m_eff, variant, &format!("fmi3_{name}"));
                let options = variant.options();
                eprintln!(
                    "parity: fmi3_{name}: {} early returns, contact changed in event mode {} times, {} intermediate updates",
                    counts.early_returns, counts.contact_changes_in_event_mode, counts.callbacks
                );
                // Touch-down at least (the runs with m_eff stay in contact to the end).
                if options.early_return_allowed {
                    assert!(counts.early_returns >= 1, "fmi3_{name}: no early return");
                } else {
                    assert_eq!(counts.early_returns, 0, "fmi3_{name}");
                }
                if options.event_mode_used {
                    assert!(
                        counts.contact_changes_in_event_mode >= 1,
                        "fmi3_{name}: contact never changed in event mode"
                    );
                }
                if options.intermediate_update {
                    assert!(counts.callbacks >= 1, "fmi3_{name}: no intermediate update");
                }
                records.extend(run);
            }
        }
    }
}

/// The plain runs' FMI 2.0 twins: the FMI 2.0 script's impact master (`impact_records`) from
/// [`S0`], with the FMI 2.0 FMU.
pub fn fmi2_plain_records(fmu: &Arc<super::support::Fmu>) -> Vec<Record> {
    use super::support::{ok, vr as vr2};
    use elastogap::variables::Var;
    let mut records = Vec::new();
    for law in &IMPACT_LAWS {
        for m_eff in [0.0, 1.0] {
            let mut inst = super::initialized(fmu, law, 3);
            if m_eff > 0.0 {
                ok(inst.set_real(&[vr2(Var::MEff)], &[m_eff]));
            }
            let name = fmi2_label(law, m_eff);
            let (mut s, mut v, mut t) = (S0, -1.0, 0.0);
            for step in 0..STEPS {
                ok(inst.set_real(&[vr2(Var::FlangeBS), vr2(Var::FlangeBV)], &[s, v]));
                ok(inst.do_step(t, H, true));
                let mut values = super::outputs(&mut inst);
                v += -values[5] * H;
                s += v * H;
                t += H;
                values.extend([s, v]);
                records.push(Record::new(format!("{name}/{step}"), tag(law), &values));
            }
            ok(inst.terminate());
        }
    }
    records
}

/// The label the FMI 2.0 script gives the same impact (its `impact_records`).
fn fmi2_label(law: &Law, m_eff: f64) -> String {
    format!(
        "impact_n{}_est{}",
        law.n,
        if m_eff > 0.0 { "_m_eff" } else { "" }
    )
}

/// The plain FMI 3.0 runs against [`fmi2_plain_records`]: the same bits on the platform both ran on
/// (the serialized states aside: each standard writes its own).
pub fn the_plain_runs_are_fmi2s(fmi3: &[Record], fmi2: &[Record]) -> usize {
    let mut compared = 0;
    for law in &IMPACT_LAWS {
        for m_eff in [0.0, 1.0] {
            let label = fmi2_label(law, m_eff);
            let ours: Vec<&Record> = fmi3
                .iter()
                .filter(|r| {
                    r.label.starts_with(&format!("fmi3_{label}/")) && !r.label.ends_with("/state")
                })
                .collect();
            let theirs: Vec<&Record> = fmi2
                .iter()
                .filter(|r| {
                    r.label.starts_with(&format!("{label}/")) && !r.label.ends_with("/state")
                })
                .collect();
            assert_eq!(ours.len(), STEPS, "{label}");
            assert_eq!(ours.len(), theirs.len(), "{label}");
            for (a, b) in ours.iter().zip(&theirs) {
                assert_eq!(
                    a.bits, b.bits,
                    "{}: fmi3DoStep without early return differs from fmi2DoStep ({})",
                    a.label, b.label
                );
                compared += 1;
            }
        }
    }
    compared
}

// ---------------------------------------------------------------------------------------------
// Model Exchange
// ---------------------------------------------------------------------------------------------

/// One Model Exchange instance with its state vector's size and indicator count.
struct MeGap {
    inst: Instance3,
    states: usize,
    indicators: usize,
}

impl MeGap {
    fn new(fmu: &Arc<Fmu3>, law: &Law) -> MeGap {
        let mut inst = Instance3::model_exchange(fmu).expect("fmi3InstantiateModelExchange");
        assert_eq!(inst.enter_initialization_mode(0.0), Status::Ok);
        parameterize(&mut inst, law);
        assert_eq!(inst.exit_initialization_mode(), Status::Ok);
        update_until_settled(&mut inst);
        let (mut states, mut indicators) = (0usize, 0usize);
        let b = &inst.fmu.binding;
        // SAFETY: a live instance; valid output pointers.
        unsafe {
            check(
                b.fmi3EnterContinuousTimeMode(inst.instance),
                "fmi3EnterContinuousTimeMode",
            );
            check(
                b.fmi3GetNumberOfContinuousStates(inst.instance, &mut states),
                "fmi3GetNumberOfContinuousStates",
            );
            check(
                b.fmi3GetNumberOfEventIndicators(inst.instance, &mut indicators),
                "fmi3GetNumberOfEventIndicators",
            );
        }
        MeGap {
            inst,
            states,
            indicators,
        }
    }

    fn b(&self) -> &fmi_sys::fmi3::Fmi3Binding {
        &self.inst.fmu.binding
    }

    fn continuous_states(&self) -> Vec<f64> {
        let mut x = vec![0.0; self.states];
        // SAFETY: a live instance, an array of the announced length.
        check(
            unsafe {
                self.b()
                    .fmi3GetContinuousStates(self.inst.instance, x.as_mut_ptr(), x.len())
            },
            "fmi3GetContinuousStates",
        );
        x
    }

    /// Time, the FMU's states and the body at flange_b.
    fn set_point(&mut self, t: f64, y: &[f64]) {
        let instance = self.inst.instance;
        // SAFETY: a live instance, arrays of the announced lengths.
        unsafe {
            check(self.b().fmi3SetTime(instance, t), "fmi3SetTime");
            check(
                self.b()
                    .fmi3SetContinuousStates(instance, y[2..].as_ptr(), self.states),
                "fmi3SetContinuousStates",
            );
        }
        assert_eq!(self.inst.set_f64("flange_b.s", y[0]), Status::Ok);
        assert_eq!(self.inst.set_f64("flange_b.v", y[1]), Status::Ok);
    }

    /// The system's derivative: the body under `-f`, the FMU's state derivatives.
    fn rhs(&mut self, t: f64, y: &[f64]) -> Vec<f64> {
        self.set_point(t, y);
        let f = self.inst.get_f64("f");
        let mut dx = vec![0.0; self.states];
        // SAFETY: a live instance, an array of the announced length.
        check(
            unsafe {
                self.b().fmi3GetContinuousStateDerivatives(
                    self.inst.instance,
                    dx.as_mut_ptr(),
                    dx.len(),
                )
            },
            "fmi3GetContinuousStateDerivatives",
        );
        let mut derivative = vec![y[1], -f];
        derivative.extend(dx);
        derivative
    }

    fn event_indicators(&self) -> Vec<f64> {
        let mut z = vec![0.0; self.indicators];
        // SAFETY: a live instance, an array of the announced length.
        check(
            unsafe {
                self.b()
                    .fmi3GetEventIndicators(self.inst.instance, z.as_mut_ptr(), z.len())
            },
            "fmi3GetEventIndicators",
        );
        z
    }

    /// df/d(flange_b.s, flange_b.v) at the point set last.
    fn jacobian(&self) -> Vec<f64> {
        let unknowns = [vr("f")];
        let mut columns = Vec::new();
        for known in [vr("flange_b.s"), vr("flange_b.v")] {
            let mut column = [0.0; 1];
            // SAFETY: a live instance, arrays of the announced lengths.
            check(
                unsafe {
                    self.b().fmi3GetDirectionalDerivative(
                        self.inst.instance,
                        unknowns.as_ptr(),
                        1,
                        &known,
                        1,
                        &1.0,
                        1,
                        column.as_mut_ptr(),
                        1,
                    )
                },
                "fmi3GetDirectionalDerivative",
            );
            columns.extend(column);
        }
        columns
    }

    /// Event Mode until settled, back to Continuous-Time Mode: how many passes it took.
    fn handle_event(&mut self) -> usize {
        // SAFETY: a live instance.
        check(
            unsafe { self.b().fmi3EnterEventMode(self.inst.instance) },
            "fmi3EnterEventMode",
        );
        let passes = update_until_settled(&mut self.inst);
        // SAFETY: a live instance.
        check(
            unsafe { self.b().fmi3EnterContinuousTimeMode(self.inst.instance) },
            "fmi3EnterContinuousTimeMode",
        );
        passes
    }
}

/// The impact as Model Exchange: RK4 at a fixed step; after every step the FMU's
/// `fmi3CompletedIntegratorStep` and a sign change of an indicator send it through Event Mode at
/// the step's end (no location: the same master on both platforms is all parity needs).
pub fn me_records(fmu: &Arc<Fmu3>, records: &mut Vec<Record>) {
    for law in &IMPACT_LAWS {
        let name = format!("fmi3_me_n{}", law.n);
        let mut gap = MeGap::new(fmu, law);
        let mut y = vec![0.2, -1.0];
        y.extend(gap.continuous_states());
        let mut t = 0.0;
        gap.set_point(t, &y);
        let mut sides: Vec<bool> = gap.event_indicators().iter().map(|z| *z > 0.0).collect();
        let mut events = 0;
        for step in 0..ME_STEPS {
            let h = ME_H;
            let k1 = gap.rhs(t, &y);
            let at = |k: &[f64], c: f64| -> Vec<f64> {
                y.iter().zip(k).map(|(y, k)| y + c * h * k).collect()
            };
            let k2 = gap.rhs(t + 0.5 * h, &at(&k1, 0.5));
            let k3 = gap.rhs(t + 0.5 * h, &at(&k2, 0.5));
            let k4 = gap.rhs(t + h, &at(&k3, 1.0));
            for i in 0..y.len() {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            t = (step + 1) as f64 * h;
            gap.set_point(t, &y);
            let (mut enter, mut terminate) = (false, false);
            // SAFETY: a live instance; valid output pointers.
            check(
                unsafe {
                    gap.b().fmi3CompletedIntegratorStep(
                        gap.inst.instance,
                        true,
                        &mut enter,
                        &mut terminate,
                    )
                },
                "fmi3CompletedIntegratorStep",
            );
            assert!(!terminate, "{name}: terminate at {t}");
            let z = gap.event_indicators();
            let now: Vec<bool> = z.iter().map(|z| *z > 0.0).collect();
            let mut event = [0.0; 2];
            if enter || now != sides {
                event = [1.0, gap.handle_event() as f64];
                events += 1;
                // The event may change the FMU's states: the integration goes on from its values.
                let x = gap.continuous_states();
                y.truncate(2);
                y.extend(x);
                gap.set_point(t, &y);
            }
            sides = gap.event_indicators().iter().map(|z| *z > 0.0).collect();
            let mut values = outputs(&mut gap.inst);
            values.extend(&y);
            values.extend(gap.rhs(t, &y));
            values.extend(&z);
            values.extend(event);
            if step.is_multiple_of(50) {
                values.extend(gap.jacobian());
            }
            records.push(Record::new(format!("{name}/{step}"), tag(law), &values));
        }
        assert!(
            events >= 2,
            "{name}: {events} events (touch-down and lift-off at least)"
        );
        records.push(Record::new(
            format!("{name}/state"),
            tag(law),
            &serialized_state(&mut gap.inst),
        ));
        assert_eq!(gap.inst.terminate(), Status::Ok);
    }
}
