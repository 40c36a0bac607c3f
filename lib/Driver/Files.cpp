//===- Files.cpp - The files a run reads and writes -----------------------===//
//
// Part of tilec.
//
//===----------------------------------------------------------------------===//

#include "tilec/Driver/Files.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Errno.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace tilec;

//===----------------------------------------------------------------------===//
// Input
//===----------------------------------------------------------------------===//

std::unique_ptr<llvm::MemoryBuffer>
tilec::readInputFile(llvm::StringRef path, llvm::raw_ostream &errs) {
  auto fail = [&](const llvm::Twine &why) {
    errs << "tilec: error: cannot read '" << path << "': " << why << "\n";
    return nullptr;
  };
  bool isStdin = path == "-";
  int fd = STDIN_FILENO;
  if (!isStdin) {
    fd = ::open(std::string(path).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
      return fail(llvm::sys::StrError(errno));
  }
  llvm::scope_exit closeFile([&] {
    if (!isStdin)
      ::close(fd);
  });
  auto tooLarge = [&] {
    return fail("it is larger than " + llvm::Twine(kMaxInputBytes >> 20) +
                " MiB, the most tilec reads");
  };
  struct stat status;
  if (::fstat(fd, &status) == 0) {
    if (S_ISDIR(status.st_mode))
      return fail("it is a directory");
    if (S_ISREG(status.st_mode) &&
        static_cast<uint64_t>(status.st_size) > kMaxInputBytes)
      return tooLarge();
  }
  // Devices such as /dev/zero never end: read one byte past the limit
  // rather than trusting the size.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxInputBytes) {
    ssize_t count = ::read(fd, chunk, sizeof(chunk));
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return fail(llvm::sys::StrError(errno));
    if (count == 0)
      return llvm::MemoryBuffer::getMemBufferCopy(text,
                                                  isStdin ? "<stdin>" : path);
    text.append(chunk, count);
  }
  return tooLarge();
}

//===----------------------------------------------------------------------===//
// Outputs
//===----------------------------------------------------------------------===//

struct OutputFiles::Destination {
  enum class Kind {
    StandardOutput,
    /// A temporary file beside it, renamed over it.
    Replace,
    /// Written in place: a device or a FIFO, which must not be replaced, or
    /// a file with other hard links, which a rename would split off.
    InPlace,
  };
  std::string path;
  std::string role;
  /// `path` with its symbolic links followed: the file written.
  std::string resolved;
  Kind kind = Kind::Replace;
  /// Whether `resolved` is a regular file that exists, and its permissions
  /// and owner, which its replacement keeps.
  bool replacesFile = false;
  mode_t mode = 0;
  uid_t owner = 0;
  gid_t group = 0;
  /// A device, FIFO or socket.
  bool isSpecial = false;
};

OutputFiles::OutputFiles() = default;
OutputFiles::~OutputFiles() = default;

void OutputFiles::add(llvm::StringRef path, llvm::StringRef role) {
  Destination destination;
  destination.path = path.str();
  destination.role = role.str();
  if (path == "-")
    destination.kind = Destination::Kind::StandardOutput;
  destinations.push_back(std::move(destination));
}

/// The folder of `path`: "." for a bare file name.
static std::string folderOf(llvm::StringRef path) {
  llvm::StringRef folder = llvm::sys::path::parent_path(path);
  return folder.empty() ? "." : folder.str();
}

/// Follows the symbolic links of `path` to the file they lead to, which may
/// not exist yet (a dangling link names the file to create).
static std::optional<std::string> followLinks(llvm::StringRef path) {
  std::string current = path.str();
  // As many links as the kernel follows (ELOOP beyond).
  for (int hop = 0; hop < 40; ++hop) {
    struct stat status;
    if (::lstat(current.c_str(), &status) != 0 || !S_ISLNK(status.st_mode))
      return current;
    char target[PATH_MAX];
    ssize_t length = ::readlink(current.c_str(), target, sizeof(target));
    if (length < 0 || length == sizeof(target))
      return std::nullopt;
    llvm::StringRef next(target, length);
    if (llvm::sys::path::is_absolute(next)) {
      current = next.str();
    } else {
      llvm::SmallString<256> joined(folderOf(current));
      llvm::sys::path::append(joined, next);
      current = std::string(joined);
    }
  }
  return std::nullopt;
}

/// What identifies the file `path` names, to tell when two names are one
/// file: its device and inode if it exists, else its real folder and name.
static std::string identify(llvm::StringRef path) {
  struct stat status;
  if (::stat(std::string(path).c_str(), &status) == 0)
    return "inode " + std::to_string(status.st_dev) + ":" +
           std::to_string(status.st_ino);
  llvm::SmallString<256> folder;
  if (llvm::sys::fs::real_path(folderOf(path), folder))
    return "path " + path.str();
  llvm::sys::path::append(folder, llvm::sys::path::filename(path));
  return "path " + std::string(folder);
}

