//! The `cedar` server side against HTCondor's real C++ client: the
//! `htcondor` Python wheel drives the test collector of
//! `examples/test_collector.rs` through `htcondor2.Collector` (query,
//! advertise, locate) and `htcondor.SecMan.ping`, in mode M0 (plaintext),
//! M1 (CLAIMTOBE and AES-GCM) and M2 (IDTOKENS, with the tokens
//! `condor_token_create` made in `tests/data/token/`). The scenarios are in
//! `tests/wheel/scenarios.rs` (shared with `tests/tokio_wheel.rs`), which
//! also says how to get the wheel.

#[path = "../examples/test_collector.rs"]
mod test_collector;

#[path = "wheel/scenarios.rs"]
mod scenarios;

use std::net::SocketAddr;

use test_collector::{spawn, FixtureOptions, Store};

/// The blocking fixture on a free loopback port.
fn blocking(options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    spawn("127.0.0.1:0", options)
}

scenarios::wheel_tests!(blocking, "blocking");
