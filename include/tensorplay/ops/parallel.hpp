// Intra-op parallelism: libtorch's at::parallel_for / at::parallel_reduce on a small built-in
// thread pool (no OpenMP, so a consumer needs nothing but -pthread).
//
//   parallel_for(0, n, internal::GRAIN_SIZE, [&](int64_t b, int64_t e) { for (...) ... });
//
// Partition (PyTorch's native backend rule). A range of n = end - begin elements runs inline,
// as one call f(begin, end) on the calling thread, when n <= grain_size, when one thread is
// configured, or when the caller is already inside a parallel region (no nested parallelism;
// the nested call sees get_thread_num() == 0, as in PyTorch). Otherwise it is cut into
//   chunk = max(grain_size, divup(n, get_num_threads())),  num_tasks = divup(n, chunk)
// contiguous chunks, task t covering [begin + t*chunk, min(end, begin + (t+1)*chunk)). The cut
// depends only on (n, grain_size, num_threads), never on timing, so an elementwise loop writes
// the same bytes for any thread count, and parallel_reduce, which folds the per-chunk partials
// in task order, is bit-for-bit deterministic for a fixed thread count.
//
// Handing out work. The caller puts a ParallelJob (on its own stack) on the pool's FIFO of jobs
// with unclaimed tasks, wakes up to num_tasks - 1 workers, runs task 0 itself, then claims any
// task no worker has picked up yet (so a busy or shrunken pool never stalls it), and blocks
// until every claimed task has finished. Tasks are claimed under the pool mutex, so a worker
// touches a job only while one of its tasks is unclaimed, i.e. while its caller is still
// waiting. The first exception any chunk throws is rethrown in the caller after all chunks
// are done. Several user threads may call parallel_for at once; their jobs share the workers.
//
// The pool: created at the first parallel call, never destroyed (a function-local static
// pointer, workers detached), so a tensor op during static destruction still finds it. It has
// get_num_threads() - 1 active workers. set_num_threads() takes effect at the next parallel
// call: growing spawns the missing workers, shrinking parks the extra ones on a condition
// variable (blocked, no CPU) until a later call needs them again; no thread is ever joined, so
// changing the count never waits for other users' work. A worker out of work spins for
// kSpinMicros (20 us) watching for the next job, then blocks on a condition variable; a caller
// waiting for its last chunks does the same on its job.
//
// Differences from PyTorch, all deliberate: set_num_threads may be called at any time (the
// native backend refuses after the pool started); parallel_for checks grain_size >= 0 in
// release builds too; parallel_reduce folds num_tasks partials rather than get_num_threads()
// slots padded with ident (same result whenever sf(x, ident) == x). An invalid value of
// TENSORPLAY_NUM_THREADS / OMP_NUM_THREADS is ignored (PyTorch warns, then ignores it).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <tensorplay/config.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay {

namespace internal {
// Below this many elements an op does not split its loop (at::internal::GRAIN_SIZE).
inline constexpr int64_t GRAIN_SIZE = TENSORPLAY_GRAIN_SIZE;
}  // namespace internal

inline constexpr int64_t divup(int64_t x, int64_t y) { return (x + y - 1) / y; }

