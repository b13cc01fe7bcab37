// MappedFile and the SIGBUS handler that keeps its readers alive
// (mapped_file.h).
#include "data/mapped_file.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "absl/strings/str_cat.h"
#include "data/file_kind.h"

namespace fusednorm {
namespace {

// The mappings the handler knows: [start, end) per slot (0, 0 when free),
// and whether a page of the slot's file was replaced. Lock-free for the
// handler; slots are taken and freed under g_table_mu. As many slots as
// Linux allows mappings by default (vm.max_map_count).
constexpr int kSlots = 65536;
std::atomic<uintptr_t> g_start[kSlots];
std::atomic<uintptr_t> g_end[kSlots];
std::atomic<bool> g_faulted[kSlots];
std::mutex g_table_mu;
struct sigaction g_previous;
bool g_installed = false;

// The slot holding `addr`, or -1.
int SlotOf(uintptr_t addr) {
  for (int i = 0; i < kSlots; ++i) {
    const uintptr_t start = g_start[i].load(std::memory_order_acquire);
    if (start != 0 && addr >= start &&
        addr < g_end[i].load(std::memory_order_acquire)) {
      return i;
    }
  }
  return -1;
}

// Passes a fault that is not ours to the handler installed before ours.
void Chain(int sig, siginfo_t* info, void* context) {
  if (g_previous.sa_flags & SA_SIGINFO) {
    g_previous.sa_sigaction(sig, info, context);
    return;
  }
  if (g_previous.sa_handler == SIG_IGN) return;
  if (g_previous.sa_handler != SIG_DFL) {
    g_previous.sa_handler(sig);
    return;
  }
  // The default action: kill the process with this signal, as it would
  // have without us (the faulting access repeats on return).
  signal(sig, SIG_DFL);
}

void OnBus(int sig, siginfo_t* info, void* context) {
  const uintptr_t addr = reinterpret_cast<uintptr_t>(info->si_addr);
  const int slot = SlotOf(addr);
  if (slot < 0) return Chain(sig, info, context);
  // A page past the file's new end: zeros instead, and the file is marked.
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  void* at = reinterpret_cast<void*>(addr & ~(page - 1));
  if (mmap(at, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
           0) == MAP_FAILED) {
    return Chain(sig, info, context);
  }
  g_faulted[slot].store(true, std::memory_order_release);
}

// fork() while another thread holds g_table_mu would leave it locked for
// ever in the child: the fork waits for it, and both sides let it go.
void LockTable() { g_table_mu.lock(); }
void UnlockTable() { g_table_mu.unlock(); }

// Installs the handler once; takes a free slot for [start, end).
int Register(const uint8_t* start, size_t size) {
  // Before the lock: a fork while it is held would not wait for it yet.
  static std::once_flag fork_handlers;
  std::call_once(fork_handlers, [] {
    pthread_atfork(&LockTable, &UnlockTable, &UnlockTable);
  });
  std::lock_guard<std::mutex> lock(g_table_mu);
  if (!g_installed) {
    struct sigaction action = {};
    action.sa_sigaction = &OnBus;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    sigaction(SIGBUS, &action, &g_previous);
    g_installed = true;
  }
  static int next = 0;  // where the last free slot was found
  for (int k = 0; k < kSlots; ++k) {
    const int i = (next + k) % kSlots;
    if (g_start[i].load(std::memory_order_relaxed) != 0) continue;
    next = i + 1;
    g_faulted[i].store(false, std::memory_order_relaxed);
    g_end[i].store(reinterpret_cast<uintptr_t>(start) + size,
                   std::memory_order_release);
    g_start[i].store(reinterpret_cast<uintptr_t>(start),
                     std::memory_order_release);
    return i;
  }
  return -1;
}

void Unregister(int slot) {
  std::lock_guard<std::mutex> lock(g_table_mu);
  g_start[slot].store(0, std::memory_order_release);
  g_end[slot].store(0, std::memory_order_release);
}

// Writes and truncation change the modification time; the change time is
// not compared, since unlinking the file (a rename over it) changes that.
bool SameVersion(const struct stat& a, const struct stat& b) {
  return a.st_ino == b.st_ino && a.st_size == b.st_size &&
         a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec;
}

}  // namespace

absl::StatusOr<std::unique_ptr<MappedFile>> MappedFile::Open(
    const std::string& path) {
  std::unique_ptr<MappedFile> f(new MappedFile());
  f->path_ = path;
  // Non-blocking: opening a pipe must not wait for a writer.
  f->fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (f->fd_ < 0) {
    const std::string why = std::strerror(errno);
    return errno == ENOENT
               ? absl::NotFoundError(absl::StrCat(path, ": ", why))
               : absl::InvalidArgumentError(absl::StrCat(path, ": ", why));
  }
  if (fstat(f->fd_, &f->opened_) != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot stat: ", std::strerror(errno)));
  }
  if (!S_ISREG(f->opened_.st_mode)) {
    return absl::InvalidArgumentError(absl::StrCat(
        path, ": not a regular file (", FileKind(f->opened_.st_mode), ")"));
  }
  if (f->opened_.st_size == 0) return f;
  const size_t size = static_cast<size_t>(f->opened_.st_size);
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, f->fd_, 0);
  if (map == MAP_FAILED) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": cannot map: ", std::strerror(errno)));
  }
  f->data_ = static_cast<const uint8_t*>(map);
  f->size_ = size;
  f->slot_ = Register(f->data_, size);
  if (f->slot_ < 0) {
    return absl::ResourceExhaustedError(absl::StrCat(
        path, ": cannot map it: ", kSlots, " files are mapped already"));
  }
  return f;
}

MappedFile::~MappedFile() {
  if (slot_ >= 0) Unregister(slot_);
  if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
  if (fd_ >= 0) close(fd_);
}

absl::Status MappedFile::CheckUnchanged() const {
  const bool faulted =
      slot_ >= 0 && g_faulted[slot_].load(std::memory_order_acquire);
  struct stat now;
  if (!faulted && fstat(fd_, &now) == 0 && SameVersion(opened_, now))
    return absl::OkStatus();
  return absl::DataLossError(absl::StrCat(
      path_,
      ": the file was truncated or rewritten while in use (replace shards "
      "by renaming a new file over them instead)"));
}

}  // namespace fusednorm
