#include "core/primitive_desc.hpp"

#include "core/primitive.hpp"
#include "core/primitive_cache.hpp"
#include "core/verbose.hpp"
#include "dnnl_debug.h"

namespace kestrel {

const memory_desc_t pd_t::zero_md_ = zero_md();

namespace {

// One element of dt, plain: dropout's probability (f32) and seed (s32).
memory_desc_t one_element_md(data_type_t dt) {
    memory_desc_t md = zero_md();
    const dim_t one = 1;
    md_init_by_tag(md, 1, &one, dt, dnnl_a);
    return md;
}

const memory_desc_t &dropout_scalar_md(data_type_t dt) {
    static const memory_desc_t f32 = one_element_md(dnnl_f32), s32 = one_element_md(dnnl_s32);
    return dt == dnnl_f32 ? f32 : s32;
}

bool is_attr_quant_arg(int arg, int base) {
    return (arg & base) && (arg & ~base) > 0 && (arg & ~base) < DNNL_ARG_ATTR_OUTPUT_SCALES;
}

// The post-op index of a binary/prelu source argument, or -1.
int post_op_index(int arg, int which) {
    if (arg < DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE || (arg & 0x7fff) != which) return -1;
    return arg / DNNL_ARG_ATTR_MULTIPLE_POST_OP_BASE - 1;
}

} // namespace

arg_usage_t pd_t::arg_usage(int arg) const {
    if (is_attr_quant_arg(arg, DNNL_ARG_ATTR_SCALES))
        return attr_.scales.get(arg & ~DNNL_ARG_ATTR_SCALES) ? arg_usage_t::input : arg_usage_t::unused;
    if (is_attr_quant_arg(arg, DNNL_ARG_ATTR_ZERO_POINTS))
        return attr_.zero_points.get(arg & ~DNNL_ARG_ATTR_ZERO_POINTS) ? arg_usage_t::input
                                                                       : arg_usage_t::unused;
    if (attr_.dropout) {
        if (arg == DNNL_ARG_ATTR_DROPOUT_PROBABILITY || arg == DNNL_ARG_ATTR_DROPOUT_SEED)
            return arg_usage_t::input;
        if (arg == DNNL_ARG_ATTR_DROPOUT_MASK)
            return attr_.dropout_mask.ndims ? arg_usage_t::output : arg_usage_t::unused;
    }
    const auto &po = attr_.post_ops.entries;
    int i = post_op_index(arg, DNNL_ARG_SRC_1);
    if (i >= 0 && i < (int)po.size() && po[i].kind == dnnl_binary) return arg_usage_t::input;
    i = post_op_index(arg, DNNL_ARG_SRC_2);
    if (i >= 0 && i < (int)po.size() && po[i].kind == dnnl_binary && po[i].binary.alg == dnnl_binary_select)
        return arg_usage_t::input;
    i = post_op_index(arg, DNNL_ARG_WEIGHTS);
    if (i >= 0 && i < (int)po.size() && po[i].kind == dnnl_prelu) return arg_usage_t::input;
    return arg_usage_t::unused;
}

int pd_t::prelu_post_op(int arg) const {
    const int i = post_op_index(arg, DNNL_ARG_WEIGHTS);
    const auto &po = attr_.post_ops.entries;
    return i >= 0 && i < (int)po.size() && po[i].kind == dnnl_prelu ? i : -1;
}

const memory_desc_t *pd_t::arg_md(int arg) const {
    // An argument the primitive does not take has no descriptor (oneDNN
    // answers a zero one), even where an index maps onto a descriptor the
    // kind holds for another role (e.g. WEIGHTS of a normalization).
    if (arg != DNNL_ARG_SCRATCHPAD && arg_usage(arg) == arg_usage_t::unused) return &zero_md_;
    if (arg >= DNNL_ARG_MULTIPLE_SRC && arg < DNNL_ARG_MULTIPLE_DST) return src_md(arg - DNNL_ARG_MULTIPLE_SRC);
    if (arg >= DNNL_ARG_MULTIPLE_DST && arg < DNNL_ARG_MULTIPLE_DST + 1024) return dst_md(arg - DNNL_ARG_MULTIPLE_DST);
    int i = post_op_index(arg, DNNL_ARG_SRC_1);
    const auto &po = attr_.post_ops.entries;
    if (i >= 0 && i < (int)po.size() && po[i].kind == dnnl_binary) return &po[i].binary.src1_desc;
    i = post_op_index(arg, DNNL_ARG_SRC_2);
    if (i >= 0 && i < (int)po.size() && po[i].kind == dnnl_binary) return &po[i].binary.src2_desc;
    i = prelu_post_op(arg);
    if (i >= 0 && i < (int)prelu_weights_mds_.size()) return &prelu_weights_mds_[i];
    switch (arg) {
        case DNNL_ARG_SRC_0: return src_md(0);
        case DNNL_ARG_SRC_1: return src_md(1);
        case DNNL_ARG_SRC_2: return src_md(2);
        case DNNL_ARG_SRC_3: return src_md(3);
        case DNNL_ARG_DST_0: return dst_md(0);
        case DNNL_ARG_DST_1: return dst_md(1);
        case DNNL_ARG_DST_2: return dst_md(2);
        case DNNL_ARG_WEIGHTS_0: return weights_md(0);
        case DNNL_ARG_WEIGHTS_1: return weights_md(1);
        case DNNL_ARG_WEIGHTS_2: return weights_md(2);
        case DNNL_ARG_WEIGHTS_3: return weights_md(3);
        case DNNL_ARG_BIAS: return weights_md(1);
        case DNNL_ARG_DIFF_SRC_0: return diff_src_md(0);
        case DNNL_ARG_DIFF_SRC_1: return diff_src_md(1);
        case DNNL_ARG_DIFF_SRC_2: return diff_src_md(2);
        case DNNL_ARG_DIFF_DST_0: return diff_dst_md(0);
        case DNNL_ARG_DIFF_DST_1: return diff_dst_md(1);
        case DNNL_ARG_DIFF_DST_2: return diff_dst_md(2);
        case DNNL_ARG_DIFF_WEIGHTS_0: return diff_weights_md(0);
        case DNNL_ARG_DIFF_WEIGHTS_1: return diff_weights_md(1);
        case DNNL_ARG_DIFF_BIAS: return diff_weights_md(1);
        case DNNL_ARG_WORKSPACE: return workspace_md(0);
        case DNNL_ARG_SCRATCHPAD: return scratchpad_md(0);
        case DNNL_ARG_ATTR_DROPOUT_MASK: return &dropout_mask_md_;
        case DNNL_ARG_ATTR_DROPOUT_PROBABILITY: return attr_.dropout ? &dropout_scalar_md(dnnl_f32) : &zero_md_;
        case DNNL_ARG_ATTR_DROPOUT_SEED: return attr_.dropout ? &dropout_scalar_md(dnnl_s32) : &zero_md_;
        default: return &zero_md_;
    }
}

status_t pd_t::query(dnnl_query_t what, int idx, void *result) const {
    switch (what) {
        case dnnl_query_engine: *(dnnl_engine_t *)result = engine_; return status::success;
        case dnnl_query_primitive_kind:
            *(dnnl_primitive_kind_t *)result = kind_;
            return status::success;
        case dnnl_query_prop_kind: *(dnnl_prop_kind_t *)result = prop_kind(); return status::success;
        case dnnl_query_impl_info_str: *(const char **)result = name(); return status::success;
        case dnnl_query_num_of_inputs_s32: *(int *)result = n_inputs(); return status::success;
        case dnnl_query_num_of_outputs_s32: *(int *)result = n_outputs(); return status::success;
        case dnnl_query_time_estimate_f64: *(double *)result = 0.0; return status::success;
        case dnnl_query_memory_consumption_s64:
            *(dim_t *)result = attr_.scratchpad_mode == dnnl_scratchpad_mode_user
                    ? 0
                    : (dim_t)scratchpad_size();
            return status::success;
        case dnnl_query_scratchpad_engine:
            if (attr_.scratchpad_mode != dnnl_scratchpad_mode_user) return status::invalid_arguments;
            *(dnnl_engine_t *)result = engine_;
            return status::success;
        case dnnl_query_src_md: *(const_dnnl_memory_desc_t *)result = src_md(idx); return status::success;
        case dnnl_query_dst_md: *(const_dnnl_memory_desc_t *)result = dst_md(idx); return status::success;
        case dnnl_query_weights_md: *(const_dnnl_memory_desc_t *)result = weights_md(idx); return status::success;
        case dnnl_query_diff_src_md: *(const_dnnl_memory_desc_t *)result = diff_src_md(idx); return status::success;
        case dnnl_query_diff_dst_md: *(const_dnnl_memory_desc_t *)result = diff_dst_md(idx); return status::success;
        case dnnl_query_diff_weights_md:
            *(const_dnnl_memory_desc_t *)result = diff_weights_md(idx);
            return status::success;
        case dnnl_query_workspace_md: *(const_dnnl_memory_desc_t *)result = workspace_md(idx); return status::success;
        case dnnl_query_scratchpad_md: *(const_dnnl_memory_desc_t *)result = scratchpad_md(idx); return status::success;
        case dnnl_query_exec_arg_md: *(const_dnnl_memory_desc_t *)result = arg_md(idx); return status::success;
        default: return status::unimplemented;
    }
}

namespace {

// Every argument a primitive of any kind may take, apart from the ones that
// depend on the attributes or on the number of sources.
const int plain_args[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_SRC_3,
        DNNL_ARG_DST_0, DNNL_ARG_DST_1, DNNL_ARG_DST_2, DNNL_ARG_WEIGHTS_0,
        DNNL_ARG_WEIGHTS_1, DNNL_ARG_WEIGHTS_2, DNNL_ARG_WEIGHTS_3, DNNL_ARG_BIAS,
        DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT,
        DNNL_ARG_WORKSPACE, DNNL_ARG_DIFF_SRC_0, DNNL_ARG_DIFF_SRC_1, DNNL_ARG_DIFF_SRC_2,
        DNNL_ARG_DIFF_DST_0, DNNL_ARG_DIFF_DST_1, DNNL_ARG_DIFF_DST_2,
        DNNL_ARG_DIFF_WEIGHTS_0, DNNL_ARG_DIFF_WEIGHTS_1, DNNL_ARG_DIFF_BIAS,
        DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT};

} // namespace

status_t pd_t::finalize(dnnl_engine *engine) {
    engine_ = engine;
    exec_args_.clear();
    auto consider = [this](int arg) {
        if (arg_usage(arg) != arg_usage_t::unused) exec_args_.push_back(arg);
    };
    for (int arg : plain_args) consider(arg);
    if (kind_ != dnnl_reorder)
        for (int i = 0; i < n_inputs(); ++i) consider(DNNL_ARG_MULTIPLE_SRC + i);
    for (int arg : {DNNL_ARG_ATTR_DROPOUT_MASK, DNNL_ARG_ATTR_DROPOUT_PROBABILITY, DNNL_ARG_ATTR_DROPOUT_SEED})
        consider(arg);
    KESTREL_CHECK(init_dropout_mds());
    // A fused depthwise convolution's weights and bias (the pd says whether
    // it takes them).
    consider(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_WEIGHTS);
    consider(DNNL_ARG_ATTR_POST_OP_DW | DNNL_ARG_BIAS);
    for (const auto &q : attr_.scales.items) consider(DNNL_ARG_ATTR_SCALES | q.arg);
    for (const auto &q : attr_.zero_points.items) consider(DNNL_ARG_ATTR_ZERO_POINTS | q.arg);
    for (int i = 0; i < (int)attr_.post_ops.entries.size(); ++i) {
        consider(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_1);
        consider(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_SRC_2);
        consider(DNNL_ARG_ATTR_MULTIPLE_POST_OP(i) | DNNL_ARG_WEIGHTS);
    }
    // A prelu post-op's weights: f32, plain row-major, of dst's rank, each
    // dim dst's where the mask has its bit and 1 elsewhere. Answered by
    // exec_arg_md and required at execution.
    const auto &po = attr_.post_ops.entries;
    prelu_weights_mds_.assign(po.size(), zero_md());
    for (size_t i = 0; i < po.size(); ++i) {
        if (po[i].kind != dnnl_prelu) continue;
        const memory_desc_t &dst = *dst_md();
        dim_t dims[max_ndims], strides[max_ndims];
        dim_t s = 1;
        for (int d = dst.ndims - 1; d >= 0; --d) {
            dims[d] = (po[i].prelu.mask >> d) & 1 ? dst.dims[d] : 1;
            strides[d] = s;
            s *= dims[d];
        }
        KESTREL_CHECK(md_init_by_strides(prelu_weights_mds_[i], dst.ndims, dims, dnnl_f32, strides));
    }
    scratchpad_md_ = zero_md();
    size_t sz = scratchpad_size();
    if (attr_.scratchpad_mode == dnnl_scratchpad_mode_user && sz > 0) {
        dim_t d = (dim_t)sz;
        KESTREL_CHECK(md_init_by_tag(scratchpad_md_, 1, &d, dnnl_u8, dnnl_a));
    }
    return status::success;
}

// The mask has dst's dims (and, when its format is any, dst's layout); the
// probability and the seed (single f32 and s32 values) need no per-pd
// descriptor, see arg_md.
status_t pd_t::init_dropout_mds() {
    if (!attr_.dropout) return status::success;
    const memory_desc_t &dst = *dst_md();
    const memory_desc_t &m = attr_.dropout_mask;
    if (m.ndims) {
        if (m.ndims != dst.ndims || m.data_type != dnnl_u8) return status::invalid_arguments;
        for (int d = 0; d < m.ndims; ++d)
            if (m.dims[d] != dst.dims[d]) return status::invalid_arguments;
        dropout_mask_md_ = m;
        if (mdw_t(m).is_any()) {
            dropout_mask_md_ = dst;
            dropout_mask_md_.data_type = dnnl_u8;
        }
    }
    return status::success;
}

const memory_desc_t *pd_t::role_md(md_role_t role, int idx) const {
    switch (role) {
        case role_src: return src_md(idx);
        case role_wei: return weights_md(idx);
        case role_dst: return dst_md(idx);
        case role_diff_src: return diff_src_md(idx);
        case role_diff_wei: return diff_weights_md(idx);
        case role_diff_dst: return diff_dst_md(idx);
        default: return &zero_md_;
    }
}

void pd_t::note_user_formats() {
    user_any_ = 0;
    for (int r = 0; r < n_roles; ++r)
        for (int i = 0; i < 2; ++i)
            if (role_md((md_role_t)r, i)->format_kind == dnnl_format_kind_any) user_any_ |= 1u << (2 * r + i);
}

namespace {
thread_local const pd_t *pd_in_init = nullptr;
} // namespace

pd_init_scope_t::pd_init_scope_t(const pd_t *pd) : prev_(pd_in_init) { pd_in_init = pd; }
pd_init_scope_t::~pd_init_scope_t() { pd_in_init = prev_; }

status_t init_failed(const pd_t *pd, status_t st) {
    if (st == status::invalid_arguments && verbose::enabled(verbose::flag_create_check, pd->kind())) {
        char info[verbose::info_cap];
        verbose::print("primitive,create:check,%s,%s,invalid arguments", dnnl_prim_kind2str(pd->kind()),
                verbose::pd_info(pd, info, sizeof(info)));
    }
    return st;
}

bool dispatch_verbose_on() { return verbose::enabled(verbose::flag_dispatch); }

status_t decline(const char *impl, const char *why) {
    if (verbose::enabled(verbose::flag_dispatch)) {
        // The whole problem as the declining implementation saw it, as
        // oneDNN prints it; just the name outside make_pd.
        const pd_t *pd = pd_in_init;
        if (pd && !verbose::enabled(verbose::flag_dispatch, pd->kind())) return status::unimplemented;
        if (pd) {
            char info[verbose::info_cap];
            verbose::print("primitive,create:dispatch,%s,%s,%s", dnnl_prim_kind2str(pd->kind()),
                    verbose::pd_info(pd, info, sizeof(info)), why);
        } else {
            verbose::print("primitive,create:dispatch,%s,%s", impl, why);
        }
    }
    return status::unimplemented;
}

namespace {

// Calls `visit` on each descriptor of the pd's roles until it returns true.
template <typename visit_t>
void visit_role_mds(const pd_t &pd, const visit_t &visit) {
    using getter_t = const memory_desc_t *(pd_t::*)(int) const;
    for (getter_t g : {&pd_t::src_md, &pd_t::dst_md, &pd_t::weights_md, &pd_t::diff_src_md,
                 &pd_t::diff_dst_md, &pd_t::diff_weights_md, &pd_t::workspace_md}) {
        // Roles with several descriptors (concat and sum sources, bias after
        // weights) end at the first zero descriptor.
        for (int i = 0; i < (1 << 16); ++i) {
            const memory_desc_t *md = (pd.*g)(i);
            if (!md || mdw_t(md).is_zero()) break;
            if (visit(*md)) return;
        }
    }
}

} // namespace

unsigned pd_t::unusual_mds(unsigned wanted) const {
    unsigned found = 0;
    visit_role_mds(*this, [&](const memory_desc_t &md) {
        if (mdw_t(md).is_sparse()) found |= md_sparse;
        if (is_sub_byte(md.data_type)) found |= md_sub_byte;
        return (found & wanted) == wanted;
    });
    if ((wanted & md_sub_byte) && !(found & md_sub_byte)) {
        for (const auto &q : attr_.zero_points.items)
            if (is_sub_byte(q.e.dt)) found |= md_sub_byte;
        for (const auto &e : attr_.post_ops.entries)
            if ((e.kind == dnnl_sum && is_sub_byte(e.sum.dt))
                    || (e.kind == dnnl_binary
                            && (is_sub_byte(e.binary.src1_desc.data_type)
                                    || is_sub_byte(e.binary.src2_desc.data_type))))
                found |= md_sub_byte;
    }
    return found & wanted;
}

status_t create_pd_handle(dnnl_primitive_desc **out, const op_desc_t &desc,
        const dnnl_primitive_attr *attr, dnnl_engine *engine, impl_list_t list,
        const dnnl_primitive_desc *hint) {
    // Dropout is a matmul attribute (as in oneDNN on CPU): every other kind
    // declines it here, whether or not its implementations check attributes.
    if (attr && attr->dropout && desc.kind != dnnl_matmul) {
        if (verbose::enabled(verbose::flag_dispatch, desc.kind))
            verbose::print("primitive,create:dispatch,%s,dropout attribute is not supported",
                    dnnl_prim_kind2str(desc.kind));
        return status::unimplemented;
    }
    // A fused depthwise convolution (dnnl_post_ops_append_dw) changes dst's
    // shape; only a convolution implementation that fuses it may accept it
    // (the others decline its entry), and a kind that ignores its post-ops
    // must not take it as a no-op.
    if (attr && attr->post_ops.find(dnnl_convolution) >= 0 && desc.kind != dnnl_convolution) {
        if (verbose::enabled(verbose::flag_dispatch, desc.kind))
            verbose::print("primitive,create:dispatch,%s,depthwise post-op is not supported",
                    dnnl_prim_kind2str(desc.kind));
        return status::unimplemented;
    }
    std::unique_ptr<dnnl_primitive_desc> h(new (std::nothrow) dnnl_primitive_desc);
    if (!h) return status::out_of_memory;
    h->desc.reset(desc.clone());
    if (!h->desc) return status::out_of_memory;
    if (attr) h->attr = *attr;
    h->engine = engine;
    h->list = list;
    if (hint && hint->pd()) {
        h->hint.reset(hint->pd()->clone());
        if (!h->hint) return status::out_of_memory;
    }
    std::string key;
    const bool cached = pd_cache_key(*h->desc, h->attr, engine, list, hint, key);
    if (cached && pd_cache_find(key, h->impl, h->impl_idx)) {
        *out = h.release();
        return status::success;
    }
    for (int i = 0; list[i].create; ++i) {
        pd_t *pd = nullptr;
        status_t st = list[i].create(&pd, h->desc.get(), &h->attr, engine, h->hint.get());
        if (st == status::success) {
            h->impl.reset(pd);
            h->impl_idx = i;
            if (cached) pd_cache_put(key, *pd, i);
            *out = h.release();
            return status::success;
        }
        if (st != status::unimplemented) return st;
    }
    if (verbose::enabled(verbose::flag_create_check, desc.kind))
        verbose::print("primitive,create:check,%s,no implementation accepts the problem (unimplemented)",
                dnnl_prim_kind2str(desc.kind));
    return status::unimplemented;
}

} // namespace kestrel
