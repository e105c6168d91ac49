// The Python module cruel_tools._native: coarse calls only (a whole game, a whole log, a whole
// search), never one call per step, so the boundary costs nothing that matters.
// Each part of the core registers its own functions (register_*), declared in bindings.hpp.
#include "bindings.hpp"
#include "spec.hpp"

#include <pybind11/stl.h>

#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace cruel {

Rules rules_from(const py::tuple& t) {
    if (t.size() != 4 && t.size() != 8)
        throw std::invalid_argument(
            "rules: (top_down, max_redeals, when_stuck, runs[, piles, base, build, one_at_a_time])");
    Rules r;
    r.top_down = t[0].cast<bool>();
    r.max_redeals = t[1].cast<int>();
    r.when_stuck = t[2].cast<bool>();
    r.runs = t[3].cast<bool>();
    if (t.size() == 8) {
        r.piles = t[4].cast<int>();
        r.base = t[5].cast<int>();
        r.build = t[6].cast<int>();
        r.one_at_a_time = t[7].cast<bool>();
        // The combinations the spec allows (cruel_tools/spec/presets.json, as rules.py's Rules
        // checks them), and nothing else.
        bool ok = spec::valid_rules(r);
        if (!ok) throw std::invalid_argument("rules: not a profile of rules.py");
    }
    return r;
}

Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals) {
    return position_from(piles, found, moves, redeals, Rules{});
}

Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals, const Rules& rules) {
    if (static_cast<int>(piles.size()) != rules.piles || found.size() != 4)
        throw std::invalid_argument(rules.piles == kPiles ? "position: 12 piles, 4 foundations"
                                                          : "position: 13 piles, 4 foundations");
    Position p{};
    p.np = static_cast<uint8_t>(rules.piles);
    bool seen[52] = {};
    int n = 0;
    for (int i = 0; i < rules.piles; ++i) {
        if (piles[i].size() > kMaxCards) throw std::invalid_argument("position: pile too long");
        for (int c : piles[i]) {
            if (c < 0 || c > 51 || seen[c] || n >= kMaxCards) throw std::invalid_argument("position: not a deck");
            seen[c] = true;
            p.seq[n++] = static_cast<uint8_t>(c);
        }
        p.size[i] = static_cast<uint8_t>(piles[i].size());
    }
    int low = rules.base == kNoBase ? 0 : 1;
    for (int s = 0; s < 4; ++s) {
        if (found[s] < low || found[s] > 13) throw std::invalid_argument("position: foundations 1-13");
        for (int r = 0; r < found[s]; ++r) {
            int c = s * 13 + (rules.down() ? kKing - r : r);
            if (seen[c]) throw std::invalid_argument("position: not a deck");
            seen[c] = true;
        }
        p.found[s] = static_cast<uint8_t>(found[s]);
    }
    if (n + p.foundation_cards() != 52) throw std::invalid_argument("position: not a deck");
    p.n = static_cast<uint8_t>(n);
    p.moves = moves;
    p.redeals = redeals;
    return p;
}

py::list piles_of(const Position& p) {
    py::list out;
    int o = 0;
    for (int i = 0; i < p.np; ++i) {
        py::list pile;
        for (int j = 0; j < p.size[i]; ++j) pile.append(static_cast<int>(p.seq[o + j]));
        o += p.size[i];
        out.append(pile);
    }
    return out;
}

py::tuple step_tuple(Packed s) {
    Step st = unpack(s);
    return py::make_tuple(st.source, st.target, st.count);
}

namespace {

// Plays `steps` from a position, as game.py's Game.push would, and reports after each: the
// refusal code ("" when played), then for a played step the legal steps and piles after it.
// The differential test (tests/test_native_engine.py) compares this with game.py, step by step.
py::list trace(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
               const py::tuple& rules_t, const std::vector<std::tuple<int, int, int, int>>& steps) {
    Rules rules = rules_from(rules_t);
    Position p = position_from(piles, found, 0, 0, rules);
    py::list out;
    Packed legal[kMaxSteps];
    for (const auto& [source, target, count, card] : steps) {
        Step st;
        st.source = source;
        st.target = target;
        st.count = count;
        st.card = card;
        Code c = play(p, rules, st);
        if (c != kOk) {
            out.append(py::make_tuple(code_name(c), py::none(), py::none()));
            continue;
        }
        int k = legal_steps(p, rules, legal);
        py::list l;
        for (int i = 0; i < k; ++i) l.append(step_tuple(legal[i]));
        out.append(py::make_tuple("", l, py::make_tuple(piles_of(p), std::vector<int>(p.found, p.found + 4),
                                                        p.moves, p.redeals, outcome_name(outcome(p, rules)))));
    }
    return out;
}

}  // namespace
}  // namespace cruel

PYBIND11_MODULE(_native, m) {
    m.doc() = "cruel-tools' native core: the engine, the verifier's fast path and the solver (C++17).";
    m.attr("ABI") = 1;
    m.def("trace", &cruel::trace, "Play steps from a position and report each (for the differential test).");
    cruel::register_fastlog(m);
    cruel::register_search(m);
    cruel::register_optimal(m);
}
