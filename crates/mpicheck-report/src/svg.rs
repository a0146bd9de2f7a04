//! SVG drawing of a wait-for graph, laid out here (no Graphviz at report time).
//!
//! Layout: the nodes of the cycle (or knot) sit on a circle in cycle order, so the cycle
//! reads as a ring; nodes that only wait on it sit on outer rings, each near the nodes it
//! waits for (one ring further out per step of distance from the cycle). Radii and angular
//! gaps are chosen from the largest node box so that no two boxes overlap (two boxes whose
//! centres are further apart than the box diagonal cannot overlap).
//!
//! Drawing: cycle nodes and the edges between them are red; waiting-only nodes grey. Each
//! node shows its rank set, its blocking call and whether it waits for all of its out-edges
//! (AND, solid border and edges) or for any one of them (OR, dashed border and edges). Edges
//! carry their label at their middle; two edges between the same pair of nodes are bent
//! apart; an edge from a node to itself is a loop above it. A legend explains the marks.

use std::f64::consts::PI;
use std::fmt::Write as _;

use mpicheck_analyzer::diagnostic::{WaitForGraph, WaitSemantics};

use crate::ranks::format_ranks;

/// Width of one monospace character at [`FONT`] (generous, so text stays inside boxes).
const CHAR_W: f64 = 7.4;
const LINE_H: f64 = 16.0;
const PAD: f64 = 8.0;
const GAP: f64 = 40.0;
const EDGE_FONT: f64 = 11.0;
const EDGE_CHAR_W: f64 = 6.8;
const MARGIN: f64 = 20.0;
const LEGEND_H: f64 = 44.0;

/// Where a node's box is: centre and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placed {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
}

impl Placed {
    /// True when the boxes share any area.
    pub fn overlaps(&self, o: &Placed) -> bool {
        (self.x - o.x).abs() < (self.w + o.w) / 2.0 && (self.y - o.y).abs() < (self.h + o.h) / 2.0
    }

    /// Where the ray from the centre towards `(tx, ty)` leaves the box.
    fn boundary_towards(&self, tx: f64, ty: f64) -> (f64, f64) {
        let (dx, dy) = (tx - self.x, ty - self.y);
        if dx == 0.0 && dy == 0.0 {
            return (self.x, self.y);
        }
        let sx = if dx == 0.0 {
            f64::INFINITY
        } else {
            (self.w / 2.0) / dx.abs()
        };
        let sy = if dy == 0.0 {
            f64::INFINITY
        } else {
            (self.h / 2.0) / dy.abs()
        };
        let s = sx.min(sy);
        (self.x + s * dx, self.y + s * dy)
    }
}

/// Node positions in SVG coordinates (the centre of the cycle circle is at the origin).
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    /// Same order as the graph's nodes.
    pub nodes: Vec<Placed>,
    /// Radius of the ring each node sits on (0 for a lone centre node).
    pub radii: Vec<f64>,
}

fn node_lines(g: &WaitForGraph, i: usize) -> [String; 3] {
    let n = &g.nodes[i];
    let semantics = match n.semantics {
        WaitSemantics::And => "waits for all (AND)",
        WaitSemantics::Or => "waits for any (OR)",
    };
    [
        format_ranks(&n.ranks),
        n.label.clone(),
        semantics.to_string(),
    ]
}

fn box_size(lines: &[String; 3]) -> (f64, f64) {
    let chars = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as f64;
    (chars * CHAR_W + 2.0 * PAD, 3.0 * LINE_H + 2.0 * PAD)
}

/// Radius at which `k` points spaced by at least `dist` fit on a circle.
fn radius_for(k: usize, dist: f64) -> f64 {
    match k {
        0 | 1 => 0.0,
        2 => dist / 2.0,
        k => dist / (2.0 * (PI / k as f64).sin()),
    }
}

/// The circular mean of angles.
fn mean_angle(angles: &[f64]) -> Option<f64> {
    if angles.is_empty() {
        return None;
    }
    let (s, c) = angles
        .iter()
        .fold((0.0, 0.0), |(s, c), a| (s + a.sin(), c + a.cos()));
    if s.abs() < 1e-9 && c.abs() < 1e-9 {
        Some(angles[0])
    } else {
        Some(s.atan2(c))
    }
}

