// A test oracle: asks HTCondor 23.9.6's own libcondor_utils how it
// authorizes peers (SecMan::Verify -> IpVerify::Verify), how its map file
// canonicalizes names (MapFile), and how its wildcard and netmask matchers
// behave. Built and run inside /work/chroot by gen.sh; its output is
// stored next to it and read by cedar/tests/authz_oracle.rs.
//
// HTCondor installs no internal headers, so the few declarations needed are
// written here by hand from the v23.9.6 sources (condor_perms.h,
// subsystem_info.h, condor_secman.h, condor_sockaddr.h, MapFile.h,
// stl_string_utils.h); only the mangled names have to agree.
//
// Input (stdin), one query per line, fields separated by TAB:
//   VERIFY <PERM> <ip> <user or empty>
//   MAP <method> <name>            (uses the map file named by argv[2];
//                                   argv[3] = "hash" for ASSUME_HASH_KEYS)
//   WILD <pattern> <string>        (contains_anycase_withwildcard)
//   NET <pattern> <ip>             (matches_withnetwork)
// Output: the query fields, then the answer fields, TAB separated.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

enum DCpermission {
	NOT_A_PERM = -1, ALLOW_PERM = 0, READ_PERM, WRITE_PERM, NEGOTIATOR_PERM,
	ADMINISTRATOR_PERM, CONFIG_PERM, DAEMON_PERM, SOAP_PERM, DEFAULT_PERM,
	CLIENT_PERM, ADVERTISE_STARTD_PERM, ADVERTISE_SCHEDD_PERM,
	ADVERTISE_MASTER_PERM, LAST_PERM, UNSET_PERM
};
enum SubsystemType { SUBSYSTEM_TYPE_INVALID = 0, SUBSYSTEM_TYPE_MASTER = 1,
	SUBSYSTEM_TYPE_COLLECTOR, SUBSYSTEM_TYPE_NEGOTIATOR, SUBSYSTEM_TYPE_SCHEDD };

class SubsystemInfo;
SubsystemInfo *set_mySubSystem(const char *, bool, SubsystemType);
void config_ex(int);
DCpermission getPermissionFromString(const char *);
bool contains_anycase_withwildcard(const std::vector<std::string> &, const char *);
bool matches_withnetwork(const std::string &, const char *);

class condor_sockaddr {
public:
	condor_sockaddr();
	bool from_ip_string(const char *);
	char pad_[512];
};

class SecMan {
public:
	SecMan();
	// static in condor_secman.h: no `this` argument.
	static int Verify(DCpermission, const condor_sockaddr &, const char *, std::string &, std::string &);
	char pad_[65536];
};

class MapFile {
public:
	MapFile();
	int ParseCanonicalizationFile(const std::string &, bool, bool, bool);
	int GetCanonicalization(const std::string &, const std::string &, std::string &);
	char pad_[65536];
};

static std::vector<std::string> split_tab(const std::string &line) {
	std::vector<std::string> out;
	size_t start = 0;
	for (;;) {
		size_t tab = line.find('\t', start);
		if (tab == std::string::npos) { out.push_back(line.substr(start)); break; }
		out.push_back(line.substr(start, tab - start));
		start = tab + 1;
	}
	return out;
}

int main(int argc, char **argv) {
	const char *subsys = argc > 1 ? argv[1] : "COLLECTOR";
	set_mySubSystem(subsys, true, SUBSYSTEM_TYPE_COLLECTOR);
	config_ex(0x200 | 0x100);
	static SecMan *secman = new SecMan();
	MapFile *mapfile = nullptr;
	if (argc > 2) {
		mapfile = new MapFile();
		bool assume_hash = argc > 3 && std::string(argv[3]) == "hash";
		int line = mapfile->ParseCanonicalizationFile(argv[2], assume_hash, true, false);
		std::cout << "MAPFILE\t" << argv[2] << "\tparse=" << line << "\n";
	}
	std::string line;
	while (std::getline(std::cin, line)) {
		if (line.empty() || line[0] == '#') continue;
		auto f = split_tab(line);
		if (f[0] == "VERIFY" && f.size() == 4) {
			DCpermission perm = getPermissionFromString(f[1].c_str());
			condor_sockaddr addr;
			if (!addr.from_ip_string(f[2].c_str())) { std::cout << line << "\tBADIP\n"; continue; }
			std::string allow, deny;
			int r = secman->Verify(perm, addr, f[3].empty() ? nullptr : f[3].c_str(), allow, deny);
			std::cout << line << "\t" << (r == 1 ? "ALLOW" : "DENY") << "\t" << (r == 1 ? allow : deny) << "\n";
		} else if (f[0] == "MAP" && f.size() == 3 && mapfile) {
			std::string out;
			int r = mapfile->GetCanonicalization(f[1], f[2], out);
			std::cout << line << "\t" << (r == 0 ? "MAPPED" : "NOMATCH") << "\t" << (r == 0 ? out : "") << "\n";
		} else if (f[0] == "WILD" && f.size() == 3) {
			std::vector<std::string> pats{f[1]};
			std::cout << line << "\t" << (contains_anycase_withwildcard(pats, f[2].c_str()) ? "MATCH" : "NOMATCH") << "\n";
		} else if (f[0] == "NET" && f.size() == 3) {
			std::cout << line << "\t" << (matches_withnetwork(f[1], f[2].c_str()) ? "MATCH" : "NOMATCH") << "\n";
		} else {
			std::cout << line << "\tBADQUERY\n";
		}
	}
	return 0;
}
