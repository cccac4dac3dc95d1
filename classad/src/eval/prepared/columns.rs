//! Columns: the literal values of one attribute across a slice of ads,
//! laid out side by side, and truth kernels evaluated over them a block of
//! ads at a time.
//!
//! Matching one job against a pool reads the same few machine attributes
//! (`Arch`, `OpSys`, `Memory`, ...) of every machine. Looked up ad by ad,
//! each read is a hash-table probe into a different 2 KB ad, mostly a
//! cache miss. A [`Column`] gathers the values of one attribute once, in
//! machine order, so that evaluating a condition over the pool streams
//! through memory; strings are kept as indices into the column's distinct
//! values, so that a string comparison is computed once per distinct value
//! (`Arch == "X86_64"` once for `"X86_64"`, once for `"aarch64"`) and then
//! looked up.
//!
//! Columns are built on first use and shared by every later request
//! ([`Columns`]). A value that is not a literal (`Memory = TotalMemory / 2`)
//! is marked, and the ad is evaluated the ordinary way.

use std::sync::Arc;

use parking_lot::RwLock;
use rustc_hash::FxHashMap;

use super::kernel::{integer_test, test, Kernel, Truth};
use crate::ad::ClassAd;
use crate::eval::val::Val;
use crate::expr::{BinaryOp, Literal, Repr};
use crate::name::Name;

/// How many ads a kernel evaluates at a time (its scratch stays in L1).
pub const BLOCK: usize = 256;

/// The columns of a slice of ads, built on demand: the values of each
/// attribute a kernel reads, gathered once across the ads in their order.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Prepared, Semantics};
/// use classad::eval::{Columns, Truth, BLOCK};
///
/// let machines: Vec<ClassAd> = [1024, 4096, 2048].iter().map(|m| format!("[ Memory = {m} ]").parse()).collect::<Result<_, _>>()?;
/// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
/// let opts = EvalOptions::new().semantics(Semantics::Old);
/// let requirements = Prepared::attribute(&opts, &job, "Requirements");
/// let columns = Columns::new(&machines);
/// let kernel = requirements.bind(&columns).expect("a comparison has a kernel");
/// let (mut truths, mut unknown) = ([Truth::False; BLOCK], [false; BLOCK]);
/// kernel.eval(0, &mut truths[..3], &mut unknown[..3]);
/// assert_eq!(truths[..3], [Truth::False, Truth::True, Truth::True]);
/// assert_eq!(unknown[..3], [false; 3]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub struct Columns<'p> {
    ads: &'p [ClassAd],
    built: RwLock<FxHashMap<Name, Arc<Column<'p>>>>,
}

