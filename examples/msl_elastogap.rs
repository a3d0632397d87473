//! `Modelica.Mechanics.Translational.Examples.ElastoGap` (MSL 4.1) with the two ElastoGaps as two
//! instances of the packaged FMU; the masses and SpringDampers are integrated by this master. By
//! default a co-simulation (`tests/support/cosim.rs`); `--coupling model-exchange` imports the FMU
//! as Model Exchange under an adaptive integrator with event location
//! (`tests/support/model_exchange.rs`), `--step` then being the output interval.
//!
//! ```text
//! cargo run --release --example msl_elastogap -- --fmu target/fmu/ElastoGap.fmu --out out/ \
//!     [--step 0.01] [--coupling best|mean|naive|jacobi|model-exchange] [--m-eff KG]
//!     [--reference ../shared/msl/ElastoGap/ElastoGap.csv] [--force-law N] [--laws-figure]
//!     [--fmi3 target/fmu/ElastoGap3.fmu [--no-early-return] [--no-event-mode]]
//! ```
//! Writes `<out>/ElastoGap_cosim.csv` and `<out>/ElastoGap_cosim.svg` (`ElastoGap_me.*` with
//! Model Exchange, `ElastoGap_meff.*` with `--m-eff`, `ElastoGap_jacobi.*` /
//! `ElastoGap_meff_jacobi.*` with `--coupling jacobi`). With `--reference`, prints
//! the largest deviation of each MSL comparison signal and exits with status 1 if one leaves the
//! MSL tube (2e-3). Status 2: bad arguments or a failed FMU call.
//!
//! `--fmi3 ElastoGap3.fmu` runs the example through the FMI 3.0 FMU as well
//! (`tests/support/cosim3.rs`: its steps return early at the contact's start and end and take the
//! switch in event mode) and plots it beside the FMI 2.0 run under the same Gauss–Seidel master
//! (`f_mean` held, no input derivatives, as FMI 3.0 has none) and the reference, the early returns
//! marked (`<out>/ElastoGap_fmi3.csv`, `<out>/ElastoGap_fmi3.svg`). With `--reference`, the FMI 3.0
//! run is the one compared with the tube.
//!
//! `--laws-figure` draws the figure of the MSL ElastoGap documentation instead: the example run
//! with `forceLaw` SpringDamper, NoPulling and ElastoGap, the force of elastoGap1 of each in one
//! plot (`<out>/ElastoGap_laws.csv`, `<out>/ElastoGap_laws.svg`).

#[path = "../tests/support/mod.rs"]
mod support;

use std::error::Error;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use plotters::prelude::*;

use support::cosim::{self, Coupling, DemoOptions, DemoRun, TimeSeries, COMPARISON_SIGNALS, TUBE};
use support::cosim3::{self, EarlyReturn, Fmi3Options, Fmi3Run};
use support::fmi3::Fmu3;
use support::Fmu;

