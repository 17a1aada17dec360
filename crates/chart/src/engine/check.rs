//! Go's parser rejects calls to functions that are not defined; gotmpl only finds out
//! when the call runs. This walks a parsed template and reports the first unknown
//! function with its line, as Go (and so Helm) does at parse time.
use gotemplate::FuncMap;
use gotemplate::parse::{Expr, ListNode, Node, PipeNode};

/// Go's builtins plus the control words the parser handles itself.
const BUILTINS: &[&str] = &[
    "and", "or", "not", "len", "index", "slice", "print", "printf", "println", "call", "html",
    "js", "urlquery", "eq", "ne", "lt", "le", "gt", "ge",
];

/// The first undefined function: its line and name.
pub fn undefined_function(tree: &ListNode, funcs: &FuncMap) -> Option<(usize, String)> {
    let known = |name: &str| BUILTINS.contains(&name) || funcs.contains_key(name);
    walk_list(tree, &known)
}

fn walk_list(list: &ListNode, known: &dyn Fn(&str) -> bool) -> Option<(usize, String)> {
    list.nodes.iter().find_map(|node| walk_node(node, known))
}

fn walk_node(node: &Node, known: &dyn Fn(&str) -> bool) -> Option<(usize, String)> {
    match node {
        Node::List(list) => walk_list(list, known),
        Node::Action(action) => walk_pipe(&action.pipe, known),
        Node::If(b) | Node::Range(b) | Node::With(b) => walk_pipe(&b.pipe, known)
            .or_else(|| walk_list(&b.body, known))
            .or_else(|| b.else_body.as_ref().and_then(|e| walk_list(e, known))),
        Node::Template(t) => t.pipe.as_ref().and_then(|p| walk_pipe(p, known)),
        Node::Define(d) => walk_list(&d.body, known),
        _ => None,
    }
}

fn walk_pipe(pipe: &PipeNode, known: &dyn Fn(&str) -> bool) -> Option<(usize, String)> {
    pipe.commands
        .iter()
        .flat_map(|c| c.args.iter())
        .find_map(|e| walk_expr(e, known))
}

fn walk_expr(expr: &Expr, known: &dyn Fn(&str) -> bool) -> Option<(usize, String)> {
    match expr {
        Expr::Identifier(pos, name) if !known(name) => Some((pos.line, name.to_string())),
        Expr::Pipe(_, pipe) => walk_pipe(pipe, known),
        Expr::Chain(_, inner, _) => walk_expr(inner, known),
        _ => None,
    }
}