namespace detail {

// Per-thread: the task id of the chunk this thread is running, and whether it is inside one.
inline thread_local int parallel_thread_num = 0;
inline thread_local bool parallel_in_region = false;

// Threads requested with set_num_threads; 0 while unset. Any thread (relaxed atomic).
inline std::atomic<int> num_threads_setting{0};

// A thread count from an environment variable's value: a positive decimal integer, optionally
// followed by ',' and more (OMP_NUM_THREADS's nested-levels list; its first entry counts).
// 0 for anything else (null, empty, "0", "-2", "4x", overflow).
inline int parse_num_threads(const char* value) {
  if (value == nullptr) return 0;
  int64_t n = 0;
  const char* p = value;
  for (; *p >= '0' && *p <= '9'; ++p) {
    n = n * 10 + (*p - '0');
    if (n > std::numeric_limits<int>::max()) return 0;
  }
  if (p == value || (*p != '\0' && *p != ',')) return 0;
  return static_cast<int>(n);
}

// The default thread count, fixed at first use: TENSORPLAY_NUM_THREADS, else OMP_NUM_THREADS,
// else the hardware's concurrency (1 when unknown). Thread-safe (static initialisation).
inline int default_num_threads() {
  static const int n = [] {
    if (int v = parse_num_threads(std::getenv("TENSORPLAY_NUM_THREADS")); v > 0) return v;
    if (int v = parse_num_threads(std::getenv("OMP_NUM_THREADS")); v > 0) return v;
    const unsigned hw = std::thread::hardware_concurrency();
    return hw == 0 ? 1 : static_cast<int>(std::min<unsigned>(hw, std::numeric_limits<int>::max()));
  }();
  return n;
}

// How long a waiting caller, or a worker that ran out of work, spins before it blocks.
inline constexpr int kSpinMicros = 20;

// One processor hint for spin loops: lets the sibling hyper-thread run, saves power.
inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Spins until pred() holds or about `us` microseconds have passed; true when pred() held. Used
// before blocking on a condition variable: a futex sleep and wake-up costs more than a short
// wait for work that is about to arrive. Bounded by time, since a pause instruction takes
// anywhere from 10 to 150 cycles depending on the CPU.
template <class Pred>
bool spin_for(int us, const Pred& pred) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  for (;;) {
    for (int i = 0; i < 32; ++i) {
      if (pred()) return true;
      cpu_relax();
    }
    if (std::chrono::steady_clock::now() >= deadline) return pred();
  }
}

// Sets the thread number for a scope and restores the previous one (at::internal::ThreadIdGuard).
class ThreadIdGuard {
 public:
  explicit ThreadIdGuard(int id) noexcept : old_(parallel_thread_num) { parallel_thread_num = id; }
  ~ThreadIdGuard() { parallel_thread_num = old_; }
  ThreadIdGuard(const ThreadIdGuard&) = delete;
  ThreadIdGuard& operator=(const ThreadIdGuard&) = delete;

 private:
  int old_;
};

// Marks the scope of one chunk: get_thread_num() is the task id, in_parallel_region() is true.
class ParallelRegionGuard {
 public:
  explicit ParallelRegionGuard(int task) noexcept
      : old_num_(parallel_thread_num), old_in_(parallel_in_region) {
    parallel_thread_num = task;
    parallel_in_region = true;
  }
  ~ParallelRegionGuard() {
    parallel_thread_num = old_num_;
    parallel_in_region = old_in_;
  }
  ParallelRegionGuard(const ParallelRegionGuard&) = delete;
  ParallelRegionGuard& operator=(const ParallelRegionGuard&) = delete;

 private:
  int old_num_;
  bool old_in_;
};

// How a range is cut: chunk length and number of chunks (both >= 1 for a non-empty range).
struct Partition {
  int64_t chunk;
  int64_t num_tasks;
};

inline Partition parallel_partition(int64_t n, int64_t grain_size, int num_threads) {
  const int64_t chunk = std::max(grain_size, divup(n, num_threads));
  return {chunk, divup(n, chunk)};
}

// One parallel call's work, living on the caller's stack until every task has finished.
struct ParallelJob {
  using Call = void (*)(const void* fn, int64_t begin, int64_t end, int64_t task);

  ParallelJob(Call call, const void* fn, int64_t begin, int64_t end, Partition p)
      : call_(call),
        fn_(fn),
        begin_(begin),
        end_(end),
        chunk_(p.chunk),
        num_tasks_(p.num_tasks),
        unfinished_(p.num_tasks) {}

