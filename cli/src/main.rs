//! `classad`: the ClassAd command-line tool.
//!
//! ```text
//! classad eval [--semantics new|old] [--my FILE] [--target FILE] [--labels|-v] [--] EXPR...
//! classad convert [--from auto|old|new|json|xml] [--to old|new|json|xml] [--skip-bad] [FILE|-]
//! classad simplify [--semantics new|old] [--my FILE] [--refs] [--] EXPR...
//! classad analyze [--semantics old|new] --job FILE --machines FILE [--machine NAME] [--json]
//! classad lint [--against FILE]... [--my FILE] [--json] EXPR|ATTR=EXPR|FILE...
//! classad query [--constraint EXPR] [--af EXPR...] [--af-options FLAGS] [--format FMT EXPR]...
//!               [--sort EXPR]... [--limit N] [--semantics old|new] [--from auto|old|new|json|xml]
//!               [--to old|new|json|xml] [-l] [--ads FILE | FILE | -]
//! ```
//!
//! Options may come before or after the expressions and files, up to a
//! `--`; everything after `--` is an expression or a file. An argument
//! starting with `-` is an option unless it is a number or an expression
//! that does not start with `-` and a letter (`-1`, `-5 + 1`, `-(x)`);
//! put `-x` after `--`. HTCondor's single-dash spellings of the long
//! options are accepted (`-constraint`, `-af`, `-semantics`); an unknown
//! option is an error (status 2).
//!
//! Exit status: 0 on success; 1 when an expression or an ad of the input
//! is bad (reported in the output or on standard error); 2 when a file
//! cannot be read or written, or the command line is wrong.

mod analyze;
mod args;
mod convert;
mod eval;
mod input;
mod lint;
mod printf;
mod query;
mod simplify;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand, ValueEnum};

use classad::format::Format;
use classad::Semantics;

