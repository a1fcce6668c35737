//! The geometry the charts share: a value-to-pixel [`Scale`], a plot's
//! [`Frame`] with its grid and reference lines, a line through points, an
//! estimate drawn as a whisker and a dot, and a rotated axis label. The
//! charts draw these pieces alike, so each is written once here, with the
//! same arithmetic and decimals wherever it is used: the reports' goldens
//! hold every byte.

use std::fmt::Write;

use super::{escape, num, text, Estimate, Reference};

/// A linear map from the values `lo..=hi` to pixels: `lo` lands on
/// `start`, `hi` on `start + length` (a negative `length` runs upwards, as
/// a y axis does).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Scale {
    /// The value at `start`.
    pub lo: f64,
    /// The value at `start + length`.
    pub hi: f64,
    /// The pixel of `lo`.
    pub start: f64,
    /// Pixels from `lo` to `hi`.
    pub length: f64,
}

impl Scale {
    /// A horizontal scale: `lo` at `left`, `hi` `width` pixels to its right.
    pub fn rightwards(lo: f64, hi: f64, left: f64, width: f64) -> Scale {
        Scale {
            lo,
            hi,
            start: left,
            length: width,
        }
    }

    /// A vertical scale: `lo` at `bottom`, `hi` `height` pixels above it.
    pub fn upwards(lo: f64, hi: f64, bottom: f64, height: f64) -> Scale {
        Scale {
            lo,
            hi,
            start: bottom,
            length: -height,
        }
    }

    /// Where `v` lands, extrapolated beyond the range.
    pub fn linear(&self, v: f64) -> f64 {
        self.start + (v - self.lo) / (self.hi - self.lo) * self.length
    }

    /// Where `v` lands, held to the range's ends.
    pub fn clamped(&self, v: f64) -> f64 {
        self.linear(v.clamp(self.lo, self.hi))
    }

    /// Where `v` lands, held to the range's ends; a value that is not
    /// finite lands on the end it points to (`NaN` on `lo`), so that an
    /// open interval is drawn to the edge of its panel.
    pub fn at_or_edge(&self, v: f64) -> f64 {
        let v = if v.is_finite() {
            v
        } else if v > 0.0 {
            self.hi
        } else {
            self.lo
        };
        self.clamped(v)
    }
}

/// `range` widened to hold every finite end of `estimates` and every
/// reference, then opened by 1 on both sides if it is a single value, so
/// that a [`Scale`] over it never divides by zero.
pub(crate) fn covering<'a>(
    range: (f64, f64),
    estimates: impl IntoIterator<Item = &'a Estimate>,
    references: &[Reference],
) -> (f64, f64) {
    let (mut lo, mut hi) = range;
    for e in estimates {
        for v in [e.value, e.lo, e.hi] {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    for r in references {
        lo = lo.min(r.y);
        hi = hi.max(r.y);
    }
    if hi - lo < 1e-9 {
        lo -= 1.0;
        hi += 1.0;
    }
    (lo, hi)
}

/// A plot's rectangle, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Frame {
    /// Its left edge.
    pub left: f64,
    /// Its top edge.
    pub top: f64,
    /// Its right edge.
    pub right: f64,
    /// Its bottom edge.
    pub bottom: f64,
}

impl Frame {
    /// A line of CSS class `class` across the frame at height `y`.
    pub fn hline(&self, out: &mut String, class: &str, y: f64) {
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\"/>",
            num(self.left, 1),
            num(self.right, 1),
            y = num(y, 1)
        );
    }

    /// A line of CSS class `class` down the frame at `x`.
    pub fn vline(&self, out: &mut String, class: &str, x: f64) {
        let _ = writeln!(
            out,
            "<line class=\"{class}\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
            num(self.top, 1),
            num(self.bottom, 1),
            x = num(x, 1)
        );
    }
}

/// Grid lines across `frame` at each `(value, y)` of `ticks`, each value
/// written left of the frame with `digits` decimals.
pub(crate) fn horizontal_grid(
    out: &mut String,
    frame: &Frame,
    ticks: impl IntoIterator<Item = (f64, f64)>,
    digits: usize,
) {
    for (t, y) in ticks {
        frame.hline(out, "grid", y);
        text(
            out,
            frame.left - 6.0,
            y + 4.0,
            "end",
            "muted",
            &num(t, digits),
        );
    }
}

/// Grid lines down `frame` at each `(value, x)` of `ticks`, each value
/// written under the frame with `digits` decimals.
pub(crate) fn vertical_grid(
    out: &mut String,
    frame: &Frame,
    ticks: impl IntoIterator<Item = (f64, f64)>,
    digits: usize,
) {
    for (t, x) in ticks {
        frame.vline(out, "grid", x);
        text(
            out,
            x,
            frame.bottom + 16.0,
            "middle",
            "muted",
            &num(t, digits),
        );
    }
}

