//! Hand-written SVG charts: a ladder chart (a statistic with its interval
//! for each of a list of categories, against reference lines) and a heat
//! map here; line charts, horizontal interval charts, histograms, a
//! crosstable and small multiples in the submodules (used by `mancala
//! report`). No plotting crate: the charts are small, and writing them by
//! hand keeps the output byte-for-byte deterministic (fixed decimals, no
//! ids drawn from counters or clocks), which a resumed analysis, the
//! reports and the tests rely on.
//!
//! Every chart carries a `<title>` and `<desc>` for screen readers, labels
//! its axes with units, and styles itself with plain CSS classes (no CSS
//! variables, which some renderers ignore) and a `prefers-color-scheme:
//! dark` variant, so it reads on light and dark pages.

use std::fmt::Write;

mod crosstable;
mod grid;
mod histogram;
mod interval;
mod line;
mod plot;

pub use crosstable::{crosstable, Crosstable};
pub use grid::{small_multiples, MiniPanel, SmallMultiples};
pub use histogram::{histograms, Histograms};
pub use interval::{interval_chart, IntervalChart, IntervalRow};
pub use line::{line_chart, LineChart, LinePanel, Marker, Series};
use plot::{
    covering, estimate_tip, horizontal_grid, horizontal_reference, polyline, rotated_label,
    whisker_and_dot, Frame, Scale,
};

/// Shared style: ink and grid colours follow the reader's colour scheme.
/// Colours are written out in each rule rather than through CSS variables,
/// so that renderers without variable support still draw them.
pub(crate) const STYLE: &str = "<style>\n\
  .bg { fill: #ffffff; }\n\
  text { fill: #1f2328; font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 12px; }\n\
  .title { font-size: 15px; font-weight: 600; }\n\
  text.muted { fill: #59636e; }\n\
  .axis { stroke: #1f2328; stroke-width: 1; }\n\
  .grid { stroke: #d0d7de; stroke-width: 1; }\n\
  .line { stroke: #0969da; stroke-width: 2; fill: none; }\n\
  .point { fill: #0969da; }\n\
  .whisker { stroke: #0969da; stroke-width: 1.5; }\n\
  .ref { stroke: #cf222e; stroke-width: 1.5; }\n\
  text.reftext { fill: #cf222e; }\n\
  .even { stroke: #59636e; stroke-width: 1; stroke-dasharray: 4 3; }\n\
  .empty { fill: #eaeef2; }\n\
  text.cell-dark { fill: #ffffff; }\n\
  text.cell-light { fill: #1f2328; }\n\
  .bar { fill: #0969da; fill-opacity: 0.75; }\n\
  .hollow { fill: #ffffff; }\n\
  .s0 { stroke: #0969da; } .f0 { fill: #0969da; }\n\
  .s1 { stroke: #bc4c00; } .f1 { fill: #bc4c00; }\n\
  .s2 { stroke: #1a7f37; } .f2 { fill: #1a7f37; }\n\
  .s3 { stroke: #8250df; } .f3 { fill: #8250df; }\n\
  .s4 { stroke: #bf3989; } .f4 { fill: #bf3989; }\n\
  .s5 { stroke: #59636e; } .f5 { fill: #59636e; }\n\
  @media (prefers-color-scheme: dark) {\n\
    .bg { fill: #0d1117; }\n\
    text { fill: #e6edf3; }\n\
    text.muted { fill: #9198a1; }\n\
    .axis { stroke: #e6edf3; }\n\
    .grid { stroke: #3d444d; }\n\
    .line, .whisker { stroke: #58a6ff; }\n\
    .point { fill: #58a6ff; }\n\
    .ref { stroke: #ff7b72; }\n\
    text.reftext { fill: #ff7b72; }\n\
    .even { stroke: #9198a1; }\n\
    .empty { fill: #262c36; }\n\
    text.cell-dark { fill: #ffffff; }\n\
    text.cell-light { fill: #1f2328; }\n\
    .bar { fill: #58a6ff; }\n\
    .hollow { fill: #0d1117; }\n\
    .s0 { stroke: #58a6ff; } .f0 { fill: #58a6ff; }\n\
    .s1 { stroke: #f0883e; } .f1 { fill: #f0883e; }\n\
    .s2 { stroke: #3fb950; } .f2 { fill: #3fb950; }\n\
    .s3 { stroke: #bc8cff; } .f3 { fill: #bc8cff; }\n\
    .s4 { stroke: #f778ba; } .f4 { fill: #f778ba; }\n\
    .s5 { stroke: #9198a1; } .f5 { fill: #9198a1; }\n\
  }\n\
</style>\n";

