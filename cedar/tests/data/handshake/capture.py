"""Regenerates the handshake ads of this directory from the real C++ client.

Usage (from the workspace root, after `cargo build -p cedar --example
test_collector` and with the htcondor wheel in .venv):

    .venv/bin/python cedar/tests/data/handshake/capture.py

It starts the test collector, runs the wheel's "negotiated" scenario of
cedar/tests/wheel/client.py against it with D_SECURITY:2 logging, and cuts
the security ads the C++ client logged out of its log:

* client_new_session.ad: the client's ad for a new session (QUERY_COLLECTOR_ADS);
* client_resume.ad: the client's ad resuming a session (QUERY_STARTD_ADS);
* client_sec_query.ad: the client's ad of htcondor.SecMan.ping (DC_SEC_QUERY);
* server_response.ad, server_post_auth.ad, server_resume.ad: what the client
  logged it received from our server (the ads a real client accepted).

ECDHPublicKey and the session ids and nonces vary from run to run; the
tests do not depend on their values.

The client logs its whole cached policy for a resumed session; on the wire
(checked with a proxy between the wheel and the fixture) a resume ad holds
only Command, ConnectSinful, Nonce, RemoteVersion, ResumeResponse, Sid and
UseSession (plus AuthCommand for DC_SEC_QUERY). The tests send just those
(WIRE_RESUME_ATTRS in tests/handshake.rs).
"""

import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", "..", ".."))


def ads_after(log, marker):
    """Every ad logged after a line ending with `marker`."""
    out = []
    lines = log.splitlines()
    for i, line in enumerate(lines):
        if line.endswith(marker):
            ad = []
            for l in lines[i + 1:]:
                if re.match(r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d ", l):
                    break
                ad.append(l)
            out.append("\n".join(ad) + "\n")
    return out


def main():
    fixture = subprocess.Popen(
        [os.path.join(ROOT, "target/debug/examples/test_collector"), "0"],
        stdout=subprocess.PIPE, text=True)
    try:
        addr = fixture.stdout.readline().split()[-1]
        run = subprocess.run(
            [sys.executable, os.path.join(ROOT, "cedar/tests/wheel/client.py"), "negotiated", addr],
            capture_output=True, text=True, check=True)
    finally:
        fixture.kill()
    log = run.stderr
    sent = ads_after(log, "SECMAN: sending following classad:")
    responses = ads_after(log, "SECMAN: server responded with:")
    post = ads_after(log, "SECMAN: received post-auth classad:")
    resumed = ads_after(log, "SECMAN: server responded to resume session with:")
    pick = lambda ads, needle: next(a for a in ads if needle in a)
    files = {
        "client_new_session.ad": pick(sent, 'NewSession = "YES"'),
        "client_resume.ad": pick(sent, "Command = 5\n"),
        "client_sec_query.ad": pick(sent, "Command = 60040"),
        "server_response.ad": responses[0],
        "server_post_auth.ad": post[0],
        "server_resume.ad": resumed[0],
    }
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w") as f:
            f.write(text)
        print("wrote", name)


if __name__ == "__main__":
    main()
