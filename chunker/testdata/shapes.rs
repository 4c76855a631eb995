//! Geometry primitives used by the renderer.

use std::fmt;
use std::ops::Add;

/// Tolerance for float comparisons.
pub const EPSILON: f64 = 1e-9;

static ORIGIN: Point = Point { x: 0.0, y: 0.0 };

/// A point in 2D space.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

impl Point {
    /// Creates a point.
    pub fn new(x: f64, y: f64) -> Self {
        Point { x, y }
    }

    pub fn distance(&self, other: &Point) -> f64 {
        ((self.x - other.x).powi(2) + (self.y - other.y).powi(2)).sqrt()
    }
}

impl Add for Point {
    type Output = Point;

    fn add(self, rhs: Point) -> Point {
        Point::new(self.x + rhs.x, self.y + rhs.y)
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {})", self.x, self.y)
    }
}

/// Anything with an area.
pub trait Shape {
    fn area(&self) -> f64;

    fn is_empty(&self) -> bool {
        self.area().abs() < EPSILON
    }
}

pub enum Kind {
    Circle { center: Point, radius: f64 },
    Rect(Point, Point),
}

impl<T: Shape> Shape for Vec<T> {
    fn area(&self) -> f64 {
        self.iter().map(Shape::area).sum()
    }
}

pub type Polygon = Vec<Point>;

macro_rules! point {
    ($x:expr, $y:expr) => {
        Point::new($x as f64, $y as f64)
    };
}

pub fn centroid(points: &[Point]) -> Option<Point> {
    if points.is_empty() {
        return None;
    }
    let n = points.len() as f64;
    let sum = points.iter().fold(ORIGIN, |acc, p| acc + *p);
    Some(Point::new(sum.x / n, sum.y / n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn centroid_of_square() {
        let pts = [point!(0, 0), point!(2, 0), point!(2, 2), point!(0, 2)];
        assert_eq!(centroid(&pts), Some(point!(1, 1)));
    }
}