/// Escapes text for XML content and attributes.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// A number with at most `digits` decimals, trailing zeros dropped, so
/// that coordinates are short and identical from run to run.
pub(crate) fn num(x: f64, digits: usize) -> String {
    let s = format!("{x:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    if s == "-0" {
        "0".into()
    } else {
        s
    }
}

/// A rough width of `text` in pixels at `per_char` pixels a character:
/// enough to size the canvas so that titles and notes are not cut off.
pub(crate) fn text_width(text: &str, per_char: f64) -> f64 {
    text.chars().count() as f64 * per_char
}

pub(crate) fn open(out: &mut String, width: f64, height: f64, title: &str, desc: &str) {
    let _ = write!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" \
         viewBox=\"0 0 {w} {h}\" role=\"img\" aria-labelledby=\"title desc\">\n\
         <title id=\"title\">{}</title>\n<desc id=\"desc\">{}</desc>\n{STYLE}\
         <rect class=\"bg\" x=\"0\" y=\"0\" width=\"{w}\" height=\"{h}\"/>\n",
        escape(title),
        escape(desc),
        w = num(width, 1),
        h = num(height, 1),
    );
}

/// ` class="..."` for a non-empty `class`, else nothing.
pub(crate) fn class_attr(class: &str) -> String {
    if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    }
}

pub(crate) fn text(out: &mut String, x: f64, y: f64, anchor: &str, class: &str, body: &str) {
    let class = class_attr(class);
    let _ = writeln!(
        out,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"{anchor}\"{class}>{}</text>",
        num(x, 1),
        num(y, 1),
        escape(body)
    );
}

/// One estimate: a value and its interval (either end may be infinite:
/// it is drawn to the panel's edge).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The point estimate.
    pub value: f64,
    /// Lower end of the interval.
    pub lo: f64,
    /// Upper end of the interval.
    pub hi: f64,
}

/// A horizontal reference line across a panel.
#[derive(Clone, Debug)]
pub struct Reference {
    /// Where, in the panel's units.
    pub y: f64,
    /// What it means (drawn at its right end).
    pub label: String,
    /// A solid line in the accent colour (the exact value) or a dashed
    /// neutral one (an even game).
    pub strong: bool,
}

/// One panel of a ladder chart: a y axis and one estimate per category.
#[derive(Clone, Debug)]
pub struct Panel {
    /// The axis label, with units.
    pub y_label: String,
    /// The axis range; widened to hold every estimate and reference.
    pub y_range: (f64, f64),
    /// One estimate per category (`None`: not measured).
    pub points: Vec<Option<Estimate>>,
    /// Reference lines.
    pub references: Vec<Reference>,
}

/// Estimates for an ordered list of categories (an agent ladder), in one
/// or more stacked panels sharing the x axis.
#[derive(Clone, Debug)]
pub struct LadderChart {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The x axis label.
    pub x_label: String,
    /// The categories, in order.
    pub categories: Vec<String>,
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
}

const LEFT: f64 = 70.0;
const RIGHT: f64 = 130.0;
const TOP: f64 = 50.0;
const PANEL_H: f64 = 190.0;
const PANEL_GAP: f64 = 40.0;

/// The two axes of a plot: a line up its left edge and one along its
/// bottom.
pub(crate) fn axes(out: &mut String, left: f64, top: f64, right: f64, bottom: f64) {
    let _ = writeln!(
        out,
        "<line class=\"axis\" x1=\"{l}\" y1=\"{t}\" x2=\"{l}\" y2=\"{b}\"/>\n\
         <line class=\"axis\" x1=\"{l}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\"/>",
        l = num(left, 1),
        t = num(top, 1),
        b = num(bottom, 1),
        r = num(right, 1)
    );
}

/// "Nice" tick values covering `lo..=hi`.
pub(crate) fn ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = (hi - lo).abs().max(1e-9);
    let raw = span / 5.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 6.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + step * 1e-9 && out.len() < 20 {
        out.push(if t.abs() < step * 1e-9 { 0.0 } else { t });
        t += step;
    }
    out
}

/// Room for each category along a ladder chart's x axis.
const SLOT: f64 = 90.0;

