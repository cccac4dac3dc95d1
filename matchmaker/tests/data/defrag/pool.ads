MyType = "Machine"
TargetType = "Job"
Name = "slot1@h01.defrag.invalid"
Machine = "h01.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 8
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 0
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 0
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h01.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h01.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h02.defrag.invalid"
Machine = "h02.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 1
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 100
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 100
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h02.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h02.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h03.defrag.invalid"
Machine = "h03.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 2
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 5000
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 5000
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h03.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h03.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h04.defrag.invalid"
Machine = "h04.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 8
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 0
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 0
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h04.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h04.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false
Draining = true

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h05.defrag.invalid"
Machine = "h05.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 3
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 300
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 300
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h05.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h05.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false
Offline = true

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h06.defrag.invalid"
Machine = "h06.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 4
TotalSlotCpus = 4
TotalCpus = 4.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 200
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 200
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h06.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h06.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h07.defrag.invalid"
Machine = "h07.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 2
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 150
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 150
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h07.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h07.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h08.defrag.invalid"
Machine = "h08.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 0
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 40
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 40
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h08.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h08.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false
Draining = true
DrainReason = "by hand"

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h09.defrag.invalid"
Machine = "h09.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 6
TotalSlotCpus = 16
TotalCpus = 16.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 2500
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 2500
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h09.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h09.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h10.defrag.invalid"
Machine = "h10.defrag.invalid"
SlotID = 1
PartitionableSlot = true
SlotType = "Partitionable"
Cpus = 5
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 150.5
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 150.5
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h10.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h10.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false

MyType = "Machine"
TargetType = "Job"
Name = "slot1@h11.defrag.invalid"
Machine = "h11.defrag.invalid"
SlotID = 1
PartitionableSlot = false
SlotType = "Static"
Cpus = 1
TotalSlotCpus = 8
TotalCpus = 8.0
Memory = 1024
State = "Unclaimed"
Activity = "Idle"
ExpectedMachineGracefulDrainingBadput = 100
ExpectedMachineGracefulDrainingCompletion = 1700000000
ExpectedMachineQuickDrainingBadput = 100
ExpectedMachineQuickDrainingCompletion = 1700000000
MyAddress = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h11.defrag.invalid>"
StartdIpAddr = "<127.0.0.1:9?addrs=127.0.0.1-9&alias=h11.defrag.invalid>"
CondorVersion = "$CondorVersion: 23.9.6 2026-07-12 $"
CondorPlatform = "$CondorPlatform: X86_64-Debian_13 $"
AnchorSynthetic = true
WantClaiming = false
