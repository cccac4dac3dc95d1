//! The server's command table: each command it answers, at the
//! [`Permission`] level (and alternates) it is registered with, as
//! daemon core's `Register_Command` keeps them.

use crate::authz::{CommandPermission, Permission};

/// One registered command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Registration {
    /// The command number.
    pub command: i32,
    /// Its level.
    pub perm: Permission,
    /// Levels that also admit it, tried after `perm`.
    pub alternates: &'static [Permission],
}

/// The commands a server answers.
///
/// ```
/// use cedar::authz::{Permission, COLLECTOR_COMMANDS};
/// use cedar::handshake::CommandTable;
/// let table = CommandTable::from_registrations(COLLECTOR_COMMANDS).register(60011, Permission::Allow);
/// assert_eq!(table.permission(5), Some(Permission::Read));
/// // A client granted a level may also send the commands of the levels it implies.
/// let valid = table.valid_commands(Permission::AdvertiseStartd);
/// assert!(valid.split(',').any(|c| c == "0") && valid.split(',').any(|c| c == "5"));
/// ```
#[derive(Debug, Clone, Default)]
pub struct CommandTable {
    entries: Vec<Registration>,
}

impl CommandTable {
    /// An empty table.
    pub fn new() -> CommandTable {
        CommandTable::default()
    }

    /// A table of a daemon's registrations (e.g.
    /// [`COLLECTOR_COMMANDS`](crate::authz::COLLECTOR_COMMANDS)).
    pub fn from_registrations(registrations: &[CommandPermission]) -> CommandTable {
        let mut t = CommandTable::new();
        for r in registrations {
            if let Ok(command) = i32::try_from(r.command) {
                t = t.register_with_alternates(command, r.perm, r.alternates);
            }
        }
        t
    }

    /// Adds (or moves) `command` at `perm`.
    pub fn register(self, command: i32, perm: Permission) -> CommandTable {
        self.register_with_alternates(command, perm, &[])
    }

    /// Adds (or moves) `command` at `perm`, also admitted at `alternates`.
    pub fn register_with_alternates(
        mut self,
        command: i32,
        perm: Permission,
        alternates: &'static [Permission],
    ) -> CommandTable {
        self.entries.retain(|r| r.command != command);
        self.entries.push(Registration { command, perm, alternates });
        self
    }

    /// The registration of `command`, `None` when it is not registered.
    pub fn get(&self, command: i32) -> Option<&Registration> {
        self.entries.iter().find(|r| r.command == command)
    }

    /// The level of `command`, `None` when it is not registered.
    pub fn permission(&self, command: i32) -> Option<Permission> {
        self.get(command).map(|r| r.perm)
    }

    /// `GetCommandsInAuthLevel`: the commands of `perm` and of the levels
    /// it implies, comma-separated, level by level.
    pub fn valid_commands(&self, perm: Permission) -> String {
        let mut out: Vec<String> = Vec::new();
        for level in perm.implied_chain() {
            for r in &self.entries {
                if r.perm == level {
                    out.push(r.command.to_string());
                }
            }
        }
        out.join(",")
    }
}
