// Primitives and their execution context.
#ifndef KESTREL_CORE_PRIMITIVE_HPP
#define KESTREL_CORE_PRIMITIVE_HPP

#include <memory>

#include "core/memory.hpp"
#include "core/primitive_desc.hpp"
#include "scratchpad/registry.hpp"

namespace kestrel {

// What one execution sees: its arguments (the caller's array, not copied)
// and its scratchpad. Built on the stack for every execute call.
class exec_ctx_t {
public:
    exec_ctx_t(dnnl_stream *stream, int nargs, const dnnl_exec_arg_t *args,
            const scratchpad::grantor_t &grantor)
        : stream_(stream), nargs_(nargs), args_(args), grantor_(grantor) {}

    dnnl_memory *memory(int arg) const {
        for (int i = 0; i < nargs_; ++i)
            if (args_[i].arg == arg && args_[i].memory) return args_[i].memory;
        return nullptr;
    }
    // Data pointers, already offset by nothing: offset0 is part of the md
    // and applied by mdw_t::off_*. nullptr when the argument is absent.
    template <typename T = void>
    const T *input(int arg) const {
        auto *m = memory(arg);
        return m ? static_cast<const T *>(m->data) : nullptr;
    }
    template <typename T = void>
    T *output(int arg) const {
        auto *m = memory(arg);
        return m ? static_cast<T *>(m->data) : nullptr;
    }
    const scratchpad::grantor_t &scratchpad() const { return grantor_; }
    dnnl_stream *stream() const { return stream_; }

private:
    dnnl_stream *stream_;
    int nargs_;
    const dnnl_exec_arg_t *args_;
    const scratchpad::grantor_t &grantor_;
};

struct primitive_t {
    explicit primitive_t(const pd_t *pd) : pd_(pd->clone()) {}
    virtual ~primitive_t() = default;
    // Work done once at creation (weights packing tables, ...). Must not
    // depend on the scratchpad.
    virtual status_t init() { return pd_ ? status::success : status::out_of_memory; }
    virtual status_t execute(const exec_ctx_t &ctx) const = 0;
    const pd_t *pd() const { return pd_.get(); }

protected:
    std::unique_ptr<pd_t> pd_;
};

template <typename self_t, typename base_t, typename prim_t>
status_t pd_impl_t<self_t, base_t, prim_t>::create_primitive(
        std::shared_ptr<primitive_t> &p) const {
    auto *raw = new (std::nothrow) prim_t(static_cast<const self_t *>(this));
    if (!raw) return status::out_of_memory;
    p.reset(raw);
    return p->init();
}

// How a primitive gets its scratchpad.
enum class scratchpad_policy_t { none, user, global_arena, private_buffer };

// The policy for library mode: ONEDNN_SCRATCHPAD=global|private, else the
// build's choice (global unless configured with --enable-concurrent-exec).
// Read when a primitive is created.
scratchpad_policy_t library_scratchpad_policy();
// Internal switch (not exported) so one process can compare both policies:
// the demo and the tests use it. Affects primitives created afterwards.
void set_library_scratchpad_policy(scratchpad_policy_t policy);

} // namespace kestrel

struct dnnl_primitive {
    dnnl_primitive_desc pd; // the descriptor it was created from (a copy)
    std::shared_ptr<kestrel::primitive_t> impl;
    kestrel::scratchpad_policy_t policy = kestrel::scratchpad_policy_t::none;
    void *private_scratchpad = nullptr;

    ~dnnl_primitive();
};

namespace kestrel {
status_t primitive_create(dnnl_primitive **out, const dnnl_primitive_desc *pd);
status_t primitive_execute(const dnnl_primitive *p, dnnl_stream *stream,
        int nargs, const dnnl_exec_arg_t *args);
} // namespace kestrel

#endif
