// Vulkan compute pipelines: one cached pipeline per shader, and the dispatch helper that binds
// storage buffers and push constants and records vkCmdDispatch on the stream.
//
// A shader is described by a ShaderInfo (SPIR-V words from the generated
// shaders/<name>.spv.hpp, number of storage buffers at set 0, bindings 0..n-1, push-constant
// bytes, workgroup size in x, and optionally the value of specialization constant 0). Its descriptor set layout, pipeline layout and pipeline are
// created once, on first use, through the context's VkPipelineCache, and never destroyed
// (like the context). The cache is keyed by the ShaderInfo's address: declare each one as an
// `inline constexpr` variable so every translation unit shares it.
//
// dispatch() (typed push constants; dispatch_raw() takes bytes) allocates the descriptor set
// from the current submission's pool (freed when the submission completes) and records bind +
// push + dispatch after the stream's barrier, so a kernel sees every earlier copy or kernel and
// every later one sees it. dispatch_1d() covers n invocations, folding group counts beyond
// maxComputeWorkGroupCount[0] into y; shaders compute their linear index as
// gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x
// and return when it is >= n.
//
// Thread safety: the pipeline table is guarded by a mutex; recording is the stream's.
#pragma once

#include <tensorplay/backends/vulkan/allocator.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <mutex>
#include <type_traits>
#include <unordered_map>

