//! The same call script gives the same output bits on linux64 and win64.
//!
//! [`call_script`] drives the packaged FMU through a fixed script: the force law at 4,480 points
//! (every input set, every Real output and local read) for six parameter sets, then single-mass
//! impacts co-simulated over 400 steps with n = 1 and n = 1.5, with the FMU's own acceleration
//! estimate, with input derivatives and with `m_eff` given, and the serialized FMU state at the
//! end of each. The master uses `+ - * /` only, so its own arithmetic is the same everywhere.
//!
//! `tests/win64/run.sh` runs this test binary twice:
//! 1. cross-built for Windows, under Wine, with `ELASTOGAP_PARITY_OUT=<file>`: the records of
//!    the script on the win64 DLL are written to that file;
//! 2. natively, with `ELASTOGAP_PARITY_WIN64=<that file>`: the script runs on the linux64 binary
//!    and every record must match bit for bit, except records tagged with a libm function the
//!    FMU calls (`pow`, only for n other than 1 and 2): those differ where the two C libraries'
//!    `pow` differ (glibc against msvcrt.dll), within a few ulps, and the test says how many.
//!    Under Wine, msvcrt.dll is Wine's own: the count measures glibc against Wine's `pow`, and a
//!    real Windows' `pow` may round other points differently; what calls no libm function must be
//!    identical everywhere.
//!
//! Without either variable the script runs once and only checks it completes.
//!
//! The FMI 3.0 twin (`parity/fmi3.rs`): the impacts through `ElastoGap3` (`$ELASTOGAP3_FMU`)
//! co-simulated without early return, with early return, with early return and event mode, with the
//! intermediate-update callback, and as Model Exchange, compared the same way through
//! `ELASTOGAP_PARITY3_OUT` and `ELASTOGAP_PARITY3_WIN64`; its plain runs must also give the FMI 2.0
//! script's impact records bit for bit on the platform they run on.

mod support;

#[path = "parity/fmi3.rs"]
mod fmi3_script;

use std::fmt::Write as _;
use std::sync::Arc;

use elastogap::variables::Var;
use support::gap_law::Law;
use support::{ok, vr, Fmu, Instance};

/// Where a record's value may legitimately differ between the two C libraries.
const EXACT: &str = "exact";
/// `f64::powf` is `pow` of the platform's C library: glibc on linux64, msvcrt.dll on win64.
const POW: &str = "pow";

/// Every Real output and local, in a fixed order.
const REALS: [Var; 9] = [
    Var::F,
    Var::SRel,
    Var::VRel,
    Var::LossPower,
    Var::HeatPortQFlow,
    Var::FMean,
    Var::ELoss,
    Var::FC,
    Var::FD,
];

/// One line of output: what was computed, which libm function it depends on, the values' bits.
#[derive(Clone, Debug, PartialEq)]
struct Record {
    label: String,
    tag: &'static str,
    bits: Vec<u64>,
}

impl Record {
    fn new(label: String, tag: &'static str, values: &[f64]) -> Record {
        Record {
            label,
            tag,
            bits: values.iter().map(|v| v.to_bits()).collect(),
        }
    }

    fn to_line(&self) -> String {
        let mut line = format!("{} {}", self.label, self.tag);
        for bits in &self.bits {
            write!(line, " {bits:016x}").unwrap();
        }
        line
    }

    fn parse(line: &str) -> Record {
        let mut words = line.split_whitespace();
        let label = words.next().expect("a label").to_string();
        let tag = match words.next().expect("a tag") {
            "exact" => EXACT,
            "pow" => POW,
            other => panic!("unknown tag {other:?} in {line:?}"),
        };
        let bits = words
            .map(|w| u64::from_str_radix(w, 16).unwrap_or_else(|e| panic!("{w:?}: {e}")))
            .collect();
        Record { label, tag, bits }
    }
}

