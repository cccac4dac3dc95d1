//! Expression trees.
//!
//! An [`Expr`] is immutable and cheap to clone: literals are stored inline
//! (no allocation for numbers, booleans, UNDEFINED and ERROR) and every other
//! node sits behind an [`Arc`]. Parse an expression once and evaluate it as
//! often as you like, from as many threads as you like.

use std::fmt;
use std::sync::Arc;

use crate::ad::ClassAd;
use crate::builtins::BuiltinId;
use crate::name::Name;
use crate::text::Text;
use crate::time::{AbsTime, RelTime};

/// A ClassAd expression.
///
/// ```
/// use classad::Expr;
/// let e: Expr = "TARGET.Memory >= 1024 && Arch == \"X86_64\"".parse().unwrap();
/// assert_eq!(e.to_string(), "TARGET.Memory >= 1024 && Arch == \"X86_64\"");
/// ```
#[derive(Clone)]
pub struct Expr(pub(crate) Repr);

#[derive(Clone)]
pub(crate) enum Repr {
    Lit(Literal),
    Node(Arc<NodeBox>),
}

/// A node together with the depth of the tree below it (leaves are 1).
pub(crate) struct NodeBox {
    pub(crate) depth: u32,
    pub(crate) node: Node,
}

/// A literal value inside an expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    /// `undefined`
    Undefined,
    /// `error`
    Error,
    /// `true` / `false`
    Bool(bool),
    /// A 64-bit integer.
    Int(i64),
    /// A double-precision real.
    Real(f64),
    /// A string (already unescaped).
    Str(Text),
    /// An `absTime("...")` literal.
    AbsTime(AbsTime),
    /// A `relTime("...")` literal.
    RelTime(RelTime),
}

/// The shape of an expression, borrowed; see [`Expr::node`].
///
/// Not `#[non_exhaustive]`, on purpose (nor are [`Literal`], [`UnaryOp`]
/// and [`BinaryOp`]): the node kinds are the ClassAd grammar's, and a walk
/// over a tree (a printer, a translation, an analysis) must handle each
/// one; a new kind, which only a change of the language would bring,
/// should make such a walk fail to compile, not fall into a wildcard arm.
/// A walk that treats most kinds alike can use [`Node::children`].
#[derive(Debug)]
pub enum Node {
    /// An unscoped attribute reference: `Memory`.
    Attr(Name),
    /// An attribute reference from the root ad: `.Memory`.
    RootAttr(Name),
    /// Selection: `TARGET.Memory`, `a.b`.
    Select(Expr, Name),
    /// Subscript: `list[0]`, `ad["name"]`.
    Index(Expr, Expr),
    /// A unary operator.
    Unary(UnaryOp, Expr),
    /// A binary operator.
    Binary(BinaryOp, Expr, Expr),
    /// `cond ? then : else`
    Cond(Expr, Expr, Expr),
    /// `a ?: b` (a unless a is UNDEFINED).
    Elvis(Expr, Expr),
    /// Parentheses, kept so that printing gives back what was written.
    Paren(Expr),
    /// A function call.
    Call(Call),
    /// A list `{ a, b }`.
    List(Box<[Expr]>),
    /// A nested ad `[ a = 1; b = 2 ]`.
    Record(Arc<ClassAd>),
}

/// A function call: the name as written and, for built-ins, which one
/// (resolved once, when the call is built).
pub struct Call {
    pub(crate) name: Name,
    pub(crate) builtin: Option<BuiltinId>,
    pub(crate) args: Box<[Expr]>,
}

impl Call {
    /// The function name as written.
    pub fn name(&self) -> Name {
        self.name
    }

    /// The arguments.
    pub fn args(&self) -> &[Expr] {
        &self.args
    }

    /// True when the name is one of the built-in functions.
    pub fn is_builtin(&self) -> bool {
        self.builtin.is_some()
    }

