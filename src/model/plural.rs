//! English plurals of lower-cased kinds, chosen the way kubebuilder and controller-gen name
//! resources (both use the flect inflection library): a table of irregular nouns, then the
//! first matching suffix rule, then `s` unless the word already ends in `s`. A word that
//! already ends like a plural the rules produce is left alone, so `Metrics` stays
//! `metrics`. Plain suffix tests keep this to a few microseconds, where a regex-based
//! inflector spent milliseconds compiling its rules in every process.

/// Nouns whose plural no suffix rule gives, also at the end of a compound (`salesperson`);
/// the plural column is recognised as already plural. Order matters: first match wins.
const IRREGULAR: &[(&str, &str)] = &[
    ("basis", "bases"),
    ("child", "children"),
    ("criterion", "criteria"),
    ("datum", "data"),
    ("foot", "feet"),
    ("goose", "geese"),
    ("index", "indices"),
    ("medium", "media"),
    ("mouse", "mice"),
    ("person", "people"),
    ("phenomenon", "phenomena"),
    ("quiz", "quizzes"),
    ("tooth", "teeth"),
    ("vertex", "vertices"),
    ("human", "humans"),
    ("woman", "women"),
    ("man", "men"),
];

/// Irregular only as whole words: `box` is not `b` + `oxen`.
const IRREGULAR_WORDS: &[(&str, &str)] = &[
    ("alias", "aliases"),
    ("axis", "axes"),
    ("die", "dice"),
    ("ox", "oxen"),
    ("use", "uses"),
];

/// Words that are their own plural.
const UNCOUNTABLE: &[&str] = &[
    "aircraft",
    "bison",
    "chassis",
    "deer",
    "equipment",
    "fish",
    "information",
    "media",
    "money",
    "moose",
    "news",
    "police",
    "rice",
    "series",
    "sheep",
    "species",
];

/// Suffix rules, most specific first: a word ending in the first column takes the second
/// in its place. A word already ending in the second column is taken to be plural.
const SUFFIXES: &[(&str, &str)] = &[
    ("tive", "tives"),
    ("eaf", "eaves"),
    ("oaf", "oaves"),
    ("afe", "aves"),
    ("arf", "arves"),
    ("rfe", "rves"),
    ("rf", "rves"),
    ("lf", "lves"),
    ("fe", "ves"),
    ("ay", "ays"),
    ("ey", "eys"),
    ("oy", "oys"),
    ("quy", "quies"),
    ("uy", "uys"),
    ("y", "ies"),
    ("eau", "eaux"),
    ("hedron", "hedra"),
    ("ium", "ia"),
    ("trix", "trices"),
    ("ysis", "yses"),
    ("ouse", "ouses"),
    ("us", "uses"),
    ("ch", "ches"),
    ("sh", "shes"),
    ("ss", "sses"),
    ("zz", "zzes"),
    ("io", "ios"),
    ("lo", "los"),
    ("to", "tos"),
    ("oo", "oos"),
    ("o", "oes"),
    ("x", "xes"),
];

/// The plural of `word`, a lower-cased kind (`memcachedbackup` -> `memcachedbackups`).
pub fn plural(word: &str) -> String {
    if word.is_empty() || UNCOUNTABLE.contains(&word) {
        return word.to_string();
    }
    if let Some((_, plural)) = IRREGULAR_WORDS.iter().find(|(one, _)| *one == word) {
        return (*plural).to_string();
    }
    if IRREGULAR_WORDS.iter().any(|(_, many)| *many == word) {
        return word.to_string();
    }
    if let Some(found) = by_suffix(word, IRREGULAR).or_else(|| by_suffix(word, SUFFIXES)) {
        return found;
    }
    if word.ends_with('s') {
        word.to_string()
    } else {
        format!("{word}s")
    }
}

/// The first rule of `rules` that applies: a plural ending keeps the word, a singular
/// ending is replaced.
fn by_suffix(word: &str, rules: &[(&str, &str)]) -> Option<String> {
    rules.iter().find_map(|(singular, plural)| {
        if word.ends_with(plural) {
            Some(word.to_string())
        } else {
            word.strip_suffix(singular)
                .map(|stem| format!("{stem}{plural}"))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::plural;

    #[test]
    fn kinds_take_kubebuilder_plurals() {
        for (word, expected) in [
            ("memcached", "memcacheds"),
            ("memcachedbackup", "memcachedbackups"),
            ("policy", "policies"),
            ("networkpolicy", "networkpolicies"),
            ("proxy", "proxies"),
            ("gateway", "gateways"),
            ("key", "keys"),
            ("ingress", "ingresses"),
            ("class", "classes"),
            ("status", "statuses"),
            ("bus", "buses"),
            ("box", "boxes"),
            ("branch", "branches"),
            ("mesh", "meshes"),
            ("buzz", "buzzes"),
            ("leaf", "leaves"),
            ("shelf", "shelves"),
            ("wife", "wives"),
            ("directive", "directives"),
            ("hero", "heroes"),
            ("photo", "photos"),
            ("portfolio", "portfolios"),
            ("analysis", "analyses"),
            ("bureau", "bureaux"),
            ("aquarium", "aquaria"),
            ("person", "people"),
            ("salesperson", "salespeople"),
            ("child", "children"),
            ("woman", "women"),
            ("fireman", "firemen"),
            ("human", "humans"),
            ("index", "indices"),
            ("datum", "data"),
            ("sheep", "sheep"),
            ("series", "series"),
            ("redis", "redis"),
            ("metrics", "metrics"),
            ("postgres", "postgres"),
            ("cookies", "cookies"),
            ("servicemonitor", "servicemonitors"),
            ("httproute", "httproutes"),
            ("schema", "schemas"),
            ("cache", "caches"),
            ("box", "boxes"),
            ("ox", "oxen"),
            ("alias", "aliases"),
            ("price", "prices"),
            ("", ""),
        ] {
            assert_eq!(plural(word), expected, "plural of {word:?}");
        }
    }

    #[test]
    fn plurals_are_stable() {
        // A plural given again stays as it is: `create api` may be handed either.
        for word in [
            "memcached",
            "policy",
            "ingress",
            "leaf",
            "person",
            "box",
            "status",
        ] {
            let once = plural(word);
            assert_eq!(plural(&once), once, "plural of {once:?}");
        }
    }
}
