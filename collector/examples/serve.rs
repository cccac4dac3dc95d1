//! A stand-alone collector on a port, configured by knobs on the command
//! line: for benchmarks and experiments (the daemon that runs under
//! `condor_master` reads HTCondor's configuration files instead).
//!
//! ```text
//! cargo run --release -p collector --features tokio --example serve -- \
//!     [--port 9618] [--threads 2] [--secure] [KNOB=VALUE]...
//! ```
//!
//! Without `--secure` it serves plaintext (mode M0: no authentication, no
//! encryption), allowing everyone unless `ALLOW_*`/`DENY_*` knobs say
//! otherwise; with it the `SEC_*` knobs apply at HTCondor's defaults. It
//! prints `listening on <ip:port>` and serves until killed.

use std::sync::Arc;

use cedar::handshake::{ServerConfig, ServerPolicies};
use cedar::sinful::Sinful;
use cedar::token::key::FileCheck;
use cedar::tokio::ServerOptions;
use collector::config::CollectorConfig;
use collector::server::Collector;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut port = 9618u16;
    let mut threads = 2usize;
    let mut secure = false;
    let mut knobs: Vec<(String, String)> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--port" => port = args.next().ok_or("--port needs a number")?.parse()?,
            "--threads" => threads = args.next().ok_or("--threads needs a number")?.parse()?,
            "--secure" => secure = true,
            kv => {
                let (k, v) = kv.split_once('=').ok_or_else(|| format!("expected KNOB=VALUE, got {kv:?}"))?;
                knobs.push((k.trim().to_ascii_uppercase(), v.trim().to_owned()));
            }
        }
    }
    let lookup = |name: &str| -> Option<String> {
        if let Some((_, v)) = knobs.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)) {
            return Some(v.clone());
        }
        // Everyone may do everything unless the knobs say otherwise.
        name.strip_prefix("ALLOW_").and_then(cedar::authz::Permission::from_name).map(|_| "*".to_owned())
    };
    let mut server = ServerConfig::from_config("COLLECTOR", Collector::commands(), &lookup, FileCheck::none())?
        .hostname("127.0.0.1");
    if !secure {
        server = server.policies(ServerPolicies::plaintext());
    }
    let addr = std::net::SocketAddr::from(([0, 0, 0, 0], port));
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], addr.port()));
    let address = Sinful::from_addr(local).with_param("noUDP", None).to_string();
    let config = CollectorConfig::from_config("127.0.0.1", &lookup)?;
    let collector = Arc::new(Collector::new(config, Arc::new(server), address));
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(threads.max(1)).enable_all().build()?;
    println!("listening on {local}");
    runtime.block_on(async move {
        // A deep accept queue: a load test opens hundreds of connections
        // at once (std's bind listens with a backlog of 128).
        let socket = tokio::net::TcpSocket::new_v4()?;
        socket.set_reuseaddr(true)?;
        socket.bind(addr)?;
        let listener = socket.listen(4096)?;
        let options = ServerOptions::default().max_connections(4096);
        collector.serve(listener, options, std::future::pending()).await?;
        Ok::<(), Box<dyn std::error::Error>>(())
    })
}
