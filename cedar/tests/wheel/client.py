"""Drives a CEDAR server with HTCondor's real C++ client (the htcondor wheel).

Usage: client.py SCENARIO HOST:PORT

Each scenario writes its own CONDOR_CONFIG before importing htcondor, so
that the C++ client's security policy is set before it reads any config.
Prints one JSON object per line: {"check": name, ...}; exits non-zero on
the first failed assertion (the message says which).
"""

import json
import os
import sys
import tempfile

SCENARIOS = {
    # SEC_CLIENT_NEGOTIATION at its default (PREFERRED): DC_AUTHENTICATE.
    "negotiated": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # Everything OPTIONAL, and C++'s default crypto methods
    # (AES,BLOWFISH,3DES): still a negotiated, unauthenticated session.
    "optional": """
SEC_CLIENT_AUTHENTICATION = OPTIONAL
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
SEC_DEFAULT_CRYPTO_METHODS = AES,BLOWFISH,3DES
""",
    # Raw commands: no handshake at all.
    "raw": """
SEC_CLIENT_NEGOTIATION = NEVER
SEC_CLIENT_AUTHENTICATION = OPTIONAL
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # The client requires authentication, which an M0 server cannot give.
    "required": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # A command the server does not serve.
    "unknown": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # A query of a table no daemon advertised to (the collector serves
    # QUERY_LICENSE_ADS; the fixture does not).
    "license": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # The server forgets its sessions (as if restarted) between commands.
    "restart": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # The server denies a command (it runs with --deny 0).
    "denied": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # M1: authentication required, CLAIMTOBE, AES-GCM.
    "m1": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
""",
    # M1 with many small packets from the server (the fixture sends 4 KiB).
    "m1-packets": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
""",
    # M1 with a client that only has BLOWFISH: no crypto method in common.
    "m1-blowfish": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_CRYPTO_METHODS = BLOWFISH
""",
    # M1 against a server whose ALLOW_ADVERTISE_STARTD leaves us out.
    "m1-denied": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
""",
    # FS: the client makes the directory the server names (a shared /tmp).
    "fs": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = FS
""",
    # FS first, then CLAIMTOBE, against a server that cannot name a
    # directory: FS fails and the client falls back to CLAIMTOBE.
    "fs-fallback": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = FS,CLAIMTOBE
""",
    # M2: IDTOKENS with the token named by CEDAR_TOKEN.
    "m2": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
TRUST_DOMAIN = anchor.local
""",
    "m2-scoped": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
TRUST_DOMAIN = anchor.local
""",
    "m2-badkey": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = IDTOKENS
TRUST_DOMAIN = anchor.local
""",
}

COMMON = """
SEC_DEFAULT_CRYPTO_METHODS = AES
SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE
UPDATE_COLLECTOR_WITH_TCP = True
TOOL_DEBUG = D_SECURITY:2
"""


def setup(scenario, workdir):
    config = os.path.join(workdir, "condor_config")
    log = os.path.join(workdir, "tool.log")
    with open(config, "w") as f:
        f.write(COMMON + SCENARIOS[scenario])
        f.write("TOOL_LOG = %s\n" % log)
        token = os.environ.get("CEDAR_TOKEN")
        tokens = os.path.join(workdir, "tokens.d")
        os.mkdir(tokens)
        if token:
            # The one token the client may use (and no system directory).
            with open(token) as src, open(os.path.join(tokens, "token"), "w") as dst:
                dst.write(src.read())
            os.chmod(os.path.join(tokens, "token"), 0o600)
        f.write("SEC_TOKEN_DIRECTORY = %s\n" % tokens)
        f.write("SEC_TOKEN_SYSTEM_DIRECTORY = %s\n" % tokens)
    os.environ["CONDOR_CONFIG"] = config
    return log


def emit(**kw):
    print(json.dumps(kw), flush=True)


def check(name, ok, detail=""):
    emit(check=name, ok=bool(ok), detail=str(detail))
    if not ok:
        raise SystemExit("check %s failed: %s" % (name, detail))


def plain(ad):
    """A classad2 ad as a dict of attribute -> printed expression."""
    return {k: str(ad.lookup(k)) for k in ad.keys()}