/// Which libm function the records of a run under `law` depend on.
fn tag(law: &Law) -> &'static str {
    if law.n == 1.0 || law.n == 2.0 {
        EXACT
    } else {
        POW
    }
}

fn initialized(fmu: &Arc<Fmu>, law: &Law, acceleration_estimate: i32) -> Instance {
    let mut inst = Instance::new(fmu, "parity");
    ok(inst.setup_experiment(None, 0.0, None));
    ok(inst.set_real(
        &[
            vr(Var::C),
            vr(Var::D),
            vr(Var::SRel0),
            vr(Var::N),
            vr(Var::SRef),
            vr(Var::FRef),
        ],
        &[law.c, law.d, law.s_rel0, law.n, law.s_ref, law.f_ref],
    ));
    ok(inst.set_integer(&[vr(Var::AccelerationEstimate)], &[acceleration_estimate]));
    ok(inst.set_boolean(&[vr(Var::UseHeatPort)], &[true]));
    ok(inst.enter_initialization_mode());
    ok(inst.exit_initialization_mode());
    inst
}

fn outputs(inst: &mut Instance) -> Vec<f64> {
    let vrs: Vec<u32> = REALS.iter().map(|&v| vr(v)).collect();
    let (status, mut values) = inst.get_real(&vrs);
    ok(status);
    let (status, contact) = inst.get_boolean(&[vr(Var::Contact)]);
    ok(status);
    values.push(if contact[0] { 1.0 } else { 0.0 });
    values
}

const LAWS: [Law; 6] = [
    // The MSL example's elastoGap.
    Law {
        c: 10.0,
        d: 1.5,
        s_rel0: 1.5,
        n: 1.0,
        s_ref: 1.0,
        f_ref: 0.0,
    },
    Law {
        c: 1e4,
        d: 20.0,
        s_rel0: 0.1,
        n: 1.0,
        s_ref: 1.0,
        f_ref: 0.0,
    },
    Law {
        c: 3e6,
        d: 250.0,
        s_rel0: -2e-3,
        n: 2.0,
        s_ref: 1e-3,
        f_ref: 0.0,
    },
    Law {
        c: 1e5,
        d: 30.0,
        s_rel0: 0.0,
        n: 1.5,
        s_ref: 1e-2,
        f_ref: 0.0,
    },
    Law {
        c: 1e5,
        d: 7.0,
        s_rel0: 1e-3,
        n: 1.7,
        s_ref: 1e-3,
        f_ref: 45.0,
    },
    Law {
        c: 2.5e7,
        d: 1e3,
        s_rel0: 0.0,
        n: 3.3,
        s_ref: 1e-4,
        f_ref: 0.0,
    },
];

/// The law at a grid of relative positions and velocities across the contact point, each point
/// given as two flange positions and velocities that are not exact binary fractions.
fn force_law_records(fmu: &Arc<Fmu>, records: &mut Vec<Record>) {
    const POSITIONS: usize = 160;
    const VELOCITIES: [f64; 7] = [-3.1, -1.0, -0.013, 0.0, 0.007, 0.9, 2.7];
    for (k, law) in LAWS.iter().enumerate() {
        let mut inst = initialized(fmu, law, 3);
        let span = 4.0 * law.s_ref.max(law.s_rel0.abs()).max(1e-3);
        for i in 0..POSITIONS {
            let s_rel = law.s_rel0 - 0.75 * span + span * i as f64 / (POSITIONS - 1) as f64;
            for (j, &v_rel) in VELOCITIES.iter().enumerate() {
                let a_s = 0.1 * i as f64 / 7.0 - 0.3;
                let a_v = 0.2 / 3.0 * j as f64;
                ok(inst.set_real(
                    &[
                        vr(Var::FlangeAS),
                        vr(Var::FlangeAV),
                        vr(Var::FlangeBS),
                        vr(Var::FlangeBV),
                    ],
                    &[a_s, a_v, a_s + s_rel, a_v + v_rel],
                ));
                let values = outputs(&mut inst);
                records.push(Record::new(format!("law{k}/{i}/{j}"), tag(law), &values));
            }
        }
    }
}

