//! Limits on what one function call may build. Go has none and would exhaust memory
//! first; a template asking for more than these is a mistake or an attack, and gets an
//! error naming the function (the engine adds the file and line) instead of an abort.
use gotemplate::Result;

use super::args::call_error;

/// The longest string one call may return.
pub(crate) const MAX_OUTPUT: usize = 64 << 20;

/// The longest list one call may return.
pub(crate) const MAX_ITEMS: usize = 1 << 20;

/// Refuse a result of `len` bytes (computed without overflow by the caller, or
/// saturated) past [`MAX_OUTPUT`].
pub(crate) fn output(name: &str, len: usize) -> Result<()> {
    if len > MAX_OUTPUT {
        return Err(call_error(
            name,
            format!(
                "the result would be {len} bytes, more than the {MAX_OUTPUT} this engine allows"
            ),
        ));
    }
    Ok(())
}

/// Refuse a list of `n` items past [`MAX_ITEMS`].
pub(crate) fn items(name: &str, n: usize) -> Result<()> {
    if n > MAX_ITEMS {
        return Err(call_error(
            name,
            format!("the list would have {n} items, more than the {MAX_ITEMS} this engine allows"),
        ));
    }
    Ok(())
}

/// Bytes of `count` copies of `unit` bytes, saturated.
pub(crate) fn times(count: usize, unit: usize) -> usize {
    count.saturating_mul(unit)
}

#[cfg(test)]
mod tests {
    use crate::sprig::tests::{render as render_with, values};

    fn render(src: &str) -> Result<String, String> {
        render_with(src, &values())
    }

    /// Each call would build gigabytes; each is an error naming the function, at once.
    #[test]
    fn functions_refuse_huge_results() {
        for (template, name) in [
            (r#"{{ repeat 100000000 "ab" }}"#, "repeat"),
            (r#"{{ indent 100000000 "a\nb" }}"#, "indent"),
            (r#"{{ nindent 100000000 "a" }}"#, "nindent"),
            ("{{ randAlphaNum 100000000 }}", "randAlphaNum"),
            ("{{ randAlpha 100000000 }}", "randAlpha"),
            ("{{ randNumeric 100000000 }}", "randNumeric"),
            ("{{ randAscii 100000000 }}", "randAscii"),
            ("{{ randBytes 100000000 }}", "randBytes"),
            ("{{ until 100000000 }}", "until"),
            ("{{ untilStep 0 100000000 1 }}", "untilStep"),
            ("{{ seq 100000000 }}", "seq"),
            (
                r#"{{ $s := repeat 60000000 "a" }}{{ wrapWith 1 "xy" $s }}"#,
                "wrapWith",
            ),
            (
                r#"{{ $s := repeat 60000000 "a" }}{{ replace "a" "bb" $s }}"#,
                "replace",
            ),
            (
                r#"{{ $s := repeat 60000000 "a" }}{{ regexReplaceAll "a" $s "bb" }}"#,
                "regexReplaceAll",
            ),
            (
                r#"{{ $s := repeat 60000000 "a" }}{{ b64enc $s }}"#,
                "b64enc",
            ),
            (r#"{{ $s := repeat 60000000 "a" }}{{ cat $s $s }}"#, "cat"),
            (
                r#"{{ $s := repeat 1000000 "a" }}{{ splitList "" (cat $s $s) }}"#,
                "splitList",
            ),
            (
                r#"{{ $s := repeat 3000000 "a" }}{{ regexFindAll "a" $s -1 }}"#,
                "regexFindAll",
            ),
            (
                r#"{{ $s := repeat 60000000 "a" }}{{ join "" (list $s $s) }}"#,
                "join",
            ),
            ("{{ $l := until 1000000 }}{{ concat $l $l }}", "concat"),
        ] {
            let err = render(template).unwrap_err();
            assert!(
                err.contains(&format!("error calling {name}: ")),
                "{template}: {err}"
            );
            assert!(err.contains("this engine allows"), "{template}: {err}");
        }
    }

    #[test]
    fn results_below_the_bounds_are_built() {
        let out = render(r#"{{ repeat 1000 "ab" | len }}|{{ until 100000 | len }}"#).unwrap();
        assert_eq!(out, "2000|100000");
    }
}