const USAGE: &str = "\
usage: msl_elastogap [--fmu FILE.fmu] [--out DIR] [--step SECONDS] [--m-eff KG]
                     [--coupling best|mean|naive|jacobi|model-exchange] [--reference MSL.csv]
                     [--force-law N] [--laws-figure]
                     [--fmi3 FILE.fmu [--no-early-return] [--no-event-mode]]

  --fmu        the ElastoGap FMU (default: $ELASTOGAP_FMU or target/fmu/ElastoGap.fmu)
  --out        output directory (default: out)
  --step       communication step in s (default: 0.01); the output interval with model-exchange
  --coupling   best: Gauss-Seidel, input derivatives, mean forces f_mean (default)
               mean: mean forces f_mean, the FMU estimating the acceleration itself
               naive: forces f at the start of each step held over the step
               jacobi: all units stepped at once (OMSimulator's default); mass2 holds over
                 each step the forces f_next the gaps output before it
               model-exchange: the gaps imported as Model Exchange, one adaptive integrator
                 (Dormand-Prince 5(4), rtol 1e-10) that locates the FMUs' events
  --m-eff      the gaps' parameter m_eff in kg (default 0: the FMU estimates it after the first
               contact). mass2 (1 kg) meets each gap against a fixed wall, and never both gaps at
               once, so its effective mass is 1 kg: --m-eff 1 integrates each contact's own
               dynamics inside the step, right at large steps (co-simulation only)
  --reference  MSL reference result; compare the comparison signals with it (tube 2e-3)
  --force-law  the gaps' parameter forceLaw (default 1, ElastoGap: the MSL law of the example)
  --laws-figure
               the figure of the MSL ElastoGap documentation: elastoGap1.f of the example
               with forceLaw 2 SpringDamper (curve 1), 3 NoPulling (2) and 1 ElastoGap (3)
  --fmi3       the FMI 3.0 FMU (ElastoGap3.fmu): run the example through it, its steps returning
               early at the contact's start and end and taking the switch in event mode
               (Gauss-Seidel, f_mean held), and plot it beside the FMI 2.0 run of --fmu (coupling
               mean unless --coupling says otherwise) and the reference: ElastoGap_fmi3.*
  --no-early-return, --no-event-mode
               the FMI 3.0 run without early return (its steps are FMI 2.0's) or without event
               mode (the switch is taken by the next step)";

struct Args {
    fmu: PathBuf,
    out: PathBuf,
    options: DemoOptions,
    reference: Option<PathBuf>,
    laws_figure: bool,
    /// `--fmi3`: the FMI 3.0 FMU, and whether `--coupling` was given (else the FMI 2.0 run beside
    /// it holds `f_mean`, as the FMI 3.0 master does).
    fmi3: Option<PathBuf>,
    coupling_given: bool,
    early_return: bool,
    event_mode: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        fmu: support::default_fmu_path(),
        out: PathBuf::from("out"),
        options: DemoOptions::default(),
        reference: None,
        laws_figure: false,
        fmi3: None,
        coupling_given: false,
        early_return: true,
        event_mode: true,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        let (key, inline) = match arg.split_once('=') {
            Some((k, v)) if k.starts_with("--") => (k.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{key} needs a value"))
        };
        match key.as_str() {
            "--fmu" => args.fmu = PathBuf::from(value()?),
            "--out" => args.out = PathBuf::from(value()?),
            "--step" => {
                let v = value()?;
                let step: f64 = v.parse().map_err(|_| format!("--step {v}: not a number"))?;
                if !(step > 0.0 && step <= cosim::STOP_TIME) {
                    return Err(format!(
                        "--step {v}: must be in (0, {}] s",
                        cosim::STOP_TIME
                    ));
                }
                args.options.step = step;
            }
            "--coupling" => {
                args.options.coupling = value()?.parse()?;
                args.coupling_given = true;
            }
            "--fmi3" => args.fmi3 = Some(PathBuf::from(value()?)),
            "--no-early-return" => args.early_return = false,
            "--no-event-mode" => args.event_mode = false,
            "--m-eff" => {
                let v = value()?;
                let m_eff: f64 = v
                    .parse()
                    .map_err(|_| format!("--m-eff {v}: not a number"))?;
                if !(m_eff >= 0.0 && m_eff.is_finite()) {
                    return Err(format!("--m-eff {v}: must be a finite mass >= 0 kg"));
                }
                args.options.m_eff = m_eff;
            }
            "--reference" => args.reference = Some(PathBuf::from(value()?)),
            "--force-law" => {
                let v = value()?;
                args.options.force_law = v
                    .parse()
                    .map_err(|_| format!("--force-law {v}: not an integer"))?;
            }
            "--laws-figure" => args.laws_figure = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {e}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&args) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// Ok(false): a comparison signal left the tube.
fn run(args: &Args) -> Result<bool, Box<dyn Error>> {
    let fmu = std::sync::Arc::new(
        Fmu::open(&args.fmu).map_err(|e| format!("cannot load {}: {e}", args.fmu.display()))?,
    );
    let missing = fmu.missing_functions();
    if !missing.is_empty() {
        return Err(format!("the FMU lacks FMI 2.0 functions: {}", missing.join(", ")).into());
    }
    if args.laws_figure {
        laws_figure(&fmu, args)?;
        return Ok(true);
    }
    if let Some(path) = &args.fmi3 {
        return fmi3_demo(&fmu, path, args);
    }
    let reference = args
        .reference
        .as_deref()
        .map(TimeSeries::read_csv)
        .transpose()?;

    let started = std::time::Instant::now();
    let run = cosim::run_demo(&fmu, &args.options)?;
    let elapsed = started.elapsed();

    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let stem = match (args.options.coupling, args.options.m_eff > 0.0) {
        _ if args.options.force_law != 1 => "ElastoGap_law",
        (Coupling::ModelExchange, _) => "ElastoGap_me",
        (Coupling::Jacobi, true) => "ElastoGap_meff_jacobi",
        (Coupling::Jacobi, false) => "ElastoGap_jacobi",
        (_, true) => "ElastoGap_meff",
        (_, false) => "ElastoGap_cosim",
    };
    let csv = args.out.join(format!("{stem}.csv"));
    let svg = args.out.join(format!("{stem}.svg"));
    write_csv(&run, &csv)?;
    plot(&run, reference.as_ref(), &svg).map_err(|e| format!("plot {}: {e}", svg.display()))?;

    let o = &run.options;
    let model_exchange = o.coupling == Coupling::ModelExchange;
    println!(
        "Modelica.Mechanics.Translational.Examples.ElastoGap, {} 0..{} s",
        if model_exchange {
            "Model Exchange"
        } else {
            "co-simulated"
        },
        o.stop_time
    );
    println!(
        "  FMU:       {} ({} {}, two instances: elastoGap1, elastoGap2)",
        args.fmu.display(),
        fmu.model_description.model_name,
        fmu.model_description.guid
    );
    println!(
        "  step:      {} s ({} {}, {:.0} ms wall time)",
        o.step,
        run.rows.len() - 1,
        if model_exchange {
            "output intervals"
        } else {
            "communication steps"
        },
        elapsed.as_secs_f64() * 1e3
    );
    println!(
        "  coupling:  {} ({})",
        o.coupling,
        match o.coupling {
            Coupling::Best =>
                "Gauss-Seidel; mass2's acceleration given as input derivative; mean gap forces f_mean held over each step",
            Coupling::MeanForce =>
                "Gauss-Seidel; mean gap forces f_mean held over each step, from the FMU's own acceleration estimate",
            Coupling::Naive => "gap forces f at the start of each step held over the step; no input derivatives",
            Coupling::Jacobi =>
                "Jacobi, all units stepped at once; the gap forces f_next read before each step held over it",
            Coupling::ModelExchange =>
                "Model Exchange; one Dormand-Prince 5(4) integrator (rtol 1e-10) for the whole system, the FMUs' events located to 1e-13 s",
        }
    );
    if !model_exchange {
        println!(
            "  m_eff:     {}",
            if o.m_eff > 0.0 {
                format!(
                    "{} kg (mass2 against a wall): each step integrates the contact's own dynamics",
                    o.m_eff
                )
            } else {
                "0 (the FMU's default): estimated by the FMU after the first contact".to_string()
            }
        );
        println!(
            "  estimate:  m_eff_estimate {} kg (elastoGap1), {} kg (elastoGap2) at the end",
            run.m_eff_estimates[0], run.m_eff_estimates[1]
        );
    }
    println!("  results:   {}", csv.display());
    println!("  plot:      {}", svg.display());

    let mut inside = true;
    if let (Some(reference), Some(path)) = (&reference, &args.reference) {
        let worst = cosim::max_deviation_from_csv(&run, reference)?;
        println!(
            "Deviation from the reference {} (MSL tube {TUBE}):",
            path.display()
        );
        for (name, (dev, at)) in COMPARISON_SIGNALS.iter().zip(worst) {
            let ok = dev <= TUBE;
            inside &= ok;
            println!(
                "  {name:<20} max |deviation| = {dev:.3e} at t = {at:.3} s  {}",
                if ok { "inside" } else { "OUTSIDE the tube" }
            );
        }
        println!(
            "{}",
            if inside {
                "All comparison signals stay inside the tube."
            } else {
                "FAILED: a comparison signal leaves the tube."
            }
        );
    }
    Ok(inside)
}

fn write_csv(run: &DemoRun, path: &Path) -> Result<(), String> {
    let names = [
        "time",
        "elastoGap1.v_rel",
        "elastoGap2.s_rel",
        "springDamper1.v_rel",
        "springDamper2.s_rel",
        "mass1.s",
        "mass1.v",
        "mass2.s",
        "mass2.v",
        "elastoGap1.f",
        "elastoGap2.f",
        "elastoGap1.f_mean",
        "elastoGap2.f_mean",
        "elastoGap1.contact",
        "elastoGap2.contact",
        "elastoGap1.E_loss",
        "elastoGap2.E_loss",
        "springDamper1.f",
        "springDamper2.f",
    ];
    let mut text = String::new();
    let header: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    text.push_str(&header.join(","));
    text.push('\n');
    for r in &run.rows {
        let c = r.comparison();
        let values = [
            r.time,
            c[0],
            c[1],
            c[2],
            c[3],
            r.x1,
            r.v1,
            r.x2,
            r.v2,
            r.gap1.f,
            r.gap2.f,
            r.gap1.f_mean,
            r.gap2.f_mean,
            f64::from(u8::from(r.gap1.contact)),
            f64::from(u8::from(r.gap2.contact)),
            r.gap1.e_loss,
            r.gap2.e_loss,
            r.spring_damper1_f(),
            r.spring_damper2_f(),
        ];
        let line: Vec<String> = values.iter().map(|v| format!("{v}")).collect();
        writeln!(text, "{}", line.join(",")).expect("write to String");
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// A curve of the plot: its legend and how to read it from a row.
type Signal = (&'static str, fn(&cosim::Row) -> f64);

/// Positions of both masses (with the reference's, dashed, if given) and the two gap forces.
fn plot(run: &DemoRun, reference: Option<&TimeSeries>, path: &Path) -> Result<(), Box<dyn Error>> {
    let o = &run.options;
    let stop = o.stop_time;
    let colors = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
    let root = SVGBackend::new(path, (1100, 800)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "MSL Translational.Examples.ElastoGap: 2 ElastoGap FMU instances ({})",
        if o.coupling == Coupling::ModelExchange {
            "Model Exchange, adaptive integrator with event location".to_string()
        } else {
            format!(
                "co-simulation, step {} s, coupling {}{}",
                o.step,
                o.coupling,
                if o.m_eff > 0.0 {
                    format!(", m_eff = {} kg", o.m_eff)
                } else {
                    String::new()
                }
            )
        }
    );
    let root = root.titled(&title, ("sans-serif", 20))?;
    let (upper, lower) = root.split_vertically(390);

    // Positions.
    let mut chart = ChartBuilder::on(&upper)
        .caption("Positions of the masses", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, -2.6..2.0)?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("position s (m)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let series: [Signal; 2] = [
        ("mass1.s (between springDamper1 and springDamper2)", |r| {
            r.x1
        }),
        ("mass2.s (between elastoGap1 and elastoGap2)", |r| r.x2),
    ];
    for ((label, get), color) in series.into_iter().zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, get(r))),
            label,
            color,
            3,
        )?;
    }
    if let Some(reference) = reference {
        // x = 2 m - s_rel of the component between the mass and the right wall.
        for (i, column) in ["springDamper2.s_rel", "elastoGap2.s_rel"]
            .into_iter()
            .enumerate()
        {
            if let Some(values) = reference.column(column) {
                let points: Vec<(f64, f64)> = reference
                    .time
                    .iter()
                    .zip(values)
                    .map(|(&t, &s)| (t, cosim::WALL_RIGHT - s))
                    .collect();
                let style = BLACK.stroke_width(1);
                let drawn = chart.draw_series(DashedLineSeries::new(points, 5, 5, style))?;
                if i == 0 {
                    drawn
                        .label("MSL reference result (Dymola), dashed")
                        .legend(|(x, y)| {
                            PathElement::new(vec![(x, y), (x + 8, y)], BLACK.stroke_width(1))
                        });
                }
            }
        }
    }
    // mass2 touches elastoGap1 below -0.5 m and elastoGap2 above +0.5 m.
    let threshold = RGBColor(0, 150, 80);
    for (i, s) in [-0.5, 0.5].into_iter().enumerate() {
        let drawn = chart.draw_series(DashedLineSeries::new(
            [(0.0, s), (stop, s)],
            3,
            6,
            threshold.stroke_width(1),
        ))?;
        if i == 0 {
            drawn
                .label("mass2 in contact beyond -0.5 m (elastoGap1) / +0.5 m (elastoGap2)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], threshold.stroke_width(1))
                });
        }
    }
    draw_legend(&mut chart)?;

    // Gap forces.
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for r in &run.rows {
        for f in [r.gap1.f, r.gap2.f] {
            lo = lo.min(f);
            hi = hi.max(f);
        }
    }
    let pad = 0.05 * (hi - lo).max(1.0);
    let mut chart = ChartBuilder::on(&lower)
        .caption(
            "Forces of the two ElastoGap FMUs (at flange_b)",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("force f (N)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let forces: [Signal; 2] = [
        ("elastoGap1.f (wall at -2 m to mass2)", |r| r.gap1.f),
        ("elastoGap2.f (mass2 to wall at +2 m)", |r| r.gap2.f),
    ];
    for ((label, get), color) in forces.into_iter().zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, get(r))),
            label,
            color,
            2,
        )?;
    }
    draw_legend(&mut chart)?;
    root.present()?;
    Ok(())
}