    /// The built-in function called, if the name is one.
    pub fn builtin(&self) -> Option<BuiltinId> {
        self.builtin
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call").field("name", &self.name).field("args", &self.args).finish()
    }
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

/// Binary operators, by precedence from lowest to highest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    /// `||`
    Or,
    /// `&&`
    And,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&`
    BitAnd,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `=?=` or `is`: same type and same value, never UNDEFINED.
    Is,
    /// `=!=` or `isnt`.
    Isnt,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `>>>` (logical)
    UShr,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
}

impl UnaryOp {
    /// The operator's text.
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "!",
            UnaryOp::BitNot => "~",
        }
    }
}

impl BinaryOp {
    /// How tightly the operator binds, from 1 (`||`) to 10 (`*`, `/`,
    /// `%`); operators of one precedence group left to right.
    ///
    /// ```
    /// use classad::BinaryOp;
    /// assert!(BinaryOp::Mul.precedence() > BinaryOp::Add.precedence());
    /// assert_eq!(BinaryOp::Eq.precedence(), BinaryOp::Is.precedence());
    /// ```
    pub const fn precedence(self) -> u8 {
        use BinaryOp::*;
        match self {
            Or => 1,
            And => 2,
            BitOr => 3,
            BitXor => 4,
            BitAnd => 5,
            Eq | Ne | Is | Isnt => 6,
            Lt | Le | Gt | Ge => 7,
            Shl | Shr | UShr => 8,
            Add | Sub => 9,
            Mul | Div | Mod => 10,
        }
    }

    /// The operator's canonical text (`=?=` is written `is`, as libclassad does).
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Or => "||",
            And => "&&",
            BitOr => "|",
            BitXor => "^",
            BitAnd => "&",
            Eq => "==",
            Ne => "!=",
            Is => "is",
            Isnt => "isnt",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            Shl => "<<",
            Shr => ">>",
            UShr => ">>>",
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Mod => "%",
        }
    }
}

impl Expr {
    /// A literal expression.
    pub fn literal(value: Literal) -> Expr {
        Expr(Repr::Lit(value))
    }

    /// An unscoped attribute reference.
    ///
    /// ```
    /// use classad::Expr;
    /// assert_eq!(Expr::attr("Memory").to_string(), "Memory");
    /// ```
    pub fn attr(name: impl Into<Name>) -> Expr {
        Expr::node(Node::Attr(name.into()))
    }

    /// `scope.name`, e.g. `TARGET.Memory`.
    ///
    /// ```
    /// use classad::Expr;
    /// assert_eq!(Expr::select(Expr::attr("TARGET"), "Memory").to_string(), "TARGET.Memory");
    /// ```
    pub fn select(scope: Expr, name: impl Into<Name>) -> Expr {
        Expr::node(Node::Select(scope, name.into()))
    }

    /// `left op right`.
    ///
    /// ```
    /// use classad::{BinaryOp, Expr};
    /// let e = Expr::binary(BinaryOp::Add, Expr::from(1), Expr::from(2));
    /// assert_eq!(e.to_string(), "1 + 2");
    /// ```
    pub fn binary(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        Expr::node(Node::Binary(op, left, right))
    }

    /// `op operand`.
    pub fn unary(op: UnaryOp, operand: Expr) -> Expr {
        Expr::node(Node::Unary(op, operand))
    }

    /// `left op right`, with an operand put in parentheses where its
    /// printed form would otherwise group differently: what building
    /// expressions from parts (rather than parsing them) wants, so that
    /// the text reads back as the same tree.
    ///
    /// ```
    /// use classad::{BinaryOp, Expr};
    /// let sum = Expr::binary_grouped(BinaryOp::Add, Expr::attr("x"), Expr::from(1));
    /// let product = Expr::binary_grouped(BinaryOp::Mul, sum.clone(), Expr::from(2));
    /// assert_eq!(product.to_string(), "(x + 1) * 2");
    /// let difference = Expr::binary_grouped(BinaryOp::Sub, Expr::from(1), sum);
    /// assert_eq!(difference.to_string(), "1 - (x + 1)");
    /// ```
    pub fn binary_grouped(op: BinaryOp, left: Expr, right: Expr) -> Expr {
        // Operators group left to right: a right operand of the same
        // precedence needs parentheses, a left one does not.
        let left = left.parenthesized_below(op.precedence());
        let right = right.parenthesized_below(op.precedence() + 1);
        Expr::binary(op, left, right)
    }

    /// `op operand`, with the operand in parentheses unless it binds at
    /// least as tightly as a unary operator (see [`Expr::binary_grouped`]).
    ///
    /// ```
    /// use classad::{BinaryOp, Expr, UnaryOp};
    /// let sum = Expr::binary(BinaryOp::Add, Expr::attr("x"), Expr::from(1));
    /// assert_eq!(Expr::unary_grouped(UnaryOp::Neg, sum).to_string(), " -(x + 1)");
    /// ```
    pub fn unary_grouped(op: UnaryOp, operand: Expr) -> Expr {
        Expr::unary(op, operand.parenthesized_below(u8::MAX))
    }

