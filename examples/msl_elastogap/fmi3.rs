//! `--fmi3`: the example through the FMI 3.0 FMU with early return, beside the FMI 2.0 run, its
//! early returns, and its plot against the reference.

use std::error::Error;
use std::fmt::Write as _;
use std::path::Path;

use plotters::prelude::*;

use crate::plot::{draw_curve, draw_legend, force_chart, Chart, Signal};
use crate::support::cosim::{
    self, Coupling, DemoOptions, DemoRun, TimeSeries, COMPARISON_SIGNALS, TUBE,
};
use crate::support::cosim3::{self, EarlyReturn, Fmi3Options, Fmi3Run};
use crate::support::fmi3::Fmu3;
use crate::support::Fmu;
use crate::{write_csv, Args};

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
        let values = crate::support::msl_reference::comparison_at(&times);
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
pub(crate) fn fmi3_demo(
    fmu: &std::sync::Arc<Fmu>,
    path: &Path,
    args: &Args,
) -> Result<bool, Box<dyn Error>> {
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

    let mut chart = force_chart(&middle, rows3.iter().chain(&run2.rows), stop)?;
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
