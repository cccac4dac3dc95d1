//! Transforms written as a ClassAd (the form before HTCondor 8.9), turned
//! into the transform language as the schedd turns them.
//!
//! ```text
//! JOB_TRANSFORM_Mem = [ Requirements = RequestMemory < 1024; set_RequestMemory = 1024;
//!                       copy_Owner = "OriginalOwner"; delete_Foo = true;
//!                       eval_set_Doubled = RequestMemory * 2 ]
//! ```
//!
//! - `Name` names the transform; `TargetUniverse` becomes `UNIVERSE`.
//! - `Requirements` becomes `REQUIREMENTS`, simplified against the other
//!   attributes of the ad and with `TARGET.` prefixes dropped (the job is
//!   the ad being transformed).
//! - `copy_A = "B"` becomes `COPY A B`, `delete_A` `DELETE A`, `set_A = e`
//!   `SET A e`, and `eval_set_A = e` `EVALSET A e` with `e` simplified
//!   against the other attributes of the ad (and then its `TARGET.`
//!   prefixes made `MY.`, when it refers to some of them): in that order (copies first,
//!   then deletions, settings, evaluated settings), each group sorted by
//!   attribute name.
//! - Every other attribute becomes a variable (`A = value`, a string
//!   without its quotes).

use std::collections::BTreeMap;

use classad::{ClassAd, EvalOptions, Expr, Literal, Syntax};

use super::scopes::rename_scopes;

/// The transform-language text of a ClassAd-form transform; `name` is
/// replaced by the ad's `Name`, if it has one.
pub(crate) fn convert(ad: &ClassAd, name: &mut String) -> String {
    // Sorted by name ignoring case, as HTCondor's maps are.
    let mut assignments = BTreeMap::new();
    let mut copies = BTreeMap::new();
    let mut deletes = BTreeMap::new();
    let mut sets = BTreeMap::new();
    let mut eval_sets = BTreeMap::new();
    let mut requirements = None;
    let mut universe = None;
    let options = super::macros::options();
    let key = |s: &str| s.to_ascii_lowercase();
    for (attr, expr) in ad.iter() {
        let attr = attr.as_str();
        let lower = attr.to_ascii_lowercase();
        if let Some(a) = prefixed(attr, "copy_") {
            if let classad::Value::Str(s) = ad.eval_attr(attr) {
                copies.insert(key(a), (a.to_string(), s.to_string()));
            }
        } else if let Some(a) = prefixed(attr, "delete_") {
            deletes.insert(key(a), a.to_string());
        } else if let Some(a) = prefixed(attr, "set_") {
            sets.insert(key(a), (a.to_string(), expr.display(Syntax::Old).to_string()));
        } else if let Some(a) = prefixed(attr, "eval_set_") {
            // Simplified, `TARGET.` (the job, in a route) becomes `MY.`.
            let flat = simplify(&options, ad, expr, false);
            let flat = if flat.same_as(expr) { flat } else { rename_scopes(&flat, &[("TARGET", "MY")]) };
            eval_sets.insert(key(a), (a.to_string(), flat.display(Syntax::Old).to_string()));
        } else if lower == "name" {
            if let classad::Value::Str(s) = ad.eval_attr(attr) {
                *name = s.to_string();
            }
        } else if lower == "targetuniverse" {
            if let classad::Value::Int(u) = ad.eval_attr(attr) {
                universe = Some(u);
            }
        } else if lower == "requirements" {
            let flat = rename_scopes(&simplify(&options, ad, expr, true), &[("TARGET", "")]);
            requirements = Some(flat.display(Syntax::Old).to_string());
        } else {
            let text = match expr.as_literal() {
                Some(Literal::Str(s)) => s.to_string(),
                _ => expr.display(Syntax::Old).to_string(),
            };
            if !text.is_empty() {
                assignments.insert(key(attr), (attr.to_string(), text));
            }
        }
    }
    let mut out = vec![format!("# autoconversion of route '{name}' from old route syntax")];
    if !name.is_empty() {
        out.push(format!("NAME {name}"));
    }
    if let Some(u) = universe {
        out.push(format!("UNIVERSE {u}"));
    }
    if let Some(r) = requirements {
        out.push(format!("REQUIREMENTS {r}"));
    }
    out.extend(assignments.values().map(|(a, v)| format!("{a} = {v}")));
    out.extend(copies.values().map(|(a, to)| format!("COPY {a} {to}")));
    out.extend(deletes.values().map(|a| format!("DELETE {a}")));
    out.extend(sets.values().map(|(a, e)| format!("SET {a} {e}")));
    out.extend(eval_sets.values().map(|(a, e)| format!("EVALSET {a} {e}")));
    out.join("\n")
}

fn prefixed<'a>(attr: &'a str, prefix: &str) -> Option<&'a str> {
    super::macros::strip_prefix_ci(attr, prefix).filter(|a| !a.is_empty())
}

/// `expr` with the references to the transform ad's own attributes
/// replaced by their values, where they have some (the job's attributes,
/// which the transform ad lacks, stay); unless `always`, only when it
/// refers to some.
fn simplify(options: &EvalOptions, ad: &ClassAd, expr: &Expr, always: bool) -> Expr {
    let mine = classad::references::internal(options, ad, expr).unwrap_or_default();
    if mine.is_empty() && !always {
        return expr.clone();
    }
    match classad::flatten::flatten(options, ad, expr) {
        Ok(flat) => flat.into_expr(),
        Err(_) => expr.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_in_htcondor_order() {
        let ad: ClassAd = r#"[ Name = "Renamed"; Requirements = TARGET.RequestMemory > Lim; Lim = 100;
            eval_set_X = Lim * 2 + RequestMemory; set_Y = Lim; copy_Cmd = "Cmd2"; delete_Cmd = true;
            set_S = "s" ]"#
            .parse()
            .unwrap();
        let mut name = "Old".to_string();
        let text = convert(&ad, &mut name);
        assert_eq!(name, "Renamed");
        let lines: Vec<&str> = text.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "NAME Renamed",
                "REQUIREMENTS RequestMemory > 100",
                "Lim = 100",
                "COPY Cmd Cmd2",
                "DELETE Cmd",
                "SET S \"s\"",
                "SET Y Lim",
                "EVALSET X 200 + RequestMemory",
            ]
        );
    }
}
