// Two real HTCondor 23.9.6 ReliSocks (libcondor_utils) talking over
// loopback TCP through a relay in this program, which records every byte
// each way. Each connection sends plaintext messages, then both sides turn
// on AES-GCM with a known key (Sock::set_crypto_key) and exchange encrypted
// messages. The recording shows exactly what HTCondor hashes into the
// handshake digests and how it frames AES-GCM packets.
//
// The classes below are stand-ins declaring the exported members used
// (stream.h, sock.h, reli_sock.h, CryptKey.h of v23.9.6); the real
// constructor runs on a large zeroed block.
#include <arpa/inet.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <new>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

enum Protocol { CONDOR_NO_PROTOCOL, CONDOR_BLOWFISH, CONDOR_3DES, CONDOR_AESGCM };
class KeyInfo {
public:
    KeyInfo(const unsigned char *, unsigned long, Protocol, int);
    alignas(16) unsigned char storage[256];
};
class Stream {
public:
    int snd_int(int, int);
    int rcv_int(int &, int);
    int put(const char *);
    int get(std::string &);
};
class Sock : public Stream {
public:
    int assignSocket(int);
    bool set_crypto_key(bool, KeyInfo *, const char *);
    bool enter_connected_state(const char *);
};
class ReliSock : public Sock {
public:
    ReliSock();
    int end_of_message();
};

static ReliSock *new_sock(int fd) {
    void *mem = calloc(1, 1 << 16);
    ReliSock *s = new (mem) ReliSock();
    if (!s->assignSocket(fd)) { fprintf(stderr, "assignSocket failed\n"); exit(1); }
    s->enter_connected_state("TEST");
    return s;
}

// A connected TCP pair on loopback.
static void tcp_pair(int &a, int &b) {
    int l = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(l, (sockaddr *)&addr, sizeof(addr)) || listen(l, 1) || getsockname(l, (sockaddr *)&addr, &len)) exit(1);
    a = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(a, (sockaddr *)&addr, sizeof(addr))) exit(1);
    b = accept(l, nullptr, nullptr);
    close(l);
}

static const char *conn_name;

// Move every byte waiting on `from` to `to`, printing it.
static void relay(int from, int to, const char *dir, const char *phase) {
    usleep(20000);
    unsigned char buf[65536];
    fcntl(from, F_SETFL, fcntl(from, F_GETFL) | O_NONBLOCK);
    std::string hex;
    for (;;) {
        ssize_t n = read(from, buf, sizeof(buf));
        if (n <= 0) break;
        for (ssize_t i = 0; i < n; i++) {
            char h[3];
            snprintf(h, sizeof(h), "%02x", buf[i]);
            hex += h;
        }
        if (write(to, buf, n) != n) exit(1);
    }
    printf("chunk\tconn=%s\tdir=%s\tphase=%s\tbytes=%s\n", conn_name, dir, phase, hex.c_str());
}

struct Conn {
    ReliSock *client, *server;
    int c_relay, s_relay;  // the relay's ends
};

static Conn connect_pair() {
    int c, cr, s, sr;
    tcp_pair(c, cr);
    tcp_pair(sr, s);
    return Conn{new_sock(c), new_sock(s), cr, sr};
}

static void c2s(Conn &k, int cmd, const char *text, const char *phase) {
    k.client->snd_int(cmd, 0);
    k.client->put(text);
    k.client->end_of_message();
    relay(k.c_relay, k.s_relay, "c2s", phase);
    int got = 0;
    std::string s;
    k.server->rcv_int(got, 0);
    k.server->get(s);
    bool ok = k.server->end_of_message() && got == cmd && s == text;
    printf("received\tconn=%s\tdir=c2s\tphase=%s\tint=%d\ttext=%s\tok=%d\n", conn_name, phase, cmd, text, ok);
}

static void s2c(Conn &k, int cmd, const char *text, const char *phase) {
    k.server->snd_int(cmd, 0);
    k.server->put(text);
    k.server->end_of_message();
    relay(k.s_relay, k.c_relay, "s2c", phase);
    int got = 0;
    std::string s;
    k.client->rcv_int(got, 0);
    k.client->get(s);
    bool ok = k.client->end_of_message() && got == cmd && s == text;
    printf("received\tconn=%s\tdir=s2c\tphase=%s\tint=%d\ttext=%s\tok=%d\n", conn_name, phase, cmd, text, ok);
}

int main() {
    unsigned char keybytes[32];
    for (int i = 0; i < 32; i++) keybytes[i] = (unsigned char)(0x40 + i);
    printf("key\t");
    for (int i = 0; i < 32; i++) printf("%02x", keybytes[i]);
    printf("\n");

    // A new session: plaintext both ways, then AES-GCM both ways.
    {
        conn_name = "both_ways";
        Conn k = connect_pair();
        c2s(k, 60010, "[ client security ad ]", "plain");
        s2c(k, 1, "[ server response ad ]", "plain");
        c2s(k, 2, "CLAIMTOBE", "plain");
        KeyInfo kc(keybytes, 32, CONDOR_AESGCM, 0), ks(keybytes, 32, CONDOR_AESGCM, 0);
        k.client->set_crypto_key(true, &kc, nullptr);
        k.server->set_crypto_key(true, &ks, nullptr);
        s2c(k, 3, "[ post-auth ad ]", "enc");
        c2s(k, 5, "the command payload", "enc");
        c2s(k, 6, "a second message", "enc");
        s2c(k, 7, "the reply", "enc");
    }
    // A resume without a response: only the client sent plaintext.
    {
        conn_name = "one_way";
        Conn k = connect_pair();
        c2s(k, 60010, "[ resume ad ]", "plain");
        KeyInfo kc(keybytes, 32, CONDOR_AESGCM, 0), ks(keybytes, 32, CONDOR_AESGCM, 0);
        k.client->set_crypto_key(true, &kc, nullptr);
        k.server->set_crypto_key(true, &ks, nullptr);
        c2s(k, 5, "the command payload", "enc");
        s2c(k, 7, "the reply", "enc");
    }
    // The server sends the first encrypted packet having sent nothing before.
    {
        conn_name = "server_first_silent";
        Conn k = connect_pair();
        c2s(k, 60010, "[ resume ad ]", "plain");
        KeyInfo kc(keybytes, 32, CONDOR_AESGCM, 0), ks(keybytes, 32, CONDOR_AESGCM, 0);
        k.client->set_crypto_key(true, &kc, nullptr);
        k.server->set_crypto_key(true, &ks, nullptr);
        s2c(k, 7, "the reply", "enc");
        c2s(k, 5, "the next command", "enc");
    }
    return 0;
}
