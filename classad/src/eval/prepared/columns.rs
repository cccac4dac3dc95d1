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
use crate::text::Text;

/// How many ads a kernel evaluates at a time (its scratch stays in L1).
pub const BLOCK: usize = 256;

/// The columns of a list of ads, built on demand: the values of each
/// attribute a kernel reads, gathered once across the ads in their order.
///
/// The columns own their ads (shared, behind [`Arc`]), so they can live as
/// long as their user wants, and be changed one ad at a time:
/// [`set`](Columns::set) and [`push`](Columns::push) update every column
/// built so far at that one position. A [`ColumnKernel`] sees the columns
/// as they were when it was bound ([`Prepared::bind`](crate::Prepared::bind)):
/// bind again after a change.
///
/// ```
/// use classad::{ClassAd, EvalOptions, Prepared, Semantics};
/// use classad::eval::{Columns, Truth, BLOCK};
///
/// let machines: Vec<ClassAd> = [1024, 4096, 2048].iter().map(|m| format!("[ Memory = {m} ]").parse()).collect::<Result<_, _>>()?;
/// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
/// let opts = EvalOptions::new().semantics(Semantics::Old);
/// let requirements = Prepared::attribute(&opts, job, "Requirements");
/// let mut columns = Columns::new(machines);
/// let kernel = requirements.bind(&columns).expect("a comparison has a kernel");
/// let (mut truths, mut unknown) = ([Truth::False; BLOCK], [false; BLOCK]);
/// kernel.eval(0, &mut truths[..3], &mut unknown[..3]);
/// assert_eq!(truths[..3], [Truth::False, Truth::True, Truth::True]);
/// assert_eq!(unknown[..3], [false; 3]);
///
/// // Machine 0 gets more memory; a kernel bound now sees it.
/// columns.set(0, "[ Memory = 8192 ]".parse::<ClassAd>()?);
/// let kernel = requirements.bind(&columns).expect("a comparison has a kernel");
/// kernel.eval(0, &mut truths[..3], &mut unknown[..3]);
/// assert_eq!(truths[..3], [Truth::True, Truth::True, Truth::True]);
/// # Ok::<(), classad::ParseError>(())
/// ```
pub struct Columns {
    ads: Vec<Arc<ClassAd>>,
    built: RwLock<FxHashMap<Name, Arc<Column>>>,
}

/// One attribute's values across the ads.
#[derive(Clone)]
pub(crate) struct Column {
    name: Name,
    cells: Vec<Cell>,
    /// The distinct strings, indexed by [`Cell::Str`] (never removed: a
    /// string an ad no longer has keeps its place).
    strings: Vec<Literal>,
    /// Where each string of `strings` is.
    string_index: FxHashMap<Text, u32>,
    /// The values of [`Cell::Lit`] cells, one place each.
    others: Vec<Literal>,
    /// Places of `others` no cell uses any more.
    free: Vec<u32>,
}

/// One ad's value of a column's attribute.
#[derive(Clone, Copy)]
enum Cell {
    Missing,
    Int(i64),
    Bool(bool),
    Real(f64),
    /// A string: an index into [`Column::strings`].
    Str(u32),
    /// Any other literal: an index into [`Column::others`].
    Lit(u32),
    /// Not a literal: the ad must be evaluated.
    Computed,
}

impl Columns {
    /// The columns of `ads` (none built yet).
    pub fn new(ads: impl IntoIterator<Item = impl Into<Arc<ClassAd>>>) -> Columns {
        Columns { ads: ads.into_iter().map(Into::into).collect(), built: RwLock::new(FxHashMap::default()) }
    }

    /// The ads, in column order.
    pub fn ads(&self) -> &[Arc<ClassAd>] {
        &self.ads
    }

    /// How many ads there are.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// Whether there are no ads.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// Replaces the ad at `index` with `ad`, updating that position of
    /// every column built so far, and returns the ad it replaces.
    ///
    /// # Panics
    ///
    /// When `index` is not less than [`len`](Columns::len).
    pub fn set(&mut self, index: usize, ad: impl Into<Arc<ClassAd>>) -> Arc<ClassAd> {
        let ad = ad.into();
        for column in self.built.get_mut().values_mut() {
            Arc::make_mut(column).set(index, &ad);
        }
        std::mem::replace(&mut self.ads[index], ad)
    }

    /// Adds `ad` after the others (at position [`len`](Columns::len)),
    /// extending every column built so far.
    pub fn push(&mut self, ad: impl Into<Arc<ClassAd>>) {
        let ad = ad.into();
        for column in self.built.get_mut().values_mut() {
            Arc::make_mut(column).push(&ad);
        }
        self.ads.push(ad);
    }

    /// Builds the column of `name` now if it is not built yet, rather than
    /// when a kernel first reads it: a caller that knows which attributes
    /// its kernels will compare can build their columns ahead, one per
    /// thread (the columns may be shared between threads).
    ///
    /// ```
    /// use classad::{ClassAd, EvalOptions, Name, Prepared, Semantics};
    /// use classad::eval::Columns;
    ///
    /// let machines: Vec<ClassAd> = ["[ Memory = 1024 ]", "[ Memory = 4096 ]"].iter().map(|m| m.parse()).collect::<Result<_, _>>()?;
    /// let columns = Columns::new(machines);
    /// std::thread::scope(|s| {
    ///     for name in ["Memory", "Cpus"] {
    ///         let columns = &columns;
    ///         s.spawn(move || columns.build(Name::new(name)));
    ///     }
    /// });
    /// let job: ClassAd = "[ Requirements = TARGET.Memory >= 2048 ]".parse()?;
    /// let requirements = Prepared::attribute(&EvalOptions::new().semantics(Semantics::Old), job, "Requirements");
    /// assert!(requirements.bind(&columns).is_some());
    /// # Ok::<(), classad::ParseError>(())
    /// ```
    pub fn build(&self, name: Name) {
        self.column(name);
    }

