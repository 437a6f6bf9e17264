// Vulkan stream: the one ordered sequence of device work (libtorch's "stream"), with batched
// submission and synchronize().
//
// Every device command (copy, fill, dispatch) is recorded through Stream::record into the
// current command buffer, preceded by a full compute/transfer memory barrier. So commands run
// in the order they were recorded, each seeing the results of all earlier ones (including those
// of earlier submissions: a barrier's first scope covers everything earlier on the queue). That
// is what makes it safe for the allocator to hand a freed range to a new tensor at once, even
// while commands that used it are still pending: the new owner's commands come later in the
// same order. Each command buffer ends with a barrier that makes device writes visible to host
// reads after its fence signals.
//
// A command buffer is submitted (with its own fence, no wait) when it holds
// kMaxCommandsPerSubmission commands, or when flush()/synchronize() is called; synchronize()
// also waits for every submitted fence. Host-to-device copies return once their data is in a
// staging buffer; the staging buffer is kept alive (keep_alive) until its submission completes.
// Device-to-host copies synchronize.
//
// Each submission owns a descriptor pool big enough for one set (kMaxBindings storage buffers)
// per command, reset when the submission is recycled, so the descriptor sets of recorded
// dispatches live exactly as long as the commands that use them.
//
// Thread safety: one mutex guards everything (command buffers, pools, the queue). Deleters of
// kept-alive allocations run after it is released, so an allocator may call synchronize().
#pragma once

#include <tensorplay/backends/vulkan/context.hpp>
#include <tensorplay/core/data_ptr.hpp>

#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <vector>

namespace tensorplay::vulkan {

// What a command sees while it is being recorded. Valid only inside Stream::record's callback.
class CommandBuffer {
 public:
  VkCommandBuffer handle() const noexcept { return cmd_; }
  // A descriptor set from the submission's pool, freed when the submission completes.
  VkDescriptorSet allocate_descriptor_set(VkDescriptorSetLayout layout) const {
    const Context& ctx = context();
    VkDescriptorSetAllocateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    info.descriptorPool = pool_;
    info.descriptorSetCount = 1;
    info.pSetLayouts = &layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    TP_VK_CHECK(ctx.fn().vkAllocateDescriptorSets(ctx.device(), &info, &set));
    return set;
  }

 private:
  friend class Stream;
  CommandBuffer(VkCommandBuffer cmd, VkDescriptorPool pool) noexcept : cmd_(cmd), pool_(pool) {}
  VkCommandBuffer cmd_;
  VkDescriptorPool pool_;
};

class Stream {
 public:
  // Commands per command buffer before it is submitted on its own (batching without waiting).
  static constexpr std::uint32_t kMaxCommandsPerSubmission = 64;
  // Storage buffers one command may bind (the descriptor pools are sized for it).
  static constexpr std::uint32_t kMaxBindings = 8;

  // The process-wide stream on the context's queue; never destroyed. Throws if Vulkan is
  // unavailable.
  static Stream& get() {
    static Stream* stream = new Stream(context());
    return *stream;
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Records one command: f(const CommandBuffer&) runs under the stream's lock, after a barrier
  // that orders it behind every earlier command.
  template <class F>
  void record(F&& f) {
    std::vector<DataPtr> finished;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      Submission& s = current_locked(finished);
      barrier_locked(s.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                     VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                     VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                         VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT);
      std::forward<F>(f)(CommandBuffer(s.cmd, s.descriptor_pool));
      ++s.num_commands;
      ++num_recorded_;
      if (s.num_commands >= kMaxCommandsPerSubmission) submit_locked();
    }
    // `finished` (kept-alive blocks of completed submissions) is released here, unlocked.
  }

  // Keeps an allocation alive until every command recorded so far has completed (e.g. the
  // staging buffer a recorded copy reads from).
  void keep_alive(DataPtr p) {
    std::vector<DataPtr> finished;  // released after the lock
    std::lock_guard<std::mutex> lock(mutex_);
    current_locked(finished).keep_alive.push_back(std::move(p));
  }

  // Submits the recorded commands without waiting.
  void flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    submit_locked();
  }

