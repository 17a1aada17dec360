//! The evaluator: walks a parsed tree over data with Go's rules (truth, fields and
//! methods, variables, pipelines, range/with/if, template calls, break/continue) and
//! Go's error texts and positions.
mod call;

use crate::HashMap;
use std::cell::{Cell, RefCell};
use std::sync::Arc;

use crate::ast::{Arg, Branch, Command, List, Node, Number, Pipe, TemplateCall, Tree, Variable};
use crate::value::{MapRef, Value};
use crate::{Error, MissingKey, Templates};

/// Go's limit on nested template calls.
pub(crate) const MAX_EXEC_DEPTH: usize = 100_000;
/// Range iterations one execution may run in all, far beyond any real chart: a
/// template cannot spin forever.
pub(crate) const MAX_ITERATIONS: u64 = 10_000_000;
/// Output one execution may write.
pub(crate) const MAX_OUTPUT: usize = 256 * 1024 * 1024;
/// Largest string a function may return.
pub(crate) const MAX_STRING: usize = 64 * 1024 * 1024;
/// Most elements a list a function returns may have.
pub(crate) const MAX_LIST: usize = 1024 * 1024;
/// Deepest nesting of maps and lists a function may return. Go's encoding/json starts
/// looking for cycles past this depth; no real chart comes near it.
pub(crate) const MAX_DEPTH: u32 = 1000;

const STACK_RED_ZONE: usize = 256 * 1024;
const STACK_SEGMENT: usize = 4 * 1024 * 1024;

/// What one top-level execution shares across template calls, includes and `tpl`s.
#[derive(Default)]
pub(crate) struct Shared {
    iterations: Cell<u64>,
    depth: Cell<usize>,
    counters: RefCell<HashMap<String, usize>>,
}

/// One execution over one template set.
pub(crate) struct Run<'s> {
    pub(crate) set: &'s Templates,
    shared: &'s Shared,
}

impl<'s> Run<'s> {
    pub(crate) fn new(set: &'s Templates, shared: &'s Shared) -> Self {
        Run { set, shared }
    }
}

/// What a context-aware function (Helm's `include`, `tpl`) can reach: the running
/// template set and its execution budget.
pub struct Context<'r, 's> {
    pub(crate) run: &'r Run<'s>,
}

impl<'s> Context<'_, 's> {
    /// The template set being executed.
    pub fn templates(&self) -> &'s Templates {
        self.run.set
    }

    /// Go's `ExecuteTemplate`: run template `name` with `data` within this execution.
    ///
    /// # Errors
    ///
    /// Go's errors: no template `name` in the set, or what its execution fails with
    /// (a function's error, a type error, the execution's limits).
    pub fn execute_template(&self, name: &str, data: &Value) -> Result<String, Error> {
        execute_in(self.run, name, data)
    }

    /// Run `template` of another template set (one `tpl` built), sharing this
    /// execution's limits and counters.
    ///
    /// # Errors
    ///
    /// What `template`'s execution fails with, as [`Context::execute_template`].
    pub fn execute_in_set(
        &self,
        set: &Templates,
        template: &crate::Template,
        data: &Value,
    ) -> Result<String, Error> {
        let run = Run {
            set,
            shared: self.run.shared,
        };
        execute_tree(&run, &template.0, data)
    }

    /// Add `delta` to the counter `name` shared by this whole execution (Helm counts
    /// nested includes per template name) and return its new value.
    pub fn count(&self, name: &str, delta: isize) -> usize {
        let mut counters = self.run.shared.counters.borrow_mut();
        if let Some(c) = counters.get_mut(name) {
            *c = c.saturating_add_signed(delta);
            return *c;
        }
        let c = 0usize.saturating_add_signed(delta);
        counters.insert(name.to_string(), c);
        c
    }
}

pub(crate) fn execute_in(run: &Run<'_>, name: &str, data: &Value) -> Result<String, Error> {
    let Some(tree) = run.set.tree(name) else {
        return Err(Error::Template {
            message: format!(
                "template: no template {} associated with template {}",
                crate::fmt::quote(name),
                crate::fmt::quote(run.set.name())
            ),
            source: None,
        });
    };
    execute_tree(run, &tree, data)
}

