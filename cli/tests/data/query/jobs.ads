MyType = "Job"
Owner = "alice"
ProjectName = "Genomics"
ClusterId = 4217
ProcId = 0
RequestCpus = 1
RequestMemory = 1024
RequestDisk = 1000000
WantSingularity = true
JobDurationCategory = "Medium"
Requirements = (TARGET.Arch == "X86_64") && (TARGET.OpSys == "LINUX") && (TARGET.OpSysMajorVer >= 9) && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && (TARGET.HasSingularity =?= true)
Rank = TARGET.Memory / 1024 + (TARGET.OpSysMajorVer >= 9 ? 100 : 0)

MyType = "Job"
Owner = "bob"
ClusterId = 88
ProcId = 3
RequestCpus = 1
RequestMemory = 128
RequestDisk = 1
Requirements = true
Rank = 0

MyType = "Job"
Owner = "carol"
ProjectName = "Physics"
ClusterId = 9
ProcId = 0
RequestCpus = 1
RequestMemory = 2000
RequestDisk = 1
Requirements = 1
Rank = "fast machines first"

MyType = "Job"
Owner = "dave"
ProjectName = "Chem"
ClusterId = 10
ProcId = 1
RequestCpus = 1
RequestMemory = 512
RequestDisk = 2048
DESIRED_Sites = "SU-ITS,CHTC,UNL-PATH"
Requirements = stringListMember(TARGET.GLIDEIN_Site,DESIRED_Sites) && regexp("^(SU|CH)",TARGET.GLIDEIN_Site) && TARGET.Memory >= RequestMemory
Rank = real(TARGET.Memory) * 1.5

