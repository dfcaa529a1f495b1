// Low-precision convolution on blocked / channels-first data through the
// channels-last kernels; see conv_nxc_wrap.hpp.
#include "cpu/conv/conv_nxc_wrap.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "cpu/reorder/layout_util.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// Far above any key an inner implementation books (those start at 0).
constexpr scratchpad::key_t key_src = 0x40000000u, key_dst = key_src + 1;
// Execution arguments the inner primitive may take (an array on the stack).
constexpr size_t max_args = 96;

format_tag_t nxc_tag(int nd) { return nd == 3 ? dnnl_nwc : nd == 4 ? dnnl_nhwc : dnnl_ndhwc; }

// A data tensor this wrapper converts: blocked, with no inner block or a
// single one over the channels.
bool channel_blocked(const memory_desc_t &md) {
    const mdw_t m(md);
    if (!m.is_blocked() || m.has_runtime_dims_or_strides()) return false;
    const auto &b = m.blk();
    return b.inner_nblks == 0 || (b.inner_nblks == 1 && b.inner_idxs[0] == 1);
}

// Where (n, c, d, h, w) of a channel-blocked tensor lives, in elements:
// off0 + n * sn + (c / blk) * sc + c % blk + d * sd + h * sh + w * sw.
struct view_t {
    dim_t off0 = 0, sn = 0, sc = 0, sd = 0, sh = 0, sw = 0, blk = 1;
    dim_t C = 0, D = 1, H = 1, W = 1;
    explicit view_t(const memory_desc_t &md) {
        const auto &b = md.blocking;
        const int nd = md.ndims;
        off0 = md.offset0;
        sn = b.strides[0];
        sc = b.strides[1];
        blk = b.inner_nblks == 1 ? b.inner_blks[0] : 1;
        C = md.dims[1];
        sw = b.strides[nd - 1];
        W = md.dims[nd - 1];
        if (nd >= 4) sh = b.strides[nd - 2], H = md.dims[nd - 2];
        if (nd == 5) sd = b.strides[2], D = md.dims[2];
    }
};

// One row (n, d, h) of W points between the user's tensor and the dense
// channels-last buffer, for elements of type T and blocks of B channels
// (B == 1: channels-first, one element per channel, walked along w for
// each channel). u: the user's row at w = 0, channel 0; x: the buffer's.
template <typename T, int B>
void row(const view_t &v, T *u, T *x, bool to_nxc) {
    const dim_t W = v.W, C = v.C, sw = v.sw, sc = v.sc;
    if (B == 1) {
        for (dim_t c = 0; c < C; ++c) {
            T *uc = u + c * sc, *xc = x + c;
            if (to_nxc)
                for (dim_t w = 0; w < W; ++w) xc[w * C] = uc[w * sw];
            else
                for (dim_t w = 0; w < W; ++w) uc[w * sw] = xc[w * C];
        }
        return;
    }
    const dim_t nfull = C / B, tail = C % B;
    for (dim_t w = 0; w < W; ++w) {
        T *uw = u + w * sw, *xw = x + w * C;
        for (dim_t cb = 0; cb < nfull; ++cb) {
            if (to_nxc)
                std::memcpy(xw + cb * B, uw + cb * sc, sizeof(T) * B);
            else
                std::memcpy(uw + cb * sc, xw + cb * B, sizeof(T) * B);
        }
        if (tail) {
            T *ut = uw + nfull * sc, *xt = xw + nfull * B;
            if (to_nxc)
                std::memcpy(xt, ut, sizeof(T) * tail);
            else
                std::memcpy(ut, xt, sizeof(T) * tail);
        }
    }
}

// Between a user tensor (view v over `user`) and the dense channels-last
// buffer `nxc`, in parallel over rows (n, d, h). to_nxc: user -> nxc; else
// nxc -> user (the padded channels of a blocked dst are zeroed after every
// execution, as for any output). The user pointer is written only when
// !to_nxc.
template <typename T>
void convert_t(const view_t &v, dim_t MB, const void *user, void *nxc, bool to_nxc) {
    T *u = static_cast<T *>(const_cast<void *>(user)), *x = static_cast<T *>(nxc);
    const dim_t rows = MB * v.D * v.H;
    parallel_nd(rows, [&](dim_t r) {
        const dim_t h = r % v.H, d = (r / v.H) % v.D, n = r / (v.H * v.D);
        T *ur = u + v.off0 + n * v.sn + d * v.sd + h * v.sh, *xr = x + r * v.W * v.C;
        switch (v.blk) {
            case 1: row<T, 1>(v, ur, xr, to_nxc); break;
            case 4: row<T, 4>(v, ur, xr, to_nxc); break;
            case 8: row<T, 8>(v, ur, xr, to_nxc); break;
            case 16: row<T, 16>(v, ur, xr, to_nxc); break;
            case 32: row<T, 32>(v, ur, xr, to_nxc); break;
            default: {
                // Other block sizes: element by element.
                const dim_t C = v.C, blk = v.blk;
                for (dim_t w = 0; w < v.W; ++w)
                    for (dim_t c = 0; c < C; ++c) {
                        T *ue = ur + w * v.sw + c / blk * v.sc + c % blk;
                        if (to_nxc)
                            xr[w * C + c] = *ue;
                        else
                            *ue = xr[w * C + c];
                    }
            }
        }
    });
}

void convert(const view_t &v, dim_t MB, size_t es, const void *user, void *nxc, bool to_nxc) {
    if (es == 1)
        convert_t<uint8_t>(v, MB, user, nxc, to_nxc);
    else if (es == 2)
        convert_t<uint16_t>(v, MB, user, nxc, to_nxc);
    else
        convert_t<uint32_t>(v, MB, user, nxc, to_nxc);
}

} // namespace