def run_common(htcondor2, classad2, address, negotiated, identity=None):
    """The common checks; `identity` is the (user, method) an
    authenticated client expects the collector to record in its ads."""
    coll = htcondor2.Collector(address)

    # 1. The collector's own ad (timed: the first command makes the session).
    import time
    t0 = time.monotonic()
    ads = coll.query(htcondor2.AdType.Collector)
    t1 = time.monotonic()
    coll.query(htcondor2.AdType.Collector)
    emit(timing={"first_query": round(t1 - t0, 3), "resumed_query": round(time.monotonic() - t1, 3)})
    check("query-collector", len(ads) == 1 and ads[0]["MyType"] == "Collector", [plain(a) for a in ads])

    # 2. Advertise two slots, then query them back.
    slots = []
    for i in (1, 2):
        ad = classad2.ClassAd()
        ad["MyType"] = "Machine"
        ad["Name"] = "slot%d@test" % i
        ad["Machine"] = "test"
        ad["Cpus"] = i * 2
        ad["Memory"] = 1024 * i
        ad["State"] = "Unclaimed"
        ad["Activity"] = "Idle"
        ad["Rate"] = 0.25
        ad["Note"] = 'quote " and back\\slash'
        ad["ClaimId"] = "secret-claim-%d" % i
        ad["Start"] = classad2.ExprTree("TARGET.RequestCpus <= Cpus")
        ad["MyAddress"] = "<127.0.0.1:1234?noUDP>"
        slots.append(ad)
    coll.advertise(slots, "UPDATE_STARTD_AD")

    got = coll.query(htcondor2.AdType.Startd)
    names = sorted(a["Name"] for a in got)
    check("query-back", names == ["slot1@test", "slot2@test"], names)
    slot1 = [a for a in got if a["Name"] == "slot1@test"][0]
    check("values", slot1["Cpus"] == 2 and slot1["Memory"] == 1024 and slot1["Rate"] == 0.25
          and slot1["Note"] == 'quote " and back\\slash', plain(slot1))
    check("expression", str(slot1.lookup("Start")) == "TARGET.RequestCpus <= Cpus", str(slot1.lookup("Start")))
    check("private-dropped", "ClaimId" not in slot1, plain(slot1))
    # The whole ad, exactly: what was sent, less the private attribute,
    # plus the collector's LastHeardFrom.
    expected = {k: str(slots[0].lookup(k)) for k in slots[0].keys() if k != "ClaimId"}
    got_ad = plain(slot1)
    heard = got_ad.pop("LastHeardFrom", None)
    # A real collector counts each daemon's updates in the ad (the fixture
    # does not).
    stats = {k: got_ad.pop(k) for k in ("UpdatesTotal", "UpdatesSequenced", "UpdatesLost", "UpdatesHistory")
             if k in got_ad}
    emit(update_stats=stats)
    who = (got_ad.pop("AuthenticatedIdentity", None), got_ad.pop("AuthenticationMethod", None))
    if identity is not None:
        check("identity", who == tuple('"%s"' % x for x in identity), (who, identity))
    check("exact-ad", got_ad == expected and heard is not None and int(heard) > 1700000000, (got_ad, expected))
    check("last-heard-from", "LastHeardFrom" in slot1, plain(slot1))

    # 3. Constraint.
    got = coll.query(htcondor2.AdType.Startd, constraint="Cpus > 2")
    check("constraint", [a["Name"] for a in got] == ["slot2@test"], [plain(a) for a in got])

    # 4. Projection: the listed attributes and what they reference.
    got = coll.query(htcondor2.AdType.Startd, constraint='Name == "slot1@test"', projection=["Name", "Start"])
    check("projection", len(got) == 1 and sorted(got[0].keys()) == ["Cpus", "Name", "Start"],
          [plain(a) for a in got])

    # 5. locate() the collector.
    loc = coll.locate(htcondor2.DaemonType.Collector)
    check("locate", loc["MyAddress"].startswith("<127.0.0.1:"), plain(loc))

    # 6. Re-advertise (an update replaces) and query once more.
    slots[0]["State"] = "Claimed"
    coll.advertise([slots[0]], "UPDATE_STARTD_AD")
    got = coll.query(htcondor2.AdType.Startd, constraint='State == "Claimed"')
    check("update-replaces", [a["Name"] for a in got] == ["slot1@test"], [plain(a) for a in got])

    # 7. Generic ads: QUERY_GENERIC_ADS sends TargetType "Generic", which
    # (as in the C++ collector's per-type generic tables) finds the ads of
    # MyType "Generic"; other types are found by QUERY_ANY_ADS.
    gen = classad2.ClassAd()
    gen["MyType"] = "Generic"
    gen["Name"] = "g1"
    widget = classad2.ClassAd()
    widget["MyType"] = "Widget"
    widget["Name"] = "w1"
    widget["Size"] = 3
    coll.advertise([gen, widget], "UPDATE_AD_GENERIC")
    got = coll.query(htcondor2.AdType.Generic)
    check("generic", [a["Name"] for a in got] == ["g1"], [plain(a) for a in got])
    got = coll.query(htcondor2.AdType.Any, constraint='MyType == "Widget"')
    check("any", [(a["Name"], a["Size"]) for a in got] == [("w1", 3)], [plain(a) for a in got])

    # 8. Ping (DC_SEC_QUERY): htcondor2.ping where the wheel has it (25.x,
    # which no longer ships the version 1 bindings), else version 1's
    # SecMan.ping (23.x).
    if negotiated:
        if hasattr(htcondor2, "ping"):
            result = htcondor2.ping("<%s>" % address, "QUERY_STARTD_ADS")
        else:
            import htcondor
            result = htcondor.SecMan().ping("<%s>" % address, "QUERY_STARTD_ADS")
        check("ping", bool(result.get("AuthorizationSucceeded")), dict(result))
        emit(ping={k: str(v) for k, v in dict(result).items()})


