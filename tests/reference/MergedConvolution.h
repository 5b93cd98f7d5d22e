// Merged convolution reference (SUPPLEMENT.md §10.2): the naive NHWC convolution of
// reference/Convolution.h applied stage by stage (each stage's result rounded to FP32, as the
// intermediate tensors are FP32), then the residual add. Besides the outputs it returns, per
// output, an error bound for an ACC implementation, propagated through the chain:
//   E_0 = 0 (the input is exact);
//   E_{i+1} = Lip * (1e-5 * sum|src*w| + 1e-6 + sum over taps |w| * E_i) + 2e-6 * |out_i|
// where Lip = 2 bounds the slope of every §3.1 activation for the parameters the tests use
// (Hswish reaches 1.5, Elu 1.1, Gelu 1.13), the first term is the per-stage ACC allowance, the
// sum over taps carries the error of the stage input through the (linear) convolution, and the
// last term covers approximated exp/erf activations and the FP32 rounding of the intermediate.
// The propagated term is itself a convolution (of E_i with |w|, no bias, no activation), so the
// same naive reference computes it.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "SimdSynet.h"
#include "reference/Convolution.h"

namespace ref {

// weight/bias/params: per stage pointers (bias and params entries may be NULL); add only with
// count == 3. dst and bound receive batch * convs[count-1] output values (NHWC).
inline void MergedConvolution32f(const SimdConvolutionParameters* convs, size_t count, bool add,
                                 size_t batch, const float* src, const float* const* weight,
                                 const float* const* bias, const float* const* params,
                                 std::vector<double>& dst, std::vector<double>& bound) {
    std::vector<float> in(src, src + batch * convs[0].srcC * convs[0].srcH * convs[0].srcW);
    std::vector<float> error(in.size(), 0.0f);
    std::vector<double> out, magnitude, carried, unused;
    for (size_t i = 0; i < count; ++i) {
        const SimdConvolutionParameters& p = convs[i];
        Convolution32f(p, batch, in.data(), weight[i], bias ? bias[i] : nullptr,
                       params ? params[i] : nullptr, out, magnitude);
        SimdConvolutionParameters linear = p;
        linear.activation = SimdConvolutionActivationIdentity;
        const size_t weights = p.kernelY * p.kernelX * p.srcC / p.group * p.dstC;
        std::vector<float> absWeight(weights);
        for (size_t k = 0; k < weights; ++k) absWeight[k] = std::fabs(weight[i][k]);
        Convolution32f(linear, batch, error.data(), absWeight.data(), nullptr, nullptr, carried,
                       unused);
        in.resize(out.size());
        error.resize(out.size());
        for (size_t k = 0; k < out.size(); ++k) {
            in[k] = float(out[k]);
            error[k] =
                float(2.0 * (1e-5 * magnitude[k] + 1e-6 + carried[k]) + 2e-6 * std::fabs(out[k]));
        }
    }
    dst.assign(out.begin(), out.end());
    bound.assign(error.begin(), error.end());
    if (add && count == 3)
        for (size_t k = 0; k < dst.size(); ++k) {
            dst[k] += double(src[k]);
            bound[k] += 1e-7 * std::fabs(dst[k]);
        }
}

}  // namespace ref
