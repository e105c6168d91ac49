// What the parts of the core share at the Python boundary.
#pragma once

#include <pybind11/pybind11.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "engine.hpp"

namespace cruel {

namespace py = pybind11;

// Every value crossing the boundary is a named struct bound with py::class_ (NativeRules,
// CoreStep, SearchResult, ...), never a positional tuple: two swapped fields of a tuple still
// compile and type-check; two swapped names do not. The stub cruel_tools/_native.pyi is generated
// from these bindings (tests/test_native_stub.py), so the docs given here are the stub's.

// The rules as given (NativeRules' keyword constructor; cruel_tools.game.engine.native_rules
// makes them), checked: std::invalid_argument (a ValueError) unless rules.py's Rules allows them.
Rules rules_from(const Rules& given);
// A position from piles (bottom to top) and foundation counts; std::invalid_argument (a Python
// ValueError) unless it holds each card once. Without rules: Cruel's layout.
Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals);
Position position_from(const std::vector<std::vector<int>>& piles, const std::vector<int>& found,
                       int moves, int redeals, const Rules& rules);
std::vector<std::vector<int>> piles_of(const Position& p);
std::vector<int> foundations_of(const Position& p);
// The core's steps as Python sees them (CoreStep): a redeal is source 0; card -1 (not given).
std::vector<Step> steps_of(const std::vector<Packed>& steps);
// A CoreStep as the search stores it, if it is legal from `p` (then played), else `what` raised.
Packed play_given(Position& p, const Rules& rules, const Step& given, const char* what);

// __repr__ (Name(field=value, ...)) of a bound struct, from its fields' names; for a value
// (`value`: fields of numbers) __eq__ and __hash__ too, field by field.
template <class T>
void named_fields(py::class_<T>& cls, const char* name, std::initializer_list<const char*> fields,
                  bool value = false) {
    std::vector<std::string> names(fields.begin(), fields.end());
    std::string type = name;
    cls.def("__repr__", [type, names](const py::object& self) {
        std::string out = type + "(";
        for (size_t i = 0; i < names.size(); ++i) {
            if (i) out += ", ";
            out += names[i] + "=" + py::repr(self.attr(names[i].c_str())).cast<std::string>();
        }
        return out + ")";
    });
    if (!value) return;
    cls.def(
        "__eq__",
        [names](const py::object& self, const py::object& other) {
            if (!py::isinstance(other, self.get_type())) return false;
            for (const auto& n : names)
                if (!self.attr(n.c_str()).equal(other.attr(n.c_str()))) return false;
            return true;
        },
        py::arg("other"));
    cls.def("__hash__", [names](const py::object& self) {
        py::tuple values(names.size());
        for (size_t i = 0; i < names.size(); ++i) values[i] = self.attr(names[i].c_str());
        return py::hash(values);
    });
}

void register_fastlog(py::module_& m);  // fastlog.cpp
void register_search(py::module_& m);   // search.cpp
void register_optimal(py::module_& m);  // optimal.cpp

}  // namespace cruel
