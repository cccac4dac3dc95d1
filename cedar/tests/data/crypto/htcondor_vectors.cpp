// Test-vector generator that calls HTCondor 23.9.6's own crypto code
// (libcondor_utils_23_9_6.so) for the cedar crate's crypto tests.
//
// The condor-dev package ships no headers for these classes, so the few
// declarations needed are written out below; they mirror the 23.9.6
// headers (CryptKey.h, condor_crypt.h, condor_crypt_aesgcm.h,
// condor_secman.h) and link by their mangled names. The layout of
// Condor_Crypto_State is checked at run time (see check_layout).
//
// Build and run with regenerate.sh (inside the chroot /work/chroot).
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

extern "C" {
struct evp_pkey_st;
typedef struct evp_pkey_st EVP_PKEY;
void EVP_PKEY_free(EVP_PKEY *);
int i2d_PrivateKey(const EVP_PKEY *, unsigned char **);
int i2d_PublicKey(const EVP_PKEY *, unsigned char **);
void CRYPTO_free(void *, const char *, int);
unsigned char *SHA256(const unsigned char *, size_t, unsigned char *);
}

enum Protocol { CONDOR_NO_PROTOCOL, CONDOR_BLOWFISH, CONDOR_3DES, CONDOR_AESGCM };

// Opaque stand-ins, large enough for the real objects (KeyInfo is 32
// bytes, Condor_Crypto_State 96 bytes on x86_64 in 23.9.6).
class KeyInfo {
public:
    KeyInfo(const unsigned char *, unsigned long, Protocol, int);
    alignas(16) unsigned char storage[256];
};
class Condor_Crypto_State {
public:
    Condor_Crypto_State(Protocol, KeyInfo &);
    alignas(16) unsigned char storage[512];
};
class Condor_Crypt_AESGCM {
public:
    bool encrypt(Condor_Crypto_State *, const unsigned char *, int, const unsigned char *, int,
                 unsigned char *, int);
    bool decrypt(Condor_Crypto_State *, const unsigned char *, int, const unsigned char *, int,
                 unsigned char *, int &);
    void *vtable_placeholder[4];
};
class Condor_Crypt_Base {
public:
    static unsigned char *hkdf(const unsigned char *, unsigned long, unsigned long);
};
class CondorError;
class SecMan {
public:
    static std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY *)> GenerateKeyExchange(CondorError *);
    static bool FinishKeyExchange(std::unique_ptr<EVP_PKEY, void (*)(EVP_PKEY *)>, const char *,
                                  unsigned char *, unsigned long, CondorError *);
    static bool EncodePubkey(const EVP_PKEY *, std::string &, CondorError *);
};
char *condor_base64_encode(const unsigned char *, int, bool);

// Offsets inside Condor_Crypto_State: KeyInfo (32), three pointers (24),
// then StreamCryptoState { u32 ctr_enc; u32 ctr_dec; u8 iv_enc[16]; u8 iv_dec[16]; }.
static const size_t OFF_CTR_ENC = 56, OFF_IV_ENC = 64;

static std::string hex(const unsigned char *p, size_t n) {
    static const char *d = "0123456789abcdef";
    std::string s;
    for (size_t i = 0; i < n; i++) { s += d[p[i] >> 4]; s += d[p[i] & 15]; }
    return s;
}
static std::string hex(const std::vector<unsigned char> &v) { return hex(v.data(), v.size()); }

static void hkdf_vector(const char *name, const std::vector<unsigned char> &ikm) {
    unsigned char *out = Condor_Crypt_Base::hkdf(ikm.data(), ikm.size(), 32);
    if (!out) { printf("hkdf %s FAILED\n", name); return; }
    printf("hkdf name=%s ikm=%s okm=%s\n", name, hex(ikm).c_str(), hex(out, 32).c_str());
    free(out);
}

