/*
 * simd-synet network runtime: header-only C++ helpers on top of the C interface in
 * SimdSynetRuntime.h.
 *
 *  - Simd::Network: owns a loaded network (released with the object), gives its inputs' and
 *    outputs' names and shapes, runs it from vectors of pointers or of values.
 *
 * Errors: no exceptions. A function that fails returns false (or an empty value) and keeps the
 * library's message, readable with Simd::Network::LastError(). The message is kept per thread,
 * as the C API keeps it, because several threads may run one network at once.
 *
 * Needs only SimdSynetRuntime.h and the C++ standard library; C++11 or later.
 */
#ifndef SIMD_SYNET_RUNTIME_HPP
#define SIMD_SYNET_RUNTIME_HPP

#include <cstddef>
#include <string>
#include <vector>

#include "SimdSynetRuntime.h"

namespace Simd {

/** A loaded network file (.ssn). Movable, not copyable. */
class Network {
public:
    /** What SimdSynetNetworkStepDescribe says of a step. */
    struct Step {
        std::string name; /**< the ONNX node(s) the step runs */
        std::string kind; /**< such as "convolution" or "copy" */
        std::string info; /**< the library's algorithm where a context chose one, else "" */
    };

    /** An empty network: Load or LoadMemory gives it one. */
    Network() : network_(NULL) {}
    ~Network() { Clear(); }
    Network(Network&& other) : network_(other.network_) { other.network_ = NULL; }
    Network& operator=(Network&& other) {
        if (this != &other) {
            Clear();
            network_ = other.network_;
            other.network_ = NULL;
        }
        return *this;
    }
    Network(const Network&) = delete;
    Network& operator=(const Network&) = delete;

    /**
     * Loads a network file, replacing what the object held; `threads` as SetThreads. On failure
     * the object keeps what it held.
     */
    bool Load(const std::string& path, size_t threads = 1) {
        SimdSynetNetworkOptions options;
        options.threads = threads;
        return Replace(SimdSynetNetworkLoad(path.c_str(), &options));
    }

    /** Loads a network from a file's contents (copied: the caller may free them after). */
    bool LoadMemory(const void* data, size_t size, size_t threads = 1) {
        SimdSynetNetworkOptions options;
        options.threads = threads;
        return Replace(SimdSynetNetworkLoadMemory(data, size, &options));
    }

    /** Releases the network; the object is empty afterwards. */
    void Clear() {
        SimdSynetNetworkRelease(network_);
        network_ = NULL;
    }

    /** Whether a network is loaded. */
    bool Loaded() const { return network_ != NULL; }

    /** The C handle, for functions of SimdSynetRuntime.h this class does not wrap. */
    SimdSynetNetwork* Handle() const { return network_; }

    size_t InputCount() const { return Checked(SimdSynetNetworkInputCount(network_)); }
    size_t OutputCount() const { return Checked(SimdSynetNetworkOutputCount(network_)); }

    /** The name of input `index`; "" and a message for an index out of range. */
    std::string InputName(size_t index) const {
        return String(SimdSynetNetworkInputName(network_, index));
    }
    std::string OutputName(size_t index) const {
        return String(SimdSynetNetworkOutputName(network_, index));
    }

    /** The shape of input `index` (NCHW as the model declares it); empty on failure. */
    std::vector<size_t> InputShape(size_t index) const {
        const size_t* shape = NULL;
        const size_t rank = SimdSynetNetworkInputShape(network_, index, &shape);
        return Shape(rank, shape);
    }
    std::vector<size_t> OutputShape(size_t index) const {
        const size_t* shape = NULL;
        const size_t rank = SimdSynetNetworkOutputShape(network_, index, &shape);
        return Shape(rank, shape);
    }

    /** The index of the input named `name`, or InputCount() when there is none. */
    size_t InputIndex(const std::string& name) const {
        const size_t count = InputCount();
        for (size_t i = 0; i < count; ++i)
            if (InputName(i) == name) return i;
        return count;
    }
    size_t OutputIndex(const std::string& name) const {
        const size_t count = OutputCount();
        for (size_t i = 0; i < count; ++i)
            if (OutputName(i) == name) return i;
        return count;
    }

    /** The number of values of a shape (1 for rank 0). */
    static size_t Volume(const std::vector<size_t>& shape) {
        size_t volume = 1;
        for (size_t i = 0; i < shape.size(); ++i) volume *= shape[i];
        return volume;
    }

    /** Sets the threads later runs may use (0 means 1). */
    bool SetThreads(size_t threads) {
        return Result(SimdSynetNetworkSetThreads(network_, threads) == SimdTrue);
    }
    size_t Threads() const { return Checked(SimdSynetNetworkGetThreads(network_)); }

    /**
     * Runs once: inputs[i] points at input i's values (C order, InputShape(i)), outputs[i]
     * receives output i. The vectors must hold one pointer per input and per output: the C API
     * cannot check how many pointers a caller passed, this can.
     */
    bool Run(const std::vector<const float*>& inputs, const std::vector<float*>& outputs) {
        if (!CheckCounts(inputs.size(), outputs.size())) return false;
        return Result(SimdSynetNetworkRun(network_, Data(inputs), Data(outputs)) == SimdTrue);
    }