    /// The expression in parentheses when it is an operation that binds
    /// less tightly than `precedence` (conditionals bind least of all).
    fn parenthesized_below(self, precedence: u8) -> Expr {
        let binds = match self.as_node() {
            Some(Node::Binary(op, ..)) => op.precedence(),
            Some(Node::Cond(..) | Node::Elvis(..)) => 0,
            _ => return self,
        };
        if binds < precedence {
            Expr::node(Node::Paren(self))
        } else {
            self
        }
    }

    /// A call of the function `name` (resolved against the built-ins).
    pub fn call(name: impl Into<Name>, args: Vec<Expr>) -> Expr {
        let name = name.into();
        Expr::node(Node::Call(Call { name, builtin: name.builtin(), args: args.into() }))
    }

    /// A list expression.
    pub fn list(items: Vec<Expr>) -> Expr {
        Expr::node(Node::List(items.into()))
    }

    /// A nested ad.
    pub fn record(ad: ClassAd) -> Expr {
        Expr::node(Node::Record(Arc::new(ad)))
    }

    /// Wraps a node, recording its depth.
    pub fn node(node: Node) -> Expr {
        let depth = 1 + node.children().map(Expr::depth).max().unwrap_or(0);
        Expr(Repr::Node(Arc::new(NodeBox { depth, node })))
    }

    /// The node, or `None` for a literal.
    pub fn as_node(&self) -> Option<&Node> {
        match &self.0 {
            Repr::Lit(_) => None,
            Repr::Node(node) => Some(&node.node),
        }
    }

    /// The literal, or `None` for any other expression.
    pub fn as_literal(&self) -> Option<&Literal> {
        match &self.0 {
            Repr::Lit(literal) => Some(literal),
            Repr::Node(_) => None,
        }
    }

    /// The height of the tree (a literal or attribute is 1).
    pub fn depth(&self) -> u32 {
        match &self.0 {
            Repr::Lit(_) => 1,
            Repr::Node(node) => node.depth,
        }
    }

    /// True when both expressions are the same tree (same operators, names
    /// with the same case-folded text, and literals that are identical).
    pub fn same_as(&self, other: &Expr) -> bool {
        match (&self.0, &other.0) {
            (Repr::Lit(a), Repr::Lit(b)) => a.identical(b),
            (Repr::Node(a), Repr::Node(b)) => Arc::ptr_eq(a, b) || a.node.same_as(&b.node),
            _ => false,
        }
    }
}

impl Literal {
    /// Same type and same value; reals compare bitwise so that NaN equals
    /// itself and `0.0` differs from `-0.0`.
    fn identical(&self, other: &Literal) -> bool {
        match (self, other) {
            (Literal::Real(a), Literal::Real(b)) => a.to_bits() == b.to_bits(),
            (Literal::RelTime(a), Literal::RelTime(b)) => a.0.to_bits() == b.0.to_bits(),
            _ => self == other,
        }
    }
}

impl Node {
    /// The direct sub-expressions, left to right (a nested ad's attribute
    /// values count as its children).
    pub fn children(&self) -> Children<'_> {
        let slice: &[Expr] = match self {
            Node::Attr(_) | Node::RootAttr(_) => &[],
            Node::Select(e, _) | Node::Unary(_, e) | Node::Paren(e) => std::slice::from_ref(e),
            Node::Index(a, b) | Node::Binary(_, a, b) | Node::Elvis(a, b) => {
                return Children::Pair([a, b].into_iter());
            }
            Node::Cond(a, b, c) => return Children::Triple([a, b, c].into_iter()),
            Node::Call(call) => &call.args,
            Node::List(items) => items,
            Node::Record(ad) => return Children::Ad(ad.iter()),
        };
        Children::Slice(slice.iter())
    }

    fn same_as(&self, other: &Node) -> bool {
        use Node::*;
        match (self, other) {
            (Attr(a), Attr(b)) | (RootAttr(a), RootAttr(b)) => a == b,
            (Select(e, a), Select(f, b)) => a == b && e.same_as(f),
            (Index(a, b), Index(c, d)) | (Elvis(a, b), Elvis(c, d)) => a.same_as(c) && b.same_as(d),
            (Unary(o, a), Unary(p, b)) => o == p && a.same_as(b),
            (Binary(o, a, b), Binary(p, c, d)) => o == p && a.same_as(c) && b.same_as(d),
            (Cond(a, b, c), Cond(d, e, f)) => a.same_as(d) && b.same_as(e) && c.same_as(f),
            (Paren(a), Paren(b)) => a.same_as(b),
            (Call(a), Call(b)) => a.name == b.name && all_same(&a.args, &b.args),
            (List(a), List(b)) => all_same(a, b),
            (Record(a), Record(b)) => a.same_as(b),
            _ => false,
        }
    }
}