def big_reply(htcondor2, classad2, address):
    """Many ads: an encrypted update stream, then a reply of several MiB."""
    coll = htcondor2.Collector(address)
    ads = []
    for i in range(300):
        ad = classad2.ClassAd()
        ad["MyType"] = "Machine"
        ad["Name"] = "big%03d@test" % i
        ad["Padding"] = ("%03d" % i) * 1500
        ads.append(ad)
    import time
    t0 = time.monotonic()
    coll.advertise(ads, "UPDATE_STARTD_AD")
    t1 = time.monotonic()
    got = coll.query(htcondor2.AdType.Startd, constraint='regexp("^big", Name)', projection=["Name", "Padding"])
    emit(timing={"advertise_300": round(t1 - t0, 3), "query_300": round(time.monotonic() - t1, 3)})
    ok = sorted(a["Name"] for a in got) == sorted(a["Name"] for a in ads) and all(
        a["Padding"] == a["Name"][3:6] * 1500 for a in got)
    check("big-reply", ok, len(got))


def expect_failure(name, fn):
    try:
        fn()
        check(name, False, "it succeeded")
    except Exception as e:  # the C++ client raises on failure
        check(name, True, repr(e))


def main():
    scenario, address = sys.argv[1], sys.argv[2]
    workdir = tempfile.mkdtemp(prefix="cedar-wheel-")
    log = setup(scenario, workdir)
    import htcondor2
    import classad2

    # The C++ client's log (TOOL_DEBUG) goes to stderr; the Rust side of
    # the test reads the client's own error messages there.
    htcondor2.enable_debug()
    # The wheel's version ("25.14.1"), for version-dependent expectations.
    emit(wheel=htcondor2.version().split()[1])

    try:
        if scenario in ("negotiated", "optional"):
            run_common(htcondor2, classad2, address, True)
        elif scenario in ("m1", "fs-fallback"):
            # The name the CLAIMTOBE client claims: its login name, with
            # @UID_DOMAIN when SEC_CLAIMTOBE_INCLUDE_DOMAIN (default false
            # in 23.x, true from 24.7 on).
            import getpass
            claimed = getpass.getuser()
            if str(htcondor2.param.get("SEC_CLAIMTOBE_INCLUDE_DOMAIN", False)).lower() in ("true", "1", "yes"):
                claimed += "@" + htcondor2.param["UID_DOMAIN"]
            emit(claimed=claimed)
            run_common(htcondor2, classad2, address, True, (claimed, "CLAIMTOBE"))
            if scenario == "m1":
                big_reply(htcondor2, classad2, address)
        elif scenario == "fs":
            # The directory's owner: the user we run as (the server adds
            # its UID_DOMAIN, fs.test).
            import pwd
            owner = pwd.getpwuid(os.geteuid()).pw_name
            emit(owner=owner)
            emit(owner_uid=str(os.geteuid()))
            run_common(htcondor2, classad2, address, True, (owner + "@fs.test", "FS"))
        elif scenario == "m1-packets":
            big_reply(htcondor2, classad2, address)
        elif scenario == "m1-blowfish":
            coll = htcondor2.Collector(address)
            expect_failure("blowfish-fails", lambda: coll.query(htcondor2.AdType.Collector))
        elif scenario in ("m1-denied", "m2-scoped"):
            coll = htcondor2.Collector(address)
            check("query", coll.query(htcondor2.AdType.Collector)[0]["MyType"] == "Collector")
            startd = classad2.ClassAd({"MyType": "Machine", "Name": "scoped@test"})
            if scenario == "m1-denied":
                expect_failure("advertise-denied", lambda: coll.advertise([startd], "UPDATE_STARTD_AD"))
            else:
                coll.advertise([startd], "UPDATE_STARTD_AD")
                got = coll.query(htcondor2.AdType.Startd)
                check("advertise-startd", [a["Name"] for a in got] == ["scoped@test"], [plain(a) for a in got])
                schedd = classad2.ClassAd({"MyType": "Scheduler", "Name": "scoped-schedd@test"})
                expect_failure("advertise-schedd-denied", lambda: coll.advertise([schedd], "UPDATE_SCHEDD_AD"))
                check("schedd-not-stored", coll.query(htcondor2.AdType.Schedd) == [])
        elif scenario == "m2":
            run_common(htcondor2, classad2, address, True, ("condor@anchor.local", "IDTOKENS"))
        elif scenario == "m2-badkey":
            coll = htcondor2.Collector(address)
            expect_failure("badkey-fails", lambda: coll.query(htcondor2.AdType.Collector))
        elif scenario == "raw":
            run_common(htcondor2, classad2, address, False)
        elif scenario == "required":
            coll = htcondor2.Collector(address)
            try:
                coll.query(htcondor2.AdType.Collector)
                check("required-fails", False, "the query succeeded")
            except Exception as e:  # the C++ client raises on failure
                check("required-fails", True, repr(e))
        elif scenario == "unknown":
            coll = htcondor2.Collector(address)
            try:
                coll.query(htcondor2.AdType.License)
                check("unknown-fails", False, "the query succeeded")
            except Exception as e:
                check("unknown-fails", True, repr(e))
        elif scenario == "license":
            got = htcondor2.Collector(address).query(htcondor2.AdType.License)
            check("license-empty", len(got) == 0, [plain(a) for a in got])
        elif scenario == "restart":
            coll = htcondor2.Collector(address)
            check("before", coll.query(htcondor2.AdType.Collector)[0]["MyType"] == "Collector")
            check("resumed", coll.query(htcondor2.AdType.Collector)[0]["MyType"] == "Collector")
            # The fixture's hook: drop every session.
            hook = classad2.ClassAd({"MyType": "Query", "TargetType": "ForgetSessions"})
            coll.advertise([hook], "INVALIDATE_ADS_GENERIC")
            try:
                coll.query(htcondor2.AdType.Collector)
                check("stale-session-fails", False, "the query succeeded")
            except Exception as e:
                check("stale-session-fails", True, repr(e))
            check("new-session", coll.query(htcondor2.AdType.Collector)[0]["MyType"] == "Collector")
        elif scenario == "denied":
            coll = htcondor2.Collector(address)
            ad = classad2.ClassAd({"MyType": "Machine", "Name": "denied@test"})
            try:
                coll.advertise([ad], "UPDATE_STARTD_AD")
                check("denied-fails", False, "the advertise succeeded")
            except Exception as e:
                check("denied-fails", "Failed to advertise" in str(e), repr(e))
            # Reads are still allowed.
            ads = coll.query(htcondor2.AdType.Startd)
            check("denied-not-stored", ads == [], [plain(a) for a in ads])
    finally:
        pass


if __name__ == "__main__":
    main()
