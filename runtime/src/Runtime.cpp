// The C API of the network runtime (SimdSynetRuntime.h): a network is the executor of a loaded
// file and the memory its constants are read from (a mapping of the file, or a copy of the
// caller's buffer). Errors become the library's per-thread message; no exception leaves here.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "Loader.h"
#include "SimdSynetRuntime.h"

using namespace simdsynet_executor;

namespace {

// Bytes the network's constants are read from; released after the executor.
class Storage {
public:
    virtual ~Storage() = default;
    virtual const uint8_t* Data() const = 0;
    virtual size_t Size() const = 0;
};

class MappedFile : public Storage {
public:
    explicit MappedFile(const char* path) {
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) throw ExecutorError(std::string("cannot open: ") + strerror(errno));
        struct stat st;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            close(fd);
            throw ExecutorError("not a regular file");
        }
        size_ = size_t(st.st_size);
        if (size_ != 0) {
            void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (p == MAP_FAILED) {
                const int error = errno;
                close(fd);
                throw ExecutorError(std::string("cannot map: ") + strerror(error));
            }
            data_ = static_cast<const uint8_t*>(p);
        }
        close(fd);
    }
    ~MappedFile() override {
        if (data_ != nullptr) munmap(const_cast<uint8_t*>(data_), size_);
    }
    const uint8_t* Data() const override { return data_; }
    size_t Size() const override { return size_; }

private:
    const uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

// A copy in 64-byte aligned memory, so that constants are read in place as from a mapping.
class CopiedBuffer : public Storage {
public:
    CopiedBuffer(const void* data, size_t size) : size_(size) {
        data_ = static_cast<uint8_t*>(SimdAllocate(size ? size : 1, 64));
        if (data_ == nullptr) throw std::bad_alloc();
        std::memcpy(data_, data, size);
    }
    ~CopiedBuffer() override { SimdFree(data_); }
    const uint8_t* Data() const override { return data_; }
    size_t Size() const override { return size_; }

private:
    uint8_t* data_;
    size_t size_;
};

void Fail(const std::string& message) {
    SimdSynetSetLastError(message.c_str());
}

}  // namespace

struct SimdSynetNetwork {
    std::unique_ptr<Storage> storage;
    std::unique_ptr<Executor> executor;  // declared after: released first
    std::vector<std::string> kinds;      // step kinds and infos kept for StepDescribe
    std::vector<std::string> infos;
};

namespace {

SimdSynetNetwork* Load(std::unique_ptr<Storage> storage, const SimdSynetNetworkOptions* options) {
    auto network = std::make_unique<SimdSynetNetwork>();
    network->executor = LoadNetwork(storage->Data(), storage->Size());
    network->storage = std::move(storage);
    network->executor->SetThreads(options ? options->threads : 1);
    for (const auto& step : network->executor->Steps()) {
        network->kinds.push_back(step->kind);
        network->infos.push_back(step->Info());
    }
    SimdSynetSetLastError(nullptr);
    return network.release();
}

// Runs `body` and turns an exception into the error slot; `failed` is what the call returns.
template <class Body, class Result>
Result Guarded(Body&& body, Result failed) {
    try {
        return body();
    } catch (const std::bad_alloc&) {
        Fail("simd-synet runtime: out of memory");
    } catch (const std::exception& e) {
        Fail(std::string("simd-synet runtime: ") + e.what());
    } catch (...) {
        Fail("simd-synet runtime: unknown error");
    }
    return failed;
}

bool CheckNetwork(const SimdSynetNetwork* network, const char* function) {
    if (network != nullptr) return true;
    Fail(std::string(function) + ": network is NULL");
    return false;
}

const Binding* Tensor(const SimdSynetNetwork* network, size_t index, bool output,
                      const char* function) {
    if (!CheckNetwork(network, function)) return nullptr;
    const auto& list = output ? network->executor->Outputs() : network->executor->Inputs();
    if (index >= list.size()) {
        Fail(std::string(function) + ": index " + std::to_string(index) + " of " +
             std::to_string(list.size()));
        return nullptr;
    }
    SimdSynetSetLastError(nullptr);
    return &list[index];
}

size_t Shape(const SimdSynetNetwork* network, size_t index, const size_t** shape, bool output,
             const char* function) {
    if (shape == nullptr) {
        Fail(std::string(function) + ": shape is NULL");
        return 0;
    }
    const Binding* b = Tensor(network, index, output, function);
    if (b == nullptr) return 0;
    *shape = b->shape.data();
    return b->shape.size();
}

SimdBool Run(SimdSynetNetwork* network, const float* const* inputs, float* const* outputs,
             double* seconds, const char* function) {
    if (!CheckNetwork(network, function)) return SimdFalse;
    Executor& ex = *network->executor;
    if ((inputs == nullptr && !ex.Inputs().empty()) ||
        (outputs == nullptr && !ex.Outputs().empty())) {
        Fail(std::string(function) + ": inputs or outputs is NULL");
        return SimdFalse;
    }
    std::vector<const float*> in(ex.Inputs().size());
    std::vector<float*> out(ex.Outputs().size());
    for (size_t i = 0; i < in.size(); ++i)
        if ((in[i] = inputs[i]) == nullptr) {
            Fail(std::string(function) + ": input " + std::to_string(i) + " is NULL");
            return SimdFalse;
        }
    for (size_t i = 0; i < out.size(); ++i)
        if ((out[i] = outputs[i]) == nullptr) {
            Fail(std::string(function) + ": output " + std::to_string(i) + " is NULL");
            return SimdFalse;
        }
    return Guarded(
        [&] {
            ex.Run(in, out, false, seconds);
            SimdSynetSetLastError(nullptr);
            return SimdTrue;
        },
        SimdFalse);
}

}  // namespace

