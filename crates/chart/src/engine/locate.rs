//! Where an execution error happened. gotmpl's errors carry no position, so the failing
//! action is found by executing growing prefixes of the template (only on the error
//! path), descending into if/with/range bodies, and mapped back to the original source.
use gotemplate::parse::{ListNode, Node, Pos};
use gotemplate::{Template, Value};

use super::rewrite::ActionMap;

const PROBE: &str = "\u{0}probe";
const MAX_DEPTH: usize = 8;

/// Line (1-based), column (0-based, as Go reports it) and the action's text in the
/// original source of template `name`, for the action where execution fails.
pub fn error_location(
    set: &Template,
    name: &str,
    data: &Value,
    original: &str,
    map: &ActionMap,
    hint: Option<&str>,
) -> Option<(usize, usize, String)> {
    let tree = set.lookup(name)?;
    let pos = search(set, data, &tree.nodes, &|nodes| nodes, 0)?;
    let (action_offset, action) = map.original_action(original, pos.offset)?;
    let inner = action.trim_start_matches("{{").trim_end_matches("}}");
    let inner = inner.strip_prefix('-').unwrap_or(inner).trim();
    let inner = inner.strip_suffix('-').unwrap_or(inner).trim();
    // Go points at the failing call: the named function when we know it, else the first token.
    let within = hint
        .and_then(|h| find_word(action, h))
        .or_else(|| action.find(inner))
        .unwrap_or(0);
    let offset = action_offset + within;
    let line_start = original[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = 1 + original[..offset].matches('\n').count();
    Some((line, offset - line_start, inner.to_string()))
}

fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        !text[..i].chars().next_back().is_some_and(is_ident)
            && !text[i + word.len()..].chars().next().is_some_and(is_ident)
    })
}

fn fails(set: &Template, data: &Value, nodes: Vec<Node>) -> bool {
    let probe = set.clone().add_parse_tree(
        PROBE,
        ListNode {
            pos: Pos::new(0, 1),
            nodes,
        },
    );
    // Templates change maps in place (Go semantics): each probe starts from its own copy
    // so that one probe's `set` cannot change the outcome of the next.
    probe
        .execute_template_to_string(PROBE, &crate::sprig::deep_copy(data))
        .is_err()
}

/// The position of the innermost node whose execution first fails; `build` turns a list
/// of nodes at this level into the full top-level list.
fn search(
    set: &Template,
    data: &Value,
    nodes: &[Node],
    build: &dyn Fn(Vec<Node>) -> Vec<Node>,
    depth: usize,
) -> Option<Pos> {
    if !fails(set, data, build(nodes.to_vec())) {
        return None;
    }
    let (mut lo, mut hi) = (1, nodes.len());
    while lo < hi {
        let mid = (lo + hi) / 2;
        if fails(set, data, build(nodes[..mid].to_vec())) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let before = nodes[..lo - 1].to_vec();
    let node = &nodes[lo - 1];
    match node {
        Node::If(b) | Node::With(b) | Node::Range(b) if depth < MAX_DEPTH => {
            let rebuild = |body: Option<Vec<Node>>, else_body: Option<Vec<Node>>| {
                let mut copy = b.clone();
                if let Some(nodes) = body {
                    copy.body.nodes = nodes;
                }
                if let Some(nodes) = else_body
                    && let Some(e) = copy.else_body.as_mut()
                {
                    e.nodes = nodes;
                }
                let wrapped = match node {
                    Node::If(_) => Node::If(copy),
                    Node::With(_) => Node::With(copy),
                    _ => Node::Range(copy),
                };
                let mut list = before.clone();
                list.push(wrapped);
                build(list)
            };
            let in_body = search(
                set,
                data,
                &b.body.nodes,
                &|inner| rebuild(Some(inner), None),
                depth + 1,
            );
            let in_else = || {
                b.else_body.as_ref().and_then(|e| {
                    search(
                        set,
                        data,
                        &e.nodes,
                        &|inner| rebuild(None, Some(inner)),
                        depth + 1,
                    )
                })
            };
            Some(in_body.or_else(in_else).unwrap_or(b.pipe.pos))
        }
        Node::Action(a) => Some(a.pipe.pos),
        Node::If(b) | Node::With(b) | Node::Range(b) => Some(b.pos),
        Node::Template(t) => Some(t.pos),
        Node::List(l) => Some(l.pos),
        Node::Text(t) => Some(t.pos),
        Node::Define(d) => Some(d.pos),
        Node::Break(p) | Node::Continue(p) => Some(*p),
    }
}
