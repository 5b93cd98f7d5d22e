/*
 * simd-synet: header-only C++ helpers on top of the C interface in SimdSynet.h.
 *
 *  - Simd::Allocator<T>: the default memory policy of images (SimdAllocate / SimdFree).
 *  - Simd::View<A>: a minimal 8-bit image (pixels, size, row pitch, pixel format) that either
 *    owns its memory (allocated through A) or wraps memory owned by the caller.
 *  - Simd::SynetSetInput: SimdSynetSetInput for a View, with the BGR/RGB channel-order switch.
 *  - Simd::ConvolutionActivationParams: how many floats of `params` an activation reads.
 *
 * Needs only SimdSynet.h and the C++ standard library; C++11 or later.
 */
#ifndef SIMD_SYNET_HPP
#define SIMD_SYNET_HPP

#include <cstddef>
#include <cstdint>
#include <new>

#include "SimdSynet.h"

namespace Simd {

/**
 * The default allocator of View: aligned blocks from SimdAllocate, released with SimdFree.
 * A custom allocator is a class template with the same three static functions.
 */
template <class T>
struct Allocator {
    /** Returns `size` bytes aligned to `align` (a power of two), or NULL. */
    static void* Allocate(size_t size, size_t align) { return SimdAllocate(size, align); }
    /** Frees a block returned by Allocate; NULL is a no-op. */
    static void Free(void* ptr) { SimdFree(ptr); }
    /** The alignment (bytes) that suits the instruction set the library runs on. */
    static size_t Alignment() { return SimdAlignment(); }
};

/**
 * A minimal 8-bit image. `data` points at the first pixel of the first row; row y starts at
 * data + y*stride; a pixel takes PixelSize(format) bytes. An image created with a size and a
 * format owns its pixels (allocated through A<uint8_t>, rows padded to the allocator's
 * alignment); an image created from a pointer only refers to them. Copies never own memory:
 * they are views of the same pixels.
 */
template <template <class> class A>
struct View {
    /** Pixel formats; the numeric values equal those of SimdPixelFormatType. */
    enum Format {
        None = 0,
        Gray8 = 1,
        Uv16 = 2,
        Bgr24 = 3,
        Bgra32 = 4,
        Int16 = 5,
        Int32 = 6,
        Int64 = 7,
        Float = 8,
        Double = 9,
        BayerGrbg = 10,
        BayerGbrg = 11,
        BayerRggb = 12,
        BayerBggr = 13,
        Hsv24 = 14,
        Hsl24 = 15,
        Rgb24 = 16,
        Rgba32 = 17
    };

    uint8_t* data; /**< First byte of the first row (NULL for an empty image). */
    size_t width;  /**< Pixels per row. */
    size_t height; /**< Rows. */
    size_t stride; /**< Bytes from the start of one row to the start of the next. */
    Format format; /**< Pixel format. */

    /** An empty image. */
    View() : data(NULL), width(0), height(0), stride(0), format(None), owner_(false) {}

    /** A view of caller-owned pixels (not freed by this object). */
    View(size_t width_, size_t height_, size_t stride_, Format format_, void* data_)
        : data(static_cast<uint8_t*>(data_)),
          width(width_),
          height(height_),
          stride(stride_),
          format(format_),
          owner_(false) {}

    /**
     * An image that owns width_ x height_ pixels of format_, rows aligned to `align` bytes (0:
     * the allocator's alignment). Throws std::bad_alloc when the allocation fails.
     */
    View(size_t width_, size_t height_, Format format_, size_t align = 0)
        : data(NULL), width(0), height(0), stride(0), format(None), owner_(false) {
        Recreate(width_, height_, format_, align);
    }

    /** A non-owning view of the same pixels as `other`. */
    View(const View& other)
        : data(other.data),
          width(other.width),
          height(other.height),
          stride(other.stride),
          format(other.format),
          owner_(false) {}

    /** Makes this a non-owning view of the pixels of `other` (after releasing its own). */
    View& operator=(const View& other) {
        if (this != &other) {
            Clear();
            data = other.data;
            width = other.width;
            height = other.height;
            stride = other.stride;
            format = other.format;
        }
        return *this;
    }

    ~View() { Clear(); }

