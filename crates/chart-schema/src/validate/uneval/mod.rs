//! `unevaluatedProperties` and `unevaluatedItems` (2019-09 on): the properties and items
//! no adjacent keyword and no successful in-place subschema (`$ref`, allOf, anyOf, oneOf,
//! not, if/then/else, dependentSchemas) evaluated.
//!
//! Each schema object applied to a value keeps the set of names (or indexes) still
//! unevaluated, but only when a schema around it applied in place needs them, or when it
//! has an unevaluated* keyword itself: a schema without them computes nothing. A
//! subschema applied in place narrows its caller's set to its own when it succeeds.

#[cfg(test)]
mod tests;

use std::collections::BTreeSet;

use serde_json::Value;

use super::refs::{find_anchor, local_pointer};
use super::report::Failure;
use super::{Keywords, Validator};

/// The properties and items of one value a schema has not evaluated (yet).
#[derive(Default)]
pub(super) struct Uneval {
    props: BTreeSet<String>,
    items: BTreeSet<usize>,
}

impl Uneval {
    /// What `s` leaves unevaluated before it runs: every property unless
    /// `additionalProperties` takes them all; the items past those `items` (and
    /// `prefixItems`) take by position. Nothing when neither the caller nor `s` needs it.
    pub(super) fn of(value: &Value, s: Keywords, draft: u32, caller_needs: bool) -> Uneval {
        let mut own = Uneval::default();
        let wants = |keyword| caller_needs || (draft >= 2019 && s.get(keyword).is_some());
        match value {
            Value::Object(map)
                if s.get("additionalProperties").is_none() && wants("unevaluatedProperties") =>
            {
                own.props = map.keys().cloned().collect();
            }
            Value::Array(items) if wants("unevaluatedItems") => {
                let (all, first) = positional(s, draft);
                if !all && first < items.len() {
                    own.items = (first..items.len()).collect();
                }
            }
            _ => {}
        }
        own
    }

    pub(super) fn is_empty(&self) -> bool {
        self.props.is_empty() && self.items.is_empty()
    }

    /// A subschema applied in place succeeded: what it evaluated is evaluated here too.
    pub(super) fn merge(&mut self, other: &Uneval) {
        self.props.retain(|k| other.props.contains(k));
        self.items.retain(|i| other.items.contains(i));
    }

    pub(super) fn evaluated_prop(&mut self, name: &str) {
        if !self.props.is_empty() {
            self.props.remove(name);
        }
    }

    pub(super) fn evaluated_item(&mut self, index: usize) {
        self.items.remove(&index);
    }
}

/// Whether `items` (or `additionalItems` after a tuple) takes every item, and how many
/// leading items a tuple (`items` as a list before 2020-12, `prefixItems` since) takes.
fn positional(s: Keywords, draft: u32) -> (bool, usize) {
    if draft < 2020 {
        match s.get("items") {
            Some(Value::Array(tuple)) => (s.get("additionalItems").is_some(), tuple.len()),
            Some(_) => (true, 0),
            None => (false, 0),
        }
    } else {
        let prefix = s.get("prefixItems").and_then(Value::as_array);
        (s.get("items").is_some(), prefix.map_or(0, Vec::len))
    }
}

impl<'a> Validator<'a> {
    /// The errors of `unevaluatedProperties` and `unevaluatedItems` of `s`, last of its
    /// keywords: each property or item still in `own` against them, at its own path
    /// (items by their index in the whole list). Afterwards all are evaluated.
    pub(super) fn unevaluated(
        &self,
        value: &Value,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
    ) -> Vec<Failure> {
        let mut errors = Vec::new();
        if self.draft < 2019 {
            return errors;
        }
        match value {
            Value::Object(map) => {
                let Some(sch) = s.get("unevaluatedProperties") else {
                    return errors;
                };
                for (key, item) in map {
                    if own.props.contains(key) {
                        errors.extend(self.check_at(item, sch, path, key));
                    }
                }
                own.props.clear();
            }
            Value::Array(items) => {
                let Some(sch) = s.get("unevaluatedItems") else {
                    return errors;
                };
                for &i in &own.items {
                    if let Some(item) = items.get(i) {
                        errors.extend(self.check_at(item, sch, path, &i.to_string()));
                    }
                }
                own.items.clear();
            }
            _ => {}
        }
        errors
    }

    /// `$recursiveRef` (2019-09) and `$dynamicRef` (2020-12) in a values schema: in one
    /// document the dynamic scope holds that document only, so either lands where a `$ref`
    /// would, a `#name` on the schema with that `$anchor` or `$dynamicAnchor`.
    pub(super) fn check_values_dynamic_refs(
        &self,
        value: &Value,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        for (keyword, since) in [("$recursiveRef", 2019), ("$dynamicRef", 2020)] {
            let Some(Value::String(reference)) = s.get(keyword).filter(|_| self.draft >= since)
            else {
                continue;
            };
            let target = match local_pointer(self.root, reference) {
                Ok(f) if !f.is_empty() && !f.starts_with('/') => find_anchor(self.root, &f),
                _ => self.resolve(reference).map(|(_, t)| t),
            };
            if let Some(target) = target {
                let failure = self.check_in_place(value, target, path, own);
                errors.extend(failure.map(Failure::referenced));
            }
        }
    }
}
