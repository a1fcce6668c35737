//! Small multiples: a grid of small panels (one board per panel: pits per
//! row, seeds per column), each a ladder of estimates with intervals over
//! the same categories (agents from weakest to strongest) and the same y
//! range, with a reference line (the perfect-play outcome). One chart
//! shows how the first player's score grows with skill on every board.

use std::fmt::Write;

use super::{axes, escape, num, open, text, text_width, Estimate};

/// One panel of the grid.
#[derive(Clone, Debug)]
pub struct MiniPanel {
    /// A short caption above the panel (`exact +6`).
    pub caption: String,
    /// One estimate per category (`None`: not measured).
    pub points: Vec<Option<Estimate>>,
    /// A horizontal reference line, in the panel's units.
    pub reference: Option<f64>,
}

/// A grid of panels over shared categories and y range.
#[derive(Clone, Debug)]
pub struct SmallMultiples {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// What the rows are (`pits per side`).
    pub row_label: String,
    /// What the columns are (`seeds per pit`).
    pub column_label: String,
    /// Row headings, top to bottom.
    pub rows: Vec<String>,
    /// Column headings, left to right.
    pub columns: Vec<String>,
    /// The categories of every panel, in x order: numbered 1.. on the
    /// axes and named in the key under the grid.
    pub categories: Vec<String>,
    /// The y axis label, with units.
    pub y_label: String,
    /// The y range of every panel.
    pub y_range: (f64, f64),
    /// What the reference line means, for the key.
    pub reference_label: String,
    /// `panels[row][column]`; `None`: no such board.
    pub panels: Vec<Vec<Option<MiniPanel>>>,
}

const PANEL_H: f64 = 92.0;
const GAP_X: f64 = 22.0;
const GAP_Y: f64 = 46.0;
const LEFT: f64 = 112.0;
const TOP: f64 = 104.0;

