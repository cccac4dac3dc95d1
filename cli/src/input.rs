//! Opening input files (or standard input) and reading ads from them.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

use classad::format::{Format, Reader};
use classad::ClassAd;

/// An input: a file, or standard input for `-` or no path.
pub struct Input {
    /// How the input is named in messages.
    pub name: String,
    pub stream: Box<dyn BufRead>,
}

impl Input {
    /// Opens `path`; `None` or `-` is standard input.
    pub fn open(path: Option<&Path>) -> Result<Input, String> {
        match path {
            None => Ok(Input::stdin()),
            Some(path) if path == Path::new("-") => Ok(Input::stdin()),
            Some(path) => {
                let file = File::open(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                Ok(Input {
                    name: path.display().to_string(),
                    stream: Box::new(BufReader::with_capacity(1 << 16, file)),
                })
            }
        }
    }

    fn stdin() -> Input {
        Input { name: "standard input".into(), stream: Box::new(io::stdin().lock()) }
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
