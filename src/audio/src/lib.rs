//! winterp-audio: the mixer and cpal output. Arrives with issue 5.
