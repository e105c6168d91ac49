// What the parts of the core share at the Python boundary.
#pragma once

#include <pybind11/pybind11.h>

#include <vector>

#include "engine.hpp"

namespace cruel {

namespace py = pybind11;

// (top_down, max_redeals (-1: none), when_stuck, runs[, piles, base, build, one_at_a_time]):
// cruel_tools.game.engine.native_rules makes it (the four-item form is Cruel's layout).
Rules rules_from(const py::tuple& t);
// A position from piles (bottom to top) and foundation counts; std::invalid_argument (a Python
// ValueError) unless it holds each card once. Without rules: Cruel's layout.
Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals);
Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals, const Rules& rules);
py::list piles_of(const Position& p);
py::tuple step_tuple(Packed s);  // (source, target, count); (0, 0, 1) is a redeal

void register_fastlog(py::module_& m);  // fastlog.cpp
void register_search(py::module_& m);   // search.cpp
void register_optimal(py::module_& m);  // optimal.cpp

}  // namespace cruel
