//! Fields over the grid from scenario values: numbers, expressions in x and y, shapes.

use crate::error::InputError;
use crate::scenario::spec::Value;
use exmex::prelude::*;

/// A value that can be evaluated at a point.
pub enum Field {
    Constant(f64),
    Expression {
        expr: Box<exmex::FlatEx<f64>>,
        uses_x: bool,
        uses_y: bool,
    },
}

impl Field {
    /// Parses a scenario value; `key` names it in errors.
    pub fn parse(value: &Value, key: &str) -> Result<Field, InputError> {
        match value {
            Value::Number(v) => Ok(Field::Constant(*v)),
            Value::Expression(text) => Self::parse_expression(text, key),
        }
    }

    pub fn parse_expression(text: &str, key: &str) -> Result<Field, InputError> {
        let expr = exmex::parse::<f64>(&infix_two_argument_calls(text)).map_err(|e| {
            InputError::new(format!(
                "expected an expression in x and y, got {text:?}: {e}"
            ))
            .at_key(key)
        })?;
        let names: Vec<String> = expr.var_names().to_vec();
        if let Some(bad) = names.iter().find(|n| *n != "x" && *n != "y") {
            return Err(InputError::new(format!(
                "the expression {text:?} uses `{bad}`; only x and y (metres) are defined"
            ))
            .at_key(key));
        }
        let uses_x = names.iter().any(|n| n == "x");
        let uses_y = names.iter().any(|n| n == "y");
        Ok(Field::Expression {
            expr: Box::new(expr),
            uses_x,
            uses_y,
        })
    }

    pub fn at(&self, x: f64, y: f64) -> f64 {
        match self {
            Field::Constant(v) => *v,
            Field::Expression {
                expr,
                uses_x,
                uses_y,
            } => {
                // exmex orders variables alphabetically.
                let result = match (uses_x, uses_y) {
                    (true, true) => expr.eval(&[x, y]),
                    (true, false) => expr.eval(&[x]),
                    (false, true) => expr.eval(&[y]),
                    (false, false) => expr.eval(&[]),
                };
                result.unwrap_or(f64::NAN)
            }
        }
    }
}

/// exmex reads `min(a, b)`, but not such a call nested in another one ("parentheses
/// mismatch"). Its two-argument functions also work as infix operators, so every call is
/// rewritten as `((a) min (b))` before parsing.
fn infix_two_argument_calls(text: &str) -> String {
    const NAMES: [&str; 3] = ["atan2", "min", "max"];
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 8);
    let mut i = 0;
    while i < text.len() {
        let starts_word = i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        let call = NAMES
            .iter()
            .filter(|name| starts_word && text[i..].starts_with(**name))
            .find_map(|name| Some((*name, call_arguments(text, i + name.len())?)));
        if let Some((name, (first, second, end))) = call {
            out += &format!(
                "(({}) {name} ({}))",
                infix_two_argument_calls(first),
                infix_two_argument_calls(second)
            );
            i = end;
            continue;
        }
        let c = text[i..].chars().next().expect("a char boundary");
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The two arguments of a call whose name ends at `at`, and the index past its `)`.
fn call_arguments(text: &str, at: usize) -> Option<(&str, &str, usize)> {
    let open = at + text[at..].len() - text[at..].trim_start().len();
    if !text[open..].starts_with('(') {
        return None;
    }
    let (mut depth, mut comma) = (0, None);
    for (k, c) in text[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 1 => {
                let comma = comma?;
                return Some((
                    &text[open + 1..comma],
                    &text[comma + 1..open + k],
                    open + k + 1,
                ));
            }
            ')' => depth -= 1,
            ',' if depth == 1 => comma = Some(open + k),
            _ => {}
        }
    }
    None
}

/// A region of the plane.
pub enum Shape {
    Circle { centre: [f64; 2], radius: f64 },
    Rectangle { min: [f64; 2], max: [f64; 2] },
    Polygon(super::polygon::Polygon),
}

impl Shape {
    pub fn contains(&self, x: f64, y: f64) -> bool {
        match self {
            Shape::Circle { centre, radius } => {
                let (dx, dy) = (x - centre[0], y - centre[1]);
                dx * dx + dy * dy <= radius * radius
            }
            Shape::Rectangle { min, max } => {
                x >= min[0] && x <= max[0] && y >= min[1] && y <= max[1]
            }
            Shape::Polygon(p) => p.contains(x, y),
        }
    }
}