status_t conv_nxc_wrap_fwd_t::pd_t::init(dnnl_engine *engine) {
    const char *me = name();
    const conv_geom_t &g = geom_;
    if (g.is_deconv) return decline(me, "deconvolution");
    if (!one_of(src_md_.data_type, dnnl_u8, dnnl_s8, dnnl_bf16, dnnl_f16))
        return decline(me, "data types (f32 has blocked and channels-first kernels)");
    if (attr_.post_ops.find(dnnl_convolution) >= 0) return decline(me, "depthwise post-op");
    const mdw_t s(src_md_), d(dst_md_);
    if (s.is_any() && d.is_any()) return decline(me, "data format any (channels-last kernels take it)");
    for (const mdw_t *m : {&s, &d})
        if (!m->is_any() && !channel_blocked(m->md())) return decline(me, "data layouts");
    const int nd = g.ndims;
    if (nd < 3 || nd > 5) return decline(me, "dimensions");
    const format_tag_t nxc = nxc_tag(nd);
    if ((s.is_any() || s.matches_tag(nxc)) && (d.is_any() || d.matches_tag(nxc)))
        return decline(me, "channels-last data (served directly)");
    // A tensor left `any` follows the other's layout.
    if (s.is_any()) KESTREL_CHECK(data_movement::md_dense_like(src_md_, dst_md_));
    if (d.is_any()) KESTREL_CHECK(data_movement::md_dense_like(dst_md_, src_md_));
    if (mdw_t(src_md_).has_zero_dim() || mdw_t(dst_md_).has_zero_dim()) return decline(me, "zero dims");

    KESTREL_CHECK(md_init_by_tag(src_nxc, nd, src_md_.dims, src_md_.data_type, nxc));
    KESTREL_CHECK(md_init_by_tag(dst_nxc, nd, dst_md_.dims, dst_md_.data_type, nxc));
    conv_desc_t id = desc_;
    id.src = src_nxc;
    id.dst = dst_nxc;
    id.weights = weights_md_;
    id.bias = bias_md_;

    // The first implementation of the list that takes the channels-last
    // problem (the one a user of nhwc data gets); never the reference or
    // this one.
    kestrel::pd_t *raw = nullptr;
    for (const impl_entry_t *e = conv_fwd_impl_list; e->name; ++e) {
        if (!std::strcmp(e->name, "nxc_wrap") || !std::strcmp(e->name, "ref:any")) continue;
        if (e->create(&raw, &id, &attr_, engine, nullptr) == status::success) break;
        raw = nullptr;
    }
    if (!raw) return decline(me, "no channels-last implementation takes the problem");
    std::shared_ptr<const kestrel::pd_t> in(raw);
    const bool plain = mdw_t(src_md_).is_plain() && mdw_t(dst_md_).is_plain();
    if (plain && std::strncmp(in->name(), "direct:", 7) != 0)
        return decline(me, "channels-first data without a direct channels-last kernel");
    if (in->exec_args().size() > max_args) return decline(me, "too many execution arguments");

    weights_md_ = *in->weights_md(0);
    bias_md_ = *in->weights_md(1);
    attr_ = *in->attr(); // binary sources resolved from `any`
    with_sum = attr_.post_ops.find(dnnl_sum) >= 0;
    auto &r = scratchpad_registry();
    r.book_nested(0, in->scratchpad_registry());
    r.book(key_src, mdw_t(src_nxc).size());
    r.book(key_dst, mdw_t(dst_nxc).size());
    name_ = std::string(in->name()) + "+nxc";
    inner = std::move(in);
    return status::success;
}

status_t conv_nxc_wrap_fwd_t::init() {
    KESTREL_CHECK(primitive_t::init());
    return pd()->inner->create_primitive(inner_);
}

status_t conv_nxc_wrap_fwd_t::execute(const exec_ctx_t &ctx) const {
    const pd_t *p = pd();
    const auto &sg = ctx.scratchpad();
    char *bs = sg.get<char>(key_src), *bd = sg.get<char>(key_dst);
    if (!bs || !bd) return status::out_of_memory;
    const char *src = ctx.input<char>(DNNL_ARG_SRC);
    char *dst = ctx.output<char>(DNNL_ARG_DST);
    const dim_t MB = p->geom().MB;
    const view_t vs(*p->src_md()), vd(*p->dst_md());
    const size_t ses = data_type_size(p->src_md()->data_type), des = data_type_size(p->dst_md()->data_type);
    convert(vs, MB, ses, src, bs, true);
    if (p->with_sum) convert(vd, MB, des, dst, bd, true);

    // The inner primitive reads only the data pointers of its arguments.
    dnnl_memory ms, md;
    ms.md = p->src_nxc;
    ms.data = bs;
    md.md = p->dst_nxc;
    md.data = bd;
    dnnl_exec_arg_t args[max_args];
    int nargs = 0;
    for (int a : p->inner->exec_args()) {
        dnnl_memory *m = a == DNNL_ARG_SRC ? &ms : a == DNNL_ARG_DST ? &md : ctx.memory(a);
        if (m) args[nargs++] = {a, m};
    }
    const exec_ctx_t ictx(ctx.stream(), nargs, args, sg);
    KESTREL_CHECK(inner_->execute(ictx));
    convert(vd, MB, des, dst, bd, false);
    return status::success;
}

} // namespace kestrel