/// Where a ladder chart's pieces go: each panel's frame, stacked, and the
/// categories' places along the shared x axis.
struct LadderLayout {
    /// Width of the plots.
    plot_w: f64,
    /// Panels drawn (at least one's room).
    panels: usize,
}

impl LadderLayout {
    fn new(chart: &LadderChart) -> LadderLayout {
        LadderLayout {
            plot_w: SLOT * chart.categories.len().max(1) as f64,
            panels: chart.panels.len().max(1),
        }
    }

    /// The centre of category `i`.
    fn x_of(&self, i: usize) -> f64 {
        LEFT + SLOT * (i as f64 + 0.5)
    }

    /// The plot of panel `k`, counted from the top.
    fn frame(&self, k: usize) -> Frame {
        let top = TOP + k as f64 * (PANEL_H + PANEL_GAP);
        Frame {
            left: LEFT,
            top,
            right: LEFT + self.plot_w,
            bottom: top + PANEL_H,
        }
    }

    /// The bottom of the last panel, under which the categories are named.
    fn base(&self) -> f64 {
        TOP + self.panels as f64 * (PANEL_H + PANEL_GAP) - PANEL_GAP
    }
}

/// Draws a ladder chart.
pub fn ladder_chart(chart: &LadderChart) -> String {
    let layout = LadderLayout::new(chart);
    let width = (LEFT + layout.plot_w + RIGHT).max(text_width(&chart.title, 8.5) + LEFT + 20.0);
    let height = TOP + layout.panels as f64 * (PANEL_H + PANEL_GAP) + 60.0;
    let mut out = String::new();
    open(&mut out, width, height, &chart.title, &chart.desc);
    text(&mut out, LEFT, 28.0, "start", "title", &chart.title);
    for (k, panel) in chart.panels.iter().enumerate() {
        ladder_panel(&mut out, chart, panel, &layout, &layout.frame(k));
    }
    category_labels(&mut out, chart, &layout);
    out.push_str("</svg>\n");
    out
}

/// One panel of a ladder chart: its y axis (widened to every finite value
/// drawn and every reference), its reference lines, and its estimates as
/// whiskers and dots joined by a line.
fn ladder_panel(
    out: &mut String,
    chart: &LadderChart,
    panel: &Panel,
    layout: &LadderLayout,
    frame: &Frame,
) {
    let (lo, hi) = covering(
        panel.y_range,
        panel.points.iter().flatten(),
        &panel.references,
    );
    let y = Scale::upwards(lo, hi, frame.bottom, PANEL_H);
    let _ = writeln!(out, "<g aria-label=\"{}\">", escape(&panel.y_label));
    let grid = ticks(lo, hi).into_iter().map(|t| (t, y.at_or_edge(t)));
    horizontal_grid(out, frame, grid, 2);
    axes(out, frame.left, frame.top, frame.right, frame.bottom);
    let mid = (frame.top + frame.bottom) / 2.0;
    rotated_label(out, 18.0, mid, "", &panel.y_label);
    for r in &panel.references {
        horizontal_reference(out, frame, r, y.at_or_edge(r.y));
    }
    // The line joins consecutive measured categories only.
    let measured = |p: &Option<Estimate>| p.filter(|e| e.value.is_finite());
    let path = polyline(
        (panel.points.iter().enumerate())
            .map(|(i, p)| measured(p).map(|e| (layout.x_of(i), y.at_or_edge(e.value)))),
    );
    if !path.is_empty() {
        let _ = writeln!(out, "<path class=\"line\" d=\"{path}\"/>");
    }
    for (i, p) in panel.points.iter().enumerate() {
        if let Some(e) = measured(p) {
            let tip = estimate_tip(&chart.categories[i], &e);
            whisker_and_dot(out, layout.x_of(i), &y, &e, "4", &tip);
        }
    }
    out.push_str("</g>\n");
}

/// The category names under the last panel (every other one lower, so
/// that long names do not run together) and the x axis's label.
fn category_labels(out: &mut String, chart: &LadderChart, layout: &LadderLayout) {
    let base = layout.base();
    for (i, c) in chart.categories.iter().enumerate() {
        let y = base + 16.0 + if i % 2 == 1 { 14.0 } else { 0.0 };
        text(out, layout.x_of(i), y, "middle", "", c);
    }
    text(
        out,
        LEFT + layout.plot_w / 2.0,
        base + 50.0,
        "middle",
        "muted",
        &chart.x_label,
    );
}

