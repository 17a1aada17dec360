//! sprig's arithmetic: integer functions convert with cast.ToInt64 (so float64
//! values from values.yaml truncate), the `f` functions compute in decimal as
//! shopspring/decimal does (0.1 + 0.2 = 0.3).
use gotemplate::{Result, Value};
use rand::Rng;

use super::args::{self, Function, at_least, call_error, exact, int, s, string};
use super::cast::{to_float64, to_int64};
use crate::gofmt::sprint;

/// The family's template functions: integer arithmetic, decimal arithmetic on float64,
/// sequences and number conversions.
pub(crate) const FUNCTIONS: &[Function] = &[
    Function::total("add", "func(...interface {}) int64", add),
    Function::new("add1", "func(interface {}) int64", add1),
    Function::new("sub", "func(interface {}, interface {}) int64", sub),
    Function::new("mul", "func(interface {}, ...interface {}) int64", mul),
    Function::new("div", "func(interface {}, interface {}) int64", div),
    Function::new("mod", "func(interface {}, interface {}) int64", rem),
    Function::named("max", "func(interface {}, ...interface {}) int64", max),
    Function::named("biggest", "func(interface {}, ...interface {}) int64", max),
    Function::new("min", "func(interface {}, ...interface {}) int64", min),
    Function::new("randInt", "func(int, int) int", rand_int),
    Function::total("addf", "func(...interface {}) float64", addf),
    Function::new("add1f", "func(interface {}) float64", add1f),
    Function::named("subf", "func(interface {}, ...interface {}) float64", subf),
    Function::named("mulf", "func(interface {}, ...interface {}) float64", mulf),
    Function::named("divf", "func(interface {}, ...interface {}) float64", divf),
    Function::new("maxf", "func(interface {}, ...interface {}) float64", maxf),
    Function::new("minf", "func(interface {}, ...interface {}) float64", minf),
    Function::new("floor", "func(interface {}) float64", floor),
    Function::new("ceil", "func(interface {}) float64", ceil),
    Function::new(
        "round",
        "func(interface {}, int, ...float64) float64",
        round,
    ),
    Function::new("until", "func(int) []int", until),
    Function::new("untilStep", "func(int, int, int) []int", until_step_fn),
    Function::new("seq", "func(...int) string", seq_fn),
    Function::new("atoi", "func(string) int", atoi),
    Function::new("int", "func(interface {}) int", int_of),
    Function::new("int64", "func(interface {}) int64", int64_of),
    Function::new("float64", "func(interface {}) float64", float64_of),
    Function::new("toDecimal", "func(interface {}) int64", to_decimal),
];

fn add(a: &[Value]) -> Value {
    Value::Int64(a.iter().map(to_int64).fold(0i64, i64::wrapping_add))
}

fn add1(a: &[Value]) -> Result<Value> {
    Ok(Value::Int64(
        to_int64(&exact("add1", a, 1)?[0]).wrapping_add(1),
    ))
}

fn sub(a: &[Value]) -> Result<Value> {
    let a = exact("sub", a, 2)?;
    Ok(Value::Int64(to_int64(&a[0]).wrapping_sub(to_int64(&a[1]))))
}

fn mul(a: &[Value]) -> Result<Value> {
    let a = at_least("mul", a, 1)?;
    Ok(Value::Int64(
        a.iter().map(to_int64).fold(1i64, i64::wrapping_mul),
    ))
}

fn div(a: &[Value]) -> Result<Value> {
    divide("div", a, i64::checked_div)
}

fn rem(a: &[Value]) -> Result<Value> {
    divide("mod", a, i64::checked_rem)
}

/// `div` and `mod`: Go's runtime error on a zero divisor; the one overflowing case
/// (the smallest int64 by -1) gives the dividend, as Go's wrapping does.
fn divide(name: &str, a: &[Value], op: fn(i64, i64) -> Option<i64>) -> Result<Value> {
    let a = exact(name, a, 2)?;
    let (x, y) = (to_int64(&a[0]), to_int64(&a[1]));
    if y == 0 {
        return Err(call_error(name, "runtime error: integer divide by zero"));
    }
    Ok(Value::Int64(op(x, y).unwrap_or(x)))
}