/// The curves of the MSL documentation's figure: `forceLaw` and legend.
const LAW_CURVES: [(i32, &str); 3] = [
    (
        2,
        "1: SpringDamper, the unmodified spring/damper: pulls at the end of each contact",
    ),
    (
        3,
        "2: NoPulling, pulling forces set to zero: jumps at touch-down",
    ),
    (1, "3: ElastoGap, the MSL law: continuous, never pulls"),
];

/// The example under each law of [`LAW_CURVES`], and elastoGap1.f of each in one plot.
fn laws_figure(fmu: &std::sync::Arc<Fmu>, args: &Args) -> Result<(), Box<dyn Error>> {
    let mut runs = Vec::new();
    for (force_law, _) in LAW_CURVES {
        let options = DemoOptions {
            force_law,
            ..args.options.clone()
        };
        runs.push(cosim::run_demo(fmu, &options)?);
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let csv = args.out.join("ElastoGap_laws.csv");
    let svg = args.out.join("ElastoGap_laws.svg");
    let mut text = String::from("\"time\"");
    for (force_law, _) in LAW_CURVES {
        write!(text, ",\"elastoGap1.f (forceLaw = {force_law})\"")?;
    }
    text.push('\n');
    for (k, row) in runs[0].rows.iter().enumerate() {
        write!(text, "{}", row.time)?;
        for run in &runs {
            write!(text, ",{}", run.rows[k].gap1.f)?;
        }
        text.push('\n');
    }
    std::fs::write(&csv, text).map_err(|e| format!("cannot write {}: {e}", csv.display()))?;

    let stop = args.options.stop_time;
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for run in &runs {
        for row in &run.rows {
            lo = lo.min(row.gap1.f);
            hi = hi.max(row.gap1.f);
        }
    }
    let pad = 0.05 * (hi - lo).max(1.0);
    let root = SVGBackend::new(&svg, (1100, 560)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "MSL Translational.Examples.ElastoGap: elastoGap1.f under three force laws ({})",
        if args.options.coupling == Coupling::ModelExchange {
            "Model Exchange".to_string()
        } else {
            format!("co-simulation, step {} s", args.options.step)
        }
    );
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 18))
        .margin(14)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("force f at flange_b (N)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let colors = [
        RGBColor(214, 39, 40),
        RGBColor(255, 127, 14),
        RGBColor(31, 119, 180),
    ];
    for ((run, (_, label)), color) in runs.iter().zip(LAW_CURVES).zip(colors) {
        draw_curve(
            &mut chart,
            run.rows.iter().map(|r| (r.time, r.gap1.f)),
            label,
            color,
            2,
        )?;
    }
    draw_legend(&mut chart)?;
    root.present()?;
    println!("The figure of the MSL ElastoGap documentation, elastoGap1.f under three laws:");
    for ((force_law, label), run) in LAW_CURVES.iter().zip(&runs) {
        let most_pulling = run.rows.iter().map(|r| r.gap1.f).fold(0.0, f64::max);
        println!("  forceLaw = {force_law} ({label}): largest pulling force {most_pulling:.3} N");
    }
    println!("  results:   {}", csv.display());
    println!("  plot:      {}", svg.display());
    Ok(())
}

