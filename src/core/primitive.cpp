#include "core/primitive.hpp"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "config.h"
#include "core/primitive_cache.hpp"
#include "core/verbose.hpp"
#include "core/zero_pad.hpp"
#include "dnnl_debug.h"
#include "scratchpad/arena.hpp"

namespace kestrel {

namespace {

scratchpad_policy_t policy_from_env() {
    const char *v = std::getenv("ONEDNN_SCRATCHPAD");
    if (!v) v = std::getenv("DNNL_SCRATCHPAD");
    if (v && !std::strcmp(v, "private")) return scratchpad_policy_t::private_buffer;
    if (v && !std::strcmp(v, "global")) return scratchpad_policy_t::global_arena;
#ifdef KESTREL_CONCURRENT_EXEC
    return scratchpad_policy_t::private_buffer;
#else
    return scratchpad_policy_t::global_arena;
#endif
}

std::atomic<int> policy_override {-1};

} // namespace

scratchpad_policy_t library_scratchpad_policy() {
    static const scratchpad_policy_t from_env = policy_from_env();
    int o = policy_override.load(std::memory_order_relaxed);
    return o < 0 ? from_env : (scratchpad_policy_t)o;
}

void set_library_scratchpad_policy(scratchpad_policy_t policy) {
    policy_override.store((int)policy);
}

namespace {

// A pd md with runtime dims/strides (DNNL_RUNTIME_DIM_VAL) accepts a memory
// md that fills them in: same rank, type and blocking, every known dim and
// stride equal. The primitive reads the real values from the memory md.
bool fills_runtime_md(const memory_desc_t &have, const memory_desc_t &want) {
    if (have.ndims != want.ndims || have.data_type != want.data_type
            || have.format_kind != dnnl_blocked || want.format_kind != dnnl_blocked
            || mdw_t(have).has_runtime_dims_or_strides())
        return false;
    if (have.blocking.inner_nblks != want.blocking.inner_nblks) return false;
    for (int d = 0; d < want.ndims; ++d) {
        dim_t wd = want.dims[d], ws = want.blocking.strides[d];
        if (wd != DNNL_RUNTIME_DIM_VAL && wd != have.dims[d]) return false;
        if (ws != DNNL_RUNTIME_DIM_VAL && have.dims[d] > 1 && ws != have.blocking.strides[d])
            return false;
    }
    return true;
}

// oneDNN lets a primitive built on a sub-memory descriptor (a view into a
// larger plain tensor: same strides, smaller dims, an offset) run on the
// memory of the whole tensor; the primitive then addresses the buffer
// through its own descriptor. Accepted when both are plain (no inner
// blocks) with the same type, rank and strides (along every dim the view
// steps through), every dim of the view fits
// the whole tensor, and every element the view addresses lies inside what
// the memory's own descriptor spans, so nothing outside the user's buffer is
// touched. A different layout of the same size (other strides) is still a
// wrong argument.
bool is_view_into(const memory_desc_t &have, const memory_desc_t &want) {
    if (have.ndims != want.ndims || have.ndims == 0 || have.data_type != want.data_type
            || have.format_kind != dnnl_blocked || want.format_kind != dnnl_blocked
            || have.blocking.inner_nblks != 0 || want.blocking.inner_nblks != 0
            || mdw_t(have).has_runtime_dims_or_strides() || mdw_t(want).has_runtime_dims_or_strides())
        return false;
    dim_t want_hi = want.offset0, have_hi = have.offset0;
    for (int d = 0; d < want.ndims; ++d) {
        // A dim of size 1 is never stepped along, so its stride is free.
        const dim_t st = want.blocking.strides[d];
        if ((want.dims[d] > 1 && st != have.blocking.strides[d]) || st < 0) return false;
        if (want.dims[d] <= 0 || want.dims[d] > have.dims[d]) return false;
        want_hi += (want.padded_dims[d] - 1) * st;
        have_hi += (have.padded_dims[d] - 1) * st;
    }
    return want.offset0 >= have.offset0 && want_hi <= have_hi;
}

// The weights of a prelu post-op: exactly the descriptor the pd reports.
status_t check_prelu_weights(const pd_t *pd, int arg, const dnnl_memory *m) {
    if (!m || !m->data) return status::invalid_arguments;
    return md_equal(m->md, *pd->arg_md(arg)) ? status::success : status::invalid_arguments;
}

// Checks one argument the primitive uses (see pd_t::exec_args()).
status_t check_arg(const pd_t *pd, const exec_ctx_t &ctx, int arg) {
    const int prelu = pd->prelu_post_op(arg);
    if (prelu >= 0) return check_prelu_weights(pd, arg, ctx.memory(arg));
    const memory_desc_t *want = pd->arg_md(arg);
    dnnl_memory *m = ctx.memory(arg);
    if (mdw_t(want).has_runtime_dims_or_strides()) {
        if (!m) return status::invalid_arguments;
        if (!fills_runtime_md(m->md, *want)) return status::invalid_arguments;
        return mdw_t(m->md).size() > 0 && !m->data ? status::invalid_arguments : status::success;
    }
    bool quant = (arg & (DNNL_ARG_ATTR_SCALES | DNNL_ARG_ATTR_ZERO_POINTS)) != 0;
    // Every buffer of the descriptor (a sparse one has several) must be there.
    const int nbuf = quant ? 1 : md_num_handles(*want);
    size_t need = quant ? 1 : 0;
    for (int i = 0; i < nbuf && !quant; ++i) need += mdw_t(want).size(i);
    if (!m) return need == 0 ? status::success : status::invalid_arguments;
    if (quant) return m->data ? status::success : status::invalid_arguments;
    if (!mdw_t(want).is_zero() && !md_equal(m->md, *want)
            && (arg == DNNL_ARG_WORKSPACE || arg == DNNL_ARG_SCRATCHPAD || !is_view_into(m->md, *want)))
        return status::invalid_arguments;
    for (int i = 0; i < nbuf; ++i)
        if (mdw_t(want).size(i) > 0 && !m->handle(i)) return status::invalid_arguments;
    return status::success;
}

// In-place execution as oneDNN documents it: the output is the very same
// memory as one input (same buffer, same descriptor), and each element of
// the output depends only on the same element of that input. RNN: the
// final states may go to the memory of the initial ones (oneDNN's decoder
// examples do so); each layer and direction reads its initial state before
// it writes its final one.
bool in_place_allowed(dnnl_primitive_kind_t kind, int in, int out) {
    switch (kind) {
        case dnnl_rnn:
            return (in == DNNL_ARG_SRC_ITER && out == DNNL_ARG_DST_ITER)
                    || (in == DNNL_ARG_SRC_ITER_C && out == DNNL_ARG_DST_ITER_C);
        case dnnl_eltwise:
        case dnnl_softmax:
        case dnnl_batch_normalization:
        case dnnl_layer_normalization:
        case dnnl_group_normalization:
            return (in == DNNL_ARG_SRC && out == DNNL_ARG_DST)
                    || (in == DNNL_ARG_DIFF_DST && out == DNNL_ARG_DIFF_SRC);
        case dnnl_binary: return in == DNNL_ARG_SRC_0 && out == DNNL_ARG_DST;
        case dnnl_sum: return in >= DNNL_ARG_MULTIPLE_SRC && out == DNNL_ARG_DST;
        default: return false;
    }
}

bool same_logical_dims(const memory_desc_t &a, const memory_desc_t &b) {
    if (a.ndims != b.ndims) return false;
    for (int d = 0; d < a.ndims; ++d)
        if (a.dims[d] != b.dims[d]) return false;
    return true;
}

// The bytes an argument's memory spans; empty when it has no data.
struct span_t {
    const char *lo = nullptr, *hi = nullptr;
};
span_t span_of(const dnnl_memory *m, int index = 0) {
    span_t s;
    if (!m || !m->handle(index)) return s;
    const mdw_t w(m->md);
    size_t n = w.size(index);
    if (n == 0 || n == DNNL_RUNTIME_SIZE_VAL) return s;
    const char *base = static_cast<const char *>(m->handle(index));
    if (is_sub_byte(w.data_type())) { // offset0 may start inside a byte
        s.lo = base + m->md.offset0 / 2;
        s.hi = base + bytes_of(w.data_type(), m->md.offset0 + w.span_elems());
        return s;
    }
    s.lo = base + m->md.offset0 * (dim_t)w.dt_size();
    s.hi = s.lo + n;
    return s;
}

// True when any buffer of memory `m` shares a byte with span `o`.
bool overlaps(const dnnl_memory *m, const span_t &o) {
    for (int i = 0; m && i < m->nhandles; ++i) {
        const span_t si = span_of(m, i);
        if (si.lo && si.lo < o.hi && o.lo < si.hi) return true;
    }
    return false;
}

// An output that overlaps an input gives wrong results (or reads what it
// has just written) unless the pair is an in-place one. oneDNN leaves this
// undefined; Kestrel refuses it before writing anything.
status_t check_aliasing(const pd_t *pd, const exec_ctx_t &ctx) {
    const auto &args = pd->exec_args();
    for (int out : args) {
        if (pd->arg_usage(out) != arg_usage_t::output) continue;
        const dnnl_memory *mo = ctx.memory(out);
        const span_t so = span_of(mo);
        if (!so.lo) continue;
        for (int in : args) {
            if (pd->arg_usage(in) != arg_usage_t::input) continue;
            const dnnl_memory *mi = ctx.memory(in);
            if (!overlaps(mi, so)) continue;
            const bool same = mi == mo || (mi->data == mo->data && md_equal(mi->md, mo->md));
            if (!(same && in_place_allowed(pd->kind(), in, out))) return status::invalid_arguments;
            // A broadcast binary src0 (dims of 1 where dst's are not) would
            // read elements the output has already overwritten. (An RNN's
            // initial and final states may differ in width: SIC vs DIC.)
            if (pd->kind() == dnnl_binary && !same_logical_dims(*pd->arg_md(in), *pd->arg_md(out)))
                return status::invalid_arguments;
        }
    }
    // Two outputs never share bytes.
    for (size_t i = 0; i < args.size(); ++i) {
        if (pd->arg_usage(args[i]) != arg_usage_t::output) continue;
        const span_t a = span_of(ctx.memory(args[i]));
        if (!a.lo) continue;
        for (size_t j = i + 1; j < args.size(); ++j) {
            if (pd->arg_usage(args[j]) != arg_usage_t::output) continue;
            const span_t b = span_of(ctx.memory(args[j]));
            if (b.lo && a.lo < b.hi && b.lo < a.hi) return status::invalid_arguments;
        }
    }
    return status::success;
}

// In check mode, says why an execution was refused (oneDNN's exec:check).
void exec_check(const pd_t *pd, const char *why, int arg) {
    if (!verbose::enabled(verbose::flag_exec_check, pd->kind())) return;
    verbose::print("primitive,exec:check,%s,%s (argument %d)", dnnl_prim_kind2str(pd->kind()), why, arg);
}

status_t check_args(const pd_t *pd, const exec_ctx_t &ctx) {
    for (int arg : pd->exec_args()) {
        const status_t st = check_arg(pd, ctx, arg);
        if (st != status::success) {
            exec_check(pd, "execution argument missing or not matching the primitive descriptor", arg);
            return st;
        }
    }
    const status_t st = check_aliasing(pd, ctx);
    if (st != status::success)
        exec_check(pd, "an output overlaps an input outside the in-place pairs (or in place with a broadcast input)", -1);
    return st;
}

// A profiling line: the operation, every field of the problem, the time in
// milliseconds; the timestamp column (if on) is when the call started.
void print_profile(const char *op, const pd_t *pd, double ms) {
    if (!verbose::enabled(verbose::flag_all, pd->kind())) return;
    char info[verbose::info_cap];
    verbose::print_at(verbose::wall_ms() - ms, "primitive,%s,%s,%g", op, verbose::pd_info(pd, info, sizeof(info)), ms);
}

} // namespace

status_t primitive_create(dnnl_primitive **out, const dnnl_primitive_desc *h) {
    const pd_t *pd = h->pd();
    std::unique_ptr<dnnl_primitive> p(new (std::nothrow) dnnl_primitive);
    if (!p) return status::out_of_memory;
    p->pd.desc.reset(h->desc->clone());
    p->pd.impl.reset(pd->clone());
    if (!p->pd.desc || !p->pd.impl) return status::out_of_memory;
    p->pd.list = h->list;
    p->pd.impl_idx = h->impl_idx;
    p->pd.engine = h->engine;
    p->pd.attr = h->attr;
    const bool timed = verbose::enabled(verbose::flag_create_profile);
    const double t0 = timed ? verbose::now_ms() : 0.0;
    bool hit = false;
    KESTREL_CHECK(primitive_cache_get(*h, p->impl, &hit));
    if (timed) print_profile(hit ? "create:cache_hit" : "create:cache_miss", pd, verbose::now_ms() - t0);

    // The scratchpad is what the (possibly shared) implementation books.
    size_t need = p->impl->pd()->scratchpad_size();
    if (need == 0) {
        p->policy = scratchpad_policy_t::none;
    } else if (pd->attr()->scratchpad_mode == dnnl_scratchpad_mode_user) {
        p->policy = scratchpad_policy_t::user;
    } else {
        p->policy = library_scratchpad_policy();
        if (p->policy == scratchpad_policy_t::private_buffer) {
            p->private_scratchpad = aligned_malloc(need, 4096);
            if (!p->private_scratchpad) return status::out_of_memory;
        } else {
            scratchpad::arena_t::global().attach();
        }
    }
    *out = p.release();
    return status::success;
}

namespace {

// The gradients of parameters (weights, bias, scale, shift) are sums over
// the minibatch: over an empty one they are zero, as oneDNN writes them.
void zero_param_grads(const pd_t *pd, const exec_ctx_t &ctx) {
    for (int arg : {DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT}) {
        if (pd->arg_usage(arg) != arg_usage_t::output) continue;
        const span_t sp = span_of(ctx.memory(arg));
        if (sp.lo) std::memset(const_cast<char *>(sp.lo), 0, (size_t)(sp.hi - sp.lo));
    }
}

// Whatever a kernel and its post-ops left there, the padding of every
// blocked output ends zero (the scratchpad is no output in this sense).
void zero_pad_outputs(const pd_t *pd, int nargs, const dnnl_exec_arg_t *args) {
    for (int i = 0; i < nargs; ++i) {
        const dnnl_memory *m = args[i].memory;
        if (!m || !m->data || args[i].arg == DNNL_ARG_SCRATCHPAD) continue;
        if (pd->arg_usage(args[i].arg) != arg_usage_t::output) continue;
        zero_pad(m->md, m->data);
    }
}

} // namespace

status_t primitive_execute(const dnnl_primitive *p, dnnl_stream *stream, int nargs,
        const dnnl_exec_arg_t *args) {
    const pd_t *pd = p->impl->pd();
    // An entry whose memory is NULL is no argument at all (exec_ctx_t skips
    // it): C++ code passes an empty dnnl::memory() for an absent bias, zero
    // point or workspace, and oneDNN ignores such entries.
    const auto &reg = pd->scratchpad_registry();
    scratchpad::grantor_t no_scratchpad;
    exec_ctx_t probe(stream, nargs, args, no_scratchpad);
    KESTREL_CHECK(check_args(pd, probe));
    // A problem with a zero-sized source or destination has nothing to
    // compute (sum and concat skip their empty sources themselves).
    if (pd->kind() != dnnl_sum && pd->kind() != dnnl_concat
            && (mdw_t(*pd->src_md()).has_zero_dim() || mdw_t(*pd->dst_md()).has_zero_dim())) {
        zero_param_grads(pd, probe);
        return status::success;
    }

    const bool timed = verbose::enabled(verbose::flag_exec_profile);
    const double t0 = timed ? verbose::now_ms() : 0.0;
    status_t st;
    switch (p->policy) {
        case scratchpad_policy_t::user: {
            dnnl_memory *m = probe.memory(DNNL_ARG_SCRATCHPAD);
            if (!m || !m->data || m->engine != p->pd.engine || mdw_t(m->md).size() < reg.size()) {
                exec_check(pd, "user scratchpad missing, too small or from another engine", DNNL_ARG_SCRATCHPAD);
                return status::invalid_arguments;
            }
            // Regions are laid out aligned relative to the buffer, and the
            // vector kernels load them aligned: a buffer that is not itself
            // aligned (a user handle from std::vector, say) is refused
            // rather than faulted on.
            char *base = static_cast<char *>(m->data);
            if (reinterpret_cast<uintptr_t>(base) % scratchpad::default_align != 0) return status::invalid_arguments;
            scratchpad::grantor_t g(&reg, base);
            st = p->impl->execute(exec_ctx_t(stream, nargs, args, g));
            break;
        }
        case scratchpad_policy_t::global_arena: {
            scratchpad::exec_lease_t lease;
            if (!lease.acquire(scratchpad::arena_t::global(), reg)) return status::out_of_memory;
            scratchpad::grantor_t g(&reg, lease.base(), lease.split_slabs() ? &lease : nullptr);
            st = p->impl->execute(exec_ctx_t(stream, nargs, args, g));
            if (st == status::success && lease.failed()) st = status::out_of_memory;
            break;
        }
        case scratchpad_policy_t::private_buffer: {
            scratchpad::grantor_t g(&reg, static_cast<char *>(p->private_scratchpad));
            st = p->impl->execute(exec_ctx_t(stream, nargs, args, g));
            break;
        }
        default: st = p->impl->execute(probe); break;
    }
    if (st == status::success) zero_pad_outputs(pd, nargs, args);
    if (timed) {
        print_profile("exec", pd, verbose::now_ms() - t0);
        if (p->policy == scratchpad_policy_t::global_arena) scratchpad::arena_t::global().report("exec");
    }
    return st;
}

} // namespace kestrel

dnnl_primitive::~dnnl_primitive() {
    using kestrel::scratchpad_policy_t;
    impl.reset();
    if (policy == scratchpad_policy_t::private_buffer) kestrel::aligned_free(private_scratchpad);
    if (policy == scratchpad_policy_t::global_arena) kestrel::scratchpad::arena_t::global().detach();
}
