// Runs HTCondor 23.9.6's SecMan::FillInSecurityPolicyAd (libcondor_utils)
// for one configuration, one subsystem and one permission level, and
// prints the policy ad's security attributes on one line.
//
// Usage (inside the chroot): CONDOR_CONFIG=<file> ./config_policy <name> <SUBSYS> <PERM> <force 0|1>
// An invalid SEC_* value makes HTCondor abort (EXCEPT); regenerate.sh
// records that as result=EXCEPT with the message.
#include "classad/classad_distribution.h"
#include <cstdio>
#include <cstdlib>
#include <string>

enum DCpermission { NOT_A_PERM = -1 };
typedef enum : long { SUBSYSTEM_TYPE_AUTO_ = 15 } SubsystemType;
void set_mySubSystem(const char *, bool, SubsystemType);
bool config();
DCpermission getPermissionFromString(const char *);
class SecMan {
public:
    bool FillInSecurityPolicyAd(DCpermission, classad::ClassAd *, bool, bool, bool);
};

int main(int argc, char **argv) {
    if (argc != 5) return 2;
    set_mySubSystem(argv[2], false, SUBSYSTEM_TYPE_AUTO_);
    config();
    DCpermission perm = getPermissionFromString(argv[3]);
    alignas(16) static char storage[8192];
    SecMan *sm = reinterpret_cast<SecMan *>(storage);
    classad::ClassAd ad;
    bool ok = sm->FillInSecurityPolicyAd(perm, &ad, false, false, atoi(argv[4]) != 0);
    printf("result\tname=%s\tok=%d", argv[1], ok);
    if (ok) {
        const char *attrs[] = {"OutgoingNegotiation", "Authentication", "Encryption", "Integrity", "AuthMethods",
                               "CryptoMethods", "SessionDuration", "SessionLease"};
        for (const char *a : attrs) {
            classad::Value v;
            std::string s;
            long long i;
            if (!ad.EvaluateAttr(a, v)) continue;
            if (v.IsStringValue(s)) printf("\t%s=%s", a, s.c_str());
            else if (v.IsIntegerValue(i)) printf("\t%s=%lld", a, i);
        }
    }
    printf("\n");
    return 0;
}
