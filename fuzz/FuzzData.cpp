// Harnesses of the data functions: pooling (six functions), the 21 Winograd transforms and the
// five normalization layers. Each decodes the arguments (small shapes, every enumeration value
// including invalid ones, now and then a dimension so large that byte counts overflow size_t),
// allocates every tensor at exactly the size the header documents for those arguments and
// checks the error contract. Accepted Winograd calls are also checked against the §12.1
// reference (tests/reference/Winograd.h), the padding and stride gaps included.
#include <cmath>
#include <cstring>
#include <vector>

#include "FuzzInput.h"
#include "SimdSynet.h"
#include "reference/Winograd.h"

namespace fuzz {
namespace {

// 0..max, or (four byte values in 256) a dimension whose tensors' byte counts overflow.
size_t Size(Input& in, size_t max) {
    static const size_t kHuge[] = {size_t(1) << 31, (size_t(1) << 32) + 1, size_t(1) << 62,
                                   SIZE_MAX};
    const uint8_t b = in.Byte();
    return b >= 252 ? kHuge[b - 252] : b % (max + 1);
}

bool IsHuge(size_t v) {
    return v >= (size_t(1) << 31);
}

// Elements to allocate for a tensor of n elements of `elem` bytes: n when it is small; 1 when
// n*elem overflows size_t (such a call must be rejected, and any access is reported); 0 with
// *skip set when n is addressable but too large for one cheap execution.
size_t Alloc(size_t n, size_t elem, bool* skip) {
    const size_t bytes = Mul(n, elem);
    if (bytes <= kMaxElements * sizeof(float)) return n;
    if (bytes == SIZE_MAX) return 1;
    *skip = true;
    return 0;
}

SimdBool Bool(Input& in) {
    const uint8_t b = in.Byte();
    return b < 248 ? SimdBool(b & 1) : SimdBool(b % 4);  // 2 and 3: invalid
}

SimdTensorFormatType ImageFormat(Input& in) {
    const uint8_t b = in.Byte();
    return b < 224 ? (b & 1 ? SimdTensorFormatNhwc : SimdTensorFormatNchw)
                   : SimdTensorFormatType(int(b % 16) - 1);
}

template <class T>
const T* MaybeNull(Input& in, const Buffer<T>& b) {
    return in.OneIn(64) ? nullptr : b.data();
}
template <class T>
T* MaybeNull(Input& in, Buffer<T>& b) {
    return in.OneIn(64) ? nullptr : b.data();
}

// ---- Pooling

// Output extent: the floor or ceil rule of a window sliding over src + 2*pad, or any small
// value (windows beyond the input included).
size_t PoolExtent(Input& in, size_t src, size_t kernel, size_t stride, size_t pad) {
    const uint8_t mode = in.Byte() % 4;
    if (mode == 3 || IsHuge(src) || kernel == 0 || stride == 0 || src + 2 * pad < kernel)
        return Size(in, 12);
    const size_t span = src + 2 * pad - kernel;
    return (mode == 0 ? span : span + stride - 1) / stride + 1 + (mode == 2 ? in.Range(0, 2) : 0);
}

}  // namespace

void FuzzPooling(Input& in) {
    const unsigned function = in.Byte() % 6;
    const size_t srcC = Size(in, 20), srcH = Size(in, 20), srcW = Size(in, 20);
    const size_t kernelY = in.OneIn(64) ? 0 : in.Range(1, 6);
    const size_t kernelX = in.Flag() ? in.Range(0, 6) : kernelY;
    const size_t strideY = in.OneIn(64) ? 0 : in.Range(1, 4);
    const size_t strideX = in.Flag() ? in.Range(0, 4) : strideY;
    const size_t padY = in.Range(0, 3), padX = in.Range(0, 3);
    const size_t dstH = PoolExtent(in, srcH, kernelY, strideY, padY);
    const size_t dstW = PoolExtent(in, srcW, kernelX, strideX, padX);
    const SimdTensorFormatType format = ImageFormat(in);
    const SimdBool flag = Bool(in);  // excludePad or trans
    size_t kernelC = 1, strideC = 1, padC = 0, dstC = srcC;
    if (function == 3 && in.Flag()) {  // 3D max pooling
        kernelC = in.Range(0, 4);
        strideC = in.Range(0, 3);
        padC = in.Range(0, 2);
        dstC = PoolExtent(in, srcC, kernelC, strideC, padC);
    }
    const size_t elem = function == 4 ? 2 : function == 5 ? 1 : 4;
    bool skip = false;
    const size_t srcN = Alloc(Mul(srcC, srcH, srcW), elem, &skip);
    const size_t dstN = Alloc(Mul(dstC, dstH, dstW), elem, &skip);
    if (skip) return;
    Buffer<uint8_t> src(srcN * elem), dst(dstN * elem);
    const uint32_t seed = in.Seed();
    if (elem == 4)
        FillFloats(reinterpret_cast<float*>(src.data()), srcN, seed, in.OneIn(4));
    else if (elem == 2)
        FillBf16(reinterpret_cast<uint16_t*>(src.data()), srcN, seed, in.OneIn(4));
    else
        FillBytes(src.data(), srcN, seed);
    FillPattern(dst.data(), dst.Bytes());
    const uint8_t* s = MaybeNull(in, src);
    uint8_t* d = MaybeNull(in, dst);
    static const char* const kNames[] = {"PoolingAverage",    "PoolingForwardAverage",
                                         "PoolingForwardMax", "PoolingMax32f",
                                         "PoolingMax16b",     "PoolingMax8u"};
    Describe(
        "SimdSynet%s src=%zux%zux%zu%s kernel=%zux%zu stride=%zux%zu pad=%zu,%zu "
        "dst=%zux%zux%zu%s format=%d flag=%d C3d=k%zu,s%zu,p%zu",
        kNames[function], srcC, srcH, srcW, s ? "" : " (NULL)", kernelY, kernelX, strideY, strideX,
        padY, padX, dstC, dstH, dstW, d ? "" : " (NULL)", int(format), int(flag), kernelC, strideC,
        padC);
    const auto* fs = reinterpret_cast<const float*>(s);
    auto* fd = reinterpret_cast<float*>(d);
    switch (function) {
        case 0:
            SimdSynetPoolingAverage(fs, srcC, srcH, srcW, kernelY, kernelX, strideY, strideX, padY,
                                    padX, fd, dstH, dstW, flag, format);
            break;
        case 1:
            SimdSynetPoolingForwardAverage(fs, srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                           padY, padX, fd, dstH, dstW, flag, format);
            break;
        case 2:
            SimdSynetPoolingForwardMax(fs, srcC, srcH, srcW, kernelY, kernelX, strideY, strideX,
                                       padY, padX, fd, dstH, dstW, flag);
            break;
        case 3:
            SimdSynetPoolingMax32f(fs, srcC, srcH, srcW, kernelC, kernelY, kernelX, strideC,
                                   strideY, strideX, padC, padY, padX, fd, dstC, dstH, dstW,
                                   format);
            break;
        case 4:
            SimdSynetPoolingMax16b(reinterpret_cast<const uint16_t*>(s), srcC, srcH, srcW, kernelY,
                                   kernelX, strideY, strideX, padY, padX,
                                   reinterpret_cast<uint16_t*>(d), dstH, dstW, format);
            break;
        default:
            SimdSynetPoolingMax8u(s, srcC, srcH, srcW, kernelY, kernelX, strideY, strideX, padY,
                                  padX, d, dstH, dstW, format);
            break;
    }
    Rejected({{dst.data(), dst.Bytes()}});
}

// ---- Winograd

namespace {

typedef void (*SetFilterFn)(const float*, size_t, float*, SimdBool);
typedef void (*SetInputFn)(const float*, size_t, size_t, size_t, size_t, size_t, size_t, size_t,
                           float*, size_t, SimdBool);
typedef void (*SetOutputFn)(const float*, size_t, float*, size_t, size_t, size_t, SimdBool);

struct WinogradVariant {
    const char* name;
    ref::WinogradAxis (*axisY)();
    ref::WinogradAxis (*axisX)();
    SetFilterFn setFilter;
    SetInputFn setInput;
    SetOutputFn setOutput;
};

#define WINOGRAD_VARIANT(NAME, AY, AX)                                                        \
    {                                                                                         \
#NAME, ref::AY, ref::AX, SimdWinograd##NAME##SetFilter, SimdWinograd##NAME##SetInput, \
            SimdWinograd##NAME##SetOutput                                                     \
    }

const WinogradVariant kVariants[] = {
    WINOGRAD_VARIANT(Kernel1x3Block1x4, AxisIdentity, AxisF43),
    WINOGRAD_VARIANT(Kernel1x5Block1x4, AxisIdentity, AxisF45),
    WINOGRAD_VARIANT(Kernel2x2Block2x2, AxisF22, AxisF22),
    WINOGRAD_VARIANT(Kernel2x2Block4x4, AxisF42, AxisF42),
    WINOGRAD_VARIANT(Kernel3x3Block2x2, AxisF23, AxisF23),
    WINOGRAD_VARIANT(Kernel3x3Block3x3, AxisF33, AxisF33),
    WINOGRAD_VARIANT(Kernel3x3Block4x4, AxisF43, AxisF43),
};

// A plane stride for `used` floats per plane: exact, a little more, one less (invalid), any
// value up to twice, or so large that the planes' byte count overflows.
size_t Stride(Input& in, size_t used) {
    const uint8_t mode = in.Byte() % 16;
    if (mode < 8) return used + (mode & 3);
    if (mode < 10) return used ? used - 1 : 0;
    if (mode < 14 && !IsHuge(used)) return in.Range(0, 2 * used + 1);
    return SIZE_MAX >> (mode & 3);  // modes 10-13 come here too when used is huge
}

// Floats of a planar buffer of `count` planes `stride` apart, the last one `used` long.
size_t PlanesSize(size_t count, size_t stride, size_t used) {
    if (used == 0) return 0;
    const size_t head = Mul(count - 1, stride);
    return head == SIZE_MAX || head + used < head ? SIZE_MAX : head + used;
}

// |actual - value| <= 1e-4*magnitude + 1e-6: the LIN tolerance of §12.2.
void CheckTerms(const float* dst, size_t count, size_t stride, size_t used,
                const std::vector<ref::Term>& r, const char* what) {
    for (size_t k = 0; k < count; ++k)
        for (size_t i = 0; i < used; ++i) {
            const ref::Term& t = r[k * used + i];
            const double actual = dst[k * stride + i];
            if (!(std::fabs(actual - t.value) <= 1e-4 * t.magnitude + 1e-6))
                Fail("%s plane %zu element %zu: %.9g, expected %.9g", what, k, i, actual, t.value);
        }
}

// The part of each plane beyond `used` (up to the next plane) must still hold the pattern.
void CheckGaps(const float* dst, size_t count, size_t stride, size_t used) {
    for (size_t k = 0; k + 1 < count; ++k)
        if (!HasPatternIn(dst, (k * stride + used) * sizeof(float),
                          (k + 1) * stride * sizeof(float)))
            Fail("the gap after plane %zu was written", k);
}

}  // namespace

void FuzzWinograd(Input& in) {
    const WinogradVariant& v = kVariants[in.Byte() % 7];
    const ref::WinogradAxis ay = v.axisY(), ax = v.axisX();
    const size_t count = ay.Tile() * ax.Tile(), taps = ay.kernel * ax.kernel;
    const unsigned function = in.Byte() % 3;
    const SimdBool trans = Bool(in);
    const uint32_t seed = in.Seed();
    const bool special = in.OneIn(8);
    bool skip = false;
    if (function == 0) {
        const size_t size = Size(in, 80);
        Buffer<float> src(Alloc(Mul(size, taps), 4, &skip));
        Buffer<float> dst(Alloc(Mul(size, count), 4, &skip));
        if (skip) return;
        FillFloats(src.data(), src.size(), seed, special);
        FillPattern(dst.data(), dst.Bytes());
        const float* s = MaybeNull(in, src);
        float* d = MaybeNull(in, dst);
        Describe("SimdWinograd%sSetFilter size=%zu src%s dst%s trans=%d", v.name, size,
                 s ? "" : "=NULL", d ? "" : "=NULL", int(trans));
        v.setFilter(s, size, d, trans);
        if (Rejected({{dst.data(), dst.Bytes()}}) || special || IsHuge(size)) return;
        CheckTerms(dst.data(), count, size, size,
                   ref::WinogradSetFilter(ay, ax, src.data(), size, trans == SimdTrue),
                   "SetFilter");
    } else if (function == 1) {
        const size_t C = Size(in, 24), H = Size(in, 24), W = Size(in, 24);
        size_t pad[4];
        const bool table = in.Flag();  // the pads of §12.3, or any up to 6
        for (size_t& p : pad) p = table ? in.Range(0, 1) : in.Range(0, 6);
        if (table && ay.kernel == 1) pad[0] = pad[2] = 0;
        // A zero extent makes the call a no-op whatever the pads (SUPPLEMENT.md §0): no tiles.
        size_t tiles = 0;
        if (!IsHuge(H) && !IsHuge(W) && H > 0 && W > 0) {
            const ptrdiff_t outH = ptrdiff_t(pad[0] + H + pad[2]) - ptrdiff_t(ay.kernel) + 1;
            const ptrdiff_t outW = ptrdiff_t(pad[1] + W + pad[3]) - ptrdiff_t(ax.kernel) + 1;
            if (outH > 0 && outW > 0)
                tiles = ref::CeilDiv(size_t(outH), ay.block) * ref::CeilDiv(size_t(outW), ax.block);
        }
        const size_t used = Mul(C, tiles), stride = Stride(in, used);
        Buffer<float> src(Alloc(Mul(C, H, W), 4, &skip));
        Buffer<float> dst(Alloc(PlanesSize(count, stride, used), 4, &skip));
        if (skip) return;
        FillFloats(src.data(), src.size(), seed, special);
        FillPattern(dst.data(), dst.Bytes());
        const float* s = MaybeNull(in, src);
        float* d = MaybeNull(in, dst);
        Describe(
            "SimdWinograd%sSetInput C=%zu H=%zu W=%zu pads=%zu,%zu,%zu,%zu dstStride=%zu "
            "(C*T=%zu) src%s dst%s trans=%d",
            v.name, C, H, W, pad[0], pad[1], pad[2], pad[3], stride, used, s ? "" : "=NULL",
            d ? "" : "=NULL", int(trans));
        v.setInput(s, C, H, W, pad[0], pad[1], pad[2], pad[3], d, stride, trans);
        if (Rejected({{dst.data(), dst.Bytes()}})) return;
        if (used && stride < used) Fail("a dstStride below srcChannels*tiles was accepted");
        if (special || IsHuge(used) || dst.size() == 0) return;
        size_t tileH, tileW;
        CheckTerms(dst.data(), count, stride, used,
                   ref::WinogradSetInput(ay, ax, src.data(), C, H, W, pad[0], pad[1], pad[2],
                                         pad[3], trans == SimdTrue, &tileH, &tileW),
                   "SetInput");
        CheckGaps(dst.data(), count, stride, used);
    } else {
        const size_t C = Size(in, 24), H = Size(in, 24), W = Size(in, 24);
        // A zero extent makes the call a no-op (SUPPLEMENT.md §0), however large the others.
        const size_t tiles = H == 0 || W == 0 ? 0
                             : IsHuge(H) || IsHuge(W)
                                 ? SIZE_MAX
                                 : ref::CeilDiv(H, ay.block) * ref::CeilDiv(W, ax.block);
        const size_t used = Mul(C, tiles), stride = Stride(in, used);
        Buffer<float> src(Alloc(PlanesSize(count, stride, used), 4, &skip));
        Buffer<float> dst(Alloc(Mul(C, H, W), 4, &skip));
        if (skip) return;
        FillFloats(src.data(), src.size(), seed, special);
        FillPattern(dst.data(), dst.Bytes());
        const float* s = MaybeNull(in, src);
        float* d = MaybeNull(in, dst);
        Describe(
            "SimdWinograd%sSetOutput C=%zu H=%zu W=%zu srcStride=%zu (C*T=%zu) src%s dst%s "
            "trans=%d",
            v.name, C, H, W, stride, used, s ? "" : "=NULL", d ? "" : "=NULL", int(trans));
        v.setOutput(s, stride, d, C, H, W, trans);
        if (Rejected({{dst.data(), dst.Bytes()}})) return;
        if (used && stride < used) Fail("a srcStride below dstChannels*tiles was accepted");
        if (special || IsHuge(used) || dst.size() == 0) return;
        CheckTerms(dst.data(), 1, 0, dst.size(),
                   ref::WinogradSetOutput(ay, ax, src.data(), stride, C, H, W, trans == SimdTrue),
                   "SetOutput");
    }
}

// ---- Normalization

void FuzzNormalization(Input& in) {
    const unsigned function = in.Byte() % 5;
    const size_t batch = Size(in, 3), channels = Size(in, 24), spatial = Size(in, 40);
    const SimdTensorFormatType format = ImageFormat(in);
    const SimdBool across = Bool(in);
    const bool inPlace = in.OneIn(4), withBuf = in.Flag();
    const size_t elem = function == 4 ? 2 : 4;
    bool skip = false;
    const size_t n = Alloc(Mul(batch, channels, spatial), elem, &skip);
    const size_t perChannel = Alloc(channels, 4, &skip);
    if (skip) return;
    Buffer<uint8_t> src(n * elem), dstOwn(inPlace ? 0 : n * elem);
    Buffer<float> scale(perChannel), shift(perChannel), eps(1), buf(withBuf ? perChannel : 0);
    const uint32_t seed = in.Seed();
    const bool special = in.OneIn(8);
    if (elem == 2)
        FillBf16(reinterpret_cast<uint16_t*>(src.data()), n, seed, special);
    else
        FillFloats(reinterpret_cast<float*>(src.data()), n, seed, special);
    FillFloats(scale.data(), scale.size(), seed + 1, false);
    FillFloats(shift.data(), shift.size(), seed + 2, false);
    eps[0] = in.Flag() ? 1e-5f : float(in.Byte()) / 64.0f;
    uint8_t* dstBytes = inPlace ? src.data() : dstOwn.data();
    std::vector<uint8_t> before;
    if (inPlace)
        before.assign(src.data(), src.data() + src.Bytes());
    else
        FillPattern(dstOwn.data(), dstOwn.Bytes());
    const auto* s = reinterpret_cast<const float*>(MaybeNull(in, src));
    auto* d = in.OneIn(64) ? nullptr : reinterpret_cast<float*>(dstBytes);
    const float* sc = MaybeNull(in, scale);
    const float* sh = MaybeNull(in, shift);
    const float* e = MaybeNull(in, eps);
    float* b = withBuf ? buf.data() : nullptr;
    static const char* const kNames[] = {"", "V2", "V3", "V4", "16bV2"};
    Describe(
        "SimdSynetNormalizeLayerForward%s batch=%zu channels=%zu spatial=%zu format=%d "
        "across=%d src%s dst%s%s scale%s shift%s eps%s=%g buf%s",
        kNames[function], batch, channels, spatial, int(format), int(across), s ? "" : "=NULL",
        d ? "" : "=NULL", inPlace ? " (in place)" : "", sc ? "" : "=NULL", sh ? "" : "=NULL",
        e ? "" : "=NULL", double(eps[0]), b ? "" : "=NULL");
    switch (function) {
        case 0:
            SimdSynetNormalizeLayerForward(s, batch, channels, spatial, sc, e, across, format, b,
                                           d);
            break;
        case 1:
            SimdSynetNormalizeLayerForwardV2(s, batch, channels, spatial, sc, sh, e, format, b, d);
            break;
        case 2:
            SimdSynetNormalizeLayerForwardV3(s, batch, channels, spatial, sc, sh, e, format, b, d);
            break;
        case 3:
            SimdSynetNormalizeLayerForwardV4(s, batch, channels, spatial, sc, sh, e, format, b, d);
            break;
        default:
            SimdSynetNormalizeLayerForward16bV2(reinterpret_cast<const uint16_t*>(s), batch,
                                                channels, spatial, sc, sh, e, format, b,
                                                reinterpret_cast<uint16_t*>(d));
            break;
    }
    Rejected({{dstBytes, n * elem, inPlace ? before.data() : nullptr}});
}

}  // namespace fuzz
