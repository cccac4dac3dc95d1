//! The fast path: a hand-written recursive-descent parser with precedence
//! climbing, over the tokens of a lean scanner ([`scan`]).
//!
//! It accepts exactly the inputs the grammar accepts and builds the same
//! trees (checked by the differential tests in `tests/parsers.rs`), but it
//! does not explain failures: when it gives up, the caller parses the input
//! again with the grammar, which reports the error with its position and
//! the tokens it expected. It costs a few nanoseconds per token, where the
//! LR parser walks every operand through one reduction per precedence level.

use std::sync::Arc;

use super::build::{self, BuildError};
use super::memo::{self, Memo};
use super::scan::{self, Kind, Punct, Scanner, SimpleValue, Token};
use super::Syntax;
use crate::ad::ClassAd;
use crate::expr::{BinaryOp, Expr, Literal, Node, UnaryOp};
use crate::lexer::{keyword, parse_int, parse_real, unescape, unescape_old, Keyword};
use crate::name::{Name, Recent};
use crate::text::Text;

/// The input cannot be parsed by this parser (the grammar says why).
pub(super) struct GiveUp;

impl From<BuildError> for GiveUp {
    fn from(_: BuildError) -> GiveUp {
        GiveUp
    }
}

type Parsed<T> = Result<T, GiveUp>;

/// How often (in levels of recursion) the parser checks that enough stack
/// is left, growing it on the heap when not.
const STACK_CHECK_INTERVAL: u32 = 16;

pub(super) struct Descent<'s> {
    scanner: Scanner<'s>,
    /// The current token.
    token: Token,
    /// Attributes of the ads being parsed, innermost last; each ad takes
    /// its own from the end when it is complete. Reused between parses.
    scratch: Vec<(Name, Expr)>,
    /// This thread's name cache, held for the whole parse.
    names: Recent,
    /// This thread's memo of attribute values, taken at the first value of
    /// a top-level ad that is not a plain literal.
    memo: Option<Memo>,
    syntax: Syntax,
    max_depth: u32,
    /// Current recursion depth, bounded by `max_depth`.
    depth: u32,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Vec<(Name, Expr)>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Drop for Descent<'_> {
    fn drop(&mut self) {
        Recent::give_back(std::mem::replace(&mut self.names, Recent::empty()));
        if let Some(memo) = self.memo.take() {
            Memo::give_back(memo);
        }
        let mut scratch = std::mem::take(&mut self.scratch);
        scratch.clear();
        if scratch.capacity() <= 1 << 16 {
            SCRATCH.with(|kept| *kept.borrow_mut() = scratch);
        }
    }
}

/// Parses a whole expression.
pub(super) fn parse_expr(source: &str, syntax: Syntax, max_depth: u32) -> Parsed<Expr> {
    // Most attribute values are one literal: read it without setting up
    // the parser.
    if let Some(value) = scan::whole_simple_value(source) {
        if let Some(expr) = simple_value(value, syntax, &mut |text| Name::try_new(text).ok(), max_depth, |expr| expr) {
            return Ok(expr);
        }
    }
    let mut parser = Descent::new(source, syntax, max_depth, Recent::take());
    let expr = parser.expr()?;
    parser.finish(expr)
}

/// Parses a whole expression, interning names through `names` (for
/// callers that parse many expressions in a row and hold the cache).
pub(super) fn parse_expr_cached(source: &str, syntax: Syntax, max_depth: u32, names: &mut Recent) -> Parsed<Expr> {
    if let Some(value) = scan::whole_simple_value(source) {
        if let Some(expr) = simple_value(value, syntax, &mut |text| names.try_name(text).ok(), max_depth, |expr| expr) {
            return Ok(expr);
        }
    }
    let mut parser = Descent::new(source, syntax, max_depth, std::mem::replace(names, Recent::empty()));
    let parsed = parser.expr();
    // Take the cache back before the parser is dropped (which would give
    // it to the thread instead).
    *names = std::mem::replace(&mut parser.names, Recent::empty());
    let expr = parsed?;
    parser.finish(expr)
}

