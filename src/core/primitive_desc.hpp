// Primitive descriptors.
//
// A primitive kind (convolution, reorder, ...) has an op descriptor (what
// to compute) and an ordered list of implementations (impl_list_t), fastest
// first, reference last. Creating a primitive descriptor walks the list and
// keeps the first implementation whose pd_t::init() accepts the problem;
// dnnl_primitive_desc_next_impl continues the walk. An implementation:
//   - derives its pd from the kind's base pd (which stores the op desc and
//     the memory descriptors) and implements init(): check the problem,
//     resolve format `any`, book scratchpad into scratchpad_registry();
//   - returns unimplemented (and says why in verbose mode) to decline;
//   - names itself through name(), which impl_info_str reports.
#ifndef KESTREL_CORE_PRIMITIVE_DESC_HPP
#define KESTREL_CORE_PRIMITIVE_DESC_HPP

#include <memory>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/attr.hpp"
#include "core/cache_key.hpp"
#include "core/engine.hpp"
#include "core/memory_desc.hpp"
#include "scratchpad/registry.hpp"

namespace kestrel {

struct primitive_t;

// Base of every op descriptor; the kind's own struct derives from it.
struct op_desc_t {
    dnnl_primitive_kind_t kind;
    explicit op_desc_t(dnnl_primitive_kind_t k) : kind(k) {}
    virtual ~op_desc_t() = default;
    virtual op_desc_t *clone() const = 0;
    // Writes every field into the primitive cache key and returns true; a
    // kind that leaves the default is never shared through the cache.
    virtual bool serialize(key_writer_t &k) const {
        (void)k;
        return false;
    }
};

template <typename self_t>
struct op_desc_impl_t : op_desc_t {
    using op_desc_t::op_desc_t;
    op_desc_t *clone() const override {
        return new (std::nothrow) self_t(static_cast<const self_t &>(*this));
    }
};

enum class arg_usage_t { unused, input, output };

struct pd_t {
    pd_t(const attr_t *attr, dnnl_primitive_kind_t kind)
        : kind_(kind), attr_(attr ? *attr : attr_t()) {}
    virtual ~pd_t() = default;

    virtual pd_t *clone() const = 0;
    virtual const char *name() const = 0;
    virtual status_t init(dnnl_engine *engine) = 0;
    virtual status_t create_primitive(std::shared_ptr<primitive_t> &p) const = 0;

    dnnl_primitive_kind_t kind() const { return kind_; }
    virtual dnnl_prop_kind_t prop_kind() const { return dnnl_prop_kind_undef; }
    const attr_t *attr() const { return &attr_; }
    dnnl_engine *engine() const { return engine_; }

    // Memory descriptors by role and index; zero md when absent.
    virtual const memory_desc_t *src_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *dst_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *weights_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *diff_src_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *diff_dst_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *diff_weights_md(int idx = 0) const { (void)idx; return &zero_md_; }
    virtual const memory_desc_t *workspace_md(int idx = 0) const { (void)idx; return &zero_md_; }
    const memory_desc_t *scratchpad_md(int idx = 0) const {
        return idx == 0 ? &scratchpad_md_ : &zero_md_;
    }

    // How the primitive uses an execution argument, and its descriptor.
    // Kinds override arg_usage for their own arguments; the base knows the
    // attribute arguments (scales, zero points, binary post-op sources).
    virtual arg_usage_t arg_usage(int arg) const;
    virtual const memory_desc_t *arg_md(int arg) const;

    virtual int n_inputs() const { return 0; }
    virtual int n_outputs() const { return 0; }

    // Answers dnnl_primitive_desc_query. Kinds override for their own
    // queries (strides, alg kind, ...) and fall back to this.
    virtual status_t query(dnnl_query_t what, int idx, void *result) const;

    scratchpad::registry_t &scratchpad_registry() { return registry_; }
    const scratchpad::registry_t &scratchpad_registry() const { return registry_; }
    size_t scratchpad_size() const { return registry_.size(); }

