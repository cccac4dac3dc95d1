//! Generates the LR parser from `src/grammar.lalrpop`.
fn main() {
    lalrpop::Configuration::new()
        .use_cargo_dir_conventions()
        .emit_rerun_directives(true)
        .process()
        .expect("the ClassAd grammar failed to build");
}