static Condor_Crypto_State *new_state(const unsigned char key[32]) {
    KeyInfo *ki = new KeyInfo(key, 32, CONDOR_AESGCM, 0);
    Condor_Crypto_State *cs = static_cast<Condor_Crypto_State *>(calloc(1, sizeof(Condor_Crypto_State)));
    new (cs) Condor_Crypto_State(CONDOR_AESGCM, *ki);
    return cs;
}

// One direction of a stream: `count` packets sealed by HTCondor with the
// given base IV; AAD as reli_sock.cpp builds it (69 bytes for the first
// packet, the 5-byte header afterwards).
static void gcm_stream(const char *name, const unsigned char key[32], const unsigned char base_iv[16],
                       const std::vector<unsigned char> &sent, const std::vector<unsigned char> &recvd,
                       const std::vector<std::string> &plaintexts) {
    Condor_Crypt_AESGCM aes;
    memset(&aes, 0, sizeof(aes));
    Condor_Crypto_State *cs = new_state(key);
    Condor_Crypto_State *rx = new_state(key);
    memcpy(cs->storage + OFF_IV_ENC, base_iv, 16);
    unsigned char ds[32], dr[32];
    SHA256(sent.data(), sent.size(), ds);
    SHA256(recvd.data(), recvd.size(), dr);
    printf("gcm name=%s key=%s base_iv=%s sent=%s recvd=%s\n", name, hex(key, 32).c_str(),
           hex(base_iv, 16).c_str(), hex(sent).c_str(), hex(recvd).c_str());
    for (size_t i = 0; i < plaintexts.size(); i++) {
        const std::string &pt = plaintexts[i];
        int ct_len = (int)pt.size() + 16 + (i == 0 ? 16 : 0);
        unsigned char hdr[5] = {(unsigned char)(i + 1 == plaintexts.size() ? 1 : 0),
                                (unsigned char)(ct_len >> 24), (unsigned char)(ct_len >> 16),
                                (unsigned char)(ct_len >> 8), (unsigned char)ct_len};
        std::vector<unsigned char> aad;
        if (i == 0) { aad.insert(aad.end(), ds, ds + 32); aad.insert(aad.end(), dr, dr + 32); }
        aad.insert(aad.end(), hdr, hdr + 5);
        std::vector<unsigned char> out(ct_len);
        if (!aes.encrypt(cs, aad.data(), (int)aad.size(), (const unsigned char *)pt.data(), (int)pt.size(),
                         out.data(), ct_len)) {
            printf("gcm %s packet %zu encrypt FAILED\n", name, i);
            return;
        }
        uint32_t ctr;
        memcpy(&ctr, cs->storage + OFF_CTR_ENC, 4);
        if (ctr != i + 1) { printf("LAYOUT MISMATCH: ctr_enc=%u\n", ctr); exit(2); }
        std::vector<unsigned char> back(ct_len);
        int back_len = ct_len;
        // A second HTCondor state decrypts it. The AAD is the sender's
        // order: the receiving ReliSock builds recv-digest || send-digest
        // from its own view, which is this same byte string.
        bool ok = aes.decrypt(rx, aad.data(), (int)aad.size(), out.data(), ct_len, back.data(), back_len);
        printf("gcm_packet name=%s index=%zu header=%s plaintext=%s payload=%s decrypt_ok=%d\n", name, i,
               hex(hdr, 5).c_str(), hex((const unsigned char *)pt.data(), pt.size()).c_str(),
               hex(out).c_str(), ok && back_len == (int)pt.size() && !memcmp(back.data(), pt.data(), pt.size()));
    }
}

static std::vector<unsigned char> private_scalar(const EVP_PKEY *k) {
    unsigned char *der = nullptr;
    int n = i2d_PrivateKey(k, &der);
    // ECPrivateKey ::= SEQUENCE { version 1, privateKey OCTET STRING (32), ... }
    // 30 len 02 01 01 04 20 <32 bytes>
    std::vector<unsigned char> v;
    if (n > 39 && der[2] == 0x02 && der[3] == 0x01 && der[4] == 0x01 && der[5] == 0x04 && der[6] == 0x20)
        v.assign(der + 7, der + 39);
    CRYPTO_free(der, __FILE__, __LINE__);
    return v;
}