#[derive(Parser)]
#[command(name = "classad", version, about = "Evaluate, inspect and convert HTCondor ClassAds")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate expressions, printing one value per line in canonical new syntax.
    ///
    /// Each EXPR is evaluated in the context of the MY ad (and, when given,
    /// with the TARGET ad as its match partner). A line starting
    /// `parse error:` reports an EXPR that does not parse; the exit status
    /// is then 1. Time functions use the TZ environment variable.
    Eval {
        /// Evaluation semantics: `new` (libclassad's default) or `old`
        /// (HTCondor's daemons and tools: unscoped names fall back to TARGET).
        #[arg(long, value_enum, default_value_t = SemanticsArg::New)]
        semantics: SemanticsArg,
        /// File holding the MY ad, in any format (its first ad is used;
        /// `-` reads standard input).
        #[arg(long, value_name = "FILE")]
        my: Option<PathBuf>,
        /// File holding the TARGET ad, in any format (its first ad is used).
        #[arg(long, value_name = "FILE")]
        target: Option<PathBuf>,
        /// Print each value after its expression, as `EXPR = value`.
        #[arg(long, short = 'v')]
        labels: bool,
        /// Expressions to evaluate, in order.
        #[arg(required = true, value_name = "EXPR")]
        exprs: Vec<String>,
    },
    /// Convert a stream of ads from one format to another.
    ///
    /// Ads are read and written one at a time, so inputs of any size pass
    /// through in the memory of their largest ad. A bad ad is reported on
    /// standard error with its position (ad number, line and column) and
    /// stops the conversion (or, with --skip-bad, is left out); the exit
    /// status is then 1.
    Convert {
        /// The input's format; `auto` detects it from the first bytes.
        #[arg(long, value_enum, default_value_t = FromArg::Auto)]
        from: FromArg,
        /// The output's format.
        #[arg(long, value_enum, default_value_t = ToArg::New)]
        to: ToArg,
        /// Leave out bad ads and go on with the next one.
        #[arg(long)]
        skip_bad: bool,
        /// The input file; `-` or nothing reads standard input.
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
    },
    /// Flatten expressions in the scope of an ad (partial evaluation, as
    /// libclassad's Flatten), printing one line per EXPR (three with
    /// --refs).
    ///
    /// What the ad determines is computed (attributes whose expressions
    /// flatten to values, operators and calls on known values, known
    /// conditions, `true && x`); everything else is left as written. A
    /// line starting `parse error:` or `flatten error:` reports an EXPR
    /// that does not parse or refers in a cycle; the exit status is then 1.
    Simplify {
        /// Evaluation semantics: `new` (libclassad's default) or `old`.
        #[arg(long, value_enum, default_value_t = SemanticsArg::New)]
        semantics: SemanticsArg,
        /// File holding the ad, in any format (its first ad is used; `-`
        /// reads standard input). Without one, an empty ad.
        #[arg(long, value_name = "FILE")]
        my: Option<PathBuf>,
        /// After each flattened EXPR, two more lines: `  external: ` and the
        /// attributes it needs from outside the ad, `  internal: ` and those
        /// of the ad it uses (libclassad's full names, comma-separated), or
        /// `cannot be determined` (a cycle, a selection from a non-ad).
        #[arg(long)]
        refs: bool,
        /// Expressions to flatten, in order.
        #[arg(required = true, value_name = "EXPR")]
        exprs: Vec<String>,
    },
    /// Explain why a job matches few or no machines (as `condor_q
    /// -better-analyze`, and its `:reverse` for the machines' side).
    ///
    /// Counts the machine ads (those with MyType "Machine" when the stream
    /// mixes types) that the job's Requirements rejects, that reject the
    /// job by their own Requirements, and that match; lists each condition
    /// of the job's Requirements with the machines that satisfy it (most
    /// restrictive first), the conditions of the machines' Requirements
    /// (START and the like unfolded) that reject the job with the number
    /// of machines each rejects it on, the attributes missing from the job
    /// (not those the policies test for UNDEFINED), and the changes that
    /// would let more machines match.
    Analyze {
        /// Evaluation semantics (HTCondor's tools use `old`).
        #[arg(long, value_enum, default_value_t = SemanticsArg::Old)]
        semantics: SemanticsArg,
        /// File holding the job ad, in any format (its first ad is used).
        #[arg(long, value_name = "FILE")]
        job: PathBuf,
        /// File of machine ads, in any format (`-` reads standard input).
        #[arg(long, value_name = "FILE")]
        machines: PathBuf,
        /// Analyze only the slot whose Name is NAME (or the slots of the
        /// machine whose Machine is NAME), and show its Requirements
        /// condition by condition with each one's value for the job.
        #[arg(long = "machine", value_name = "NAME")]
        machine: Option<String>,
        /// Print one JSON object instead of the report for a person.
        #[arg(long)]
        json: bool,
    },
    /// Find mistakes in policy expressions.
    ///
    /// Each argument that names a file is read as ads (any format) and
    /// every attribute of every ad is checked in the context of its ad;
    /// an argument `ATTR = EXPR` is checked as that attribute of the --my
    /// ad (or of an ad of its own); any other argument is an expression.
    /// Findings (kind names as in --json): undefined-comparison (`x ==
    /// UNDEFINED`, always UNDEFINED), string-arithmetic (and the
    /// precedence trap of `Owner == "a" * 10`), negated-comparison (`!x ==
    /// y`), mixed-and-or (`a && b || c` without parentheses),
    /// chained-comparison (`1 < x < 10`), string-number-comparison,
    /// string-boolean-comparison, string-condition (`x || "LINUX"`),
    /// bitwise-logic (`a & b` for `a && b`), unknown-function, arity,
    /// constant-error (`1 / 0`), constant-condition (a clause that is
    /// always true or false), unknown-attribute (`MY.x` the ad lacks;
    /// with --against, `TARGET.x` and `x` no ad defines, unless the
    /// expression tests them for UNDEFINED), case-sensitive-comparison
    /// (`x =?= "linux"` when the ads say "LINUX") and, in files,
    /// cyclic-reference (an attribute that refers back to itself).
    ///
    /// Output: per finding, `SOURCE: SEVERITY KIND: MESSAGE`, then the
    /// part concerned (`in:`) and a replacement when there is one
    /// (`suggestion:`); SOURCE is the argument or `FILE: ad N: ATTR`.
    /// With --json, one array of objects with `source`, `file`, `ad`,
    /// `attribute` (null for expressions), `kind`, `severity` (`error` or
    /// `warning`), `message`, `expr` and `suggestion` (or null).
    ///
    /// Exit status: 0 without findings, 1 with findings or an expression
    /// or ad that does not parse, 2 when a file cannot be read.
    Lint {
        /// Ads the expressions will meet (machines for a job's
        /// Requirements, jobs for a machine's START; any format; may be
        /// given more than once): attributes none of them defines are
        /// reported, and their values' types are checked.
        #[arg(long, value_name = "FILE")]
        against: Vec<PathBuf>,
        /// File holding the ad the EXPRs belong to (its first ad; any
        /// format): its attributes are known, and `MY.x` is checked in it.
        #[arg(long, value_name = "FILE")]
        my: Option<PathBuf>,
        /// Print the findings as one JSON array.
        #[arg(long)]
        json: bool,
        /// Expressions, or files of ads (after `--` when one starts with `-`).
        #[arg(required = true, value_name = "EXPR|FILE")]
        items: Vec<String>,
    },
    /// Select ads and print them or some of their values (as
    /// `condor_status -ads FILE -constraint EXPR -sort EXPR -af ATTR...`
    /// does; those spellings work too, with `-af:FLAGS`, `-format FMT
    /// EXPR`, `-limit N` and `-l`).
    ///
    /// Reads a stream of ads in any format; keeps those for which the
    /// constraint evaluates to true (every ad without one); prints them
    /// whole in the --to format (the default is condor_status -l's), or
    /// with --af one line per ad of the values of the given attributes or
    /// expressions, separated by spaces (strings bare, other values as
    /// HTCondor prints them: `2.5`, `7.0`, `undefined`). Without --sort
    /// the ads keep their input order and each is printed as soon as it
    /// is read (condor_status sorts by Machine and Name by default); with
    /// it they are read whole first. Exit status: 0; 1 when an
    /// expression or an ad does not parse; 2 when the file cannot be read.
    Query {
        /// Keep only the ads for which this expression is true
        /// (`-constraint`).
        #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
        constraint: Option<String>,
        /// Print these attributes or expressions, one line per ad (`-af`,
        /// `-autoformat`). It takes the arguments after it up to the next
        /// one starting with `-`: put FILE before it, after `--` or in
        /// --ads.
        #[arg(long = "af", alias = "autoformat", value_name = "EXPR", num_args = 1..)]
        autoformat: Vec<String>,
        /// How --af lays out its lines: condor_status's `-af:FLAGS`
        /// letters (`-af:h A B` is `--af-options h --af A B`): `h` a
        /// header line and aligned columns, `l` `EXPR = value`, `j` the
        /// job ID (`ClusterId.ProcId`) first as condor_q prints it, `V`
        /// strings quoted, `r` attributes' expressions unevaluated, `t`
        /// tabs between columns, `,` commas, `n` a line per value, `g` a
        /// blank line per ad and no separator.
        #[arg(
            long = "af-options",
            value_name = "FLAGS",
            default_value = "",
            hide_default_value = true,
            value_parser = af_options
        )]
        af_options: String,
        /// Print EXPR's value through the printf-style FMT, as
        /// condor_status -format (`-format`); give it again for more. No
        /// newline is added; `\n` in FMT is one. A value that does not
        /// suit FMT's conversion (a string for `%d`, UNDEFINED for `%s`)
        /// prints nothing.
        #[arg(
            long,
            num_args = 2,
            value_names = ["FMT", "EXPR"],
            allow_hyphen_values = true,
            conflicts_with = "autoformat"
        )]
        format: Vec<String>,
        /// Sort by this expression's value, as condor_status -sort does;
        /// give it again for ties. Numbers (and booleans, as 0 and 1) by
        /// value, everything else by its text in HTCondor's natural order
        /// (digit runs as numbers, case-sensitive: "B" before "a"; numbers
        /// before letters). Ads where a sort expression is UNDEFINED are
        /// left out, as condor_status does; ties keep their input order.
        #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
        sort: Vec<String>,
        /// Print at most N ads: the first N selected (with --sort, the
        /// first N with every sort key defined), as condor_status -limit.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Evaluation semantics (HTCondor's tools use `old`).
        #[arg(long, value_enum, default_value_t = SemanticsArg::Old)]
        semantics: SemanticsArg,
        /// The input's format; `auto` detects it from the first bytes.
        #[arg(long, value_enum, default_value_t = FromArg::Auto)]
        from: FromArg,
        /// The format of whole ads (without --af); `old` is
        /// `condor_status -long`'s.
        #[arg(long, value_enum, default_value_t = ToArg::Old)]
        to: ToArg,
        /// Whole ads in the old format (`-l`, `-long`), the default.
        #[arg(short = 'l', long = "long", conflicts_with_all = ["autoformat", "format"])]
        long: bool,
        /// The input file (as condor_status -ads FILE).
        #[arg(long = "ads", value_name = "FILE", conflicts_with = "file")]
        ads: Option<PathBuf>,
        /// The input file; `-` or nothing reads standard input.
        #[arg(value_name = "FILE")]
        file: Option<PathBuf>,
    },
}

