// simdsynet._executor: the plan executor of simdsynet.onnx as a Python class. The loader adds
// the steps one by one (each method below is one step kind; array references are ints, the
// offset in floats of a tensor in the arena, numpy arrays, constants the executor copies, or
// None), then finalize() allocates the arena, and run() executes the whole plan in one call
// without the GIL; several threads may run at once (each run has an arena of its own).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <shared_mutex>

#include <pybind11/stl.h>

#include "Common.h"
#include "Steps.h"

namespace simdsynet_executor {

namespace py = pybind11;
using namespace pybind11::literals;
using simdsynet_python::Format;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

class PyExecutor {
public:
    Executor executor;
    // Runs share it, read() holds it alone: it copies the arena of the last run, which a run
    // starting meanwhile could take from the pool and overwrite.
    std::shared_mutex mutex;
    std::vector<py::object> borrowed;  // constants referred to, not copied

    // An array reference: an arena offset, a constant array, or None. A read-only float32
    // array aligned to 64 bytes (simdsynet.empty, made read-only by the loader) is kept
    // alive and referred to; anything else is copied into aligned storage.
    Ref ToRef(py::handle value) {
        if (value.is_none()) return Ref();
        if (py::isinstance<py::int_>(value)) return Ref::InArena(value.cast<size_t>());
        FloatArray a = FloatArray::ensure(value);
        if (!a) throw py::type_error("an array reference is an int, a float32 array or None");
        const bool aligned = reinterpret_cast<uintptr_t>(a.data()) % 64 == 0;
        if (aligned && !a.writeable() && a.ptr() == value.ptr()) {
            borrowed.push_back(py::reinterpret_borrow<py::object>(value));
            return executor.AddConstant(a.data(), size_t(a.size()), true);
        }
        return executor.AddConstant(a.data(), size_t(a.size()));
    }

