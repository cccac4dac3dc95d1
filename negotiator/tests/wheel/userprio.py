"""Drives the negotiator's condor_userprio commands with HTCondor's real C++
client: the htcondor wheel's htcondor2.Negotiator.

Usage: userprio.py SCENARIO HOST:PORT

Writes its CONDOR_CONFIG before importing htcondor2 (the client's security
policy), then prints one JSON object per line: {"step": name, ...} with
what the client got back, or {"refused": name, "error": ...} when the
client raised. The Rust side (tests/userprio_wheel.rs) checks the lines
and the accountant.
"""

import json
import os
import shutil
import sys
import tempfile

SCENARIOS = {
    # A negotiated, unauthenticated session (the server is plaintext).
    "negotiated": """
SEC_CLIENT_AUTHENTICATION = OPTIONAL
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # Raw commands: no handshake, the payload in the command's message.
    "raw": """
SEC_CLIENT_NEGOTIATION = NEVER
SEC_CLIENT_AUTHENTICATION = OPTIONAL
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # The server's ALLOW_ADMINISTRATOR leaves us out.
    "denied": """
SEC_CLIENT_AUTHENTICATION = OPTIONAL
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
""",
    # CLAIMTOBE and AES; not an administrator, but mapped by
    # PRIORITY_FACTOR_AUTHORIZATION to the prefix "alice@".
    "mapped": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
""",
}

COMMON = """
SEC_DEFAULT_CRYPTO_METHODS = AES
SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE
TOOL_DEBUG = D_SECURITY:1
"""

# The ad attributes reported back, per submitter or group.
REPORTED = [
    "Name", "IsAccountingGroup", "AccountingGroup", "Priority", "PriorityFactor", "Ceiling", "Floor",
    "ResourcesUsed", "WeightedResourcesUsed", "AccumulatedUsage", "WeightedAccumulatedUsage",
    "BeginUsageTime", "LastUsageTime", "StartTime",
]


def emit(**kw):
    print(json.dumps(kw, sort_keys=True), flush=True)


def plain(ads):
    out = []
    for ad in ads:
        out.append({k: ad[k] for k in REPORTED if k in ad})
    return sorted(out, key=lambda a: str(a.get("Name")))


def main():
    scenario, address = sys.argv[1], sys.argv[2]
    workdir = tempfile.mkdtemp(prefix="userprio-wheel-")
    try:
        run(scenario, address, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def run(scenario, address, workdir):
    config = os.path.join(workdir, "condor_config")
    with open(config, "w") as f:
        f.write(COMMON + SCENARIOS[scenario])
        f.write("TOOL_LOG = %s\n" % os.path.join(workdir, "tool.log"))
        f.write("SEC_TOKEN_DIRECTORY = %s\n" % workdir)
        f.write("SEC_TOKEN_SYSTEM_DIRECTORY = %s\n" % workdir)
    os.environ["CONDOR_CONFIG"] = config
    import htcondor2
    import classad2

    htcondor2.enable_debug()
    emit(wheel=htcondor2.version().split()[1])
    neg = htcondor2.Negotiator(classad2.ClassAd({"MyAddress": "<%s>" % address}))

    def step(name, fn):
        try:
            got = fn()
        except Exception as e:  # the C++ client raises on failure
            emit(refused=name, error=repr(e))
            return
        emit(step=name, got=plain(got) if isinstance(got, (list, type({}.values()))) else got)

    if scenario in ("negotiated", "raw"):
        step("priorities-before", lambda: neg.getPriorities())
        step("setPriority", lambda: neg.setPriority("alice@site", 5.0))
        step("setFactor", lambda: neg.setFactor("alice@site", 20.0))
        step("setCeiling", lambda: neg.setCeiling("alice@site", 7))
        if hasattr(neg, "setFloor"):
            step("setFloor", lambda: neg.setFloor("alice@site", 2))
        else:
            # The bindings have SET_FLOOR's number but no method for it:
            # the C++ call behind setCeiling, with SET_FLOOR.
            from htcondor2 import htcondor2_impl
            step("setFloor", lambda: htcondor2_impl._negotiator_command_user_value(
                neg._addr, neg._SET_FLOOR, "alice@site", 2))
        step("setUsage", lambda: neg.setUsage("alice@site", 3600.0))
        step("setBeginUsage", lambda: neg.setBeginUsage("alice@site", 1600000000))
        step("setLastUsage", lambda: neg.setLastUsage("alice@site", 1600000100))
        step("priorities", lambda: neg.getPriorities())
        step("rollup", lambda: neg.getPriorities(True))
        step("resources", lambda: neg.getResourceUsage("bob@site"))
        step("resetUsage", lambda: neg.resetUsage("alice@site"))
        step("deleteUser", lambda: neg.deleteUser("carol@site"))
        step("after-reset", lambda: neg.getPriorities())
        step("resetAllUsage", lambda: neg.resetAllUsage())
        step("after-reset-all", lambda: neg.getPriorities())
    elif scenario == "denied":
        # WRITE lets SET_PRIORITYFACTOR through the handshake; its handler
        # refuses a non-administrator (the wheel does not read the status).
        step("setFactor", lambda: neg.setFactor("alice@site", 30.0))
        # SET_PRIORITY is ADMINISTRATOR: refused by the handshake.
        step("setPriority", lambda: neg.setPriority("alice@site", 9.0))
        step("resetAllUsage", lambda: neg.resetAllUsage())
        step("priorities", lambda: neg.getPriorities())
    elif scenario == "mapped":
        step("setFactor-alice", lambda: neg.setFactor("alice@site", 30.0))
        step("setFactor-bob", lambda: neg.setFactor("bob@site", 40.0))
        step("setPriority", lambda: neg.setPriority("alice@site", 9.0))
        step("priorities", lambda: neg.getPriorities())


if __name__ == "__main__":
    main()
