//! `negotiator-sim transform`: HTCondor's `condor_transform_ads`, and the
//! schedd's submit-time transforms and submit requirements.
//!
//! With `--rules` files and `--jobtransforms` names, the ads are
//! transformed as `condor_transform_ads` transforms them (in the order
//! given; a `TRANSFORM` iteration in the last one makes several ads of
//! each). With neither, the
//! transforms `JOB_TRANSFORM_NAMES` lists are applied as the schedd
//! applies them at submit time. `--submit-requirements` then checks
//! `SUBMIT_REQUIREMENT_NAMES`: refused ads are left out and their reasons
//! printed on stderr.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use classad::format::{self, Format};
use classad::{ClassAd, Syntax};
use matchmaker::config::Loader;
use matchmaker::schedd::{JobTransforms, Macros, SubmitRequirements, Verdict};

use super::stdout;

/// Arguments of `transform`.
#[derive(clap::Args)]
pub struct Args {
    /// The top configuration file (default: $CONDOR_CONFIG; without either,
    /// HTCondor's defaults). `$(NAME)` in transforms falls back to it.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A rules file (the transform language; `condor_transform_ads -rules`).
    #[arg(long, value_name = "FILE")]
    rules: Vec<String>,
    /// Apply the configuration's JOB_TRANSFORM_<name> for each name of the
    /// list (`condor_transform_ads -jobtransforms`).
    #[arg(long, value_name = "NAMES")]
    jobtransforms: Vec<String>,
    /// Check the configuration's submit requirements after the transforms.
    #[arg(long)]
    submit_requirements: bool,
    /// The schedd's ad, for submit requirements that refer to it.
    #[arg(long, value_name = "FILE", requires = "submit_requirements")]
    schedd_ad: Option<PathBuf>,
    /// Print the ads in the old ClassAd (`-long`) form (the default).
    #[arg(long, conflicts_with = "json")]
    long: bool,
    /// Print the ads as JSON.
    #[arg(long)]
    json: bool,
    /// Print on stderr which transforms applied to each ad.
    #[arg(long, short)]
    verbose: bool,
    /// `KEY=VALUE` variables set before the rules run, then the files of
    /// ads to transform (old, new, JSON or XML form; `-` for stdin).
    #[arg(value_name = "KEY=VALUE | JOBS", required = true)]
    inputs: Vec<String>,
}

/// Runs the command.
pub fn run(args: Args) -> ExitCode {
    match transform(&args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("negotiator-sim transform: {e}");
            ExitCode::FAILURE
        }
    }
}

fn transform(args: &Args) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let file = args.config.clone().or_else(|| std::env::var_os("CONDOR_CONFIG").map(PathBuf::from));
    let tool_mode = !args.rules.is_empty() || !args.jobtransforms.is_empty();
    // condor_transform_ads reads the configuration as a tool; the schedd
    // as SCHEDD (SCHEDD.JOB_TRANSFORM_NAMES wins over JOB_TRANSFORM_NAMES).
    let loader = Loader::new().subsystem(if tool_mode { "TOOL" } else { "SCHEDD" });
    let config = match &file {
        Some(f) => loader.load_file(f)?,
        None => loader.defaults(),
    };
    let mut vars = Macros::new();
    let mut inputs = Vec::new();
    for input in &args.inputs {
        match input.split_once('=') {
            Some((k, v)) if !k.is_empty() && !Path::new(input).exists() => vars.set(k.trim(), v.trim()),
            _ => inputs.push(input.as_str()),
        }
    }
    if inputs.is_empty() {
        return Err("no input file of ads given".into());
    }
    let mut transforms = JobTransforms::new();
    if tool_mode {
        // In the order given on the command line, as condor_transform_ads.
        let mut rules = args.rules.iter();
        let mut names = args.jobtransforms.iter();
        for kind in source_order(std::env::args().skip(1)) {
            match kind {
                SourceKind::Rules => {
                    if let Some(r) = rules.next() {
                        transforms.add_rules_file(r)?;
                    }
                }
                SourceKind::JobTransforms => {
                    if let Some(n) = names.next() {
                        transforms.add_from_config(&config, n);
                    }
                }
            }
        }
        // Whatever the scan missed (an unusual spelling), in a fixed order.
        for n in names {
            transforms.add_from_config(&config, n);
        }
        for r in rules {
            transforms.add_rules_file(r)?;
        }
    } else {
        transforms = JobTransforms::from_config(&config);
    }
    // Every error said on stderr (a transform or requirement that does not
    // read and is skipped, a statement that fails on an ad) makes the exit
    // status 1, once the ads that could be made are printed.
    let mut errors = transforms.messages().len();
    for m in transforms.messages() {
        eprintln!("{m}");
    }
    let requirements = args.submit_requirements.then(|| SubmitRequirements::from_config(&config));
    if let Some(r) = &requirements {
        errors += r.messages().len();
        for m in r.messages() {
            eprintln!("{m}");
        }
    }
    let schedd_ad = match &args.schedd_ad {
        Some(f) => Some(read_ads(&f.to_string_lossy())?.into_iter().next().ok_or("the schedd ad file holds no ad")?),
        None => None,
    };
    let mut out_ads = Vec::new();
    let mut refused = 0usize;
    // As condor_transform_ads: an ad whose transform fails ends the run,
    // after the ads made before it are printed.
    let mut failure = None;
    'inputs: for input in inputs {
        for (n, ad) in read_ads(input)?.into_iter().enumerate() {
            let made = if tool_mode {
                transforms.transform_ads(&ad, &vars, Some(&config))
            } else {
                let mut ad = ad;
                transforms.transform_job(&mut ad, Some(&config)).map(|applied| vec![(ad, applied)])
            };
            let made = match made {
                Ok(made) => made,
                Err(e) => {
                    failure = Some(format!("{input}, ad {}: {e}", n + 1));
                    break 'inputs;
                }
            };
            for (ad, applied) in made {
                let who = identity(&ad, n + 1);
                errors += applied.messages.len();
                for m in &applied.messages {
                    eprintln!("ERROR: {m}");
                }
                if args.verbose {
                    eprintln!("# {who}: transforms applied: {}", applied.names.join(", "));
                }
                if let Some(r) = &requirements {
                    let warnings = match r.check(&ad, schedd_ad.as_ref()) {
                        Verdict::Accepted { warnings } => warnings,
                        Verdict::Refused { reason, warnings, .. } => {
                            for w in warnings {
                                eprintln!("{who}: WARNING: {w}");
                            }
                            eprintln!("{who}: REFUSED: {reason}");
                            refused += 1;
                            continue;
                        }
                    };
                    for w in warnings {
                        eprintln!("{who}: WARNING: {w}");
                    }
                }
                out_ads.push(sorted(&ad));
            }
        }
    }
    let mut stdout = stdout::stdout();
    if args.json {
        // Like condor_transform_ads, nothing at all (not `[]`) for no ads.
        if !out_ads.is_empty() {
            stdout.write_all(format::to_string(&out_ads, Format::Json).as_bytes())?;
        }
    } else {
        for ad in &out_ads {
            let mut text = String::new();
            for (name, expr) in ad.iter() {
                text.push_str(&format!("{} = {}\n", name.as_str(), expr.display(Syntax::Old)));
            }
            text.push('\n');
            stdout.write_all(text.as_bytes())?;
        }
    }
    stdout.flush()?;
    if let Some(f) = failure {
        eprintln!("negotiator-sim transform: {f}");
        return Ok(ExitCode::FAILURE);
    }
    if errors > 0 {
        return Ok(ExitCode::FAILURE);
    }
    Ok(if refused > 0 { ExitCode::from(2) } else { ExitCode::SUCCESS })
}

