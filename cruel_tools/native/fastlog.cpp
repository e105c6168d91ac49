// The verifier's fast path at the Python boundary (the work itself is in fastlog.hpp).
//
// cruel_tools.game.verify builds one FastLog per batch (the presets the core plays, the card names,
// the limits) and hands it whole blocks of JSON Lines: one call per block, not per log, so the
// Python work per log is a list item. The GIL is released while a block is read and played.
#include <pybind11/stl.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bindings.hpp"
#include "fastlog.hpp"

namespace cruel {
namespace {

using fastlog::Config;
using fastlog::Reader;
using fastlog::Result;
using fastlog::Verdict;

// The bytes of a Python bytes object; pybind11 has already checked the type.
struct View {
    const char* data;
    size_t size;
    explicit View(const py::bytes& b) {
        char* p = nullptr;
        Py_ssize_t n = 0;
        if (PyBytes_AsStringAndSize(b.ptr(), &p, &n) != 0) throw py::error_already_set();
        data = p;
        size = static_cast<size_t>(n);
    }
    const uint8_t* bytes() const { return reinterpret_cast<const uint8_t*>(data); }
};

class FastLog {
  public:
    FastLog(const std::vector<std::tuple<std::string, py::tuple, py::bytes>>& presets,
            const std::vector<std::string>& names, int64_t max_bytes, int64_t max_moves) {
        if (names.size() != 52) throw std::invalid_argument("FastLog: 52 card names");
        if (max_bytes < 0 || max_moves < 0) throw std::invalid_argument("FastLog: limits are >= 0");
        if (presets.empty() || presets.size() > 64) throw std::invalid_argument("FastLog: 1-64 presets");
        for (const auto& [name, rules, json] : presets) {
            View v(json);
            cfg_.presets.push_back({name, rules_from(rules), std::string(v.data, v.size)});
        }
        for (int i = 0; i < 52; ++i) {
            if (names[i].empty() || names[i].size() > 8) throw std::invalid_argument("FastLog: card names");
            cfg_.names[i] = names[i];
        }
        cfg_.max_bytes = max_bytes;
        cfg_.max_moves = max_moves;
    }
    FastLog(const FastLog&) = delete;
    FastLog& operator=(const FastLog&) = delete;

    // What the fast path makes of one log, for the tests: None (not mine), or
    // (status, index, path, code, outcome, foundation_cards, moves, redeals, preset, deal_number,
    //  piles, foundations), as the Python report would give them.
    py::object play(const py::bytes& data) const {
        View v(data);
        Result r;
        {
            py::gil_scoped_release release;
            Reader reader(cfg_);
            r = reader.run(v.bytes(), v.size);
        }
        if (r.verdict == Verdict::kNotMine) return py::none();
        py::object index = py::none(), path = py::none(), code = py::none();
        if (r.verdict == Verdict::kIllegal) {
            index = py::int_(r.error_index);
            path = py::str("/moves/" + std::to_string(r.error_index));
            code = py::str(code_name(r.code));
        } else if (r.verdict == Verdict::kClaimMismatch) {
            path = py::str(std::string("/claim/") + fastlog::kClaimFields[r.claim_field]);
            code = py::str("claim-mismatch");
        }
        return py::make_tuple(r.verdict == Verdict::kValid ? "valid" : "invalid", index, path, code,
                              r.outcome, r.pos.foundation_cards(), r.pos.moves, r.pos.redeals,
                              cfg_.presets[r.preset].name,
                              r.deal_number < 0 ? py::object(py::none()) : py::object(py::int_(r.deal_number)),
                              piles_of(r.pos), std::vector<int>(r.pos.found, r.pos.found + 4));
    }

    // The output line of one valid log (no newline), or None: not mine, or not valid.
    py::object render(const py::bytes& data, const py::bytes& source_json, const py::bytes& source_text,
                      bool as_json) const {
        View v(data), sj(source_json), st(source_text);
        std::string out;
        bool valid;
        {
            py::gil_scoped_release release;
            Reader reader(cfg_);
            Result r = reader.run(v.bytes(), v.size);
            valid = r.verdict == Verdict::kValid;
            if (valid) fastlog::render(cfg_, r, sj.data, sj.size, st.data, st.size, as_json, out);
        }
        if (!valid) return py::none();
        return py::bytes(out);
    }

    // The lines of a block of JSON Lines (see fastlog::verify_lines), the first numbered
    // first_line: returns (items, next_line), each item the output line of a valid log (bytes)
    // or (line, start, end) of a log handed back (block[start:end], the line's bytes without
    // its trailing "\r"s). Blank lines give no item.
    py::tuple render_lines(const py::bytes& block, const py::bytes& file_json, const py::bytes& file_text,
                           int64_t first_line, bool as_json) const {
        View v(block), fj(file_json), ft(file_text);
        std::vector<fastlog::LineItem> items;
        std::string out;
        int64_t line = first_line;
        {
            py::gil_scoped_release release;
            Reader reader(cfg_);
            fastlog::verify_lines(cfg_, reader, v.bytes(), v.size, fj.data, fj.size, ft.data, ft.size,
                                         &line, as_json, items, out);
        }
        py::list result(items.size());
        for (size_t i = 0; i < items.size(); ++i) {
            const auto& it = items[i];
            if (it.mine) {
                result[i] = py::bytes(out.data() + it.start, it.end - it.start);
            } else {
                result[i] = py::make_tuple(it.line, it.start, it.end);
            }
        }
        return py::make_tuple(result, line);
    }

  private:
    Config cfg_;
};

// The deal order of deal `number` (for the test against deals.py).
std::vector<int> deal_order(uint32_t number) {
    uint8_t order[kTableau];
    fastlog::deal_order(number, order);
    return std::vector<int>(order, order + kTableau);
}

int card_from(const py::bytes& text) {
    View v(text);
    return fastlog::card_from(v.bytes(), v.size);
}

}  // namespace

void register_fastlog(py::module_& m) {
    py::class_<FastLog>(m, "FastLog", "The verifier's fast path (fastlog.hpp).")
        .def(py::init<const std::vector<std::tuple<std::string, py::tuple, py::bytes>>&,
                      const std::vector<std::string>&, int64_t, int64_t>(),
             py::arg("presets"), py::arg("names"), py::arg("max_bytes"), py::arg("max_moves"))
        .def("play", &FastLog::play, py::arg("data"))
        .def("render", &FastLog::render, py::arg("data"), py::arg("source_json"), py::arg("source_text"),
             py::arg("as_json"))
        .def("render_lines", &FastLog::render_lines, py::arg("block"), py::arg("file_json"),
             py::arg("file_text"), py::arg("first_line"), py::arg("as_json"));
    m.def("deal_order", &deal_order, py::arg("number"), "Deal `number`'s 48 cards (deals.deal_order).");
    m.def("card_from", &card_from, py::arg("text"), "A card's text as a card (0-51), or -1.");
}

}  // namespace cruel