/// Parses a whole ad `[ ... ]`.
pub(super) fn parse_ad(source: &str, syntax: Syntax, max_depth: u32) -> Parsed<ClassAd> {
    let mut parser = Descent::new(source, syntax, max_depth, Recent::take());
    parser.expect(Punct::LBracket)?;
    let ad = parser.record_body()?;
    parser.finish(ad)
}

/// The operator a punctuation token stands for between two operands, with
/// its precedence (higher binds tighter).
fn binary_operator(punct: Punct) -> Option<(BinaryOp, u8)> {
    use Punct as P;
    let op = match punct {
        P::OrOr => BinaryOp::Or,
        P::AndAnd => BinaryOp::And,
        P::Pipe => BinaryOp::BitOr,
        P::Caret => BinaryOp::BitXor,
        P::Amp => BinaryOp::BitAnd,
        P::EqEq => BinaryOp::Eq,
        P::NotEq => BinaryOp::Ne,
        P::MetaEq => BinaryOp::Is,
        P::MetaNe => BinaryOp::Isnt,
        P::Lt => BinaryOp::Lt,
        P::Le => BinaryOp::Le,
        P::Gt => BinaryOp::Gt,
        P::Ge => BinaryOp::Ge,
        P::Shl => BinaryOp::Shl,
        P::Shr => BinaryOp::Shr,
        P::UShr => BinaryOp::UShr,
        P::Plus => BinaryOp::Add,
        P::Minus => BinaryOp::Sub,
        P::Star => BinaryOp::Mul,
        P::Slash => BinaryOp::Div,
        P::Percent => BinaryOp::Mod,
        _ => return None,
    };
    Some((op, op.precedence()))
}

impl<'s> Descent<'s> {
    fn new(source: &'s str, syntax: Syntax, max_depth: u32, names: Recent) -> Descent<'s> {
        let mut scanner = Scanner::new(source, syntax);
        let token = scanner.next();
        Descent {
            scanner,
            token,
            scratch: SCRATCH.with(|scratch| std::mem::take(&mut *scratch.borrow_mut())),
            names,
            memo: None,
            syntax,
            max_depth,
            depth: 0,
        }
    }

    fn advance(&mut self) {
        self.token = self.scanner.next();
    }

    fn text(&self) -> &'s str {
        self.scanner.slice(self.token)
    }

    fn is(&self, punct: Punct) -> bool {
        self.token.kind == Kind::Punct(punct)
    }

    /// The keyword the current token is, if it is one.
    fn keyword(&self) -> Option<Keyword> {
        match self.token.kind {
            Kind::Ident => keyword(self.text()),
            _ => None,
        }
    }

    fn expect(&mut self, punct: Punct) -> Parsed<()> {
        if !self.is(punct) {
            return Err(GiveUp);
        }
        self.advance();
        Ok(())
    }

    fn finish<T>(&self, value: T) -> Parsed<T> {
        match self.token.kind {
            Kind::End => Ok(value),
            _ => Err(GiveUp),
        }
    }

    fn node(&self, node: Node) -> Parsed<Expr> {
        Ok(build::node(node, self.max_depth)?)
    }

