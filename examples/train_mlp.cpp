// TensorPlay autograd example: train a small MLP on two interleaved spirals.
//
// Written the way a libtorch user writes it (include <torch/torch.h> and alias tp to torch, and
// it builds against libtorch unchanged): parameters are leaves created with requires_grad, the loss
// is cross entropy from log_softmax, backward() fills every parameter's .grad(), and the SGD step
// is written by hand under a NoGradGuard. Exits non-zero when the final training accuracy is under
// 95% (CTest runs it as `example_train_mlp`). `train_mlp --device vulkan` trains on the Vulkan
// backend (a build with tensorplay::vulkan; CTest: `example_train_mlp_vulkan`), from the same
// initial values, and must reach the same accuracy; it exits 77 where there is no Vulkan device.
// `train_mlp --device cuda` does the same on the CUDA backend (a build with tensorplay::cuda;
// CTest: `cuda.train_mlp`), exiting 77 where there is no CUDA device.
// With TENSORPLAY_MEMORY_SNAPSHOT=file.json (CPU), the last 20 steps are recorded by the memory
// history and dumped at the end in torch's _snapshot() format, with the allocator's summary and
// stats printed: `python -m tensorplay.memory_viz file.json -o out.png` plots it.
#include <tensorplay/memory/snapshot.hpp>
#include <tensorplay/memory/summary.hpp>
#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace tp = tensorplay;

int main(int argc, char** argv) {
  const std::string device_name = argc == 3 && std::string(argv[1]) == "--device" ? argv[2] : "cpu";
  if (argc != 1 && argc != 3) {
    std::cerr << "usage: " << argv[0] << " [--device cpu|vulkan|cuda]\n";
    return 2;
  }
  const tp::Device device(device_name);
  if (device.is_vulkan() && !tp::is_vulkan_available()) {
    std::cout << "Vulkan is not available: skipped\n";
    return 77;
  }
  if (device.is_cuda() && !tp::cuda::is_available()) {
    std::cout << "CUDA is not available: skipped\n";
    return 77;
  }
  tp::manual_seed(0);

  // Data: two spirals of 200 points, 1.5 turns each, the second rotated by pi, with a little
  // noise. Class c's points are labelled c.
  const int64_t n = 200;
  const double pi = 3.14159265358979323846;
  const tp::Tensor radius = tp::linspace(0.05, 1.0, n);
  std::vector<tp::Tensor> arms;
  for (int c = 0; c < 2; ++c) {
    const tp::Tensor theta = radius * (3 * pi) + c * pi;
    const tp::Tensor arm = tp::stack({radius * tp::cos(theta), radius * tp::sin(theta)}, 1);
    arms.push_back(arm + 0.02 * tp::randn({n, 2}));
  }
  const tp::Tensor x = tp::cat(arms).to(device);                                        // [400, 2]
  const tp::Tensor y = tp::cat({tp::zeros({n}, tp::kLong), tp::ones({n}, tp::kLong)});  // [400]
  const tp::Tensor onehot = tp::stack({y.eq(0), y.eq(1)}, 1).to(device, tp::kFloat);    // [400, 2]

  // Model: 2 -> 64 (ReLU) -> 2. Plain randn is He scaling for a fan-in of 2; w2 is scaled by
  // 1/sqrt(fan-in) so the first logits are O(1) and the first steps stay stable.
  const int64_t hidden = 64;
  // (Drawn on the CPU and moved, so that every device starts from the same values.)
  tp::Tensor w1 = tp::randn({2, hidden}).to(device).requires_grad_();
  tp::Tensor b1 = tp::zeros({hidden}, tp::TensorOptions(device).requires_grad(true));
  tp::Tensor w2 = (tp::randn({hidden, 2}) / std::sqrt(double(hidden))).to(device).requires_grad_();
  tp::Tensor b2 = tp::zeros({2}, tp::TensorOptions(device).requires_grad(true));
  const std::vector<tp::Tensor> params = {w1, b1, w2, b2};
  auto forward = [&](const tp::Tensor& input) { return tp::relu(input.mm(w1) + b1).mm(w2) + b2; };

  // Full-batch SGD.
  const double lr = 1.0;
  const char* snapshot_path = device.is_cpu() ? std::getenv("TENSORPLAY_MEMORY_SNAPSHOT") : nullptr;
  for (int step = 1; step <= 2000; ++step) {
    if (snapshot_path != nullptr && step == 1981) tp::memory::_record_memory_history(true, 100000);
    const tp::Tensor logits = forward(x);
    const tp::Tensor loss = -(tp::log_softmax(logits, 1) * onehot).sum(1).mean();
    loss.backward();
    {
      // In-place writes to leaves that require grad are refused while grad mode is on.
      tp::NoGradGuard no_grad;
      for (const tp::Tensor& p : params) {
        p.sub_(p.grad() * lr);
        p.mutable_grad().zero_();  // gradients accumulate: clear them for the next step
      }
    }
    if (step % 200 == 0) std::cout << "step " << step << "  loss " << loss.item<float>() << "\n";
  }
  if (snapshot_path != nullptr) {
    tp::memory::_dump_snapshot(snapshot_path);
    tp::memory::_record_memory_history(false);
    const auto stats = tp::memory::memory_stats();
    std::cout << tp::memory::memory_summary() << "memory: segments "
              << stats.at("segment.all.current") << " reserved "
              << stats.at("reserved_bytes.all.current") << " active "
              << stats.at("active_bytes.all.current") << "\n";
  }

  tp::NoGradGuard no_grad;
  const float accuracy = forward(x).argmax(1).cpu().eq(y).to(tp::kFloat).mean().item<float>();
  std::cout << "training accuracy: " << accuracy * 100 << "%\n";
  return accuracy >= 0.95f ? 0 : 1;
}
