//! The command line as HTCondor's tools take it, turned into one clap
//! parses without guessing.
//!
//! * Options may come anywhere before a `--`, before or after the
//!   expressions and files: the arguments that are not options (nor
//!   option values) are moved after a `--`, in their order, so an
//!   argument starting with `-` that is not an option (`-5 + 1`, `-1`,
//!   `-(x)`) is an expression, and an unknown option (`--semantic`) is an
//!   error rather than an expression.
//! * HTCondor's single-dash spellings of long options are accepted:
//!   `-constraint EXPR` is `--constraint EXPR`, `-af:h A B` is
//!   `--af-options h --af A B`.
//! * A `--af` (as `condor_status -af`) takes the arguments after it up to
//!   the next one that starts with `-`.

use std::ffi::OsString;

use clap::{Arg, Command};

/// `args` (the program name first) with the options of the subcommand
/// first and the other arguments after a `--`.
pub fn normalize(command: &Command, args: Vec<OsString>) -> Vec<OsString> {
    let mut args = args.into_iter();
    let mut out: Vec<OsString> = args.by_ref().take(1).collect();
    // The subcommand: the first argument that is not an option of the
    // program itself (`--help`, `--version`).
    let mut sub = None;
    for arg in args.by_ref() {
        let starts_with_dash = arg.to_str().is_some_and(|a| a.starts_with('-'));
        out.push(arg.clone());
        if !starts_with_dash {
            sub = arg.to_str().and_then(|name| command.find_subcommand(name)).cloned();
            break;
        }
    }
    let Some(mut sub) = sub else {
        out.extend(args);
        return out;
    };
    sub.build();
    let mut positional: Vec<OsString> = Vec::new();
    let mut rest: Vec<OsString> = Vec::new();
    let mut args = args.peekable();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            positional.push(arg);
            continue;
        };
        if text == "--" {
            rest.extend(args.by_ref());
            break;
        }
        let (option, emit, inline_value) = match classify(&sub, text) {
            Token::NotOption => {
                positional.push(arg);
                continue;
            }
            Token::Unknown => {
                // Left in place for clap to report.
                out.push(arg);
                continue;
            }
            Token::Option { option, emit, inline_value } => (option, emit, inline_value),
        };
        out.extend(emit.into_iter().map(OsString::from));
        if inline_value || !option.get_action().takes_values() {
            continue;
        }
        let Some(range) = option.get_num_args() else {
            continue;
        };
        if range.max_values() == usize::MAX {
            // As condor_status -af: up to the next argument starting with `-`.
            while let Some(next) = args.next_if(|a| !a.to_str().is_some_and(|a| a.starts_with('-'))) {
                out.push(next);
            }
        } else {
            for _ in 0..range.min_values().max(1) {
                match args.next() {
                    Some(value) => out.push(value),
                    None => break,
                }
            }
        }
    }
    if !positional.is_empty() || !rest.is_empty() {
        out.push(OsString::from("--"));
        out.extend(positional);
        out.extend(rest);
    }
    out
}

/// What one argument is.
enum Token<'c> {
    /// An expression, a file, `-`.
    NotOption,
    /// Something spelled as an option that the subcommand does not have.
    Unknown,
    /// An option: the arguments to pass on for it, and whether its value
    /// was in the same argument (`--sort=Name`).
    Option { option: &'c Arg, emit: Vec<String>, inline_value: bool },
}

fn classify<'c>(sub: &'c Command, text: &str) -> Token<'c> {
    let bytes = text.as_bytes();
    let (single_dash, body) = match bytes {
        [b'-', b'-', c, ..] if c.is_ascii_alphabetic() => (false, &text[2..]),
        [b'-', c, ..] if c.is_ascii_alphabetic() => (true, &text[1..]),
        _ => return Token::NotOption,
    };
    let (name, value) = match body.split_once('=') {
        Some((name, value)) if !single_dash => (name, Some(value)),
        _ => (body, None),
    };
    // `-af:FLAGS`: condor_status's autoformat options.
    let (name, flags) = match name.split_once(':') {
        Some((name, flags)) => (name, Some(flags)),
        None => (name, None),
    };
    if !single_dash || body.len() > 1 {
        if let Some(option) = find_long(sub, name) {
            let long = option.get_long().unwrap_or(name);
            let mut emit = Vec::new();
            if let Some(flags) = flags {
                match find_long(sub, &format!("{long}-options")) {
                    Some(_) => emit.extend([format!("--{long}-options"), flags.to_owned()]),
                    None => return Token::Unknown,
                }
            }
            emit.push(match value {
                Some(value) => format!("--{long}={value}"),
                None => format!("--{long}"),
            });
            return Token::Option { option, emit, inline_value: value.is_some() };
        }
    }
    if single_dash {
        let mut chars = body.chars();
        if let Some(option) = chars.next().and_then(|c| sub.get_arguments().find(|a| a.get_short() == Some(c))) {
            // `-v`; `-vl` (flags together) and `-Ivalue` go to clap as written.
            let inline_value = !chars.as_str().is_empty();
            return Token::Option { option, emit: vec![text.to_owned()], inline_value };
        }
    }
    Token::Unknown
}

fn find_long<'c>(sub: &'c Command, name: &str) -> Option<&'c Arg> {
    sub.get_arguments()
        .find(|a| a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|aliases| aliases.contains(&name)))
}
