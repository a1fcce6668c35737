//! Line charts over a numeric x axis (a learning curve: one point per
//! generation), in stacked panels that share the x axis, each with its own
//! series, legend and horizontal reference lines.

use std::fmt::Write;

use super::{axes, escape, num, open, text, text_width, ticks, Reference};

/// The shape drawn at each point of a series. Shapes and dash patterns
/// differ by series as well as colours, so that the series stay apart in
/// grey print and for readers who do not tell the colours apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Marker {
    /// A filled circle.
    Circle,
    /// A filled square.
    Square,
    /// A filled triangle.
    Triangle,
    /// A filled diamond.
    Diamond,
    /// An open circle (the page's background inside).
    Ring,
    /// No marker: the line only.
    None,
}

/// One series of a panel.
#[derive(Clone, Debug)]
pub struct Series {
    /// Its name, in the legend and in each point's tooltip.
    pub name: String,
    /// The points, in x order; a non-finite y breaks the line.
    pub points: Vec<(f64, f64)>,
    /// Whether consecutive points are joined.
    pub line: bool,
    /// The point marker.
    pub marker: Marker,
    /// Palette entry (0 to 5: classes `s0`/`f0` ... of the style).
    pub colour: usize,
}

/// One panel: a y axis and its series.
#[derive(Clone, Debug)]
pub struct LinePanel {
    /// The y axis label, with units.
    pub y_label: String,
    /// The y range; widened to hold every point and reference.
    pub y_range: (f64, f64),
    /// The series, drawn in order.
    pub series: Vec<Series>,
    /// Horizontal reference lines (a threshold, an even score).
    pub references: Vec<Reference>,
}

/// Panels stacked over one x axis.
#[derive(Clone, Debug)]
pub struct LineChart {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The x axis label, with units.
    pub x_label: String,
    /// The panels, top to bottom.
    pub panels: Vec<LinePanel>,
}

const LEFT: f64 = 72.0;
const PLOT_W: f64 = 560.0;
const RIGHT: f64 = 112.0;
const TOP: f64 = 64.0;
const PANEL_H: f64 = 170.0;
const PANEL_GAP: f64 = 62.0;

/// Dash pattern by the series' place in its panel (solid for the first).
fn dash(place: usize) -> &'static str {
    match place % 4 {
        0 => "",
        1 => " stroke-dasharray=\"7 3\"",
        2 => " stroke-dasharray=\"2 3\"",
        _ => " stroke-dasharray=\"9 3 2 3\"",
    }
}

/// Writes one marker at `(x, y)` with a tooltip.
pub(super) fn marker(out: &mut String, shape: Marker, colour: usize, x: f64, y: f64, tip: &str) {
    let c = colour % 6;
    let tip = escape(tip);
    // A closed path through `corners` (offsets from the point).
    let polygon = |corners: &[(f64, f64)]| {
        let mut d = String::new();
        for (i, (dx, dy)) in corners.iter().enumerate() {
            let _ = write!(
                d,
                "{}{},{} ",
                if i == 0 { "M" } else { "L" },
                num(x + dx, 1),
                num(y + dy, 1)
            );
        }
        d.push('Z');
        d
    };
    let _ = match shape {
        Marker::Circle => writeln!(
            out,
            "<circle class=\"f{c}\" cx=\"{}\" cy=\"{}\" r=\"3.5\"><title>{tip}</title></circle>",
            num(x, 1),
            num(y, 1)
        ),
        Marker::Ring => writeln!(
            out,
            "<circle class=\"hollow s{c}\" stroke-width=\"1.5\" cx=\"{}\" cy=\"{}\" r=\"4.5\"><title>{tip}</title></circle>",
            num(x, 1),
            num(y, 1)
        ),
        Marker::Square => writeln!(
            out,
            "<rect class=\"f{c}\" x=\"{}\" y=\"{}\" width=\"7\" height=\"7\"><title>{tip}</title></rect>",
            num(x - 3.5, 1),
            num(y - 3.5, 1)
        ),
        Marker::Triangle => writeln!(
            out,
            "<path class=\"f{c}\" d=\"{}\"><title>{tip}</title></path>",
            polygon(&[(0.0, -4.5), (4.5, 3.5), (-4.5, 3.5)])
        ),
        Marker::Diamond => writeln!(
            out,
            "<path class=\"f{c}\" d=\"{}\"><title>{tip}</title></path>",
            polygon(&[(0.0, -4.5), (4.5, 0.0), (0.0, 4.5), (-4.5, 0.0)])
        ),
        Marker::None => Ok(()),
    };
}

