//! winterp-video: guest surfaces to RGBA, scaling and presentation. Arrives with issue 4.
