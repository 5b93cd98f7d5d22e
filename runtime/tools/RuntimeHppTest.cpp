// Exercises every member of Simd::Network (SimdSynetRuntime.hpp) on a network file given on the
// command line; python/tests/test_runtime_tools.py compiles that file and runs this.
//   simdsynet_runtime_hpp_test FILE.ssn
// Prints "ok" and exits with 0, or names the first check that failed and exits with 1.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "SimdSynetRuntime.hpp"

#define CHECK(condition)                                                                        \
    do {                                                                                        \
        if (!(condition)) {                                                                     \
            std::fprintf(stderr, "line %d: %s failed (last error: %s)\n", __LINE__, #condition, \
                         Simd::Network::LastError().c_str());                                   \
            return 1;                                                                           \
        }                                                                                       \
    } while (0)

namespace {

bool Mentions(const std::string& text) {
    return Simd::Network::LastError().find(text) != std::string::npos;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: simdsynet_runtime_hpp_test FILE.ssn\n");
        return 1;
    }
    const std::string path = argv[1];

    Simd::Network empty;
    CHECK(!empty.Loaded() && empty.Handle() == NULL);
    CHECK(empty.InputCount() == 0 && Mentions("NULL"));
    CHECK(!empty.Run(std::vector<const float*>(), std::vector<float*>()) &&
          Mentions("no network loaded"));
    CHECK(!empty.Load(path + ".missing") && Mentions(".missing") && !empty.Loaded());

    Simd::Network net;
    CHECK(net.Load(path, 2) && net.Loaded() && net.Handle() != NULL);
    CHECK(net.Threads() == 2 && net.SetThreads(1) && net.Threads() == 1);
    CHECK(net.InputCount() >= 1 && net.OutputCount() >= 1);
    const std::vector<size_t> in_shape = net.InputShape(0), out_shape = net.OutputShape(0);
    CHECK(!in_shape.empty() && !out_shape.empty());
    CHECK(net.InputIndex(net.InputName(0)) == 0 && net.OutputIndex(net.OutputName(0)) == 0);
    CHECK(net.InputIndex("no such input") == net.InputCount());
    CHECK(net.OutputIndex("no such output") == net.OutputCount());
    CHECK(net.InputName(net.InputCount()).empty() && Mentions("index"));
    CHECK(net.OutputName(net.OutputCount()).empty() && Mentions("index"));
    CHECK(net.InputShape(net.InputCount()).empty() && Mentions("index"));
    CHECK(net.OutputShape(net.OutputCount()).empty() && Mentions("index"));
    CHECK(Simd::Network::Volume(std::vector<size_t>()) == 1);
    CHECK(Simd::Network::Volume(std::vector<size_t>{2, 3, 4}) == 24);

    // Values: inputs 0.01 * i, one vector per input.
    std::vector<std::vector<float> > inputs(net.InputCount()), outputs;
    for (size_t i = 0; i < inputs.size(); ++i) {
        inputs[i].resize(Simd::Network::Volume(net.InputShape(i)));
        for (size_t j = 0; j < inputs[i].size(); ++j) inputs[i][j] = 0.01f * float(j % 200);
    }
    CHECK(net.Run(inputs, outputs) && outputs.size() == net.OutputCount());
    CHECK(outputs[0].size() == Simd::Network::Volume(out_shape));
    std::vector<std::vector<float> > short_inputs(inputs);
    short_inputs[0].pop_back();
    std::vector<std::vector<float> > unused;
    CHECK(!net.Run(short_inputs, unused) && Mentions(net.InputName(0)));
    CHECK(!net.Run(std::vector<std::vector<float> >(), unused) && Mentions("inputs given"));

    // Pointers: the same values give the same outputs, bit for bit.
    std::vector<const float*> in;
    for (const auto& input : inputs) in.push_back(input.data());
    std::vector<std::vector<float> > again(outputs.size());
    std::vector<float*> out;
    for (size_t i = 0; i < again.size(); ++i) {
        again[i].resize(outputs[i].size());
        out.push_back(again[i].data());
    }
    CHECK(net.Run(in, out) && again == outputs);
    CHECK(!net.Run(in, std::vector<float*>()) && Mentions("outputs given"));

    std::vector<double> seconds;
    for (size_t i = 0; i < again.size(); ++i) {
        again[i].assign(outputs[i].size(), 0.0f);
        out[i] = again[i].data();
    }
    CHECK(net.RunProfiled(in, out, seconds) && again == outputs);
    CHECK(seconds.size() == net.StepCount() && net.StepCount() > 0);
    CHECK(!net.RunProfiled(std::vector<const float*>(), out, seconds));
    const std::vector<Simd::Network::Step> steps = net.Steps();
    CHECK(steps.size() == net.StepCount());
    for (const auto& step : steps) CHECK(!step.name.empty() && !step.kind.empty());

    // From memory: the same plan, the same outputs; a rejected buffer keeps the network.
    std::ifstream file(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(file)),
                            std::istreambuf_iterator<char>());
    Simd::Network copy;
    CHECK(copy.LoadMemory(bytes.data(), bytes.size()) && copy.Threads() == 1);
    std::vector<std::vector<float> > from_memory;
    CHECK(copy.Run(inputs, from_memory) && from_memory == outputs);
    const std::string garbage = "not a network file";
    CHECK(!copy.LoadMemory(garbage.data(), garbage.size()) && copy.Loaded());
    CHECK(!Simd::Network::LastError().empty());

    // Moves hand the network over; Clear releases it.
    Simd::Network moved(std::move(copy));
    CHECK(moved.Loaded() && !copy.Loaded());
    copy = std::move(moved);
    CHECK(copy.Loaded() && !moved.Loaded());
    copy.Clear();
    CHECK(!copy.Loaded() && copy.StepCount() == 0 && copy.Steps().empty());
    std::printf("ok: %zu steps, output '%s' %zu values\n", steps.size(), net.OutputName(0).c_str(),
                outputs[0].size());
    return 0;
}
