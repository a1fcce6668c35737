//! Small multiples: a grid of small panels (one board per panel: pits per
//! row, seeds per column), each a ladder of estimates with intervals over
//! the same categories (agents from weakest to strongest) and the same y
//! range, with a reference line (the perfect-play outcome). One chart
//! shows how the first player's score grows with skill on every board.

use std::fmt::Write;

use super::plot::{estimate_tip, polyline, rotated_label, whisker_and_dot, Frame, Scale};
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

/// Where the grid's pieces go: the panels' size and places.
struct GridLayout {
    /// Categories per panel (at least one's room).
    n: usize,
    /// A panel's width: room for every category.
    panel_w: f64,
    /// Columns of panels (at least one's room).
    cols: usize,
    /// The width of the grid of panels.
    grid_w: f64,
    /// The bottom of the last row of panels.
    grid_bottom: f64,
}

impl GridLayout {
    fn new(chart: &SmallMultiples) -> GridLayout {
        let n = chart.categories.len().max(1);
        let panel_w = (22.0 * n as f64 + 16.0).max(120.0);
        let cols = chart.columns.len().max(1);
        let rows = chart.rows.len().max(1);
        GridLayout {
            n,
            panel_w,
            cols,
            grid_w: cols as f64 * (panel_w + GAP_X) - GAP_X,
            grid_bottom: TOP + rows as f64 * (PANEL_H + GAP_Y) - GAP_Y,
        }
    }

    /// The plot of the panel in row `r`, column `c`.
    fn frame(&self, r: usize, c: usize) -> Frame {
        let top = TOP + r as f64 * (PANEL_H + GAP_Y);
        let left = LEFT + c as f64 * (self.panel_w + GAP_X);
        Frame {
            left,
            top,
            right: left + self.panel_w,
            bottom: top + PANEL_H,
        }
    }

    /// The centre of column `c`'s panels.
    fn column_centre(&self, c: usize) -> f64 {
        LEFT + c as f64 * (self.panel_w + GAP_X) + self.panel_w / 2.0
    }

    /// The x of category `i` in a panel whose left edge is `left`.
    fn category_x(&self, left: f64, i: usize) -> f64 {
        left + self.panel_w * (i as f64 + 0.5) / self.n as f64
    }
}

/// The key under the grid, line by line: what the y axis and the red line
/// show, then every category with its number on the x axes, wrapped to
/// `key_width` pixels.
fn key_lines(chart: &SmallMultiples, key_width: f64) -> Vec<String> {
    let mut key_lines: Vec<String> = vec![
        format!("y axis: {}", chart.y_label),
        format!("red line: {}", chart.reference_label),
        String::from("x axis, agents:"),
    ];
    // Items are separated by commas: SVG collapses runs of spaces, so
    // spacing alone would run "1 = a 2 = b" together.
    let last_item = chart.categories.len().saturating_sub(1);
    for (i, c) in chart.categories.iter().enumerate() {
        let item = format!("{} = {c}", i + 1);
        let item = if i < last_item {
            format!("{item},")
        } else {
            item
        };
        let last = key_lines.last_mut().expect("one line at least");
        if text_width(last, 7.0) + text_width(&item, 7.0) + 20.0 > key_width {
            key_lines.push(item);
        } else {
            last.push(' ');
            last.push_str(&item);
        }
    }
    key_lines
}

/// Draws the small multiples.
pub fn small_multiples(chart: &SmallMultiples) -> String {
    let layout = GridLayout::new(chart);
    // The key names every category; it wraps to the grid's width.
    let key = key_lines(chart, (layout.grid_w + LEFT - 16.0).max(560.0));
    let widest_key_line = key.iter().map(|l| text_width(l, 7.0)).fold(0.0, f64::max);
    let width = (LEFT + layout.grid_w + 24.0)
        .max(text_width(&chart.title, 8.5) + 32.0)
        .max(widest_key_line + 32.0);
    let height = layout.grid_bottom + 40.0 + 18.0 * key.len() as f64;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &chart.title);
    grid_headings(&mut out, chart, &layout);
    let (lo, hi) = if chart.y_range.1 > chart.y_range.0 {
        chart.y_range
    } else {
        (0.0, 1.0)
    };
    for (r, heading) in chart.rows.iter().enumerate() {
        let y = layout.frame(r, 0).top + PANEL_H / 2.0 + 4.0;
        text(&mut out, 34.0, y, "start", "", heading);
        for c in 0..layout.cols {
            let Some(panel) = chart
                .panels
                .get(r)
                .and_then(|row| row.get(c))
                .and_then(Option::as_ref)
            else {
                continue;
            };
            let frame = layout.frame(r, c);
            let column = chart.columns.get(c).map_or("", String::as_str);
            let place = PanelPlace {
                board: format!(
                    "{} {heading}, {} {column}",
                    chart.row_label, chart.column_label
                ),
                y: Scale::upwards(lo, hi, frame.bottom, PANEL_H),
                frame,
                first_column: c == 0,
            };
            mini_panel(&mut out, chart, &layout, panel, &place);
        }
    }
    let mut y = layout.grid_bottom + 22.0;
    for line in &key {
        y += 18.0;
        text(&mut out, 16.0, y, "start", "muted", line);
    }
    out.push_str("</svg>\n");
    out
}

