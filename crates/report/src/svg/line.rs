//! Line charts over a numeric x axis (a learning curve: one point per
//! generation), in stacked panels that share the x axis, each with its own
//! series, legend and horizontal reference lines.

use std::fmt::Write;

use super::plot::{
    horizontal_grid, horizontal_reference, polyline, rotated_label, vertical_grid, Frame, Scale,
};
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

/// The room a series takes in its panel's legend: its sample, its name
/// and the space after it.
fn legend_entry_width(s: &Series) -> f64 {
    34.0 + text_width(&s.name, 6.8) + 14.0
}

/// The x axis every panel shares: the range of every point, padded by 2%
/// at both ends so that the first and last points do not sit on the axes.
fn x_scale(chart: &LineChart, plot_w: f64) -> Scale {
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
    let pad = (x_hi - x_lo) * 0.02;
    Scale::rightwards(x_lo - pad, x_hi + pad, LEFT, plot_w)
}

/// A panel's y axis, rising from `bottom`: its range widened to every
/// point and reference, padded by 4%.
fn y_scale(panel: &LinePanel, bottom: f64) -> Scale {
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
    Scale::upwards(lo - pad, hi + pad, bottom, PANEL_H)
}

/// Draws a line chart.
pub fn line_chart(chart: &LineChart) -> String {
    let widest_legend = chart
        .panels
        .iter()
        .map(|p| p.series.iter().map(legend_entry_width).sum::<f64>())
        .fold(0.0, f64::max);
    let plot_w = PLOT_W.max(widest_legend);
    let width = (LEFT + plot_w + RIGHT).max(text_width(&chart.title, 8.5) + LEFT + 20.0);
    let panels = chart.panels.len().max(1);
    let height = TOP + panels as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP + 48.0;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, LEFT, 28.0, "start", "title", &chart.title);
    let x = x_scale(chart, plot_w);
    let x_ticks = ticks(x.lo, x.hi);
    for (k, panel) in chart.panels.iter().enumerate() {
        let top = TOP + k as f64 * (PANEL_H + PANEL_GAP);
        let frame = Frame {
            left: LEFT,
            top,
            right: LEFT + plot_w,
            bottom: top + PANEL_H,
        };
        line_panel(&mut out, panel, &frame, &x, &x_ticks);
    }
    let base = TOP + panels as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP;
    let centre = LEFT + plot_w / 2.0;
    text(
        &mut out,
        centre,
        base + 36.0,
        "middle",
        "muted",
        &chart.x_label,
    );
    out.push_str("</svg>\n");
    out
}

/// One panel: its grid, axes and reference lines, its legend, and its
/// series.
fn line_panel(out: &mut String, panel: &LinePanel, frame: &Frame, x: &Scale, x_ticks: &[f64]) {
    let y = y_scale(panel, frame.bottom);
    let _ = writeln!(out, "<g aria-label=\"{}\">", escape(&panel.y_label));
    let y_grid = ticks(y.lo, y.hi).into_iter().map(|t| (t, y.clamped(t)));
    horizontal_grid(out, frame, y_grid, 3);
    vertical_grid(out, frame, x_ticks.iter().map(|&t| (t, x.linear(t))), 2);
    axes(out, frame.left, frame.top, frame.right, frame.bottom);
    let mid = (frame.top + frame.bottom) / 2.0;
    rotated_label(out, 18.0, mid, "", &panel.y_label);
    for r in &panel.references {
        horizontal_reference(out, frame, r, y.clamped(r.y));
    }
    if needs_legend(panel) {
        legend(out, panel, frame);
    }
    for (place, s) in panel.series.iter().enumerate() {
        series(out, s, place, x, &y);
    }
    out.push_str("</g>\n");
}

/// Whether a panel names its series in a legend: a lone series with a
/// line and markers needs none (the y label and each point's tooltip name
/// it); any other is named only there.
fn needs_legend(panel: &LinePanel) -> bool {
    panel.series.len() > 1
        || panel
            .series
            .iter()
            .any(|s| !s.line || s.marker == Marker::None)
}

/// The legend above a panel, in the gap: one entry per series, its line
/// sample, its marker and its name.
fn legend(out: &mut String, panel: &LinePanel, frame: &Frame) {
    let mut x = frame.left;
    let y = frame.top - 12.0;
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
        marker(out, s.marker, s.colour, x + 12.0, y - 4.0, &s.name);
        text(out, x + 30.0, y, "start", "", &s.name);
        x += legend_entry_width(s);
    }
}

/// One series, the `place`th of its panel: its line (broken where a point
/// is not finite) and a marker with a tooltip at each finite point.
fn series(out: &mut String, s: &Series, place: usize, x: &Scale, y: &Scale) {
    let finite = |&(px, py): &(f64, f64)| px.is_finite() && py.is_finite();
    if s.line {
        let path =
            polyline((s.points.iter()).map(|p| finite(p).then(|| (x.linear(p.0), y.clamped(p.1)))));
        if !path.is_empty() {
            let _ = writeln!(
                out,
                "<path class=\"s{}\" fill=\"none\" stroke-width=\"2\"{} d=\"{path}\"/>",
                s.colour % 6,
                dash(place),
            );
        }
    }
    for &(px, py) in s.points.iter().filter(|p| finite(p)) {
        let tip = format!("{}: {} at {}", s.name, num(py, 4), num(px, 2));
        marker(out, s.marker, s.colour, x.linear(px), y.clamped(py), &tip);
    }
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
