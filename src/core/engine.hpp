// Engine and stream. Kestrel has one CPU device; every engine object stands
// for it, but engines are still distinct objects (memory remembers which one
// it was made on).
#ifndef KESTREL_CORE_ENGINE_HPP
#define KESTREL_CORE_ENGINE_HPP

#include "core/common.hpp"

struct dnnl_engine {
    dnnl_engine_kind_t kind = dnnl_cpu;
    size_t index = 0;
};

struct dnnl_stream {
    dnnl_engine *engine = nullptr;
    unsigned flags = 0;
};

#endif
