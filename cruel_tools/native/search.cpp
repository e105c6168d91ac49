// The solver (to be written).
#include "bindings.hpp"

namespace cruel {
void register_search(py::module_&) {}
}  // namespace cruel
