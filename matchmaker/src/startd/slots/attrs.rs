//! The attributes of a slot's ad: their names, interned once, and how
//! their values are written (numbers, strings read from a job).

use std::sync::LazyLock;

use classad::{ClassAd, Expr, Name, Value};

/// The names of the attributes of a custom resource, interned once per
/// startd.
#[derive(Debug, Clone)]
pub(crate) struct CustomNames {
    pub(crate) own: Name,
    pub(crate) detected: Name,
    pub(crate) total_slot: Name,
    pub(crate) assigned: Name,
    pub(crate) total: Name,
    pub(crate) child: Name,
}

impl CustomNames {
    pub(crate) fn new(resource: &str) -> CustomNames {
        let with = |prefix: &str| {
            let mut text = String::with_capacity(prefix.len() + resource.len());
            text.push_str(prefix);
            text.push_str(resource);
            Name::new(&text)
        };
        CustomNames {
            own: Name::new(resource),
            detected: with("Detected"),
            total_slot: with("TotalSlot"),
            assigned: with("Assigned"),
            total: with("Total"),
            child: with("Child"),
        }
    }
}

macro_rules! attr_names {
    ($($field:ident = $text:literal),* $(,)?) => {
        /// The names of the attributes a slot's ad sets, interned once.
        pub(crate) struct AttrNames { $(pub(crate) $field: Name),* }
        pub(crate) static NAMES: LazyLock<AttrNames> = LazyLock::new(|| AttrNames { $($field: Name::new($text)),* });
    };
}

attr_names! {
    my_type = "MyType",
    target_type = "TargetType",
    name = "Name",
    machine = "Machine",
    is_local_startd = "IsLocalStartd",
    detected_cpus = "DetectedCpus",
    detected_memory = "DetectedMemory",
    cpus = "Cpus",
    total_slot_cpus = "TotalSlotCpus",
    memory = "Memory",
    total_slot_memory = "TotalSlotMemory",
    disk = "Disk",
    total_slot_disk = "TotalSlotDisk",
    virtual_memory = "VirtualMemory",
    total_cpus = "TotalCpus",
    total_memory = "TotalMemory",
    total_disk = "TotalDisk",
    total_virtual_memory = "TotalVirtualMemory",
    total_slots = "TotalSlots",
    machine_resources = "MachineResources",
    slot_id = "SlotID",
    slot_type_id = "SlotTypeID",
    slot_type = "SlotType",
    partitionable_slot = "PartitionableSlot",
    pslot_rollup = "PslotRollupInformation",
    num_dynamic_slots = "NumDynamicSlots",
    dynamic_slot = "DynamicSlot",
    parent_slot_id = "ParentSlotId",
    dslot_id = "DSlotId",
    state = "State",
    activity = "Activity",
    remote_user = "RemoteUser",
    remote_owner = "RemoteOwner",
    job_id = "JobId",
    num_claims = "NumClaims",
    child_cpus = "ChildCpus",
    child_memory = "ChildMemory",
    child_disk = "ChildDisk",
    child_name = "ChildName",
    child_dslot_id = "ChildDSlotId",
    child_state = "ChildState",
    child_activity = "ChildActivity",
    child_remote_user = "ChildRemoteUser",
    child_remote_owner = "ChildRemoteOwner",
    user = "User",
    cluster_id = "ClusterId",
    proc_id = "ProcId",
}

/// `Expr` of a number: an integer when whole, else a real.
pub(crate) fn num(v: f64) -> Expr {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Expr::from(v as i64)
    } else {
        Expr::from(v)
    }
}

/// Attribute `name` of `ad` as a string expression, when it is a string:
/// the literal itself when it is one (no copy of the text).
pub(crate) fn string_attr(ad: &ClassAd, name: Name) -> Option<Expr> {
    if let Some(e) = ad.lookup(name) {
        if let Some(classad::Literal::Str(_)) = e.as_literal() {
            return Some(e.clone());
        }
    }
    match ad.eval_attr(name) {
        Value::Str(s) => Some(Expr::from(s.to_string())),
        _ => None,
    }
}
