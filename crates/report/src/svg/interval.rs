//! A horizontal interval chart: one row per item (an agent, a pairing),
//! its estimate as a dot with its interval as a bar, in the given order
//! (a ratings ladder is sorted best first), with vertical reference lines
//! and the numbers written at the end of each row.

use std::fmt::Write;

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

    let (mut lo, mut hi) = chart.x_range;
    for e in chart.rows.iter().filter_map(|r| r.estimate) {
        for v in [e.value, e.lo, e.hi] {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    for r in &chart.references {
        lo = lo.min(r.y);
        hi = hi.max(r.y);
    }
    if hi - lo < 1e-9 {
        lo -= 1.0;
        hi += 1.0;
    }
    // A little room so that dots at the ends are not cut in half.
    let pad = (hi - lo) * 0.04;
    let (lo, hi) = (lo - pad, hi + pad);
    let x_of = |v: f64| {
        let v = if v.is_finite() {
            v
        } else if v > 0.0 {
            hi
        } else {
            lo
        };
        left + (v.clamp(lo, hi) - lo) / (hi - lo) * PLOT_W
    };
    for t in ticks(lo, hi) {
        let x = num(x_of(t), 1);
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(TOP - 6.0, 1),
            num(bottom, 1)
        );
        text(
            &mut out,
            x_of(t),
            bottom + 16.0,
            "middle",
            "muted",
            &num(t, 3),
        );
    }
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>",
        l = num(left, 1),
        b = num(bottom, 1),
        r = num(left + PLOT_W, 1)
    );
    text(
        &mut out,
        left + PLOT_W / 2.0,
        bottom + 40.0,
        "middle",
        "muted",
        &chart.x_label,
    );
    // Reference labels alternate between two heights so that two close
    // lines keep readable labels.
    for (i, r) in chart.references.iter().enumerate() {
        let x = num(x_of(r.y), 1);
        let class = if r.strong { "ref" } else { "even" };
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(TOP - 6.0, 1),
            num(bottom, 1)
        );
        let tclass = if r.strong { "reftext" } else { "muted" };
        let y = TOP - 12.0 - if i % 2 == 1 { 14.0 } else { 0.0 };
        text(&mut out, x_of(r.y), y, "middle", tclass, &r.label);
    }
    for (i, row) in chart.rows.iter().enumerate() {
        let y = TOP + ROW_H * (i as f64 + 0.5);
        text(&mut out, left - 10.0, y + 4.0, "end", "", &row.label);
        text(
            &mut out,
            left + PLOT_W + 12.0,
            y + 4.0,
            "start",
            "muted",
            &row.note,
        );
        let Some(e) = row.estimate else { continue };
        if !e.value.is_finite() {
            continue;
        }
        let (x0, x1) = (x_of(e.lo), x_of(e.hi));
        let _ = writeln!(
            out,
            "<line class=\"whisker\" x1=\"{}\" y1=\"{yy}\" x2=\"{}\" y2=\"{yy}\"/>",
            num(x0, 1),
            num(x1, 1),
            yy = num(y, 1)
        );
        // End caps on finite ends; an open end gets an arrow head.
        for (end, x, dir) in [(e.lo, x0, -1.0), (e.hi, x1, 1.0)] {
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
        let _ = writeln!(
            out,
            "<circle class=\"point\" cx=\"{}\" cy=\"{}\" r=\"5\"><title>{}: {}</title></circle>",
            num(x_of(e.value), 1),
            num(y, 1),
            escape(&row.label),
            escape(&row.note)
        );
    }
    out.push_str("</svg>\n");
    out
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
