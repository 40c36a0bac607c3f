//===- Temporaries.cpp - A private folder for a run's temporary files -----===//
//
// Part of tilec. The signal handler only makes async-signal-safe calls: it
// reads directories with getdents64 into a static buffer and builds paths
// by hand.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Temporaries.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

using namespace tilec;

/// The folder, as a C string and an open descriptor, for the handler.
static char folderPath[4096];
static int folderFd = -1;

static constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static struct sigaction previousActions[std::size(kInterruptSignals)];
/// The signals ignored when tilec started, by index in kInterruptSignals.
static bool inheritedIgnored[std::size(kInterruptSignals)];
static volatile sig_atomic_t interrupted = 0;

namespace {
/// What getdents64 returns: the kernel's layout.
struct DirectoryEntry {
  uint64_t inode;
  int64_t offset;
  unsigned short length;
  unsigned char type;
  char name[];
};
} // namespace

/// Calls `visit` with the name of each entry of the open directory `fd`
/// but "." and "..", in batches read with getdents64. Async-signal-safe.
template <typename Visit> static void forEachEntry(int fd, Visit visit) {
  alignas(8) static char buffer[8192];
  for (;;) {
    long count = ::syscall(SYS_getdents64, fd, buffer, sizeof(buffer));
    if (count <= 0)
      return;
    for (long at = 0; at < count;) {
      auto *entry = reinterpret_cast<DirectoryEntry *>(buffer + at);
      at += entry->length;
      if (std::strcmp(entry->name, ".") != 0 &&
          std::strcmp(entry->name, "..") != 0)
        visit(entry->name);
    }
  }
}

/// Appends `text` to the path being built in `path`; false if too long.
static bool appendTo(char *path, size_t size, const char *text) {
  size_t used = std::strlen(path);
  size_t more = std::strlen(text);
  if (used + more + 1 > size)
    return false;
  std::memcpy(path + used, text, more + 1);
  return true;
}

/// Sends SIGTERM to every child process of every thread of tilec (ptxas,
/// ld.lld), as listed in /proc/self/task/*/children. Async-signal-safe.
static void endChildProcesses() {
  int tasks = ::open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (tasks < 0)
    return;
  forEachEntry(tasks, [](const char *task) {
    char path[128] = "/proc/self/task/";
    if (!appendTo(path, sizeof(path), task) ||
        !appendTo(path, sizeof(path), "/children"))
      return;
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return;
    static char list[4096];
    long length = ::read(fd, list, sizeof(list) - 1);
    ::close(fd);
    long pid = 0;
    for (long i = 0; i < length; ++i) {
      if (list[i] >= '0' && list[i] <= '9') {
        pid = pid * 10 + (list[i] - '0');
      } else if (pid > 0) {
        ::kill(static_cast<pid_t>(pid), SIGTERM);
        pid = 0;
      }
    }
    if (pid > 0)
      ::kill(static_cast<pid_t>(pid), SIGTERM);
  });
  ::close(tasks);
}

/// Empties and removes the folder. Async-signal-safe; what the tools write
/// there are files, so one level is enough.
static void removeFolderNow() {
  if (folderFd < 0)
    return;
  forEachEntry(folderFd, [](const char *name) {
    if (::unlinkat(folderFd, name, 0) != 0)
      ::unlinkat(folderFd, name, AT_REMOVEDIR);
  });
  ::rmdir(folderPath);
}

static void onInterrupt(int signal) {
  int savedErrno = errno;
  interrupted = 1;
  endChildProcesses();
  removeFolderNow();
  // The handler from before (LLVM's, which removes the temporary outputs)
  // runs next, then the signal's default action ends tilec.
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i)
    if (kInterruptSignals[i] == signal)
      ::sigaction(signal, &previousActions[i], nullptr);
  ::raise(signal);
  errno = savedErrno;
}

bool tilec::enterPrivateTemporaryFolder(llvm::raw_ostream &errs) {
  llvm::SmallString<256> path;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("tilec", path)) {
    errs << "tilec: error: cannot create a temporary folder: "
         << error.message() << "\n";
    return false;
  }
  if (path.size() >= sizeof(folderPath)) {
    llvm::sys::fs::remove(path);
    errs << "tilec: error: the temporary folder's path is too long: '" << path
         << "'\n";
    return false;
  }
  std::memcpy(folderPath, path.c_str(), path.size() + 1);
  folderFd = ::open(folderPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  ::setenv("TMPDIR", folderPath, /*overwrite=*/1);

  struct sigaction action = {};
  action.sa_handler = onInterrupt;
  sigemptyset(&action.sa_mask);
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    ::sigaction(kInterruptSignals[i], nullptr, &previousActions[i]);
    // A signal ignored by whoever started tilec (nohup) stays ignored.
    if (previousActions[i].sa_handler != SIG_IGN && !inheritedIgnored[i])
      ::sigaction(kInterruptSignals[i], &action, nullptr);
  }
  return true;
}

void tilec::recordIgnoredSignals() {
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i) {
    struct sigaction current;
    ::sigaction(kInterruptSignals[i], nullptr, &current);
    inheritedIgnored[i] = current.sa_handler == SIG_IGN;
  }
}

void tilec::restoreIgnoredSignals() {
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i)
    if (inheritedIgnored[i])
      ::signal(kInterruptSignals[i], SIG_IGN);
}

bool tilec::isBeingInterrupted() { return interrupted != 0; }

void tilec::waitForInterrupt() {
  for (;;)
    ::pause();
}

void tilec::removePrivateTemporaryFolder() {
  if (folderFd < 0)
    return;
  for (size_t i = 0; i < std::size(kInterruptSignals); ++i)
    ::sigaction(kInterruptSignals[i], &previousActions[i], nullptr);
  llvm::sys::fs::remove_directories(folderPath);
  ::close(folderFd);
  folderFd = -1;
}
