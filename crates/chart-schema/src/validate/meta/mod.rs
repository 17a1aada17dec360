//! The check Helm's validator makes of a values.schema.json itself before it validates
//! anything: the schema, as an instance, against its draft's metaschema. This validator
//! does it: the metaschema is the schema, `$ref`s may name the other documents of a
//! metaschema, `$dynamicRef` (2020-12) and `$recursiveRef` (2019-09) land on the
//! metaschema the check started from, and `format` is asserted (so a `pattern` must be
//! a regular expression Go accepts).

#[cfg(test)]
mod tests;

use serde_json::Value;

use super::metaschemas::{self, Draft};
use super::refs::SCHEMA_URL;
use super::refs::unresolvable_reference;
use super::report::Failure;
use super::resources;
use super::{Keywords, Uneval, Validator};

/// Helm's check of a values.schema.json itself, before it validates anything.
///
/// # Errors
///
/// Helm's message when `schema` is not a valid schema of its draft, or names a
/// metaschema Helm would have to fetch.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    let draft = metaschemas::draft_of(schema)
        .map_err(|url| format!("failing loading \"{url}\": remote schemas are not fetched"))?;
    if let Some(problem) = resources::unparsable_id(schema, draft.number) {
        return Err(problem);
    }
    if let Some(failure) = against_metaschema(schema, draft) {
        return Err(refusal("", draft, failure));
    }
    // What Helm's validator finds while compiling the schemas the root reaches.
    let reached = resources::reachable(schema, draft.number);
    for (part, at) in resources::outside_subschemas(schema, draft.number, &reached) {
        if let Some(failure) = against_metaschema(part, draft) {
            return Err(refusal(&resources::path_escaped(at), draft, failure));
        }
    }
    if let Some(problem) = resources::bad_pattern_property(&reached) {
        return Err(problem);
    }
    // It loads every document a reachable `$ref` names and finds the place it points at.
    unresolvable_reference(schema, &reached).map_or(Ok(()), Err)
}

/// Helm's message for a schema (the part of the file at `pointer`) that its draft's
/// metaschema refuses.
fn refusal(pointer: &str, draft: Draft, failure: Failure) -> String {
    let causes = if failure.group {
        failure.causes
    } else {
        vec![failure]
    };
    let mut out = format!(
        "\"{SCHEMA_URL}#{pointer}\" is not valid against metaschema: \
         jsonschema validation failed with '{}#'",
        draft.url
    );
    for cause in causes {
        out.push_str("\n- ");
        out.push_str(&cause.render());
    }
    out
}

fn against_metaschema(schema: &Value, draft: Draft) -> Option<Failure> {
    let meta = draft.metaschema();
    let v = Validator {
        root: meta,
        structural: false,
        draft: draft.number,
        checking_schema: true,
        dynamic_root: Some(meta),
        depth: 0,
    };
    v.check(schema, meta, &mut Vec::new())
}

impl<'a> Validator<'a> {
    /// `$recursiveRef` and `$dynamicRef`, which only the metaschemas use here. Either
    /// lands on the metaschema the check started from (the outermost schema of the
    /// dynamic scope) when the schema it names carries the matching anchor
    /// (`$recursiveAnchor: true`, or the `$dynamicAnchor` its fragment names), and on
    /// that schema otherwise, like a `$ref`.
    pub(super) fn check_dynamic_refs(
        &self,
        value: &Value,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        let Some(outermost) = self.dynamic_root else {
            return self.check_values_dynamic_refs(value, s, path, own, errors);
        };
        for keyword in ["$recursiveRef", "$dynamicRef"] {
            let Some(Value::String(reference)) = s.get(keyword) else {
                continue;
            };
            let fragment = reference.split_once('#').map_or("", |(_, f)| f);
            let target =
                if keyword == "$dynamicRef" && !fragment.is_empty() && !fragment.starts_with('/') {
                    // An anchor: the metaschemas name only the one their roots carry.
                    (outermost.get("$dynamicAnchor").and_then(Value::as_str) == Some(fragment))
                        .then(|| (self.in_document(outermost), outermost))
                } else {
                    self.resolve(reference).map(|(v, t)| {
                        if keyword == "$recursiveRef"
                            && t.get("$recursiveAnchor") == Some(&Value::Bool(true))
                        {
                            (self.in_document(outermost), outermost)
                        } else {
                            (v, t)
                        }
                    })
                };
            if let Some((v, target)) = target {
                let failure = v.check_in_place(value, target, path, own);
                errors.extend(failure.map(Failure::referenced));
            }
        }
    }
}
