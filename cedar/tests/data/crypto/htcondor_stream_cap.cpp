// What two real HTCondor 23.9.6 ReliSocks do when more than 1 MiB of
// plaintext went one way before AES-GCM: the client sends `total` bytes of
// plaintext strings, the server answers once, both turn on AES-GCM with
// the same key, and each side sends one encrypted message (the client
// first). Client and server run in two processes, so large transfers do
// not deadlock; each prints whether it could decrypt the other's message.
//
// Usage: ./stream_cap <total bytes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
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
    s->assignSocket(fd);
    s->enter_connected_state("TEST");
    return s;
}

static const int CHUNK = 60000;

int main(int argc, char **argv) {
    long total = atol(argv[1]);
    unsigned char keybytes[32];
    for (int i = 0; i < 32; i++) keybytes[i] = (unsigned char)(0x40 + i);
    int sv[2];
    // A UNIX socketpair would be refused by assignSocket's protocol
    // checks only for mismatched objects; a fresh ReliSock accepts it.
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) return 1;
    std::string big(CHUNK, 'a');
    long messages = (total + CHUNK) / (CHUNK + 1);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[1]);
        ReliSock *c = new_sock(sv[0]);
        for (long i = 0; i < messages; i++) {
            c->snd_int(0, 0);
            c->put(big.c_str());
            c->end_of_message();
        }
        int reply = 0;
        c->rcv_int(reply, 1);
        KeyInfo k(keybytes, 32, CONDOR_AESGCM, 0);
        c->set_crypto_key(true, &k, nullptr);
        c->snd_int(5, 1);
        int got = 0;
        bool ok = c->rcv_int(got, 1) && got == 7;
        printf("cap\ttotal=%ld\tmessages=%ld\tside=client\tdecrypted_server=%d\n", total, messages, ok);
        fflush(stdout);
        _exit(0);
    }
    close(sv[0]);
    ReliSock *s = new_sock(sv[1]);
    std::string got;
    for (long i = 0; i < messages; i++) {
        int zero;
        s->rcv_int(zero, 0);
        s->get(got);
        s->end_of_message();
    }
    s->snd_int(1, 1);
    KeyInfo k(keybytes, 32, CONDOR_AESGCM, 0);
    s->set_crypto_key(true, &k, nullptr);
    int cmd = 0;
    bool ok = s->rcv_int(cmd, 1) && cmd == 5;
    s->snd_int(7, 1);
    printf("cap\ttotal=%ld\tmessages=%ld\tside=server\tdecrypted_client=%d\n", total, messages, ok);
    fflush(stdout);
    int st;
    waitpid(pid, &st, 0);
    return 0;
}
