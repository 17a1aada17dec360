//! TEMPORARY stand-in until the full Go fmt module lands.
use crate::value::Value;

pub fn sprint_value(v: &Value) -> String {
    match v {
        Value::Nil => "<nil>".into(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => i.to_string(),
        Value::Uint(u) => u.to_string(),
        Value::Float(f) => format_float(*f, b'g', -1),
        Value::String(s) => s.to_string(),
        Value::List(l) => format!("[{}]", l.iter().map(sprint_value).collect::<Vec<_>>().join(" ")),
        Value::Map(m) => format!("map[{}]", m.snapshot().iter().map(|(k, v)| format!("{k}:{}", sprint_value(v))).collect::<Vec<_>>().join(" ")),
        Value::Function(_) => "0x0".into(),
        Value::Object(o) => o.go_string(),
    }
}
pub fn sprint(args: &[Value]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        if i > 0 && !matches!(a, Value::String(_)) && !matches!(args[i - 1], Value::String(_)) {
            out.push(' ');
        }
        out.push_str(&sprint_value(a));
    }
    out
}
pub fn sprintln(args: &[Value]) -> String {
    args.iter().map(sprint_value).collect::<Vec<_>>().join(" ") + "\n"
}
pub fn sprintf(format: &str, args: &[Value]) -> String {
    let _ = args;
    format.to_string()
}
pub fn format_float(f: f64, _fmt: u8, _prec: i32) -> String {
    let s = format!("{f:e}");
    let (m, e) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = e.parse().unwrap_or(0);
    if exp < -4 || exp >= 21 {
        format!("{m}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
    } else {
        format!("{f}")
    }
}
pub fn quote(s: &str) -> String {
    format!("{s:?}")
}