/// A 1 kg mass at flange_b, 0.2 m away and moving at -1 m/s towards flange_a fixed at 0, moved by
/// `-f_mean` held over each 1 ms step (or its impulse with the acceleration handed to the FMU).
fn impact_records(fmu: &Arc<Fmu>, records: &mut Vec<Record>) {
    const STEPS: usize = 400;
    const H: f64 = 1e-3;
    let laws = [
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
    // m_eff = 0 learns the mass; 1 kg integrates the contact through it from the first step,
    // in closed form for n = 1 (sines, cosines, exponentials): identical bits too.
    for (law, derivatives, m_eff) in laws
        .iter()
        .flat_map(|law| [(law, false, 0.0), (law, true, 0.0), (law, false, 1.0)])
    {
        let mut inst = initialized(fmu, law, 3);
        if m_eff > 0.0 {
            ok(inst.set_real(&[vr(Var::MEff)], &[m_eff]));
        }
        let name = format!(
            "impact_n{}_{}{}",
            law.n,
            if derivatives { "der" } else { "est" },
            if m_eff > 0.0 { "_m_eff" } else { "" }
        );
        let (mut s, mut v, mut a, mut t) = (0.2, -1.0, 0.0, 0.0);
        for step in 0..STEPS {
            ok(inst.set_real(&[vr(Var::FlangeBS), vr(Var::FlangeBV)], &[s, v]));
            if derivatives {
                ok(inst.set_real_input_derivatives(&[vr(Var::FlangeBV)], &[1], &[a]));
            }
            ok(inst.do_step(t, H, true));
            let values = outputs(&mut inst);
            let f_mean = values[5];
            a = -f_mean;
            v += a * H;
            s += v * H;
            t += H;
            let mut record = values;
            record.extend([s, v]);
            records.push(Record::new(format!("{name}/{step}"), tag(law), &record));
        }
        let mut state = support::FmuState::null();
        ok(inst.get_fmu_state(&mut state));
        let (status, bytes) = inst.serialize_fmu_state(&state);
        ok(status);
        ok(inst.free_fmu_state(&mut state));
        let words: Vec<f64> = bytes
            .chunks(8)
            .map(|c| {
                let mut word = [0u8; 8];
                word[..c.len()].copy_from_slice(c);
                f64::from_bits(u64::from_le_bytes(word))
            })
            .collect();
        records.push(Record::new(format!("{name}/state"), tag(law), &words));
        ok(inst.terminate());
    }
}

fn call_script(fmu: &Arc<Fmu>) -> Vec<Record> {
    let mut records = Vec::new();
    force_law_records(fmu, &mut records);
    impact_records(fmu, &mut records);
    records
}

/// Which records of `other` differ from `ours`, by tag; panics on a structural mismatch.
fn differences(ours: &[Record], other: &[Record]) -> Vec<(String, &'static str, usize)> {
    assert_eq!(
        ours.len(),
        other.len(),
        "the two runs made different scripts"
    );
    let mut found = Vec::new();
    for (a, b) in ours.iter().zip(other) {
        assert_eq!(
            (&a.label, a.tag, a.bits.len()),
            (&b.label, b.tag, b.bits.len())
        );
        let count = a.bits.iter().zip(&b.bits).filter(|(x, y)| x != y).count();
        if count > 0 {
            found.push((a.label.clone(), a.tag, count));
        }
    }
    found
}

#[test]
fn the_call_script_gives_the_same_bits_on_linux64_and_win64() {
    let fmu = Fmu::load_default();
    let records = call_script(&fmu);
    assert!(
        records.len() > 6 * 160 * 7,
        "the script is shorter than planned"
    );
    compare_across_platforms(&records, "ELASTOGAP_PARITY_OUT", "ELASTOGAP_PARITY_WIN64");
}

#[test]
fn the_fmi3_call_script_gives_the_same_bits_on_linux64_and_win64() {
    let fmu3 = support::fmi3::Fmu3::load_default();
    let mut records = Vec::new();
    fmi3_script::cs_records(&fmu3, &mut records);
    fmi3_script::me_records(&fmu3, &mut records);
    let fmi2 = fmi3_script::fmi2_plain_records(&Fmu::load_default());
    let same = fmi3_script::the_plain_runs_are_fmi2s(&records, &fmi2);
    eprintln!(
        "parity: {same} records of fmi3DoStep without early return bit-identical to fmi2DoStep's"
    );
    compare_across_platforms(&records, "ELASTOGAP_PARITY3_OUT", "ELASTOGAP_PARITY3_WIN64");
}

/// Writes the records to the file `$<out>` (the run under Wine), or compares them with the records
/// in the file `$<win64>` (the native run after it), or neither.
fn compare_across_platforms(records: &[Record], out: &str, win64: &str) {
    if let Some(path) = std::env::var_os(out) {
        let mut text = String::new();
        for record in records {
            text.push_str(&record.to_line());
            text.push('\n');
        }
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("write {path:?}: {e}"));
        eprintln!("parity: {} records written to {path:?}", records.len());
    }

    let Some(path) = std::env::var_os(win64) else {
        eprintln!("parity: no {win64} file to compare with (tests/win64/run.sh sets it)");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path:?}: {e}"));
    let other: Vec<Record> = text.lines().map(Record::parse).collect();
    let found = differences(records, &other);
    let exact: Vec<_> = found.iter().filter(|(_, tag, _)| *tag == EXACT).collect();
    assert!(
        exact.is_empty(),
        "{} records that call no libm function differ between linux64 and win64, first: {:?}",
        exact.len(),
        &exact[..exact.len().min(5)]
    );
    let pow_records = records.iter().filter(|r| r.tag == POW).count();
    let pow_values: usize = found.iter().map(|(_, _, count)| count).sum();
    eprintln!(
        "parity: {} records compared; all {} without a libm call bit-identical; {} of {pow_records} \
         records depending on pow (C library: glibc against msvcrt.dll, Wine's under Wine) differ, in {pow_values} values",
        records.len(),
        records.len() - pow_records,
        found.len()
    );
    // Where pow differs the results must still agree closely: the same law, a last-bit rounding
    // carried through the step integration and the master, measured against the record's scale
    // (a force that passes through zero has no relative error to speak of).
    for (a, b) in records.iter().zip(&other).filter(|(a, _)| a.tag == POW) {
        if a.label.ends_with("/state") {
            continue; // bytes, not numbers; counted above
        }
        let values =
            |r: &Record| -> Vec<f64> { r.bits.iter().map(|&x| f64::from_bits(x)).collect() };
        let (xs, ys) = (values(a), values(b));
        let scale = xs.iter().chain(&ys).fold(0.0f64, |m, v| m.max(v.abs()));
        for (x, y) in xs.iter().zip(&ys) {
            assert!(
                x.to_bits() == y.to_bits() || (x - y).abs() <= 1e-9 * scale,
                "{}: {x:e} (linux64) against {y:e} (win64) is more than pow's rounding carried through",
                a.label
            );
        }
    }
}

#[test]
fn a_record_reads_back_as_written() {
    let record = Record::new("law0/1/2".into(), POW, &[1.5, -0.0, f64::MIN_POSITIVE]);
    assert_eq!(Record::parse(&record.to_line()), record);
    let other = Record {
        bits: vec![1.5f64.to_bits(), 0, f64::MIN_POSITIVE.to_bits()],
        ..record.clone()
    };
    assert_eq!(
        differences(&[record], &[other]),
        vec![("law0/1/2".to_string(), POW, 1)]
    );
}
