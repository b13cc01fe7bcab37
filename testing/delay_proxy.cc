// delay_proxy: a TCP relay on loopback that holds every chunk a client
// sends for a fixed delay before passing it on, for the latency benchmark
// of remote shards and the tests that need a slow server.
//
//   delay_proxy UPSTREAM_PORT DELAY_MS
//
// It listens on a free port of 127.0.0.1, prints that port on a line of
// its own, and relays each accepted connection to 127.0.0.1:UPSTREAM_PORT:
// what the client sends (an HTTP request) goes upstream DELAY_MS after it
// arrived; what upstream answers goes back at once, through a pipe with
// splice(2), so that no byte of an answer is copied by this process. It
// parses nothing, so it adds the delay to every request of a kept-alive
// connection and costs the machine little beside the loader under test
// (the benchmark measures its CPU time with the servers'). It exits when
// its standard input closes, so that it never outlives the process that
// started it; at exit it prints `requests N` on standard error, N the
// chunks it delayed (one a request, for clients that wait for answers).

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>

namespace {

using Clock = std::chrono::steady_clock;

// What an epoll event's data says: the connection's id and which socket.
enum Kind : uint64_t { kListener = 0, kClient = 1, kUpstream = 2, kStdin = 3 };

constexpr size_t kPipeBytes = 1 << 20;
constexpr size_t kReadBytes = 1 << 16;

struct Connection {
  int client = -1;
  int upstream = -1;
  int pipe_out = -1;           // read end: towards the client
  int pipe_in = -1;            // write end: from upstream
  size_t piped = 0;            // bytes of the answer in the pipe
  bool upstream_done = false;  // upstream closed: drain the pipe, then drop
  std::string pending;         // client bytes due upstream but not yet written
  uint32_t client_events = EPOLLIN;  // what epoll watches on each socket
  uint32_t upstream_events = EPOLLIN;
};

// A chunk of a client's bytes, due upstream at `when`.
struct Due {
  Clock::time_point when;
  uint64_t id;
  std::string bytes;
};

[[noreturn]] void Die(const char* what) {
  std::fprintf(stderr, "delay_proxy: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

uint64_t Tag(uint64_t id, Kind kind) { return id << 2 | kind; }

void Watch(int epoll, int op, int fd, uint64_t tag, uint32_t events) {
  epoll_event e{};
  e.events = events;
  e.data.u64 = tag;
  if (epoll_ctl(epoll, op, fd, &e) != 0) Die("epoll_ctl");
}

void NonBlocking(int fd) {
  if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) != 0) Die("fcntl");
}

sockaddr_in Loopback(int port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

class Proxy {
 public:
  Proxy(int upstream_port, int delay_ms)
      : upstream_port_(upstream_port), delay_(delay_ms) {
    epoll_ = epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) Die("epoll_create1");
  }

  // Binds a free port, prints it and relays until standard input closes.
  void Run() {
    Listen();
    Watch(epoll_, EPOLL_CTL_ADD, STDIN_FILENO, kStdin, EPOLLIN);
    epoll_event events[64];
    while (true) {
      int n = epoll_wait(epoll_, events, 64, Timeout());
      if (n < 0 && errno != EINTR) Die("epoll_wait");
      for (int i = 0; i < n; ++i) {
        if (!Handle(events[i])) return;
      }
      SendDue();
    }
  }

  uint64_t requests() const { return requests_; }

 private:
  void Listen() {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(0);
    if (listener_ < 0 ||
        bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        listen(listener_, 256) != 0) {
      Die("listen");
    }
    socklen_t size = sizeof a;
    getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &size);
    std::printf("%d\n", ntohs(a.sin_port));
    std::fflush(stdout);
    Watch(epoll_, EPOLL_CTL_ADD, listener_, kListener, EPOLLIN);
  }

  // False when standard input closed: time to exit.
  bool Handle(const epoll_event& e) {
    uint64_t id = e.data.u64 >> 2;
    switch (e.data.u64 & 3) {
      case kListener:
        Accept();
        return true;
      case kStdin:
        return StdinOpen();
      case kClient:
        if (e.events & EPOLLOUT) Drain(id);
        if (e.events & (EPOLLIN | EPOLLHUP | EPOLLERR)) FromClient(id);
        return true;
      default:
        if (e.events & EPOLLOUT) Flush(id);
        if (e.events & (EPOLLIN | EPOLLHUP | EPOLLERR)) FromUpstream(id);
        return true;
    }
  }

  bool StdinOpen() {
    char buffer[256];
    return read(STDIN_FILENO, buffer, sizeof buffer) > 0;
  }

  void Accept() {
    int client =
        accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) return;
    auto c = std::make_unique<Connection>();
    c->client = client;
    c->upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a = Loopback(upstream_port_);
    int pipe_fds[2];
    if (c->upstream < 0 ||
        connect(c->upstream, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) {
      Close(*c);  // the client sees its connection closed
      return;
    }
    c->pipe_out = pipe_fds[0];
    c->pipe_in = pipe_fds[1];
    fcntl(c->pipe_in, F_SETPIPE_SZ, static_cast<int>(kPipeBytes));
    int one = 1;
    setsockopt(c->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    NonBlocking(c->upstream);
    uint64_t id = next_id_++;
    Watch(epoll_, EPOLL_CTL_ADD, client, Tag(id, kClient), EPOLLIN);
    Watch(epoll_, EPOLL_CTL_ADD, c->upstream, Tag(id, kUpstream), EPOLLIN);
    connections_[id] = std::move(c);
  }

  // A client's bytes wait `delay_` in due_; its end closes the connection.
  void FromClient(uint64_t id) {
    Connection* c = Find(id);
    if (c == nullptr) return;
    char bytes[kReadBytes];
    ssize_t n = read(c->client, bytes, sizeof bytes);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) return Drop(id);
    ++requests_;
    due_.push_back({Clock::now() + delay_, id,
                    std::string(bytes, static_cast<size_t>(n))});
  }