pub(crate) fn execute_tree(run: &Run<'_>, tree: &Arc<Tree>, data: &Value) -> Result<String, Error> {
    let dot = Slot::concrete(data.clone());
    let mut state = State {
        run,
        tree,
        vars: vec![("$".into(), dot.clone())],
        at: At::None,
    };
    let mut out = String::new();
    let depth = run.shared.depth.get();
    if depth >= MAX_EXEC_DEPTH {
        return Err(state.error(format!(
            "exceeded maximum template depth ({MAX_EXEC_DEPTH})"
        )));
    }
    run.shared.depth.set(depth + 1);
    let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
        state.walk_list(&dot, &tree.root, &mut out)
    });
    run.shared.depth.set(depth);
    result.map(|_| out)
}

/// A value with what Go knows of its static type: `iface` when it sits in an
/// `interface{}` slot (a map entry, a list element), where a nil is a nil interface
/// rather than no value at all.
#[derive(Clone)]
pub(crate) struct Slot {
    pub v: Value,
    pub iface: bool,
}

impl Slot {
    fn concrete(v: Value) -> Self {
        Slot { v, iface: false }
    }
    fn iface(v: Value) -> Self {
        Slot { v, iface: true }
    }
    /// Go's type name of the slot, as errors print it.
    fn type_name(&self) -> String {
        if self.iface {
            "interface {}".into()
        } else {
            self.v.type_name()
        }
    }
    /// The value with interface wrapping dropped (Go digs one level down after each
    /// pipeline command).
    fn unwrapped(self) -> Self {
        Slot::concrete(self.v)
    }
}

