//! The tokio adapter against HTCondor's real C++ client: the scenarios of
//! `tests/wheel.rs` (shared in `tests/wheel/scenarios.rs`, which says how
//! to get the `htcondor` wheel), with the test collector of
//! `examples/test_collector.rs` served by the tokio adapter
//! (`examples/tokio_collector.rs`) instead of the blocking one.

#[path = "../examples/tokio_collector.rs"]
mod tokio_collector;

#[path = "wheel/scenarios.rs"]
mod scenarios;

use std::net::SocketAddr;

use tokio_collector::spawn_tokio_with;
use tokio_collector::test_collector::{FixtureOptions, Store};

/// The fixture on the tokio adapter, one connection at a time.
fn tokio_fixture(options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    spawn_tokio_with("127.0.0.1:0", options, false)
}

/// The fixture on the concurrent `cedar::tokio::Server` (accept loop, a
/// task per connection).
fn concurrent(options: FixtureOptions) -> std::io::Result<(SocketAddr, Store)> {
    spawn_tokio_with("127.0.0.1:0", options, true)
}

scenarios::wheel_tests!(tokio_fixture, "tokio");

/// The scenarios that do not advertise and then query at once, on the
/// concurrent server.
#[test]
fn the_concurrent_server_with_the_cpp_client() {
    scenarios::unknown_command(concurrent);
    scenarios::required_authentication_refused(concurrent);
    scenarios::denied_command(concurrent);
}
