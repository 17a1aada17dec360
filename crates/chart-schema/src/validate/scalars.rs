//! String and number keywords, and the combinators (not, allOf, anyOf, oneOf, if).

use serde_json::Value;

use super::report::{Failure, is_multiple, number, quote, regex};
use super::{Keywords, Uneval, Validator};

impl<'a> Validator<'a> {
    pub(super) fn check_string(
        text: &str,
        s: Keywords<'a>,
        path: &[String],
        errors: &mut Vec<Failure>,
    ) {
        let len = text.chars().count();
        Self::bounds(path, ["minLength", "maxLength"], len, s, errors);
        if let Some(pattern) = s.get("pattern").and_then(Value::as_str)
            && let Some(re) = regex(pattern)
            && !re.is_match(text)
        {
            errors.push(Failure::new(
                path,
                format!("{} does not match pattern {}", quote(text), quote(pattern)),
            ));
        }
    }

    pub(super) fn check_number(
        value: &Value,
        s: Keywords<'a>,
        path: &[String],
        errors: &mut Vec<Failure>,
    ) {
        let Some(n) = value.as_f64() else { return };
        let got = number(value);
        // Draft 4 spells exclusive bounds as booleans beside minimum and maximum.
        let exclusive = |key: &str| s.get(key) == Some(&Value::Bool(true));
        if let Some(min) = s.get("minimum").filter(|m| m.is_number()) {
            let m = min.as_f64().unwrap_or(f64::NAN);
            if exclusive("exclusiveMinimum") && n <= m {
                errors.push(Failure::new(
                    path,
                    format!("exclusiveMinimum: got {got}, want {}", number(min)),
                ));
            } else if n < m {
                errors.push(Failure::new(
                    path,
                    format!("minimum: got {got}, want {}", number(min)),
                ));
            }
        }
        if let Some(max) = s.get("maximum").filter(|m| m.is_number()) {
            let m = max.as_f64().unwrap_or(f64::NAN);
            if exclusive("exclusiveMaximum") && n >= m {
                errors.push(Failure::new(
                    path,
                    format!("exclusiveMaximum: got {got}, want {}", number(max)),
                ));
            } else if n > m {
                errors.push(Failure::new(
                    path,
                    format!("maximum: got {got}, want {}", number(max)),
                ));
            }
        }
        if let Some(min) = s.get("exclusiveMinimum").filter(|m| m.is_number())
            && n <= min.as_f64().unwrap_or(f64::NAN)
        {
            errors.push(Failure::new(
                path,
                format!("exclusiveMinimum: got {got}, want {}", number(min)),
            ));
        }
        if let Some(max) = s.get("exclusiveMaximum").filter(|m| m.is_number())
            && n >= max.as_f64().unwrap_or(f64::NAN)
        {
            errors.push(Failure::new(
                path,
                format!("exclusiveMaximum: got {got}, want {}", number(max)),
            ));
        }
        if let Some(m) = s.get("multipleOf").filter(|m| m.is_number())
            && !is_multiple(value, m)
        {
            errors.push(Failure::new(
                path,
                format!("multipleOf: got {got}, want {}", number(m)),
            ));
        }
    }

    pub(super) fn check_combinators(
        &self,
        value: &Value,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        if let Some(not) = s.get("not")
            && self.check_in_place(value, not, path, own).is_none()
        {
            errors.push(Failure::new(path, "'not' failed"));
        }
        if let Some(Value::Array(all)) = s.get("allOf") {
            let failures: Vec<Failure> = all
                .iter()
                .filter_map(|sub| self.check_in_place(value, sub, path, own))
                .collect();
            if !failures.is_empty() {
                errors.push(Failure::new(path, "'allOf' failed").with_causes(failures));
            }
        }
        if let Some(Value::Array(any)) = s.get("anyOf") {
            let mut failures = Vec::new();
            let mut matched = false;
            for sub in any {
                match self.check_in_place(value, sub, path, own) {
                    Some(e) => failures.push(e),
                    // The later ones still count for what they evaluate.
                    None if own.is_empty() => {
                        matched = true;
                        break;
                    }
                    None => matched = true,
                }
            }
            if !matched {
                errors.push(Failure::new(path, "'anyOf' failed").with_causes(failures));
            }
        }
        if let Some(Value::Array(one)) = s.get("oneOf") {
            let mut failures = Vec::new();
            let mut matched: Option<usize> = None;
            for (i, sub) in one.iter().enumerate() {
                match (self.check_in_place(value, sub, path, own), matched) {
                    (Some(e), None) => failures.push(e),
                    (Some(_), Some(_)) => {}
                    (None, None) => matched = Some(i),
                    (None, Some(first)) => {
                        errors.push(Failure::new(
                            path,
                            format!("'oneOf' failed, subschemas {first}, {i} matched"),
                        ));
                        break;
                    }
                }
            }
            if matched.is_none() {
                errors
                    .push(Failure::new(path, "'oneOf' failed, none matched").with_causes(failures));
            }
        }
        // if/then/else came with draft 7.
        if let Some(cond) = s.get("if").filter(|_| self.draft >= 7) {
            let branch = if self.check_in_place(value, cond, path, own).is_none() {
                s.get("then")
            } else {
                s.get("else")
            };
            if let Some(b) = branch {
                errors.extend(self.check_in_place(value, b, path, own));
            }
        }
    }
}
