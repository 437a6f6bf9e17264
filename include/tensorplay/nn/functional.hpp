// tensorplay::nn::functional (torch::nn::functional): activations, normalisation, losses,
// dropout, cosine similarity and normalize, each also offered as the ATen-level op
// tensorplay::xxx where ATen has one. `namespace F = tensorplay::nn::functional;` as in libtorch.
#pragma once

#include <tensorplay/nn/functional/activation.hpp>
#include <tensorplay/nn/functional/conv.hpp>
#include <tensorplay/nn/functional/distance.hpp>
#include <tensorplay/nn/functional/dropout.hpp>
#include <tensorplay/nn/functional/embedding.hpp>
#include <tensorplay/nn/functional/linear.hpp>
#include <tensorplay/nn/functional/loss.hpp>
#include <tensorplay/nn/functional/normalization.hpp>
#include <tensorplay/nn/functional/pooling.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/nn/functional/padding.hpp>
#include <tensorplay/nn/functional/upsampling.hpp>