/// A `--rules` or a `--jobtransforms` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SourceKind {
    Rules,
    JobTransforms,
}

/// The order of the `--rules` and `--jobtransforms` options (also spelled
/// with one dash, or `--rules=FILE`) among the arguments.
fn source_order(args: impl Iterator<Item = String>) -> Vec<SourceKind> {
    let mut out = Vec::new();
    let mut skip_value = false;
    for arg in args {
        if skip_value {
            skip_value = false;
            continue;
        }
        if arg == "--" {
            break;
        }
        let name = arg.trim_start_matches('-');
        if name.len() == arg.len() {
            continue;
        }
        let (name, inline_value) = match name.split_once('=') {
            Some((n, _)) => (n, true),
            None => (name, false),
        };
        let kind = match name {
            "rules" => SourceKind::Rules,
            "jobtransforms" => SourceKind::JobTransforms,
            "config" | "schedd-ad" => {
                skip_value = !inline_value;
                continue;
            }
            _ => continue,
        };
        out.push(kind);
        skip_value = !inline_value;
    }
    out
}

/// `Job C.P`, or `Ad N`.
fn identity(ad: &ClassAd, n: usize) -> String {
    match (ad.eval_attr("ClusterId"), ad.eval_attr("ProcId")) {
        (classad::Value::Int(c), classad::Value::Int(p)) => format!("Job {c}.{p}"),
        _ => format!("Ad {n}"),
    }
}

/// The ad with its attributes sorted by name, ignoring case, as
/// `condor_transform_ads` prints them.
fn sorted(ad: &ClassAd) -> ClassAd {
    let mut attrs: Vec<_> = ad.iter().map(|(n, e)| (n, e.clone())).collect();
    attrs.sort_by_key(|(n, _)| n.as_str().to_ascii_lowercase());
    let mut out = ClassAd::with_capacity(attrs.len());
    for (n, e) in attrs {
        out.insert(n, e);
    }
    out
}

fn read_ads(path: &str) -> Result<Vec<ClassAd>, Box<dyn std::error::Error>> {
    let text = if path == "-" {
        classad::bounded_file::read_stream(std::io::stdin(), std::path::Path::new("<stdin>"))?
    } else {
        classad::bounded_file::read_to_string(std::path::Path::new(path))?
    };
    Ok(format::parse_ads(&text, None).map_err(|e| format!("{path}: {e}"))?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_and_jobtransforms_keep_their_order() {
        let args = ["transform", "--config", "-rules", "-rules", "a.xform", "--jobtransforms=A B", "--rules=b", "j.ad"];
        let order = source_order(args.iter().map(|s| s.to_string()));
        assert_eq!(order, [SourceKind::Rules, SourceKind::JobTransforms, SourceKind::Rules]);
    }
}