  // Submits the recorded commands and waits until all submitted work has completed.
  void synchronize() {
    std::vector<DataPtr> finished;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      submit_locked();
      while (!in_flight_.empty()) {
        Submission& s = in_flight_.front();
        TP_VK_CHECK(ctx_.fn().vkWaitForFences(ctx_.device(), 1, &s.fence, VK_TRUE, UINT64_MAX));
        recycle_front_locked(finished);
      }
    }
  }

  // Counters for tests and profiling. Thread safety: read under the lock.
  std::uint64_t num_submissions() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return num_submissions_;
  }
  std::uint64_t num_recorded_commands() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return num_recorded_;
  }

 private:
  struct Submission {
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
    std::uint32_t num_commands = 0;
    std::vector<DataPtr> keep_alive;
  };

  explicit Stream(const Context& ctx) : ctx_(ctx) {
    VkCommandPoolCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    info.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    info.queueFamilyIndex = ctx.queue_family_index();
    TP_VK_CHECK(ctx.fn().vkCreateCommandPool(ctx.device(), &info, nullptr, &command_pool_));
  }
  ~Stream() = delete;  // never destroyed, like the context

  static void barrier_on(const Context& ctx, VkCommandBuffer cmd, VkPipelineStageFlags src_stage,
                         VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                         VkAccessFlags dst_access) {
    VkMemoryBarrier b{};
    b.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    b.srcAccessMask = src_access;
    b.dstAccessMask = dst_access;
    ctx.fn().vkCmdPipelineBarrier(cmd, src_stage, dst_stage, 0, 1, &b, 0, nullptr, 0, nullptr);
  }
  void barrier_locked(VkCommandBuffer cmd, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
                      VkPipelineStageFlags dst_stage, VkAccessFlags dst_access) const {
    barrier_on(ctx_, cmd, src_stage, src_access, dst_stage, dst_access);
  }

  // The submission being recorded, begun if needed (reusing a completed one when possible).
  Submission& current_locked(std::vector<DataPtr>& finished) {
    if (recording_) return current_;
    // Recycle what already completed, so pools and buffers are reused rather than created.
    while (!in_flight_.empty() &&
           ctx_.fn().vkGetFenceStatus(ctx_.device(), in_flight_.front().fence) == VK_SUCCESS) {
      recycle_front_locked(finished);
    }
    if (!free_.empty()) {
      current_ = std::move(free_.back());
      free_.pop_back();
    } else {
      current_ = make_submission();
    }
    VkCommandBufferBeginInfo begin{};
    begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    TP_VK_CHECK(ctx_.fn().vkBeginCommandBuffer(current_.cmd, &begin));
    recording_ = true;
    return current_;
  }

  Submission make_submission() {
    Submission s;
    VkCommandBufferAllocateInfo cmd_info{};
    cmd_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    cmd_info.commandPool = command_pool_;
    cmd_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cmd_info.commandBufferCount = 1;
    TP_VK_CHECK(ctx_.fn().vkAllocateCommandBuffers(ctx_.device(), &cmd_info, &s.cmd));
    VkFenceCreateInfo fence_info{};
    fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
    TP_VK_CHECK(ctx_.fn().vkCreateFence(ctx_.device(), &fence_info, nullptr, &s.fence));
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              kMaxCommandsPerSubmission * kMaxBindings};
    VkDescriptorPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool_info.maxSets = kMaxCommandsPerSubmission;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &size;
    TP_VK_CHECK(
        ctx_.fn().vkCreateDescriptorPool(ctx_.device(), &pool_info, nullptr, &s.descriptor_pool));
    return s;
  }

  void submit_locked() {
    if (!recording_) return;
    Submission& s = current_;
    if (s.num_commands == 0 && s.keep_alive.empty()) return;  // stays open for the next one
    // Device writes become visible to host reads once the fence has signalled.
    barrier_locked(s.cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                   VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                   VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    TP_VK_CHECK(ctx_.fn().vkEndCommandBuffer(s.cmd));
    VkSubmitInfo info{};
    info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    info.commandBufferCount = 1;
    info.pCommandBuffers = &s.cmd;
    recording_ = false;
    const VkResult r = ctx_.fn().vkQueueSubmit(ctx_.queue(), 1, &info, s.fence);
    if (r != VK_SUCCESS) {
      // Nothing was queued: its fence will never signal, so it must not be waited for. (The
      // kept-alive blocks are freed here, under the lock: allocators never take this lock
      // while holding their own, so the order stream -> allocator cannot deadlock.)
      Submission failed = std::move(s);
      current_ = Submission{};
      failed.keep_alive.clear();
      failed.num_commands = 0;
      ctx_.fn().vkResetCommandBuffer(failed.cmd, 0);
      ctx_.fn().vkResetDescriptorPool(ctx_.device(), failed.descriptor_pool, 0);
      free_.push_back(std::move(failed));
      TP_VK_CHECK(r);
    }
    in_flight_.push_back(std::move(s));
    current_ = Submission{};
    ++num_submissions_;
  }

  // Returns the oldest in-flight submission (its fence has signalled) to the free list; its
  // kept-alive blocks go to `finished`, to be released by the caller after unlocking.
  void recycle_front_locked(std::vector<DataPtr>& finished) {
    Submission s = std::move(in_flight_.front());
    in_flight_.pop_front();
    for (DataPtr& p : s.keep_alive) finished.push_back(std::move(p));
    s.keep_alive.clear();
    s.num_commands = 0;
    TP_VK_CHECK(ctx_.fn().vkResetFences(ctx_.device(), 1, &s.fence));
    TP_VK_CHECK(ctx_.fn().vkResetCommandBuffer(s.cmd, 0));
    TP_VK_CHECK(ctx_.fn().vkResetDescriptorPool(ctx_.device(), s.descriptor_pool, 0));
    free_.push_back(std::move(s));
  }

  const Context& ctx_;
  mutable std::mutex mutex_;  // guards everything below
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  Submission current_;  // being recorded when recording_
  bool recording_ = false;
  std::deque<Submission> in_flight_;  // submitted, in submission order
  std::vector<Submission> free_;      // completed, ready for reuse
  std::uint64_t num_submissions_ = 0;
  std::uint64_t num_recorded_ = 0;
};

// Waits for all work recorded so far on the Vulkan device (torch.vulkan.synchronize()).
// Throws the unavailability error when Vulkan cannot be used.
inline void synchronize() { Stream::get().synchronize(); }

}  // namespace tensorplay::vulkan
