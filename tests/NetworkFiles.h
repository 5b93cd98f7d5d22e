// Network files (runtime/schema/SimdSynetNetwork.fbs) written in C++ with the FlatBuffers
// builder: the runtime's tests and the loader fuzzer's seed generator share them, so both start
// from the same valid network.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "Executor.h"
#include "SimdSynetNetwork_generated.h"
#include "SimdSynetRuntime.h"

namespace netfile {

// Runs a loaded network once on zero inputs; a run's ExecutorError reaches the caller. Each
// array has one float more: an empty tensor still gets a pointer, as the C API requires.
inline void RunOnZeroInputs(simdsynet_executor::Executor& executor) {
    std::vector<std::vector<float>> in, out;
    std::vector<const float*> inputs;
    std::vector<float*> outputs;
    for (const auto& b : executor.Inputs()) in.emplace_back(b.Size() + 1, 0.0f);
    for (const auto& b : executor.Outputs()) out.emplace_back(b.Size() + 1, 0.0f);
    for (auto& v : in) inputs.push_back(v.data());
    for (auto& v : out) outputs.push_back(v.data());
    executor.Run(inputs, outputs, false);
}

namespace file = SimdSynetFile;
using Bytes = std::vector<uint8_t>;
using Shape = std::vector<uint64_t>;

inline file::Ref InArena(uint64_t offset) {
    return file::Ref(file::RefKind::Arena, offset);
}
inline file::Ref InConstant(uint64_t index) {
    return file::Ref(file::RefKind::Constant, index);
}

// Writes a network file; a test adds steps with the same builder, then finishes it.
class Writer {
public:
    flatbuffers::FlatBufferBuilder fbb{4096};
    bool withSteps = true, withInputs = true, withOutputs = true;