SIMD_RUNTIME_API SimdSynetNetwork* SimdSynetNetworkLoad(const char* path,
                                                        const SimdSynetNetworkOptions* options) {
    if (path == nullptr) {
        Fail("SimdSynetNetworkLoad: path is NULL");
        return nullptr;
    }
    return Guarded(
        [&] {
            try {
                return Load(std::make_unique<MappedFile>(path), options);
            } catch (const ExecutorError& e) {
                throw ExecutorError(std::string(path) + ": " + e.what());
            }
        },
        static_cast<SimdSynetNetwork*>(nullptr));
}

SIMD_RUNTIME_API SimdSynetNetwork* SimdSynetNetworkLoadMemory(
    const void* data, size_t size, const SimdSynetNetworkOptions* options) {
    if (data == nullptr) {
        Fail("SimdSynetNetworkLoadMemory: data is NULL");
        return nullptr;
    }
    return Guarded([&] { return Load(std::make_unique<CopiedBuffer>(data, size), options); },
                   static_cast<SimdSynetNetwork*>(nullptr));
}

SIMD_RUNTIME_API void SimdSynetNetworkRelease(SimdSynetNetwork* network) {
    delete network;
    SimdSynetSetLastError(nullptr);
}

SIMD_RUNTIME_API size_t SimdSynetNetworkInputCount(const SimdSynetNetwork* network) {
    if (!CheckNetwork(network, "SimdSynetNetworkInputCount")) return 0;
    SimdSynetSetLastError(nullptr);
    return network->executor->Inputs().size();
}

SIMD_RUNTIME_API size_t SimdSynetNetworkOutputCount(const SimdSynetNetwork* network) {
    if (!CheckNetwork(network, "SimdSynetNetworkOutputCount")) return 0;
    SimdSynetSetLastError(nullptr);
    return network->executor->Outputs().size();
}

SIMD_RUNTIME_API const char* SimdSynetNetworkInputName(const SimdSynetNetwork* network,
                                                       size_t index) {
    const Binding* b = Tensor(network, index, false, "SimdSynetNetworkInputName");
    return b ? b->name.c_str() : nullptr;
}

SIMD_RUNTIME_API const char* SimdSynetNetworkOutputName(const SimdSynetNetwork* network,
                                                        size_t index) {
    const Binding* b = Tensor(network, index, true, "SimdSynetNetworkOutputName");
    return b ? b->name.c_str() : nullptr;
}

SIMD_RUNTIME_API size_t SimdSynetNetworkInputShape(const SimdSynetNetwork* network, size_t index,
                                                   const size_t** shape) {
    return Shape(network, index, shape, false, "SimdSynetNetworkInputShape");
}

SIMD_RUNTIME_API size_t SimdSynetNetworkOutputShape(const SimdSynetNetwork* network, size_t index,
                                                    const size_t** shape) {
    return Shape(network, index, shape, true, "SimdSynetNetworkOutputShape");
}

SIMD_RUNTIME_API SimdBool SimdSynetNetworkSetThreads(SimdSynetNetwork* network, size_t threads) {
    if (!CheckNetwork(network, "SimdSynetNetworkSetThreads")) return SimdFalse;
    network->executor->SetThreads(threads);
    SimdSynetSetLastError(nullptr);
    return SimdTrue;
}

SIMD_RUNTIME_API size_t SimdSynetNetworkGetThreads(const SimdSynetNetwork* network) {
    if (!CheckNetwork(network, "SimdSynetNetworkGetThreads")) return 0;
    SimdSynetSetLastError(nullptr);
    return network->executor->Threads();
}

SIMD_RUNTIME_API SimdBool SimdSynetNetworkRun(SimdSynetNetwork* network, const float* const* inputs,
                                              float* const* outputs) {
    return Run(network, inputs, outputs, nullptr, "SimdSynetNetworkRun");
}

SIMD_RUNTIME_API size_t SimdSynetNetworkStepCount(const SimdSynetNetwork* network) {
    if (!CheckNetwork(network, "SimdSynetNetworkStepCount")) return 0;
    SimdSynetSetLastError(nullptr);
    return network->executor->Steps().size();
}

SIMD_RUNTIME_API SimdBool SimdSynetNetworkStepDescribe(const SimdSynetNetwork* network,
                                                       size_t index, const char** name,
                                                       const char** kind, const char** info) {
    if (!CheckNetwork(network, "SimdSynetNetworkStepDescribe")) return SimdFalse;
    const auto& steps = network->executor->Steps();
    if (index >= steps.size()) {
        Fail("SimdSynetNetworkStepDescribe: index " + std::to_string(index) + " of " +
             std::to_string(steps.size()));
        return SimdFalse;
    }
    if (name) *name = steps[index]->name.c_str();
    if (kind) *kind = network->kinds[index].c_str();
    if (info) *info = network->infos[index].c_str();
    SimdSynetSetLastError(nullptr);
    return SimdTrue;
}

SIMD_RUNTIME_API SimdBool SimdSynetNetworkRunProfiled(SimdSynetNetwork* network,
                                                      const float* const* inputs,
                                                      float* const* outputs, double* seconds) {
    if (seconds == nullptr) {
        Fail("SimdSynetNetworkRunProfiled: seconds is NULL");
        return SimdFalse;
    }
    return Run(network, inputs, outputs, seconds, "SimdSynetNetworkRunProfiled");
}