/// Draws the small multiples.
pub fn small_multiples(chart: &SmallMultiples) -> String {
    let n = chart.categories.len().max(1);
    let panel_w = (22.0 * n as f64 + 16.0).max(120.0);
    let cols = chart.columns.len().max(1);
    let rows = chart.rows.len().max(1);
    let grid_w = cols as f64 * (panel_w + GAP_X) - GAP_X;
    let grid_bottom = TOP + rows as f64 * (PANEL_H + GAP_Y) - GAP_Y;
    // The key names every category; it wraps to the grid's width.
    let key_items: Vec<String> = chart
        .categories
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{} = {c}", i + 1))
        .collect();
    let key_width = (grid_w + LEFT - 16.0).max(560.0);
    let mut key_lines: Vec<String> = vec![
        format!("y axis: {}", chart.y_label),
        format!("red line: {}", chart.reference_label),
        String::from("x axis, agents:"),
    ];
    // Items are separated by commas: SVG collapses runs of spaces, so
    // spacing alone would run "1 = a 2 = b" together.
    let last_item = key_items.len().saturating_sub(1);
    for (i, item) in key_items.iter().enumerate() {
        let item = if i < last_item {
            format!("{item},")
        } else {
            item.clone()
        };
        let last = key_lines.last_mut().expect("one line at least");
        if text_width(last, 7.0) + text_width(&item, 7.0) + 20.0 > key_width {
            key_lines.push(item);
        } else {
            last.push(' ');
            last.push_str(&item);
        }
    }
    let width = (LEFT + grid_w + 24.0)
        .max(text_width(&chart.title, 8.5) + 32.0)
        .max(
            key_lines
                .iter()
                .map(|l| text_width(l, 7.0))
                .fold(0.0, f64::max)
                + 32.0,
        );
    let height = grid_bottom + 40.0 + 18.0 * key_lines.len() as f64;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &chart.title);
    text(
        &mut out,
        LEFT + grid_w / 2.0,
        TOP - 56.0,
        "middle",
        "muted",
        &chart.column_label,
    );
    let mid = num((TOP + grid_bottom) / 2.0, 1);
    let _ = writeln!(
        out,
        "<text x=\"16\" y=\"{mid}\" text-anchor=\"middle\" class=\"muted\" transform=\"rotate(-90 16 {mid})\">{}</text>",
        escape(&chart.row_label)
    );
    let (lo, hi) = if chart.y_range.1 > chart.y_range.0 {
        chart.y_range
    } else {
        (0.0, 1.0)
    };
    for (c, heading) in chart.columns.iter().enumerate() {
        let x = LEFT + c as f64 * (panel_w + GAP_X) + panel_w / 2.0;
        text(&mut out, x, TOP - 30.0, "middle", "", heading);
    }
    for (r, heading) in chart.rows.iter().enumerate() {
        let top = TOP + r as f64 * (PANEL_H + GAP_Y);
        text(
            &mut out,
            34.0,
            top + PANEL_H / 2.0 + 4.0,
            "start",
            "",
            heading,
        );
        for c in 0..cols {
            let left = LEFT + c as f64 * (panel_w + GAP_X);
            let Some(panel) = chart
                .panels
                .get(r)
                .and_then(|row| row.get(c))
                .and_then(Option::as_ref)
            else {
                continue;
            };
            let bottom = top + PANEL_H;
            let y_of = |v: f64| {
                let v = if v.is_finite() {
                    v
                } else if v > 0.0 {
                    hi
                } else {
                    lo
                };
                bottom - (v.clamp(lo, hi) - lo) / (hi - lo) * PANEL_H
            };
            let x_of = |i: usize| left + panel_w * (i as f64 + 0.5) / n as f64;
            let _ = writeln!(
                out,
                "<g aria-label=\"{} {}, {} {}\">",
                escape(&chart.row_label),
                escape(heading),
                escape(&chart.column_label),
                escape(chart.columns.get(c).map_or("", String::as_str))
            );
            text(&mut out, left, top - 6.0, "start", "muted", &panel.caption);
            for t in [lo, (lo + hi) / 2.0, hi] {
                let y = num(y_of(t), 1);
                let _ = writeln!(
                    out,
                    "<line class=\"grid\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                    num(left, 1),
                    num(left + panel_w, 1)
                );
                if c == 0 {
                    text(
                        &mut out,
                        left - 4.0,
                        y_of(t) + 4.0,
                        "end",
                        "muted",
                        &num(t, 2),
                    );
                }
            }
            axes(&mut out, left, top, left + panel_w, bottom);
            if let Some(v) = panel.reference {
                let y = num(y_of(v), 1);
                let _ = writeln!(
                    out,
                    "<line class=\"ref\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
                    num(left, 1),
                    num(left + panel_w, 1)
                );
            }
            let mut path = String::new();
            let mut pen_down = false;
            for (i, p) in panel.points.iter().enumerate() {
                match p {
                    Some(e) if e.value.is_finite() => {
                        let _ = write!(
                            path,
                            "{}{},{} ",
                            if pen_down { "L" } else { "M" },
                            num(x_of(i), 1),
                            num(y_of(e.value), 1)
                        );
                        pen_down = true;
                    }
                    _ => pen_down = false,
                }
            }
            if !path.is_empty() {
                let _ = writeln!(out, "<path class=\"line\" d=\"{}\"/>", path.trim_end());
            }
            for (i, p) in panel.points.iter().enumerate() {
                text(
                    &mut out,
                    x_of(i),
                    bottom + 14.0,
                    "middle",
                    "muted",
                    &(i + 1).to_string(),
                );
                let Some(e) = p else { continue };
                if !e.value.is_finite() {
                    continue;
                }
                let x = num(x_of(i), 1);
                let _ = writeln!(
                    out,
                    "<line class=\"whisker\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
                    num(y_of(e.lo), 1),
                    num(y_of(e.hi), 1)
                );
                let _ = writeln!(
                    out,
                    "<circle class=\"point\" cx=\"{x}\" cy=\"{}\" r=\"3.5\"><title>{} {}, {} {}, {}: {} (95% interval {} to {})</title></circle>",
                    num(y_of(e.value), 1),
                    escape(&chart.row_label),
                    escape(heading),
                    escape(&chart.column_label),
                    escape(chart.columns.get(c).map_or("", String::as_str)),
                    escape(chart.categories.get(i).map_or("", String::as_str)),
                    num(e.value, 3),
                    num(e.lo, 3),
                    num(e.hi, 3)
                );
            }
            out.push_str("</g>\n");
        }
    }
    let mut y = grid_bottom + 22.0;
    for line in &key_lines {
        y += 18.0;
        text(&mut out, 16.0, y, "start", "muted", line);
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_gets_a_panel_and_the_key_names_the_agents() {
        let point = |v: f64| {
            Some(Estimate {
                value: v,
                lo: v - 0.1,
                hi: v + 0.1,
            })
        };
        let chart = SmallMultiples {
            title: "Skill".into(),
            desc: "d".into(),
            row_label: "pits per side".into(),
            column_label: "seeds per pit".into(),
            rows: vec!["3 pits".into()],
            columns: vec!["1 seed".into(), "2 seeds".into()],
            categories: vec!["random".into(), "perfect".into()],
            y_label: "first player's score".into(),
            y_range: (0.0, 1.0),
            reference_label: "perfect play".into(),
            panels: vec![vec![
                Some(MiniPanel {
                    caption: "exact +2".into(),
                    points: vec![point(0.6), point(1.0)],
                    reference: Some(1.0),
                }),
                None,
            ]],
        };
        let svg = small_multiples(&chart);
        assert_eq!(svg.matches("<circle class=\"point\"").count(), 2);
        assert!(svg.contains("x axis, agents: 1 = random, 2 = perfect"));
        assert!(svg.contains("exact +2"));
    }
}
