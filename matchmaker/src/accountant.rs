//! User priorities.