/// Lays the graph out (see the module docs).
pub fn layout(g: &WaitForGraph) -> Layout {
    let n = g.nodes.len();
    let sizes: Vec<(f64, f64)> = (0..n).map(|i| box_size(&node_lines(g, i))).collect();
    let diag = sizes
        .iter()
        .map(|(w, h)| (w * w + h * h).sqrt())
        .fold(0.0, f64::max);
    let step = diag + GAP;
    let valid = |e: &&mpicheck_analyzer::diagnostic::WaitEdge| e.from < n && e.to < n;

    // The core ring: the cycle nodes, or every node when the graph marks none.
    let mut core: Vec<usize> = (0..n).filter(|&i| g.nodes[i].in_cycle).collect();
    if core.is_empty() {
        core = (0..n).collect();
    }
    // Order the core along its edges so the cycle runs around the circle.
    let mut order = Vec::with_capacity(core.len());
    let mut placed = vec![false; n];
    for &start in &core {
        let mut cur = start;
        while !placed[cur] {
            placed[cur] = true;
            order.push(cur);
            let next = g
                .edges
                .iter()
                .filter(valid)
                .find(|e| e.from == cur && core.contains(&e.to) && !placed[e.to]);
            match next {
                Some(e) => cur = e.to,
                None => break,
            }
        }
    }
    let core_r = radius_for(order.len(), step);
    let mut angle = vec![0.0f64; n];
    let mut radius = vec![0.0f64; n];
    for (k, &i) in order.iter().enumerate() {
        // Clockwise from the top.
        angle[i] = -PI / 2.0 + 2.0 * PI * k as f64 / order.len() as f64;
        radius[i] = core_r;
    }

    // Outer rings by distance (along out-edges) to a placed node.
    let mut prev_r = core_r;
    let mut remaining: Vec<usize> = (0..n).filter(|&i| !placed[i]).collect();
    while !remaining.is_empty() {
        let mut ring: Vec<(usize, f64)> = remaining
            .iter()
            .filter_map(|&i| {
                let targets: Vec<f64> = g
                    .edges
                    .iter()
                    .filter(valid)
                    .filter(|e| e.from == i && placed[e.to])
                    .map(|e| angle[e.to])
                    .collect();
                mean_angle(&targets).map(|a| (i, a))
            })
            .collect();
        if ring.is_empty() {
            // Nodes that wait on nothing placed: one last ring, spread evenly.
            let k = remaining.len();
            ring = remaining
                .iter()
                .enumerate()
                .map(|(j, &i)| (i, -PI / 2.0 + 2.0 * PI * j as f64 / k as f64))
                .collect();
        }
        ring.sort_by(|a, b| a.1.total_cmp(&b.1));
        let k = ring.len();
        let r = (prev_r + step).max(radius_for(k, step));
        let min_gap = if k < 2 {
            0.0
        } else {
            2.0 * (step / (2.0 * r)).min(1.0).asin()
        };
        let mut angles: Vec<f64> = ring.iter().map(|&(_, a)| a).collect();
        for j in 1..k {
            angles[j] = angles[j].max(angles[j - 1] + min_gap);
        }
        if k >= 2 && angles[k - 1] - angles[0] > 2.0 * PI - min_gap {
            let a0 = angles[0];
            for (j, a) in angles.iter_mut().enumerate() {
                *a = a0 + 2.0 * PI * j as f64 / k as f64;
            }
        }
        for (&(i, _), &a) in ring.iter().zip(&angles) {
            angle[i] = a;
            radius[i] = r;
            placed[i] = true;
        }
        prev_r = r;
        remaining.retain(|&i| !placed[i]);
    }

    let nodes = (0..n)
        .map(|i| Placed {
            x: radius[i] * angle[i].cos(),
            y: radius[i] * angle[i].sin(),
            w: sizes[i].0,
            h: sizes[i].1,
        })
        .collect();
    Layout {
        nodes,
        radii: radius,
    }
}

