"""The collector's update knobs with HTCondor's real C++ client (the
htcondor wheel): what `Collector.advertise` reports, and what is stored.

Usage: knobs.py SCENARIO HOST:PORT

  requirements: the collector runs with COLLECTOR_REQUIREMENTS =
      Name =!= "refused"; advertises master ads "ok" and "refused" and a
      startd ad "refused" with UPDATE_STARTD_AD_WITH_ACK.
  own-submitter: CLAIMTOBE as alice, UPDATE_OWN_SUBMITTOR_AD of alice@x,
      group.alice@x and bob@x.

Prints one JSON object per line: {"advertise": name, "raised": bool} for
each advertise, then {"stored": [names]}.
"""

import json
import os
import sys
import tempfile

CONFIG = {
    "requirements": """
SEC_CLIENT_AUTHENTICATION = PREFERRED
SEC_CLIENT_ENCRYPTION = OPTIONAL
SEC_CLIENT_INTEGRITY = OPTIONAL
SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE
""",
    "own-submitter": """
SEC_CLIENT_AUTHENTICATION = REQUIRED
SEC_CLIENT_AUTHENTICATION_METHODS = CLAIMTOBE
SEC_CLAIMTOBE_USER = alice
""",
}


def emit(**kw):
    print(json.dumps(kw), flush=True)


def main():
    scenario, address = sys.argv[1], sys.argv[2]
    workdir = tempfile.mkdtemp(prefix="collector-knobs-")
    config = os.path.join(workdir, "condor_config")
    with open(config, "w") as f:
        f.write(CONFIG[scenario])
        f.write("SEC_DEFAULT_CRYPTO_METHODS = AES\nUPDATE_COLLECTOR_WITH_TCP = True\n")
        f.write("SEC_TOKEN_DIRECTORY = %s\nSEC_TOKEN_SYSTEM_DIRECTORY = %s\n" % (workdir, workdir))
        f.write("TOOL_LOG = %s\n" % os.path.join(workdir, "tool.log"))
    os.environ["CONDOR_CONFIG"] = config
    import classad2
    import htcondor2

    collector = htcondor2.Collector(address)

    def advertise(name, ad, command):
        try:
            collector.advertise([ad], command)
            raised = False
        except Exception as e:  # the wheel raises HTCondorException
            raised = True
            emit(advertise=name, error=str(e))
        emit(advertise=name, command=command, raised=raised)

    if scenario == "requirements":
        for name in ["ok", "refused"]:
            ad = classad2.ClassAd({"MyType": "DaemonMaster", "Name": name, "MyAddress": "<127.0.0.1:1234>"})
            advertise(name, ad, "UPDATE_MASTER_AD")
        ad = classad2.ClassAd({"MyType": "Machine", "Name": "refused", "MyAddress": "<127.0.0.1:1234>"})
        advertise("refused slot", ad, "UPDATE_STARTD_AD_WITH_ACK")
        ads = collector.query(htcondor2.AdType.Master, projection=["Name"])
        ads += collector.query(htcondor2.AdType.Startd, projection=["Name"])
    else:
        for name in ["alice@x", "group.alice@x", "bob@x"]:
            ad = classad2.ClassAd({
                "MyType": "Submitter", "Name": name, "ScheddName": "s@h",
                "MyAddress": "<127.0.0.1:1234>", "ScheddIpAddr": "<127.0.0.1:1234>",
                "RunningJobs": 0, "IdleJobs": 1,
            })
            advertise(name, ad, "UPDATE_OWN_SUBMITTOR_AD")
        ads = collector.query(htcondor2.AdType.Submitter, projection=["Name"])
    emit(stored=sorted(str(ad["Name"]) for ad in ads))


if __name__ == "__main__":
    main()
