//! `classad convert`: a stream of ads from one format to another.

use std::io::{self, BufWriter};
use std::path::Path;
use std::process::ExitCode;

use classad::format::{Format, Writer};

use crate::input::Input;
use crate::{fail, write_failed};

pub fn run(from: Option<Format>, to: Format, skip_bad: bool, path: Option<&Path>) -> ExitCode {
    let input = match Input::open(path) {
        Ok(input) => input,
        Err(message) => return fail(&message),
    };
    let name = input.name.clone();
    let mut writer = Writer::new(BufWriter::with_capacity(1 << 16, io::stdout().lock()), to);
    let mut bad = false;
    for ad in input.ads(from).skip_bad_ads(skip_bad) {
        let written = match ad {
            Ok(ad) => writer.write(&ad),
            Err(e) => {
                eprintln!("classad: {name}: {e}");
                bad = true;
                continue;
            }
        };
        if let Err(e) = written {
            return write_failed(&e);
        }
    }
    if let Err(e) = writer.finish() {
        return write_failed(&e);
    }
    if bad {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
