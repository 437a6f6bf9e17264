// MappedFile: a POSIX memory mapping of a file, reference counted, and the storages made from it.
//
// A mapping is shared by every storage cut from it: each storage's DataPtr holds one strong
// reference (its context is the MappedFileImpl, its deleter drops the reference), so the file
// stays mapped while any tensor, view or storage on it lives and is unmapped when the last one
// dies, however long ago the MappedFile handle (or a loader holding one) went away.
//
// Modes (the three mmap flavours):
//  - ReadOnly:       MAP_SHARED  + PROT_READ. Storages cut from it are read_only(): every
//                    in-place or out= write into a tensor on them raises instead of faulting.
//  - CopyOnWrite:    MAP_PRIVATE + PROT_READ|PROT_WRITE. Writes go to private pages; the file
//                    never changes (torch.from_file(shared=False)).
//  - SharedWritable: MAP_SHARED  + PROT_READ|PROT_WRITE. Writes go to the file
//                    (torch.from_file(shared=True)).
// Raw pointers (data_ptr<T>(), mutable_data()) bypass the checks: writing through one into a
// ReadOnly mapping is a SIGSEGV, as writing through a const_cast pointer would be UB.
//
// A zero-length file (or range) maps to nothing: mmap(0) is never called, data() is null.
// Errors carry PyTorch's MapAllocator wording and the errno text.
#pragma once

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/core/storage.hpp>

namespace tensorplay {

enum class MapMode { ReadOnly, CopyOnWrite, SharedWritable };

namespace detail {

// "No such file or directory (2)": the errno text and number, as PyTorch's messages end.
inline std::string errno_text(int err) {
  return std::error_code(err, std::generic_category()).message() + " (" + std::to_string(err) + ")";
}

// Mappings alive in this process (for tests and leak checks). Thread safety: atomic.
inline std::atomic<int64_t>& live_mapping_count() {
  static std::atomic<int64_t> count{0};
  return count;
}

// Closes a file descriptor on every path out of MappedFile::open.
struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

// The mapping itself. Thread safety: immutable after construction; the count is atomic.
class MappedFileImpl final : public intrusive_ptr_target {
 public:
  MappedFileImpl(std::string path, void* base, std::size_t size, MapMode mode) noexcept
      : path_(std::move(path)), base_(base), size_(size), mode_(mode) {
    if (base_) live_mapping_count().fetch_add(1, std::memory_order_relaxed);
  }
  MappedFileImpl(const MappedFileImpl&) = delete;
  MappedFileImpl& operator=(const MappedFileImpl&) = delete;
  ~MappedFileImpl() override {
    if (base_) {
      ::munmap(base_, size_);
      live_mapping_count().fetch_sub(1, std::memory_order_relaxed);
    }
  }

  const std::string& path() const noexcept { return path_; }
  void* base() const noexcept { return base_; }
  std::size_t size() const noexcept { return size_; }
  MapMode mode() const noexcept { return mode_; }

  // The DataPtr deleter: drops the reference the storage held.
  static void release_reference(void* ctx) noexcept {
    (void)intrusive_ptr<MappedFileImpl>::reclaim(static_cast<MappedFileImpl*>(ctx));
  }

 private:
  std::string path_;
  void* base_;
  std::size_t size_;
  MapMode mode_;
};

}  // namespace detail

class MappedFile {
 public:
  MappedFile() = default;

