//! What the daemons' tests share (the `test-support` feature, for their
//! dev-dependencies; nothing a daemon runs).

use std::io::Write;
use std::process::{Command, Stdio};

/// `promtool check metrics` on `text` (a `/metrics` answer), where
/// promtool is installed: an error with what promtool said if it does not
/// take the text as it is (a complaint, even a lint warning, fails), or if
/// it could not be given the text. Without promtool, says so on stderr and
/// passes.
///
/// ```
/// let text = "# HELP up Whether it is up.\n# TYPE up gauge\nup 1\n";
/// daemon_http::test_support::promtool_check(text)?;
/// # Ok::<(), String>(())
/// ```
pub fn promtool_check(text: &str) -> Result<(), String> {
    let Ok(mut child) = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    else {
        eprintln!("promtool is not installed: skipped its check");
        return Ok(());
    };
    let fed = match child.stdin.take() {
        Some(mut stdin) => stdin.write_all(text.as_bytes()).map_err(|e| format!("promtool's stdin: {e}")),
        None => Err("promtool has no stdin".to_owned()),
    };
    // Waited for even when the text could not be given, not to leave it behind.
    let out = child.wait_with_output().map_err(|e| format!("promtool: {e}"))?;
    fed?;
    let said = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    if out.status.success() && said.trim().is_empty() {
        Ok(())
    } else {
        Err(format!("promtool check metrics: {said}"))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_text_promtool_refuses_is_an_error() {
        if std::process::Command::new("promtool").arg("--version").output().is_err() {
            return; // nothing to check it with
        }
        let said = super::promtool_check("htcondor_x{a=\"1\" 2\n").expect_err("a malformed line");
        assert!(said.starts_with("promtool check metrics: "), "{said}");
    }
}
