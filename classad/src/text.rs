//! [`Text`]: the string type of literals and values.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use smol_str::SmolStr;

/// An immutable string: up to 23 bytes are stored inline (no allocation),
/// longer strings are shared, so cloning never copies text.
///
/// ```
/// use classad::Text;
/// let t = Text::from("X86_64");
/// assert_eq!(t.as_str(), "X86_64");
/// assert_eq!(&*t, "X86_64");
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Text(SmolStr);

impl Text {
    /// A text with these contents.
    pub fn new(text: &str) -> Text {
        Text(SmolStr::new(text))
    }

    /// The contents.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for Text {
    type Target = str;

    fn deref(&self) -> &str {
        self.0.as_str()
    }
}

impl AsRef<str> for Text {
    fn as_ref(&self) -> &str {
        self.0.as_str()
    }
}

impl Borrow<str> for Text {
    fn borrow(&self) -> &str {
        self.0.as_str()
    }
}

impl From<&str> for Text {
    fn from(text: &str) -> Text {
        Text::new(text)
    }
}

impl From<String> for Text {
    fn from(text: String) -> Text {
        Text(SmolStr::from(text))
    }
}

impl From<Text> for String {
    fn from(text: Text) -> String {
        text.0.to_string()
    }
}

impl PartialEq<str> for Text {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Text {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The contents, unquoted.
impl fmt::Display for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Text {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}