/// A chart of these plots: time or position against a force or position.
type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// One curve with its legend entry.
fn draw_curve<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    points: impl Iterator<Item = (f64, f64)>,
    label: &str,
    color: RGBColor,
    width: u32,
) -> Result<(), Box<dyn Error>> {
    chart
        .draw_series(LineSeries::new(points, color.stroke_width(width)))?
        .label(label)
        .legend(move |(x, y)| {
            PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(width))
        });
    Ok(())
}

/// The legend, lower right, where every plot here leaves room.
fn draw_legend<'a, 'b: 'a>(chart: &mut Chart<'a, 'b>) -> Result<(), Box<dyn Error>> {
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

/// The reference a run is compared with at its rows: the MSL result when given, else the
/// high-accuracy solution of the same model (`tests/support/msl_reference.rs`).
struct Reference {
    label: String,
    msl: Option<TimeSeries>,
    /// The high-accuracy solution at every row time of the runs, by the time's bits.
    exact: std::collections::HashMap<u64, [f64; 4]>,
}

impl Reference {
    fn new(msl: Option<TimeSeries>, path: Option<&Path>, runs: &[&DemoRun]) -> Reference {
        let mut times: Vec<f64> = runs
            .iter()
            .flat_map(|r| r.rows.iter().map(|row| row.time))
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        let values = support::msl_reference::comparison_at(&times);
        let exact = times.iter().map(|t| t.to_bits()).zip(values).collect();
        let label = match path {
            Some(p) if msl.is_some() => format!("the MSL reference {}", p.display()),
            _ => "a high-accuracy solution of the same model (RK4 1e-4 s, switches located)"
                .to_string(),
        };
        Reference { label, msl, exact }
    }

