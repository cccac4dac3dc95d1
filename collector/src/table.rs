//! The collector's tables: which ads go where, and the names HTCondor
//! gives each table (`AdTypeStringToWhichAds`, `collector_engine.cpp`).

use std::fmt;

/// One of the collector's ad tables.
///
/// The startd has three: its slot ads, the private ads that come beside
/// them (claim ids), and its daemon ads (`MyType = "StartD"`). Ads sent
/// with `UPDATE_AD_GENERIC` go into a table per `MyType`
/// ([`Table::Generic`], the type as the first ad spelled it, compared
/// without case).
///
/// ```
/// use collector::Table;
/// assert_eq!(Table::from_type_name("Machine"), Some(Table::Slot));
/// assert_eq!(Table::from_type_name("startd"), Some(Table::StartdDaemon));
/// assert_eq!(Table::from_type_name("DaemonMaster"), Some(Table::Master));
/// assert_eq!(Table::from_type_name("Replication"), Some(Table::Generic("Replication".into())));
/// assert_eq!(Table::from_type_name("MyGadget"), None);
/// assert_eq!(Table::Slot.my_type(), "Machine");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Table {
    /// Startd slot ads (`MyType = "Machine"`; HTCondor's `StartdSlotAds`).
    Slot,
    /// The private ads of slots (`StartdPrivateAds`), keyed as their
    /// public ads.
    StartdPrivate,
    /// Startd daemon ads (`MyType = "StartD"`), sent by 23.2+ startds or
    /// made from slot 1 of older ones.
    StartdDaemon,
    /// Schedd ads (`Scheduler`).
    Schedd,
    /// Submitter ads (`Submitter`).
    Submitter,
    /// Master ads (`DaemonMaster`).
    Master,
    /// Negotiator ads.
    Negotiator,
    /// Collector ads: this collector's own and those other collectors send.
    Collector,
    /// Accounting ads (the negotiator's user priorities).
    Accounting,
    /// High-availability daemon ads (`HAD`).
    Had,
    /// License ads.
    License,
    /// Storage ads.
    Storage,
    /// Checkpoint server ads.
    CkptSrvr,
    /// Grid ads.
    Grid,
    /// A table of `UPDATE_AD_GENERIC` ads of one `MyType`.
    Generic(String),
}

impl Table {
    /// The fixed tables, in the order a `QUERY_ANY_ADS` walks them
    /// (`getAnyHashTables`); the generic tables follow them.
    pub const FIXED: [Table; 13] = [
        Table::Accounting,
        Table::Storage,
        Table::CkptSrvr,
        Table::License,
        Table::Collector,
        Table::StartdDaemon,
        Table::Slot,
        Table::Schedd,
        Table::Master,
        Table::Submitter,
        Table::Negotiator,
        Table::Had,
        Table::Grid,
    ];

    /// The table a type name selects, as `AdTypeStringToWhichAds` maps
    /// them (any case): `Machine` and `Slot` are the slot table, `StartD`
    /// the daemon ads, `MachinePrivate` the private ads, `Generic`,
    /// `Replication`, `Defrag` and `Job_Router` generic tables. `None` for
    /// a name HTCondor does not know (and `Any`).
    pub fn from_type_name(name: &str) -> Option<Table> {
        const NAMES: &[(&str, Table)] = &[
            ("Machine", Table::Slot),
            ("Slot", Table::Slot),
            ("StartD", Table::StartdDaemon),
            ("MachinePrivate", Table::StartdPrivate),
            ("Scheduler", Table::Schedd),
            ("Submitter", Table::Submitter),
            ("DaemonMaster", Table::Master),
            ("CkptServer", Table::CkptSrvr),
            ("Collector", Table::Collector),
            ("Storage", Table::Storage),
            ("Negotiator", Table::Negotiator),
            ("Accounting", Table::Accounting),
            ("License", Table::License),
            ("HAD", Table::Had),
            ("Grid", Table::Grid),
        ];
        if let Some((_, t)) = NAMES.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)) {
            return Some(t.clone());
        }
        // Types HTCondor keeps in the generic tables (and a few it has
        // tables for that this collector keeps as generic: Cluster,
        // CredD, XferService, LeaseManager).
        const GENERIC: &[&str] =
            &["Generic", "Replication", "Defrag", "Job_Router", "Cluster", "CredD", "XferService", "LeaseManager"];
        GENERIC.iter().find(|n| n.eq_ignore_ascii_case(name)).map(|n| Table::Generic((*n).to_owned()))
    }

    /// The `MyType` of the ads this table holds (a generic table's own
    /// type name).
    pub fn my_type(&self) -> &str {
        match self {
            Table::Slot | Table::StartdPrivate => "Machine",
            Table::StartdDaemon => "StartD",
            Table::Schedd => "Scheduler",
            Table::Submitter => "Submitter",
            Table::Master => "DaemonMaster",
            Table::Negotiator => "Negotiator",
            Table::Collector => "Collector",
            Table::Accounting => "Accounting",
            Table::Had => "HAD",
            Table::License => "License",
            Table::Storage => "Storage",
            Table::CkptSrvr => "CkptServer",
            Table::Grid => "Grid",
            Table::Generic(name) => name,
        }
    }

    /// A short lower-case label for logs and metrics (`slot`, `startd_private`,
    /// `schedd`, …; `generic` for every generic table).
    pub fn label(&self) -> &'static str {
        match self {
            Table::Slot => "slot",
            Table::StartdPrivate => "startd_private",
            Table::StartdDaemon => "startd_daemon",
            Table::Schedd => "schedd",
            Table::Submitter => "submitter",
            Table::Master => "master",
            Table::Negotiator => "negotiator",
            Table::Collector => "collector",
            Table::Accounting => "accounting",
            Table::Had => "had",
            Table::License => "license",
            Table::Storage => "storage",
            Table::CkptSrvr => "ckpt_server",
            Table::Grid => "grid",
            Table::Generic(_) => "generic",
        }
    }

    /// The same table with a generic name folded to lower case: the map
    /// key (generic tables are found without case).
    pub(crate) fn folded(&self) -> Table {
        match self {
            Table::Generic(n) => Table::Generic(n.to_ascii_lowercase()),
            t => t.clone(),
        }
    }
}

impl fmt::Display for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.my_type())
    }
}