/// `max` and its alias `biggest`.
fn max(name: &str, a: &[Value]) -> Result<Value> {
    let a = at_least(name, a, 1)?;
    Ok(Value::Int64(a.iter().map(to_int64).max().unwrap_or(0)))
}

fn min(a: &[Value]) -> Result<Value> {
    let a = at_least("min", a, 1)?;
    Ok(Value::Int64(a.iter().map(to_int64).min().unwrap_or(0)))
}

fn rand_int(a: &[Value]) -> Result<Value> {
    let a = exact("randInt", a, 2)?;
    let (lo, hi) = (int(&a[0])?, int(&a[1])?);
    if hi <= lo {
        return Err(call_error("randInt", "invalid argument to Intn"));
    }
    Ok(Value::Int(rand::rng().random_range(lo..hi)))
}

/// A float64 as `shopspring/decimal`'s `NewFromFloat` sees it: its shortest decimal
/// digits as an integer and a power of ten.
fn decimal(f: f64) -> Option<(i128, i32)> {
    if !f.is_finite() {
        return None;
    }
    let text = format!("{f:e}");
    let (mantissa, exp) = text.split_once('e')?;
    let exp: i32 = exp.parse().ok()?;
    let (int_part, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits: i128 = format!("{int_part}{frac}").parse().ok()?;
    // A float64's shortest form has at most 17 digits.
    let scale = exp - i32::try_from(frac.len()).ok()?;
    (scale.abs() < 30).then_some((digits, scale))
}

fn align(a: (i128, i32), b: (i128, i32)) -> Option<(i128, i128, i32)> {
    let scale = a.1.min(b.1);
    let up =
        |(d, s): (i128, i32)| d.checked_mul(10i128.checked_pow(u32::try_from(s - scale).ok()?)?);
    Some((up(a)?, up(b)?, scale))
}

fn to_f64((digits, scale): (i128, i32)) -> f64 {
    format!("{digits}e{scale}").parse().unwrap_or(f64::NAN)
}

#[derive(Clone, Copy)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
}

/// One decimal operation; falls back to float64 arithmetic when the decimal form
/// would overflow.
fn decimal_op(op: Op, x: f64, y: f64) -> f64 {
    let exact = (|| {
        let (a, b) = (decimal(x)?, decimal(y)?);
        match op {
            Op::Add | Op::Sub => {
                let (a, b, scale) = align(a, b)?;
                let sum = if matches!(op, Op::Add) {
                    a.checked_add(b)?
                } else {
                    a.checked_sub(b)?
                };
                Some(to_f64((sum, scale)))
            }
            Op::Mul => Some(to_f64((a.0.checked_mul(b.0)?, a.1 + b.1))),
            Op::Div => None,
        }
    })();
    exact.unwrap_or(match op {
        Op::Add => x + y,
        Op::Sub => x - y,
        Op::Mul => x * y,
        // decimal.Div rounds to 16 fractional digits.
        Op::Div => {
            let q = x / y;
            format!("{q:.16}").parse().unwrap_or(q)
        }
    })
}

fn fold_decimal(op: Op, first: f64, rest: &[Value]) -> Value {
    Value::Float(
        rest.iter()
            .map(to_float64)
            .fold(first, |acc, y| decimal_op(op, acc, y)),
    )
}

fn addf(a: &[Value]) -> Value {
    fold_decimal(Op::Add, 0.0, a)
}

fn add1f(a: &[Value]) -> Result<Value> {
    let x = to_float64(&exact("add1f", a, 1)?[0]);
    Ok(Value::Float(decimal_op(Op::Add, x, 1.0)))
}

fn subf(name: &str, a: &[Value]) -> Result<Value> {
    fold_args(name, a, Op::Sub)
}