/// A horizontal reference line across `frame` at height `y`, labelled at
/// its right end: solid in the accent colour when strong, dashed and
/// neutral otherwise.
pub(crate) fn horizontal_reference(out: &mut String, frame: &Frame, r: &Reference, y: f64) {
    let class = if r.strong { "ref" } else { "even" };
    frame.hline(out, class, y);
    let label_class = if r.strong { "reftext" } else { "muted" };
    text(
        out,
        frame.right + 6.0,
        y + 4.0,
        "start",
        label_class,
        &r.label,
    );
}

/// The `d` of a path through `points` in pixels (`None` lifts the pen, so
/// the line breaks there); empty when there is no point.
pub(crate) fn polyline(points: impl IntoIterator<Item = Option<(f64, f64)>>) -> String {
    let mut path = String::new();
    let mut pen_down = false;
    for p in points {
        match p {
            Some((x, y)) => {
                let _ = write!(
                    path,
                    "{}{},{} ",
                    if pen_down { "L" } else { "M" },
                    num(x, 1),
                    num(y, 1)
                );
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    path.truncate(path.trim_end().len());
    path
}

/// The tooltip of an estimate of `what`: its value and 95% interval.
pub(crate) fn estimate_tip(what: &str, e: &Estimate) -> String {
    format!(
        "{what}: {} (95% interval {} to {})",
        num(e.value, 3),
        num(e.lo, 3),
        num(e.hi, 3)
    )
}

/// An estimate at `x` on the vertical scale `y`: its interval as a
/// whisker and its value as a dot of radius `radius` carrying `tip`.
pub(crate) fn whisker_and_dot(
    out: &mut String,
    x: f64,
    y: &Scale,
    e: &Estimate,
    radius: &str,
    tip: &str,
) {
    let x = num(x, 1);
    let _ = writeln!(
        out,
        "<line class=\"whisker\" x1=\"{x}\" y1=\"{}\" x2=\"{x}\" y2=\"{}\"/>",
        num(y.at_or_edge(e.lo), 1),
        num(y.at_or_edge(e.hi), 1)
    );
    let _ = writeln!(
        out,
        "<circle class=\"point\" cx=\"{x}\" cy=\"{}\" r=\"{radius}\"><title>{}</title></circle>",
        num(y.at_or_edge(e.value), 1),
        escape(tip)
    );
}

/// Text turned to read upwards, centred on `(x, y)`: a y axis's label.
pub(crate) fn rotated_label(out: &mut String, x: f64, y: f64, class: &str, body: &str) {
    let class = super::class_attr(class);
    let _ = writeln!(
        out,
        "<text x=\"{x}\" y=\"{y}\" text-anchor=\"middle\"{class} transform=\"rotate(-90 {x} {y})\">{}</text>",
        escape(body),
        x = num(x, 1),
        y = num(y, 1)
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scales_map_ends_and_send_open_ends_to_the_edge() {
        let x = Scale::rightwards(0.0, 10.0, 100.0, 50.0);
        assert_eq!(x.linear(5.0), 125.0);
        assert_eq!(x.linear(20.0), 200.0);
        assert_eq!(x.clamped(20.0), 150.0);
        let y = Scale::upwards(0.0, 1.0, 300.0, 200.0);
        assert_eq!(y.at_or_edge(0.0), 300.0);
        assert_eq!(y.at_or_edge(f64::INFINITY), 100.0);
        assert_eq!(y.at_or_edge(f64::NEG_INFINITY), 300.0);
        assert_eq!(y.at_or_edge(f64::NAN), 300.0);
        assert!(y.clamped(f64::NAN).is_nan());
    }

    #[test]
    fn a_range_covers_finite_ends_and_references() {
        let e = Estimate {
            value: 2.0,
            lo: -1.0,
            hi: f64::INFINITY,
        };
        let r = Reference {
            y: 5.0,
            label: String::new(),
            strong: false,
        };
        assert_eq!(covering((0.0, 1.0), [&e], &[r]), (-1.0, 5.0));
        assert_eq!(covering((3.0, 3.0), [], &[]), (2.0, 4.0));
    }

    #[test]
    fn a_polyline_breaks_where_a_point_is_missing() {
        let d = polyline([Some((1.0, 2.0)), Some((3.0, 4.31)), None, Some((5.0, 6.0))]);
        assert_eq!(d, "M1,2 L3,4.3 M5,6");
        assert_eq!(polyline([None]), "");
    }

    #[test]
    fn axis_labels_read_upwards() {
        let mut out = String::new();
        rotated_label(&mut out, 18.0, 40.5, "", "score <0..1>");
        rotated_label(&mut out, 22.0, 40.0, "muted", "pits");
        assert_eq!(
            out,
            "<text x=\"18\" y=\"40.5\" text-anchor=\"middle\" transform=\"rotate(-90 18 40.5)\">score &lt;0..1&gt;</text>\n\
             <text x=\"22\" y=\"40\" text-anchor=\"middle\" class=\"muted\" transform=\"rotate(-90 22 40)\">pits</text>\n"
        );
    }
}