    uint64_t AddConstant(const std::vector<float>& values) {
        // As the compiler writes them, so that LoadMemory's aligned copy is read in place.
        // (ForceVectorAlignment asserts alignments up to 32 only.)
        fbb.PreAlign(values.size() * sizeof(float), 64);
        constants_.push_back(file::CreateConstant(fbb, fbb.CreateVector(values)));
        return constants_.size() - 1;
    }
    template <class T>
    void AddStep(const char* name, file::Layer type, flatbuffers::Offset<T> layer) {
        steps_.push_back(file::CreateStepDirect(fbb, name, type, layer.Union()));
    }
    template <class T>
    void AddNamedStep(flatbuffers::Offset<flatbuffers::String> name, file::Layer type,
                      flatbuffers::Offset<T> layer) {
        steps_.push_back(file::CreateStep(fbb, name, type, layer.Union()));
    }
    void AddInput(const char* name, const Shape& shape, const Shape& perm, uint64_t offset) {
        inputs_.push_back(file::CreateBindingDirect(fbb, name, &shape, &perm, offset));
    }
    void AddOutput(const char* name, const Shape& shape, const Shape& perm, uint64_t offset) {
        outputs_.push_back(file::CreateBindingDirect(fbb, name, &shape, &perm, offset));
    }
    void AddBinding(bool output, flatbuffers::Offset<file::Binding> b) {
        (output ? outputs_ : inputs_).push_back(b);
    }
    Bytes Finish(uint64_t arenaFloats, uint32_t version = SIMD_SYNET_NETWORK_FORMAT_VERSION) {
        const auto producer = fbb.CreateString("runtime_test");
        const auto constants = fbb.CreateVector(constants_);
        const auto steps = withSteps ? fbb.CreateVector(steps_) : 0;
        const auto inputs = withInputs ? fbb.CreateVector(inputs_) : 0;
        const auto outputs = withOutputs ? fbb.CreateVector(outputs_) : 0;
        file::FinishNetworkBuffer(fbb, file::CreateNetwork(fbb, version, producer, arenaFloats,
                                                           constants, steps, inputs, outputs));
        return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
    }

private:
    std::vector<flatbuffers::Offset<file::Constant>> constants_;
    std::vector<flatbuffers::Offset<file::Step>> steps_;
    std::vector<flatbuffers::Offset<file::Binding>> inputs_, outputs_;
};

inline std::vector<float> Random(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = d(rng);
    return v;
}

// ---------------------------------------------------------------------------------------------
// The valid network: x [1,3,6,6] (NCHW outside, NHWC in the arena) -> 3x3 convolution to 4
// channels with bias -> leaky ReLU -> max and average 2x2 pooling -> their concatenation (one
// copy step) = output "feat" [1,8,3,3] -> weighted sum with a constant -> inner product to 5 =
// output "y" [1,5]. Arena offsets, in floats:
constexpr uint64_t kX = 0, kConv = 108, kAct = 252, kMax = 396, kAvg = 432, kCat = 468, kSum = 540,
                   kY = 612, kArena = 617;
constexpr float kSlope = 0.1f, kSumWeight = -0.5f;

struct Weights {
    std::vector<float> conv = Random(4 * 3 * 3 * 3, 1), bias = Random(4, 2), addend = Random(72, 3),
                       fc = Random(5 * 72, 4), fcBias = Random(5, 5);
};

inline Bytes ValidNetwork(const Weights& w = Weights()) {
    Writer n;
    const uint64_t conv = n.AddConstant(w.conv), bias = n.AddConstant(w.bias),
                   addend = n.AddConstant(w.addend), fc = n.AddConstant(w.fc),
                   fcBias = n.AddConstant(w.fcBias);
    auto& b = n.fbb;
    const file::ConvolutionDesc desc(3, 6, 6, 4, 6, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1,
                                     SimdConvolutionActivationIdentity, file::TensorFormat::Nhwc,
                                     file::TensorType::Float32, file::TensorType::Float32);
    const file::Ref rw = InConstant(conv), rb = InConstant(bias), src = InArena(kX),
                    dst = InArena(kConv);
    n.AddStep("conv", file::Layer::Convolution,
              file::CreateConvolution(b, 1, &desc, &rw, &rb, nullptr, &src, &dst));
    const file::Ref act = InArena(kAct);
    const std::vector<float> slope{kSlope};
    n.AddStep("relu", file::Layer::Activation,
              file::CreateActivationDirect(b, file::ActivationKind::Relu, &slope, &dst, 144, &act));
    const file::PoolingShape pool(1, 4, 6, 6, 2, 2, 2, 2, 0, 0, 3, 3);
    const file::Ref max = InArena(kMax), avg = InArena(kAvg);
    n.AddStep("maxpool", file::Layer::Pooling,
              file::CreatePooling(b, file::PoolingKind::Max, &pool, &act, &max));
    n.AddStep("avgpool", file::Layer::Pooling,
              file::CreatePooling(b, file::PoolingKind::Average, &pool, &act, &avg));
    const std::vector<file::CopyRegion> regions{
        file::CopyRegion(max, InArena(kCat), 9, 4, 4, 8),
        file::CopyRegion(avg, InArena(kCat + 4), 9, 4, 4, 8)};
    n.AddStep("concat", file::Layer::Copy, file::CreateCopyDirect(b, &regions));
    const std::vector<file::Ref> sources{InArena(kCat), InConstant(addend)};
    const std::vector<float> weights{1.0f, kSumWeight};
    const file::Ref sum = InArena(kSum);
    n.AddStep(
        "add", file::Layer::Eltwise,
        file::CreateEltwiseDirect(b, SimdSynetEltwiseOperationSum, &sources, &weights, 72, &sum));
    const file::Ref rfc = InConstant(fc), rfcb = InConstant(fcBias), y = InArena(kY);
    n.AddStep("fc", file::Layer::InnerProduct,
              file::CreateInnerProduct(b, &sum, &rfc, &rfcb, 1, 5, 72, &y));
    n.AddInput("x", {1, 3, 6, 6}, {0, 2, 3, 1}, kX);
    n.AddOutput("y", {1, 5}, {0, 1}, kY);
    n.AddOutput("feat", {1, 8, 3, 3}, {0, 2, 3, 1}, kCat);
    return n.Finish(kArena);
}

}  // namespace netfile