/// One heat map cell.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The value that sets the colour (`None`: unknown, drawn neutral).
    pub value: Option<f64>,
    /// The text in the cell.
    pub label: String,
}

/// A grid of values coloured on a diverging scale around 0.
#[derive(Clone, Debug)]
pub struct HeatMap {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The x axis label (columns).
    pub x_label: String,
    /// The y axis label (rows).
    pub y_label: String,
    /// Column headings.
    pub columns: Vec<String>,
    /// Row headings, top to bottom.
    pub rows: Vec<String>,
    /// `cells[row][column]`.
    pub cells: Vec<Vec<Cell>>,
    /// A note under the chart (the colour key).
    pub note: String,
}

/// Blue for positive (first player ahead), red for negative, by
/// magnitude; fixed colours that read on both light and dark pages, with
/// the label's ink chosen for contrast.
pub(crate) fn diverging(v: f64, max: f64) -> (String, bool) {
    let t = (v.abs() / max.max(1e-9)).clamp(0.0, 1.0);
    let (r0, g0, b0) = (0xf6 as f64, 0xf8 as f64, 0xfa as f64);
    let (r1, g1, b1) = if v >= 0.0 {
        (0x09 as f64, 0x69 as f64, 0xda as f64)
    } else {
        (0xcf as f64, 0x22 as f64, 0x2e as f64)
    };
    let mix = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    let (r, g, b) = (mix(r0, r1), mix(g0, g1), mix(b0, b1));
    (format!("#{r:02x}{g:02x}{b:02x}"), t > 0.5)
}

/// The side of a heat map's cell.
const HEAT_CELL: f64 = 56.0;
/// The left of a heat map's first column: room for the row headings and
/// the rows' axis label.
const HEAT_LEFT: f64 = 90.0;
/// The top of a heat map's first row: room under the title for the
/// columns' axis label and headings.
const HEAT_TOP: f64 = 86.0;

/// Draws a heat map.
pub fn heat_map(map: &HeatMap) -> String {
    let (cell, left, top) = (HEAT_CELL, HEAT_LEFT, HEAT_TOP);
    let cols = map.columns.len().max(1);
    let rows = map.rows.len().max(1);
    let width = (left + cell * cols as f64 + 40.0)
        .max(text_width(&map.title, 8.5) + 40.0)
        .max(text_width(&map.note, 6.6) + 40.0)
        .max(360.0);
    let height = top + cell * rows as f64 + 46.0;
    let mut out = String::new();
    open(&mut out, width, height, &map.title, &map.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &map.title);
    heat_map_headings(&mut out, map, cols, rows);
    let max = largest_magnitude(map);
    for (i, r) in map.rows.iter().enumerate() {
        let y = top + cell * (i as f64 + 0.5) + 4.0;
        text(&mut out, left - 8.0, y, "end", "", r);
        for j in 0..cols {
            heat_map_cell(&mut out, map, i, j, max);
        }
    }
    let y = top + cell * rows as f64 + 30.0;
    text(&mut out, 16.0, y, "start", "muted", &map.note);
    out.push_str("</svg>\n");
    out
}

/// The largest magnitude in a heat map, and at least 1: the value drawn
/// in the deepest colour.
fn largest_magnitude(map: &HeatMap) -> f64 {
    map.cells
        .iter()
        .flatten()
        .filter_map(|c| c.value)
        .map(f64::abs)
        .fold(0.0, f64::max)
        .max(1.0)
}

/// The column headings and the columns' axis label above a heat map's
/// grid, and the rows' axis label, turned, left of it.
fn heat_map_headings(out: &mut String, map: &HeatMap, cols: usize, rows: usize) {
    let (cell, left, top) = (HEAT_CELL, HEAT_LEFT, HEAT_TOP);
    for (j, c) in map.columns.iter().enumerate() {
        let x = left + cell * (j as f64 + 0.5);
        text(out, x, top - 8.0, "middle", "", c);
    }
    let x = left + cell * cols as f64 / 2.0;
    text(out, x, top - 28.0, "middle", "muted", &map.x_label);
    let mid = top + cell * rows as f64 / 2.0;
    rotated_label(out, 22.0, mid, "muted", &map.y_label);
}

