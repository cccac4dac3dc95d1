#!/usr/bin/env python3
"""gen-pslots.py WORKDIR cp|nocp -- a pool of partitionable slots (one per host, no
children yet), with (cp) or without (nocp) the startd's default consumption policy
(CONSUMPTION_POLICY = True: ConsumptionCpus = quantize(target.RequestCpus,{1}),
ConsumptionMemory = quantize(target.RequestMemory,{128}), ConsumptionDisk =
quantize(target.RequestDisk,{1024})).

cp:   20 hosts, Cpus [4, 8, 16, 32][host % 4] (300 cpus), Memory 2048 MB and Disk 20 GB per cpu.
      bench01: 100 x (1 cpu, 1000 MB), 30 x (2 cpus, 3000 MB, rank Memory);
      bench02: 60 x (1 cpu, 500 MB), 20 x (4 cpus, 8192 MB), 5 x (8 cpus, 60000 MB: fits only
      the 32-cpu hosts);
      bench03: 40 x (1 cpu, 2048 MB, disk 30 GB: fits only hosts with >= 2 cpus left on disk),
      2 x (1 cpu, 300000 MB: fits nowhere).
nocp: 6 hosts, Cpus [8, 16][host % 2] (72 cpus), same per-cpu memory/disk.
      bench01: 20 x (1 cpu, 1000 MB); bench02: 10 x (4 cpus, 4096 MB); bench03: 5 x (1 cpu).
Priority factors 1000.001, 1000.002, 1000.003 (fixed submitter order)."""
import sys
from scenario_common import (base_slot, partitionable, write_slots, write_submit,
                             write_users, write_config)

work, mode = sys.argv[1], sys.argv[2]
cp = mode == "cp"
ads = []
n_hosts = 20 if cp else 6
for h in range(n_hosts):
    cpus = [4, 8, 16, 32][h % 4] if cp else [8, 16][h % 2]
    mem = 2048 * cpus
    disk = 20000000 * cpus
    ad = base_slot(h, "slot1@wn%05d.anchor.invalid" % h, 1, cpus, mem, disk, cpus, mem, disk, 1,
                   os_major=[9, 8, 12][h % 3])
    ads.append(partitionable(ad, cp))
write_slots(work, ads)
G = "gen-pslots.py " + mode
if cp:
    write_submit(work, "bench01", G, [
        dict(tag="b1-1c", cpus=1, memory=1000, disk=1000000, count=100),
        dict(tag="b1-2c", cpus=2, memory=3000, disk=1001000, count=30, rank="Memory")])
    write_submit(work, "bench02", G, [
        dict(tag="b2-1c", cpus=1, memory=500, disk=1002000, count=60),
        dict(tag="b2-4c", cpus=4, memory=8192, disk=1003000, count=20),
        dict(tag="b2-8c", cpus=8, memory=60000, disk=1004000, count=5)])
    write_submit(work, "bench03", G, [
        dict(tag="b3-bigdisk", cpus=1, memory=2048, disk=30000000, count=40),
        dict(tag="b3-huge", cpus=1, memory=300000, disk=1005000, count=2)])
else:
    write_submit(work, "bench01", G, [dict(tag="b1-1c", cpus=1, memory=1000, disk=1000000, count=20)])
    write_submit(work, "bench02", G, [dict(tag="b2-4c", cpus=4, memory=4096, disk=1001000, count=10)])
    write_submit(work, "bench03", G, [dict(tag="b3-1c", cpus=1, memory=1000, disk=1002000, count=5)])
write_users(work, [("bench01", "1000.001", "-"), ("bench02", "1000.002", "-"),
                   ("bench03", "1000.003", "-")])
write_config(work, [])
