// The Python module cruel_tools._native: coarse calls only (a whole game, a whole log, a whole
// search), never one call per step, so the boundary costs nothing that matters.
// Each part of the core registers its own functions (register_*), declared in bindings.hpp.
#include "bindings.hpp"
#include "spec.hpp"

#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace cruel {

Rules rules_from(const Rules& given) {
    // The combinations the spec allows (cruel_tools/spec/presets.json, as rules.py's Rules
    // checks them), and nothing else.
    bool ok = spec::valid_rules(given);
    if (!ok) throw std::invalid_argument("rules: not a profile of rules.py");
    return given;
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

std::vector<std::vector<int>> piles_of(const Position& p) {
    std::vector<std::vector<int>> out(p.np);
    int o = 0;
    for (int i = 0; i < p.np; ++i) {
        out[i].assign(p.seq + o, p.seq + o + p.size[i]);
        o += p.size[i];
    }
    return out;
}

std::vector<int> foundations_of(const Position& p) { return std::vector<int>(p.found, p.found + 4); }

std::vector<Step> steps_of(const std::vector<Packed>& steps) {
    std::vector<Step> out;
    out.reserve(steps.size());
    for (Packed s : steps) out.push_back(unpack(s));
    return out;
}

Packed play_given(Position& p, const Rules& rules, const Step& given, const char* what) {
    Packed want = given.source == 0 ? kRedeal : pack(given.source, given.target, given.count);
    Packed legal[kMaxSteps];
    int k = legal_steps(p, rules, legal);
    if (std::find(legal, legal + k, want) == legal + k) throw std::invalid_argument(what);
    play_legal(p, rules, want);
    return want;
}

namespace {

// A position as trace reports it after a step played (game.py's Game, as the test reads it).
struct Snapshot {
    std::vector<std::vector<int>> piles;
    std::vector<int> foundations;
    int moves = 0;
    int redeals = 0;
    std::string outcome;
};

// What trace makes of one step: refused (code, nothing else) or played (legal steps after it and
// the position).
struct TraceStep {
    std::string code;
    std::optional<std::vector<Step>> legal;
    std::optional<Snapshot> after;
};

// Plays `steps` from a position, as game.py's Game.push would, and reports after each: the
// refusal code ("" when played), then for a played step the legal steps and position after it.
// The differential test (tests/test_native_engine.py) compares this with game.py, step by step.
std::vector<TraceStep> trace(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                             const Rules& rules, const std::vector<Step>& steps) {
    Position p = position_from(piles, found, 0, 0, rules);
    std::vector<TraceStep> out;
    out.reserve(steps.size());
    Packed legal[kMaxSteps];
    for (const Step& st : steps) {
        Code c = play(p, rules, st);
        if (c != kOk) {
            out.push_back({code_name(c), std::nullopt, std::nullopt});
            continue;
        }
        int k = legal_steps(p, rules, legal);
        std::vector<Step> after_steps;
        for (int i = 0; i < k; ++i) after_steps.push_back(unpack(legal[i]));
        out.push_back({"", std::move(after_steps),
                       Snapshot{piles_of(p), foundations_of(p), p.moves, p.redeals,
                                outcome_name(outcome(p, rules))}});
    }
    return out;
}

void register_rules(py::module_& m) {
    py::class_<Rules> rules(m, "NativeRules",
                            "A profile of rules.py's Rules as the core plays it; made by "
                            "cruel_tools.game.engine.native_rules. Keyword arguments only, each "
                            "required, checked (ValueError unless rules.py's Rules allows them).");
    rules
        .def(py::init([](bool top_down, int max_redeals, bool when_stuck, bool runs, int piles, int base,
                         int build, bool one_at_a_time) {
                 return rules_from(Rules{top_down, max_redeals, when_stuck, runs, piles, base, build,
                                         one_at_a_time});
             }),
             py::kw_only(), py::arg("top_down"), py::arg("max_redeals"), py::arg("when_stuck"),
             py::arg("runs"), py::arg("piles"), py::arg("base"), py::arg("build"), py::arg("one_at_a_time"))
        .def_readonly("top_down", &Rules::top_down, "Rules.redeal_order == 'top-down'.")
        .def_readonly("max_redeals", &Rules::max_redeals, "Rules.max_redeals; -1: no limit.")
        .def_readonly("when_stuck", &Rules::when_stuck, "Rules.redeal_only_when_stuck.")
        .def_readonly("runs", &Rules::runs, "Rules.run_moves.")
        .def_readonly("piles", &Rules::piles, "Rules.pile_count: 12 or 13.")
        .def_readonly("base", &Rules::base, "Rules.foundation_base: 0 ace, 1 king, 2 none (engine.hpp's Base).")
        .def_readonly("build", &Rules::build,
                      "Rules.tableau_build: 0 down in suit, 1 up in alternate colours, 2 up or down in "
                      "alternate colours (engine.hpp's Build).")
        .def_readonly("one_at_a_time", &Rules::one_at_a_time, "Rules.redeal_deal == 'one-at-a-time'.");
    named_fields(rules, "NativeRules",
                 {"top_down", "max_redeals", "when_stuck", "runs", "piles", "base", "build", "one_at_a_time"}, true);

    py::class_<Step> step(m, "CoreStep",
                          "A step as the core takes and gives it. A redeal is source 0 (target 0, count 1); "
                          "target 0 is the foundation.");
    step.def(py::init([](int source, int target, int count, int card) { return Step{source, target, count, card}; }),
             py::kw_only(), py::arg("source"), py::arg("target"), py::arg("count"), py::arg("card") = -1)
        .def_readonly("source", &Step::source, "The pile (1-13) moved from; 0: a redeal.")
        .def_readonly("target", &Step::target, "The pile (1-13) moved to; 0: the foundation (or a redeal).")
        .def_readonly("count", &Step::count, "Cards moved (1 for a redeal).")
        .def_readonly("card", &Step::card, "The card the step names (0-51), checked by trace; -1: none.");
    named_fields(step, "CoreStep", {"source", "target", "count", "card"}, true);
}

void register_trace(py::module_& m) {
    py::class_<Snapshot> snap(m, "Snapshot", "A position after a step played (trace).");
    snap.def_readonly("piles", &Snapshot::piles, "Each pile's cards (0-51), bottom to top.")
        .def_readonly("foundations", &Snapshot::foundations, "Cards on each foundation (S H D C).")
        .def_readonly("moves", &Snapshot::moves, "Moves played (Game.moves).")
        .def_readonly("redeals", &Snapshot::redeals, "Redeals played (Game.redeals).")
        .def_readonly("outcome", &Snapshot::outcome, "Game.outcome.");
    named_fields(snap, "Snapshot", {"piles", "foundations", "moves", "redeals", "outcome"});
    py::class_<TraceStep> ts(m, "TraceStep", "What trace makes of one step.");
    ts.def_readonly("code", &TraceStep::code, "The refusal's code (IllegalMove.code); '': played.")
        .def_readonly("legal", &TraceStep::legal, "Played: the legal steps after it (Game.legal_steps).")
        .def_readonly("after", &TraceStep::after, "Played: the position after it.");
    named_fields(ts, "TraceStep", {"code", "legal", "after"});
    m.def("trace", &trace, py::arg("piles"), py::arg("found"), py::arg("rules"), py::arg("steps"),
          "Play steps from a position and report each (for the differential test).");
}

}  // namespace
}  // namespace cruel

PYBIND11_MODULE(_native, m) {
    m.doc() = "cruel-tools' native core: the engine, the verifier's fast path and the solver (C++17).";
    // 2: named structs across the boundary (NativeRules, CoreStep, SearchResult, ...), no tuples.
    m.attr("ABI") = 2;
    cruel::register_rules(m);  // first: the functions' signatures below name these types
    cruel::register_trace(m);
    cruel::register_fastlog(m);
    cruel::register_search(m);
    cruel::register_optimal(m);
}
