//! Function calls: arity and argument checks with Go's rules and positions, the
//! call itself, and the errors Go words for each failure.
use super::{At, Context, MAX_DEPTH, MAX_LIST, MAX_STRING, R, Slot, State};
use crate::ast::{Arg, Command};
use crate::builtins;
use crate::signature::{GoType, Signature};
use crate::value::Value;
use crate::{Error, Func};

/// An evaluated argument of an untyped call: its node (none for a piped-in value), its
/// value and where evaluation stopped, for pointing errors where Go would.
type ArgSlot<'t> = (Option<&'t Arg>, Slot, At<'t>);

impl<'t> State<'_, '_, 't> {
    /// A function's error as Go reports it at the current node.
    pub(super) fn wrap_call_error(&self, name: &str, e: Error) -> Error {
        match e {
            Error::Exec(m) => {
                // A complete text from the function: Go's own wording for a failed
                // call wraps the function's error; its type and arity errors do not.
                let source = m
                    .strip_prefix(&format!("error calling {name}: "))
                    .map(|inner| Box::new(Error::call(inner)));
                Error::Template {
                    message: self.prefix() + &m,
                    source,
                }
            }
            other => Error::Template {
                message: format!("{}error calling {name}: {other}", self.prefix()),
                source: Some(Box::new(other)),
            },
        }
    }

    pub(super) fn eval_function(
        &mut self,
        dot: &Slot,
        node: &'t Arg,
        name: &str,
        cmd: Option<&'t Command>,
        args: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        self.at = At::Arg(node);
        let found = self.set().func(name);
        let explicit = if args.is_empty() { &[][..] } else { &args[1..] };
        let Some((func, signature)) = found else {
            return match builtins::lookup(name) {
                Some(b) => self.eval_builtin(dot, node, b, name, cmd, explicit, fin),
                None => Err(self.error(format!(
                    "{} is not a defined function",
                    crate::fmt::quote(name)
                ))),
            };
        };
        let (values, slots) = match &signature {
            Some(sig) => self.typed_args(dot, name, sig, explicit, fin)?,
            None => self.untyped_args(dot, explicit, fin)?,
        };
        let result = match &func {
            Func::Plain(f) => f(&values),
            Func::Context(f) => {
                let mut ctx = Context { run: self.run };
                f(&mut ctx, &values)
            }
        };
        match result {
            Ok(v) => {
                self.check_size(name, &v, cmd.map_or(At::Arg(node), At::Cmd))?;
                Ok(typed_result(v, signature.and_then(|s| s.result())))
            }
            Err(e) => Err(self.function_error(node, name, cmd, &slots, e)),
        }
    }

