// simdsynet._executor: the executor of simdsynet.onnx as a Python class. `load` hands a network
// file's bytes (written by _onnx_file) to the runtime's loader, the one SimdSynetNetworkLoad
// uses, and returns the executor; run() executes the whole plan in one call without the GIL;
// several threads may run at once (each run has an arena of its own).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <shared_mutex>

#include <pybind11/stl.h>

#include "Common.h"
#include "Loader.h"

namespace simdsynet_executor {

namespace py = pybind11;
using namespace pybind11::literals;
using simdsynet_python::Format;

namespace {

using FloatArray = py::array_t<float, py::array::c_style | py::array::forcecast>;

// The file's bytes, in 64-byte aligned memory: the executor reads its constants in place.
struct FileBytes {
    uint8_t* data = nullptr;
    ~FileBytes() { SimdFree(data); }
};

class PyExecutor {
public:
    FileBytes file;                      // declared first: released after the executor
    std::unique_ptr<Executor> executor;  // from LoadNetwork
    // Runs share it, read() holds it alone: it copies the arena of the last run, which a run
    // starting meanwhile could take from the pool and overwrite.
    std::shared_mutex mutex;
};

std::unique_ptr<PyExecutor> Load(const py::buffer& data) {
    py::buffer_info info = data.request();
    if (info.ndim != 1 || info.itemsize != 1)
        throw py::type_error("load: a network file is a bytes-like object");
    auto self = std::make_unique<PyExecutor>();
    const size_t size = size_t(info.size);
    self->file.data = static_cast<uint8_t*>(SimdAllocate(size ? size : 1, 64));
    if (self->file.data == nullptr) throw std::bad_alloc();
    std::memcpy(self->file.data, info.ptr, size);
    {
        py::gil_scoped_release release;
        self->executor = LoadNetwork(self->file.data, size);
    }
    return self;
}

py::list Run(PyExecutor& self, const py::list& inputs, bool profile) {
    Executor& ex = *self.executor;
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

// (name, shape) per input or output, shapes as the model declares them.
py::list NamesAndShapes(const std::vector<Binding>& bindings) {
    py::list list;
    for (const Binding& b : bindings) list.append(py::make_tuple(b.name, b.shape));
    return list;
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

    m.def("load", &Load, "data"_a,
          "Verifies a network file's bytes and builds its executor (the runtime's loader).");
    py::class_<PyExecutor>(m, "Executor")
        .def("read",
             [](PyExecutor& self, size_t offset, size_t size) {
                 // A copy of `size` floats of the arena from `offset` (as the last run left them).
                 if (!self.executor->Finalized() || offset + size > self.executor->ArenaFloats())
                     throw py::value_error("read: outside the arena");
                 py::array_t<float> a{py::ssize_t(size)};
                 float* to = a.mutable_data();
                 {
                     // Other Python threads go on while this waits for the runs in flight.
                     py::gil_scoped_release release;
                     std::unique_lock<std::shared_mutex> lock(self.mutex);
                     std::copy_n(self.executor->ArenaData() + offset, size, to);
                 }
                 return a;
             })
        .def("guard",
             [](PyExecutor& self, const std::vector<std::pair<size_t, size_t>>& zones) {
                 self.executor->SetGuards(zones);
             })
        .def("inputs", [](PyExecutor& self) { return NamesAndShapes(self.executor->Inputs()); })
        .def("outputs", [](PyExecutor& self) { return NamesAndShapes(self.executor->Outputs()); })
        .def("run", &Run, "inputs"_a, "profile"_a = false)
        .def_property(
            "threads", [](PyExecutor& self) { return self.executor->Threads(); },
            [](PyExecutor& self, size_t n) { self.executor->SetThreads(n); })
        .def_property_readonly("arena_floats",
                               [](PyExecutor& self) { return self.executor->ArenaFloats(); })
        .def_property_readonly("scratch_floats",
                               [](PyExecutor& self) { return self.executor->ScratchFloats(); })
        .def_property_readonly("constant_floats",
                               [](PyExecutor& self) { return self.executor->ConstantFloats(); })
        .def("steps",
             [](PyExecutor& self) {
                 // (name, kind, category, info) per step.
                 py::list steps;
                 for (const auto& s : self.executor->Steps())
                     steps.append(
                         py::make_tuple(s->name, s->kind, CategoryName(s->category), s->Info()));
                 return steps;
             })
        .def("profile",
             [](PyExecutor& self) {
                 // Seconds per step summed over the profiled runs, and the totals.
                 // One snapshot, so the totals and the steps count the same runs.
                 const RunProfile profile = self.executor->Profile();
                 py::list steps, fastest;
                 for (const StepProfile& p : profile.steps) {
                     steps.append(p.seconds);
                     fastest.append(p.fastest);
                 }
                 return py::dict("runs"_a = profile.runs, "steps"_a = steps, "fastest"_a = fastest,
                                 "input"_a = profile.inputSeconds,
                                 "output"_a = profile.outputSeconds,
                                 "total"_a = profile.totalSeconds);
             })
        .def("reset_profile", [](PyExecutor& self) { self.executor->ResetProfile(); });
}
