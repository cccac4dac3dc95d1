// Policy reconciliation answers from HTCondor 23.9.6's own SecMan code
// (libcondor_utils_23_9_6.so), for the cedar crate's policy tests.
//
// Compiled against the v23.9.6 classad headers (src/classad/classad/,
// taken from the HTCondor source by regenerate.sh) and the few SecMan
// declarations below, which mirror condor_secman.h. The SecMan methods
// called here read no member state, so a zeroed block stands in for the
// object.
//
// Output: one line per case, tab-separated key=value fields.
#include "classad/classad_distribution.h"
#include <cstdio>
#include <string>
#include <vector>

class SecMan {
public:
    enum sec_req { SEC_REQ_UNDEFINED = 0, SEC_REQ_INVALID = 1, SEC_REQ_NEVER = 2, SEC_REQ_OPTIONAL = 3,
                   SEC_REQ_PREFERRED = 4, SEC_REQ_REQUIRED = 5 };
    classad::ClassAd *ReconcileSecurityPolicyAds(const classad::ClassAd &, const classad::ClassAd &);
    bool ReconcileSecurityDependency(sec_req &, sec_req &);
    std::string ReconcileMethodLists(const char *, const char *);
    static int getAuthBitmask(const char *);
    static std::string filterCryptoMethods(const std::string &);
    static sec_req sec_alpha_to_sec_req(const char *);
    static int sec_char_to_auth_method(const char *);
};

static SecMan *secman() {
    alignas(16) static char storage[8192];
    return reinterpret_cast<SecMan *>(storage);
}

static const char *REQ_NAMES[] = {"UNDEFINED", "INVALID", "NEVER", "OPTIONAL", "PREFERRED", "REQUIRED"};

struct Side {
    // nullptr = attribute absent
    const char *auth = nullptr, *enc = nullptr, *integ = nullptr;
    const char *methods = nullptr, *crypto = nullptr, *duration = nullptr;
    bool has_lease = false;
    int lease = 0;
};

static void fill(classad::ClassAd &ad, const Side &s) {
    if (s.auth) ad.InsertAttr("Authentication", s.auth);
    if (s.enc) ad.InsertAttr("Encryption", s.enc);
    if (s.integ) ad.InsertAttr("Integrity", s.integ);
    if (s.methods) ad.InsertAttr("AuthMethods", s.methods);
    if (s.crypto) ad.InsertAttr("CryptoMethods", s.crypto);
    if (s.duration) ad.InsertAttr("SessionDuration", s.duration);
    if (s.has_lease) ad.InsertAttr("SessionLease", s.lease);
}

static void print_side(const char *p, const Side &s) {
    if (s.auth) printf("\t%s_auth=%s", p, s.auth);
    if (s.enc) printf("\t%s_enc=%s", p, s.enc);
    if (s.integ) printf("\t%s_int=%s", p, s.integ);
    if (s.methods) printf("\t%s_methods=%s", p, s.methods);
    if (s.crypto) printf("\t%s_crypto=%s", p, s.crypto);
    if (s.duration) printf("\t%s_duration=%s", p, s.duration);
    if (s.has_lease) printf("\t%s_lease=%d", p, s.lease);
}

static void reconcile(const Side &c, const Side &s) {
    classad::ClassAd ca, sa;
    fill(ca, c);
    fill(sa, s);
    printf("reconcile");
    print_side("c", c);
    print_side("s", s);
    classad::ClassAd *r = secman()->ReconcileSecurityPolicyAds(ca, sa);
    if (!r) {
        printf("\tresult=FAIL\n");
        return;
    }
    printf("\tresult=OK");
    // Attributes in a fixed order; absent ones are left out.
    const char *attrs[] = {"Authentication", "AuthRequired", "Encryption", "Integrity", "AuthMethods",
                           "AuthMethodsList", "CryptoMethods", "CryptoMethodsList", "SessionDuration",
                           "SessionLease", "Enact"};
    for (const char *a : attrs) {
        classad::ExprTree *e = r->Lookup(a);
        if (!e) continue;
        classad::Value v;
        std::string str;
        long long i;
        bool b;
        if (r->EvaluateAttr(a, v) && v.IsStringValue(str)) printf("\tr_%s=%s", a, str.c_str());
        else if (v.IsIntegerValue(i)) printf("\tr_%s=%lld", a, i);
        else if (v.IsBooleanValue(b)) printf("\tr_%s=%s", a, b ? "true" : "false");
    }
    printf("\n");
    delete r;
}