    fn exact_at(&self, t: f64) -> [f64; 4] {
        self.exact[&t.to_bits()]
    }

    /// The largest deviation of each comparison signal from this reference.
    fn max_deviation(&self, run: &DemoRun) -> Result<[(f64, f64); 4], String> {
        match &self.msl {
            Some(msl) => cosim::max_deviation_from_csv(run, msl),
            None => Ok(cosim::max_deviation(run, |t| self.exact_at(t))),
        }
    }

    /// mass2's comparison signals (elastoGap1.v_rel, elastoGap2.s_rel) at `t`.
    fn mass2_at(&self, t: f64) -> [f64; 2] {
        match &self.msl {
            Some(msl) => [COMPARISON_SIGNALS[0], COMPARISON_SIGNALS[1]].map(|n| {
                msl.column(n)
                    .map_or(f64::NAN, |column| msl.interpolate(column, t))
            }),
            None => {
                let c = self.exact_at(t);
                [c[0], c[1]]
            }
        }
    }

    /// The larger deviation of mass2's two comparison signals at each row.
    fn mass2_deviation(&self, run: &DemoRun) -> Vec<(f64, f64)> {
        run.rows
            .iter()
            .map(|r| {
                let c = r.comparison();
                let reference = self.mass2_at(r.time);
                let d = (c[0] - reference[0]).abs().max((c[1] - reference[1]).abs());
                (r.time, d)
            })
            .collect()
    }
}

