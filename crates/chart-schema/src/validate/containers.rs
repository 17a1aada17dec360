//! Object and array keywords.

use serde_json::Value;

use super::report::{Failure, count, first_repeat, quote, regex};
use super::{Keywords, Obj, Uneval, Validator, get};

impl<'a> Validator<'a> {
    pub(super) fn check_object(
        &self,
        map: &Obj,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        Self::bounds(
            path,
            ["minProperties", "maxProperties"],
            map.len(),
            s,
            errors,
        );
        let missing_of = |names: &Value| -> Vec<String> {
            names
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|k| !map.contains_key(*k))
                .map(quote)
                .collect()
        };
        if let Some(required) = s.get("required") {
            let missing = missing_of(required);
            match missing.len() {
                0 => {}
                1 => errors.push(Failure::new(
                    path,
                    format!("missing property {}", missing[0]),
                )),
                _ => errors.push(Failure::new(
                    path,
                    format!("missing properties {}", missing.join(", ")),
                )),
            }
        }
        if let Some(Value::Object(deps)) = s.get("dependencies") {
            for (key, d) in deps {
                self.dependent(map, key, d, path, own, errors);
            }
        }
        self.check_properties(map, s, path, own, errors);
        if self.draft == 4 {
            return;
        }
        if let Some(names) = s.get("propertyNames") {
            for key in map.keys() {
                // A name is checked as a value of its own: Helm's validator places its
                // errors, and the one that names it, at '' whatever the object's path.
                if let Some(e) = self.check(&Value::String(key.clone()), names, &mut Vec::new()) {
                    let causes = if e.group { e.causes } else { vec![e] };
                    errors.push(
                        Failure::new(&[], format!("invalid propertyName {}", quote(key)))
                            .with_causes(causes),
                    );
                }
            }
        }
        // dependentSchemas and dependentRequired came with 2019-09.
        if self.draft < 2019 {
            return;
        }
        if let Some(Value::Object(deps)) = s.get("dependentSchemas") {
            for (key, d) in deps {
                self.dependent(map, key, d, path, own, errors);
            }
        }
        if let Some(Value::Object(deps)) = s.get("dependentRequired") {
            for (key, d) in deps {
                if d.is_array() {
                    self.dependent(map, key, d, path, own, errors);
                }
            }
        }
    }

    /// properties, patternProperties and additionalProperties: each key checked against
    /// the schemas that name or match it, the others against additionalProperties.
    fn check_properties(
        &self,
        map: &Obj,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        let props = s.get("properties").and_then(Value::as_object);
        let patterns: Vec<(regex::Regex, &'a Value)> = s
            .get("patternProperties")
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
            .filter_map(|(p, sch)| regex(p).map(|re| (re, sch)))
            .collect();
        let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
        let additional = s.get("additionalProperties");
        let mut not_allowed = Vec::new();
        for (key, item) in map {
            let mut evaluated = false;
            if let Some(prop) = props.and_then(|p| get(p, key)) {
                evaluated = true;
                errors.extend(self.check_at(item, prop, path, key));
            }
            for (re, sch) in &patterns {
                if re.is_match(key) {
                    evaluated = true;
                    errors.extend(self.check_at(item, sch, path, key));
                }
            }
            if evaluated || additional.is_some() {
                own.evaluated_prop(key);
            }
            if evaluated {
                continue;
            }
            match additional {
                Some(Value::Bool(false)) => not_allowed.push(key.as_str()),
                Some(extra @ Value::Object(_)) => {
                    errors.extend(self.check_at(item, extra, path, key));
                }
                None if self.structural && !preserve => {
                    errors.push(Failure::new(
                        path,
                        format!("unknown field '{key}' would be pruned"),
                    ));
                }
                _ => {}
            }
        }
        if !not_allowed.is_empty() {
            // Helm's validator lists them in map order, which for these is sorted.
            not_allowed.sort_unstable();
            let names: Vec<String> = not_allowed.into_iter().map(quote).collect();
            errors.push(Failure::new(
                path,
                format!("additional properties {} not allowed", names.join(", ")),
            ));
        }
    }

    /// `dependencies`, `dependentRequired` and `dependentSchemas` for one key: when the
    /// object has `key`, the names it then needs or the schema it must then meet.
    pub(super) fn dependent(
        &self,
        map: &Obj,
        key: &str,
        deps: &'a Value,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        if !map.contains_key(key) {
            return;
        }
        if let Value::Array(names) = deps {
            let missing: Vec<String> = names
                .iter()
                .filter_map(Value::as_str)
                .filter(|k| !map.contains_key(*k))
                .map(quote)
                .collect();
            if !missing.is_empty() {
                errors.push(Failure::new(
                    path,
                    format!(
                        "properties {} required, if {} exists",
                        missing.join(", "),
                        quote(key)
                    ),
                ));
            }
        } else if let Some(e) = self.check_in_place(&Value::Object(map.clone()), deps, path, own) {
            errors.push(e);
        }
    }

    pub(super) fn check_array(
        &self,
        items: &[Value],
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        Self::bounds(path, ["minItems", "maxItems"], items.len(), s, errors);
        if s.get("uniqueItems") == Some(&Value::Bool(true))
            && let Some((i, j)) = first_repeat(items)
        {
            errors.push(Failure::new(
                path,
                format!("items at {i} and {j} are equal"),
            ));
        }
        // Items past the evaluated ones are numbered from 0 again, as in Helm's
        // validator.
        let rest =
            |from: usize, sch: &'a Value, path: &mut Vec<String>, errors: &mut Vec<Failure>| {
                for (i, item) in items.iter().skip(from).enumerate() {
                    errors.extend(self.check_at(item, sch, path, &i.to_string()));
                }
            };
        if self.draft < 2020 {
            let evaluated = match s.get("items") {
                Some(Value::Array(tuple)) => {
                    for (i, (item, sch)) in items.iter().zip(tuple).enumerate() {
                        errors.extend(self.check_at(item, sch, path, &i.to_string()));
                    }
                    tuple.len().min(items.len())
                }
                Some(sch) => {
                    rest(0, sch, path, errors);
                    items.len()
                }
                None => 0,
            };
            // `additionalItems` only follows a tuple: alone, Helm's validator skips it.
            let tuple = matches!(s.get("items"), Some(Value::Array(_)));
            match s.get("additionalItems").filter(|_| tuple) {
                Some(Value::Bool(false)) if evaluated != items.len() => errors.push(Failure::new(
                    path,
                    format!(
                        "last {} additionalItem(s) not allowed",
                        items.len() - evaluated
                    ),
                )),
                Some(sch @ Value::Object(_)) => rest(evaluated, sch, path, errors),
                _ => {}
            }
        } else {
            let prefix = s.get("prefixItems").and_then(Value::as_array);
            let evaluated = prefix.map_or(0, |p| p.len().min(items.len()));
            for (i, (item, sch)) in items.iter().zip(prefix.into_iter().flatten()).enumerate() {
                errors.extend(self.check_at(item, sch, path, &i.to_string()));
            }
            if let Some(sch) = s.get("items") {
                rest(evaluated, sch, path, errors);
            }
        }
        // `contains` came with draft 6, minContains and maxContains with 2019-09.
        if let Some(contains) = s.get("contains").filter(|_| self.draft >= 6) {
            self.check_contains(items, contains, s, path, own, errors);
        }
    }

    /// `contains`, with `minContains` and `maxContains` since 2019-09: how many items match
    /// the schema.
    fn check_contains(
        &self,
        items: &[Value],
        contains: &'a Value,
        s: Keywords<'a>,
        path: &mut Vec<String>,
        own: &mut Uneval,
        errors: &mut Vec<Failure>,
    ) {
        let mut failures = Vec::new();
        let mut matched = Vec::new();
        for (i, item) in items.iter().enumerate() {
            if let Some(e) = self.check_at(item, contains, path, &i.to_string()) {
                failures.push(e);
            } else {
                matched.push(i.to_string());
                // Since 2020-12 the items `contains` matches count as evaluated.
                if self.draft >= 2020 {
                    own.evaluated_item(i);
                }
            }
        }
        let limit = |keyword| {
            s.get(keyword)
                .and_then(count)
                .filter(|_| self.draft >= 2019)
        };
        let at = || format!("{} items at {}", matched.len(), matched.join(" "));
        match limit("minContains") {
            Some(min) if (matched.len() as u64) < min => {
                let message = match matched.len() {
                    0 => format!(
                        "min {min} items required to match contains schema, but none matched"
                    ),
                    _ => format!(
                        "min {min} items required to match contains schema, but matched {}",
                        at()
                    ),
                };
                errors.push(Failure::new(path, message).with_causes(failures));
            }
            None if matched.is_empty() => errors
                .push(Failure::new(path, "no items match contains schema").with_causes(failures)),
            _ => {}
        }
        if let Some(max) = limit("maxContains")
            && matched.len() as u64 > max
        {
            let message = format!(
                "max {max} items required to match contains schema, but matched {}",
                at()
            );
            errors.push(Failure::new(path, message));
        }
    }
}
