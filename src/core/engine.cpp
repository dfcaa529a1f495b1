#include "core/engine.hpp"
// The engine and stream carry no behaviour of their own yet; their C entry
// points live in src/api/engine.cpp. This unit anchors the objects for
// future per-engine state (ISA capabilities, NUMA topology).
namespace kestrel {
[[maybe_unused]] const dnnl_engine_kind_t cpu_engine_kind = dnnl_cpu;
}
