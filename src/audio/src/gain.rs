//! DirectSound's volume and pan law.
//!
//! DSBVOLUME is an attenuation in hundredths of a decibel (0 = as recorded, -10000 =
//! DSBVOLUME_MIN, silent). DSBPAN attenuates the opposite channel by |pan| hundredths
//! of a decibel: +10000 (DSBPAN_RIGHT) silences the left channel, -10000 the right,
//! and the channel on the panned side keeps its level. The two attenuations add, in
//! decibels, so a channel's amplitude factor is 10^(-(attenuation)/2000).

/// DSBVOLUME_MIN: -100 dB, which DirectSound documents as silence.
pub const VOLUME_MIN: i32 = -10000;
/// DSBPAN_LEFT / DSBPAN_RIGHT.
pub const PAN_LIMIT: i32 = 10000;

/// Amplitude factor for an attenuation in hundredths of a decibel; 100 dB or more is
/// silence, as DSBVOLUME_MIN is.
pub fn factor(attenuation_centibels: i32) -> f32 {
    if attenuation_centibels <= 0 {
        return 1.0;
    }
    if attenuation_centibels >= -VOLUME_MIN {
        return 0.0;
    }
    10f64.powf(-f64::from(attenuation_centibels) / 2000.0) as f32
}

/// (left, right) amplitude factors for a DSBVOLUME and a DSBPAN; values outside the
/// documented ranges are clamped to them.
pub fn stereo(volume: i32, pan: i32) -> (f32, f32) {
    let att = -volume.clamp(VOLUME_MIN, 0);
    let pan = pan.clamp(-PAN_LIMIT, PAN_LIMIT);
    let left = att + pan.max(0);
    let right = att + (-pan).max(0);
    (factor(left), factor(right))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f32, b: f64) -> bool {
        (f64::from(a) - b).abs() < 1e-6
    }

    #[test]
    fn full_volume_centred_is_unity() {
        assert_eq!(stereo(0, 0), (1.0, 1.0));
    }

    #[test]
    fn volume_is_hundredths_of_a_decibel() {
        // -600 = -6 dB: 10^(-6/20) = 0.501187...
        let (l, r) = stereo(-600, 0);
        assert!(
            close(l, 0.501_187_233_6) && close(r, 0.501_187_233_6),
            "{l} {r}"
        );
        // -2000 = -20 dB = 0.1 exactly in amplitude.
        let (l, r) = stereo(-2000, 0);
        assert!(close(l, 0.1) && close(r, 0.1), "{l} {r}");
        assert_eq!(stereo(-10000, 0), (0.0, 0.0));
    }

    #[test]
    fn pan_attenuates_the_opposite_channel_only() {
        // Pan right by 12 dB: left at 10^(-12/20) = 0.251188..., right untouched.
        let (l, r) = stereo(0, 1200);
        assert!(close(l, 0.251_188_643_2), "{l}");
        assert_eq!(r, 1.0);
        let (l, r) = stereo(0, -1200);
        assert_eq!(l, 1.0);
        assert!(close(r, 0.251_188_643_2), "{r}");
        assert_eq!(stereo(0, 10000), (0.0, 1.0));
        assert_eq!(stereo(0, -10000), (1.0, 0.0));
    }

    #[test]
    fn volume_and_pan_add_in_decibels() {
        // -10 dB volume, pan left 10 dB: left -10 dB = 0.316227..., right -20 dB = 0.1.
        let (l, r) = stereo(-1000, -1000);
        assert!(close(l, 0.316_227_766_0), "{l}");
        assert!(close(r, 0.1), "{r}");
        // Out-of-range values clamp: a volume above 0 is full volume.
        assert_eq!(stereo(500, 0), (1.0, 1.0));
    }
}