/// `--fmi3`: the example through the FMI 3.0 FMU with early return, beside the FMI 2.0 run.
fn fmi3_demo(fmu: &std::sync::Arc<Fmu>, path: &Path, args: &Args) -> Result<bool, Box<dyn Error>> {
    let fmu3 = std::sync::Arc::new(
        Fmu3::open(path).map_err(|e| format!("cannot load {}: {e}", path.display()))?,
    );
    let msl = args
        .reference
        .as_deref()
        .map(TimeSeries::read_csv)
        .transpose()?;
    let mut options2 = args.options.clone();
    if !args.coupling_given {
        options2.coupling = Coupling::MeanForce;
    }
    let options3 = Fmi3Options {
        demo: DemoOptions {
            coupling: Coupling::MeanForce,
            ..args.options.clone()
        },
        early_return: args.early_return,
        event_mode: args.event_mode,
    };
    let started = std::time::Instant::now();
    let run3 = cosim3::run_demo3(&fmu3, &options3)?;
    let elapsed = started.elapsed();
    let run2 = cosim::run_demo(fmu, &options2)?;
    let reference = Reference::new(msl, args.reference.as_deref(), &[&run3.run, &run2]);

    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create {}: {e}", args.out.display()))?;
    let csv = args.out.join("ElastoGap_fmi3.csv");
    let events_csv = args.out.join("ElastoGap_fmi3_early_returns.csv");
    let svg = args.out.join("ElastoGap_fmi3.svg");
    write_csv(&run3.run, &csv)?;
    write_early_returns(&run3.early_returns, &events_csv)?;
    plot_fmi3(&run3, &run2, &reference, &svg)
        .map_err(|e| format!("plot {}: {e}", svg.display()))?;

    let o = &options3.demo;
    println!(
        "Modelica.Mechanics.Translational.Examples.ElastoGap, co-simulated through FMI 3.0, 0..{} s",
        o.stop_time
    );
    println!(
        "  FMU:       {} (two fmi3InstantiateCoSimulation instances: elastoGap1, elastoGap2)",
        path.display()
    );
    println!(
        "  steps:     grid {} s, {} communication points ({} early returns; {:.0} ms wall time)",
        o.step,
        run3.run.rows.len() - 1,
        run3.early_returns.len(),
        elapsed.as_secs_f64() * 1e3
    );
    println!(
        "  master:    Gauss-Seidel, f_mean held over the step actually taken; earlyReturnAllowed {}, eventModeUsed {}; the second gap asked only up to where the first stopped (a gap set back to its FMU state and taken again in {} steps)",
        options3.early_return, options3.event_mode, run3.retaken
    );
    for e in &run3.early_returns {
        println!(
            "  early return: t = {:.9} s, elastoGap{}, contact {} (s_rel - s_rel0 = {:.1e} m{})",
            e.time,
            e.gap,
            if e.entering() { "starts" } else { "ends" },
            e.s_rel - cosim::GAP_S_REL0,
            match e.contact_after {
                Some(after) => format!("; event mode: contact {} -> {}", e.contact_before, after),
                None => String::new(),
            }
        );
    }
    println!("  results:   {}, {}", csv.display(), events_csv.display());
    println!("  plot:      {}", svg.display());

    let worst3 = reference.max_deviation(&run3.run)?;
    let worst2 = reference.max_deviation(&run2)?;
    println!(
        "Deviation from {} (MSL tube {TUBE}), FMI 3.0 run | FMI 2.0 run (coupling {}):",
        reference.label, options2.coupling
    );
    let mut inside = true;
    for ((name, (dev3, at3)), (dev2, _)) in COMPARISON_SIGNALS.iter().zip(worst3).zip(worst2) {
        let ok = dev3 <= TUBE;
        inside &= ok;
        println!(
            "  {name:<20} FMI 3.0 max |deviation| = {dev3:.3e} at t = {at3:.3} s {} | FMI 2.0 {dev2:.3e}",
            if ok { "inside" } else { "OUTSIDE the tube" }
        );
    }
    if reference.msl.is_some() {
        println!(
            "{}",
            if inside {
                "All comparison signals of the FMI 3.0 run stay inside the tube."
            } else {
                "FAILED: a comparison signal of the FMI 3.0 run leaves the tube."
            }
        );
    } else {
        // The tube is the MSL reference's: against the solution computed here, report only.
        inside = true;
    }
    Ok(inside)
}

