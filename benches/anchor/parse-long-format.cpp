// parse-long-format: times libclassad reading a file of old-format ("long")
// ClassAds, the way HTCondor's tools read `condor_status -l` output: each
// line `Name = value` is split at its first `=`, the value parsed with
// libclassad's parser in old ClassAd syntax, and inserted into the ad; a
// blank line ends an ad. Prints the best of REPS passes, once as above
// (parse_long_format_ms) and once with libclassad's expression cache on,
// each value inserted with `InsertViaCache` as HTCondor's daemons insert
// the lines they receive with ENABLE_CLASSAD_CACHING = true
// (parse_long_format_cache_ms).
//
// Build and run in the HTCondor chroot (benches/compare.sh does this):
//   g++ -O2 -std=c++17 -o /tmp/parse-long-format parse-long-format.cpp -lclassad
//   /tmp/parse-long-format FILE [REPS]
#include <classad/classad_distribution.h>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string trim(const std::string &s) {
	size_t b = s.find_first_not_of(" \t\r");
	if (b == std::string::npos) return "";
	size_t e = s.find_last_not_of(" \t\r");
	return s.substr(b, e - b + 1);
}

int main(int argc, char **argv) {
	if (argc < 2) { fprintf(stderr, "usage: parse-long-format FILE [REPS]\n"); return 2; }
	classad::SetOldClassAdSemantics(true);
	std::ifstream in(argv[1]);
	std::stringstream buffer;
	buffer << in.rdbuf();
	const std::string text = buffer.str();
	int reps = argc > 2 ? atoi(argv[2]) : 7;
	long attributes = 0, ads = 0, errors = 0;
	double best[2] = {1e30, 1e30};
	for (int cached = 0; cached < 2; cached++)
	for (int rep = 0; rep < reps; rep++) {
		classad::ClassAdSetExpressionCaching(cached == 1);
		auto start = std::chrono::steady_clock::now();
		attributes = ads = errors = 0;
		classad::ClassAdParser parser;
		parser.SetOldClassAd(true);
		classad::ClassAd *ad = nullptr;
		size_t pos = 0;
		while (pos <= text.size()) {
			size_t end = text.find('\n', pos);
			if (end == std::string::npos) end = text.size();
			std::string line = text.substr(pos, end - pos);
			pos = end + 1;
			std::string t = trim(line);
			if (t.empty()) {
				if (ad) { ads++; attributes += ad->size(); delete ad; ad = nullptr; }
				if (end == text.size()) break;
				continue;
			}
			if (t[0] == '#') continue;
			size_t eq = line.find('=');
			if (eq == std::string::npos) { errors++; continue; }
			std::string name = trim(line.substr(0, eq));
			if (!ad) ad = new classad::ClassAd;
			if (cached) {
				if (!ad->InsertViaCache(name, trim(line.substr(eq + 1)))) errors++;
				continue;
			}
			classad::ExprTree *tree = parser.ParseExpression(line.substr(eq + 1), true);
			if (!tree) { errors++; continue; }
			ad->Insert(name, tree);
		}
		if (ad) { ads++; attributes += ad->size(); delete ad; }
		double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
		if (ms < best[cached]) best[cached] = ms;
	}
	printf("{\"parse_long_format_ms\": %.2f, \"parse_long_format_cache_ms\": %.2f, \"bytes\": %zu, "
	       "\"ads\": %ld, \"attributes\": %ld, \"errors\": %ld}\n",
	       best[0], best[1], text.size(), ads, attributes, errors);
	return 0;
}