    // Called after a successful init(): fixes the scratchpad descriptor and
    // the list of execution arguments the primitive uses.
    status_t finalize(dnnl_engine *engine);
    status_t init_dropout_mds();

    // Which descriptors the user gave with format `any` (verbose mode's `a`
    // mark): make_pd records it before init() resolves them.
    enum md_role_t { role_src, role_wei, role_dst, role_diff_src, role_diff_wei, role_diff_dst, n_roles };
    const memory_desc_t *role_md(md_role_t role, int idx) const;
    bool user_format_any(md_role_t role, int idx) const {
        return idx >= 0 && idx < 2 && ((user_any_ >> (2 * role + idx)) & 1u);
    }
    void note_user_formats();

    // Every argument whose arg_usage() is not unused, computed once by
    // finalize() so execution checks only those.
    const std::vector<int> &exec_args() const { return exec_args_; }
    // The index of the prelu post-op whose weights `arg` names, or -1.
    int prelu_post_op(int arg) const;

    // An implementation that takes sparse memory says so; every other one
    // is never shown a sparse descriptor (make_pd declines it first).
    virtual bool accepts_sparse() const { return false; }
    // Likewise for s4/u4 (two elements per byte), in a tensor, a binary
    // post-op's operand or a zero point: only an implementation that says
    // so reads or writes them.
    virtual bool accepts_sub_byte() const { return false; }
    // Which of those the problem holds, looking only for the ones in
    // `wanted`, in one pass over the descriptors (make_pd runs it for every
    // candidate implementation).
    enum : unsigned { md_sparse = 1u, md_sub_byte = 2u };
    unsigned unusual_mds(unsigned wanted) const;

protected:
    dnnl_primitive_kind_t kind_;
    attr_t attr_;
    dnnl_engine *engine_ = nullptr;
    scratchpad::registry_t registry_;
    memory_desc_t scratchpad_md_ = zero_md();
    std::vector<int> exec_args_;
    unsigned user_any_ = 0;
    std::vector<memory_desc_t> prelu_weights_mds_; // by post-op index
    // Dropout's execution arguments: the mask (as dst when its format is
    // any), the f32 probability and the s32 seed, one element each. The
    // last two are the same for every pd with dropout: shared constants
    // (arg_md), so that no pd carries and copies them.
    memory_desc_t dropout_mask_md_ = zero_md();
    static const memory_desc_t zero_md_;
};

using pd_create_fn_t = status_t (*)(pd_t **out, const op_desc_t *desc,
        const attr_t *attr, dnnl_engine *engine, const pd_t *hint);

struct impl_entry_t {
    const char *name;
    pd_create_fn_t create;
};

// A kind's implementations in dispatch order, terminated by {nullptr, nullptr}.
using impl_list_t = const impl_entry_t *;

// Says in verbose mode why an implementation declined; returns
// unimplemented so it can be used as `return decline(...)`.
status_t decline(const char *impl, const char *why);

// Names the pd whose init() runs on this thread, so that decline() can
// print the whole problem in its dispatch line.
struct pd_init_scope_t {
    explicit pd_init_scope_t(const pd_t *pd);
    ~pd_init_scope_t();
    pd_init_scope_t(const pd_init_scope_t &) = delete;
    pd_init_scope_t &operator=(const pd_init_scope_t &) = delete;

private:
    const pd_t *prev_;
};

// Says in check mode why an implementation refused the problem as invalid;
// returns `st`.
status_t init_failed(const pd_t *pd, status_t st);

// An implementation's pd may offer
//   static bool may_accept(const desc_t &d, const attr_t *attr);
// (attr null: the defaults): a few field reads that rule the problem out
// before a pd is constructed, so that creation on a cache miss does not
// build and copy a pd for every implementation that declines. It returns
// false only where init() would decline. With dispatch verbose on it is not
// asked, and init() says why it declines.
bool dispatch_verbose_on();

template <typename impl_pd_t, typename = void>
struct has_may_accept_t : std::false_type {};
template <typename impl_pd_t>
struct has_may_accept_t<impl_pd_t,
        std::void_t<decltype(impl_pd_t::may_accept(
                std::declval<const typename impl_pd_t::desc_t &>(), std::declval<const attr_t *>()))>>
    : std::true_type {};

// Creates an implementation's pd: constructs it from the op desc, runs
// init() and finalize(); deletes it on any failure.
template <typename impl_pd_t>
status_t make_pd(pd_t **out, const op_desc_t *desc, const attr_t *attr,
        dnnl_engine *engine, const pd_t *hint) {
    using desc_t = typename impl_pd_t::desc_t;
    if constexpr (has_may_accept_t<impl_pd_t>::value) {
        if (!impl_pd_t::may_accept(*static_cast<const desc_t *>(desc), attr) && !dispatch_verbose_on())
            return status::unimplemented;
    }
    // Owned until it is handed out: init() and finalize() may throw
    // std::bad_alloc (the C boundary turns it into out_of_memory).
    std::unique_ptr<impl_pd_t> pd(new (std::nothrow) impl_pd_t(static_cast<const desc_t *>(desc), attr, hint));
    if (!pd) return status::out_of_memory;
    pd->note_user_formats();
    const pd_init_scope_t scope(pd.get());
    const unsigned refused = (pd->accepts_sparse() ? 0u : pd_t::md_sparse)
            | (pd->accepts_sub_byte() ? 0u : pd_t::md_sub_byte);
    const unsigned found = refused ? pd->unusual_mds(refused) : 0u;
    if (found & pd_t::md_sparse) return decline(pd->name(), "sparse memory");
    if (found & pd_t::md_sub_byte) return decline(pd->name(), "s4/u4 data");
    status_t st = pd->init(engine);
    if (st == status::success) st = pd->finalize(engine);
    if (st != status::success) return init_failed(pd.get(), st);
    *out = pd.release();
    return status::success;
}

// Glue every implementation pd needs: clone() and create_primitive() for
// the primitive type `prim_t` (which takes `const self_t *` in its ctor).
template <typename self_t, typename base_t, typename prim_t>
struct pd_impl_t : base_t {
    using base_t::base_t;
    pd_t *clone() const override {
        return new (std::nothrow) self_t(static_cast<const self_t &>(*this));
    }
    status_t create_primitive(std::shared_ptr<primitive_t> &p) const override;
};


} // namespace kestrel

// The C handle: the op desc, the attributes, the implementation list and
// the implementation currently chosen.
struct dnnl_primitive_desc {
    std::unique_ptr<kestrel::op_desc_t> desc;
    std::unique_ptr<kestrel::pd_t> impl;
    kestrel::impl_list_t list = nullptr;
    int impl_idx = -1;
    dnnl_engine *engine = nullptr;
    kestrel::attr_t attr;
    std::unique_ptr<kestrel::pd_t> hint; // a clone of the forward hint, if any
    // dnnl_query_cache_blob_id: made on first query (under the lock, as
    // const handles may be queried from several threads), dropped when
    // next_impl changes the implementation.
    mutable std::mutex blob_id_lock;
    mutable std::vector<uint8_t> blob_id;
    mutable bool blob_id_ready = false;

    const kestrel::pd_t *pd() const { return impl.get(); }
};

namespace kestrel {

// Walks `list` from its start and returns a handle on the first
// implementation that accepts `desc`.
status_t create_pd_handle(dnnl_primitive_desc **out, const op_desc_t &desc,
        const dnnl_primitive_attr *attr, dnnl_engine *engine,
        impl_list_t list, const dnnl_primitive_desc *hint);

} // namespace kestrel

#endif