fn write_early_returns(events: &[EarlyReturn], path: &Path) -> Result<(), String> {
    let mut text = String::from(
        "\"time\",\"gap\",\"contactStarts\",\"s_rel\",\"contactBefore\",\"contactAfter\"\n",
    );
    for e in events {
        let after = e
            .contact_after
            .map_or(String::new(), |a| u8::from(a).to_string());
        writeln!(
            text,
            "{},{},{},{},{},{after}",
            e.time,
            e.gap,
            u8::from(e.entering()),
            e.s_rel,
            u8::from(e.contact_before)
        )
        .expect("write to String");
    }
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// The early returns as markers at a curve's values at their rows: filled where the contact
/// starts, hollow where it ends.
fn early_return_markers(run: &Fmi3Run, get: fn(&cosim::Row) -> f64) -> Vec<(f64, f64, bool)> {
    run.early_returns
        .iter()
        .filter_map(|e| {
            let row = run.run.rows.iter().find(|r| r.time == e.time)?;
            Some((e.time, get(row), e.entering()))
        })
        .collect()
}

fn draw_markers<'a, 'b: 'a>(
    chart: &mut Chart<'a, 'b>,
    markers: &[(f64, f64, bool)],
    labelled: bool,
) -> Result<(), Box<dyn Error>> {
    let color = RGBColor(0, 150, 80);
    let drawn = chart.draw_series(markers.iter().map(|&(t, y, starts)| {
        let style = if starts {
            color.filled()
        } else {
            color.stroke_width(2)
        };
        Circle::new((t, y), 5, style)
    }))?;
    if labelled {
        drawn
            .label("early return of fmi3DoStep: contact starts (filled) / ends (hollow)")
            .legend(move |(x, y)| Circle::new((x + 12, y), 5, color.filled()));
    }
    Ok(())
}

