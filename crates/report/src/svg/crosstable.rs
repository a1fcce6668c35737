//! A crosstable as a heat map: the row agent's score against the column
//! agent, coloured from red (0%) through white (50%) to blue (100%), with
//! the score and the number of games written in each cell.

use std::fmt::Write;

use super::plot::rotated_label;
use super::{diverging, escape, num, open, text, text_width};

/// Scores of every agent against every other.
#[derive(Clone, Debug)]
pub struct Crosstable {
    /// Chart title (also the SVG `<title>`).
    pub title: String,
    /// A sentence or two for screen readers (the SVG `<desc>`).
    pub desc: String,
    /// The agents, in the order of rows and of columns.
    pub agents: Vec<String>,
    /// `cells[row][column]`: the row agent's score (0 to 1) and the games
    /// played; `None` for the diagonal and pairs that did not meet.
    pub cells: Vec<Vec<Option<(f64, u64)>>>,
    /// A note under the chart (the colour key).
    pub note: String,
}

/// `text` cut to `chars` characters, with an ellipsis when cut.
fn shorten(text: &str, chars: usize) -> String {
    if text.chars().count() <= chars {
        text.to_string()
    } else {
        let mut s: String = text.chars().take(chars.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

/// The height of a crosstable's cell: room for the score and the games.
const CELL_H: f64 = 46.0;
/// The top of the first row: room under the title for the column
/// headings and their axis label.
const TOP: f64 = 78.0;

/// Where a crosstable's cells go, sized to the longest agent's name.
struct CrosstableLayout {
    /// A cell's width.
    cell_w: f64,
    /// The left of the first column: room for the row names and, left of
    /// them, the rotated axis label.
    left: f64,
    /// Agents (at least one's room).
    n: usize,
}

impl CrosstableLayout {
    fn new(table: &Crosstable) -> CrosstableLayout {
        let longest = table
            .agents
            .iter()
            .map(|a| text_width(a, 7.0))
            .fold(0.0, f64::max);
        CrosstableLayout {
            cell_w: (longest + 14.0).clamp(70.0, 120.0),
            left: (longest + 44.0).clamp(80.0, 280.0),
            n: table.agents.len().max(1),
        }
    }

    /// The left edge of column `j`.
    fn column_x(&self, j: usize) -> f64 {
        self.left + self.cell_w * j as f64
    }

    /// The top edge of row `i`.
    fn row_y(&self, i: usize) -> f64 {
        TOP + CELL_H * i as f64
    }

    /// The bottom of the last row.
    fn bottom(&self) -> f64 {
        TOP + CELL_H * self.n as f64
    }
}

/// Draws the crosstable.
pub fn crosstable(table: &Crosstable) -> String {
    let layout = CrosstableLayout::new(table);
    let (left, cell_w, n) = (layout.left, layout.cell_w, layout.n);
    let width = (left + cell_w * n as f64 + 24.0)
        .max(text_width(&table.title, 8.5) + 32.0)
        .max(text_width(&table.note, 6.6) + 32.0);
    let height = layout.bottom() + 56.0;
    let mut out = String::new();
    open(&mut out, width, height, &table.title, &table.desc);
    text(&mut out, 16.0, 28.0, "start", "title", &table.title);
    column_headings(&mut out, table, &layout);
    for (i, row_agent) in table.agents.iter().enumerate() {
        let y = layout.row_y(i) + CELL_H / 2.0 + 4.0;
        text(&mut out, left - 10.0, y, "end", "", row_agent);
        for j in 0..table.agents.len() {
            crosstable_cell(&mut out, table, &layout, i, j);
        }
    }
    let mid = TOP + CELL_H * n as f64 / 2.0;
    rotated_label(&mut out, 14.0, mid, "muted", "agent (row)");
    let y = layout.bottom() + 32.0;
    text(&mut out, 16.0, y, "start", "muted", &table.note);
    out.push_str("</svg>\n");
    out
}

/// The opponents' names above the columns, cut to the cell's width (the
/// whole name in a tooltip), and what the columns are.
fn column_headings(out: &mut String, table: &Crosstable, layout: &CrosstableLayout) {
    let (left, cell_w) = (layout.left, layout.cell_w);
    let centre = left + cell_w * layout.n as f64 / 2.0;
    text(
        out,
        centre,
        TOP - 34.0,
        "middle",
        "muted",
        "opponent (column)",
    );
    let fits = ((cell_w - 8.0) / 7.0) as usize;
    for (j, a) in table.agents.iter().enumerate() {
        let x = left + cell_w * (j as f64 + 0.5);
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}<title>{}</title></text>",
            num(x, 1),
            num(TOP - 10.0, 1),
            escape(&shorten(a, fits)),
            escape(a)
        );
    }
}

/// The cell of row agent `i` against column agent `j`: coloured by the
/// score (neutral where they did not meet), with a tooltip in words, and
/// the score over the number of games, or a dash.
fn crosstable_cell(
    out: &mut String,
    table: &Crosstable,
    layout: &CrosstableLayout,
    i: usize,
    j: usize,
) {
    let (row_agent, col_agent) = (&table.agents[i], &table.agents[j]);
    let (x, y, cell_w) = (layout.column_x(j), layout.row_y(i), layout.cell_w);
    let cell = table.cells.get(i).and_then(|r| r.get(j)).copied().flatten();
    let (fill, dark) = match cell {
        Some((score, _)) => {
            let (f, d) = diverging(score - 0.5, 0.5);
            (format!("fill=\"{f}\""), d)
        }
        None => ("class=\"empty\"".to_string(), false),
    };
    let tip = match cell {
        Some((score, games)) => format!(
            "{row_agent} against {col_agent}: {}% over {games} games",
            num(100.0 * score, 1)
        ),
        None if i == j => format!("{row_agent}: itself"),
        None => format!("{row_agent} and {col_agent} did not meet"),
    };
    let _ = writeln!(
        out,
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" {fill} stroke=\"#8c959f\" stroke-width=\"0.5\"><title>{}</title></rect>",
        num(x, 1),
        num(y, 1),
        num(cell_w, 1),
        num(CELL_H, 1),
        escape(&tip)
    );
    // On a coloured cell the ink is fixed for contrast.
    let class = match cell {
        Some(_) if dark => "cell-dark",
        Some(_) => "cell-light",
        None => "muted",
    };
    let centre = x + cell_w / 2.0;
    match cell {
        Some((score, games)) => {
            let score = format!("{}%", num(100.0 * score, 1));
            text(out, centre, y + 20.0, "middle", class, &score);
            let _ = writeln!(
                out,
                "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" class=\"{class}\" font-size=\"10.5\">{games} games</text>",
                num(centre, 1),
                num(y + 35.0, 1)
            );
        }
        None => text(out, centre, y + CELL_H / 2.0 + 4.0, "middle", class, "—"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_show_score_and_games_and_long_names_are_cut() {
        let table = Crosstable {
            title: "Crosstable".into(),
            desc: "d".into(),
            agents: vec!["a-very-long-agent-name-indeed-yes".into(), "b".into()],
            cells: vec![vec![None, Some((0.75, 8))], vec![Some((0.25, 8)), None]],
            note: "n".into(),
        };
        let svg = crosstable(&table);
        assert!(svg.contains(">75%<") && svg.contains(">25%<"));
        assert!(svg.contains(">8 games<"));
        assert!(svg.contains("…<title>a-very-long-agent-name-indeed-yes</title>"));
    }
}
