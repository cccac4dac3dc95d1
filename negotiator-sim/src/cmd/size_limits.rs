//! `--max-memory` and `--max-disk`: the limits a run's estimated size is
//! checked against before it starts (see `negotiator_sim::footprint`),
//! flattened into the commands that build large pools or write large
//! files.

use std::path::Path;

use negotiator_sim::footprint::{Footprint, Limit};

/// `--max-memory`.
#[derive(clap::Args)]
pub struct MemoryLimit {
    /// Refuse to start when the memory the run needs, estimated from its
    /// size, is past this (`40G`, `512M`, `unlimited`); default: the
    /// memory this machine has available.
    #[arg(long, value_name = "SIZE", value_parser = parse_limit("--max-memory"))]
    max_memory: Option<Limit>,
}

impl MemoryLimit {
    /// The refusal, as the command prints it, when `estimate` is past the
    /// limit.
    pub fn check(&self, estimate: &Footprint) -> Result<(), String> {
        let limit = self.max_memory.clone().unwrap_or_else(Limit::available_memory);
        estimate.check(&limit).map_err(|e| format!("{e}; give --max-memory SIZE (or unlimited) to run it anyway"))
    }
}

/// `--max-disk`.
#[derive(clap::Args)]
pub struct DiskLimit {
    /// Refuse to start when the files the run writes, estimated from its
    /// size, are past this (`100G`, `unlimited`); default: the free space
    /// of the output directory's file system.
    #[arg(long, value_name = "SIZE", value_parser = parse_limit("--max-disk"))]
    max_disk: Option<Limit>,
}

impl DiskLimit {
    /// The refusal, as the command prints it, when `estimate` is past the
    /// limit for files written into `dir`.
    pub fn check(&self, estimate: &Footprint, dir: &Path) -> Result<(), String> {
        let limit = self.max_disk.clone().unwrap_or_else(|| Limit::free_space(dir));
        estimate.check(&limit).map_err(|e| format!("{e}; give --max-disk SIZE (or unlimited) to write them anyway"))
    }
}

/// A size (`40G`, `512 Mb`, bytes) or `unlimited`.
fn parse_limit(option: &'static str) -> impl Fn(&str) -> Result<Limit, String> + Clone {
    move |text| {
        if text.trim().eq_ignore_ascii_case("unlimited") {
            return Ok(Limit::Unlimited);
        }
        match matchmaker::config::parse_size(text) {
            Some(bytes) => Ok(Limit::Bytes { bytes, source: format!("given by {option}") }),
            None => Err(format!("`{text}` is not a size (a number with K, M, G or T, or unlimited)")),
        }
    }
}
