// Naive double-precision references of the Winograd transforms (SUPPLEMENT.md §12.1, §12.2)
// and of the direct stride-1 convolution they implement. Each transformed value comes with the
// sum of the magnitudes of its terms, against which the LIN tolerance is measured.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

namespace ref {

using Matrix = std::vector<std::vector<double>>;

// One axis of F(m, r): G (t x r), Bᵀ (t x t), Aᵀ (m x t), rows as listed in §12.2.
struct WinogradAxis {
    size_t block, kernel;
    Matrix g, bt, at;
    size_t Tile() const { return block + kernel - 1; }
};

inline WinogradAxis AxisIdentity() {
    return {1, 1, {{1}}, {{1}}, {{1}}};
}

inline WinogradAxis AxisF43() {
    return {4,
            3,
            {{1. / 4, 0, 0},
             {-1. / 6, -1. / 6, -1. / 6},
             {-1. / 6, 1. / 6, -1. / 6},
             {1. / 24, 1. / 12, 1. / 6},
             {1. / 24, -1. / 12, 1. / 6},
             {0, 0, 1}},
            {{4, 0, -5, 0, 1, 0},
             {0, -4, -4, 1, 1, 0},
             {0, 4, -4, -1, 1, 0},
             {0, -2, -1, 2, 1, 0},
             {0, 2, -1, -2, 1, 0},
             {0, 4, 0, -5, 0, 1}},
            {{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}};
}

inline WinogradAxis AxisF45() {
    return {4,
            5,
            {{1. / 36, 0, 0, 0, 0},
             {1. / 48, 1. / 48, 1. / 48, 1. / 48, 1. / 48},
             {1. / 48, -1. / 48, 1. / 48, -1. / 48, 1. / 48},
             {-1. / 120, -2. / 120, -4. / 120, -8. / 120, -16. / 120},
             {-1. / 120, 2. / 120, -4. / 120, 8. / 120, -16. / 120},
             {1. / 720, 3. / 720, 9. / 720, 27. / 720, 81. / 720},
             {1. / 720, -3. / 720, 9. / 720, -27. / 720, 81. / 720},
             {0, 0, 0, 0, 1}},
            {{36, 0, -49, 0, 14, 0, -1, 0},
             {0, 36, 36, -13, -13, 1, 1, 0},
             {0, -36, 36, 13, -13, -1, 1, 0},
             {0, 18, 9, -20, -10, 2, 1, 0},
             {0, -18, 9, 20, -10, -2, 1, 0},
             {0, 12, 4, -15, -5, 3, 1, 0},
             {0, -12, 4, 15, -5, -3, 1, 0},
             {0, -36, 0, 49, 0, -14, 0, 1}},
            {{1, 1, 1, 1, 1, 1, 1, 0},
             {0, 1, -1, 2, -2, 3, -3, 0},
             {0, 1, 1, 4, 4, 9, 9, 0},
             {0, 1, -1, 8, -8, 27, -27, 1}}};
}

inline WinogradAxis AxisF22() {
    return {2,
            2,
            {{1, 0}, {1, 1}, {0, 1}},
            {{1, -1, 0}, {0, 1, 0}, {0, -1, 1}},
            {{1, 1, 0}, {0, 1, 1}}};
}

inline Matrix BtF42() {
    return {{2, -1, -2, 1, 0},
            {0, -2, -1, 1, 0},
            {0, 2, -3, 1, 0},
            {0, -1, 0, 1, 0},
            {0, 2, -1, -2, 1}};
}

inline WinogradAxis AxisF42() {
    return {4,
            2,
            {{1. / 2, 0}, {-1. / 2, -1. / 2}, {-1. / 6, 1. / 6}, {1. / 6, 1. / 3}, {0, 1}},
            BtF42(),
            {{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 0}, {0, 1, -1, 8, 1}}};
}

inline WinogradAxis AxisF23() {
    return {2,
            3,
            {{1, 0, 0}, {1. / 2, 1. / 2, 1. / 2}, {1. / 2, -1. / 2, 1. / 2}, {0, 0, 1}},
            {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
            {{1, 1, 1, 0}, {0, 1, -1, -1}}};
}

inline WinogradAxis AxisF33() {
    return {3,
            3,
            {{1. / 2, 0, 0},
             {-1. / 2, -1. / 2, -1. / 2},
             {-1. / 6, 1. / 6, -1. / 6},
             {1. / 6, 1. / 3, 2. / 3},
             {0, 0, 1}},
            BtF42(),
            {{1, 1, 1, 1, 0}, {0, 1, -1, 2, 0}, {0, 1, 1, 4, 1}}};
}

// A value and the sum of |terms| it was computed from.
struct Term {
    double value = 0, magnitude = 0;
};

// out[i][j] = Σ_r Σ_q my[i][r]*mx[j][q]*in[r][q] (in: rows x cols, row-major).
inline std::vector<Term> Apply2D(const Matrix& my, const Matrix& mx,
                                 const std::vector<double>& in) {
    const size_t inRows = my[0].size(), inCols = mx[0].size();
    std::vector<Term> out(my.size() * mx.size());
    for (size_t i = 0; i < my.size(); ++i)
        for (size_t j = 0; j < mx.size(); ++j) {
            Term& t = out[i * mx.size() + j];
            for (size_t r = 0; r < inRows; ++r)
                for (size_t q = 0; q < inCols; ++q) {
                    const double term = my[i][r] * mx[j][q] * in[r * inCols + q];
                    t.value += term;
                    t.magnitude += std::fabs(term);
                }
        }
    return out;
}

// SetFilter: returns dst[k*size + f].
inline std::vector<Term> WinogradSetFilter(const WinogradAxis& ay, const WinogradAxis& ax,
                                           const float* src, size_t size, bool trans) {
    const size_t kY = ay.kernel, kX = ax.kernel, count = ay.Tile() * ax.Tile();
    std::vector<Term> dst(count * size);
    for (size_t f = 0; f < size; ++f) {
        std::vector<double> g(kY * kX);
        for (size_t k = 0; k < kY * kX; ++k)
            g[k] = trans ? src[k * size + f] : src[f * kY * kX + k];
        const std::vector<Term> u = Apply2D(ay.g, ax.g, g);
        for (size_t k = 0; k < count; ++k) dst[k * size + f] = u[k];
    }
    return dst;
}

inline size_t CeilDiv(size_t a, size_t b) {
    return (a + b - 1) / b;
}

// Pixel P(c, y, x) of an image, zero outside.
inline double Pixel(const float* src, size_t C, size_t H, size_t W, bool trans, size_t c,
                    ptrdiff_t y, ptrdiff_t x) {
    if (y < 0 || x < 0 || y >= ptrdiff_t(H) || x >= ptrdiff_t(W)) return 0;
    return trans ? src[(size_t(y) * W + size_t(x)) * C + c]
                 : src[(c * H + size_t(y)) * W + size_t(x)];
}

// SetInput: returns the values of dst[k*dstStride + ...] packed with dstStride = C*T;
// *tiles receives T (tileH*tileW).
inline std::vector<Term> WinogradSetInput(const WinogradAxis& ay, const WinogradAxis& ax,
                                          const float* src, size_t C, size_t H, size_t W,
                                          size_t padY, size_t padX, size_t padH, size_t padW,
                                          bool trans, size_t* tileH, size_t* tileW) {
    const ptrdiff_t outH = ptrdiff_t(padY + H + padH) - ptrdiff_t(ay.kernel) + 1;
    const ptrdiff_t outW = ptrdiff_t(padX + W + padW) - ptrdiff_t(ax.kernel) + 1;
    *tileH = outH > 0 ? CeilDiv(size_t(outH), ay.block) : 0;
    *tileW = outW > 0 ? CeilDiv(size_t(outW), ax.block) : 0;
    const size_t T = *tileH * *tileW, tY = ay.Tile(), tX = ax.Tile(), count = tY * tX;
    std::vector<Term> dst(count * C * T);
    for (size_t c = 0; c < C; ++c)
        for (size_t ty = 0; ty < *tileH; ++ty)
            for (size_t tx = 0; tx < *tileW; ++tx) {
                std::vector<double> d(count);
                for (size_t r = 0; r < tY; ++r)
                    for (size_t q = 0; q < tX; ++q)
                        d[r * tX + q] = Pixel(src, C, H, W, trans, c,
                                              ptrdiff_t(ty * ay.block + r) - ptrdiff_t(padY),
                                              ptrdiff_t(tx * ax.block + q) - ptrdiff_t(padX));
                const std::vector<Term> v = Apply2D(ay.bt, ax.bt, d);
                const size_t t = ty * *tileW + tx;
                for (size_t k = 0; k < count; ++k)
                    dst[k * C * T + (trans ? t * C + c : c * T + t)] = v[k];
            }
    return dst;
}

// SetOutput: src[k*srcStride + ...]; returns the output image (layout per trans).
inline std::vector<Term> WinogradSetOutput(const WinogradAxis& ay, const WinogradAxis& ax,
                                           const float* src, size_t srcStride, size_t C, size_t H,
                                           size_t W, bool trans) {
    const size_t tileH = CeilDiv(H, ay.block), tileW = CeilDiv(W, ax.block), T = tileH * tileW;
    const size_t count = ay.Tile() * ax.Tile();
    std::vector<Term> dst(C * H * W);
    for (size_t c = 0; c < C; ++c)
        for (size_t ty = 0; ty < tileH; ++ty)
            for (size_t tx = 0; tx < tileW; ++tx) {
                const size_t t = ty * tileW + tx;
                std::vector<double> m(count);
                for (size_t k = 0; k < count; ++k)
                    m[k] = src[k * srcStride + (trans ? t * C + c : c * T + t)];
                const std::vector<Term> y = Apply2D(ay.at, ax.at, m);
                for (size_t p = 0; p < ay.block; ++p)
                    for (size_t q = 0; q < ax.block; ++q) {
                        const size_t oy = ty * ay.block + p, ox = tx * ax.block + q;
                        if (oy >= H || ox >= W) continue;
                        dst[trans ? (oy * W + ox) * C + c : (c * H + oy) * W + ox] =
                            y[p * ax.block + q];
                    }
            }
    return dst;
}

// Direct stride-1 convolution in double: weight in OIYX, output outH x outW per channel
// in the layout of trans.
inline std::vector<double> DirectConvolution(const float* src, size_t srcC, size_t H, size_t W,
                                             const float* weight, size_t dstC, size_t kY, size_t kX,
                                             size_t padY, size_t padX, size_t outH, size_t outW,
                                             bool trans) {
    std::vector<double> dst(dstC * outH * outW);
    for (size_t o = 0; o < dstC; ++o)
        for (size_t y = 0; y < outH; ++y)
            for (size_t x = 0; x < outW; ++x) {
                double sum = 0;
                for (size_t i = 0; i < srcC; ++i)
                    for (size_t ky = 0; ky < kY; ++ky)
                        for (size_t kx = 0; kx < kX; ++kx)
                            sum += double(weight[((o * srcC + i) * kY + ky) * kX + kx]) *
                                   Pixel(src, srcC, H, W, trans, i,
                                         ptrdiff_t(y + ky) - ptrdiff_t(padY),
                                         ptrdiff_t(x + kx) - ptrdiff_t(padX));
                dst[trans ? (y * outW + x) * dstC + o : (o * outH + y) * outW + x] = sum;
            }
    return dst;
}

}  // namespace ref