    /// The column of `name`, built on first use.
    fn column(&self, name: Name) -> Arc<Column> {
        if let Some(column) = self.built.read().get(&name) {
            return Arc::clone(column);
        }
        let column = Arc::new(Column::build(&self.ads, name));
        Arc::clone(self.built.write().entry(name).or_insert(column))
    }
}

impl std::fmt::Debug for Columns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let built: Vec<Name> = self.built.read().keys().copied().collect();
        f.debug_struct("Columns").field("ads", &self.ads.len()).field("built", &built).finish()
    }
}

impl Column {
    fn build(ads: &[Arc<ClassAd>], name: Name) -> Column {
        let mut column = Column {
            name,
            cells: Vec::with_capacity(ads.len()),
            strings: Vec::new(),
            string_index: FxHashMap::default(),
            others: Vec::new(),
            free: Vec::new(),
        };
        for ad in ads {
            column.push(ad);
        }
        column
    }

    fn push(&mut self, ad: &ClassAd) {
        let cell = self.cell(ad);
        self.cells.push(cell);
    }

    fn set(&mut self, index: usize, ad: &ClassAd) {
        if let Cell::Lit(place) = self.cells[index] {
            self.others[place as usize] = Literal::Undefined;
            self.free.push(place);
        }
        self.cells[index] = self.cell(ad);
    }

    /// `ad`'s cell, its string or other literal placed.
    fn cell(&mut self, ad: &ClassAd) -> Cell {
        match ad.lookup_name(self.name).map(|expr| &expr.0) {
            None => Cell::Missing,
            Some(Repr::Lit(Literal::Int(i))) => Cell::Int(*i),
            Some(Repr::Lit(Literal::Bool(b))) => Cell::Bool(*b),
            Some(Repr::Lit(Literal::Real(r))) => Cell::Real(*r),
            Some(Repr::Lit(literal @ Literal::Str(s))) => {
                if let Some(place) = self.string_index.get(s.as_str()) {
                    return Cell::Str(*place);
                }
                match u32::try_from(self.strings.len()) {
                    Ok(next) => {
                        self.strings.push(literal.clone());
                        self.string_index.insert(s.clone(), next);
                        Cell::Str(next)
                    }
                    Err(_) => self.other(literal),
                }
            }
            Some(Repr::Lit(literal)) => self.other(literal),
            Some(Repr::Node(_)) => Cell::Computed,
        }
    }

    /// A [`Cell::Lit`] of `literal`, in a free place of `others` if any.
    fn other(&mut self, literal: &Literal) -> Cell {
        if let Some(place) = self.free.pop() {
            self.others[place as usize] = literal.clone();
            return Cell::Lit(place);
        }
        match u32::try_from(self.others.len()) {
            Ok(place) => {
                self.others.push(literal.clone());
                Cell::Lit(place)
            }
            // Over four billion distinct odd literals in one column: the
            // ad is evaluated the ordinary way.
            Err(_) => Cell::Computed,
        }
    }
}

/// A truth kernel bound to columns: a condition of comparisons between
/// target attributes and constants, evaluated a block of ads at a time
/// (see [`Columns`] for an example). It holds the columns it reads as
/// they were when it was bound.
pub struct ColumnKernel(Bound);

impl ColumnKernel {
    /// `kernel` over the columns of `columns` (built as needed).
    pub(super) fn bind(kernel: &Kernel, columns: &Columns) -> ColumnKernel {
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
    /// [`BLOCK`], or reach past the ads the columns had when the kernel
    /// was bound.
    pub fn eval(&self, start: usize, out: &mut [Truth], unknown: &mut [bool]) {
        self.0.eval(start, out, unknown);
    }
}

impl std::fmt::Debug for ColumnKernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ColumnKernel").finish_non_exhaustive()
    }
}

/// A kernel's node bound to columns.
pub(crate) enum Bound {
    Test {
        column: Arc<Column>,
        op: BinaryOp,
        constant: Literal,
        target_first: bool,
        /// The truth for a missing value, `false` and `true`, and each of
        /// the column's strings, computed once.
        missing: Truth,
        bools: [Truth; 2],
        strings: Box<[Truth]>,
    },
    Truthy(Arc<Column>),
    Fixed(Truth),
    Not(Box<Bound>),
    Chain {
        dominant: bool,
        items: Box<[Bound]>,
    },
}

impl Bound {
    /// `kernel` over the columns of `columns` (built as needed).
    pub(super) fn bind(kernel: &Kernel, columns: &Columns) -> Bound {
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
                    strings: column.strings.iter().map(truth).collect(),
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
                        Cell::Real(x) if *target_first => test(*op, &Literal::Real(x), constant),
                        Cell::Real(x) => test(*op, constant, &Literal::Real(x)),
                        Cell::Lit(place) if *target_first => test(*op, &column.others[place as usize], constant),
                        Cell::Lit(place) => test(*op, constant, &column.others[place as usize]),
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
                        Cell::Real(r) => Truth::of(&Val::Real(r)),
                        Cell::Lit(place) => Truth::of(&Val::from_literal(&column.others[place as usize])),
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