impl Shape {
    /// Whether the shape overlaps the rectangle (x0, y0, x1, y1).
    pub fn meets(&self, (x0, y0, x1, y1): (f64, f64, f64, f64)) -> bool {
        match self {
            Shape::Circle { centre, radius } => {
                let dx = (x0 - centre[0]).max(0.0).max(centre[0] - x1);
                let dy = (y0 - centre[1]).max(0.0).max(centre[1] - y1);
                dx * dx + dy * dy <= radius * radius
            }
            Shape::Rectangle { min, max } => {
                min[0] <= x1 && x0 <= max[0] && min[1] <= y1 && y0 <= max[1]
            }
            Shape::Polygon(polygon) => {
                let points = polygon.points();
                let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)];
                let inside_rect =
                    |p: &[f64; 2]| p[0] >= x0 && p[0] <= x1 && p[1] >= y0 && p[1] <= y1;
                points.iter().any(inside_rect)
                    || corners.iter().any(|&(x, y)| polygon.contains(x, y))
                    || (0..points.len()).any(|k| {
                        let (a, b) = (points[k], points[(k + 1) % points.len()]);
                        (0..4).any(|e| segments_cross(a, b, corners[e], corners[(e + 1) % 4]))
                    })
            }
        }
    }
}

fn segments_cross(a: [f64; 2], b: [f64; 2], c: (f64, f64), d: (f64, f64)) -> bool {
    let orient = |p: (f64, f64), q: (f64, f64), r: (f64, f64)| {
        (q.0 - p.0) * (r.1 - p.1) - (q.1 - p.1) * (r.0 - p.0)
    };
    let (a, b) = ((a[0], a[1]), (b[0], b[1]));
    let d1 = orient(c, d, a);
    let d2 = orient(c, d, b);
    let d3 = orient(a, b, c);
    let d4 = orient(a, b, d);
    d1 * d2 < 0.0 && d3 * d4 < 0.0
}

/// Even-odd rule.
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expressions_in_x_and_y() {
        let f = Field::parse(&Value::Expression("2*x + y^2".into()), "k").unwrap();
        assert_eq!(f.at(1.0, 3.0), 11.0);
        let f = Field::parse(&Value::Expression("y/2".into()), "k").unwrap();
        assert_eq!(f.at(100.0, 3.0), 1.5);
        let f = Field::parse(&Value::Expression("sin(0)+1".into()), "k").unwrap();
        assert_eq!(f.at(0.0, 0.0), 1.0);
        let e = Field::parse(&Value::Expression("x + z".into()), "terrain.expression")
            .err()
            .unwrap();
        assert!(e.to_string().contains("`z`"), "{e}");
        assert!(Field::parse(&Value::Expression("x +* 2".into()), "k").is_err());
    }

    #[test]
    fn nested_two_argument_calls() {
        let at = |text: &str, x: f64, y: f64| {
            Field::parse(&Value::Expression(text.into()), "k")
                .unwrap()
                .at(x, y)
        };
        assert_eq!(at("min(x, max(0, y))", 3.0, -2.0), 0.0);
        assert_eq!(at("min(x, max(0, y))", 3.0, 5.0), 3.0);
        assert_eq!(at("max(min(x, 1), min(y, 2)) + 1", 0.0, 5.0), 3.0);
        assert_eq!(at("2 * max(x - 1, (y + 1) * 2)", 0.0, 0.0), 4.0);
        assert!((at("atan2(y, max(x, 1))", 0.0, 1.0) - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
    }

    #[test]
    fn shapes() {
        let square = Shape::Polygon(super::super::polygon::Polygon::new(vec![
            [0.0, 0.0],
            [2.0, 0.0],
            [2.0, 2.0],
            [0.0, 2.0],
        ]));
        assert!(square.contains(1.0, 1.0));
        assert!(!square.contains(3.0, 1.0));
        let c = Shape::Circle {
            centre: [0.0, 0.0],
            radius: 1.0,
        };
        assert!(c.contains(0.5, 0.5) && !c.contains(0.8, 0.8));
    }
}