    /**
     * Runs once on values: inputs[i] must hold Volume(InputShape(i)) values; outputs is resized
     * to one vector per output of Volume(OutputShape(i)) values.
     */
    bool Run(const std::vector<std::vector<float> >& inputs,
             std::vector<std::vector<float> >& outputs) {
        std::vector<const float*> in;
        std::vector<float*> out;
        if (!Prepare(inputs, outputs, in, out)) return false;
        return Run(in, out);
    }

    /** As Run, and sets `seconds` to the time each step took in this run (StepCount() values). */
    bool RunProfiled(const std::vector<const float*>& inputs, const std::vector<float*>& outputs,
                     std::vector<double>& seconds) {
        if (!CheckCounts(inputs.size(), outputs.size())) return false;
        seconds.assign(StepCount(), 0.0);
        double dummy = 0;  // a plan without steps still needs a valid pointer
        return Result(SimdSynetNetworkRunProfiled(network_, Data(inputs), Data(outputs),
                                                  seconds.empty() ? &dummy : &seconds[0]) ==
                      SimdTrue);
    }

    /** The number of steps of the plan. */
    size_t StepCount() const { return Checked(SimdSynetNetworkStepCount(network_)); }

    /** Every step's description, in the order the plan runs them; empty on failure. */
    std::vector<Step> Steps() const {
        std::vector<Step> steps(StepCount());
        for (size_t i = 0; i < steps.size(); ++i) {
            const char *name = NULL, *kind = NULL, *info = NULL;
            if (SimdSynetNetworkStepDescribe(network_, i, &name, &kind, &info) != SimdTrue) {
                Keep();
                return std::vector<Step>();
            }
            steps[i].name = name;
            steps[i].kind = kind;
            steps[i].info = info;
        }
        return steps;
    }

    /** The message of this thread's last failed call of a Network, "" when none failed. */
    static const std::string& LastError() { return Message(); }

private:
    SimdSynetNetwork* network_;

    static std::string& Message() {
        static thread_local std::string message;
        return message;
    }

    // Copies the library's message now: the next successful call clears it.
    static void Keep() {
        const char* error = SimdSynetGetLastError();
        Message() = error != NULL ? error : "simd-synet runtime: unknown error";
    }

    static bool Fail(const std::string& message) {
        Message() = message;
        return false;
    }

    static bool Result(bool ok) {
        if (!ok) Keep();
        return ok;
    }

    // The counting functions return 0 both for a network without any and on failure; only
    // the error slot tells them apart.
    static size_t Checked(size_t value) {
        if (value == 0 && SimdSynetGetLastError() != NULL) Keep();
        return value;
    }

    static std::string String(const char* value) {
        if (value == NULL) {
            Keep();
            return std::string();
        }
        return value;
    }

    static std::vector<size_t> Shape(size_t rank, const size_t* shape) {
        if (rank == 0) {
            Checked(0);
            return std::vector<size_t>();
        }
        return std::vector<size_t>(shape, shape + rank);
    }

    template <class T>
    static const T* Data(const std::vector<T>& values) {
        return values.empty() ? NULL : &values[0];
    }

    bool Replace(SimdSynetNetwork* network) {
        if (network == NULL) return Result(false);
        Clear();
        network_ = network;
        return true;
    }

    bool CheckCounts(size_t inputs, size_t outputs) const {
        if (network_ == NULL) return Fail("Simd::Network: no network loaded");
        if (inputs != InputCount() || outputs != OutputCount())
            return Fail("Simd::Network::Run: " + std::to_string(inputs) + " inputs and " +
                        std::to_string(outputs) + " outputs given, the network has " +
                        std::to_string(InputCount()) + " and " + std::to_string(OutputCount()));
        return true;
    }

    bool Prepare(const std::vector<std::vector<float> >& inputs,
                 std::vector<std::vector<float> >& outputs, std::vector<const float*>& in,
                 std::vector<float*>& out) const {
        if (network_ == NULL) return Fail("Simd::Network: no network loaded");
        if (inputs.size() != InputCount())
            return Fail("Simd::Network::Run: " + std::to_string(inputs.size()) +
                        " inputs given, the network has " + std::to_string(InputCount()));
        for (size_t i = 0; i < inputs.size(); ++i) {
            const size_t volume = Volume(InputShape(i));
            if (inputs[i].size() != volume)
                return Fail("Simd::Network::Run: input '" + InputName(i) + "' has " +
                            std::to_string(inputs[i].size()) + " values, its shape " +
                            std::to_string(volume));
            in.push_back(inputs[i].data());
        }
        outputs.resize(OutputCount());
        for (size_t i = 0; i < outputs.size(); ++i) {
            outputs[i].resize(Volume(OutputShape(i)));
            out.push_back(outputs[i].data());
        }
        return true;
    }
};

}  // namespace Simd

#endif  // SIMD_SYNET_RUNTIME_HPP