  // Runs one chunk and reports it finished; the job may be destroyed by its caller as soon
  // as the last report's lock is released, so nothing here touches it afterwards.
  void run(int64_t task) noexcept {
    const int64_t b = begin_ + task * chunk_;
    const int64_t e = b + std::min(chunk_, end_ - b);
    std::exception_ptr err;
    try {
      ParallelRegionGuard guard(static_cast<int>(task));
      call_(fn_, b, e, task);
    } catch (...) {
      err = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(done_mutex_);
    if (err && !error_) error_ = std::move(err);
    if (unfinished_.fetch_sub(1, std::memory_order_relaxed) == 1) done_cv_.notify_one();
  }

  // Blocks until every task has run. Spins a little first: the last chunk usually ends at
  // about the same time as the caller's own. Always ends by taking the lock, which orders
  // the workers' writes (and error_) before the caller's reads and before the job dies.
  void wait() {
    spin_for(kSpinMicros, [&] { return unfinished_.load(std::memory_order_relaxed) == 0; });
    std::unique_lock<std::mutex> lock(done_mutex_);
    done_cv_.wait(lock, [&] { return unfinished_.load(std::memory_order_relaxed) == 0; });
  }

  std::exception_ptr error() const { return error_; }

  // Immutable once the job is published.
  const Call call_;
  const void* const fn_;
  const int64_t begin_, end_, chunk_, num_tasks_;

  // Guarded by ThreadPool::mutex_: the next unclaimed task, and the links of the pool's FIFO
  // (the job is on it exactly while next_task_ < num_tasks_). Task 0 is the caller's.
  int64_t next_task_ = 1;
  ParallelJob* prev_ = nullptr;
  ParallelJob* next_ = nullptr;

 private:
  // Guarded by done_mutex_ (unfinished_ is atomic only so wait() may spin on it unlocked).
  std::mutex done_mutex_;
  std::condition_variable done_cv_;
  std::atomic<int64_t> unfinished_;
  std::exception_ptr error_;  // the first exception thrown by a chunk
};

// The shared worker pool. All members are guarded by mutex_ (queued_ is also read unlocked,
// as a hint, by spinning workers). Never destroyed.
class ThreadPool {
 public:
  static ThreadPool& instance() {
    static ThreadPool* const pool = new ThreadPool();  // leaked on purpose: see the file comment
    return *pool;
  }

  // Makes `workers` workers active, then offers tasks 1..num_tasks-1 of `job` to them.
  void submit(ParallelJob* job, int workers) {
    std::size_t wake;
    bool wake_all;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (static_cast<std::size_t>(workers) != active_) resize_locked(workers);
      job->prev_ = tail_;
      job->next_ = nullptr;
      (tail_ ? tail_->next_ : head_) = job;
      tail_ = job;
      queued_.store(queued_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      wake = std::min(static_cast<std::size_t>(job->num_tasks_ - 1), active_);
      wake_all = wake == active_;
    }
    if (wake_all) {
      work_cv_.notify_all();
    } else {
      for (std::size_t i = 0; i < wake; ++i) work_cv_.notify_one();
    }
  }

  // Takes the next unclaimed task of `job` for the calling thread; false when none is left.
  bool claim(ParallelJob* job, int64_t& task) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (job->next_task_ >= job->num_tasks_) return false;
    task = take_locked(job);
    return true;
  }

 private:
  ThreadPool() = default;

  int64_t take_locked(ParallelJob* job) {
    const int64_t task = job->next_task_++;
    if (job->next_task_ == job->num_tasks_) {  // fully claimed: off the FIFO
      (job->prev_ ? job->prev_->next_ : head_) = job->next_;
      (job->next_ ? job->next_->prev_ : tail_) = job->prev_;
      queued_.store(queued_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    }
    return task;
  }

  // Workers 0..active_-1 take jobs; the others stay parked. Spawns missing workers; if the
  // system refuses a thread, runs with fewer (callers claim the tasks nobody takes).
  void resize_locked(int workers) {
    const auto want = static_cast<std::size_t>(workers);
    while (spawned_ < want) {
      try {
        std::thread([this, index = spawned_] { worker_loop(index); }).detach();
      } catch (const std::system_error&) {
        break;
      }
      ++spawned_;
    }
    const bool grow = want > active_;
    active_ = std::min(want, spawned_);
    if (grow) {
      parked_cv_.notify_all();
    } else {
      work_cv_.notify_all();  // the now-extra workers move to parked_cv_
    }
  }

  void worker_loop(std::size_t index) {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (index >= active_) {
        parked_cv_.wait(lock, [&] { return index < active_; });
        continue;
      }
      if (head_ == nullptr) {
        lock.unlock();
        spin_for(kSpinMicros, [&] { return queued_.load(std::memory_order_relaxed) != 0; });
        lock.lock();
        work_cv_.wait(lock, [&] { return head_ != nullptr || index >= active_; });
        continue;
      }
      ParallelJob* job = head_;
      const int64_t task = take_locked(job);
      lock.unlock();
      job->run(task);
      lock.lock();
    }
  }