fn all_same(a: &[Expr], b: &[Expr]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
}

/// Iterator over a node's direct sub-expressions.
pub enum Children<'a> {
    #[doc(hidden)]
    Slice(std::slice::Iter<'a, Expr>),
    #[doc(hidden)]
    Pair(std::array::IntoIter<&'a Expr, 2>),
    #[doc(hidden)]
    Triple(std::array::IntoIter<&'a Expr, 3>),
    #[doc(hidden)]
    Ad(crate::ad::Iter<'a>),
}

impl<'a> Iterator for Children<'a> {
    type Item = &'a Expr;

    fn next(&mut self) -> Option<&'a Expr> {
        match self {
            Children::Slice(it) => it.next(),
            Children::Pair(it) => it.next(),
            Children::Triple(it) => it.next(),
            Children::Ad(it) => it.next().map(|(_, e)| e),
        }
    }
}

/// Trees deeper than the stack allows are still dropped safely: children
/// that would be freed with this node are moved to a work list first.
impl Drop for NodeBox {
    fn drop(&mut self) {
        if self.depth < 64 {
            return;
        }
        let mut pending: Vec<Arc<NodeBox>> = Vec::new();
        take_children(&mut self.node, &mut pending);
        while let Some(node) = pending.pop() {
            if let Ok(mut inner) = Arc::try_unwrap(node) {
                take_children(&mut inner.node, &mut pending);
                // `inner` now has only shallow children and drops without recursion.
                inner.depth = 0;
            }
        }
    }
}

/// Moves the node-valued children of `node` into `out`, leaving literals.
fn take_children(node: &mut Node, out: &mut Vec<Arc<NodeBox>>) {
    let mut take = |e: &mut Expr| {
        if let Repr::Node(_) = e.0 {
            let old = std::mem::replace(&mut e.0, Repr::Lit(Literal::Undefined));
            if let Repr::Node(arc) = old {
                out.push(arc);
            }
        }
    };
    match node {
        Node::Attr(_) | Node::RootAttr(_) => {}
        Node::Select(e, _) | Node::Unary(_, e) | Node::Paren(e) => take(e),
        Node::Index(a, b) | Node::Binary(_, a, b) | Node::Elvis(a, b) => {
            take(a);
            take(b);
        }
        Node::Cond(a, b, c) => {
            take(a);
            take(b);
            take(c);
        }
        Node::Call(call) => call.args.iter_mut().for_each(take),
        Node::List(items) => items.iter_mut().for_each(take),
        Node::Record(ad) => {
            if let Some(ad) = Arc::get_mut(ad) {
                ad.values_mut().for_each(take);
            }
        }
    }
}

impl From<Literal> for Expr {
    fn from(value: Literal) -> Expr {
        Expr::literal(value)
    }
}

impl From<i64> for Expr {
    fn from(value: i64) -> Expr {
        Expr::literal(Literal::Int(value))
    }
}

impl From<i32> for Expr {
    fn from(value: i32) -> Expr {
        Expr::literal(Literal::Int(i64::from(value)))
    }
}

impl From<f64> for Expr {
    fn from(value: f64) -> Expr {
        Expr::literal(Literal::Real(value))
    }
}

impl From<bool> for Expr {
    fn from(value: bool) -> Expr {
        Expr::literal(Literal::Bool(value))
    }
}

impl From<&str> for Expr {
    fn from(value: &str) -> Expr {
        Expr::literal(Literal::Str(value.into()))
    }
}

impl From<String> for Expr {
    fn from(value: String) -> Expr {
        Expr::literal(Literal::Str(value.into()))
    }
}

impl fmt::Debug for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Expr({self})")
    }
}

impl PartialEq for Expr {
    /// Structural equality, as [`Expr::same_as`].
    fn eq(&self, other: &Expr) -> bool {
        self.same_as(other)
    }
}
