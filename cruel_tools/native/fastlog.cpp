// The verifier's fast path at the Python boundary (the work itself is in fastlog.hpp).
//
// cruel_tools.game.verify builds one FastLog per batch (the presets the core plays, the card names,
// the limits) and hands it whole blocks of JSON Lines: one call per block, not per log, so the
// Python work per log is a list item. The GIL is released while a block is read and played.
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
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

// One preset the fast path plays: its name, its rules, and its Rules as the report writes them.
struct FastPreset {
    std::string name;
    Rules rules;
    py::bytes rules_json;
};

// What the fast path makes of one log it takes (FastLog.play, for the tests), as the Python
// report would give it.
struct Played {
    std::string status;  // valid or invalid
    std::optional<int64_t> error_index;  // an illegal step's index
    std::optional<std::string> error_path, error_code;
    std::string outcome;
    int foundation_cards = 0, moves = 0, redeals = 0;
    std::string preset;
    std::optional<int64_t> deal_number;
    std::vector<std::vector<int>> piles;  // the final position
    std::vector<int> foundations;
};

// A log of a block handed back to Python: block[start:end] is its line's bytes.
struct HandedBack {
    int64_t line = 0;
    size_t start = 0, end = 0;
};

// What render_lines makes of a block.
struct Lines {
    std::vector<std::variant<py::bytes, HandedBack>> items;  // a valid log's output line, or handed back
    int64_t next_line = 0;  // the number of the line after the block
};

