//! The PE loader: maps an image and its imports into a process.