/// What the columns and the rows are, above and left of the grid, and
/// each column's heading (the rows' headings go beside their panels).
fn grid_headings(out: &mut String, chart: &SmallMultiples, layout: &GridLayout) {
    let x = LEFT + layout.grid_w / 2.0;
    text(out, x, TOP - 56.0, "middle", "muted", &chart.column_label);
    let mid = (TOP + layout.grid_bottom) / 2.0;
    rotated_label(out, 16.0, mid, "muted", &chart.row_label);
    for (c, heading) in chart.columns.iter().enumerate() {
        let x = layout.column_centre(c);
        text(out, x, TOP - 30.0, "middle", "", heading);
    }
}

/// One panel's place in the grid.
struct PanelPlace {
    /// The board it shows, in words (`pits per side 3 pits, seeds per pit 1
    /// seed`): its group's label and the start of each point's tooltip.
    board: String,
    /// Its plot.
    frame: Frame,
    /// Its y axis (the same range in every panel).
    y: Scale,
    /// Whether it is in the first column, the only one whose y axis is
    /// numbered.
    first_column: bool,
}

/// One panel: its caption, axes and reference line, and its estimates.
fn mini_panel(
    out: &mut String,
    chart: &SmallMultiples,
    layout: &GridLayout,
    panel: &MiniPanel,
    place: &PanelPlace,
) {
    let frame = &place.frame;
    let _ = writeln!(out, "<g aria-label=\"{}\">", escape(&place.board));
    text(
        out,
        frame.left,
        frame.top - 6.0,
        "start",
        "muted",
        &panel.caption,
    );
    mini_panel_axes(out, place, panel.reference);
    mini_panel_estimates(out, chart, layout, panel, place);
    out.push_str("</g>\n");
}

/// A panel's grid lines at the bottom, middle and top of the range
/// (numbered in the first column only), its axes and its reference line.
fn mini_panel_axes(out: &mut String, place: &PanelPlace, reference: Option<f64>) {
    let (frame, y) = (&place.frame, &place.y);
    for t in [y.lo, (y.lo + y.hi) / 2.0, y.hi] {
        frame.hline(out, "grid", y.at_or_edge(t));
        if place.first_column {
            let at = y.at_or_edge(t) + 4.0;
            text(out, frame.left - 4.0, at, "end", "muted", &num(t, 2));
        }
    }
    axes(out, frame.left, frame.top, frame.right, frame.bottom);
    if let Some(v) = reference {
        frame.hline(out, "ref", y.at_or_edge(v));
    }
}

/// A panel's estimates: a line joining consecutive measured categories,
/// each category's number under the axis, and each estimate as a whisker
/// and a dot.
fn mini_panel_estimates(
    out: &mut String,
    chart: &SmallMultiples,
    layout: &GridLayout,
    panel: &MiniPanel,
    place: &PanelPlace,
) {
    let (frame, y) = (&place.frame, &place.y);
    let x_of = |i: usize| layout.category_x(frame.left, i);
    let measured = |p: &Option<Estimate>| p.filter(|e| e.value.is_finite());
    let path = polyline(
        (panel.points.iter().enumerate())
            .map(|(i, p)| measured(p).map(|e| (x_of(i), y.at_or_edge(e.value)))),
    );
    if !path.is_empty() {
        let _ = writeln!(out, "<path class=\"line\" d=\"{path}\"/>");
    }
    for (i, p) in panel.points.iter().enumerate() {
        let number = (i + 1).to_string();
        text(
            out,
            x_of(i),
            frame.bottom + 14.0,
            "middle",
            "muted",
            &number,
        );
        if let Some(e) = measured(p) {
            let category = chart.categories.get(i).map_or("", String::as_str);
            let tip = estimate_tip(&format!("{}, {category}", place.board), &e);
            whisker_and_dot(out, x_of(i), y, &e, "3.5", &tip);
        }
    }
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