/// The letters `-af:` takes.
fn af_options(flags: &str) -> Result<String, String> {
    match flags.chars().find(|c| !"hjlrVotng,".contains(*c)) {
        Some(c) => Err(format!("unknown letter {c:?} (known: h j l r V t n g ,)")),
        None => Ok(flags.to_owned()),
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum SemanticsArg {
    New,
    Old,
}

impl From<SemanticsArg> for Semantics {
    fn from(arg: SemanticsArg) -> Semantics {
        match arg {
            SemanticsArg::New => Semantics::New,
            SemanticsArg::Old => Semantics::Old,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum FromArg {
    Auto,
    Old,
    New,
    Json,
    Xml,
}

#[derive(Clone, Copy, ValueEnum)]
enum ToArg {
    Old,
    New,
    Json,
    Xml,
}

impl From<FromArg> for Option<Format> {
    fn from(arg: FromArg) -> Option<Format> {
        match arg {
            FromArg::Auto => None,
            FromArg::Old => Some(Format::Old),
            FromArg::New => Some(Format::New),
            FromArg::Json => Some(Format::Json),
            FromArg::Xml => Some(Format::Xml),
        }
    }
}

impl From<ToArg> for Format {
    fn from(arg: ToArg) -> Format {
        match arg {
            ToArg::Old => Format::Old,
            ToArg::New => Format::New,
            ToArg::Json => Format::Json,
            ToArg::Xml => Format::Xml,
        }
    }
}

fn main() -> ExitCode {
    let args = args::normalize(&Cli::command(), std::env::args_os().collect());
    match Cli::parse_from(args).command {
        Command::Eval { semantics, my, target, labels, exprs } => {
            eval::run(semantics.into(), my.as_deref(), target.as_deref(), labels, &exprs)
        }
        Command::Lint { against, my, json, items } => lint::run(&against, my.as_deref(), json, &items),
        Command::Simplify { semantics, my, refs, exprs } => {
            simplify::run(semantics.into(), my.as_deref(), refs, &exprs)
        }
        Command::Analyze { semantics, job, machines, machine, json } => {
            analyze::run(semantics.into(), &job, &machines, machine.as_deref(), json)
        }
        Command::Convert { from, to, skip_bad, file } => {
            convert::run(from.into(), to.into(), skip_bad, file.as_deref())
        }
        Command::Query {
            constraint,
            autoformat,
            af_options,
            format,
            sort,
            limit,
            semantics,
            from,
            to,
            long,
            ads,
            file,
        } => query::run(&query::Query {
            semantics: semantics.into(),
            constraint: constraint.as_deref(),
            autoformat: &autoformat,
            af_options: &af_options,
            format: &format,
            sort: &sort,
            limit,
            from: from.into(),
            to: if long { Format::Old } else { to.into() },
            file: ads.as_deref().or(file.as_deref()),
        }),
    }
}

/// A failed write of the output; a closed pipe (`classad ... | head`) is
/// not an error worth a message.
fn write_failed(error: &std::io::Error) -> ExitCode {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        return ExitCode::SUCCESS;
    }
    fail(&format!("cannot write the output: {error}"))
}

/// Reports a problem that ends the command on standard error.
fn fail(message: &str) -> ExitCode {
    eprintln!("classad: {message}");
    ExitCode::from(2)
}