namespace tensorplay::vulkan {

struct ShaderInfo {
  const char* name;
  const std::uint32_t* spirv;
  std::size_t spirv_bytes;
  std::uint32_t num_buffers;          // storage buffers at set 0, bindings 0..num_buffers-1
  std::uint32_t push_constant_bytes;  // 0 for none
  std::uint32_t local_size_x;         // the shader's local_size_x (y and z are 1)
  // The value of the shader's specialization constant 0, when it has one: one pipeline per
  // value, compiled with it (a uniform switch a driver might not see through is then gone).
  bool specialized = false;
  std::uint32_t specialization = 0;
};

// The Vulkan objects of one shader. Immutable once created.
struct Pipeline {
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

namespace detail {

// Thread safety: guarded by `mutex`; entries are never removed or destroyed.
struct PipelineTable {
  std::mutex mutex;
  std::unordered_map<const ShaderInfo*, const Pipeline*> pipelines;
};
inline PipelineTable& pipeline_table() noexcept {
  static PipelineTable* table = new PipelineTable();
  return *table;
}

inline const Pipeline* create_pipeline(const Context& ctx, const ShaderInfo& shader) {
  TP_CHECK(shader.num_buffers <= Stream::kMaxBindings, "Vulkan shader '", shader.name, "' binds ",
           shader.num_buffers, " buffers; at most ", Stream::kMaxBindings, " are supported");
  TP_CHECK(shader.push_constant_bytes <= ctx.limits().maxPushConstantsSize, "Vulkan shader '",
           shader.name, "' needs ", shader.push_constant_bytes,
           " bytes of push constants; the device allows ", ctx.limits().maxPushConstantsSize);
  const auto& fn = ctx.fn();
  const VkDevice dev = ctx.device();
  auto* p = new Pipeline();
  VkShaderModule module = VK_NULL_HANDLE;
  try {
    VkDescriptorSetLayoutBinding bindings[Stream::kMaxBindings]{};
    for (std::uint32_t i = 0; i < shader.num_buffers; ++i) {
      bindings[i].binding = i;
      bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      bindings[i].descriptorCount = 1;
      bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo set_info{};
    set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
    set_info.bindingCount = shader.num_buffers;
    set_info.pBindings = bindings;
    TP_VK_CHECK(fn.vkCreateDescriptorSetLayout(dev, &set_info, nullptr, &p->set_layout));

    const VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, shader.push_constant_bytes};
    VkPipelineLayoutCreateInfo layout_info{};
    layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
    layout_info.setLayoutCount = 1;
    layout_info.pSetLayouts = &p->set_layout;
    layout_info.pushConstantRangeCount = shader.push_constant_bytes > 0 ? 1 : 0;
    layout_info.pPushConstantRanges = &push;
    TP_VK_CHECK(fn.vkCreatePipelineLayout(dev, &layout_info, nullptr, &p->layout));

    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = shader.spirv_bytes;
    module_info.pCode = shader.spirv;
    TP_VK_CHECK(fn.vkCreateShaderModule(dev, &module_info, nullptr, &module));

    VkComputePipelineCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    const VkSpecializationMapEntry entry{0, 0, sizeof(std::uint32_t)};
    const VkSpecializationInfo specialization{1, &entry, sizeof(std::uint32_t),
                                              &shader.specialization};
    if (shader.specialized) info.stage.pSpecializationInfo = &specialization;
    info.layout = p->layout;
    TP_VK_CHECK(
        fn.vkCreateComputePipelines(dev, ctx.pipeline_cache(), 1, &info, nullptr, &p->pipeline));
    fn.vkDestroyShaderModule(dev, module, nullptr);  // the pipeline keeps what it needs
  } catch (...) {
    if (module != VK_NULL_HANDLE) fn.vkDestroyShaderModule(dev, module, nullptr);
    if (p->layout != VK_NULL_HANDLE) fn.vkDestroyPipelineLayout(dev, p->layout, nullptr);
    if (p->set_layout != VK_NULL_HANDLE) {
      fn.vkDestroyDescriptorSetLayout(dev, p->set_layout, nullptr);
    }
    delete p;
    throw;
  }
  return p;
}

}  // namespace detail

// The shader's pipeline, created on first use.
inline const Pipeline& get_pipeline(const ShaderInfo& shader) {
  const Context& ctx = context();
  detail::PipelineTable& table = detail::pipeline_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  auto [it, inserted] = table.pipelines.try_emplace(&shader, nullptr);
  if (inserted) {
    try {
      it->second = detail::create_pipeline(ctx, shader);
    } catch (...) {
      table.pipelines.erase(it);
      throw;
    }
  }
  return *it->second;
}

// Records one dispatch of `shader` with `buffers` bound at bindings 0..n-1 and `push_bytes`
// bytes of push constants, over groups_x * groups_y * groups_z workgroups.
inline void dispatch_raw(const ShaderInfo& shader, std::initializer_list<BufferRange> buffers,
                         const void* push, std::size_t push_bytes, std::uint32_t groups_x,
                         std::uint32_t groups_y = 1, std::uint32_t groups_z = 1) {
  TP_CHECK(buffers.size() == shader.num_buffers, "Vulkan shader '", shader.name, "' binds ",
           shader.num_buffers, " buffers, got ", buffers.size());
  TP_CHECK(push_bytes == shader.push_constant_bytes, "Vulkan shader '", shader.name, "' takes ",
           shader.push_constant_bytes, " bytes of push constants, got ", push_bytes);
  const Context& ctx = context();
  const auto& limits = ctx.limits();
  TP_CHECK(groups_x <= limits.maxComputeWorkGroupCount[0] &&
               groups_y <= limits.maxComputeWorkGroupCount[1] &&
               groups_z <= limits.maxComputeWorkGroupCount[2],
           "Vulkan shader '", shader.name, "': too many workgroups");
  VkDescriptorBufferInfo infos[Stream::kMaxBindings]{};
  std::uint32_t n = 0;
  for (const BufferRange& b : buffers) {
    TP_CHECK(b.buffer != VK_NULL_HANDLE && b.size > 0, "Vulkan shader '", shader.name,
             "': binding ", n, " is an empty buffer range");
    TP_CHECK(b.offset % limits.minStorageBufferOffsetAlignment == 0, "Vulkan shader '", shader.name,
             "': binding ", n, " starts at offset ", b.offset,
             ", not a multiple of minStorageBufferOffsetAlignment (",
             limits.minStorageBufferOffsetAlignment, "); pass an element offset instead");
    TP_CHECK(b.size <= limits.maxStorageBufferRange, "Vulkan shader '", shader.name, "': binding ",
             n, " spans ", b.size, " bytes, more than maxStorageBufferRange (",
             limits.maxStorageBufferRange, ")");
    infos[n++] = VkDescriptorBufferInfo{b.buffer, b.offset, b.size};
  }
  const Pipeline& p = get_pipeline(shader);
  if (groups_x == 0 || groups_y == 0 || groups_z == 0) return;
  Stream::get().record([&](const CommandBuffer& cb) {
    const auto& fn = ctx.fn();
    const VkDescriptorSet set = cb.allocate_descriptor_set(p.set_layout);
    VkWriteDescriptorSet writes[Stream::kMaxBindings]{};
    for (std::uint32_t i = 0; i < n; ++i) {
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = set;
      writes[i].dstBinding = i;
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    fn.vkUpdateDescriptorSets(ctx.device(), n, writes, 0, nullptr);
    fn.vkCmdBindPipeline(cb.handle(), VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
    fn.vkCmdBindDescriptorSets(cb.handle(), VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &set, 0,
                               nullptr);
    if (push_bytes > 0) {
      fn.vkCmdPushConstants(cb.handle(), p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                            static_cast<std::uint32_t>(push_bytes), push);
    }
    fn.vkCmdDispatch(cb.handle(), groups_x, groups_y, groups_z);
  });
}

// Checks that elements [first, first + count) of a kernel's operand (`elem_bytes` each) lie in
// `range` and that their 32-bit word indices fit the shaders' uint indices (`fn`: the kernel's
// name, `what`: the operand's, for the messages).
inline void check_elements(const char* fn, const char* what, const BufferRange& range,
                           std::uint64_t first, std::uint64_t count, std::uint64_t elem_bytes) {
  const std::uint64_t words = elem_bytes / 4;
  // Neither sum wraps when first fits 32 bits, which is tested first.
  TP_CHECK_NOT_IMPLEMENTED(first <= UINT32_MAX && (first + count) * words <= UINT32_MAX, fn, ": ",
                           count, " ", what, " elements from ", first,
                           " do not fit 32-bit indices");
  TP_CHECK_INDEX(first + count <= range.size / elem_bytes, fn, ": ", count, " ", what,
                 " elements from ", first, " do not fit a range of ", range.size / elem_bytes,
                 " elements");
}

// Typed push constants.
template <class Push>
requires std::is_trivially_copyable_v<Push>
inline void dispatch(const ShaderInfo& shader, std::initializer_list<BufferRange> buffers,
                     const Push& push, std::uint32_t groups_x, std::uint32_t groups_y = 1,
                     std::uint32_t groups_z = 1) {
  dispatch_raw(shader, buffers, &push, sizeof(Push), groups_x, groups_y, groups_z);
}

// Enough workgroups for n invocations of a 1-D shader (see the header comment for the fold
// into y).
template <class Push>
requires std::is_trivially_copyable_v<Push>
inline void dispatch_1d(const ShaderInfo& shader, std::initializer_list<BufferRange> buffers,
                        const Push& push, std::uint64_t n) {
  if (n == 0) return;
  const std::uint64_t groups = (n + shader.local_size_x - 1) / shader.local_size_x;
  const std::uint64_t max_x = context().limits().maxComputeWorkGroupCount[0];
  const std::uint64_t x = groups < max_x ? groups : max_x;
  const std::uint64_t y = (groups + x - 1) / x;
  TP_CHECK(y <= context().limits().maxComputeWorkGroupCount[1], "Vulkan shader '", shader.name,
           "': ", n, " invocations are too many for one dispatch");
  dispatch(shader, buffers, push, static_cast<std::uint32_t>(x), static_cast<std::uint32_t>(y));
}

}  // namespace tensorplay::vulkan