fn mulf(name: &str, a: &[Value]) -> Result<Value> {
    fold_args(name, a, Op::Mul)
}

fn divf(name: &str, a: &[Value]) -> Result<Value> {
    fold_args(name, a, Op::Div)
}

/// The first argument, then `op` with each of the others in turn.
fn fold_args(name: &str, a: &[Value], op: Op) -> Result<Value> {
    let a = at_least(name, a, 1)?;
    if matches!(op, Op::Div) && a[1..].iter().any(|v| to_float64(v) == 0.0) {
        return Err(call_error(name, "decimal division by 0"));
    }
    Ok(fold_decimal(op, to_float64(&a[0]), &a[1..]))
}

fn maxf(a: &[Value]) -> Result<Value> {
    extreme("maxf", a, f64::max)
}

fn minf(a: &[Value]) -> Result<Value> {
    extreme("minf", a, f64::min)
}

/// `maxf` and `minf`: the arguments as float64, folded by `pick`.
fn extreme(name: &str, a: &[Value], pick: fn(f64, f64) -> f64) -> Result<Value> {
    let a = at_least(name, a, 1)?;
    let first = to_float64(&a[0]);
    Ok(Value::Float(
        a[1..].iter().map(to_float64).fold(first, pick),
    ))
}

fn floor(a: &[Value]) -> Result<Value> {
    Ok(Value::Float(to_float64(&exact("floor", a, 1)?[0]).floor()))
}

fn ceil(a: &[Value]) -> Result<Value> {
    Ok(Value::Float(to_float64(&exact("ceil", a, 1)?[0]).ceil()))
}

/// `round x places [roundOn]`: half-up at `roundOn` (0.5 unless given).
fn round(a: &[Value]) -> Result<Value> {
    if !(2..=3).contains(&a.len()) {
        return Err(gotemplate::TemplateError::Exec(format!(
            "wrong number of args for round: want 2 got {}",
            a.len()
        )));
    }
    let round_on = a.get(2).map_or(0.5, to_float64);
    let pow = 10f64.powf(to_float64(&Value::Int(int(&a[1])?)));
    let digit = pow * to_float64(&a[0]);
    let frac = digit - digit.trunc();
    let rounded = if frac >= round_on {
        digit.ceil()
    } else {
        digit.floor()
    };
    Ok(Value::Float(rounded / pow))
}

/// The longest sequence `until`, `untilStep` and `seq` build.
const MAX_SEQUENCE: usize = super::bounds::MAX_ITEMS;

/// sprig's untilStep.
fn until_step(start: i64, stop: i64, step: i64) -> Vec<i64> {
    let mut out = Vec::new();
    let going_down = stop < start;
    if (going_down && step >= 0) || (!going_down && step <= 0) {
        return out;
    }
    let mut i = start;
    while (going_down && i > stop) || (!going_down && i < stop) {
        if out.len() == MAX_SEQUENCE {
            break;
        }
        out.push(i);
        match i.checked_add(step) {
            Some(next) => i = next,
            None => break,
        }
    }
    out
}

/// `until_step`, refusing sequences longer than [`MAX_SEQUENCE`] before building them.
fn checked_sequence(name: &str, start: i64, stop: i64, step: i64) -> Result<Vec<i64>> {
    let span = (i128::from(stop) - i128::from(start)).abs();
    let len = if step == 0 {
        0
    } else {
        span / i128::from(step).abs()
    };
    if len >= MAX_SEQUENCE as i128 {
        return Err(call_error(
            name,
            format!(
                "the sequence from {start} to {stop} would have more than the {MAX_SEQUENCE} numbers this engine allows"
            ),
        ));
    }
    Ok(until_step(start, stop, step))
}

fn ints(items: Vec<i64>) -> Value {
    args::list(items.into_iter().map(Value::Int).collect())
}