bool OutputFiles::check(llvm::StringRef inputPath, llvm::raw_ostream &errs) {
  bool ok = true;
  auto fail = [&](const Destination &destination, const llvm::Twine &why) {
    errs << "tilec: error: cannot write the " << destination.role << " '"
         << destination.path << "': " << why << "\n";
    ok = false;
  };
  for (Destination &destination : destinations) {
    if (destination.kind == Destination::Kind::StandardOutput)
      continue;
    std::optional<std::string> resolved = followLinks(destination.path);
    if (!resolved) {
      fail(destination, "its symbolic links do not lead to a file");
      continue;
    }
    destination.resolved = *resolved;
    const char *file = destination.resolved.c_str();
    struct stat status;
    if (::stat(file, &status) == 0) {
      if (S_ISDIR(status.st_mode)) {
        fail(destination, "it is a directory");
        continue;
      }
      if (S_ISSOCK(status.st_mode)) {
        fail(destination, "it is a socket");
        continue;
      }
      if (!S_ISREG(status.st_mode)) {
        // /dev/null, /dev/stdout, a FIFO: written, never replaced.
        destination.isSpecial = true;
        destination.kind = Destination::Kind::InPlace;
        if (::access(file, W_OK) != 0)
          fail(destination, llvm::sys::StrError(errno));
        continue;
      }
      // A file without write permission is read-only even to root, who
      // could otherwise replace it by renaming.
      if (::access(file, W_OK) != 0 ||
          (status.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) == 0) {
        fail(destination, "it is read-only");
        continue;
      }
      destination.replacesFile = true;
      destination.mode = status.st_mode & 07777;
      destination.owner = status.st_uid;
      destination.group = status.st_gid;
      if (status.st_nlink > 1)
        destination.kind = Destination::Kind::InPlace;
    }
    if (destination.kind != Destination::Kind::Replace)
      continue;
    // The temporary file is created beside the destination.
    std::string folder = folderOf(destination.resolved);
    if (::stat(folder.c_str(), &status) != 0)
      fail(destination, "its folder '" + folder + "' " +
                            (errno == ENOENT ? llvm::Twine("does not exist")
                                             : llvm::sys::StrError(errno)));
    else if (!S_ISDIR(status.st_mode))
      fail(destination, "'" + folder + "' is not a folder");
    else if (::access(folder.c_str(), W_OK | X_OK) != 0)
      fail(destination, "its folder '" + folder + "' cannot be written: " +
                            llvm::sys::StrError(errno));
  }
  if (!ok)
    return false;

  // Names of one file: the input, or two outputs. Devices and FIFOs may be
  // named twice (`-o /dev/null --header /dev/null`); nothing is lost.
  std::string input = inputPath == "-" ? "" : identify(inputPath);
  std::vector<std::pair<std::string, const Destination *>> seen;
  for (const Destination &destination : destinations) {
    if (destination.kind == Destination::Kind::StandardOutput ||
        destination.isSpecial)
      continue;
    std::string identity = identify(destination.resolved);
    if (identity == input) {
      errs << "tilec: error: the " << destination.role << " '"
           << destination.path << "' is the input file; give another name\n";
      ok = false;
      continue;
    }
    auto same = llvm::find_if(
        seen, [&](const auto &entry) { return entry.first == identity; });
    if (same != seen.end()) {
      errs << "tilec: error: the " << same->second->role << " '"
           << same->second->path << "' and the " << destination.role << " '"
           << destination.path << "' are one file; give them different "
           << "names\n";
      ok = false;
      continue;
    }
    seen.push_back({identity, &destination});
  }
  return ok;
}

/// Writes all of `text` to `fd` from `offset`; false with errno set on
/// failure.
static bool writeAll(int fd, llvm::StringRef text, off_t offset = -1) {
  while (!text.empty()) {
    ssize_t count = offset < 0 ? ::write(fd, text.data(), text.size())
                               : ::pwrite(fd, text.data(), text.size(), offset);
    if (count < 0 && errno == EINTR)
      continue;
    if (count < 0)
      return false;
    text = text.drop_front(count);
    if (offset >= 0)
      offset += count;
  }
  return true;
}

/// Exclusive locks on the folders of a commit, held while it renames:
/// concurrent runs that write one output commit one after the other, so
/// the binary, header and depfile left come from one run. The lock is on
/// the folder because the file itself is replaced by the rename.
class FolderLocks {
public:
  bool lock(llvm::ArrayRef<std::string> folders) {
    std::vector<std::pair<std::pair<dev_t, ino_t>, int>> opened;
    for (const std::string &folder : folders) {
      int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (fd < 0)
        continue;
      struct stat status;
      if (::fstat(fd, &status) != 0) {
        ::close(fd);
        continue;
      }
      std::pair<dev_t, ino_t> key{status.st_dev, status.st_ino};
      if (llvm::any_of(opened,
                       [&](const auto &entry) { return entry.first == key; })) {
        ::close(fd);
        continue;
      }
      opened.push_back({key, fd});
    }
    // One order for every run, so that two runs never wait on each other.
    llvm::sort(opened);
    for (const auto &entry : opened) {
      fds.push_back(entry.second);
      while (::flock(entry.second, LOCK_EX) != 0)
        if (errno != EINTR)
          return false;
    }
    return true;
  }
  ~FolderLocks() {
    for (int fd : fds)
      ::close(fd);
  }

private:
  std::vector<int> fds;
};