    /// Runs `f` one level deeper, within the depth limit and with enough
    /// stack.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Parsed<T>) -> Parsed<T> {
        if self.depth >= self.max_depth {
            return Err(GiveUp);
        }
        self.depth += 1;
        let result = if self.depth.is_multiple_of(STACK_CHECK_INTERVAL) {
            stacker::maybe_grow(64 * 1024, 1024 * 1024, || f(self))
        } else {
            f(self)
        };
        self.depth -= 1;
        result
    }

    /// `cond ? then : else` (right-associative), or a binary expression.
    fn expr(&mut self) -> Parsed<Expr> {
        self.nested(|p| {
            let cond = p.binary(1)?;
            p.conditional(cond)
        })
    }

    /// The rest of an expression whose first primary has been read.
    fn expr_from(&mut self, primary: Expr) -> Parsed<Expr> {
        self.nested(|p| {
            let operand = p.postfix(primary)?;
            let cond = p.binary_from(operand, 1)?;
            p.conditional(cond)
        })
    }

    /// `? then : else` after a condition, if present.
    fn conditional(&mut self, cond: Expr) -> Parsed<Expr> {
        if !self.is(Punct::Question) {
            return Ok(cond);
        }
        self.advance();
        let then = self.expr()?;
        self.expect(Punct::Colon)?;
        let otherwise = self.expr()?;
        self.node(Node::Cond(cond, then, otherwise))
    }

    /// Left-associative binary operators of precedence `min` and above.
    fn binary(&mut self, min: u8) -> Parsed<Expr> {
        let left = self.unary()?;
        self.binary_from(left, min)
    }

    /// The binary operator at the current token, if any.
    fn binary_operator(&self) -> Option<(BinaryOp, u8)> {
        match self.token.kind {
            Kind::Punct(punct) => binary_operator(punct),
            Kind::Ident => match self.keyword() {
                Some(Keyword::Is) => Some((BinaryOp::Is, BinaryOp::Is.precedence())),
                Some(Keyword::Isnt) => Some((BinaryOp::Isnt, BinaryOp::Isnt.precedence())),
                _ => None,
            },
            _ => None,
        }
    }

    /// Binary operators of precedence `min` and above after `left`.
    fn binary_from(&mut self, mut left: Expr, min: u8) -> Parsed<Expr> {
        while let Some((op, precedence)) = self.binary_operator() {
            if precedence < min {
                break;
            }
            self.advance();
            let right = self.binary(precedence + 1)?;
            left = self.node(Node::Binary(op, left, right))?;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Parsed<Expr> {
        let op = match self.token.kind {
            Kind::Punct(Punct::Minus) => {
                if let Some(literal) = self.negative_literal()? {
                    return self.postfix(literal);
                }
                // The `-` is consumed; its operand starts at the current token.
                let operand = self.nested(Self::unary)?;
                return self.node(Node::Unary(UnaryOp::Neg, operand));
            }
            Kind::Punct(Punct::Plus) => UnaryOp::Plus,
            Kind::Punct(Punct::Bang) => UnaryOp::Not,
            Kind::Punct(Punct::Tilde) => UnaryOp::BitNot,
            _ => {
                let primary = self.primary()?;
                return self.postfix(primary);
            }
        };
        self.advance();
        let operand = self.nested(Self::unary)?;
        self.node(Node::Unary(op, operand))
    }

    /// At a `-`: consumes it and, if a number follows with nothing in
    /// between, that number too, giving the negative literal.
    fn negative_literal(&mut self) -> Parsed<Option<Expr>> {
        let minus_end = self.token.end;
        self.advance();
        if self.token.start != minus_end {
            return Ok(None);
        }
        let literal = match self.token.kind {
            Kind::Int => Literal::Int(int(self.syntax, self.text(), true).ok_or(GiveUp)?),
            Kind::Real => Literal::Real(-parse_real(self.text())),
            _ => return Ok(None),
        };
        self.advance();
        Ok(Some(Expr::literal(literal)))
    }

    /// Selections and subscripts after `base`, then Elvis operators, whose
    /// right operands are selections.
    fn postfix(&mut self, base: Expr) -> Parsed<Expr> {
        let mut expr = self.selection(base)?;
        while self.is(Punct::Elvis) {
            self.advance();
            let primary = self.primary()?;
            let right = self.selection(primary)?;
            expr = self.node(Node::Elvis(expr, right))?;
        }
        Ok(expr)
    }

    fn selection(&mut self, mut expr: Expr) -> Parsed<Expr> {
        loop {
            match self.token.kind {
                Kind::Punct(Punct::Dot) => {
                    self.advance();
                    let name = self.name()?;
                    expr = self.node(Node::Select(expr, name))?;
                }
                Kind::Punct(Punct::LBracket) => {
                    self.advance();
                    let index = self.expr()?;
                    self.expect(Punct::RBracket)?;
                    expr = self.node(Node::Index(expr, index))?;
                }
                _ => return Ok(expr),
            }
        }
    }

    /// An attribute name: an identifier (not a keyword) or adjacent quoted
    /// names.
    fn name(&mut self) -> Parsed<Name> {
        match self.token.kind {
            Kind::Ident if self.keyword().is_none() => {
                let name = self.names.try_name(self.text()).map_err(|_| GiveUp)?;
                self.advance();
                Ok(name)
            }
            Kind::QuotedName { .. } => {
                let text = self.quoted_names()?;
                self.names.try_name(&text).map_err(|_| GiveUp)
            }
            _ => Err(GiveUp),
        }
    }

    /// The unescaped text of the current string or quoted-name token.
    fn unescaped(&self, escaped: bool) -> Parsed<std::borrow::Cow<'s, str>> {
        let text = self.text();
        let body = &text[1..text.len() - 1];
        match (escaped, self.syntax) {
            (false, _) => Ok(std::borrow::Cow::Borrowed(body)),
            (true, Syntax::New) => unescape(body).map_err(|_| GiveUp),
            (true, Syntax::Old) => Ok(std::borrow::Cow::Owned(unescape_old(body, text.as_bytes()[0]))),
        }
    }

    /// True when the current token is a string or quoted name that old
    /// syntax would refuse to join to the one before it.
    fn old_adjacent(&self) -> bool {
        self.syntax == Syntax::Old && matches!(self.token.kind, Kind::Str { .. } | Kind::QuotedName { .. })
    }

    /// Adjacent quoted names, concatenated.
    fn quoted_names(&mut self) -> Parsed<String> {
        let mut text = String::new();
        while let Kind::QuotedName { escaped } = self.token.kind {
            text.push_str(&self.unescaped(escaped)?);
            self.advance();
            if self.old_adjacent() {
                return Err(GiveUp);
            }
        }
        Ok(text)
    }

    /// A literal at the current token (adjacent strings joined), consumed;
    /// `None` (nothing consumed) if the token starts something else.
    fn literal(&mut self) -> Parsed<Option<Expr>> {
        let literal = match self.token.kind {
            Kind::Int => Literal::Int(int(self.syntax, self.text(), false).ok_or(GiveUp)?),
            Kind::Real => Literal::Real(parse_real(self.text())),
            Kind::Str { escaped } => {
                let first = self.unescaped(escaped)?;
                self.advance();
                if self.old_adjacent() {
                    return Err(GiveUp);
                }
                if !matches!(self.token.kind, Kind::Str { .. }) {
                    return Ok(Some(Expr::literal(Literal::Str(Text::new(&first)))));
                }
                let mut text = first.into_owned();
                while let Kind::Str { escaped } = self.token.kind {
                    text.push_str(&self.unescaped(escaped)?);
                    self.advance();
                }
                return Ok(Some(Expr::literal(Literal::Str(text.into()))));
            }
            Kind::Ident => match self.keyword() {
                Some(Keyword::True) => Literal::Bool(true),
                Some(Keyword::False) => Literal::Bool(false),
                Some(Keyword::Undefined) => Literal::Undefined,
                Some(Keyword::Error) => Literal::Error,
                _ => return Ok(None),
            },
            _ => return Ok(None),
        };
        self.advance();
        Ok(Some(Expr::literal(literal)))
    }

    fn primary(&mut self) -> Parsed<Expr> {
        if let Some(literal) = self.literal()? {
            return Ok(literal);
        }
        match self.token.kind {
            // Keywords other than literals cannot start an operand.
            Kind::Ident if self.keyword().is_some() => Err(GiveUp),
            Kind::Ident => {
                let name = self.text();
                self.advance();
                self.call_or_attribute(name)
            }
            Kind::QuotedName { .. } => {
                let name = self.quoted_names()?;
                self.call_or_attribute(&name)
            }
            Kind::Punct(Punct::Dot) => {
                self.advance();
                let name = self.name()?;
                self.node(Node::RootAttr(name))
            }
            Kind::Punct(Punct::LParen) => {
                self.advance();
                let inner = self.expr()?;
                self.expect(Punct::RParen)?;
                self.node(Node::Paren(inner))
            }
            Kind::Punct(Punct::LBrace) => {
                self.advance();
                let items = self.nested(|p| p.comma_list(Punct::RBrace))?;
                self.node(Node::List(items.into()))
            }
            Kind::Punct(Punct::LBracket) => {
                self.advance();
                let ad = self.nested(Self::record_body)?;
                self.node(Node::Record(Arc::new(ad)))
            }
            Kind::Punct(Punct::Minus) => self.negative_literal()?.ok_or(GiveUp),
            _ => Err(GiveUp),
        }
    }

    /// After a name: a call if `(` follows, else an attribute reference.
    fn call_or_attribute(&mut self, name: &str) -> Parsed<Expr> {
        if !self.is(Punct::LParen) {
            let name = self.names.try_name(name).map_err(|_| GiveUp)?;
            return Ok(build::attr(name, self.max_depth)?);
        }
        self.advance();
        let args = self.nested(|p| p.comma_list(Punct::RParen))?;
        let name = self.names.try_name(name).map_err(|_| GiveUp)?;
        Ok(build::call(name, args, self.max_depth)?)
    }

    /// `a, b, c` up to and including `close` (no trailing comma).
    fn comma_list(&mut self, close: Punct) -> Parsed<Vec<Expr>> {
        let mut items = Vec::new();
        if self.is(close) {
            self.advance();
            return Ok(items);
        }
        loop {
            items.push(self.expr()?);
            if self.is(Punct::Comma) {
                self.advance();
            } else if self.is(close) {
                self.advance();
                return Ok(items);
            } else {
                return Err(GiveUp);
            }
        }
    }

    /// The attributes of an ad after its `[`, up to and including `]`.
    fn record_body(&mut self) -> Parsed<ClassAd> {
        let start = self.scratch.len();
        let mut had_separators = false;
        loop {
            let kind = self.token.kind;
            match kind {
                Kind::Punct(Punct::Semi) => {
                    had_separators = true;
                    self.advance();
                    continue;
                }
                Kind::Punct(Punct::RBracket) => {
                    self.advance();
                    break;
                }
                Kind::Ident if self.simple_attributes() => {
                    self.advance();
                    break;
                }
                _ => {}
            }
            // The simple attributes may have stopped at a separator.
            if matches!(self.token.kind, Kind::Punct(Punct::Semi | Punct::RBracket)) {
                continue;
            }
            let name = build::attribute_name(self.name()?)?;
            self.expect(Punct::Assign)?;
            let value = if self.depth == 0 { self.remembered_value(name)? } else { self.attribute_value()? };
            self.scratch.push((name, value));
            match self.token.kind {
                Kind::Punct(Punct::RBracket) => {
                    self.advance();
                    break;
                }
                Kind::Punct(Punct::Semi) => {}
                _ => return Err(GiveUp),
            }
        }
        Ok(build::ad_from_scratch(&mut self.scratch, start, had_separators)?)
    }

    /// Reads the attributes from the current token on for as long as they
    /// are simple (see [`Scanner::simple_attribute`]), straight from the
    /// bytes. True when that reached the closing `]` (the current token is
    /// then stale); otherwise the current token is the first one not read.
    fn simple_attributes(&mut self) -> bool {
        self.scanner.rewind(self.token.start);
        let (max_depth, syntax) = (self.max_depth, self.syntax);
        loop {
            let mark = self.scanner.position();
            let simple = self.scanner.simple_attribute().filter(|simple| keyword(simple.name).is_none());
            // The name before the value, and the value pushed where it is
            // made: a value kept in memory over a call, or merged from the
            // arms of a match, was copied into the scratch in a different
            // width than it was written in, and the copy stalled (a
            // store-forwarding stall per attribute).
            let (names, scratch) = (&mut self.names, &mut self.scratch);
            let pushed = simple.and_then(|simple| {
                let name = names.try_name(simple.name).ok()?;
                let mut name_of = |text: &str| names.try_name(text).ok();
                simple_value(simple.value, syntax, &mut name_of, max_depth, |value| scratch.push((name, value)))
            });
            if pushed.is_none() {
                self.scanner.rewind(mark);
                self.advance();
                return false;
            }
            if simple.is_some_and(|simple| simple.closes) {
                return true;
            }
        }
    }

    /// The value of attribute `name` of a top-level ad: the expression of
    /// the memo when the text is the one remembered for the name, else
    /// parsed (and remembered).
    fn remembered_value(&mut self, name: Name) -> Parsed<Expr> {
        let start = self.token.start;
        let memo = self.memo.get_or_insert_with(Memo::take);
        let found = memo.find(name, self.syntax, self.max_depth, &self.scanner.text()[start..]);
        if let Some((expr, len)) = found.map(|(expr, len)| (expr.clone(), len)) {
            // The value is the remembered text if the attribute ends there.
            self.scanner.rewind(start + len);
            self.advance();
            if self.is(Punct::Semi) || self.is(Punct::RBracket) {
                return Ok(expr);
            }
            self.scanner.rewind(start);
            self.advance();
        }
        let value = self.attribute_value()?;
        if (self.is(Punct::Semi) || self.is(Punct::RBracket)) && memo::worth_remembering(&value) {
            let text = &self.scanner.text()[start..self.token.start];
            if let Some(memo) = self.memo.as_mut() {
                memo.remember(name, self.syntax, self.max_depth, text, &value);
            }
        }
        Ok(value)
    }

    /// An attribute's value; most are a single literal, read directly.
    fn attribute_value(&mut self) -> Parsed<Expr> {
        match self.literal()? {
            Some(literal) if self.is(Punct::Semi) || self.is(Punct::RBracket) => Ok(literal),
            Some(literal) => self.expr_from(literal),
            None => self.expr(),
        }
    }
}