/// The node an error points at.
#[derive(Clone, Copy)]
enum At<'t> {
    None,
    Node(&'t Node),
    Pipe(&'t Pipe),
    Cmd(&'t Command),
    Arg(&'t Arg),
    Var(&'t Variable),
}

impl At<'_> {
    fn pos(&self) -> usize {
        match self {
            At::None => 0,
            At::Node(n) => match n {
                Node::Text(_) => 0,
                Node::Action(a) => a.pos,
                Node::If(b) | Node::With(b) | Node::Range(b) => b.pos,
                Node::Template(t) => t.pos,
                Node::Break(p) | Node::Continue(p) => *p,
            },
            At::Pipe(p) => p.pos,
            At::Cmd(c) => c.pos,
            At::Arg(a) => a.pos(),
            At::Var(v) => v.pos,
        }
    }

    fn text(&self) -> String {
        match self {
            At::None => String::new(),
            At::Node(n) => n.to_string(),
            At::Pipe(p) => p.to_string(),
            At::Cmd(c) => c.to_string(),
            At::Arg(a) => a.to_string(),
            At::Var(v) => v.to_string(),
        }
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
}

type R<T> = Result<T, Error>;

struct State<'r, 's, 't> {
    run: &'r Run<'s>,
    tree: &'t Tree,
    vars: Vec<(Arc<str>, Slot)>,
    at: At<'t>,
}

impl<'s> State<'_, 's, '_> {
    /// The template set, borrowed for the whole execution (not just from `self`).
    fn set(&self) -> &'s Templates {
        self.run.set
    }
}

impl<'t> State<'_, '_, 't> {
    /// Go's state.errorf: the message with the template, position and node.
    fn error(&self, message: impl std::fmt::Display) -> Error {
        Error::Template {
            message: self.prefix() + &message.to_string(),
            source: None,
        }
    }

    fn prefix(&self) -> String {
        let name = crate::fmt::quote(&self.tree.name);
        if let At::None = self.at {
            return format!("template: {}: ", self.tree.name);
        }
        let location = self.tree.location(self.at.pos());
        let context = self.at.text();
        format!("template: {location}: executing {name} at <{context}>: ")
    }

    fn write(&self, out: &mut String, text: &str) -> R<()> {
        if out.len() + text.len() > MAX_OUTPUT {
            return Err(self.error(format!(
                "template output exceeds {} MiB",
                MAX_OUTPUT / (1024 * 1024)
            )));
        }
        out.push_str(text);
        Ok(())
    }

    fn walk_list(&mut self, dot: &Slot, list: &'t List, out: &mut String) -> R<Flow> {
        for node in &list.nodes {
            match self.walk(dot, node, out)? {
                Flow::Normal => {}
                flow => return Ok(flow),
            }
        }
        Ok(Flow::Normal)
    }

    fn walk(&mut self, dot: &Slot, node: &'t Node, out: &mut String) -> R<Flow> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.walk_inner(dot, node, out)
        })
    }

    fn walk_inner(&mut self, dot: &Slot, node: &'t Node, out: &mut String) -> R<Flow> {
        self.at = At::Node(node);
        match node {
            Node::Text(t) => self.write(out, t)?,
            Node::Action(a) => {
                let v = self.eval_pipeline(dot, &a.pipe)?;
                if a.pipe.decl.is_empty() {
                    self.at = At::Node(node);
                    let text = self.printable(&v)?;
                    self.write(out, &text)?;
                }
            }
            Node::If(b) => return self.walk_if_or_with(false, dot, b, out),
            Node::With(b) => return self.walk_if_or_with(true, dot, b, out),
            Node::Range(b) => return self.walk_range(dot, node, b, out),
            Node::Template(t) => self.walk_template(dot, node, t, out)?,
            Node::Break(_) => return Ok(Flow::Break),
            Node::Continue(_) => return Ok(Flow::Continue),
        }
        Ok(Flow::Normal)
    }

    fn printable(&self, v: &Slot) -> R<String> {
        match &v.v {
            Value::Nil => Ok("<no value>".into()),
            Value::Function(_) => Err(self.error(format!(
                "can't print {} of type {}",
                self.at.text(),
                v.v.type_name()
            ))),
            // text/template prints what a pointer points to, and finds String methods
            // declared on the pointer.
            Value::Object(o) if o.pointer_to_struct() => Ok(o.go_string()),
            Value::Object(o) if o.as_list().is_none() && !o.is_nil() => Ok(o.template_string()),
            other => {
                let text = crate::fmt::sprint_value(other);
                if text.len() > MAX_STRING {
                    return Err(self.error(format!(
                        "value printed is longer than {} MiB",
                        MAX_STRING >> 20
                    )));
                }
                Ok(text)
            }
        }
    }

    fn walk_if_or_with(
        &mut self,
        with: bool,
        dot: &Slot,
        b: &'t Branch,
        out: &mut String,
    ) -> R<Flow> {
        let mark = self.vars.len();
        let val = self.eval_pipeline(dot, &b.pipe)?;
        let flow = if val.v.is_truthy() {
            if with {
                self.walk_list(&val, &b.list, out)?
            } else {
                self.walk_list(dot, &b.list, out)?
            }
        } else if let Some(else_list) = &b.else_list {
            self.walk_list(dot, else_list, out)?
        } else {
            Flow::Normal
        };
        self.vars.truncate(mark);
        Ok(flow)
    }

    fn count_iteration(&self) -> R<()> {
        let n = self.run.shared.iterations.get() + 1;
        if n > MAX_ITERATIONS {
            return Err(self.error(format!("range runs more than {MAX_ITERATIONS} iterations")));
        }
        self.run.shared.iterations.set(n);
        Ok(())
    }

    fn walk_range(
        &mut self,
        dot: &Slot,
        node: &'t Node,
        r: &'t Branch,
        out: &mut String,
    ) -> R<Flow> {
        self.at = At::Node(node);
        let outer_mark = self.vars.len();
        let val = self.eval_pipeline(dot, &r.pipe)?;
        let mark = self.vars.len();
        let mut ran = false;
        macro_rules! iterate {
            ($index:expr, $elem:expr) => {{
                self.count_iteration()?;
                ran = true;
                self.set_range_vars(r, $index, $elem.clone())?;
                let flow = self.walk_list(&$elem, &r.list, out)?;
                self.vars.truncate(mark);
                if let Flow::Break = flow {
                    break;
                }
            }};
        }
        match &val.v {
            Value::List(items) => {
                for (i, item) in items.iter().enumerate() {
                    iterate!(Slot::concrete(Value::from(i)), Slot::iface(item.clone()));
                }
            }
            Value::Object(o) if o.as_list().is_some() => {
                let items = o.as_list().unwrap_or_default();
                for (i, item) in items.iter().enumerate() {
                    iterate!(Slot::concrete(Value::from(i)), Slot::concrete(item.clone()));
                }
            }
            Value::Map(m) => {
                let entries = m.snapshot();
                for (k, v) in entries.iter() {
                    iterate!(
                        Slot::concrete(Value::String(k.clone())),
                        Slot::iface(v.clone())
                    );
                }
            }
            Value::Int(_) | Value::Int64(_) | Value::Uint(_) => {
                if r.pipe.decl.len() > 1 {
                    return Err(self.error(format!(
                        "can't use {} to iterate over more than one variable",
                        crate::fmt::sprint_value(&val.v)
                    )));
                }
                let n = match val.v {
                    Value::Int(i) | Value::Int64(i) => i.max(0).cast_unsigned(),
                    Value::Uint(u) => u,
                    _ => 0,
                };
                for i in 0..n {
                    // The loop variable has the type of the range value.
                    let v = Slot::concrete(match val.v {
                        Value::Uint(_) => Value::Uint(i),
                        Value::Int64(_) => Value::Int64(i.cast_signed()),
                        _ => Value::Int(i.cast_signed()),
                    });
                    iterate!(v.clone(), v);
                }
            }
            Value::Nil => {}
            other => {
                // Go reports it at the last node the pipeline evaluated.
                return Err(self.error(format!(
                    "range can't iterate over {}",
                    crate::fmt::sprint_value(other)
                )));
            }
        }
        if !ran && let Some(else_list) = &r.else_list {
            let flow = self.walk_list(dot, else_list, out)?;
            self.vars.truncate(outer_mark);
            return Ok(flow);
        }
        self.vars.truncate(outer_mark);
        Ok(Flow::Normal)
    }

    fn set_range_vars(&mut self, r: &Branch, index: Slot, elem: Slot) -> R<()> {
        let decl = &r.pipe.decl;
        if decl.is_empty() {
            return Ok(());
        }
        if r.pipe.is_assign {
            if decl.len() > 1 {
                self.set_var(&decl[0].ident[0], index)?;
                self.set_var(&decl[1].ident[0], elem)?;
            } else {
                self.set_var(&decl[0].ident[0], elem)?;
            }
        } else {
            let n = self.vars.len();
            self.vars[n - 1].1 = elem;
            if decl.len() > 1 {
                self.vars[n - 2].1 = index;
            }
        }
        Ok(())
    }

    fn walk_template(
        &mut self,
        dot: &Slot,
        node: &'t Node,
        t: &'t TemplateCall,
        out: &mut String,
    ) -> R<()> {
        self.at = At::Node(node);
        let Some(tree) = self.set().tree(&t.name) else {
            return Err(self.error(format!(
                "template {} not defined",
                crate::fmt::quote(&t.name)
            )));
        };
        let depth = self.run.shared.depth.get();
        if depth >= MAX_EXEC_DEPTH {
            return Err(self.error(format!(
                "exceeded maximum template depth ({MAX_EXEC_DEPTH})"
            )));
        }
        let new_dot = match &t.pipe {
            Some(p) => self.eval_pipeline(dot, p)?,
            None => Slot::concrete(Value::Nil),
        };
        self.run.shared.depth.set(depth + 1);
        let tree: &Tree = &tree;
        // The called tree lives in the set, which outlives this walk; a fresh state
        // borrows it only for the call.
        let result = stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            let mut inner = State {
                run: self.run,
                tree,
                vars: vec![("$".into(), new_dot.clone())],
                at: At::None,
            };
            inner.walk_list(&new_dot, &tree.root, out).map(|_| ())
        });
        self.run.shared.depth.set(depth);
        result
    }

    fn set_var(&mut self, name: &str, value: Slot) -> R<()> {
        match self.vars.iter_mut().rev().find(|(n, _)| &**n == name) {
            Some(slot) => {
                slot.1 = value;
                Ok(())
            }
            None => Err(self.error(format!("undefined variable: {name}"))),
        }
    }

    fn var_value(&self, name: &str) -> R<Slot> {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| &**n == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| self.error(format!("undefined variable: {name}")))
    }

    fn eval_pipeline(&mut self, dot: &Slot, pipe: &'t Pipe) -> R<Slot> {
        stacker::maybe_grow(STACK_RED_ZONE, STACK_SEGMENT, || {
            self.eval_pipeline_inner(dot, pipe)
        })
    }

    fn eval_pipeline_inner(&mut self, dot: &Slot, pipe: &'t Pipe) -> R<Slot> {
        self.at = At::Pipe(pipe);
        let mut value: Option<Slot> = None;
        for cmd in &pipe.cmds {
            value = Some(self.eval_command(dot, cmd, value)?.unwrapped());
        }
        let value = value.unwrap_or_else(|| Slot::concrete(Value::Nil));
        for v in &pipe.decl {
            if pipe.is_assign {
                self.set_var(&v.ident[0], value.clone())?;
            } else {
                self.vars
                    .push((Arc::from(v.ident[0].as_str()), value.clone()));
            }
        }
        Ok(value)
    }

    fn not_a_function(&self, args: &[Arg], fin: Option<&Slot>) -> R<()> {
        if args.len() > 1 || fin.is_some() {
            return Err(self.error(format!("can't give argument to non-function {}", args[0])));
        }
        Ok(())
    }

    fn eval_command(&mut self, dot: &Slot, cmd: &'t Command, fin: Option<Slot>) -> R<Slot> {
        let first = &cmd.args[0];
        match first {
            Arg::Field(_, idents) => {
                self.at = At::Arg(first);
                return self.eval_field_chain(dot, dot.clone(), first, idents, &cmd.args, fin);
            }
            Arg::Chain(..) => return self.eval_chain(dot, first, &cmd.args, fin),
            Arg::Identifier(_, name) => {
                return self.eval_function(dot, first, name, Some(cmd), &cmd.args, fin);
            }
            Arg::Pipe(p) => {
                self.not_a_function(&cmd.args, fin.as_ref())?;
                return self.eval_pipeline(dot, p);
            }
            Arg::Variable(v) => return self.eval_variable(dot, v, &cmd.args, fin),
            _ => {}
        }
        self.at = At::Arg(first);
        self.not_a_function(&cmd.args, fin.as_ref())?;
        match first {
            Arg::Bool(_, b) => Ok(Slot::concrete(Value::Bool(*b))),
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Err(self.error("nil is not a command")),
            Arg::Number(n) => self.ideal_constant(first, n),
            Arg::String(_, _, s) => Ok(Slot::concrete(Value::String(s.clone()))),
            _ => Err(self.error(format!(
                "can't evaluate command {}",
                crate::fmt::quote(&first.to_string())
            ))),
        }
    }

    fn ideal_constant(&mut self, node: &'t Arg, n: &Number) -> R<Slot> {
        self.at = At::Arg(node);
        let text = n.text.as_str();
        if let Some((re, im)) = n.complex {
            return Ok(Slot::concrete(Value::Complex(re, im)));
        }
        let hex_int = text.len() > 2
            && text.starts_with('0')
            && matches!(text.as_bytes()[1], b'x' | b'X')
            && !text.contains(['p', 'P']);
        let rune = text.starts_with('\'');
        if let Some(f) = n.float
            && !hex_int
            && !rune
            && text.contains(['.', 'e', 'E', 'p', 'P'])
        {
            return Ok(Slot::concrete(Value::Float(f)));
        }
        if let Some(i) = n.int {
            return Ok(Slot::concrete(Value::Int(i)));
        }
        if n.uint.is_some() {
            return Err(self.error(format!("{text} overflows int")));
        }
        Ok(Slot::concrete(Value::Nil))
    }

    fn eval_chain(
        &mut self,
        dot: &Slot,
        chain: &'t Arg,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = At::Arg(chain);
        let Arg::Chain(_, node, fields) = chain else {
            return Err(self.error("internal error: not a chain"));
        };
        if let Arg::Nil(_) = node.as_ref() {
            return Err(self.error(format!("indirection through explicit nil in {chain}")));
        }
        let receiver = self.eval_arg(dot, node)?;
        self.eval_field_chain(dot, receiver, chain, fields, args, fin)
    }

    fn eval_variable(
        &mut self,
        dot: &Slot,
        v: &'t Variable,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = At::Var(v);
        let value = self.var_value(&v.ident[0])?;
        if v.ident.len() == 1 {
            self.not_a_function(args, fin.as_ref())?;
            return Ok(value);
        }
        let node = &args[0];
        self.eval_field_chain_at(dot, value, At::Var(v), node, &v.ident[1..], args, fin)
    }

    fn eval_field_chain(
        &mut self,
        dot: &Slot,
        receiver: Slot,
        node: &'t Arg,
        idents: &'t [String],
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.eval_field_chain_at(dot, receiver, At::Arg(node), node, idents, args, fin)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_field_chain_at(
        &mut self,
        dot: &Slot,
        mut receiver: Slot,
        at: At<'t>,
        _node: &'t Arg,
        idents: &'t [String],
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        let n = idents.len();
        for ident in &idents[..n - 1] {
            receiver = self.eval_field(dot, ident, at, &[], None, &receiver)?;
        }
        self.eval_field(dot, &idents[n - 1], at, args, fin, &receiver)
    }

    fn eval_field(
        &mut self,
        dot: &Slot,
        name: &str,
        at: At<'t>,
        args: &'t [Arg],
        fin: Option<Slot>,
        receiver: &Slot,
    ) -> R<Slot> {
        // Errors here point where evaluation is (Go's evalField does not move it): the
        // field node, or in a chain (`(x).a`) the last node the receiver touched.
        if matches!(receiver.v, Value::Nil) && !receiver.iface {
            if self.set().missing_key == MissingKey::Error {
                return Err(self.error(format!(
                    "nil data; no entry for key {}",
                    crate::fmt::quote(name)
                )));
            }
            return Ok(Slot::concrete(Value::Nil));
        }
        // Go's type name, for errors only (it is built as a string).
        let typ = || receiver.type_name();
        let has_args = args.len() > 1 || fin.is_some();
        match &receiver.v {
            Value::Nil => Err(self.error(format!("nil pointer evaluating {}.{name}", typ()))),
            Value::Map(m) => {
                // Only exported (capitalised) names can be methods in Go.
                if m.is_named()
                    && name.starts_with(|c: char| c.is_ascii_uppercase())
                    && let Some(result) = self.call_method_if_any(
                        dot,
                        name,
                        at,
                        args,
                        fin.clone(),
                        m.method_signature(name),
                        |n, a| m.call_method(n, a),
                    )?
                {
                    return Ok(result);
                }
                if has_args {
                    return Err(self.error(format!("{name} is not a method but has arguments")));
                }
                match m.get(name) {
                    Some(v) => Ok(Slot::iface(v)),
                    None => match self.set().missing_key {
                        MissingKey::Error => Err(self.error(format!(
                            "map has no entry for key {}",
                            crate::fmt::quote(name)
                        ))),
                        MissingKey::Zero => Ok(Slot::iface(Value::Nil)),
                        MissingKey::Invalid => Ok(Slot::concrete(Value::Nil)),
                    },
                }
            }
            Value::Object(o) => {
                let o = o.clone();
                if o.has_method(name) {
                    let signature = o.method_signature(name);
                    let result =
                        self.call_method_if_any(dot, name, at, args, fin, signature, |n, a| {
                            o.call_method(n, a)
                        })?;
                    if let Some(r) = result {
                        return Ok(r);
                    }
                }
                if o.is_nil() {
                    return Err(
                        self.error(format!("nil pointer evaluating {}.{name}", o.type_name()))
                    );
                }
                match o.field_result(name) {
                    Some(Err(e)) => Err(self.error(e)),
                    Some(Ok(v)) => {
                        if has_args {
                            return Err(self.error(format!(
                                "{name} has arguments but cannot be invoked as function"
                            )));
                        }
                        Ok(Slot::concrete(v))
                    }
                    None => {
                        Err(self.error(format!("can't evaluate field {name} in type {}", typ())))
                    }
                }
            }
            _ => Err(self.error(format!("can't evaluate field {name} in type {}", typ()))),
        }
    }

    /// Call method `name` through `call` with the command's arguments, if the receiver
    /// has it.
    #[allow(clippy::too_many_arguments)] // Go's evalCall takes as many
    fn call_method_if_any(
        &mut self,
        dot: &Slot,
        name: &str,
        at: At<'t>,
        args: &'t [Arg],
        fin: Option<Slot>,
        signature: Option<&str>,
        call: impl Fn(&str, &[Value]) -> Option<R<Value>>,
    ) -> R<Option<Slot>> {
        let explicit = args.get(1..).unwrap_or_default();
        let before = self.at;
        let values = if let Some(text) = signature {
            let sig = crate::Signature::parse(text).map_err(|e| self.error(e))?;
            self.typed_args(dot, name, &sig, explicit, fin)?.0
        } else {
            let mut values = Vec::new();
            for arg in explicit {
                values.push(self.eval_arg(dot, arg)?.v);
            }
            values.extend(fin.map(|f| f.v));
            values
        };
        // A call that succeeds leaves the position at its last argument, as in Go.
        match call(name, &values) {
            // No such method: Go never looked at the arguments.
            None => {
                self.at = before;
                Ok(None)
            }
            Some(Ok(v)) => Ok(Some(Slot::concrete(v))),
            Some(Err(e)) => {
                self.at = at;
                Err(self.wrap_call_error(name, e))
            }
        }
    }

    fn eval_arg(&mut self, dot: &Slot, arg: &'t Arg) -> R<Slot> {
        self.at = At::Arg(arg);
        match arg {
            Arg::Dot(_) => Ok(dot.clone()),
            Arg::Nil(_) => Ok(Slot::iface(Value::Nil)),
            Arg::Field(_, idents) => self.eval_field_chain(
                dot,
                dot.clone(),
                arg,
                idents,
                std::slice::from_ref(arg),
                None,
            ),
            Arg::Variable(v) => self.eval_variable(dot, v, std::slice::from_ref(arg), None),
            Arg::Pipe(p) => self.eval_pipeline(dot, p),
            Arg::Identifier(_, name) => self.eval_function(dot, arg, name, None, &[], None),
            Arg::Chain(..) => self.eval_chain(dot, arg, &[], None),
            Arg::Bool(_, b) => Ok(Slot::concrete(Value::Bool(*b))),
            Arg::Number(n) => self.ideal_constant(arg, n),
            Arg::String(_, _, s) => Ok(Slot::concrete(Value::String(s.clone()))),
        }
    }
}

/// Helpers the builtins need from a slot.
impl Slot {
    pub(crate) fn value(&self) -> &Value {
        &self.v
    }
    pub(crate) fn is_iface(&self) -> bool {
        self.iface
    }
    pub(crate) fn new(v: Value) -> Self {
        Slot::concrete(v)
    }
    pub(crate) fn in_iface(v: Value) -> Self {
        Slot::iface(v)
    }
}

#[allow(dead_code)]
fn _assert_map_send(m: MapRef) -> impl Send {
    m
}