    void Add(StepPtr step) { executor.AddStep(std::move(step)); }
};

// A float array's data, or NULL for None (kept alive by `keep`).
const float* Data(py::handle value, std::vector<FloatArray>& keep) {
    if (value.is_none()) return nullptr;
    keep.push_back(FloatArray::ensure(value));
    if (!keep.back()) throw py::type_error("expected a float32 array");
    return keep.back().data();
}

std::vector<size_t> Sizes(py::handle value) {
    return value.cast<std::vector<size_t>>();
}

LinearTaps Taps(py::handle value) {
    auto t = value.cast<py::sequence>();
    if (t.size() != 4) throw py::value_error("linear taps are 4 sequences");
    LinearTaps taps{Sizes(t[0]), Sizes(t[1]), t[2].cast<std::vector<float>>(),
                    t[3].cast<std::vector<float>>()};
    const size_t n = taps.first.size();
    if (taps.second.size() != n || taps.firstWeight.size() != n || taps.secondWeight.size() != n)
        throw py::value_error("linear taps of different lengths");
    return taps;
}

// Convolution weights given in ONNX's OIYX order (O x C/group x kY x kX), in the layout the
// context of `p` reads: OIYX itself for NCHW, YXIO (SimdSynetConvertFilter) for NHWC.
const float* ConvolutionWeights(py::handle value, const SimdConvolutionParameters& p,
                                std::vector<FloatArray>& keep, std::vector<float>& converted) {
    const float* oiyx = Data(value, keep);
    if (p.srcF != SimdTensorFormatNhwc) return oiyx;
    const size_t kernel = p.kernelY * p.kernelX, input = p.srcC / p.group;
    if (size_t(keep.back().size()) != p.dstC * input * kernel)
        throw py::value_error("the weights do not fit the convolution");
    converted.resize(p.dstC * input * kernel);
    SimdSynetConvertFilter(p.dstC, input, kernel, oiyx, SimdTensorFormatOiyx, converted.data(),
                           SimdTensorFormatYxio);
    CheckLibrary("weights");
    return converted.data();
}

SimdTensorFormatType ToFormat(const std::string& format) {
    if (format == "nchw") return SimdTensorFormatNchw;
    if (format == "nhwc") return SimdTensorFormatNhwc;
    throw py::value_error("format must be nchw or nhwc, not " + format);
}

SimdTensorDataType ToDataType(const std::string& type) {
    if (type == "float32") return SimdTensorData32f;
    if (type == "uint8") return SimdTensorData8u;
    throw py::value_error("a tensor type is float32 or uint8, not " + type);
}

// A layer description: the keys of SimdConvolutionParameters in snake case; kernel, stride,
// dilation as (y, x), pad as (top, left, bottom, right), activation an int, format "nchw" or
// "nhwc"; src_type and dst_type "float32" (the default) or "uint8".
SimdConvolutionParameters Describe(const py::dict& d) {
    SimdConvolutionParameters p{};
    auto get = [&](const char* key) { return d[key].cast<size_t>(); };
    auto pair = [&](const char* key) { return d[key].cast<std::pair<size_t, size_t>>(); };
    p.srcC = get("src_c");
    p.srcH = get("src_h");
    p.srcW = get("src_w");
    p.dstC = get("dst_c");
    p.dstH = get("dst_h");
    p.dstW = get("dst_w");
    std::tie(p.kernelY, p.kernelX) = pair("kernel");
    std::tie(p.strideY, p.strideX) = pair("stride");
    std::tie(p.dilationY, p.dilationX) = pair("dilation");
    auto pad = d["pad"].cast<std::vector<size_t>>();
    if (pad.size() != 4) throw py::value_error("pad needs 4 values");
    p.padY = pad[0];
    p.padX = pad[1];
    p.padH = pad[2];
    p.padW = pad[3];
    p.group = get("group");
    p.activation = SimdConvolutionActivationType(d["activation"].cast<int>());
    p.srcT =
        d.contains("src_type") ? ToDataType(d["src_type"].cast<std::string>()) : SimdTensorData32f;
    p.dstT =
        d.contains("dst_type") ? ToDataType(d["dst_type"].cast<std::string>()) : SimdTensorData32f;
    p.srcF = p.dstF = ToFormat(d["format"].cast<std::string>());
    return p;
}

Binding MakeBinding(PyExecutor& self, const std::string& name, py::handle shape, py::handle perm,
                    size_t offset) {
    Binding b;
    b.name = name;
    b.shape = Sizes(shape);
    b.perm = Sizes(perm);
    if (b.perm.size() != b.shape.size()) throw py::value_error("perm and shape differ in rank");
    b.ref = Ref::InArena(offset);
    (void)self;
    return b;
}

py::list Run(PyExecutor& self, const py::list& inputs, bool profile) {
    Executor& ex = self.executor;
    if (py::len(inputs) != ex.Inputs().size())
        throw py::value_error(Format("the network has %zu inputs, %zu given", ex.Inputs().size(),
                                     size_t(py::len(inputs))));
    std::vector<FloatArray> keep;
    std::vector<const float*> in;
    for (size_t i = 0; i < ex.Inputs().size(); ++i) {
        const Binding& b = ex.Inputs()[i];
        FloatArray a = FloatArray::ensure(inputs[i]);
        if (!a) throw py::type_error(Format("input '%s' must be a float32 array", b.name.c_str()));
        std::vector<size_t> shape(a.shape(), a.shape() + a.ndim());
        if (shape != b.shape) {
            std::string want, got;
            for (size_t e : b.shape) want += (want.empty() ? "" : ", ") + std::to_string(e);
            for (size_t e : shape) got += (got.empty() ? "" : ", ") + std::to_string(e);
            throw py::value_error(Format("input '%s' must have shape (%s), not (%s)",
                                         b.name.c_str(), want.c_str(), got.c_str()));
        }
        keep.push_back(a);
        in.push_back(a.data());
    }
    py::list result;
    std::vector<float*> out;
    for (const Binding& b : ex.Outputs()) {
        py::array_t<float> a(std::vector<py::ssize_t>(b.shape.begin(), b.shape.end()));
        out.push_back(a.mutable_data());
        result.append(a);
    }
    {
        py::gil_scoped_release release;
        std::shared_lock<std::shared_mutex> lock(self.mutex);
        ex.Run(in, out, profile);
    }
    return result;
}

const char* CategoryName(Category c) {
    switch (c) {
        case Category::Kernel:
            return "kernel";
        case Category::Layout:
            return "layout";
        default:
            return "glue";
    }
}

}  // namespace

}  // namespace simdsynet_executor

