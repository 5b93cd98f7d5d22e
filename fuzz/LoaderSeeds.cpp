// Writes the seed corpus of synet_fuzz_loader (fuzz/README.md) into the folder given: the
// runtime test's valid network and one small network per step kind, so that mutations start
// inside every branch of the loader rather than at its first check. Each seed is loaded and
// run here first: a seed the loader refuses would only test the refusal.
// Usage: synet_fuzz_loader_seeds DIR
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "Loader.h"
#include "NetworkFiles.h"

using namespace netfile;

namespace {

// One step between input x (16 floats at 0) and output y (16 floats at 32), arena 64;
// constant 0 holds 16 floats of 0.5, constant 1 16 of -1, constant 2 16 of 1.
Bytes OneStep(const std::function<void(Writer&)>& make) {
    Writer n;
    n.AddConstant(std::vector<float>(16, 0.5f));
    n.AddConstant(std::vector<float>(16, -1.0f));
    n.AddConstant(std::vector<float>(16, 1.0f));
    make(n);
    n.AddInput("x", {1, 4, 2, 2}, {0, 2, 3, 1}, 0);
    n.AddOutput("y", {1, 4, 2, 2}, {0, 2, 3, 1}, 32);
    return n.Finish(64);
}

const file::Ref kIn = InArena(0), kOut = InArena(32), kHalf = InConstant(0), kMinus = InConstant(1),
                kOne = InConstant(2);

file::ConvolutionDesc Desc(uint64_t srcC, uint64_t dstC, uint64_t kernel, uint64_t group,
                           file::TensorFormat format = file::TensorFormat::Nhwc,
                           file::TensorType type = file::TensorType::Float32, int activation = 0) {
    const uint64_t pad = kernel / 2;
    return file::ConvolutionDesc(srcC, 2, 2, dstC, 2, 2, kernel, kernel, 1, 1, 1, 1, pad, pad, pad,
                                 pad, group, activation, format, type, type);
}

std::vector<std::pair<std::string, Bytes>> Seeds() {
    std::vector<std::pair<std::string, Bytes>> s;
    s.emplace_back("network", ValidNetwork());
    s.emplace_back(
        "convolution-nchw-restrictrange", OneStep([](Writer& n) {
            const file::ConvolutionDesc d =
                Desc(4, 4, 1, 1, file::TensorFormat::Nchw, file::TensorType::Float32,
                     SimdConvolutionActivationRestrictRange);
            n.AddStep("conv", file::Layer::Convolution,
                      file::CreateConvolution(n.fbb, 1, &d, &kHalf, &kHalf, &kMinus, &kIn, &kOut));
        }));
    s.emplace_back("convolution-add", OneStep([](Writer& n) {
                       const file::ConvolutionDesc d = Desc(4, 4, 1, 1);
                       const file::Ref add = InArena(16);
                       n.AddStep("conv", file::Layer::Convolution,
                                 file::CreateConvolution(n.fbb, 1, &d, &kHalf, &kHalf, nullptr,
                                                         &kIn, &kOut, &add));
                   }));
    s.emplace_back("convolution8i", OneStep([](Writer& n) {
                       const file::ConvolutionDesc d = Desc(4, 4, 1, 1);
                       const std::vector<file::Ref> stats{kMinus, kOne, kMinus, kOne};
                       n.AddStep("conv8i", file::Layer::Convolution8i,
                                 file::CreateConvolution8iDirect(n.fbb, 1, &d, &kHalf, &kHalf,
                                                                 nullptr, &stats, 0, &kIn, &kOut));
                   }));
    s.emplace_back(
        "merged", OneStep([](Writer& n) {
            const uint64_t dw = n.AddConstant(std::vector<float>(36, 0.25f));
            const std::vector<file::ConvolutionDesc> d{Desc(4, 4, 3, 4), Desc(4, 4, 1, 1)};
            const std::vector<file::Ref> w{InConstant(dw), kHalf}, b{kHalf, kHalf},
                p{file::Ref(), file::Ref()};
            n.AddStep(
                "merged", file::Layer::MergedConvolution,
                file::CreateMergedConvolutionDirect(n.fbb, 1, &d, &w, &b, &p, true, &kIn, &kOut));
        }));
    s.emplace_back("deconvolution", OneStep([](Writer& n) {
                       const file::ConvolutionDesc d = Desc(4, 4, 1, 1);
                       n.AddStep("deconv", file::Layer::Deconvolution,
                                 file::CreateDeconvolution(n.fbb, 1, &d, &kHalf, &kHalf, nullptr,
                                                           &kIn, &kOut));
                   }));
    s.emplace_back("dilated-pooling", OneStep([](Writer& n) {
                       const file::PoolingShape p(1, 4, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2);
                       n.AddStep("dpool", file::Layer::DilatedMaxPooling,
                                 file::CreateDilatedMaxPooling(n.fbb, &p, 2, 2, &kIn, &kOut));
                   }));
    s.emplace_back("pooling-exclude-pad", OneStep([](Writer& n) {
                       const file::PoolingShape p(1, 4, 2, 2, 3, 3, 1, 1, 1, 1, 2, 2);
                       n.AddStep("pool", file::Layer::Pooling,
                                 file::CreatePooling(n.fbb, file::PoolingKind::AverageExcludePad,
                                                     &p, &kIn, &kOut));
                   }));
    s.emplace_back("scale", OneStep([](Writer& n) {
                       n.AddStep("scale", file::Layer::Scale,
                                 file::CreateScale(n.fbb, &kIn, &kHalf, &kMinus, 4, 4, 1, 0, 0,
                                                   file::TensorFormat::Nhwc, true, &kOut));
                   }));
    s.emplace_back("concat-scale-relu", OneStep([](Writer& n) {
                       const file::Ref src1 = InArena(8);
                       n.AddStep("csr", file::Layer::ConcatScaleRelu,
                                 file::CreateConcatScaleRelu(n.fbb, &kIn, 2, &src1, 2, 4, &kHalf,
                                                             &kMinus, &kOut, nullptr));
                   }));
    s.emplace_back("activations", OneStep([](Writer& n) {
                       // Every kind, ping-ponging between two arena buffers, into the output.
                       const std::vector<std::vector<float>> params{{0.1f},
                                                                    {-1, 1},
                                                                    {3, 1.0f / 6},
                                                                    {1},
                                                                    {1.67f, 1.05f},
                                                                    {1},
                                                                    {0.2f, 0.5f},
                                                                    {1, 20},
                                                                    {1},
                                                                    {},
                                                                    {},
                                                                    {},
                                                                    {},
                                                                    {},
                                                                    {2},
                                                                    {},
                                                                    {}};
                       file::Ref from = kIn;
                       for (size_t k = 0; k < params.size(); ++k) {
                           const file::Ref to =
                               k + 1 == params.size() ? kOut : InArena(k % 2 ? 16 : 48);
                           n.AddStep("act", file::Layer::Activation,
                                     file::CreateActivationDirect(n.fbb, file::ActivationKind(k),
                                                                  &params[k], &from, 16, &to));
                           from = to;
                       }
                   }));
    s.emplace_back("eltwise-product-activation", OneStep([](Writer& n) {
                       const std::vector<file::Ref> sources{kIn, kHalf, kOne};
                       const std::vector<float> params{-1, 1};
                       n.AddStep("mul", file::Layer::Eltwise,
                                 file::CreateEltwiseDirect(
                                     n.fbb, SimdSynetEltwiseOperationProduct, &sources, nullptr, 16,
                                     &kOut, true, file::ActivationKind::RestrictRange, &params));
                   }));
    s.emplace_back("prelu", OneStep([](Writer& n) {
                       n.AddStep("prelu", file::Layer::Prelu,
                                 file::CreatePrelu(n.fbb, &kIn, &kHalf, 4, 4, 1,
                                                   file::TensorFormat::Nhwc, &kOut));
                   }));
    s.emplace_back("logsoftmax", OneStep([](Writer& n) {
                       n.AddStep("softmax", file::Layer::Softmax,
                                 file::CreateSoftmax(n.fbb, &kIn, 4, 4, 1, &kOut, true));
                   }));
    s.emplace_back("reduce", OneStep([](Writer& n) {
                       const std::vector<uint64_t> shape{2, 2, 4};
                       const std::vector<uint8_t> reduced{1, 0, 1};
                       n.AddStep("reduce", file::Layer::Reduce,
                                 file::CreateReduceDirect(n.fbb, file::ReductionKind::L2, &kIn,
                                                          &shape, &reduced, &kOut));
                   }));
    s.emplace_back("tile", OneStep([](Writer& n) {
                       const std::vector<uint64_t> from{1, 2, 4}, to{2, 2, 4};
                       n.AddStep("tile", file::Layer::Tile,
                                 file::CreateTileDirect(n.fbb, &kIn, &from, &to, &kOut));
                   }));
    s.emplace_back("lrn", OneStep([](Writer& n) {
                       const std::vector<float> k{1, 1e-4f, -0.75f};
                       n.AddStep("lrn", file::Layer::Lrn,
                                 file::CreateLrnDirect(n.fbb, &kIn, 1, 4, 4, &k, &kOut));
                   }));
    s.emplace_back("normalize", OneStep([](Writer& n) {
                       n.AddStep("norm", file::Layer::Normalize,
                                 file::CreateNormalize(n.fbb, 2, &kIn, 1, 4, 4, &kHalf, &kMinus,
                                                       1e-5f, file::TensorFormat::Nhwc, &kOut));
                   }));
    s.emplace_back("matmul", OneStep([](Writer& n) {
                       n.AddStep(
                           "matmul", file::Layer::MatMul,
                           file::CreateMatMul(n.fbb, &kIn, &kHalf, 1, 4, 4, 4, 16, 16, &kOut));
                   }));
    s.emplace_back("shuffle", OneStep([](Writer& n) {
                       const file::Ref src1 = InArena(8), dst1 = InArena(40);
                       n.AddStep("shuffle", file::Layer::Shuffle,
                                 file::CreateShuffle(n.fbb, &kIn, 2, &src1, 2, 4, &kOut, &dst1));
                   }));
    s.emplace_back("convert-image", OneStep([](Writer& n) {
                       n.AddStep("convert", file::Layer::ConvertImage,
                                 file::CreateConvertImage(n.fbb, &kIn, 1, 4, 4, true, &kOut));
                   }));
    s.emplace_back("transpose", OneStep([](Writer& n) {
                       const std::vector<uint64_t> shape{2, 2, 4}, perm{2, 0, 1};
                       n.AddStep("transpose", file::Layer::Transpose,
                                 file::CreateTransposeDirect(n.fbb, &kIn, &shape, &perm, &kOut));
                   }));
    s.emplace_back("pad-reflect", OneStep([](Writer& n) {
                       const std::vector<uint64_t> shape{2, 4}, before{1, 0}, after{1, 0};
                       n.AddStep("pad", file::Layer::Pad,
                                 file::CreatePadDirect(n.fbb, &kIn, &shape, &before, &after,
                                                       file::PadMode::Reflect, 0.0f, &kOut));
                   }));
    s.emplace_back("resize-nearest", OneStep([](Writer& n) {
                       const std::vector<uint64_t> rows{1, 0}, cols{0, 1};
                       n.AddStep("resize", file::Layer::ResizeNearest,
                                 file::CreateResizeNearestDirect(n.fbb, &kIn, 1, 2, 2, 4, &rows,
                                                                 &cols, &kOut));
                   }));
    s.emplace_back(
        "resize-linear", OneStep([](Writer& n) {
            const std::vector<uint64_t> first{0, 0}, second{1, 1};
            const std::vector<float> w0{0.75f, 0.25f}, w1{0.25f, 0.75f};
            const auto rows = file::CreateLinearTapsDirect(n.fbb, &first, &second, &w0, &w1);
            const auto cols = file::CreateLinearTapsDirect(n.fbb, &first, &second, &w1, &w0);
            n.AddStep("resize", file::Layer::ResizeLinear,
                      file::CreateResizeLinear(n.fbb, &kIn, 1, 2, 2, 4, rows, cols, &kOut));
        }));
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
        return 2;
    }
    int failed = 0;
    for (const auto& [name, bytes] : Seeds()) {
        try {
            simdsynet_executor::LoadLimits limits;
            limits.maxArenaFloats = 4096;  // as the target's
            const auto executor =
                simdsynet_executor::LoadNetwork(bytes.data(), bytes.size(), limits);
            std::vector<std::vector<float>> in, out;
            std::vector<const float*> inputs;
            std::vector<float*> outputs;
            for (const auto& b : executor->Inputs()) in.emplace_back(b.Size() + 1, 1.0f);
            for (const auto& b : executor->Outputs()) out.emplace_back(b.Size() + 1);
            for (auto& v : in) inputs.push_back(v.data());
            for (auto& v : out) outputs.push_back(v.data());
            executor->Run(inputs, outputs, false);
        } catch (const simdsynet_executor::ExecutorError& e) {
            std::fprintf(stderr, "seed %s fails: %s\n", name.c_str(), e.what());
            ++failed;
            continue;
        }
        const std::string path = std::string(argv[1]) + "/seed-" + name + ".ssn";
        FILE* f = std::fopen(path.c_str(), "wb");
        if (f == nullptr || std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size()) {
            std::perror(path.c_str());
            return 1;
        }
        std::fclose(f);
    }
    return failed ? 1 : 0;
}
