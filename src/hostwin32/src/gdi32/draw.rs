//! Lines, shapes and pixels: SetPixel/GetPixel, MoveToEx/LineTo, Polyline, Polygon,
//! Rectangle, RoundRect, Ellipse, Arc/Pie/Chord, PatBlt.

use crate::hle::ApiDef;

pub fn exports() -> Vec<ApiDef> {
    Vec::new()
}
