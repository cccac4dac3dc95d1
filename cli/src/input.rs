//! Opening input files (or standard input) and reading ads from them.

use std::io::{self, BufRead};
use std::path::Path;

use classad::format::{self, Format, InputError, Reader};
use classad::ClassAd;

/// An input: a file, or standard input for `-` or no path.
pub struct Input {
    /// How the input is named in messages.
    pub name: String,
    pub stream: Box<dyn BufRead>,
}

impl Input {
    /// Opens `path`; `None` or `-` is standard input. Gzip is decompressed
    /// and a UTF-8 byte order mark skipped; a directory, a file that
    /// cannot be read, binary data and other compressions are errors.
    pub fn open(path: Option<&Path>) -> Result<Input, String> {
        match path {
            None => Input::stdin(),
            Some(path) if path == Path::new("-") => Input::stdin(),
            Some(path) => {
                let name = path.display().to_string();
                let stream = format::open(path).map_err(|e| describe(&name, &e))?;
                Ok(Input { name, stream })
            }
        }
    }

    fn stdin() -> Result<Input, String> {
        let name = "standard input".to_string();
        let stream = format::decode(io::stdin().lock()).map_err(|e| describe(&name, &e))?;
        Ok(Input { name, stream })
    }

    /// A reader of the ads of this input, in `format` or the detected one.
    pub fn ads(self, format: Option<Format>) -> Reader<Box<dyn BufRead>> {
        Reader::new(self.stream, format)
    }
}

/// The first ad of the file at `path`, in whichever format it is written.
pub fn first_ad(path: &Path) -> Result<ClassAd, String> {
    let input = Input::open(Some(path))?;
    let name = input.name.clone();
    match input.ads(None).next() {
        Some(Ok(ad)) => Ok(ad),
        Some(Err(e)) => Err(format!("{name}: {e}")),
        None => Err(format!("{name}: no ad in the file")),
    }
}

/// The message of an input that cannot be read.
fn describe(name: &str, error: &InputError) -> String {
    match error {
        InputError::Io(_) | InputError::Directory => format!("cannot read {name}: {error}"),
        _ => format!("{name}: {error}"),
    }
}