class FastLog {
  public:
    FastLog(const std::vector<FastPreset>& presets, const std::vector<std::string>& names, int64_t max_bytes,
            int64_t max_moves) {
        if (names.size() != 52) throw std::invalid_argument("FastLog: 52 card names");
        if (max_bytes < 0 || max_moves < 0) throw std::invalid_argument("FastLog: limits are >= 0");
        if (presets.empty() || presets.size() > 64) throw std::invalid_argument("FastLog: 1-64 presets");
        for (const FastPreset& preset : presets) {
            View v(preset.rules_json);
            cfg_.presets.push_back({preset.name, rules_from(preset.rules), std::string(v.data, v.size)});
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

    // What the fast path makes of one log, for the tests: None (not mine), or what it found.
    std::optional<Played> play(const py::bytes& data) const {
        View v(data);
        Result r;
        {
            py::gil_scoped_release release;
            Reader reader(cfg_);
            r = reader.run(v.bytes(), v.size);
        }
        if (r.verdict == Verdict::kNotMine) return std::nullopt;
        Played out;
        out.status = r.verdict == Verdict::kValid ? "valid" : "invalid";
        if (r.verdict == Verdict::kIllegal) {
            out.error_index = r.error_index;
            out.error_path = "/moves/" + std::to_string(r.error_index);
            out.error_code = code_name(r.code);
        } else if (r.verdict == Verdict::kClaimMismatch) {
            out.error_path = std::string("/claim/") + fastlog::kClaimFields[r.claim_field];
            out.error_code = "claim-mismatch";
        }
        out.outcome = r.outcome;
        out.foundation_cards = r.pos.foundation_cards();
        out.moves = r.pos.moves;
        out.redeals = r.pos.redeals;
        out.preset = cfg_.presets[r.preset].name;
        if (r.deal_number >= 0) out.deal_number = r.deal_number;
        out.piles = piles_of(r.pos);
        out.foundations = foundations_of(r.pos);
        return out;
    }

    // The output line of one valid log (no newline), or None: not mine, or not valid.
    std::optional<py::bytes> render(const py::bytes& data, const py::bytes& source_json,
                                    const py::bytes& source_text, bool as_json) const {
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
        if (!valid) return std::nullopt;
        return py::bytes(out);
    }

    // The lines of a block of JSON Lines (see fastlog::verify_lines), the first numbered
    // first_line: each valid log's output line, or a log handed back (its line's bytes without
    // its trailing "\r"s). Blank lines give no item.
    Lines render_lines(const py::bytes& block, const py::bytes& file_json, const py::bytes& file_text,
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
        Lines result;
        result.items.reserve(items.size());
        for (const auto& it : items) {
            if (it.mine) {
                result.items.emplace_back(py::bytes(out.data() + it.start, it.end - it.start));
            } else {
                result.items.emplace_back(HandedBack{it.line, it.start, it.end});
            }
        }
        result.next_line = line;
        return result;
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
    py::class_<FastPreset> preset(m, "FastPreset", "A preset the fast path plays (Cruel's own layout).");
    preset
        .def(py::init([](std::string name, const Rules& rules, py::bytes rules_json) {
                 return FastPreset{std::move(name), rules, std::move(rules_json)};
             }),
             py::kw_only(), py::arg("name"), py::arg("rules"), py::arg("rules_json"))
        .def_readonly("name", &FastPreset::name, "The preset's name (rules.PRESETS).")
        .def_readonly("rules", &FastPreset::rules, "Its rules as the core plays them.")
        .def_readonly("rules_json", &FastPreset::rules_json, "Its Rules as the report writes them (JSON).");
    named_fields(preset, "FastPreset", {"name", "rules", "rules_json"});
    py::class_<Played> played(m, "Played", "What the fast path makes of one log it takes (FastLog.play).");
    played.def_readonly("status", &Played::status, "valid or invalid.")
        .def_readonly("error_index", &Played::error_index, "The index of an illegal step.")
        .def_readonly("error_path", &Played::error_path, "The error's JSON Pointer (/moves/N, /claim/...).")
        .def_readonly("error_code", &Played::error_code, "The error's code (IllegalMove.code, claim-mismatch).")
        .def_readonly("outcome", &Played::outcome, "Game.outcome at the end.")
        .def_readonly("foundation_cards", &Played::foundation_cards, "Cards on the foundations at the end.")
        .def_readonly("moves", &Played::moves, "Moves played.")
        .def_readonly("redeals", &Played::redeals, "Redeals played.")
        .def_readonly("preset", &Played::preset, "The preset the log names.")
        .def_readonly("deal_number", &Played::deal_number, "The deal's number, if the log gives one.")
        .def_readonly("piles", &Played::piles, "The final piles' cards, bottom to top.")
        .def_readonly("foundations", &Played::foundations, "Cards on each foundation at the end (S H D C).");
    named_fields(played, "Played",
                 {"status", "error_index", "error_path", "error_code", "outcome", "foundation_cards", "moves",
                  "redeals", "preset", "deal_number", "piles", "foundations"});
    py::class_<HandedBack> back(m, "HandedBack", "A log of a block that the fast path hands back to Python.");
    back.def_readonly("line", &HandedBack::line, "Its line number.")
        .def_readonly("start", &HandedBack::start, "Where its bytes start in the block.")
        .def_readonly("end", &HandedBack::end, "Where they end (trailing '\\r's left out).");
    named_fields(back, "HandedBack", {"line", "start", "end"});
    py::class_<Lines> lines(m, "Lines", "What the fast path makes of a block of JSON Lines (render_lines).");
    lines.def_readonly("items", &Lines::items, "Per log, in order: a valid log's output line, or handed back.")
        .def_readonly("next_line", &Lines::next_line, "The number of the line after the block.");
    named_fields(lines, "Lines", {"items", "next_line"});

    py::class_<FastLog>(m, "FastLog", "The verifier's fast path under one set of limits (fastlog.hpp).")
        .def(py::init<const std::vector<FastPreset>&, const std::vector<std::string>&, int64_t, int64_t>(),
             py::arg("presets"), py::arg("names"), py::arg("max_bytes"), py::arg("max_moves"))
        .def("play", &FastLog::play, py::arg("data"), "What the fast path makes of one log; None: not taken.")
        .def("render", &FastLog::render, py::arg("data"), py::arg("source_json"), py::arg("source_text"),
             py::arg("as_json"), "The output line of one valid log (no newline); None: not taken or not valid.")
        .def("render_lines", &FastLog::render_lines, py::arg("block"), py::arg("file_json"),
             py::arg("file_text"), py::arg("first_line"), py::arg("as_json"),
             "The logs of a block of JSON Lines, the first on line first_line.");
    m.def("deal_order", &deal_order, py::arg("number"), "Deal `number`'s 48 cards (deals.deal_order).");
    m.def("card_from", &card_from, py::arg("text"), "A card's text as a card (0-51), or -1.");
}

}  // namespace cruel