bool OutputFiles::commit(llvm::ArrayRef<std::string> contents,
                         llvm::raw_ostream &errs, CommitFault fault) {
  assert(contents.size() == destinations.size() && "one text per output");
  using Kind = Destination::Kind;
  std::vector<std::optional<llvm::sys::fs::TempFile>> temporaries(
      destinations.size());
  auto discardAll = [&] {
    for (std::optional<llvm::sys::fs::TempFile> &temporary : temporaries)
      if (temporary)
        llvm::consumeError(temporary->discard());
  };
  auto fail = [&](const Destination &destination, const llvm::Twine &why) {
    errs << "tilec: error: cannot write the " << destination.role << " '"
         << destination.path << "': " << why << "\n";
    discardAll();
    return false;
  };

  // Standard output first: if it fails, no file has been touched.
  for (auto [destination, text] : llvm::zip(destinations, contents)) {
    if (destination.kind != Kind::StandardOutput)
      continue;
    llvm::outs() << text;
    llvm::outs().flush();
    if (std::error_code error = llvm::outs().error()) {
      llvm::outs().clear_error();
      errs << "tilec: error: cannot write to standard output: "
           << error.message() << "\n";
      return false;
    }
  }

  // Every replacement written in full before any destination changes.
  for (auto [index, destination] : llvm::enumerate(destinations)) {
    if (destination.kind != Kind::Replace)
      continue;
    llvm::Expected<llvm::sys::fs::TempFile> temporary =
        llvm::sys::fs::TempFile::create(destination.resolved + ".tmp%%%%%%");
    if (!temporary)
      return fail(destination, llvm::toString(temporary.takeError()));
    int fd = temporary->FD;
    temporaries[index] = std::move(*temporary);
    if (!writeAll(fd, contents[index]))
      return fail(destination, llvm::sys::StrError(errno));
    if (destination.replacesFile) {
      // Best effort, as a rename allows: only root may give a file away.
      (void)::fchown(fd, destination.owner, destination.group);
      (void)::fchmod(fd, destination.mode);
    }
  }
  if (fault == CommitFault::InterruptBeforeRename)
    ::raise(SIGTERM);

  std::vector<std::string> folders;
  for (const Destination &destination : destinations)
    if (destination.kind != Kind::StandardOutput && !destination.isSpecial)
      folders.push_back(folderOf(destination.resolved));
  FolderLocks locks;
  if (!locks.lock(folders)) {
    errs << "tilec: error: cannot lock the outputs' folders: "
         << llvm::sys::StrError(errno) << "\n";
    discardAll();
    return false;
  }

  // Devices and FIFOs first, since what they took cannot be taken back;
  // then files with other hard links, kept by writing in place; then the
  // renames, which do not fail once the temporary files are written.
  auto writeInPlace = [&](const Destination &destination,
                          llvm::StringRef text) {
    int flags = O_WRONLY | O_CLOEXEC | O_NOCTTY;
    int fd = ::open(destination.resolved.c_str(), flags);
    if (fd < 0)
      return fail(destination, llvm::sys::StrError(errno));
    llvm::scope_exit closeFile([&] { ::close(fd); });
    if (destination.isSpecial)
      return writeAll(fd, text) ||
             fail(destination, llvm::sys::StrError(errno));
    // Reserve the space first, so that a full disk leaves the file as it
    // was rather than cut short.
    int reserved = ::posix_fallocate(fd, 0, text.size());
    if (reserved != 0 && reserved != EOPNOTSUPP && reserved != EINVAL)
      return fail(destination, llvm::sys::StrError(reserved));
    if (!writeAll(fd, text, 0) || ::ftruncate(fd, text.size()) != 0)
      return fail(destination, llvm::sys::StrError(errno));
    return true;
  };
  for (bool special : {true, false})
    for (auto [destination, text] : llvm::zip(destinations, contents))
      if (destination.kind == Kind::InPlace &&
          destination.isSpecial == special && !writeInPlace(destination, text))
        return false;
  for (auto [index, destination] : llvm::enumerate(destinations)) {
    if (!temporaries[index])
      continue;
    if (llvm::Error error = temporaries[index]->keep(destination.resolved)) {
      temporaries[index].reset();
      return fail(destination, llvm::toString(std::move(error)));
    }
    temporaries[index].reset();
  }
  return true;
}