/// The finite range of `values`, or `None` when there is none.
fn finite_range(values: impl Iterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// Draws a line chart.
pub fn line_chart(chart: &LineChart) -> String {
    let legend_widths: Vec<f64> = chart
        .panels
        .iter()
        .map(|p| {
            p.series
                .iter()
                .map(|s| 34.0 + text_width(&s.name, 6.8) + 14.0)
                .sum()
        })
        .collect();
    let widest_legend = legend_widths.iter().copied().fold(0.0, f64::max);
    let plot_w = PLOT_W.max(widest_legend);
    let width = (LEFT + plot_w + RIGHT).max(text_width(&chart.title, 8.5) + LEFT + 20.0);
    let panels = chart.panels.len().max(1);
    let height = TOP + panels as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP + 48.0;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, LEFT, 28.0, "start", "title", &chart.title);

    let (x_lo, x_hi) = finite_range(
        chart
            .panels
            .iter()
            .flat_map(|p| p.series.iter())
            .flat_map(|s| s.points.iter().map(|p| p.0)),
    )
    .unwrap_or((0.0, 1.0));
    let (x_lo, x_hi) = if x_hi - x_lo < 1e-9 {
        (x_lo - 1.0, x_hi + 1.0)
    } else {
        (x_lo, x_hi)
    };
    // A little room at both ends, so that the first and last points do not
    // sit on the axes.
    let pad = (x_hi - x_lo) * 0.02;
    let (x_lo, x_hi) = (x_lo - pad, x_hi + pad);
    let x_of = |x: f64| LEFT + (x - x_lo) / (x_hi - x_lo) * plot_w;
    let x_ticks = ticks(x_lo, x_hi);

    for (k, panel) in chart.panels.iter().enumerate() {
        let top = TOP + k as f64 * (PANEL_H + PANEL_GAP);
        let bottom = top + PANEL_H;
        let ys = panel
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.1))
            .chain(panel.references.iter().map(|r| r.y))
            .chain([panel.y_range.0, panel.y_range.1]);
        let (mut lo, mut hi) = finite_range(ys).unwrap_or((0.0, 1.0));
        if hi - lo < 1e-9 {
            lo -= 1.0;
            hi += 1.0;
        }
        let pad = (hi - lo) * 0.04;
        let (lo, hi) = (lo - pad, hi + pad);
        let y_of = |v: f64| bottom - (v.clamp(lo, hi) - lo) / (hi - lo) * PANEL_H;
        let _ = writeln!(out, "<g aria-label=\"{}\">", escape(&panel.y_label));
        for t in ticks(lo, hi) {
            let y = num(y_of(t), 1);
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                num(LEFT, 1),
                num(LEFT + plot_w, 1)
            );
            text(
                &mut out,
                LEFT - 6.0,
                y_of(t) + 4.0,
                "end",
                "muted",
                &num(t, 3),
            );
        }
        for &t in &x_ticks {
            let x = num(x_of(t), 1);
            let _ = writeln!(
                out,
                "<line class=\"grid\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
                num(top, 1),
                num(bottom, 1)
            );
            text(
                &mut out,
                x_of(t),
                bottom + 16.0,
                "middle",
                "muted",
                &num(t, 2),
            );
        }
        axes(&mut out, LEFT, top, LEFT + plot_w, bottom);
        let mid = num((top + bottom) / 2.0, 1);
        let _ = writeln!(
            out,
            "<text x=\"18\" y=\"{mid}\" text-anchor=\"middle\" transform=\"rotate(-90 18 {mid})\">{}</text>",
            escape(&panel.y_label)
        );
        for r in &panel.references {
            let y = num(y_of(r.y), 1);
            let class = if r.strong { "ref" } else { "even" };
            let _ = writeln!(
                out,
                "<line class=\"{class}\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                num(LEFT, 1),
                num(LEFT + plot_w, 1)
            );
            let tclass = if r.strong { "reftext" } else { "muted" };
            text(
                &mut out,
                LEFT + plot_w + 6.0,
                y_of(r.y) + 4.0,
                "start",
                tclass,
                &r.label,
            );
        }
        // The legend sits above the panel, in the gap, one entry per series.
        // A lone series with a line and markers needs none (the y label and
        // each point's tooltip name it); any other is named only here.
        let needs_legend = panel.series.len() > 1
            || panel
                .series
                .iter()
                .any(|s| !s.line || s.marker == Marker::None);
        if needs_legend {
            let mut x = LEFT;
            let y = top - 12.0;
            for (place, s) in panel.series.iter().enumerate() {
                if s.line {
                    let _ = writeln!(
                        out,
                        "<line class=\"s{}\" stroke-width=\"2\"{} x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>",
                        s.colour % 6,
                        dash(place),
                        num(x, 1),
                        num(y - 4.0, 1),
                        num(x + 24.0, 1),
                        num(y - 4.0, 1)
                    );
                }
                marker(&mut out, s.marker, s.colour, x + 12.0, y - 4.0, &s.name);
                text(&mut out, x + 30.0, y, "start", "", &s.name);
                x += 34.0 + text_width(&s.name, 6.8) + 14.0;
            }
        }
        for (place, s) in panel.series.iter().enumerate() {
            if s.line {
                let mut path = String::new();
                let mut pen_down = false;
                for &(x, y) in &s.points {
                    if x.is_finite() && y.is_finite() {
                        let _ = write!(
                            path,
                            "{}{},{} ",
                            if pen_down { "L" } else { "M" },
                            num(x_of(x), 1),
                            num(y_of(y), 1)
                        );
                        pen_down = true;
                    } else {
                        pen_down = false;
                    }
                }
                if !path.is_empty() {
                    let _ = writeln!(
                        out,
                        "<path class=\"s{}\" fill=\"none\" stroke-width=\"2\"{} d=\"{}\"/>",
                        s.colour % 6,
                        dash(place),
                        path.trim_end()
                    );
                }
            }
            for &(x, y) in &s.points {
                if x.is_finite() && y.is_finite() {
                    let tip = format!("{}: {} at {}", s.name, num(y, 4), num(x, 2));
                    marker(&mut out, s.marker, s.colour, x_of(x), y_of(y), &tip);
                }
            }
        }
        out.push_str("</g>\n");
    }
    let base = TOP + panels as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP;
    text(
        &mut out,
        LEFT + plot_w / 2.0,
        base + 36.0,
        "middle",
        "muted",
        &chart.x_label,
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_chart_has_its_series_and_threshold() {
        let chart = LineChart {
            title: "Gate".into(),
            desc: "d".into(),
            x_label: "generation".into(),
            panels: vec![LinePanel {
                y_label: "score".into(),
                y_range: (0.0, 1.0),
                series: vec![
                    Series {
                        name: "gate score".into(),
                        points: vec![(1.0, 0.8), (2.0, f64::NAN), (3.0, 0.4)],
                        line: true,
                        marker: Marker::Circle,
                        colour: 0,
                    },
                    Series {
                        name: "promoted".into(),
                        points: vec![(1.0, 0.8)],
                        line: false,
                        marker: Marker::Ring,
                        colour: 1,
                    },
                ],
                references: vec![Reference {
                    y: 0.55,
                    label: "threshold 0.55".into(),
                    strong: true,
                }],
            }],
        };
        let svg = line_chart(&chart);
        assert_eq!(svg, line_chart(&chart));
        assert!(svg.contains("threshold 0.55"));
        assert!(svg.contains("<title>gate score: 0.8 at 1</title>"));
        // The NaN breaks the line: two moves, no line through generation 2.
        assert_eq!(svg.matches(" M").count() + svg.matches("\"M").count(), 2);
        assert!(!svg.contains("NaN"));
    }
}