/// One attribute's values across the ads.
pub(crate) struct Column<'p> {
    cells: Box<[Cell<'p>]>,
    /// The distinct strings, indexed by [`Cell::Str`].
    strings: Box<[&'p Literal]>,
}

/// One ad's value of a column's attribute.
#[derive(Clone, Copy)]
enum Cell<'p> {
    Missing,
    Int(i64),
    Bool(bool),
    /// A string: an index into [`Column::strings`].
    Str(u32),
    /// Any other literal.
    Lit(&'p Literal),
    /// Not a literal: the ad must be evaluated.
    Computed,
}

impl<'p> Columns<'p> {
    /// The columns of `ads` (none built yet).
    pub fn new(ads: &'p [ClassAd]) -> Columns<'p> {
        Columns { ads, built: RwLock::new(FxHashMap::default()) }
    }

    /// The column of `name`, built on first use.
    fn column(&self, name: Name) -> Arc<Column<'p>> {
        if let Some(column) = self.built.read().get(&name) {
            return Arc::clone(column);
        }
        let column = Arc::new(Column::build(self.ads, name));
        Arc::clone(self.built.write().entry(name).or_insert(column))
    }
}

impl<'p> Column<'p> {
    fn build(ads: &'p [ClassAd], name: Name) -> Column<'p> {
        let mut strings: Vec<&'p Literal> = Vec::new();
        let mut index: FxHashMap<&'p str, u32> = FxHashMap::default();
        let cells = ads
            .iter()
            .map(|ad| match ad.lookup_name(name).map(|expr| &expr.0) {
                None => Cell::Missing,
                Some(Repr::Lit(Literal::Int(i))) => Cell::Int(*i),
                Some(Repr::Lit(Literal::Bool(b))) => Cell::Bool(*b),
                Some(Repr::Lit(literal @ Literal::Str(s))) => match u32::try_from(strings.len()) {
                    Ok(next) => Cell::Str(*index.entry(s.as_str()).or_insert_with(|| {
                        strings.push(literal);
                        next
                    })),
                    Err(_) => Cell::Lit(literal),
                },
                Some(Repr::Lit(literal)) => Cell::Lit(literal),
                Some(Repr::Node(_)) => Cell::Computed,
            })
            .collect();
        Column { cells, strings: strings.into() }
    }
}

/// A truth kernel bound to columns: a condition of comparisons between
/// target attributes and constants, evaluated a block of ads at a time
/// (see [`Columns`] for an example).
pub struct ColumnKernel<'p>(Bound<'p>);

impl<'p> ColumnKernel<'p> {
    /// `kernel` over the columns of `columns` (built as needed).
    pub(super) fn bind(kernel: &Kernel, columns: &Columns<'p>) -> ColumnKernel<'p> {
        ColumnKernel(Bound::bind(kernel, columns))
    }

    /// The truths of the ads `start..start + out.len()` (at most
    /// [`BLOCK`]); `unknown[j]` is set when ad `start + j` has a value
    /// that is not a literal (its truth must then be found by evaluating
    /// the expression against the ad, and `out[j]` ignored). `unknown`
    /// is only ever set, never cleared.
    ///
    /// # Panics
    ///
    /// When `out` and `unknown` differ in length, are longer than
    /// [`BLOCK`], or reach past the ads the columns were made of.
    pub fn eval(&self, start: usize, out: &mut [Truth], unknown: &mut [bool]) {
        self.0.eval(start, out, unknown);
    }
}

/// A kernel's node bound to columns.
pub(crate) enum Bound<'p> {
    Test {
        column: Arc<Column<'p>>,
        op: BinaryOp,
        constant: Literal,
        target_first: bool,
        /// The truth for a missing value, `false` and `true`, and each of
        /// the column's strings, computed once.
        missing: Truth,
        bools: [Truth; 2],
        strings: Box<[Truth]>,
    },
    Truthy(Arc<Column<'p>>),
    Fixed(Truth),
    Not(Box<Bound<'p>>),
    Chain {
        dominant: bool,
        items: Box<[Bound<'p>]>,
    },
}

impl<'p> Bound<'p> {
    /// `kernel` over the columns of `columns` (built as needed).
    pub(super) fn bind(kernel: &Kernel, columns: &Columns<'p>) -> Bound<'p> {
        match kernel {
            Kernel::Test { op, name, constant, target_first } => {
                let column = columns.column(*name);
                let truth = |value: &Literal| {
                    if *target_first {
                        test(*op, value, constant)
                    } else {
                        test(*op, constant, value)
                    }
                };
                Bound::Test {
                    missing: truth(&Literal::Undefined),
                    bools: [truth(&Literal::Bool(false)), truth(&Literal::Bool(true))],
                    strings: column.strings.iter().map(|s| truth(s)).collect(),
                    column,
                    op: *op,
                    constant: constant.clone(),
                    target_first: *target_first,
                }
            }
            Kernel::Truthy(name) => Bound::Truthy(columns.column(*name)),
            Kernel::Fixed(truth) => Bound::Fixed(*truth),
            Kernel::Not(operand) => Bound::Not(Box::new(Bound::bind(operand, columns))),
            Kernel::Chain { dominant, items } => Bound::Chain {
                dominant: *dominant,
                items: items.iter().map(|item| Bound::bind(item, columns)).collect(),
            },
        }
    }

    /// The truths of the ads `start..start + out.len()` (at most
    /// [`BLOCK`]); `unknown[j]` is set when ad `start + j` has a value
    /// that is not a literal, and its truth must then be ignored.
    pub(crate) fn eval(&self, start: usize, out: &mut [Truth], unknown: &mut [bool]) {
        let n = out.len();
        match self {
            Bound::Test { column, op, constant, target_first, missing, bools, strings } => {
                for (j, cell) in column.cells[start..start + n].iter().enumerate() {
                    out[j] = match *cell {
                        Cell::Missing => *missing,
                        Cell::Bool(b) => bools[usize::from(b)],
                        Cell::Str(id) => strings[id as usize],
                        Cell::Int(x) => match constant {
                            Literal::Int(y) if !matches!(op, BinaryOp::Is | BinaryOp::Isnt) => {
                                let (a, b) = if *target_first { (x, *y) } else { (*y, x) };
                                integer_test(*op, a, b)
                            }
                            _ if *target_first => test(*op, &Literal::Int(x), constant),
                            _ => test(*op, constant, &Literal::Int(x)),
                        },
                        Cell::Lit(value) if *target_first => test(*op, value, constant),
                        Cell::Lit(value) => test(*op, constant, value),
                        Cell::Computed => {
                            unknown[j] = true;
                            Truth::Error
                        }
                    };
                }
            }
            Bound::Truthy(column) => {
                for (j, cell) in column.cells[start..start + n].iter().enumerate() {
                    out[j] = match *cell {
                        Cell::Missing => Truth::Undefined,
                        Cell::Bool(b) => Truth::from_bool(b),
                        Cell::Int(i) => Truth::from_bool(i != 0),
                        Cell::Str(_) => Truth::Error,
                        Cell::Lit(value) => Truth::of(&Val::from_literal(value)),
                        Cell::Computed => {
                            unknown[j] = true;
                            Truth::Error
                        }
                    };
                }
            }
            Bound::Fixed(truth) => out.fill(*truth),
            Bound::Not(operand) => {
                operand.eval(start, out, unknown);
                for truth in out.iter_mut() {
                    *truth = match *truth {
                        Truth::False => Truth::True,
                        Truth::True => Truth::False,
                        other => other,
                    };
                }
            }
            Bound::Chain { dominant, items } => {
                let Some((first, rest)) = items.split_first() else {
                    out.fill(Truth::Undefined);
                    return;
                };
                first.eval(start, out, unknown);
                let mut right = [Truth::False; BLOCK];
                let right = &mut right[..n];
                for item in rest {
                    item.eval(start, right, unknown);
                    for (left, right) in out.iter_mut().zip(right.iter()) {
                        *left = Truth::combine(*dominant, *left, *right);
                    }
                }
            }
        }
    }
}