/// Positions, gap forces and the deviation from the reference, FMI 3.0 beside FMI 2.0.
fn plot_fmi3(
    run3: &Fmi3Run,
    run2: &DemoRun,
    reference: &Reference,
    path: &Path,
) -> Result<(), Box<dyn Error>> {
    let o = &run3.run.options;
    let stop = o.stop_time;
    let [blue, red] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];
    let fmi2_color = RGBColor(255, 127, 14);
    let root = SVGBackend::new(path, (1100, 1150)).into_drawing_area();
    root.fill(&WHITE)?;
    let title = format!(
        "MSL Translational.Examples.ElastoGap through ElastoGap3.fmu (FMI 3.0, early return), grid {} s",
        o.step
    );
    let root = root.titled(&title, ("sans-serif", 20))?;
    let (upper, rest) = root.split_vertically(400);
    let (middle, lower) = rest.split_vertically(360);

    let mut chart = ChartBuilder::on(&upper)
        .caption("Positions of the masses", ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, -2.6..2.0)?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("position s (m)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let rows3 = &run3.run.rows;
    draw_curve(
        &mut chart,
        rows3.iter().map(|r| (r.time, r.x1)),
        "mass1.s, FMI 3.0 run",
        blue,
        3,
    )?;
    draw_curve(
        &mut chart,
        rows3.iter().map(|r| (r.time, r.x2)),
        "mass2.s, FMI 3.0 run (early return, event mode)",
        red,
        3,
    )?;
    draw_curve(
        &mut chart,
        run2.rows.iter().map(|r| (r.time, r.x2)),
        &format!(
            "mass2.s, FMI 2.0 run (ElastoGap.fmu, coupling {})",
            run2.options.coupling
        ),
        fmi2_color,
        1,
    )?;
    // The reference's mass2 position: x = 2 m - elastoGap2.s_rel.
    let times: Vec<f64> = match &reference.msl {
        Some(msl) => msl.time.clone(),
        None => rows3.iter().map(|r| r.time).collect(),
    };
    let points: Vec<(f64, f64)> = times
        .iter()
        .map(|&t| (t, cosim::WALL_RIGHT - reference.mass2_at(t)[1]))
        .collect();
    chart
        .draw_series(DashedLineSeries::new(points, 5, 5, BLACK.stroke_width(1)))?
        .label(if reference.msl.is_some() {
            "mass2.s, MSL reference result (Dymola), dashed"
        } else {
            "mass2.s, high-accuracy solution, dashed"
        })
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 8, y)], BLACK.stroke_width(1)));
    draw_markers(&mut chart, &early_return_markers(run3, |r| r.x2), true)?;
    draw_legend(&mut chart)?;

    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for r in rows3.iter().chain(&run2.rows) {
        for f in [r.gap1.f, r.gap2.f] {
            lo = lo.min(f);
            hi = hi.max(f);
        }
    }
    let pad = 0.05 * (hi - lo).max(1.0);
    let mut chart = ChartBuilder::on(&middle)
        .caption(
            "Forces of the two ElastoGap FMUs (at flange_b)",
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, (lo - pad)..(hi + pad))?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("force f (N)")
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let forces: [Signal; 2] = [
        ("elastoGap1.f, FMI 3.0", |r| r.gap1.f),
        ("elastoGap2.f, FMI 3.0", |r| r.gap2.f),
    ];
    for ((label, get), color) in forces.into_iter().zip([blue, red]) {
        draw_curve(
            &mut chart,
            rows3.iter().map(|r| (r.time, get(r))),
            label,
            color,
            3,
        )?;
    }
    draw_curve(
        &mut chart,
        run2.rows.iter().map(|r| (r.time, r.gap1.f + r.gap2.f)),
        "elastoGap1.f + elastoGap2.f, FMI 2.0 (one is 0 at any time)",
        fmi2_color,
        1,
    )?;
    let markers: Vec<(f64, f64, bool)> = early_return_markers(run3, |r| r.gap1.f + r.gap2.f);
    draw_markers(&mut chart, &markers, false)?;
    draw_legend(&mut chart)?;

    plot_deviation(run3, run2, reference, &lower)?;
    root.present()?;
    Ok(())
}

/// The larger deviation of mass2's two comparison signals from the reference, log scale.
fn plot_deviation(
    run3: &Fmi3Run,
    run2: &DemoRun,
    reference: &Reference,
    area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
) -> Result<(), Box<dyn Error>> {
    let floor = 1e-9;
    let dev3 = reference.mass2_deviation(&run3.run);
    let dev2 = reference.mass2_deviation(run2);
    let top = dev3.iter().chain(&dev2).map(|p| p.1).fold(TUBE, f64::max) * 3.0;
    let stop = run3.run.options.stop_time;
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!(
                "|deviation| of mass2's signals (elastoGap1.v_rel, elastoGap2.s_rel; the larger) from {}",
                if reference.msl.is_some() {
                    "the MSL reference"
                } else {
                    "a high-accuracy solution"
                }
            ),
            ("sans-serif", 16),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..stop, (floor..top).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("time t (s)")
        .y_desc("|deviation|")
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()?;
    let curves = [
        (
            "FMI 3.0 run (early return, event mode)",
            &dev3,
            RGBColor(214, 39, 40),
            2,
        ),
        ("FMI 2.0 run", &dev2, RGBColor(255, 127, 14), 1),
    ];
    for (label, points, color, width) in curves {
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|&(t, d)| (t, d.max(floor))),
                color.stroke_width(width),
            ))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], color.stroke_width(width))
            });
    }
    chart
        .draw_series(DashedLineSeries::new(
            [(0.0, TUBE), (stop, TUBE)],
            6,
            4,
            BLACK.stroke_width(1),
        ))?
        .label("the MSL tube, 2e-3")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], BLACK.stroke_width(1)));
    for e in &run3.early_returns {
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(e.time, floor), (e.time, top)],
            RGBColor(0, 150, 80).mix(0.5).stroke_width(1),
        )))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}