PYBIND11_MODULE(_executor, m) {
    using namespace simdsynet_executor;
    simdsynet_python::InitCommon(m, false);
    m.doc() = "The plan executor of simdsynet.onnx (internal: use simdsynet.onnx.load).";
    static PyObject* error =
        py::object(py::module_::import("simdsynet._simdsynet").attr("Error")).release().ptr();
    py::register_local_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const ExecutorError& e) {
            PyErr_SetString(error, e.what());
        }
    });

    py::class_<PyExecutor>(m, "Executor")
        .def(py::init<>())
        .def("convolution",
             [](PyExecutor& self, const std::string& name, size_t batch, const py::dict& desc,
                py::handle weight, py::handle bias, py::handle params, py::handle src,
                py::handle dst) {
                 std::vector<FloatArray> keep;
                 std::vector<float> converted;
                 SimdConvolutionParameters p = Describe(desc);
                 const float* w = ConvolutionWeights(weight, p, keep, converted);
                 self.Add(MakeConvolution(name, batch, p, w, Data(bias, keep), Data(params, keep),
                                          self.ToRef(src), self.ToRef(dst)));
             })
        .def("convolution8i",
             [](PyExecutor& self, const std::string& name, size_t batch, const py::dict& desc,
                py::handle weight, py::handle bias, py::handle params, const py::list& stats,
                int compatibility, py::handle src, py::handle dst) {
                 std::vector<FloatArray> keep;
                 std::vector<float> converted;
                 SimdConvolutionParameters p = Describe(desc);
                 const float* w = ConvolutionWeights(weight, p, keep, converted);
                 if (py::len(stats) != 4) throw py::value_error("stats needs 4 arrays");
                 const float* s[4];
                 for (size_t i = 0; i < 4; ++i) s[i] = Data(stats[i], keep);
                 self.Add(MakeConvolution8i(name, batch, p, w, Data(bias, keep), Data(params, keep),
                                            s, SimdSynetCompatibilityType(compatibility),
                                            self.ToRef(src), self.ToRef(dst)));
             })
        .def("merged_convolution",
             [](PyExecutor& self, const std::string& name, size_t batch, const py::list& descs,
                const py::list& weights, const py::list& biases, const py::list& params, bool add,
                py::handle src, py::handle dst) {
                 std::vector<FloatArray> keep;
                 std::vector<SimdConvolutionParameters> p;
                 std::vector<const float*> w, b, a;
                 std::vector<std::vector<float>> converted(py::len(descs));
                 for (size_t i = 0; i < py::len(descs); ++i) {
                     p.push_back(Describe(descs[i].cast<py::dict>()));
                     w.push_back(ConvolutionWeights(weights[i], p.back(), keep, converted[i]));
                     b.push_back(Data(biases[i], keep));
                     a.push_back(Data(params[i], keep));
                 }
                 self.Add(MakeMergedConvolution(name, batch, p, w, b, a, add, self.ToRef(src),
                                                self.ToRef(dst)));
             })
        .def("deconvolution",
             [](PyExecutor& self, const std::string& name, size_t batch, const py::dict& desc,
                py::handle weight, py::handle bias, py::handle params, py::handle src,
                py::handle dst) {
                 std::vector<FloatArray> keep;
                 self.Add(MakeDeconvolution(name, batch, Describe(desc), Data(weight, keep),
                                            Data(bias, keep), Data(params, keep), self.ToRef(src),
                                            self.ToRef(dst)));
             })
        .def("pooling",
             [](PyExecutor& self, const std::string& name, const std::string& kind,
                py::handle shape, py::handle src, py::handle dst) {
                 auto s = Sizes(shape);
                 if (s.size() != 12) throw py::value_error("pooling shape needs 12 values");
                 PoolingShape p{s[0], s[1], s[2], s[3], s[4],  s[5],
                                s[6], s[7], s[8], s[9], s[10], s[11]};
                 PoolingKind k = kind == "max"       ? PoolingKind::Max
                                 : kind == "average" ? PoolingKind::Average
                                                     : PoolingKind::AverageExcludePad;
                 self.Add(MakePooling(name, k, p, self.ToRef(src), self.ToRef(dst)));
             })
        .def("dilated_max_pooling",
             [](PyExecutor& self, const std::string& name, py::handle shape, py::handle dilations,
                py::handle src, py::handle dst) {
                 auto s = Sizes(shape);
                 auto d = Sizes(dilations);
                 if (s.size() != 12 || d.size() != 2)
                     throw py::value_error("pooling shape needs 12 values, dilations 2");
                 PoolingShape p{s[0], s[1], s[2], s[3], s[4],  s[5],
                                s[6], s[7], s[8], s[9], s[10], s[11]};
                 self.Add(
                     MakeDilatedMaxPooling(name, p, d[0], d[1], self.ToRef(src), self.ToRef(dst)));
             })
        .def("scale",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle scale,
                py::handle bias, size_t channels, size_t spatial, size_t images, size_t scaleStride,
                size_t biasStride, const std::string& format, bool relu, py::handle dst) {
                 ScaleShape shape{channels,   spatial,          images, scaleStride,
                                  biasStride, ToFormat(format), relu};
                 self.Add(MakeScale(name, self.ToRef(src), self.ToRef(scale), self.ToRef(bias),
                                    shape, self.ToRef(dst)));
             })
        .def("concat_scale_relu",
             [](PyExecutor& self, const std::string& name, py::handle src0, size_t channels0,
                py::handle src1, size_t channels1, size_t spatial, py::handle scale,
                py::handle bias, py::handle dst0, py::handle dst1) {
                 self.Add(MakeConcatScaleRelu(
                     name, self.ToRef(src0), channels0, self.ToRef(src1), channels1, spatial,
                     self.ToRef(scale), self.ToRef(bias), self.ToRef(dst0), self.ToRef(dst1)));
             })
        .def("eltwise",
             [](PyExecutor& self, const std::string& name, int type, const py::list& sources,
                const std::vector<float>& weights, size_t size, py::handle dst,
                const std::string& activation, const std::vector<float>& params) {
                 std::vector<Ref> refs;
                 for (py::handle s : sources) refs.push_back(self.ToRef(s));
                 std::optional<Activation> kind;
                 if (!activation.empty()) kind = ActivationNamed(activation);
                 self.Add(MakeEltwise(name, SimdSynetEltwiseOperationType(type), refs, weights,
                                      size, self.ToRef(dst), kind, params));
             })
        .def("activation",
             [](PyExecutor& self, const std::string& name, const std::string& kind,
                const std::vector<float>& params, py::handle src, size_t size, py::handle dst) {
                 self.Add(MakeActivation(name, ActivationNamed(kind), params, self.ToRef(src), size,
                                         self.ToRef(dst)));
             })
        .def("prelu",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle slope,
                size_t channels, size_t spatial, size_t images, const std::string& format,
                py::handle dst) {
                 self.Add(MakePrelu(name, self.ToRef(src), self.ToRef(slope), channels, spatial,
                                    images, ToFormat(format), self.ToRef(dst)));
             })
        .def("softmax",
             [](PyExecutor& self, const std::string& name, py::handle src, size_t outer,
                size_t count, size_t inner, py::handle dst) {
                 self.Add(MakeSoftmax(name, self.ToRef(src), outer, count, inner, self.ToRef(dst)));
             })
        .def("log_softmax",
             [](PyExecutor& self, const std::string& name, py::handle src, size_t outer,
                size_t count, size_t inner, py::handle dst) {
                 self.Add(
                     MakeLogSoftmax(name, self.ToRef(src), outer, count, inner, self.ToRef(dst)));
             })
        .def("reduce",
             [](PyExecutor& self, const std::string& name, const std::string& kind, py::handle src,
                py::handle shape, py::handle reduced, py::handle dst) {
                 static const std::pair<const char*, Reduction> kinds[] = {
                     {"sum", Reduction::Sum},   {"mean", Reduction::Mean},
                     {"max", Reduction::Max},   {"min", Reduction::Min},
                     {"prod", Reduction::Prod}, {"sum_square", Reduction::SumSquare},
                     {"l1", Reduction::L1},     {"l2", Reduction::L2}};
                 for (const auto& [n, k] : kinds)
                     if (kind == n) {
                         self.Add(MakeReduce(name, k, self.ToRef(src), Sizes(shape),
                                             reduced.cast<std::vector<bool>>(), self.ToRef(dst)));
                         return;
                     }
                 throw py::value_error("unknown reduction " + kind);
             })
        .def("tile",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle srcShape,
                py::handle dstShape, py::handle dst) {
                 self.Add(MakeTile(name, self.ToRef(src), Sizes(srcShape), Sizes(dstShape),
                                   self.ToRef(dst)));
             })
        .def("lrn",
             [](PyExecutor& self, const std::string& name, py::handle src, size_t half,
                size_t channels, size_t spatial, const std::vector<float>& k, py::handle dst) {
                 self.Add(
                     MakeLrn(name, self.ToRef(src), half, channels, spatial, k, self.ToRef(dst)));
             })
        .def("normalize",
             [](PyExecutor& self, const std::string& name, int version, py::handle src,
                size_t batch, size_t channels, size_t spatial, py::handle scale, py::handle shift,
                float eps, const std::string& format, py::handle dst) {
                 self.Add(MakeNormalize(name, version, self.ToRef(src), batch, channels, spatial,
                                        self.ToRef(scale), self.ToRef(shift), eps, ToFormat(format),
                                        self.ToRef(dst)));
             })
        .def("inner_product",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle weight,
                py::handle bias, size_t rows, size_t count, size_t size, py::handle dst) {
                 self.Add(MakeInnerProduct(name, self.ToRef(src), self.ToRef(weight),
                                           self.ToRef(bias), rows, count, size, self.ToRef(dst)));
             })
        .def("matmul",
             [](PyExecutor& self, const std::string& name, py::handle a, py::handle b, size_t batch,
                size_t m, size_t n, size_t k, size_t strideA, size_t strideB, py::handle dst) {
                 self.Add(MakeMatMul(name, self.ToRef(a), self.ToRef(b),
                                     MatMulShape{batch, m, n, k, strideA, strideB},
                                     self.ToRef(dst)));
             })
        .def("shuffle",
             [](PyExecutor& self, const std::string& name, py::handle src0, size_t channels0,
                py::handle src1, size_t channels1, size_t spatial, py::handle dst0,
                py::handle dst1) {
                 self.Add(MakeShuffle(name, self.ToRef(src0), channels0, self.ToRef(src1),
                                      channels1, spatial, self.ToRef(dst0), self.ToRef(dst1)));
             })
        .def("convert_image",
             [](PyExecutor& self, const std::string& name, py::handle src, size_t batch,
                size_t channels, size_t spatial, bool toNhwc, py::handle dst) {
                 self.Add(MakeConvertImage(name, self.ToRef(src), batch, channels, spatial, toNhwc,
                                           self.ToRef(dst)));
             })
        .def("copy",
             [](PyExecutor& self, const std::string& name, const py::list& regions) {
                 // Each region: (src, dst, rows, length, src_stride, dst_stride).
                 std::vector<CopyRegion> r;
                 for (py::handle item : regions) {
                     auto t = item.cast<py::tuple>();
                     r.push_back({self.ToRef(t[0]), self.ToRef(t[1]), t[2].cast<size_t>(),
                                  t[3].cast<size_t>(), t[4].cast<size_t>(), t[5].cast<size_t>()});
                 }
                 self.Add(MakeCopy(name, r));
             })
        .def("transpose",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle shape,
                py::handle perm, py::handle dst) {
                 self.Add(MakeTranspose(name, self.ToRef(src), Sizes(shape), Sizes(perm),
                                        self.ToRef(dst)));
             })
        .def("pad",
             [](PyExecutor& self, const std::string& name, py::handle src, py::handle shape,
                py::handle before, py::handle after, int mode, float value, py::handle dst) {
                 self.Add(MakePad(name, self.ToRef(src), Sizes(shape), Sizes(before), Sizes(after),
                                  mode, value, self.ToRef(dst)));
             })
        .def(
            "resize_nearest",
            [](PyExecutor& self, const std::string& name, py::handle src, size_t batch, size_t srcH,
               size_t srcW, size_t channels, py::handle rows, py::handle cols, py::handle dst) {
                self.Add(MakeResizeNearest(name, self.ToRef(src), batch, srcH, srcW, channels,
                                           Sizes(rows), Sizes(cols), self.ToRef(dst)));
            })
        .def(
            "resize_linear",
            [](PyExecutor& self, const std::string& name, py::handle src, size_t batch, size_t srcH,
               size_t srcW, size_t channels, py::handle rows, py::handle cols, py::handle dst) {
                // rows, cols: (first indices, second indices, first weights, second weights).
                self.Add(MakeResizeLinear(name, self.ToRef(src), batch, srcH, srcW, channels,
                                          Taps(rows), Taps(cols), self.ToRef(dst)));
            })
        .def("input",
             [](PyExecutor& self, const std::string& name, py::handle shape, py::handle perm,
                size_t offset) {
                 self.executor.AddInput(MakeBinding(self, name, shape, perm, offset));
             })
        .def("output",
             [](PyExecutor& self, const std::string& name, py::handle shape, py::handle perm,
                size_t offset) {
                 self.executor.AddOutput(MakeBinding(self, name, shape, perm, offset));
             })
        .def("read",
             [](PyExecutor& self, size_t offset, size_t size) {
                 // A copy of `size` floats of the arena from `offset` (as the last run left them).
                 if (!self.executor.Finalized() || offset + size > self.executor.ArenaFloats())
                     throw py::value_error("read: outside the arena");
                 py::array_t<float> a{py::ssize_t(size)};
                 float* to = a.mutable_data();
                 {
                     // Other Python threads go on while this waits for the runs in flight.
                     py::gil_scoped_release release;
                     std::unique_lock<std::shared_mutex> lock(self.mutex);
                     std::copy_n(self.executor.ArenaData() + offset, size, to);
                 }
                 return a;
             })
        .def("finalize", [](PyExecutor& self, size_t arena) { self.executor.Finalize(arena); })
        .def("guard",
             [](PyExecutor& self, const std::vector<std::pair<size_t, size_t>>& zones) {
                 self.executor.SetGuards(zones);
             })
        .def("run", &Run, "inputs"_a, "profile"_a = false)
        .def_property(
            "threads", [](PyExecutor& self) { return self.executor.Threads(); },
            [](PyExecutor& self, size_t n) { self.executor.SetThreads(n); })
        .def_property_readonly("arena_floats",
                               [](PyExecutor& self) { return self.executor.ArenaFloats(); })
        .def_property_readonly("scratch_floats",
                               [](PyExecutor& self) { return self.executor.ScratchFloats(); })
        .def_property_readonly("constant_floats",
                               [](PyExecutor& self) { return self.executor.ConstantFloats(); })
        .def("steps",
             [](PyExecutor& self) {
                 // (name, kind, category, info) per step.
                 py::list steps;
                 for (const auto& s : self.executor.Steps())
                     steps.append(
                         py::make_tuple(s->name, s->kind, CategoryName(s->category), s->Info()));
                 return steps;
             })
        .def("profile",
             [](PyExecutor& self) {
                 // Seconds per step summed over the profiled runs, and the totals.
                 const Executor& ex = self.executor;
                 py::list steps, fastest;
                 for (const StepProfile& p : ex.Profile()) {
                     steps.append(p.seconds);
                     fastest.append(p.fastest);
                 }
                 return py::dict("runs"_a = ex.ProfiledRuns(), "steps"_a = steps,
                                 "fastest"_a = fastest, "input"_a = ex.InputSeconds(),
                                 "output"_a = ex.OutputSeconds(), "total"_a = ex.TotalSeconds());
             })
        .def("reset_profile", [](PyExecutor& self) { self.executor.ResetProfile(); });
}