  // Maps `path`. `size`: bytes to map, the whole file when absent; for SharedWritable a file
  // shorter than `size` is grown to it (and created if missing), as torch.from_file(shared=True)
  // does; for the other modes a shorter file is refused with PyTorch's message.
  static MappedFile open(const std::string& path, MapMode mode = MapMode::ReadOnly,
                         std::optional<std::size_t> size = std::nullopt) {
    const bool rw = mode == MapMode::SharedWritable;
    const int fd =
        ::open(path.c_str(), rw ? (O_RDWR | O_CREAT | O_CLOEXEC) : (O_RDONLY | O_CLOEXEC), 0600);
    if (fd == -1) {
      const int err = errno;
      TP_ERROR("unable to open file <", path, "> in ", rw ? "read-write" : "read-only",
               " mode: ", detail::errno_text(err));
    }
    detail::FdCloser closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) == -1) {
      const int err = errno;
      TP_ERROR("unable to stat the file <", path, ">: ", detail::errno_text(err));
    }
    if (!S_ISREG(st.st_mode)) {
      // mmap of a directory fails with ENODEV in PyTorch; say so before trying.
      TP_ERROR("unable to mmap ", static_cast<long long>(size.value_or(0)), " bytes from file <",
               path, ">: ", detail::errno_text(ENODEV));
    }
    const auto file_size = static_cast<std::size_t>(st.st_size);
    const std::size_t nbytes = size.value_or(file_size);
    if (nbytes > file_size) {
      TP_CHECK(rw, "file <", path, "> size is smaller than the required mapping size <",
               static_cast<long long>(nbytes), ">");
      TP_CHECK(nbytes <= static_cast<std::size_t>(std::numeric_limits<off_t>::max()) &&
                   ::ftruncate(fd, static_cast<off_t>(nbytes)) == 0,
               "unable to resize file <", path, "> to the right size: ", detail::errno_text(errno));
    }
    void* base = nullptr;
    if (nbytes > 0) {
      const int prot = mode == MapMode::ReadOnly ? PROT_READ : (PROT_READ | PROT_WRITE);
      const int flags = mode == MapMode::CopyOnWrite ? MAP_PRIVATE : MAP_SHARED;
      base = ::mmap(nullptr, nbytes, prot, flags, fd, 0);
      if (base == MAP_FAILED) {
        const int err = errno;
        TP_ERROR("unable to mmap ", static_cast<long long>(nbytes), " bytes from file <", path,
                 ">: ", detail::errno_text(err));
      }
    }
    return MappedFile(make_intrusive<detail::MappedFileImpl>(path, base, nbytes, mode));
  }

  bool defined() const noexcept { return impl_.defined(); }
  const std::string& path() const { return checked()->path(); }
  // The first mapped byte (null for an empty mapping).
  const std::byte* data() const { return static_cast<const std::byte*>(checked()->base()); }
  std::byte* mutable_data() const { return static_cast<std::byte*>(checked()->base()); }
  std::size_t size() const { return checked()->size(); }
  MapMode mode() const { return checked()->mode(); }
  bool read_only() const { return mode() == MapMode::ReadOnly; }
  // Strong references: this handle plus one per storage cut from the mapping.
  std::size_t use_count() const noexcept { return impl_.use_count(); }

  // A storage on bytes [offset, offset + nbytes) of the mapping, holding a reference to it. Not
  // resizable (growing it raises "Trying to resize storage that is not resizable", as a
  // from_blob storage does); read-only when the mapping is.
  Storage storage(std::size_t offset, std::size_t nbytes) const {
    const detail::MappedFileImpl* m = checked();
    TP_CHECK_INDEX(offset <= m->size() && nbytes <= m->size() - offset,
                   "MappedFile::storage: bytes [", static_cast<long long>(offset), ", ",
                   static_cast<long long>(offset), " + ", static_cast<long long>(nbytes),
                   ") are outside the mapping of ", static_cast<long long>(m->size()),
                   " bytes of <", m->path(), ">");
    void* data = m->base() ? static_cast<char*>(m->base()) + offset : nullptr;
    intrusive_ptr<detail::MappedFileImpl> ref = impl_;
    void* ctx = ref.release();
    Storage s(use_byte_size, nbytes,
              DataPtr(data, ctx, &detail::MappedFileImpl::release_reference, Device(kCPU)),
              /*allocator=*/nullptr, /*resizable=*/false);
    s.set_read_only(m->mode() == MapMode::ReadOnly);
    return s;
  }
  // The whole mapping.
  Storage storage() const { return storage(0, size()); }

  // The mappings alive in this process.
  static int64_t live_mappings() noexcept {
    return detail::live_mapping_count().load(std::memory_order_relaxed);
  }

 private:
  explicit MappedFile(intrusive_ptr<detail::MappedFileImpl> impl) : impl_(std::move(impl)) {}
  const detail::MappedFileImpl* checked() const {
    TP_CHECK(impl_.defined(), "MappedFile: the handle is empty");
    return impl_.get();
  }

  intrusive_ptr<detail::MappedFileImpl> impl_;
};

}  // namespace tensorplay