    /// Arguments of a function without a signature: evaluated in order, passed as
    /// they are (slice-typed objects as the lists they are).
    fn untyped_args(
        &mut self,
        dot: &Slot,
        explicit: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<(Vec<Value>, Vec<ArgSlot<'t>>)> {
        let mut slots = Vec::with_capacity(explicit.len() + 1);
        for arg in explicit {
            let slot = self.eval_arg(dot, arg)?;
            slots.push((Some(arg), slot, self.at));
        }
        if let Some(f) = fin {
            slots.push((None, f, self.at));
        }
        let values = slots
            .iter()
            .map(|(_, s, _)| match &s.v {
                Value::Object(o) => o.as_list().map_or_else(|| s.v.clone(), Value::List),
                v => v.clone(),
            })
            .collect();
        Ok((values, slots))
    }

    /// Arguments of a function with a Go signature, as Go's evalCall builds them: the
    /// count first, then each argument checked against its parameter as soon as it is
    /// evaluated (so an error points at the last node evaluation touched), then the
    /// piped-in value.
    pub(super) fn typed_args(
        &mut self,
        dot: &Slot,
        name: &str,
        sig: &Signature,
        explicit: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<(Vec<Value>, Vec<ArgSlot<'t>>)> {
        let num_in = explicit.len() + usize::from(fin.is_some());
        if sig.is_variadic() {
            let fixed = sig.num_in() - 1;
            if num_in < fixed {
                // Go counts only the explicit arguments in this message.
                return Err(self.error(format!(
                    "wrong number of args for {name}: want at least {fixed} got {}",
                    explicit.len()
                )));
            }
        } else if num_in != sig.num_in() {
            return Err(self.error(format!(
                "wrong number of args for {name}: want {} got {num_in}",
                sig.num_in()
            )));
        }
        let param = |i: usize| sig.param(i).unwrap_or(&GoType::Any);
        let mut values = Vec::with_capacity(num_in);
        for (i, arg) in explicit.iter().enumerate() {
            values.push(self.typed_arg(dot, arg, param(i))?);
        }
        if let Some(f) = fin {
            values.push(self.validate_type(f, param(explicit.len()))?);
        }
        Ok((values, Vec::new()))
    }

    /// Go's evalArg: a constant is checked against the parameter's kind as written;
    /// anything else is evaluated, then checked.
    fn typed_arg(&mut self, dot: &Slot, arg: &'t Arg, ty: &GoType) -> R<Value> {
        self.at = At::Arg(arg);
        let constant = match (arg, ty) {
            (_, GoType::Any) => return self.eval_arg(dot, arg).map(|slot| slot.v),
            (Arg::Nil(_), ty) if ty.can_be_nil() => Some(Value::Nil),
            (Arg::Bool(_, b), GoType::Bool) => Some(Value::Bool(*b)),
            (Arg::String(_, _, text), GoType::String) => Some(Value::String(text.clone())),
            (Arg::Number(n), GoType::Int) => n.int.map(Value::Int),
            (Arg::Number(n), GoType::Int64) => n.int.map(Value::Int64),
            // reflect's SetUint keeps the low bits of a constant too big for uint32.
            (Arg::Number(n), GoType::Uint32) => n.uint.map(|u| Value::Uint(u & 0xffff_ffff)),
            (Arg::Number(n), GoType::Float64) => n.float.map(Value::Float),
            (Arg::Nil(_) | Arg::Bool(..) | Arg::String(..) | Arg::Number(_), _) => None,
            _ => {
                let slot = self.eval_arg(dot, arg)?;
                return self.validate_type(slot, ty);
            }
        };
        constant.ok_or_else(|| self.error(literal_type_error(arg, ty.name())))
    }

    /// Go's validateType: the value if it is assignable to the parameter's type, or
    /// Go's error naming both types.
    fn validate_type(&mut self, slot: Slot, ty: &GoType) -> R<Value> {
        let expected = ty.name();
        match (slot.v, ty) {
            // Any value is an interface {}; a value of the parameter's own type is itself.
            (v, GoType::Any)
            | (v @ Value::Bool(_), GoType::Bool)
            | (v @ Value::Int(_), GoType::Int)
            | (v @ Value::Int64(_), GoType::Int64)
            | (v @ Value::Float(_), GoType::Float64)
            | (v @ Value::String(_), GoType::String)
            | (v @ Value::List(_), GoType::List) => Ok(v),
            // A nil interface is not unwrapped: its type is interface {}.
            (Value::Nil, _) if slot.iface => Err(self.error(format!(
                "wrong type for value; expected {expected}; got interface {{}}"
            ))),
            (Value::Nil, ty) if ty.can_be_nil() => Ok(Value::Nil),
            (Value::Nil, _) => Err(self.error(format!("invalid value; expected {expected}"))),
            // A named map type (Helm's common.Values) converts to its underlying type;
            // another map type (`map[string]string`) is not assignable.
            (Value::Map(m), GoType::Map) if m.go_type_name().is_none() => Ok(Value::Map(m.plain())),
            // A string holding bytes that are not UTF-8 (a binary file's content) goes
            // through as it is, for functions that read bytes (b64enc, sha256sum); a
            // `[]byte` is not a string to Go.
            (Value::Object(o), GoType::String)
                if o.as_bytes().is_some() && o.type_name() == "string" =>
            {
                Ok(Value::Object(o))
            }
            (Value::Object(o), GoType::Slice(name) | GoType::Named(name))
                if o.type_name() == &**name =>
            {
                Ok(Value::Object(o))
            }
            (v, _) => Err(self.error(format!(
                "wrong type for value; expected {expected}; got {}",
                v.type_name()
            ))),
        }
    }

    /// Bound what a function may build, so that no template can exhaust memory or
    /// nest values deeper than the serializers and drop can walk.
    fn check_size(&mut self, name: &str, v: &Value, at: At<'t>) -> R<()> {
        let problem = match v {
            Value::String(s) if s.len() > MAX_STRING => {
                format!("result of {name} is longer than {} MiB", MAX_STRING >> 20)
            }
            Value::List(l) if l.len() > MAX_LIST => {
                format!("result of {name} has more than {MAX_LIST} elements")
            }
            Value::List(_) | Value::Map(_) if crate::value::depth(v) > MAX_DEPTH => {
                format!("result of {name} nests more than {MAX_DEPTH} levels deep")
            }
            _ => return Ok(()),
        };
        self.at = at;
        Err(self.error(problem))
    }

    /// Point a function's error where Go would: type errors at the offending argument,
    /// arity errors at the function name, failures at the whole command.
    fn function_error(
        &mut self,
        node: &'t Arg,
        name: &str,
        cmd: Option<&'t Command>,
        slots: &[(Option<&'t Arg>, Slot, At<'t>)],
        e: Error,
    ) -> Error {
        if let Error::Exec(m) = &e {
            let type_error = m.starts_with("wrong type for value; expected ")
                || m.starts_with("invalid value; expected ");
            if type_error {
                let got = m.split("; got ").nth(1);
                let expected = m
                    .trim_start_matches("wrong type for value; expected ")
                    .trim_start_matches("invalid value; expected ")
                    .split("; got ")
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let culprit = slots.iter().find(|(_, s, _)| match got {
                    Some(g) => {
                        s.type_name() == g || (g == "interface {}" && matches!(s.v, Value::Nil))
                    }
                    None => matches!(s.v, Value::Nil),
                });
                let mut message = m.clone();
                if let Some((arg, slot, at)) = culprit {
                    self.at = *at;
                    match arg {
                        // A constant is checked against the parameter's kind as written.
                        Some(
                            a @ (Arg::Number(_) | Arg::Bool(..) | Arg::String(..) | Arg::Nil(_)),
                        ) => {
                            self.at = At::Arg(a);
                            message = literal_type_error(a, &expected);
                        }
                        // Go tells a nil interface (a missing value) from no value.
                        _ if got.is_none() && slot.iface => {
                            message = format!(
                                "wrong type for value; expected {expected}; got interface {{}}"
                            );
                        }
                        _ => {}
                    }
                }
                return self.error(message);
            }
            if m.starts_with("wrong number of args") {
                self.at = At::Arg(node);
                return self.error(m);
            }
        }
        self.at = match cmd {
            Some(c) => At::Cmd(c),
            None => At::Arg(node),
        };
        self.wrap_call_error(name, e)
    }

    #[allow(clippy::too_many_arguments)]
    fn eval_builtin(
        &mut self,
        dot: &Slot,
        node: &'t Arg,
        b: builtins::Builtin,
        name: &str,
        cmd: Option<&'t Command>,
        explicit: &'t [Arg],
        fin: Option<Slot>,
    ) -> R<Slot> {
        let count = explicit.len() + usize::from(fin.is_some());
        let (fixed, variadic) = b.arity();
        if variadic {
            if count < fixed {
                return Err(self.error(format!(
                    "wrong number of args for {name}: want at least {fixed} got {}",
                    explicit.len()
                )));
            }
        } else if count != fixed {
            return Err(self.error(format!(
                "wrong number of args for {name}: want {fixed} got {count}"
            )));
        }
        if matches!(b, builtins::Builtin::And | builtins::Builtin::Or) {
            let want = matches!(b, builtins::Builtin::Or);
            let mut last = Slot::concrete(Value::Nil);
            for arg in explicit {
                last = self.eval_arg(dot, arg)?;
                if last.v.is_truthy() == want {
                    return Ok(last);
                }
            }
            if let Some(f) = fin {
                last = f;
            }
            return Ok(last);
        }
        let mut slots = Vec::with_capacity(count);
        let mut rest = explicit;
        if matches!(b, builtins::Builtin::Printf) {
            // printf's format is a Go string parameter, checked before the other
            // arguments are evaluated.
            if let Some((first, others)) = explicit.split_first() {
                slots.push(Slot::concrete(self.typed_arg(
                    dot,
                    first,
                    &GoType::String,
                )?));
                rest = others;
            }
        }
        for arg in rest {
            slots.push(match arg {
                // A reflect.Value parameter takes nil as the zero Value, not as a nil
                // interface.
                Arg::Nil(_) => {
                    self.at = super::At::Arg(arg);
                    Slot::concrete(Value::Nil)
                }
                _ => self.eval_arg(dot, arg)?,
            });
        }
        if let Some(f) = fin {
            if slots.is_empty() && matches!(b, builtins::Builtin::Printf) {
                slots.push(Slot::concrete(self.validate_type(f, &GoType::String)?));
            } else {
                slots.push(f);
            }
        }
        // Go names the callee by its node, or a piped-in callee by reflect.Value's String
        // (a string is itself, anything else `<type Value>`).
        let call_name = match (b, explicit.first(), slots.first()) {
            (builtins::Builtin::Call, Some(first), _) => first.to_string(),
            (builtins::Builtin::Call, None, Some(piped)) => match piped.value() {
                Value::String(s) => s.to_string(),
                other => format!("<{} Value>", other.type_name()),
            },
            _ => String::new(),
        };
        match builtins::call(b, &slots, &call_name) {
            Ok(v) => {
                self.check_size(name, v.value(), cmd.map_or(At::Arg(node), At::Cmd))?;
                Ok(v)
            }
            Err(message) => {
                self.at = match cmd {
                    Some(c) => At::Cmd(c),
                    None => At::Arg(node),
                };
                Err(Error::Template {
                    message: format!("{}error calling {name}: {message}", self.prefix()),
                    source: Some(Box::new(Error::call(message))),
                })
            }
        }
    }
}

/// Go's message when a constant does not fit a typed parameter (evalArg's checks).
fn literal_type_error(arg: &Arg, expected: &str) -> String {
    if let Arg::Nil(_) = arg {
        return format!("cannot assign nil to {expected}");
    }
    let kind = match expected {
        "int" | "int8" | "int16" | "int32" | "int64" => "integer",
        "uint" | "uint8" | "uint16" | "uint32" | "uint64" => "unsigned integer",
        "float32" | "float64" => "float",
        "string" => "string",
        "bool" => "bool",
        other => return format!("can't handle {arg} for arg of type {other}"),
    };
    format!("expected {kind}; found {arg}")
}

/// A result as Go's reflection types it: integers take the declared integer type,
/// slices of a concrete element type keep their type, and a nil of type interface {}
/// stays a nil interface.
fn typed_result(v: Value, ty: Option<&GoType>) -> Slot {
    match (v, ty) {
        (Value::Int(i) | Value::Int64(i), Some(GoType::Int64)) => Slot::concrete(Value::Int64(i)),
        (Value::Int(i) | Value::Int64(i), Some(GoType::Int)) => Slot::concrete(Value::Int(i)),
        (Value::List(items), Some(GoType::Slice(name))) => {
            Slot::concrete(Value::typed_slice(name, items))
        }
        (Value::Nil, Some(GoType::Slice(name))) => Slot::concrete(Value::nil_slice(name)),
        (Value::Nil, Some(GoType::Any)) => Slot::iface(Value::Nil),
        (v, _) => Slot::concrete(v),
    }
}