/// Calls `done` with the expression of a simple value and returns what it
/// returns, or `None` where the tokens must decide: a keyword that is no
/// literal, an integer that does not fit.
#[inline(always)]
pub(super) fn simple_value<R>(
    value: SimpleValue<'_>,
    syntax: Syntax,
    name: &mut dyn FnMut(&str) -> Option<Name>,
    max_depth: u32,
    done: impl FnOnce(Expr) -> R,
) -> Option<R> {
    // `done` is called in each arm with an expression of a known shape, so
    // that when it stores it, the store is of that shape (through a merged
    // temporary it was a copy of mismatched width, which stalled).
    let literal = Expr::literal;
    Some(match value {
        SimpleValue::Int { digits, negative } => done(literal(Literal::Int(int(syntax, digits, negative)?))),
        SimpleValue::Real { text, negative: false } => done(literal(Literal::Real(parse_real(text)))),
        SimpleValue::Real { text, negative: true } => done(literal(Literal::Real(-parse_real(text)))),
        SimpleValue::Str(text) => done(literal(Literal::Str(Text::new(text)))),
        SimpleValue::Word(word) => match keyword(word) {
            Some(Keyword::True) => done(literal(Literal::Bool(true))),
            Some(Keyword::False) => done(literal(Literal::Bool(false))),
            Some(Keyword::Undefined) => done(literal(Literal::Undefined)),
            Some(Keyword::Error) => done(literal(Literal::Error)),
            Some(Keyword::Is | Keyword::Isnt) => return None,
            None => done(build::attr(name(word)?, max_depth).ok()?),
        },
    })
}

/// Decimal digits to an integer, if they are one in `syntax`.
fn int(syntax: Syntax, digits: &str, negative: bool) -> Option<i64> {
    if syntax == Syntax::Old && digits.len() > 1 && digits.starts_with('0') {
        return None;
    }
    parse_int(digits, negative).ok()
}
