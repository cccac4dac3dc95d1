//! Two runs compared.
