// batch-match: times libclassad matching jobs against machines pair by pair, the
// negotiator's inner loop: for each (job, machine) pair, both ads put into a
// classad::MatchClassAd, symmetricMatch(), and for the pairs that match both
// sides' Rank evaluated (a missing Rank or one that is not a number counts as 0).
// Old ClassAd semantics and expression caching on, as HTCondor's daemons run.
//
// Inputs are files of ads in new syntax (one or more per file, as
// `bench-ads` writes them). Prints the best of REPS passes per pair, unoptimized
// (as condor_utils' IsAMatch) and after MatchClassAd::OptimizeLeft/RightAdForMatchmaking
// (as the negotiator prepares its ads), with the checks classad-rs prints.
//
// Build and run in the HTCondor chroot (benches/anchor/batch-match.sh does this):
//   g++ -O2 -std=c++17 -o /usr/local/bin/anchor-batch-match batch-match.cpp -lclassad
//   anchor-batch-match LABEL JOBS_FILE MACHINES_FILE [REPS]
#include <classad/classad_distribution.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace classad;

static std::vector<ClassAd *> read_ads(const char *path) {
	std::ifstream in(path);
	std::stringstream buffer;
	buffer << in.rdbuf();
	const std::string text = buffer.str();
	std::vector<ClassAd *> ads;
	ClassAdParser parser;
	int offset = 0;
	while (true) {
		size_t next = text.find('[', offset);
		if (next == std::string::npos) break;
		offset = (int)next;
		ClassAd *ad = new ClassAd;
		if (!parser.ParseClassAd(text, *ad, offset)) {
			fprintf(stderr, "batch-match: %s: an ad does not parse at byte %d\n", path, offset);
			delete ad;
			exit(1);
		}
		ads.push_back(ad);
	}
	return ads;
}

// The ad's own Rank in the match, as a number; 0 without one.
static double rank_of(ClassAd *ad) {
	if (!ad->Lookup("Rank")) return 0.0;
	Value v;
	double d = 0.0;
	bool b = false;
	if (!ad->EvaluateAttr("Rank", v)) return 0.0;
	if (v.IsNumber(d)) return d;
	if (v.IsBooleanValue(b)) return b ? 1.0 : 0.0;
	return 0.0;
}

struct Pass { long matches; double rank_sum; };

static Pass one_pass(std::vector<ClassAd *> &jobs, std::vector<ClassAd *> &machines, bool ranks) {
	MatchClassAd mad;
	Pass p{0, 0.0};
	for (ClassAd *job : jobs) {
		for (ClassAd *m : machines) {
			mad.ReplaceLeftAd(job);
			mad.ReplaceRightAd(m);
			if (mad.symmetricMatch()) {
				p.matches++;
				if (ranks) p.rank_sum += rank_of(job) + rank_of(m);
			}
			mad.RemoveLeftAd();
			mad.RemoveRightAd();
		}
	}
	return p;
}

static double best_ns(int reps, long pairs, std::vector<ClassAd *> &jobs, std::vector<ClassAd *> &machines,
                      bool ranks, Pass &check) {
	check = one_pass(jobs, machines, ranks);  // warm-up
	double best = 1e300;
	for (int r = 0; r < reps; r++) {
		auto t0 = std::chrono::steady_clock::now();
		check = one_pass(jobs, machines, ranks);
		double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
		best = std::min(best, ns / pairs);
	}
	return best;
}

int main(int argc, char **argv) {
	if (argc < 4) {
		fprintf(stderr, "usage: batch-match LABEL JOBS_FILE MACHINES_FILE [REPS]\n");
		return 2;
	}
	const char *label = argv[1];
	int reps = argc > 4 ? atoi(argv[4]) : 7;
	SetOldClassAdSemantics(true);
	ClassAdSetExpressionCaching(true);
	std::vector<ClassAd *> jobs = read_ads(argv[2]), machines = read_ads(argv[3]);
	long pairs = (long)jobs.size() * (long)machines.size();
	Pass with_ranks, match_only, optimized;
	double ranked = best_ns(reps, pairs, jobs, machines, true, with_ranks);
	double plain = best_ns(reps, pairs, jobs, machines, false, match_only);
	std::string err;
	for (ClassAd *job : jobs) MatchClassAd::OptimizeLeftAdForMatchmaking(job, &err);
	for (ClassAd *m : machines) MatchClassAd::OptimizeRightAdForMatchmaking(m, &err);
	double opt = best_ns(reps, pairs, jobs, machines, true, optimized);
	printf("{\"bench\": \"libclassad-batch\", \"label\": \"%s\", \"jobs\": %zu, \"machines\": %zu, \"pairs\": %ld, "
	       "\"matches\": %ld, \"rank_sum\": %.17g, \"symmetric_match_ranked_ns\": %.1f, "
	       "\"symmetric_match_ns\": %.1f, \"symmetric_match_optimized_ranked_ns\": %.1f, "
	       "\"optimized_matches\": %ld}\n",
	       label, jobs.size(), machines.size(), pairs, with_ranks.matches, with_ranks.rank_sum, ranked, plain, opt,
	       optimized.matches);
	for (ClassAd *ad : jobs) delete ad;
	for (ClassAd *ad : machines) delete ad;
	return 0;
}