  std::mutex mutex_;
  std::condition_variable work_cv_;    // active workers wait here for a job
  std::condition_variable parked_cv_;  // workers with index >= active_ wait here
  ParallelJob* head_ = nullptr;        // FIFO of jobs with unclaimed tasks
  ParallelJob* tail_ = nullptr;
  std::atomic<std::size_t> queued_{0};  // jobs on the FIFO; written under mutex_
  std::size_t active_ = 0;
  std::size_t spawned_ = 0;
};

// Runs g(chunk_begin, chunk_end, task) over every chunk of partition p, the caller taking
// task 0, and returns once all are done, rethrowing the first exception a chunk threw.
template <class G>
void invoke_parallel(int64_t begin, int64_t end, Partition p, int num_threads, const G& g) {
  auto call = [](const void* fn, int64_t b, int64_t e, int64_t task) {
    (*static_cast<const G*>(fn))(b, e, task);
  };
  ParallelJob job(call, &g, begin, end, p);
  ThreadPool& pool = ThreadPool::instance();
  pool.submit(&job, num_threads - 1);
  job.run(0);
  for (int64_t task; pool.claim(&job, task);) job.run(task);
  job.wait();
  if (std::exception_ptr err = job.error()) std::rethrow_exception(err);
}

}  // namespace detail

// Sets the number of threads parallel_for may use, the caller included (at::set_num_threads).
// Any thread, any time; takes effect at the next parallel call.
template <class = void>
void set_num_threads(int nthreads) {
  TP_CHECK(nthreads > 0, "Expected positive number of threads");
  detail::num_threads_setting.store(nthreads, std::memory_order_relaxed);
}

// The number of threads a parallel region may use (at::get_num_threads).
template <class = void>
int get_num_threads() {
  const int n = detail::num_threads_setting.load(std::memory_order_relaxed);
  return n > 0 ? n : detail::default_num_threads();
}

// The task id of the chunk the calling thread is running (0 outside a parallel region).
template <class = void>
int get_thread_num() { return detail::parallel_thread_num; }

// Whether the calling thread is running a chunk of a parallel_for / parallel_reduce.
template <class = void>
bool in_parallel_region() { return detail::parallel_in_region; }

// Calls f(chunk_begin, chunk_end) over [begin, end) cut as described at the top of this file.
template <class F>
void parallel_for(const int64_t begin, const int64_t end, const int64_t grain_size, const F& f) {
  TP_CHECK(grain_size >= 0, "Expected grain_size >= 0 to be true, but got false.");
  if (begin >= end) return;
  const int64_t n = end - begin;
  const int num_threads = get_num_threads();
  if (n <= grain_size || n == 1 || num_threads == 1 || in_parallel_region()) {
    detail::ThreadIdGuard tid(0);
    f(begin, end);
    return;
  }
  detail::invoke_parallel(begin, end, detail::parallel_partition(n, grain_size, num_threads),
                          num_threads, [&f](int64_t b, int64_t e, int64_t) { f(b, e); });
}

// Reduces [begin, end): each chunk computes f(chunk_begin, chunk_end, ident), and the partials
// are folded left to right in chunk order starting from ident with sf(acc, partial). Inline
// (one f(begin, end, ident)) under the same conditions as parallel_for.
template <class scalar_t, class F, class SF>
scalar_t parallel_reduce(const int64_t begin, const int64_t end, const int64_t grain_size,
                         const scalar_t ident, const F& f, const SF& sf) {
  TP_CHECK(grain_size >= 0, "Expected grain_size >= 0 to be true, but got false.");
  if (begin >= end) return ident;
  const int64_t n = end - begin;
  const int num_threads = get_num_threads();
  const detail::Partition p = detail::parallel_partition(n, grain_size, num_threads);
  if (n <= grain_size || p.num_tasks == 1 || num_threads == 1 || in_parallel_region()) {
    detail::ThreadIdGuard tid(0);
    return f(begin, end, ident);
  }
  // One slot per chunk, each written by its chunk alone (a struct, so that bool results do not
  // become std::vector<bool>'s shared words).
  struct Slot {
    scalar_t value;
  };
  std::vector<Slot> partials(static_cast<std::size_t>(p.num_tasks), Slot{ident});
  detail::invoke_parallel(begin, end, p, num_threads, [&](int64_t b, int64_t e, int64_t task) {
    partials[static_cast<std::size_t>(task)].value = f(b, e, ident);
  });
  scalar_t result = ident;
  for (const Slot& s : partials) result = sf(result, s.value);
  return result;
}

}  // namespace tensorplay
