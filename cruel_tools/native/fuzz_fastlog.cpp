// libFuzzer target: the verifier's fast path (fastlog.hpp) on arbitrary bytes, under ASan and
// UBSan. Not part of the extension: setup.py compiles every .cpp of this folder, so the whole
// file is behind CRUEL_FUZZ, which only the fuzz build defines:
//
//   clang++ -std=c++17 -O1 -g -DCRUEL_FUZZ -fsanitize=fuzzer,address,undefined
//       -fno-sanitize-recover=all cruel_tools/native/fuzz_fastlog.cpp -o /tmp/fuzz_fastlog
//   (one command)
//   /tmp/fuzz_fastlog -max_total_time=60 CORPUS_DIR   # seeds: samples/, tests/data/
//
// tests/test_native_fastlog.py::test_fuzz_the_fast_path does exactly that (marked slow).
#ifdef CRUEL_FUZZ

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fastlog.hpp"

namespace {

using namespace cruel;
using namespace cruel::fastlog;

// The presets as verify.py gives them (the report objects need not be real here).
const Config& config(int64_t max_bytes, int64_t max_moves, Config& c) {
    static const char* const kRanks[13] = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
    static const char kSuits[4] = {'S', 'H', 'D', 'C'};
    c.presets.clear();
    Rules r;
    c.presets.push_back({"cruel", r, "{\"preset\":\"cruel\"}"});
    r.when_stuck = true;
    c.presets.push_back({"cruel-when-stuck", r, "{}"});
    r = Rules{};
    r.max_redeals = 3;
    c.presets.push_back({"cruel-limited-3", r, "{}"});
    r.max_redeals = 2;
    r.runs = true;
    c.presets.push_back({"perseverance", r, "{}"});
    r = Rules{};
    r.top_down = true;
    c.presets.push_back({"pysolfc", r, "{}"});
    for (int i = 0; i < 52; ++i) c.names[i] = std::string(kRanks[i % 13]) + kSuits[i / 13];
    c.max_bytes = max_bytes;
    c.max_moves = max_moves;
    return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static Config plain, tight;
    static bool ready = false;
    if (!ready) {
        config(1 << 20, 10000, plain);
        config(600, 7, tight);  // small limits: the limit checks get exercised too
        ready = true;
    }
    // The input copied to a buffer of exactly its size, so ASan sees any read past its end.
    std::vector<uint8_t> buf(data, data + size);
    const uint8_t* p = buf.empty() ? nullptr : buf.data();
    std::string out;
    for (const Config* cfg : {&plain, &tight}) {
        Reader reader(*cfg);
        Result r = reader.run(p ? p : reinterpret_cast<const uint8_t*>(""), size);
        if (r.verdict == Verdict::kValid) {
            out.clear();
            render(*cfg, r, "null", 4, "log", 3, true, out);
            render(*cfg, r, "null", 4, "log", 3, false, out);
            if (r.pos.foundation_cards() + r.pos.n != 52) std::abort();  // cards kept
        }
        // The same bytes as a block of JSON Lines.
        std::vector<LineItem> items;
        out.clear();
        int64_t line = 1;
        verify_lines(*cfg, reader, p ? p : reinterpret_cast<const uint8_t*>(""), size, "\"f\"", 3, "f", 1,
                     &line, true, items, out);
        for (const LineItem& it : items) {
            if (it.mine ? it.end > out.size() : it.end > size) std::abort();  // in bounds
            if (it.start > it.end) std::abort();
        }
    }
    return 0;
}

#endif  // CRUEL_FUZZ