int main() {
    const char *levels[] = {"REQUIRED", "PREFERRED", "OPTIONAL", "NEVER"};
    // The 16 cells, for each of the three attributes on its own.
    for (int attr = 0; attr < 3; attr++) {
        for (const char *cl : levels) {
            for (const char *sl : levels) {
                Side c, s;
                const char **cp = attr == 0 ? &c.auth : attr == 1 ? &c.enc : &c.integ;
                const char **sp = attr == 0 ? &s.auth : attr == 1 ? &s.enc : &s.integ;
                *cp = cl;
                *sp = sl;
                reconcile(c, s);
            }
        }
    }
    // Missing, empty, odd spellings and invalid values.
    const char *odd[] = {nullptr, "", "YES", "yes", "TRUE", "false", "no", "preferred", "o", "X", "?"};
    for (const char *v : odd) {
        for (const char *other : levels) {
            Side c, s;
            c.auth = v;
            s.auth = other;
            reconcile(c, s);
            Side c2, s2;
            c2.auth = other;
            s2.auth = v;
            reconcile(c2, s2);
        }
    }
    // Method lists.
    const char *lists[][2] = {
        {"FS,TOKEN", "IDTOKENS,FS"}, {"IDTOKENS,FS", "TOKEN,FS"}, {"IDTOKENS", "IDTOKENS"},
        {"TOKENS", "TOKEN"}, {"token", "IDTOKEN"}, {"fs, claimtobe", "CLAIMTOBE,FS"},
        {"FS CLAIMTOBE", "CLAIMTOBE FS"}, {"SSL", "FS"}, {"", "FS"}, {"FS,FS", "FS"}, {"FS", "FS,FS"},
        {"SCITOKENS,TOKEN,FS", "FS,SCITOKEN,TOKEN"},
    };
    for (auto &l : lists) {
        Side c, s;
        c.auth = "REQUIRED";
        s.auth = "REQUIRED";
        c.methods = l[0];
        s.methods = l[1];
        reconcile(c, s);
    }
    // Methods on one side only.
    {
        Side c, s;
        c.auth = "PREFERRED"; s.auth = "PREFERRED"; c.methods = "FS";
        reconcile(c, s);
    }
    // The AES rule.
    const char *cryptos[][2] = {
        {"AES,BLOWFISH,3DES", "AES,BLOWFISH,3DES"}, {"BLOWFISH,AES", "AES,BLOWFISH"},
        {"AES,BLOWFISH", "BLOWFISH,AES"}, {"aes", "AES"}, {"AES", "aes"}, {"3DES", "AES"}, {"AES", "AES"},
        {" AES", "AES"},
    };
    const char *auths[][2] = {{"REQUIRED", "OPTIONAL"}, {"OPTIONAL", "OPTIONAL"}, {"NEVER", "PREFERRED"}};
    for (auto &cr : cryptos) {
        for (auto &au : auths) {
            Side c, s;
            c.auth = au[0]; s.auth = au[1];
            c.enc = "OPTIONAL"; s.enc = "OPTIONAL";
            c.integ = "NEVER"; s.integ = "OPTIONAL";
            c.crypto = cr[0]; s.crypto = cr[1];
            reconcile(c, s);
        }
    }
    // Durations and leases.
    struct { const char *cd, *sd; bool cl; int cv; bool sl; int sv; } terms[] = {
        {"86400", "3600", true, 3600, true, 1800}, {"60", "86400", true, 0, true, 3600},
        {nullptr, "100", true, 100, false, 0}, {"abc", "100", true, 0, true, 0}, {"100x", "  200", false, 0, false, 0},
        {"-5", "10", true, -3, true, 10}, {"", "10", true, 10, true, 0},
    };
    for (auto &t : terms) {
        Side c, s;
        c.auth = "OPTIONAL"; s.auth = "OPTIONAL";
        c.duration = t.cd; s.duration = t.sd;
        c.has_lease = t.cl; c.lease = t.cv; s.has_lease = t.sl; s.lease = t.sv;
        reconcile(c, s);
    }
    // ReconcileSecurityDependency(a, b) for every pair.
    for (int a = 2; a <= 5; a++) {
        for (int b = 2; b <= 5; b++) {
            SecMan::sec_req ra = (SecMan::sec_req)a, rb = (SecMan::sec_req)b;
            bool ok = secman()->ReconcileSecurityDependency(ra, rb);
            printf("dependency\ta=%s\tb=%s\tok=%d\ta_out=%s\tb_out=%s\n", REQ_NAMES[a], REQ_NAMES[b], ok,
                   REQ_NAMES[ra], REQ_NAMES[rb]);
        }
    }
    // Parsing of SEC_* level values (the first character decides).
    const char *words[] = {"REQUIRED", "required", "Preferred", "optional", "NEVER", "never", "YES", "True",
                           "FALSE", "no", "R", "p", "O", "n", "X", "", "maybe", "1", "0"};
    for (const char *w : words) {
        printf("level\tvalue=%s\treq=%s\n", w, REQ_NAMES[SecMan::sec_alpha_to_sec_req(w)]);
    }
    // Method names to bits.
    const char *names[] = {"CLAIMTOBE", "FS", "FS_REMOTE", "NTSSPI", "GSI", "KERBEROS", "ANONYMOUS", "SSL",
                           "PASSWORD", "MUNGE", "TOKEN", "TOKENS", "IDTOKEN", "IDTOKENS", "SCITOKENS",
                           "SCITOKEN", "fs", "IdTokens", "BOGUS", ""};
    for (const char *n : names) {
        printf("method\tname=%s\tbit=%d\n", n, SecMan::sec_char_to_auth_method(n));
    }
    const char *masks[] = {"FS,CLAIMTOBE", "IDTOKENS, FS", "TOKEN TOKENS", "SSL,BOGUS", ""};
    for (const char *m : masks) {
        printf("bitmask\tlist=%s\tbits=%d\n", m, SecMan::getAuthBitmask(m));
    }
    const char *cfilters[] = {"AES,BLOWFISH,3DES", "aes,AES", "TRIPLEDES, AES", "DES,RC4", "Blowfish", ""};
    for (const char *f : cfilters) {
        printf("crypto_filter\tlist=%s\tresult=%s\n", f, SecMan::filterCryptoMethods(f).c_str());
    }
    return 0;
}
