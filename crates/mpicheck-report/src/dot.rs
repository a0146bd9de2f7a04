//! Graphviz DOT text of a wait-for graph, for `dot -Tsvg` or other graph tools.
//!
//! Nodes are labelled with their rank set and blocking call; nodes of the cycle are red and
//! bold, nodes that only wait on it grey. An AND node (needs all its out-edges) is a box with
//! solid out-edges; an OR node (any out-edge suffices) is a rounded box whose out-edges are
//! dashed and marked `any of`. Edges between cycle nodes are red.

use mpicheck_analyzer::diagnostic::{WaitForGraph, WaitSemantics};

use crate::ranks::format_ranks;

/// Escapes a string for a DOT double-quoted ID (`"` and `\`; line breaks become `\n`).
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => {}
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The graph as a DOT `digraph`. Edges whose ends are not nodes of the graph are left out
/// rather than drawn to nodes DOT would invent.
pub fn to_dot(graph: &WaitForGraph) -> String {
    let mut out = String::from(
        "digraph wait_for {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\", fontsize=10];\n",
    );
    for (i, n) in graph.nodes.iter().enumerate() {
        let semantics = match n.semantics {
            WaitSemantics::And => "waits for all",
            WaitSemantics::Or => "waits for any",
        };
        let label = format!("{}\n{}\n({semantics})", format_ranks(&n.ranks), n.label);
        let mut attrs = vec![format!("label={}", quote(&label))];
        let mut style = Vec::new();
        if n.semantics == WaitSemantics::Or {
            style.push("rounded");
        }
        if n.in_cycle {
            attrs.push("color=red".into());
            attrs.push("fontcolor=red".into());
            style.push("bold");
        } else {
            attrs.push("color=gray40".into());
        }
        if !style.is_empty() {
            attrs.push(format!("style={}", quote(&style.join(","))));
        }
        out.push_str(&format!("  n{i} [{}];\n", attrs.join(", ")));
    }
    for e in &graph.edges {
        let (Some(from), Some(to)) = (graph.nodes.get(e.from), graph.nodes.get(e.to)) else {
            continue;
        };
        let mut label = e.label.clone();
        let mut attrs = Vec::new();
        if from.semantics == WaitSemantics::Or {
            label = format!("any of: {label}");
            attrs.push("style=dashed".to_string());
        }
        if from.in_cycle && to.in_cycle {
            attrs.push("color=red".into());
            attrs.push("fontcolor=red".into());
        }
        attrs.insert(0, format!("label={}", quote(&label)));
        out.push_str(&format!(
            "  n{} -> n{} [{}];\n",
            e.from,
            e.to,
            attrs.join(", ")
        ));
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mpicheck_analyzer::diagnostic::{WaitEdge, WaitNode};

    fn graph() -> WaitForGraph {
        WaitForGraph {
            nodes: vec![
                WaitNode {
                    ranks: vec![0].into(),
                    label: "MPI_Recv at ring.c:12".into(),
                    semantics: WaitSemantics::And,
                    in_cycle: true,
                },
                WaitNode {
                    ranks: vec![1].into(),
                    label: "MPI_Recv at \"odd\\name\".c:3".into(),
                    semantics: WaitSemantics::And,
                    in_cycle: true,
                },
                WaitNode {
                    ranks: vec![2, 3, 4].into(),
                    label: "MPI_Waitany at ring.c:20".into(),
                    semantics: WaitSemantics::Or,
                    in_cycle: false,
                },
            ],
            edges: vec![
                WaitEdge {
                    from: 0,
                    to: 1,
                    label: "message tag 0".into(),
                },
                WaitEdge {
                    from: 1,
                    to: 0,
                    label: "message tag 0".into(),
                },
                WaitEdge {
                    from: 2,
                    to: 0,
                    label: "reply".into(),
                },
                WaitEdge {
                    from: 2,
                    to: 7,
                    label: "dangling".into(),
                },
            ],
        }
    }

    #[test]
    fn dot_text() {
        assert_eq!(
            to_dot(&graph()),
            r#"digraph wait_for {
  rankdir=LR;
  node [shape=box, fontname="monospace"];
  edge [fontname="monospace", fontsize=10];
  n0 [label="rank 0\nMPI_Recv at ring.c:12\n(waits for all)", color=red, fontcolor=red, style="bold"];
  n1 [label="rank 1\nMPI_Recv at \"odd\\name\".c:3\n(waits for all)", color=red, fontcolor=red, style="bold"];
  n2 [label="ranks 2-4\nMPI_Waitany at ring.c:20\n(waits for any)", color=gray40, style="rounded"];
  n0 -> n1 [label="message tag 0", color=red, fontcolor=red];
  n1 -> n0 [label="message tag 0", color=red, fontcolor=red];
  n2 -> n0 [label="any of: reply", style=dashed];
}
"#
        );
    }

    #[test]
    fn empty_graph_is_valid_dot() {
        assert_eq!(
            to_dot(&WaitForGraph::default()),
            "digraph wait_for {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n  edge [fontname=\"monospace\", fontsize=10];\n}\n"
        );
    }
}