/// A point of the quadratic Bézier `[x0, y0, qx, qy, x1, y1]` at `t`.
fn bezier(c: [f64; 6], t: f64) -> (f64, f64) {
    let u = 1.0 - t;
    (
        u * u * c[0] + 2.0 * u * t * c[2] + t * t * c[4],
        u * u * c[1] + 2.0 * u * t * c[3] + t * t * c[5],
    )
}

/// The curve of an edge from box `a` to box `z`: straight when nothing is in the way,
/// otherwise bent (control point moved sideways, smallest bend first) until it misses every
/// other box. `parallel` edges (a reverse edge exists) are always bent, to their left, so the
/// two directions stay apart.
fn route(a: &Placed, z: &Placed, others: &[Placed], parallel: bool) -> [f64; 6] {
    let (mx, my) = ((a.x + z.x) / 2.0, (a.y + z.y) / 2.0);
    let (dx, dy) = (z.x - a.x, z.y - a.y);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (nx, ny) = (dy / len, -dx / len);
    let bends: Vec<f64> = if parallel {
        (0..16).map(|k| 50.0 + 60.0 * k as f64).collect()
    } else {
        std::iter::once(0.0)
            .chain((1..20).flat_map(|k| [60.0 * k as f64, -60.0 * k as f64]))
            .collect()
    };
    let curve = |bend: f64| {
        let (qx, qy) = (mx + bend * nx, my + bend * ny);
        let (sx, sy) = a.boundary_towards(qx, qy);
        let (tx, ty) = z.boundary_towards(qx, qy);
        [sx, sy, qx, qy, tx, ty]
    };
    let clear = |c: [f64; 6]| {
        (1..40).all(|t| {
            let (px, py) = bezier(c, t as f64 / 40.0);
            others
                .iter()
                .all(|o| (px - o.x).abs() > o.w / 2.0 + 4.0 || (py - o.y).abs() > o.h / 2.0 + 4.0)
        })
    };
    bends
        .iter()
        .map(|&b| curve(b))
        .find(|&c| clear(c))
        .unwrap_or_else(|| curve(bends[0]))
}

/// Escapes text for XML content and attribute values.
pub(crate) fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Grows a bounding box.
struct Bounds {
    x0: f64,
    y0: f64,
    x1: f64,
    y1: f64,
}

impl Bounds {
    fn add(&mut self, x: f64, y: f64, half_w: f64, half_h: f64) {
        self.x0 = self.x0.min(x - half_w);
        self.x1 = self.x1.max(x + half_w);
        self.y0 = self.y0.min(y - half_h);
        self.y1 = self.y1.max(y + half_h);
    }
}

/// Where an edge label sits relative to its point on the edge.
#[derive(Clone, Copy)]
enum Anchor {
    Middle,
    /// Right of the point (the label starts there).
    Start,
    /// Left of the point (the label ends there).
    End,
}