/// Cell `j` of row `i` of a heat map: coloured by its value on the scale
/// up to `max` (neutral when unknown), with a tooltip naming its row and
/// column, and its label.
fn heat_map_cell(out: &mut String, map: &HeatMap, i: usize, j: usize, max: f64) {
    let cell = HEAT_CELL;
    let c = map.cells.get(i).and_then(|row| row.get(j));
    let x = HEAT_LEFT + cell * j as f64;
    let y = HEAT_TOP + cell * i as f64;
    let (fill, dark) = match c.and_then(|c| c.value) {
        Some(v) => {
            let (f, d) = diverging(v, max);
            (format!("fill=\"{f}\""), d)
        }
        None => ("class=\"empty\"".to_string(), false),
    };
    let label = c.map_or("", |c| c.label.as_str());
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{w}\" height=\"{w}\" {fill} stroke=\"#8c959f\" stroke-width=\"0.5\"><title>{} {}, {} {}: {}</title></rect>",
        num(x, 1),
        num(y, 1),
        escape(&map.y_label),
        escape(&map.rows[i]),
        escape(&map.x_label),
        escape(map.columns.get(j).map_or("", String::as_str)),
        escape(if label.is_empty() { "none" } else { label }),
        w = num(cell, 1)
    );
    if !label.is_empty() {
        // On a coloured cell the ink is fixed for contrast; on an empty
        // one it follows the page.
        let class = match c.and_then(|c| c.value) {
            Some(_) if dark => "cell-dark",
            Some(_) => "cell-light",
            None => "",
        };
        text(
            out,
            x + cell / 2.0,
            y + cell / 2.0 + 4.0,
            "middle",
            class,
            label,
        );
    }
}

/// The chart style's rules without the `<style>` element, for a page that
/// holds several charts: it states them once for all (see [`inline`]).
pub fn style_rules() -> &'static str {
    STYLE
        .trim_start_matches("<style>\n")
        .trim_end_matches("</style>\n")
}

/// A chart of this module made fit to sit inside an HTML page beside
/// others: its `<style>` is dropped (the page states [`style_rules`] once)
/// and its `title`/`desc` ids become `{id}-title`/`{id}-desc`, since ids
/// must be unique in a page and `aria-labelledby` must find its own.
/// Only this module's output is rewritten this way: it knows those strings.
pub fn inline(svg: &str, id: &str) -> String {
    svg.replacen(STYLE, "", 1)
        .replacen(
            "aria-labelledby=\"title desc\"",
            &format!("aria-labelledby=\"{id}-title {id}-desc\""),
            1,
        )
        .replacen(
            "<title id=\"title\">",
            &format!("<title id=\"{id}-title\">"),
            1,
        )
        .replacen("<desc id=\"desc\">", &format!("<desc id=\"{id}-desc\">"), 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_numbers_are_short() {
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
        assert_eq!(num(1.50, 2), "1.5");
        assert_eq!(num(-0.0001, 2), "0");
        assert_eq!(num(3.0, 1), "3");
        assert_eq!(ticks(0.0, 1.0).len(), 6);
    }

    #[test]
    fn charts_are_deterministic_and_accessible() {
        let chart = LadderChart {
            title: "t <1>".into(),
            desc: "d".into(),
            x_label: "agent".into(),
            categories: vec!["random".into(), "greedy".into()],
            panels: vec![Panel {
                y_label: "score".into(),
                y_range: (0.0, 1.0),
                points: vec![
                    Some(Estimate {
                        value: 0.5,
                        lo: 0.4,
                        hi: f64::INFINITY,
                    }),
                    None,
                ],
                references: vec![Reference {
                    y: 1.0,
                    label: "exact".into(),
                    strong: true,
                }],
            }],
        };
        let a = ladder_chart(&chart);
        assert_eq!(a, ladder_chart(&chart));
        assert!(a.contains("<title id=\"title\">t &lt;1&gt;</title>"));
        assert!(a.contains("prefers-color-scheme: dark"));
        let map = HeatMap {
            title: "h".into(),
            desc: "d".into(),
            x_label: "seeds".into(),
            y_label: "pits".into(),
            columns: vec!["1".into(), "2".into()],
            rows: vec!["3".into()],
            cells: vec![vec![
                Cell {
                    value: Some(-2.0),
                    label: "-2".into(),
                },
                Cell {
                    value: None,
                    label: "?".into(),
                },
            ]],
            note: "n".into(),
        };
        let h = heat_map(&map);
        assert!(h.starts_with("<svg") && h.ends_with("</svg>\n"));
        assert!(h.contains("<desc id=\"desc\">d</desc>"));
    }
}