  // Moves what upstream answered into the pipe and on to the client.
  void FromUpstream(uint64_t id) {
    Connection* c = Find(id);
    if (c == nullptr) return;
    ssize_t n = splice(c->upstream, nullptr, c->pipe_in, nullptr, kPipeBytes,
                       SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n < 0) return Drop(id);
    if (n == 0) {
      c->upstream_done = true;  // what is in the pipe still goes out
      epoll_ctl(epoll_, EPOLL_CTL_DEL, c->upstream, nullptr);
    }
    c->piped += static_cast<size_t>(n);
    Drain(id);
  }

  // Empties the pipe into the client; while the client cannot take more,
  // upstream is not read (the pipe is the only buffer).
  void Drain(uint64_t id) {
    Connection* c = Find(id);
    if (c == nullptr) return;
    while (c->piped > 0) {
      ssize_t n = splice(c->pipe_out, nullptr, c->client, nullptr, c->piped,
                         SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n <= 0) return Drop(id);
      c->piped -= static_cast<size_t>(n);
    }
    if (c->piped == 0 && c->upstream_done) return Drop(id);
    Rewatch(id, *c);
  }

  // Writes the chunks whose delay is over to their upstream.
  void SendDue() {
    Clock::time_point now = Clock::now();
    while (!due_.empty() && due_.front().when <= now) {
      Due due = std::move(due_.front());
      due_.pop_front();
      Connection* c = Find(due.id);
      if (c == nullptr) continue;
      c->pending += due.bytes;
      Flush(due.id);
    }
  }

  void Flush(uint64_t id) {
    Connection* c = Find(id);
    if (c == nullptr) return;
    while (!c->pending.empty()) {
      ssize_t n = write(c->upstream, c->pending.data(), c->pending.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && errno == EAGAIN) break;
      if (n <= 0) return Drop(id);
      c->pending.erase(0, static_cast<size_t>(n));
    }
    Rewatch(id, *c);
  }

  // Watches the client for room while the pipe holds bytes for it, and
  // upstream for its answer only once the pipe is empty and for room
  // while client bytes wait; a system call only where that changes.
  void Rewatch(uint64_t id, Connection& c) {
    uint32_t client = EPOLLIN;
    if (c.piped > 0) client |= EPOLLOUT;
    if (client != c.client_events) {
      Watch(epoll_, EPOLL_CTL_MOD, c.client, Tag(id, kClient), client);
      c.client_events = client;
    }
    uint32_t upstream = 0;
    if (c.piped == 0) upstream |= EPOLLIN;
    if (!c.pending.empty()) upstream |= EPOLLOUT;
    if (upstream != c.upstream_events && !c.upstream_done) {
      Watch(epoll_, EPOLL_CTL_MOD, c.upstream, Tag(id, kUpstream), upstream);
      c.upstream_events = upstream;
    }
  }

  int Timeout() const {
    if (due_.empty()) return -1;
    auto left = std::chrono::ceil<std::chrono::milliseconds>(due_.front().when -
                                                             Clock::now());
    return left.count() < 0 ? 0 : static_cast<int>(left.count());
  }

  Connection* Find(uint64_t id) {
    auto it = connections_.find(id);
    return it == connections_.end() ? nullptr : it->second.get();
  }

  void Drop(uint64_t id) {
    auto it = connections_.find(id);
    if (it == connections_.end()) return;
    Close(*it->second);
    connections_.erase(it);
  }

  static void Close(const Connection& c) {
    for (int fd : {c.client, c.upstream, c.pipe_out, c.pipe_in}) {
      if (fd >= 0) close(fd);  // closing removes it from the epoll set
    }
  }

  int upstream_port_;
  std::chrono::milliseconds delay_;
  int epoll_ = -1;
  int listener_ = -1;
  uint64_t next_id_ = 1;
  uint64_t requests_ = 0;
  std::deque<Due> due_;  // in arrival order, which is the order due
  std::unordered_map<uint64_t, std::unique_ptr<Connection>> connections_;
};

int Number(const char* text, const char* name, int low, int high) {
  char* end = nullptr;
  long value = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || value < low || value > high) {
    std::fprintf(stderr, "delay_proxy: %s = \"%s\": must be in %d..%d\n", name,
                 text, low, high);
    std::exit(2);
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: delay_proxy UPSTREAM_PORT DELAY_MS\n");
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);  // a peer gone is an error return, not death
  Proxy proxy(Number(argv[1], "UPSTREAM_PORT", 1, 65535),
              Number(argv[2], "DELAY_MS", 0, 600000));
  proxy.Run();
  std::fprintf(stderr, "requests %llu\n",
               static_cast<unsigned long long>(proxy.requests()));
  return 0;
}
