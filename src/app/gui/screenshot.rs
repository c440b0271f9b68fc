//! F12: the guest frame (the program's own pixels, no scaling or overlay) as a PNG in
//! the user's pictures folder.

use std::path::{Path, PathBuf};
use std::time::SystemTime;
use winterp_hostwin32::display::Frame;

/// `$WINTERP_SCREENSHOT_DIR`, else Pictures/winterp, else winterp's data folder.
pub fn dir() -> Option<PathBuf> {
    if let Some(d) = std::env::var_os("WINTERP_SCREENSHOT_DIR") {
        return Some(PathBuf::from(d));
    }
    if let Some(p) =
        directories::UserDirs::new().and_then(|u| u.picture_dir().map(|p| p.to_path_buf()))
    {
        return Some(p.join("winterp"));
    }
    directories::ProjectDirs::from("", "", "winterp").map(|p| p.data_dir().join("screenshots"))
}

/// Writes `frame` as `<program>-YYYYMMDD-HHMMSS.png` (plus `-2`, `-3`... when taken
/// within the same second) in `dir`.
pub fn save(dir: &Path, program: &str, frame: &Frame, now: SystemTime) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let secs = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let stamp = timestamp(secs);
    let mut path = dir.join(format!("{program}-{stamp}.png"));
    let mut n = 2;
    while path.exists() {
        path = dir.join(format!("{program}-{stamp}-{n}.png"));
        n += 1;
    }
    winterp_video::png_file::write(&path, frame).map_err(|e| e.to_string())?;
    Ok(path)
}

/// `YYYYMMDD-HHMMSS` (UTC) for seconds since 1970.
fn timestamp(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of day `z` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn timestamps_are_utc_calendar_dates() {
        assert_eq!(timestamp(0), "19700101-000000");
        // 2000-02-29 00:00:00 UTC (a leap day in a century leap year).
        assert_eq!(timestamp(951_782_400), "20000229-000000");
        assert_eq!(timestamp(951_782_400 + 86_400 + 3_723), "20000301-010203");
        // 2038-01-19 03:14:07, the last second of 32-bit time_t.
        assert_eq!(timestamp(2_147_483_647), "20380119-031407");
    }

    #[test]
    fn screenshots_hold_the_guest_pixels_and_never_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let frame = Frame {
            width: 2,
            height: 1,
            pixels: vec![0x00ff_8000, 0x0000_00ff],
        };
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(951_782_400);
        let a = save(dir.path(), "GAME", &frame, t).unwrap();
        let b = save(dir.path(), "GAME", &frame, t).unwrap();
        assert_eq!(a.file_name().unwrap(), "GAME-20000229-000000.png");
        assert_eq!(b.file_name().unwrap(), "GAME-20000229-000000-2.png");
        assert_eq!(winterp_video::png_file::read(&a).unwrap(), frame);
    }
}