/// sprig's seq, printed as the numbers joined by spaces.
fn seq(params: &[i64]) -> Result<String> {
    let items = match *params {
        [end] => {
            let inc = if end < 1 { -1 } else { 1 };
            checked_sequence("seq", 1, end.saturating_add(inc), inc)?
        }
        [start, end] => {
            let step = if end < start { -1 } else { 1 };
            checked_sequence("seq", start, end.saturating_add(step), step)?
        }
        [start, step, end] => {
            let inc = if end < start { -1 } else { 1 };
            if end < start && step > 0 {
                return Ok(String::new());
            }
            checked_sequence("seq", start, end.saturating_add(inc), step)?
        }
        _ => return Ok(String::new()),
    };
    Ok(items
        .iter()
        .map(i64::to_string)
        .collect::<Vec<_>>()
        .join(" "))
}

fn until(a: &[Value]) -> Result<Value> {
    let count = int(&exact("until", a, 1)?[0])?;
    let step = if count < 0 { -1 } else { 1 };
    Ok(ints(checked_sequence("until", 0, count, step)?))
}

fn until_step_fn(a: &[Value]) -> Result<Value> {
    let a = exact("untilStep", a, 3)?;
    let (start, stop, step) = (int(&a[0])?, int(&a[1])?, int(&a[2])?);
    Ok(ints(checked_sequence("untilStep", start, stop, step)?))
}

fn seq_fn(a: &[Value]) -> Result<Value> {
    let params = a.iter().map(int).collect::<Result<Vec<_>>>()?;
    Ok(s(seq(&params)?))
}

fn atoi(a: &[Value]) -> Result<Value> {
    let x = string(&exact("atoi", a, 1)?[0])?;
    Ok(Value::Int(super::cast::go_atoi(x)))
}

fn int_of(a: &[Value]) -> Result<Value> {
    Ok(Value::Int(to_int64(&exact("int", a, 1)?[0])))
}

fn int64_of(a: &[Value]) -> Result<Value> {
    Ok(Value::Int64(to_int64(&exact("int64", a, 1)?[0])))
}

fn float64_of(a: &[Value]) -> Result<Value> {
    Ok(Value::Float(to_float64(&exact("float64", a, 1)?[0])))
}

/// sprig's toDecimal: the value's text read as an octal number, 0 when it is not one.
fn to_decimal(a: &[Value]) -> Result<Value> {
    let text = sprint(&exact("toDecimal", a, 1)?[0]);
    Ok(Value::Int64(i64::from_str_radix(&text, 8).unwrap_or(0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[expect(
        clippy::float_cmp,
        reason = "decimal arithmetic gives these float64 values exactly"
    )]
    fn decimal_ops_are_exact() {
        assert_eq!(decimal_op(Op::Add, 0.1, 0.2), 0.3);
        assert_eq!(decimal_op(Op::Mul, 1.1, 3.0), 3.3);
        assert_eq!(decimal_op(Op::Sub, 1.0, 0.9), 0.1);
        assert_eq!(decimal_op(Op::Div, 10.0, 4.0), 2.5);
    }

    #[test]
    fn seq_follows_sprig() {
        assert_eq!(seq(&[5]).unwrap(), "1 2 3 4 5");
        assert_eq!(seq(&[-3]).unwrap(), "1 0 -1 -2 -3");
        assert_eq!(seq(&[0, 2, 10]).unwrap(), "0 2 4 6 8 10");
        assert_eq!(seq(&[10, -2, 0]).unwrap(), "10 8 6 4 2 0");
        assert_eq!(seq(&[2, 5]).unwrap(), "2 3 4 5");
        assert!(seq(&[i64::MAX]).is_err());
        assert_eq!(until_step(i64::MAX - 1, i64::MAX, 5), vec![i64::MAX - 1]);
    }

    #[test]
    fn until_step_follows_sprig() {
        assert_eq!(until_step(0, 5, 2), vec![0, 2, 4]);
        assert_eq!(until_step(5, 0, -2), vec![5, 3, 1]);
        assert!(until_step(5, 0, 1).is_empty());
    }
}