/// The graph as an `<svg>` element (no XML declaration, ready to inline in HTML). `id`
/// prefixes the marker ids so several drawings can share one page.
pub fn to_svg(g: &WaitForGraph, id: &str) -> String {
    let lay = layout(g);
    let n = g.nodes.len();
    let mut b = Bounds {
        x0: 0.0,
        y0: 0.0,
        x1: 0.0,
        y1: 0.0,
    };
    for p in &lay.nodes {
        b.add(p.x, p.y, p.w / 2.0, p.h / 2.0);
    }
    let id = xml_escape(id);
    let mut edges_svg = String::new();
    let mut labels_svg = String::new();
    for e in g.edges.iter().filter(|e| e.from < n && e.to < n) {
        let (a, z) = (&lay.nodes[e.from], &lay.nodes[e.to]);
        let from = &g.nodes[e.from];
        let hot = from.in_cycle && g.nodes[e.to].in_cycle;
        let class = format!(
            "edge{}{}",
            if hot { " cycle" } else { "" },
            if from.semantics == WaitSemantics::Or {
                " or"
            } else {
                ""
            }
        );
        let marker = if hot { "arrow-hot" } else { "arrow" };
        let label = if from.semantics == WaitSemantics::Or {
            format!("any of: {}", e.label)
        } else {
            e.label.clone()
        };
        let mut anchor = Anchor::Middle;
        let (path, lx, ly) = if e.from == e.to {
            // A loop over the top of the box.
            let (x, top) = (a.x, a.y - a.h / 2.0);
            let d = format!(
                "M{:.1},{:.1} C{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}",
                x - 20.0,
                top,
                x - 40.0,
                top - 50.0,
                x + 40.0,
                top - 50.0,
                x + 20.0,
                top
            );
            b.add(x, top - 38.0, 40.0, 12.0);
            (d, x, top - 46.0)
        } else {
            // Bend when the reverse edge (or a parallel one) exists, so both stay visible.
            let parallel = g
                .edges
                .iter()
                .filter(|o| {
                    (o.from == e.to && o.to == e.from) || (o.from == e.from && o.to == e.to)
                })
                .count()
                > 1;
            let others: Vec<Placed> = lay
                .nodes
                .iter()
                .enumerate()
                .filter(|&(k, _)| k != e.from && k != e.to)
                .map(|(_, p)| *p)
                .collect();
            let [sx, sy, qx, qy, tx, ty] = route(a, z, &others, parallel);
            for t in 1..10 {
                let (px, py) = bezier([sx, sy, qx, qy, tx, ty], t as f64 / 10.0);
                b.add(px, py, 2.0, 2.0);
            }
            let d = format!("M{sx:.1},{sy:.1} Q{qx:.1},{qy:.1} {tx:.1},{ty:.1}");
            let (lx, ly) = (
                0.25 * sx + 0.5 * qx + 0.25 * tx,
                0.25 * sy + 0.5 * qy + 0.25 * ty,
            );
            if parallel {
                // The two bent curves are close together: labels centred on them would
                // overprint each other, so each goes on the outer side of its curve.
                let (dx, dy) = (lx - (sx + tx) / 2.0, ly - (sy + ty) / 2.0);
                if dx.abs() >= dy.abs() {
                    anchor = if dx < 0.0 { Anchor::End } else { Anchor::Start };
                    (d, lx, ly)
                } else {
                    (d, lx, ly + dy.signum() * EDGE_FONT)
                }
            } else {
                (d, lx, ly)
            }
        };
        let _ = writeln!(
            edges_svg,
            r#"<path class="{class}" d="{path}" marker-end="url(#{id}-{marker})"/>"#
        );
        let lw = label.chars().count() as f64 * EDGE_CHAR_W + 6.0;
        let (rect_x, text_x, style) = match anchor {
            Anchor::Middle => (lx - lw / 2.0, lx, ""),
            Anchor::Start => (lx + 4.0, lx + 7.0, r#" style="text-anchor: start""#),
            Anchor::End => (lx - 4.0 - lw, lx - 7.0, r#" style="text-anchor: end""#),
        };
        b.add(rect_x + lw / 2.0, ly, lw / 2.0, EDGE_FONT);
        let _ = writeln!(
            labels_svg,
            r#"<g class="edge-label{}"><rect x="{:.1}" y="{:.1}" width="{lw:.1}" height="{:.1}" rx="3"/><text x="{text_x:.1}" y="{:.1}"{style}>{}</text></g>"#,
            if hot { " cycle" } else { "" },
            rect_x,
            ly - EDGE_FONT * 0.8,
            EDGE_FONT * 1.6,
            ly + EDGE_FONT * 0.35,
            xml_escape(&label)
        );
    }
    let mut nodes_svg = String::new();
    for (i, p) in lay.nodes.iter().enumerate() {
        let node = &g.nodes[i];
        let lines = node_lines(g, i);
        let class = format!(
            "node{}{}",
            if node.in_cycle { " cycle" } else { "" },
            if node.semantics == WaitSemantics::Or {
                " or"
            } else {
                " and"
            }
        );
        let _ = write!(
            nodes_svg,
            r#"<g class="{class}"><rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" rx="6"/>"#,
            p.x - p.w / 2.0,
            p.y - p.h / 2.0,
            p.w,
            p.h
        );
        for (k, line) in lines.iter().enumerate() {
            let y = p.y - p.h / 2.0 + PAD + LINE_H * (k as f64 + 0.75);
            let cls = ["ranks", "call", "semantics"][k];
            let _ = write!(
                nodes_svg,
                r#"<text class="{cls}" x="{:.1}" y="{y:.1}">{}</text>"#,
                p.x,
                xml_escape(line)
            );
        }
        nodes_svg.push_str("</g>\n");
    }
    let (x0, y0) = (b.x0 - MARGIN, b.y0 - MARGIN);
    let width = (b.x1 - b.x0) + 2.0 * MARGIN;
    let legend_y = b.y1 + MARGIN;
    let height = (b.y1 - b.y0) + 2.0 * MARGIN + LEGEND_H;
    let width = width.max(460.0);
    let legend = format!(
        r#"<g class="legend" transform="translate({:.1},{:.1})"><rect class="swatch cycle" x="0" y="0" width="14" height="14" rx="3"/><text x="20" y="11">in the cycle</text><rect class="swatch" x="120" y="0" width="14" height="14" rx="3"/><text x="140" y="11">waits on it</text><line class="edge" x1="240" y1="7" x2="270" y2="7"/><text x="276" y="11">AND: all</text><line class="edge or" x1="350" y1="7" x2="380" y2="7"/><text x="386" y="11">OR: any</text></g>"#,
        x0 + 4.0,
        legend_y + 8.0
    );
    format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" class="wait-for" viewBox="{x0:.1} {y0:.1} {width:.1} {height:.1}" width="{width:.0}" height="{height:.0}" role="img" aria-label="wait-for graph">
<defs><marker id="{id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#666"/></marker><marker id="{id}-arrow-hot" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="8" markerHeight="8" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#c0392b"/></marker></defs>
{edges_svg}{nodes_svg}{labels_svg}{legend}
</svg>"##
    )
}

/// Styles for [`to_svg`]'s classes, for the page that embeds it.
/// Fill of the nodes of the cycle; used nowhere else on the page, so a screenshot test can
/// find the drawn cycle by its color.
pub const CYCLE_NODE_FILL: &str = "#fadbd8";

pub const SVG_CSS: &str = r#"
svg.wait-for { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; max-width: 100%; height: auto; }
svg.wait-for .node rect { fill: #f4f4f4; stroke: #777; stroke-width: 1.5; }
svg.wait-for .node.cycle rect { fill: #fadbd8; stroke: #c0392b; stroke-width: 2.5; }
svg.wait-for .node.or rect { stroke-dasharray: 6 3; }
svg.wait-for .node text { font-size: 12px; text-anchor: middle; fill: #222; }
svg.wait-for .node text.ranks { font-weight: bold; }
svg.wait-for .node text.semantics { fill: #555; font-style: italic; }
svg.wait-for .edge { fill: none; stroke: #666; stroke-width: 1.5; }
svg.wait-for .edge.cycle { stroke: #c0392b; stroke-width: 2.5; }
svg.wait-for .edge.or { stroke-dasharray: 6 4; }
svg.wait-for .edge-label rect { fill: #fff; fill-opacity: 0.85; stroke: none; }
svg.wait-for .edge-label text { font-size: 11px; text-anchor: middle; fill: #444; }
svg.wait-for .edge-label.cycle text { fill: #c0392b; }
svg.wait-for .legend text { font-size: 11px; fill: #444; }
svg.wait-for .legend .swatch { fill: #f4f4f4; stroke: #777; }
svg.wait-for .legend .swatch.cycle { fill: #fadbd8; stroke: #c0392b; }
"#;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cycle_fill_is_only_the_cycle_nodes() {
        let rules: Vec<&str> = SVG_CSS
            .lines()
            .filter(|l| l.contains(CYCLE_NODE_FILL))
            .collect();
        assert_eq!(rules.len(), 2, "{rules:?}");
        assert!(rules.iter().all(|r| r.contains(".cycle")));
        assert!(!crate::html::PAGE_CSS.contains(CYCLE_NODE_FILL));
    }
    use mpicheck_analyzer::diagnostic::{WaitEdge, WaitNode};
    use proptest::prelude::*;

    fn node(rank: u32, in_cycle: bool, semantics: WaitSemantics) -> WaitNode {
        WaitNode {
            ranks: vec![rank].into(),
            label: format!("MPI_Recv at ring.c:{}", 10 + rank),
            semantics,
            in_cycle,
        }
    }

    fn edge(from: usize, to: usize) -> WaitEdge {
        WaitEdge {
            from,
            to,
            label: "message tag 0".into(),
        }
    }

    fn ring(k: usize, waiting: usize) -> WaitForGraph {
        let mut g = WaitForGraph::default();
        for i in 0..k {
            g.nodes.push(node(i as u32, true, WaitSemantics::And));
            g.edges.push(edge(i, (i + 1) % k));
        }
        for j in 0..waiting {
            g.nodes.push(node((k + j) as u32, false, WaitSemantics::Or));
            g.edges.push(edge(k + j, j % k.max(1)));
        }
        g
    }

    fn assert_no_overlap(l: &Layout) {
        for (i, a) in l.nodes.iter().enumerate() {
            for (j, b) in l.nodes.iter().enumerate().skip(i + 1) {
                assert!(!a.overlaps(b), "nodes {i} and {j} overlap: {a:?} {b:?}");
            }
        }
    }

    #[test]
    fn cycle_on_a_circle_waiting_nodes_outside() {
        let g = ring(4, 3);
        let l = layout(&g);
        assert_no_overlap(&l);
        let core = l.radii[0];
        assert!(core > 0.0);
        for i in 0..4 {
            assert!((l.radii[i] - core).abs() < 1e-9);
            let p = &l.nodes[i];
            assert!(((p.x * p.x + p.y * p.y).sqrt() - core).abs() < 1e-6);
        }
        for i in 4..7 {
            assert!(
                l.radii[i] > core,
                "waiting node {i} is not outside the cycle"
            );
        }
        // The first cycle node is at the top, the next one clockwise (to the right).
        assert!(l.nodes[0].y < 0.0 && l.nodes[0].x.abs() < 1e-6);
        assert!(l.nodes[1].x > 0.0);
    }

    #[test]
    fn waiting_node_sits_near_what_it_waits_for() {
        let g = ring(6, 1);
        let l = layout(&g);
        // Node 6 waits on node 0 (the top): it is above the circle, not across it.
        assert!(l.nodes[6].y < l.nodes[0].y);
    }

    #[test]
    fn chains_of_waiting_nodes_go_further_out() {
        let mut g = ring(3, 1);
        g.nodes.push(node(9, false, WaitSemantics::And));
        g.edges.push(edge(4, 3));
        let l = layout(&g);
        assert!(l.radii[4] > l.radii[3] && l.radii[3] > l.radii[0]);
        assert_no_overlap(&l);
    }

    #[test]
    fn degenerate_graphs() {
        assert!(layout(&WaitForGraph::default()).nodes.is_empty());
        // A rank waiting for itself.
        let g = ring(1, 0);
        let l = layout(&g);
        assert_eq!((l.nodes[0].x, l.nodes[0].y), (0.0, 0.0));
        assert!(to_svg(&g, "g").contains(" C"));
        // No node marked as cycle: all on one ring.
        let mut g = ring(3, 0);
        for n in &mut g.nodes {
            n.in_cycle = false;
        }
        assert_no_overlap(&layout(&g));
        // Edges pointing outside the node list are ignored, not a panic.
        let mut g = ring(2, 0);
        g.edges.push(edge(0, 5));
        let svg = to_svg(&g, "g");
        assert_eq!(svg.matches("<path class=\"edge").count(), 2);
    }

    #[test]
    fn two_way_edges_are_bent_apart() {
        let g = ring(2, 0);
        let svg = to_svg(&g, "g");
        assert_eq!(svg.matches(" Q").count(), 2);
        let paths: Vec<&str> = svg
            .lines()
            .filter(|l| l.starts_with("<path class=\"edge"))
            .collect();
        assert_eq!(paths.len(), 2);
        assert_ne!(paths[0], paths[1]);
    }

    #[test]
    fn svg_marks_cycle_and_semantics_and_escapes_text() {
        let mut g = ring(3, 1);
        g.nodes[0].label = "MPI_Recv at <a&b>.c:1".into();
        let svg = to_svg(&g, "f1");
        assert!(svg.contains("MPI_Recv at &lt;a&amp;b&gt;.c:1"));
        assert_eq!(svg.matches(r#"class="node cycle and""#).count(), 3);
        assert_eq!(svg.matches(r#"class="node or""#).count(), 1);
        assert_eq!(svg.matches(r#"<path class="edge cycle""#).count(), 3);
        assert_eq!(svg.matches(r#"<path class="edge or""#).count(), 1);
        assert!(svg.contains(">any of: message tag 0<"));
        assert!(svg.contains("waits for all (AND)") && svg.contains("waits for any (OR)"));
        assert!(svg.contains(r#"marker-end="url(#f1-arrow-hot)""#));
    }

    #[test]
    fn edges_go_around_boxes_in_the_way() {
        // Node 4 waits on nodes 0 (top) and 2 (bottom); the straight line to 2 would cross 0.
        let mut g = ring(4, 1);
        g.edges.push(edge(4, 2));
        let l = layout(&g);
        let others: Vec<Placed> = [0usize, 1, 3].iter().map(|&k| l.nodes[k]).collect();
        let c = route(&l.nodes[4], &l.nodes[2], &others, false);
        assert!(
            c[2] != (l.nodes[4].x + l.nodes[2].x) / 2.0,
            "the edge was not bent: {c:?} {:?}",
            l.nodes
        );
        for t in 1..100 {
            let (px, py) = bezier(c, t as f64 / 100.0);
            for o in &others {
                assert!(
                    (px - o.x).abs() > o.w / 2.0 || (py - o.y).abs() > o.h / 2.0,
                    "edge crosses a box at {px},{py}"
                );
            }
        }
        // Nothing in the way: straight.
        let c = route(&l.nodes[0], &l.nodes[1], &[], false);
        assert!(
            ((c[2] - (c[0] + c[4]) / 2.0).abs()) < 1e-6
                || ((c[3] - (c[1] + c[5]) / 2.0).abs()) < 1e-6
        );
    }

    proptest! {
        #[test]
        fn boxes_never_overlap_and_fit_the_view(
            k in 1usize..12,
            waiting in proptest::collection::vec((0usize..12, 0usize..40), 0..12),
        ) {
            let mut g = ring(k, 0);
            for (j, (target, extra)) in waiting.iter().enumerate() {
                let mut n = node((k + j) as u32, false, WaitSemantics::And);
                n.label.push_str(&"x".repeat(*extra));
                g.nodes.push(n);
                g.edges.push(edge(k + j, target % (k + j)));
            }
            let l = layout(&g);
            for (i, a) in l.nodes.iter().enumerate() {
                for b in l.nodes.iter().skip(i + 1) {
                    prop_assert!(!a.overlaps(b));
                }
            }
            // Every box lies inside the viewBox.
            let svg = to_svg(&g, "p");
            let vb: Vec<f64> = svg.split("viewBox=\"").nth(1).unwrap().split('"').next().unwrap()
                .split(' ').map(|v| v.parse().unwrap()).collect();
            for p in &l.nodes {
                prop_assert!(p.x - p.w / 2.0 >= vb[0] - 0.1 && p.x + p.w / 2.0 <= vb[0] + vb[2] + 0.1);
                prop_assert!(p.y - p.h / 2.0 >= vb[1] - 0.1 && p.y + p.h / 2.0 <= vb[1] + vb[3] + 0.1);
            }
        }
    }
}
