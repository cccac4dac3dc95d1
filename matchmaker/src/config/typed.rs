//! Typed access to values: integers, reals, booleans, strings and ClassAd
//! expressions, each from the expanded value (HTCondor's default when the
//! files do not set it), with an error naming the value's file and line
//! when it is not of the type asked for.

use classad::{Expr, Value};

use super::{Config, ConfigError, Lookup};

impl Config {
    fn typed_lookup(&self, name: &str) -> Result<Lookup, ConfigError> {
        let found = self.try_lookup(name)?.ok_or_else(|| ConfigError::Undefined { name: name.to_string() })?;
        Ok(found)
    }

    fn bad(found: &Lookup, message: impl Into<String>) -> ConfigError {
        ConfigError::BadValue {
            name: found.name.clone(),
            value: found.value.clone(),
            set_at: found.source.to_string(),
            message: message.into(),
        }
    }

    /// Evaluates a value that is not a plain literal as a ClassAd
    /// expression (HTCondor accepts `PRIORITY_HALFLIFE = 24 * 3600`).
    fn evaluate(found: &Lookup, what: &str) -> Result<Value, ConfigError> {
        let expr =
            classad::parse_expr(found.value.trim()).map_err(|e| Config::bad(found, format!("expected {what}: {e}")))?;
        Ok(expr.eval())
    }

    /// The value of `name` as an integer: a literal, or an expression that
    /// evaluates to an integer, a real (truncated) or a boolean (0 or 1), as
    /// HTCondor reads integer knobs.
    ///
    /// ```
    /// use matchmaker::config::{Config, ConfigError};
    /// let c = Config::parse_str("PRIORITY_HALFLIFE = 2 * 3600\nNEGOTIATOR_INTERVAL = often\n", "n.conf")?;
    /// assert_eq!(c.get_int("PRIORITY_HALFLIFE")?, 7200);
    /// assert_eq!(c.get_int("MAX_ACCOUNTANT_DATABASE_SIZE")?, 1_000_000); // default
    /// let err = c.get_int("NEGOTIATOR_INTERVAL").unwrap_err();
    /// assert!(err.to_string().contains("n.conf, line 2"));
    /// # Ok::<(), ConfigError>(())
    /// ```
    pub fn get_int(&self, name: &str) -> Result<i64, ConfigError> {
        let found = self.typed_lookup(name)?;
        let t = found.value.trim();
        if t.is_empty() {
            return Err(ConfigError::Undefined { name: found.name });
        }
        if let Ok(i) = t.parse::<i64>() {
            return Ok(i);
        }
        match Config::evaluate(&found, "an integer")? {
            Value::Int(i) => Ok(i),
            // As HTCondor: a real is truncated, a boolean is 0 or 1.
            Value::Real(r) if r.is_finite() && r.abs() < 9.2e18 => Ok(r as i64),
            Value::Bool(b) => Ok(i64::from(b)),
            other => Err(Config::bad(&found, format!("expected an integer, got {other}"))),
        }
    }

    /// The value of `name` as a real number (an integer is converted).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let c = Config::default();
    /// assert_eq!(c.get_real("NICE_USER_PRIO_FACTOR")?, 1e10);
    /// assert_eq!(c.get_real("GROUP_QUOTA_ROUND_ROBIN_RATE")?, 1e100);
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn get_real(&self, name: &str) -> Result<f64, ConfigError> {
        let found = self.typed_lookup(name)?;
        let t = found.value.trim();
        if t.is_empty() {
            return Err(ConfigError::Undefined { name: found.name });
        }
        if let Ok(r) = t.parse::<f64>() {
            if r.is_finite() {
                return Ok(r);
            }
        }
        match Config::evaluate(&found, "a number")? {
            Value::Int(i) => Ok(i as f64),
            Value::Real(r) => Ok(r),
            other => Err(Config::bad(&found, format!("expected a number, got {other}"))),
        }
    }

    /// The value of `name` as a boolean: `true` or `false` in any case, or
    /// an expression that evaluates to a boolean or a number (non-zero is
    /// true).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let c = Config::parse_str("GROUP_ACCEPT_SURPLUS = TRUE\n", "g.conf")?;
    /// assert!(c.get_bool("GROUP_ACCEPT_SURPLUS")?);
    /// assert!(c.get_bool("NEGOTIATOR_CONSIDER_PREEMPTION")?); // default
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn get_bool(&self, name: &str) -> Result<bool, ConfigError> {
        let found = self.typed_lookup(name)?;
        let t = found.value.trim();
        if t.is_empty() {
            return Err(ConfigError::Undefined { name: found.name });
        }
        if t.eq_ignore_ascii_case("true") {
            return Ok(true);
        }
        if t.eq_ignore_ascii_case("false") {
            return Ok(false);
        }
        match Config::evaluate(&found, "a boolean")? {
            Value::Bool(b) => Ok(b),
            Value::Int(i) => Ok(i != 0),
            Value::Real(r) => Ok(r != 0.0),
            other => Err(Config::bad(&found, format!("expected a boolean, got {other}"))),
        }
    }

    /// The expanded value of `name` (empty if it is set to nothing).
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// assert_eq!(Config::default().get_string("SLOT_WEIGHT")?, "Cpus");
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn get_string(&self, name: &str) -> Result<String, ConfigError> {
        Ok(self.typed_lookup(name)?.value)
    }

    /// The value of `name` parsed as a ClassAd expression; an error if it
    /// is undefined, empty or does not parse.
    ///
    /// ```
    /// use matchmaker::config::Config;
    /// let rank = Config::default().get_expr("PREEMPTION_RANK")?;
    /// assert!(rank.to_string().contains("RemoteUserPrio"));
    /// # Ok::<(), matchmaker::config::ConfigError>(())
    /// ```
    pub fn get_expr(&self, name: &str) -> Result<Expr, ConfigError> {
        self.get_expr_opt(name)?.ok_or_else(|| ConfigError::Undefined { name: name.to_string() })
    }

    /// The value of `name` parsed as a ClassAd expression, `None` if it is
    /// undefined or empty (as `NEGOTIATOR_SLOT_POOLSIZE_CONSTRAINT` is by
    /// default).
    pub fn get_expr_opt(&self, name: &str) -> Result<Option<Expr>, ConfigError> {
        let found = match self.typed_lookup(name) {
            Ok(f) => f,
            Err(ConfigError::Undefined { .. }) => return Ok(None),
            Err(e) => return Err(e),
        };
        if found.value.trim().is_empty() {
            return Ok(None);
        }
        classad::parse_expr(&found.value)
            .map(Some)
            .map_err(|e| Config::bad(&found, format!("not a ClassAd expression: {e}")))
    }
}

/// `"10 Mb"`, `"64Kb"`, `"1000"`: a size as HTCondor's log knobs take it
/// (units of 1024; bytes without one). `None` when it does not parse.
///
/// ```
/// use matchmaker::config::parse_size;
/// assert_eq!(parse_size("10 Mb"), Some(10 << 20));
/// assert_eq!(parse_size("40G"), Some(40 << 30));
/// assert_eq!(parse_size("ten"), None);
/// ```
pub fn parse_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > 19 {
        return None;
    }
    let n: u64 = t[..digits].parse().ok()?;
    let unit = t[digits..].trim().to_ascii_lowercase();
    let shift = match unit.as_str() {
        "" | "b" => 0,
        "k" | "kb" => 10,
        "m" | "mb" => 20,
        "g" | "gb" => 30,
        "t" | "tb" => 40,
        _ => return None,
    };
    n.checked_mul(1u64 << shift)
}