static void ecdh_vector(int n) {
    auto a = SecMan::GenerateKeyExchange(nullptr);
    auto b = SecMan::GenerateKeyExchange(nullptr);
    if (!a || !b) { printf("ecdh keygen FAILED\n"); return; }
    std::string pa, pb;
    SecMan::EncodePubkey(a.get(), pa, nullptr);
    SecMan::EncodePubkey(b.get(), pb, nullptr);
    std::vector<unsigned char> sa = private_scalar(a.get()), sb = private_scalar(b.get());
    // The compressed form of b's point, to see whether HTCondor accepts it.
    unsigned char *raw = nullptr;
    int rn = i2d_PublicKey(b.get(), &raw);
    std::string pb_compressed;
    if (rn == 65) {
        unsigned char c[33];
        c[0] = (raw[64] & 1) ? 0x03 : 0x02;
        memcpy(c + 1, raw + 1, 32);
        char *e = condor_base64_encode(c, 33, false);
        pb_compressed = e;
        free(e);
    }
    CRYPTO_free(raw, __FILE__, __LINE__);
    unsigned char kab[32], kba[32];
    bool ok1 = SecMan::FinishKeyExchange(std::move(a), pb.c_str(), kab, 32, nullptr);
    bool ok2 = SecMan::FinishKeyExchange(std::move(b), pa.c_str(), kba, 32, nullptr);
    printf("ecdh index=%d a_private=%s a_public=%s b_private=%s b_public=%s key_ab=%s key_ba=%s ok=%d\n", n,
           hex(sa).c_str(), pa.c_str(), hex(sb).c_str(), pb.c_str(), hex(kab, 32).c_str(), hex(kba, 32).c_str(),
           ok1 && ok2);
    // Compressed point: a fresh key exchange against b's compressed form.
    auto c = SecMan::GenerateKeyExchange(nullptr);
    std::vector<unsigned char> sc = private_scalar(c.get());
    unsigned char kc[32];
    bool okc = SecMan::FinishKeyExchange(std::move(c), pb_compressed.c_str(), kc, 32, nullptr);
    printf("ecdh_compressed index=%d c_private=%s b_public_compressed=%s key=%s ok=%d\n", n, hex(sc).c_str(),
           pb_compressed.c_str(), okc ? hex(kc, 32).c_str() : "-", okc);
}

static std::vector<unsigned char> bytes(const char *s) { return std::vector<unsigned char>(s, s + strlen(s)); }

int main() {
    // HKDF-SHA256(ikm, salt "htcondor", info "keygen", 32): Condor_Crypt_Base::hkdf.
    hkdf_vector("abc", bytes("abc"));
    std::vector<unsigned char> seq(32);
    for (int i = 0; i < 32; i++) seq[i] = (unsigned char)i;
    hkdf_vector("seq32", seq);
    hkdf_vector("capability", bytes("<127.0.0.1:9618?addrs=127.0.0.1-9618>#1700000000#42#[]9f86d081884c7d659a2feaa0c55ad015"));

    unsigned char key[32];
    for (int i = 0; i < 32; i++) key[i] = (unsigned char)(0xa0 + i);
    unsigned char iv1[16], iv2[16];
    for (int i = 0; i < 16; i++) iv1[i] = (unsigned char)i;
    memcpy(iv2, "\xff\xff\xff\xfe" "\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b", 16);
    // A transcript: one plaintext packet sent (end=1, len 8, int 60010), one received.
    std::vector<unsigned char> sent = {0x01, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0xea, 0x6a};
    std::vector<unsigned char> recvd = {0x01, 0, 0, 0, 3, 'Y', 'E', 'S'};
    gcm_stream("basic", key, iv1, sent, recvd, {"hello, HTCondor", "second packet", ""});
    gcm_stream("wrap", key, iv2, sent, recvd, {"a", "bb", "ccc"});
    for (int n = 0; n < 2; n++) ecdh_vector(n);
    return 0;
}
