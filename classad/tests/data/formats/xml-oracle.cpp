// xml-oracle: libclassad's XML writer and reader, for the conformance data of
// classad/tests/data/formats. Build and run in the HTCondor chroot (see
// generate_formats.py):
//   g++ -O1 -std=c++17 -o /tmp/xml-oracle xml-oracle.cpp -lclassad
// Modes (one record per input line; output lines are JSON-free, tab separated):
//   unparse  : new-syntax ad per line -> the XML of the ad, with "\n" written as "\\n"
//   parse    : XML document per line (with "\\n" for newlines) -> new-syntax ad, or "ERROR"
#include <classad/classad_distribution.h>
#include <classad/xmlSink.h>
#include <classad/xmlSource.h>
#include <iostream>
#include <string>

static std::string escape_newlines(const std::string &s) {
	std::string out;
	for (char c : s) {
		if (c == '\\') out += "\\\\";
		else if (c == '\n') out += "\\n";
		else out += c;
	}
	return out;
}

static std::string unescape_newlines(const std::string &s) {
	std::string out;
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 1 < s.size()) {
			out += s[i + 1] == 'n' ? '\n' : s[i + 1];
			i++;
		} else {
			out += s[i];
		}
	}
	return out;
}

int main(int argc, char **argv) {
	std::string mode = argc > 1 ? argv[1] : "unparse";
	classad::ClassAdParser parser;
	classad::ClassAdUnParser unparser;
	std::string line;
	while (std::getline(std::cin, line)) {
		if (mode == "unparse") {
			classad::ClassAd *ad = parser.ParseClassAd(line, true);
			if (!ad) { std::cout << "ERROR\n"; continue; }
			classad::ClassAdXMLUnParser xml;
			xml.SetCompactSpacing(false);
			std::string out;
			xml.Unparse(out, ad);
			std::cout << escape_newlines(out) << "\n";
			delete ad;
		} else {
			classad::ClassAdXMLParser xml;
			classad::ClassAd *ad = xml.ParseClassAd(unescape_newlines(line));
			if (!ad) { std::cout << "ERROR\n"; continue; }
			std::string out;
			unparser.Unparse(out, ad);
			std::cout << out << "\n";
			delete ad;
		}
	}
	return 0;
}
