//! A horizontal interval chart: one row per item (an agent, a pairing),
//! its estimate as a dot with its interval as a bar, in the given order
//! (a ratings ladder is sorted best first), with vertical reference lines
//! and the numbers written at the end of each row.

use std::fmt::Write;

use super::plot::{covering, vertical_grid, Frame, Scale};
use super::{escape, num, open, text, text_width, ticks, Estimate, Reference};

/// One row: a label, its estimate and the numbers to print beside it.
#[derive(Clone, Debug)]
pub struct IntervalRow {
    /// The item (an agent's name).
    pub label: String,
    /// The estimate and its interval (ends may be infinite: drawn to the
    /// panel's edge with an arrow); `None`: nothing to draw.
    pub estimate: Option<Estimate>,
    /// The numbers, as the reader should quote them (`+312 [+250, +380]`).
    pub note: String,
}

/// Rows of estimates against one horizontal axis.
#[derive(Clone, Debug)]
pub struct IntervalChart {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The x axis label, with units.
    pub x_label: String,
    /// The rows, top to bottom.
    pub rows: Vec<IntervalRow>,
    /// The x range; widened to hold every finite value and reference.
    pub x_range: (f64, f64),
    /// Vertical reference lines (`y` is their x position here).
    pub references: Vec<Reference>,
}

const PLOT_W: f64 = 440.0;
const ROW_H: f64 = 28.0;
const TOP: f64 = 66.0;

/// The x axis: the range widened to every finite value and reference,
/// padded by 4% so that dots at the ends are not cut in half, over the
/// plot that starts at `left`.
fn x_scale(chart: &IntervalChart, left: f64) -> Scale {
    let estimates = chart.rows.iter().filter_map(|r| r.estimate.as_ref());
    let (lo, hi) = covering(chart.x_range, estimates, &chart.references);
    let pad = (hi - lo) * 0.04;
    Scale::rightwards(lo - pad, hi + pad, left, PLOT_W)
}

/// Draws an interval chart.
pub fn interval_chart(chart: &IntervalChart) -> String {
    let label_w = chart
        .rows
        .iter()
        .map(|r| text_width(&r.label, 7.2))
        .fold(40.0, f64::max)
        .min(260.0)
        + 20.0;
    let note_w = chart
        .rows
        .iter()
        .map(|r| text_width(&r.note, 7.0))
        .fold(0.0, f64::max)
        + 24.0;
    let left = label_w;
    let width = (left + PLOT_W + note_w).max(text_width(&chart.title, 8.5) + 32.0);
    let rows = chart.rows.len().max(1);
    let bottom = TOP + ROW_H * rows as f64;
    let height = bottom + 56.0;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &chart.title);
    let x = x_scale(chart, left);
    // The grid and reference lines start a little above the first row.
    let frame = Frame {
        left,
        top: TOP - 6.0,
        right: left + PLOT_W,
        bottom,
    };
    x_axis(&mut out, chart, &frame, &x);
    vertical_references(&mut out, &chart.references, &frame, &x);
    for (i, row) in chart.rows.iter().enumerate() {
        interval_row(&mut out, row, TOP + ROW_H * (i as f64 + 0.5), &frame, &x);
    }
    out.push_str("</svg>\n");
    out
}

/// The x axis under the rows: its grid lines, numbers and label.
fn x_axis(out: &mut String, chart: &IntervalChart, frame: &Frame, x: &Scale) {
    let grid = ticks(x.lo, x.hi).into_iter().map(|t| (t, x.at_or_edge(t)));
    vertical_grid(out, frame, grid, 3);
    frame.hline(out, "axis", frame.bottom);
    let centre = frame.left + PLOT_W / 2.0;
    text(
        out,
        centre,
        frame.bottom + 40.0,
        "middle",
        "muted",
        &chart.x_label,
    );
}

/// Vertical reference lines down the plot, labelled above it; labels
/// alternate between two heights so that two close lines keep readable
/// labels.
fn vertical_references(out: &mut String, references: &[Reference], frame: &Frame, x: &Scale) {
    for (i, r) in references.iter().enumerate() {
        let class = if r.strong { "ref" } else { "even" };
        frame.vline(out, class, x.at_or_edge(r.y));
        let label_class = if r.strong { "reftext" } else { "muted" };
        let y = TOP - 12.0 - if i % 2 == 1 { 14.0 } else { 0.0 };
        text(out, x.at_or_edge(r.y), y, "middle", label_class, &r.label);
    }
}

/// One row centred at height `y`: its label left of the plot, its numbers
/// right of it, and its estimate as a bar from end to end with a dot.
fn interval_row(out: &mut String, row: &IntervalRow, y: f64, frame: &Frame, x: &Scale) {
    text(out, frame.left - 10.0, y + 4.0, "end", "", &row.label);
    text(
        out,
        frame.right + 12.0,
        y + 4.0,
        "start",
        "muted",
        &row.note,
    );
    let Some(e) = row.estimate else { return };
    if !e.value.is_finite() {
        return;
    }
    let (x0, x1) = (x.at_or_edge(e.lo), x.at_or_edge(e.hi));
    let _ = writeln!(
        out,
        "<line class=\"whisker\" x1=\"{}\" y1=\"{yy}\" x2=\"{}\" y2=\"{yy}\"/>",
        num(x0, 1),
        num(x1, 1),
        yy = num(y, 1)
    );
    interval_end(out, e.lo, x0, -1.0, y);
    interval_end(out, e.hi, x1, 1.0, y);
    let _ = writeln!(
        out,
        "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"5\"><title>{}: {}</title></circle>",
        num(x.at_or_edge(e.value), 1),
        num(y, 1),
        escape(&row.label),
        escape(&row.note)
    );
}

/// One end of an interval, at `x` on the row at height `y`: a cap where
/// the end is finite, an arrow head pointing `dir` (-1 left, 1 right)
/// where it is open.
fn interval_end(out: &mut String, end: f64, x: f64, dir: f64, y: f64) {
    if end.is_finite() {
        let _ = writeln!(
            out,
            "<line class=\"whisker\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(y - 5.0, 1),
            num(y + 5.0, 1),
            x = num(x, 1)
        );
    } else {
        let _ = writeln!(
            out,
            "<path class=\"point\" d=\"M{},{} L{},{} L{},{} Z\"/>",
            num(x + dir * 6.0, 1),
            num(y, 1),
            num(x, 1),
            num(y - 4.0, 1),
            num(x, 1),
            num(y + 4.0, 1)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_keep_their_order_and_open_ends_get_arrows() {
        let chart = IntervalChart {
            title: "Ratings".into(),
            desc: "d".into(),
            x_label: "Elo".into(),
            rows: vec![
                IntervalRow {
                    label: "best".into(),
                    estimate: Some(Estimate {
                        value: 300.0,
                        lo: 250.0,
                        hi: f64::INFINITY,
                    }),
                    note: "+300 [+250, +inf]".into(),
                },
                IntervalRow {
                    label: "anchor".into(),
                    estimate: Some(Estimate {
                        value: 0.0,
                        lo: 0.0,
                        hi: 0.0,
                    }),
                    note: "0 (anchor)".into(),
                },
            ],
            x_range: (0.0, 0.0),
            references: vec![Reference {
                y: 0.0,
                label: "0".into(),
                strong: false,
            }],
        };
        let svg = interval_chart(&chart);
        assert!(svg.find(">best<").unwrap() < svg.find(">anchor<").unwrap());
        assert_eq!(svg.matches("<path class=\"point\"").count(), 1);
        assert!(svg.contains("<title>best: +300 [+250, +inf]</title>"));
    }
}
