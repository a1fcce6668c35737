//! Histograms in stacked rows that share the x axis and the count scale
//! (the final margins of each agent's games), so that rows compare at a
//! glance.

use std::fmt::Write;

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

/// Draws the histograms.
pub fn histograms(h: &Histograms) -> String {
    let left = h
        .rows
        .iter()
        .map(|(l, _)| text_width(l, 7.2))
        .fold(40.0, f64::max)
        .min(240.0)
        + 20.0;
    let notes: Vec<String> = h
        .rows
        .iter()
        .enumerate()
        .map(|(i, (_, counts))| {
            let n: u64 = counts.iter().sum();
            match h.marks.get(i).and_then(Option::as_ref) {
                Some((_, t)) => format!("{n} {}, {t}", h.unit),
                None => format!("{n} {}", h.unit),
            }
        })
        .collect();
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
    let x_of = |v: f64| left + (v.clamp(lo, hi) - lo) / (hi - lo) * PLOT_W;
    let most = h
        .rows
        .iter()
        .flat_map(|(_, c)| c.iter().copied())
        .max()
        .unwrap_or(0)
        .max(1) as f64;
    for t in ticks(lo, hi) {
        let x = num(x_of(t), 1);
        let _ = writeln!(
            out,
            "<line class=\"grid\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(TOP, 1),
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
    text(
        &mut out,
        left + PLOT_W / 2.0,
        bottom + 40.0,
        "middle",
        "muted",
        &h.x_label,
    );
    for (i, (label, counts)) in h.rows.iter().enumerate() {
        let top = TOP + i as f64 * (ROW_H + ROW_GAP);
        let base = top + ROW_H;
        let _ = writeln!(out, "<g aria-label=\"{}\">", escape(label));
        text(
            &mut out,
            left - 10.0,
            top + ROW_H / 2.0 + 4.0,
            "end",
            "",
            label,
        );
        let _ = writeln!(
            out,
            "<line class=\"axis\" x1=\"{}\" y1=\"{b}\" x2=\"{}\" y2=\"{b}\"/>",
            num(left, 1),
            num(left + PLOT_W, 1),
            b = num(base, 1)
        );
        for (j, &n) in counts.iter().enumerate() {
            let (Some(&a), Some(&b)) = (h.edges.get(j), h.edges.get(j + 1)) else {
                break;
            };
            if n == 0 {
                continue;
            }
            // At least 2 px: a single game among hundreds stays visible.
            let bar_h = (n as f64 / most * (ROW_H - 4.0)).max(2.0);
            let _ = writeln!(
                out,
                "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>{}: {} {} from {} to {}</title></rect>",
                num(x_of(a) + 0.5, 1),
                num(base - bar_h, 1),
                num((x_of(b) - x_of(a) - 1.0).max(1.0), 1),
                num(bar_h, 1),
                escape(label),
                n,
                escape(&h.unit),
                num(a, 2),
                num(b, 2)
            );
        }
        if let Some(x) = h.even {
            let x = num(x_of(x), 1);
            let _ = writeln!(
                out,
                "<line class=\"even\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
                num(top, 1),
                num(base, 1)
            );
        }
        if let Some((v, t)) = h.marks.get(i).and_then(Option::as_ref) {
            if v.is_finite() {
                let x = num(x_of(*v), 1);
                let _ = writeln!(
                    out,
                    "<line class=\"ref\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"><title>{}: {}</title></line>",
                    num(top, 1),
                    num(base, 1),
                    escape(label),
                    escape(t)
                );
            }
        }
        text(
            &mut out,
            left + PLOT_W + 12.0,
            top + ROW_H / 2.0 + 4.0,
            "start",
            "muted",
            &notes[i],
        );
        out.push_str("</g>\n");
    }
    out.push_str("</svg>\n");
    out
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
