"""A script written for classad2 (after the HTCondor manual's classad2
tutorial): it imports `classad2` by name. test_scripts.py runs it with
classad_rs standing in for classad2 and compares its output with
classad2_tour.expected, which is what the real classad2 printed:

    CLASSAD2_TOUR_MODULE=classad2 python classad2_tour.py > classad2_tour.expected

(in a venv with `pip install htcondor==25.14.1`).
"""

import datetime
import os
import sys

if os.environ.get("CLASSAD2_TOUR_MODULE") == "classad2":
    import classad2
else:
    import classad_rs as classad2

# Ads from text, dicts and streams.
job = classad2.ClassAd(
    """[
    Owner = "alice";
    RequestMemory = 2048;
    RequestCpus = 2;
    Requirements = TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus;
    Rank = TARGET.Memory
]"""
)
print(job["Owner"], job["requestmemory"], "Rank" in job, len(job))
print(type(job["Requirements"]).__name__, job["Requirements"])
print(job.eval("RequestMemory"), job.lookup("Rank"))

machines_text = """
MyType = "Machine"
Name = "slot1@a"
Memory = 1024
Cpus = 4
Requirements = TARGET.RequestCpus <= Cpus

MyType = "Machine"
Name = "slot1@b"
Memory = 8192
Cpus = 8
Requirements = TARGET.RequestCpus <= Cpus

MyType = "Machine"
Name = "slot1@c"
Memory = 4096
Cpus = 1
Requirements = TARGET.RequestCpus <= Cpus
"""
machines = list(classad2.parseAds(machines_text, classad2.ParserType.Old))
print(len(machines), [m["Name"] for m in machines])
for machine in machines:
    print(machine["Name"], job.matches(machine), machine.matches(job), job.symmetricMatch(machine))
ranked = sorted((classad2.ExprTree("TARGET.Memory").eval(job, m), m["Name"]) for m in machines)
print(ranked)

# Changing ads.
job["RequestMemory"] = 4096
job["Environment"] = {"HOME": "/home/alice"}
job["Args"] = ["-v", 3, 2.5, True, None]
job["When"] = datetime.datetime(2024, 5, 1, 12, 0, tzinfo=datetime.timezone.utc)
print(job["RequestMemory"], job["Environment"]["HOME"], job["Args"], job["When"])
print([m["Name"] for m in machines if job.symmetricMatch(m)])
del job["When"]
print("When" in job, job.get("When", "gone"))

# Expressions.
expr = classad2.ExprTree("RequestMemory * 2 + 1")
print(expr, expr.eval(job), expr.eval(), repr(expr.eval()))
print(classad2.ExprTree('strcat("a", "b", 3)').eval(), classad2.ExprTree("size({1, 2, 3})").eval())
print(classad2.ExprTree("1 / 0").eval(), classad2.ExprTree("undefined || true").eval())
print(classad2.ExprTree('regexp("^a.c$", "abc")').eval(), classad2.ExprTree("floor(2.7)").eval())
print(job.flatten(classad2.ExprTree("RequestMemory > TARGET.Memory")))
print(sorted(job.externalRefs(job.lookup("Requirements"))), sorted(job.internalRefs(job.lookup("Requirements"))))
print(classad2.ExprTree("a + 1") == classad2.ExprTree("a + 1"), classad2.ExprTree("a") == classad2.ExprTree("b"))
print(classad2.ExprTree("[x = 1; y = x + 1].y").eval())

# Printing one-attribute ads (classad2 orders several by its hash table).
small = classad2.ClassAd({"Memory": 2048})
print(repr(small), repr(str(small)), repr(small.printOld()), repr(small.printJson()))
print(classad2.quote('say "hi"'), classad2.unquote('"a\\\\b"'))

# parseOne and parseNext.
merged = classad2.parseOne("A = 1\nB = 2\n\nA = 3\n")
print(merged["A"], merged["B"])
print(classad2.parseNext("[ x = 1 ] [ x = 2 ]")["x"], classad2.parseNext(""))

# Errors.
for bad in ["[ a = ]", "1 +"]:
    try:
        classad2.ExprTree(bad) if bad.startswith("1") else classad2.ClassAd(bad)
    except classad2.ClassAdException:
        print("ClassAdException for", repr(bad))
try:
    job["missing"]
except KeyError as e:
    print("KeyError", e)
sys.stdout.flush()
