//! Histograms in stacked rows that share the x axis and the count scale
//! (the final margins of each agent's games), so that rows compare at a
//! glance.

use std::fmt::Write;

use super::plot::{vertical_grid, Frame, Scale};
use super::{escape, num, open, text, text_width, ticks};

/// One histogram per row over shared bins.
#[derive(Clone, Debug)]
pub struct Histograms {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The x axis label, with units.
    pub x_label: String,
    /// What the bars count (`games`).
    pub unit: String,
    /// Bin edges, ascending: bin `i` is `edges[i]..edges[i + 1]`.
    pub edges: Vec<f64>,
    /// A label and the count in each bin, per row.
    pub rows: Vec<(String, Vec<u64>)>,
    /// A value marked in each row (the mean), with its text; `None`: none.
    pub marks: Vec<Option<(f64, String)>>,
    /// Where to draw a dashed line across every row (0: an even game).
    pub even: Option<f64>,
}

const PLOT_W: f64 = 460.0;
const ROW_H: f64 = 54.0;
const ROW_GAP: f64 = 10.0;
const TOP: f64 = 48.0;

/// The text right of each row: its number of games and, when the row has
/// a mark, what the mark says.
fn row_notes(h: &Histograms) -> Vec<String> {
    h.rows
        .iter()
        .enumerate()
        .map(|(i, (_, counts))| {
            let n: u64 = counts.iter().sum();
            match h.marks.get(i).and_then(Option::as_ref) {
                Some((_, t)) => format!("{n} {}, {t}", h.unit),
                None => format!("{n} {}", h.unit),
            }
        })
        .collect()
}

/// The count of the fullest bin of any row, and at least 1: the height
/// every row's bars are scaled to.
fn fullest_bin(h: &Histograms) -> f64 {
    h.rows
        .iter()
        .flat_map(|(_, c)| c.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64
}

/// Draws the histograms.
pub fn histograms(h: &Histograms) -> String {
    let left = h
        .rows
        .iter()
        .map(|(l, _)| text_width(l, 7.2))
        .fold(40.0, f64::max)
        .min(240.0)
        + 20.0;
    let notes = row_notes(h);
    let note_w = notes.iter().map(|t| text_width(t, 7.0)).fold(0.0, f64::max) + 24.0;
    let width = (left + PLOT_W + note_w).max(text_width(&h.title, 8.5) + 32.0);
    let rows = h.rows.len().max(1);
    let bottom = TOP + rows as f64 * (ROW_H + ROW_GAP) - ROW_GAP;
    let height = bottom + 56.0;
    let mut out = String::new();
    open(&mut out, width, height, &h.title, &h.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &h.title);
    let (lo, hi) = match (h.edges.first(), h.edges.last()) {
        (Some(&a), Some(&b)) if b > a => (a, b),
        _ => (0.0, 1.0),
    };
    let x = Scale::rightwards(lo, hi, left, PLOT_W);
    let all_rows = Frame {
        left,
        top: TOP,
        right: left + PLOT_W,
        bottom,
    };
    let grid = ticks(lo, hi).into_iter().map(|t| (t, x.clamped(t)));
    vertical_grid(&mut out, &all_rows, grid, 2);
    let centre = left + PLOT_W / 2.0;
    text(
        &mut out,
        centre,
        bottom + 40.0,
        "middle",
        "muted",
        &h.x_label,
    );
    let most = fullest_bin(h);
    for (i, note) in notes.iter().enumerate() {
        let top = TOP + i as f64 * (ROW_H + ROW_GAP);
        let row = Frame {
            top,
            bottom: top + ROW_H,
            ..all_rows
        };
        histogram_row(&mut out, h, i, &row, &x, most, note);
    }
    out.push_str("</svg>\n");
    out
}

/// Row `i` in its frame: its label, base line and bars (scaled so that
/// `most` games fill the row), the even line, its mark, and `note`.
fn histogram_row(
    out: &mut String,
    h: &Histograms,
    i: usize,
    row: &Frame,
    x: &Scale,
    most: f64,
    note: &str,
) {
    let (label, counts) = &h.rows[i];
    let _ = writeln!(out, "<g aria-label=\"{}\">", escape(label));
    let middle = row.top + ROW_H / 2.0 + 4.0;
    text(out, row.left - 10.0, middle, "end", "", label);
    row.hline(out, "axis", row.bottom);
    bars(out, h, label, counts, row, x, most);
    if let Some(v) = h.even {
        row.vline(out, "even", x.clamped(v));
    }
    if let Some((v, t)) = h.marks.get(i).and_then(Option::as_ref) {
        if v.is_finite() {
            let _ = writeln!(
                out,
                "<line class=\"ref\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"><title>{}: {}</title></line>",
                num(row.top, 1),
                num(row.bottom, 1),
                escape(label),
                escape(t),
                x = num(x.clamped(*v), 1)
            );
        }
    }
    text(out, row.right + 12.0, middle, "start", "muted", note);
    out.push_str("</g>\n");
}

/// The bars of one row, each with a tooltip: none for an empty bin, and
/// at least 2 px for any other, so that a single game among hundreds
/// stays visible.
fn bars(
    out: &mut String,
    h: &Histograms,
    label: &str,
    counts: &[u64],
    row: &Frame,
    x: &Scale,
    most: f64,
) {
    for (j, &n) in counts.iter().enumerate() {
        let (Some(&a), Some(&b)) = (h.edges.get(j), h.edges.get(j + 1)) else {
            break;
        };
        if n == 0 {
            continue;
        }
        let bar_h = (n as f64 / most * (ROW_H - 4.0)).max(2.0);
        let (xa, xb) = (x.clamped(a), x.clamped(b));
        let _ = writeln!(
            out,
            "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: {} {} from {} to {}</title></rect>",
            num(xa + 0.5, 1),
            num(row.bottom - bar_h, 1),
            num((xb - xa - 1.0).max(1.0), 1),
            num(bar_h, 1),
            escape(label),
            n,
            escape(&h.unit),
            num(a, 2),
            num(b, 2)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_bins_draw_nothing_and_rows_share_a_scale() {
        let h = Histograms {
            title: "Margins".into(),
            desc: "d".into(),
            x_label: "margin (seeds)".into(),
            unit: "games".into(),
            edges: vec![-4.0, 0.0, 4.0],
            rows: vec![("a".into(), vec![2, 0]), ("b".into(), vec![1, 1])],
            marks: vec![Some((-2.0, "mean -2".into())), None],
            even: Some(0.0),
        };
        let svg = histograms(&h);
        assert_eq!(svg.matches("<rect class=\"bar\"").count(), 3);
        assert!(svg.contains("<title>a: 2 games from -4 to 0</title>"));
        assert!(svg.contains("2 games, mean -2"));
    }
}
