//! Writes the ads of the batch-matching benchmarks, one per line in new
//! syntax, for libclassad's side of the comparison
//! (`benches/anchor/batch-match.sh`).
//!
//! ```text
//! bench-ads anchor-machines N   the anchor's synthetic machine ads 0..N
//! bench-ads anchor-job          the anchor's job ad 0
//! bench-ads pool-machines       the pool sample's Machine ads, refreshed
//! bench-ads pool-jobs           the four test jobs
//! ```

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use classad_benches::anchor::{job_ad_text, machine_ad_text};
use classad_benches::pool;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out = io::stdout().lock();
    let mut out = BufWriter::new(out);
    let written = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["anchor-machines", n] => match n.parse::<u32>() {
            Ok(n) => (0..n).try_for_each(|i| writeln!(out, "{}", machine_ad_text(i))),
            Err(e) => {
                eprintln!("bench-ads: bad count {n}: {e}");
                return ExitCode::from(2);
            }
        },
        ["anchor-job"] => writeln!(out, "{}", job_ad_text(0)),
        ["pool-machines"] => pool::machines(true).iter().try_for_each(|ad| writeln!(out, "{ad}")),
        ["pool-jobs"] => pool::jobs().iter().try_for_each(|ad| writeln!(out, "{ad}")),
        _ => {
            eprintln!("usage: bench-ads anchor-machines N | anchor-job | pool-machines | pool-jobs");
            return ExitCode::from(2);
        }
    };
    match written.and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-ads: {e}");
            ExitCode::from(1)
        }
    }
}