    /** Releases owned pixels (if any) and allocates a new image as the owning constructor. */
    void Recreate(size_t width_, size_t height_, Format format_, size_t align = 0) {
        Clear();
        if (align == 0) align = A<uint8_t>::Alignment();
        const size_t rowBytes = width_ * PixelSize(format_);
        const size_t stride_ = (rowBytes + align - 1) / align * align;
        if (stride_ * height_ != 0) {
            data = static_cast<uint8_t*>(A<uint8_t>::Allocate(stride_ * height_, align));
            if (data == NULL) throw std::bad_alloc();
            owner_ = true;
        }
        width = width_;
        height = height_;
        stride = stride_;
        format = format_;
    }

    /** Releases owned pixels and leaves an empty image. */
    void Clear() {
        if (owner_) A<uint8_t>::Free(data);
        data = NULL;
        width = height = stride = 0;
        format = None;
        owner_ = false;
    }

    /** Whether this object frees its pixels on destruction. */
    bool Owner() const { return owner_; }

    /** Address of pixel (x, y). */
    uint8_t* At(size_t x, size_t y) const { return data + y * stride + x * PixelSize(format); }

    /** Bytes per pixel of a format (0 for None and unknown values). */
    static size_t PixelSize(Format format_) {
        switch (format_) {
            case Gray8:
                return 1;
            case Uv16:
            case Int16:
                return 2;
            case Bgr24:
            case Hsv24:
            case Hsl24:
            case Rgb24:
                return 3;
            case Bgra32:
            case Int32:
            case Float:
            case Rgba32:
                return 4;
            case Int64:
            case Double:
                return 8;
            case BayerGrbg:
            case BayerGbrg:
            case BayerRggb:
            case BayerBggr:
                return 1;
            default:
                return 0;
        }
    }

private:
    bool owner_;
};

/**
 * Sets an image as the normalised FP32 input of a network: SimdSynetSetInput(src.data,
 * src.width, src.height, src.stride, pixel format of src, lower, upper, dst, channels, format).
 * Output channels are B, G, R; with isRgb the network wants R, G, B, which is obtained by
 * passing a Bgr24 (Bgra32) image as Rgb24 (Rgba32) and vice versa; the pixels are not touched.
 * Supported view formats: Gray8, Bgr24, Bgra32, Rgb24, Rgba32; any other is rejected by
 * SimdSynetSetInput (SimdSynetGetLastError() tells why, dst is not written).
 */
template <template <class> class A>
inline void SynetSetInput(const View<A>& src, const float* lower, const float* upper, float* dst,
                          size_t channels, SimdTensorFormatType format, bool isRgb = false) {
    SimdPixelFormatType pixelFormat = SimdPixelFormatNone;
    switch (src.format) {
        case View<A>::Gray8:
            pixelFormat = SimdPixelFormatGray8;
            break;
        case View<A>::Bgr24:
            pixelFormat = isRgb ? SimdPixelFormatRgb24 : SimdPixelFormatBgr24;
            break;
        case View<A>::Bgra32:
            pixelFormat = isRgb ? SimdPixelFormatRgba32 : SimdPixelFormatBgra32;
            break;
        case View<A>::Rgb24:
            pixelFormat = isRgb ? SimdPixelFormatBgr24 : SimdPixelFormatRgb24;
            break;
        case View<A>::Rgba32:
            pixelFormat = isRgb ? SimdPixelFormatBgra32 : SimdPixelFormatRgba32;
            break;
        default:
            break;  // SimdPixelFormatNone: rejected by SimdSynetSetInput
    }
    SimdSynetSetInput(src.data, src.width, src.height, src.stride, pixelFormat, lower, upper, dst,
                      channels, format);
}

/**
 * The number of floats the convolution frameworks read from the `params` of SetParams for
 * `activation` (SimdConvolutionActivationType) and `dstC` output channels: dstC for Prelu, 1 or
 * 2 for the activations with scalar parameters, 0 for the others (params may then be NULL).
 */
inline size_t ConvolutionActivationParams(SimdConvolutionActivationType activation, size_t dstC) {
    switch (activation) {
        case SimdConvolutionActivationLeakyRelu:
        case SimdConvolutionActivationElu:
        case SimdConvolutionActivationMish:
        case SimdConvolutionActivationSwish:
            return 1;
        case SimdConvolutionActivationRestrictRange:
        case SimdConvolutionActivationHswish:
        case SimdConvolutionActivationHardSigmoid:
            return 2;
        case SimdConvolutionActivationPrelu:
            return dstC;
        default:
            return 0;
    }
}

}  // namespace Simd

#endif  // SIMD_SYNET_HPP
