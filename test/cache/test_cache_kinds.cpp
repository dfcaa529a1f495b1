// The primitive cache key of every kind that serializes its op desc.
//
// Two levels:
//   - unit: each op desc struct, one field changed at a time (every slot of
//     the spatial arrays, every memory descriptor, every scalar), must give
//     different key bytes; a copy must give the same bytes;
//   - end to end through the C API: per kind a base problem and variants
//     that each change exactly ONE parameter. Wherever the geometry allows,
//     the variant keeps every memory descriptor equal to the base (checked),
//     so only the op desc field can tell them apart. Every (variant,
//     implementation) pair reached through next_impl must miss and get an
//     implementation of its own; making it again must hit and share; and
//     each cached primitive must write the very bytes an uncached one
//     (capacity 0) writes on the same input: the same code runs on the same
//     data with the same thread count and static work split, so the
//     comparison is exact.
#include <atomic>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "core/primitive.hpp"
#include "core/primitive_cache.hpp"
#include "cpu/conv/conv_pd.hpp"
#include "cpu/eltwise/binary_pd.hpp"
#include "cpu/eltwise/eltwise_pd.hpp"
#include "cpu/eltwise/prelu.hpp"
#include "cpu/eltwise/shuffle.hpp"
#include "cpu/eltwise/softmax_pd.hpp"
#include "cpu/gemm/inner_product_pd.hpp"
#include "cpu/gemm/matmul_pd.hpp"
#include "dnnl.hpp"
#include "dnnl_debug.h"
#include "kt_test.hpp"

namespace {

kt::tally_t tally;
dnnl_engine_t eng = nullptr;
dnnl_stream_t strm = nullptr;

using dims_v = std::vector<dnnl_dim_t>;

// ---------------------------------------------------------------- unit level

template <typename desc_t>
std::string key_of(const desc_t &d) {
    kestrel::key_writer_t k;
    bool ok = d.serialize(k);
    return ok ? k.take() : std::string();
}

kestrel::memory_desc_t plain_md(const dims_v &dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    kestrel::memory_desc_t md = kestrel::zero_md();
    KT_OK(kestrel::md_init_by_tag(md, (int)dims.size(), dims.data(), dt, tag));
    return md;
}

// Applies each mutation to a copy of `base`; every one must change the key,
// and the unchanged copy must not.
template <typename desc_t>
void unit_check(const char *kind, const desc_t &base,
        const std::vector<std::pair<const char *, std::function<void(desc_t &)>>> &muts) {
    const std::string k0 = key_of(base);
    tally.check(!k0.empty(), (std::string(kind) + ": serialize opts in").c_str());
    desc_t copy = base;
    tally.check(key_of(copy) == k0, (std::string(kind) + ": a copy has the same key").c_str());
    for (const auto &m : muts) {
        desc_t d = base;
        m.second(d);
        tally.check(key_of(d) != k0, (std::string(kind) + ": key holds " + m.first).c_str());
    }
}

void unit_conv() {
    using kestrel::conv_desc_t;
    for (auto kind : {dnnl_convolution, dnnl_deconvolution}) {
        conv_desc_t b(kind);
        b.prop_kind = dnnl_forward_training;
        b.alg_kind = kind == dnnl_convolution ? dnnl_convolution_direct : dnnl_deconvolution_direct;
        b.src = plain_md({2, 3, 5, 5}, dnnl_f32, dnnl_nchw);
        b.weights = plain_md({4, 3, 3, 3}, dnnl_f32, dnnl_oihw);
        b.bias = plain_md({4}, dnnl_f32, dnnl_a);
        b.dst = plain_md({2, 4, 3, 3}, dnnl_f32, dnnl_nchw);
        std::vector<std::pair<const char *, std::function<void(conv_desc_t &)>>> m = {
                {"prop kind", [](conv_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                {"alg kind", [](conv_desc_t &d) { d.alg_kind = dnnl_convolution_auto; }},
                {"src md", [](conv_desc_t &d) { d.src = plain_md({2, 3, 5, 5}, dnnl_f32, dnnl_nhwc); }},
                {"weights md", [](conv_desc_t &d) { d.weights = plain_md({4, 3, 3, 3}, dnnl_f32, dnnl_ohwi); }},
                {"bias md (absent)", [](conv_desc_t &d) { d.bias = kestrel::zero_md(); }},
                {"bias data type", [](conv_desc_t &d) { d.bias = plain_md({4}, dnnl_bf16, dnnl_a); }},
                {"dst md", [](conv_desc_t &d) { d.dst = plain_md({2, 4, 3, 3}, dnnl_bf16, dnnl_nchw); }},
        };
        // Every slot of every spatial array, not only the first ndims - 2.
        static const char *names[4][DNNL_MAX_NDIMS] = {
                {"strides[0]", "strides[1]", "strides[2]", "strides[3]", "strides[4]", "strides[5]",
                        "strides[6]", "strides[7]", "strides[8]", "strides[9]", "strides[10]", "strides[11]"},
                {"dilates[0]", "dilates[1]", "dilates[2]", "dilates[3]", "dilates[4]", "dilates[5]",
                        "dilates[6]", "dilates[7]", "dilates[8]", "dilates[9]", "dilates[10]", "dilates[11]"},
                {"pad_l[0]", "pad_l[1]", "pad_l[2]", "pad_l[3]", "pad_l[4]", "pad_l[5]", "pad_l[6]",
                        "pad_l[7]", "pad_l[8]", "pad_l[9]", "pad_l[10]", "pad_l[11]"},
                {"pad_r[0]", "pad_r[1]", "pad_r[2]", "pad_r[3]", "pad_r[4]", "pad_r[5]", "pad_r[6]",
                        "pad_r[7]", "pad_r[8]", "pad_r[9]", "pad_r[10]", "pad_r[11]"}};
        for (int a = 0; a < 4; ++a)
            for (int i = 0; i < DNNL_MAX_NDIMS; ++i)
                m.push_back({names[a][i], [a, i](conv_desc_t &d) {
                                 kestrel::dim_t *arr[4] = {d.strides, d.dilates, d.pad_l, d.pad_r};
                                 arr[a][i] += 1;
                             }});
        unit_check(kind == dnnl_convolution ? "conv desc" : "deconv desc", b, m);
    }
}

void unit_gemm() {
    using kestrel::ip_fwd_desc_t;
    using kestrel::matmul_desc_t;
    matmul_desc_t mm;
    mm.src_md = plain_md({3, 5}, dnnl_f32, dnnl_ab);
    mm.weights_md = plain_md({5, 4}, dnnl_f32, dnnl_ab);
    mm.bias_md = plain_md({1, 4}, dnnl_f32, dnnl_ab);
    mm.dst_md = plain_md({3, 4}, dnnl_f32, dnnl_ab);
    unit_check<matmul_desc_t>("matmul desc", mm,
            {{"src md", [](matmul_desc_t &d) { d.src_md = plain_md({3, 5}, dnnl_f32, dnnl_ba); }},
                    {"weights md", [](matmul_desc_t &d) { d.weights_md = plain_md({5, 4}, dnnl_f32, dnnl_ba); }},
                    {"bias md (absent)", [](matmul_desc_t &d) { d.bias_md = kestrel::zero_md(); }},
                    {"bias dims", [](matmul_desc_t &d) { d.bias_md = plain_md({3, 4}, dnnl_f32, dnnl_ab); }},
                    {"dst md", [](matmul_desc_t &d) { d.dst_md = plain_md({3, 4}, dnnl_f32, dnnl_ba); }}});

    ip_fwd_desc_t ip;
    ip.prop_kind = dnnl_forward_training;
    ip.src_md = plain_md({2, 3, 4, 4}, dnnl_f32, dnnl_nchw);
    ip.weights_md = plain_md({5, 3, 4, 4}, dnnl_f32, dnnl_oihw);
    ip.bias_md = plain_md({5}, dnnl_f32, dnnl_a);
    ip.dst_md = plain_md({2, 5}, dnnl_f32, dnnl_ab);
    unit_check<ip_fwd_desc_t>("inner product desc", ip,
            {{"prop kind", [](ip_fwd_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                    {"src md", [](ip_fwd_desc_t &d) { d.src_md = plain_md({2, 3, 4, 4}, dnnl_f32, dnnl_nhwc); }},
                    {"weights md", [](ip_fwd_desc_t &d) { d.weights_md = plain_md({5, 3, 4, 4}, dnnl_f32, dnnl_ohwi); }},
                    {"bias md (absent)", [](ip_fwd_desc_t &d) { d.bias_md = kestrel::zero_md(); }},
                    {"dst md", [](ip_fwd_desc_t &d) { d.dst_md = plain_md({2, 5}, dnnl_f32, dnnl_ba); }}});
}

void unit_eltwise_family() {
    using namespace kestrel;
    const memory_desc_t s = plain_md({2, 4, 4}, dnnl_f32, dnnl_abc);
    const memory_desc_t t = plain_md({2, 4, 4}, dnnl_f32, dnnl_acb);

    eltwise_desc_t e;
    e.prop_kind = dnnl_forward_training;
    e.alg = dnnl_eltwise_linear;
    e.alpha = 1.5f;
    e.beta = 0.25f;
    e.src_md = s;
    e.dst_md = s;
    unit_check<eltwise_desc_t>("eltwise desc", e,
            {{"prop kind", [](eltwise_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                    {"alg", [](eltwise_desc_t &d) { d.alg = dnnl_eltwise_relu; }},
                    {"alpha", [](eltwise_desc_t &d) { d.alpha = 1.5000001f; }},
                    {"beta", [](eltwise_desc_t &d) { d.beta = -0.25f; }},
                    {"src md", [&](eltwise_desc_t &d) { d.src_md = t; }},
                    {"dst md", [&](eltwise_desc_t &d) { d.dst_md = t; }}});

    softmax_desc_t sm;
    sm.prop_kind = dnnl_forward_training;
    sm.alg = dnnl_softmax_accurate;
    sm.axis = 1;
    sm.src_md = s;
    sm.dst_md = s;
    unit_check<softmax_desc_t>("softmax desc", sm,
            {{"prop kind", [](softmax_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                    {"alg", [](softmax_desc_t &d) { d.alg = dnnl_softmax_log; }},
                    {"axis", [](softmax_desc_t &d) { d.axis = 2; }},
                    {"src md", [&](softmax_desc_t &d) { d.src_md = t; }},
                    {"dst md", [&](softmax_desc_t &d) { d.dst_md = t; }}});

    shuffle_desc_t sh;
    sh.prop_kind = dnnl_forward_training;
    sh.axis = 1;
    sh.group_size = 2;
    sh.src_md = s;
    sh.dst_md = s;
    unit_check<shuffle_desc_t>("shuffle desc", sh,
            {{"prop kind", [](shuffle_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                    {"axis", [](shuffle_desc_t &d) { d.axis = 2; }},
                    {"group size", [](shuffle_desc_t &d) { d.group_size = 4; }},
                    {"src md", [&](shuffle_desc_t &d) { d.src_md = t; }},
                    {"dst md", [&](shuffle_desc_t &d) { d.dst_md = t; }}});

    binary_desc_t bi;
    bi.alg = dnnl_binary_select;
    bi.src_md[0] = s;
    bi.src_md[1] = s;
    bi.src_md[2] = plain_md({2, 4, 4}, dnnl_s8, dnnl_abc);
    bi.dst_md = s;
    unit_check<binary_desc_t>("binary desc", bi,
            {{"alg", [](binary_desc_t &d) { d.alg = dnnl_binary_add; }},
                    {"src0 md", [&](binary_desc_t &d) { d.src_md[0] = t; }},
                    {"src1 md", [&](binary_desc_t &d) { d.src_md[1] = t; }},
                    {"src2 md", [](binary_desc_t &d) { d.src_md[2] = plain_md({2, 4, 4}, dnnl_u8, dnnl_abc); }},
                    {"src2 md (absent)", [](binary_desc_t &d) { d.src_md[2] = zero_md(); }},
                    {"dst md", [&](binary_desc_t &d) { d.dst_md = t; }}});

    prelu_desc_t pr;
    pr.prop_kind = dnnl_forward_training;
    pr.src_md = s;
    pr.weights_md = plain_md({1, 4, 1}, dnnl_f32, dnnl_abc);
    pr.dst_md = s;
    unit_check<prelu_desc_t>("prelu desc", pr,
            {{"prop kind", [](prelu_desc_t &d) { d.prop_kind = dnnl_forward_inference; }},
                    {"src md", [&](prelu_desc_t &d) { d.src_md = t; }},
                    {"weights md", [](prelu_desc_t &d) { d.weights_md = plain_md({1, 1, 1}, dnnl_f32, dnnl_abc); }},
                    {"dst md", [&](prelu_desc_t &d) { d.dst_md = t; }}});
}

// ---------------------------------------------------------------- end to end

using make_fn = std::function<dnnl_status_t(dnnl_primitive_desc_t *)>;

struct variant_t {
    std::string what;
    make_fn make;
    bool same_mds; // every memory descriptor equals the base's (checked)
};

dnnl_memory_desc_t md(const dims_v &dims, dnnl_data_type_t dt, dnnl_format_tag_t tag) {
    dnnl_memory_desc_t m = nullptr;
    KT_OK(dnnl_memory_desc_create_with_tag(&m, (int)dims.size(), dims.data(), dt, tag));
    return m;
}

// Arguments a problem of these kinds may read or write.
const int kArgs[] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_SRC_2, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS,
        DNNL_ARG_DST, DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1};

const_dnnl_memory_desc_t arg_md(const_dnnl_primitive_desc_t pd, int arg) {
    return dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
}

// Deterministic contents for a buffer of data type dt.
void fill(std::vector<uint8_t> &buf, dnnl_data_type_t dt, uint64_t seed) {
    kt::rng_t r(seed);
    switch (dt) {
        case dnnl_f32:
            for (size_t i = 0; i + 4 <= buf.size(); i += 4) {
                float v = r.uniform(-2.f, 2.f);
                std::memcpy(&buf[i], &v, 4);
            }
            break;
        case dnnl_bf16:
            for (size_t i = 0; i + 2 <= buf.size(); i += 2) {
                float v = r.uniform(-2.f, 2.f);
                uint32_t u;
                std::memcpy(&u, &v, 4);
                uint16_t h = (uint16_t)(u >> 16);
                std::memcpy(&buf[i], &h, 2);
            }
            break;
        case dnnl_s8:
        case dnnl_u8:
            for (auto &b : buf) b = (uint8_t)(r.next() % 3);
            break;
        default:
            for (auto &b : buf) b = 0;
            break;
    }
}

// Executes p on inputs made from `seed`; returns the dst bytes.
std::vector<uint8_t> run(dnnl_primitive_t p, const_dnnl_primitive_desc_t pd, uint64_t seed) {
    std::vector<std::vector<uint8_t>> bufs;
    std::vector<dnnl_exec_arg_t> args;
    bufs.reserve(sizeof(kArgs) / sizeof(kArgs[0]));
    std::vector<uint8_t> out;
    for (int arg : kArgs) {
        const_dnnl_memory_desc_t m = arg_md(pd, arg);
        size_t sz = m ? dnnl_memory_desc_get_size(m) : 0;
        if (sz == 0) continue;
        int dt = 0;
        KT_OK(dnnl_memory_desc_query(m, dnnl_query_data_type, &dt));
        bufs.emplace_back(sz);
        fill(bufs.back(), (dnnl_data_type_t)dt, seed * 131 + (uint64_t)arg);
        dnnl_memory_t mem = nullptr;
        KT_OK(dnnl_memory_create(&mem, m, eng, bufs.back().data()));
        args.push_back({arg, mem});
    }
    // A common src scale, passed always: primitives without one ignore it.
    float scale = 0.5f;
    kt::md_t scale_md(md({1}, dnnl_f32, dnnl_a));
    dnnl_memory_t scale_mem = nullptr;
    KT_OK(dnnl_memory_create(&scale_mem, scale_md, eng, &scale));
    args.push_back({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, scale_mem});
    dnnl_status_t st = dnnl_primitive_execute(p, strm, (int)args.size(), args.data());
    tally.check(st == dnnl_success, "execute");
    for (size_t i = 0; i < args.size(); ++i) {
        if (args[i].arg == DNNL_ARG_DST) out = bufs[i];
        dnnl_memory_destroy(args[i].memory);
    }
    return out;
}

bool same_md(const_dnnl_memory_desc_t a, const_dnnl_memory_desc_t b) {
    if (!a || !b) return a == b;
    return dnnl_memory_desc_equal(a, b) == 1;
}

struct entry_t {
    size_t variant;
    int impl;
    std::string name;
    std::vector<uint8_t> want;
    dnnl_primitive_t kept = nullptr;
};

// The pd of variant v moved on to its impl-th implementation.
dnnl_primitive_desc_t make_at(const variant_t &v, int impl) {
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(v.make(&pd));
    for (int i = 0; i < impl; ++i) KT_OK(dnnl_primitive_desc_next_impl(pd));
    return pd;
}

void check_kind(const char *kind, const std::vector<variant_t> &vs) {
    const std::string k = kind;
    kestrel::primitive_cache_clear();
    KT_OK(dnnl_set_primitive_cache_capacity(0));

    // Uncached outputs of every (variant, implementation), and the claim
    // that `same_mds` variants differ from the base in the op desc only.
    std::vector<entry_t> es;
    dnnl_primitive_desc_t base = nullptr;
    for (size_t i = 0; i < vs.size(); ++i) {
        dnnl_primitive_desc_t pd = nullptr;
        dnnl_status_t st = vs[i].make(&pd);
        tally.check(st == dnnl_success, (k + ": create " + vs[i].what).c_str());
        if (st != dnnl_success) continue;
        if (i == 0) {
            base = pd;
        } else if (vs[i].same_mds) {
            bool same = true;
            for (int arg : kArgs) same = same && same_md(arg_md(pd, arg), arg_md(base, arg));
            tally.check(same, (k + ": " + vs[i].what + " keeps the base's memory descriptors").c_str());
        }
        int j = 0;
        do {
            dnnl_primitive_t p = nullptr;
            KT_OK(dnnl_primitive_create(&p, pd));
            es.push_back({i, j, kt::impl_name(pd), run(p, pd, i + 1), nullptr});
            dnnl_primitive_destroy(p);
            ++j;
        } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
        if (pd != base) dnnl_primitive_desc_destroy(pd);
    }
    dnnl_primitive_desc_destroy(base);
    tally.check(kestrel::primitive_cache_stats().size == 0, (k + ": capacity 0 caches nothing").c_str());

    // Cache on: each pair is a miss with an implementation of its own.
    KT_OK(dnnl_set_primitive_cache_capacity(4096));
    bool all_miss = true, distinct = true;
    for (size_t e = 0; e < es.size(); ++e) {
        dnnl_primitive_desc_t pd = make_at(vs[es[e].variant], es[e].impl);
        const auto s0 = kestrel::primitive_cache_stats();
        KT_OK(dnnl_primitive_create(&es[e].kept, pd));
        const auto s1 = kestrel::primitive_cache_stats();
        if (s1.misses != s0.misses + 1 || s1.hits != s0.hits) {
            all_miss = false;
            std::fprintf(stderr, "%s: %s [%s] hit the cache\n", kind, vs[es[e].variant].what.c_str(),
                    es[e].name.c_str());
        }
        for (size_t f = 0; f < e; ++f)
            if (es[f].kept->impl.get() == es[e].kept->impl.get()) {
                distinct = false;
                std::fprintf(stderr, "%s: %s [%s] shares with %s [%s]\n", kind,
                        vs[es[e].variant].what.c_str(), es[e].name.c_str(),
                        vs[es[f].variant].what.c_str(), es[f].name.c_str());
            }
        dnnl_primitive_desc_destroy(pd);
    }
    if (std::getenv("KT_DEBUG")) // lists what was covered
        for (auto &e : es) std::fprintf(stderr, "%s | %s | %s\n", kind, vs[e.variant].what.c_str(), e.name.c_str());
    tally.check(all_miss, (k + ": every one-parameter change misses").c_str());
    tally.check(distinct, (k + ": every one-parameter change gets its own implementation").c_str());

    // Made again: hits, shares, and writes the uncached bytes.
    bool all_hit = true, shared = true, same = true;
    for (size_t e = 0; e < es.size(); ++e) {
        dnnl_primitive_desc_t pd = make_at(vs[es[e].variant], es[e].impl);
        const auto s0 = kestrel::primitive_cache_stats();
        dnnl_primitive_t q = nullptr;
        KT_OK(dnnl_primitive_create(&q, pd));
        const auto s1 = kestrel::primitive_cache_stats();
        all_hit = all_hit && s1.hits == s0.hits + 1 && s1.misses == s0.misses;
        shared = shared && q->impl.get() == es[e].kept->impl.get();
        const uint64_t seed = es[e].variant + 1;
        const bool ok = run(q, pd, seed) == es[e].want && run(es[e].kept, pd, seed) == es[e].want;
        if (!ok)
            std::fprintf(stderr, "%s: %s [%s] differs from the uncached result\n", kind,
                    vs[es[e].variant].what.c_str(), es[e].name.c_str());
        same = same && ok;
        dnnl_primitive_destroy(q);
        dnnl_primitive_desc_destroy(pd);
    }
    tally.check(all_hit, (k + ": an equal descriptor made anew hits").c_str());
    tally.check(shared, (k + ": an equal descriptor shares the implementation").c_str());
    tally.check(same, (k + ": cached primitives write the uncached bytes").c_str());
    for (auto &e : es) dnnl_primitive_destroy(e.kept);
    kestrel::primitive_cache_clear();
}

// Convolution or deconvolution on a 3D problem where every spatial dim has
// kernel 1, stride 3 and no padding, with 2 big and 1 small positions:
// (2 - 1 + pads) / stride + 1 == 1 for stride 3 or 4 and total padding 0 or
// 1, and a kernel of 1 spans 1 whatever its dilation. So each stride,
// dilation and padding component can change alone while every memory
// descriptor stays equal.
struct conv_problem_t {
    dnnl_primitive_kind_t kind = dnnl_convolution;
    dnnl_prop_kind_t prop = dnnl_forward_training;
    dnnl_alg_kind_t alg = dnnl_alg_kind_undef;
    dims_v src, wei, dst;
    dnnl_format_tag_t data_tag = dnnl_ncdhw, wei_tag = dnnl_oidhw;
    bool bias = true;
    dnnl_dims_t strides = {3, 3, 3}, dilates = {0, 0, 0}, pad_l = {0, 0, 0}, pad_r = {0, 0, 0};
    float post_relu_alpha = -1.f; // < 0: no post-op
};

dnnl_status_t make_conv(const conv_problem_t &c, dnnl_primitive_desc_t *pd) {
    kt::md_t s(md(c.src, dnnl_f32, c.data_tag)), w(md(c.wei, dnnl_f32, c.wei_tag)),
            d(md(c.dst, dnnl_f32, c.data_tag)), b(md({c.dst[1]}, dnnl_f32, dnnl_a));
    dnnl_primitive_attr_t attr = nullptr;
    if (c.post_relu_alpha >= 0.f) {
        dnnl_post_ops_t po = nullptr;
        KT_OK(dnnl_post_ops_create(&po));
        KT_OK(dnnl_post_ops_append_eltwise(po, dnnl_eltwise_relu, c.post_relu_alpha, 0.f));
        KT_OK(dnnl_primitive_attr_create(&attr));
        KT_OK(dnnl_primitive_attr_set_post_ops(attr, po));
        dnnl_post_ops_destroy(po);
    }
    const_dnnl_memory_desc_t bias = c.bias ? (const_dnnl_memory_desc_t)b : nullptr;
    dnnl_status_t st = c.kind == dnnl_convolution
            ? dnnl_convolution_forward_primitive_desc_create(pd, eng, c.prop, c.alg, s, w, bias, d, c.strides,
                    c.dilates, c.pad_l, c.pad_r, attr)
            : dnnl_deconvolution_forward_primitive_desc_create(pd, eng, c.prop, c.alg, s, w, bias, d,
                    c.strides, c.dilates, c.pad_l, c.pad_r, attr);
    dnnl_primitive_attr_destroy(attr);
    return st;
}

void e2e_conv(dnnl_primitive_kind_t kind) {
    const bool dc = kind == dnnl_deconvolution;
    conv_problem_t b;
    b.kind = kind;
    b.alg = dc ? dnnl_deconvolution_direct : dnnl_convolution_direct;
    b.src = dc ? dims_v {2, 3, 1, 1, 1} : dims_v {2, 3, 2, 2, 2};
    b.wei = {4, 3, 1, 1, 1};
    b.dst = dc ? dims_v {2, 4, 2, 2, 2} : dims_v {2, 4, 1, 1, 1};

    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(conv_problem_t &)> f) {
        conv_problem_t c = b;
        f(c);
        vs.push_back({what, [c](dnnl_primitive_desc_t *pd) { return make_conv(c, pd); }, same_mds});
    };
    add("base", true, [](conv_problem_t &) {});
    const char *axes[3] = {"D", "H", "W"};
    for (int i = 0; i < 3; ++i) {
        add(std::string("stride ") + axes[i], true, [i](conv_problem_t &c) { c.strides[i] = 4; });
        add(std::string("dilation ") + axes[i], true, [i](conv_problem_t &c) { c.dilates[i] = 1; });
        add(std::string("pad_l ") + axes[i], true, [i](conv_problem_t &c) { c.pad_l[i] = 1; });
        add(std::string("pad_r ") + axes[i], true, [i](conv_problem_t &c) { c.pad_r[i] = 1; });
    }
    add("prop kind inference", true, [](conv_problem_t &c) { c.prop = dnnl_forward_inference; });
    if (!dc) add("alg auto", true, [](conv_problem_t &c) { c.alg = dnnl_convolution_auto; });
    add("no bias", false, [](conv_problem_t &c) { c.bias = false; });
    add("post-op relu alpha 0", true, [](conv_problem_t &c) { c.post_relu_alpha = 0.f; });
    add("post-op relu alpha 0.5", true, [](conv_problem_t &c) { c.post_relu_alpha = 0.5f; });
    add("channels-last layout", false, [](conv_problem_t &c) {
        c.data_tag = dnnl_ndhwc;
        c.wei_tag = dnnl_odhwi;
    });

    // A plain 1x1, stride 1 problem valid for both kinds: the op descs
    // are equal field for field, only the kind tells them apart.
    conv_problem_t one = b;
    one.src = {2, 3, 4, 4};
    one.wei = {4, 3, 1, 1};
    one.dst = {2, 4, 4, 4};
    one.data_tag = dnnl_nchw;
    one.wei_tag = dnnl_oihw;
    for (int i = 0; i < 3; ++i) one.strides[i] = 1;
    vs.push_back({"1x1 stride 1", [one](dnnl_primitive_desc_t *pd) { return make_conv(one, pd); }, false});
    conv_problem_t other = one;
    other.kind = dc ? dnnl_convolution : dnnl_deconvolution;
    other.alg = dc ? dnnl_convolution_direct : dnnl_deconvolution_direct;
    vs.push_back({"1x1 stride 1, the other kind", [other](dnnl_primitive_desc_t *pd) { return make_conv(other, pd); },
            false});

    // A realistic 3x3 problem with padding, channel tails and format `any`
    // so the optimized implementations take part.
    conv_problem_t big = b;
    big.src = {2, 17, 7, 7};
    big.wei = {16, 17, 3, 3};
    big.dst = {2, 16, 7, 7};
    big.data_tag = dnnl_format_tag_any;
    big.wei_tag = dnnl_format_tag_any;
    for (int i = 0; i < 2; ++i) {
        big.strides[i] = 1;
        big.pad_l[i] = big.pad_r[i] = 1;
    }
    big.strides[2] = big.pad_l[2] = big.pad_r[2] = 0;
    vs.push_back({"3x3 pad 1, format any", [big](dnnl_primitive_desc_t *pd) { return make_conv(big, pd); }, false});
    conv_problem_t big2 = big;
    big2.pad_l[1] = 2;
    big2.pad_r[1] = 0;
    vs.push_back({"3x3 pad W 2/0, format any", [big2](dnnl_primitive_desc_t *pd) { return make_conv(big2, pd); },
            false});
    check_kind(dc ? "deconvolution" : "convolution", vs);
}

void e2e_matmul() {
    struct mm_t {
        dims_v src {2, 3, 5}, wei {2, 5, 4}, dst {2, 3, 4}, bias;
        dnnl_format_tag_t src_tag = dnnl_abc, wei_tag = dnnl_abc;
        bool scale = false;
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, std::function<void(mm_t &)> f) {
        mm_t m;
        f(m);
        vs.push_back({what,
                [m](dnnl_primitive_desc_t *pd) {
                    kt::md_t s(md(m.src, dnnl_f32, m.src_tag)), w(md(m.wei, dnnl_f32, m.wei_tag)),
                            d(md(m.dst, dnnl_f32, dnnl_abc));
                    kt::md_t b(m.bias.empty() ? nullptr : md(m.bias, dnnl_f32, dnnl_abc));
                    dnnl_primitive_attr_t attr = nullptr;
                    if (m.scale) {
                        KT_OK(dnnl_primitive_attr_create(&attr));
                        KT_OK(dnnl_primitive_attr_set_scales_mask(attr, DNNL_ARG_SRC, 0));
                    }
                    dnnl_status_t st = dnnl_matmul_primitive_desc_create(pd, eng, s, w, b, d, attr);
                    dnnl_primitive_attr_destroy(attr);
                    return st;
                },
                false});
    };
    add("base", [](mm_t &) {});
    add("bias 1x1x4", [](mm_t &m) { m.bias = {1, 1, 4}; });
    add("bias 1x3x4", [](mm_t &m) { m.bias = {1, 3, 4}; });
    add("bias 2x3x4", [](mm_t &m) { m.bias = {2, 3, 4}; });
    add("bias 1x3x1", [](mm_t &m) { m.bias = {1, 3, 1}; });
    add("weights transposed", [](mm_t &m) { m.wei_tag = dnnl_acb; });
    add("src transposed", [](mm_t &m) { m.src_tag = dnnl_acb; });
    add("weights batch broadcast", [](mm_t &m) { m.wei = {1, 5, 4}; });
    add("src batch broadcast", [](mm_t &m) { m.src = {1, 3, 5}; });
    add("src scale", [](mm_t &m) { m.scale = true; });
    // Variants keep dims, so the same_mds check does not apply: the
    // matmul op desc is made of memory descriptors only.
    check_kind("matmul", vs);
}

void e2e_inner_product() {
    struct ip_t {
        dnnl_prop_kind_t prop = dnnl_forward_training;
        dims_v src {2, 3, 4, 4}, wei {5, 3, 4, 4};
        dnnl_format_tag_t src_tag = dnnl_nchw, wei_tag = dnnl_oihw;
        bool bias = true;
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(ip_t &)> f) {
        ip_t p;
        f(p);
        vs.push_back({what,
                [p](dnnl_primitive_desc_t *pd) {
                    kt::md_t s(md(p.src, dnnl_f32, p.src_tag)), w(md(p.wei, dnnl_f32, p.wei_tag)),
                            d(md({2, 5}, dnnl_f32, dnnl_ab)), b(md({5}, dnnl_f32, dnnl_a));
                    return dnnl_inner_product_forward_primitive_desc_create(
                            pd, eng, p.prop, s, w, p.bias ? (const_dnnl_memory_desc_t)b : nullptr, d, nullptr);
                },
                same_mds});
    };
    add("base", true, [](ip_t &) {});
    add("prop kind inference", true, [](ip_t &p) { p.prop = dnnl_forward_inference; });
    add("no bias", false, [](ip_t &p) { p.bias = false; });
    add("channels-last", false, [](ip_t &p) {
        p.src_tag = dnnl_nhwc;
        p.wei_tag = dnnl_ohwi;
    });
    add("2D", false, [](ip_t &p) {
        p.src = {2, 48};
        p.wei = {5, 48};
        p.src_tag = dnnl_ab;
        p.wei_tag = dnnl_ab;
    });
    check_kind("inner product", vs);
}

void e2e_eltwise() {
    struct el_t {
        dnnl_prop_kind_t prop = dnnl_forward_training;
        dnnl_alg_kind_t alg = dnnl_eltwise_linear;
        float alpha = 1.5f, beta = 0.25f;
        dnnl_format_tag_t tag = dnnl_nchw;
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(el_t &)> f) {
        el_t e;
        f(e);
        vs.push_back({what,
                [e](dnnl_primitive_desc_t *pd) {
                    kt::md_t s(md({2, 17, 3, 3}, dnnl_f32, e.tag));
                    return dnnl_eltwise_forward_primitive_desc_create(
                            pd, eng, e.prop, e.alg, s, s, e.alpha, e.beta, nullptr);
                },
                same_mds});
    };
    add("base", true, [](el_t &) {});
    add("alpha", true, [](el_t &e) { e.alpha = 2.f; });
    add("beta", true, [](el_t &e) { e.beta = -1.f; });
    add("prop kind inference", true, [](el_t &e) { e.prop = dnnl_forward_inference; });
    add("layout nhwc", false, [](el_t &e) { e.tag = dnnl_nhwc; });
    // Every other alg at the base's alpha and beta: even algs that ignore
    // alpha/beta must not share with one that reads them.
    const dnnl_alg_kind_t algs[] = {dnnl_eltwise_relu, dnnl_eltwise_tanh, dnnl_eltwise_elu, dnnl_eltwise_square,
            dnnl_eltwise_abs, dnnl_eltwise_sqrt, dnnl_eltwise_soft_relu, dnnl_eltwise_hardsigmoid,
            dnnl_eltwise_logistic, dnnl_eltwise_exp, dnnl_eltwise_gelu_tanh, dnnl_eltwise_swish, dnnl_eltwise_log,
            dnnl_eltwise_clip, dnnl_eltwise_clip_v2, dnnl_eltwise_pow, dnnl_eltwise_gelu_erf, dnnl_eltwise_round,
            dnnl_eltwise_mish, dnnl_eltwise_hardswish, dnnl_eltwise_relu_use_dst_for_bwd,
            dnnl_eltwise_tanh_use_dst_for_bwd, dnnl_eltwise_elu_use_dst_for_bwd,
            dnnl_eltwise_sqrt_use_dst_for_bwd, dnnl_eltwise_logistic_use_dst_for_bwd,
            dnnl_eltwise_exp_use_dst_for_bwd, dnnl_eltwise_clip_v2_use_dst_for_bwd};
    for (auto a : algs) add(std::string("alg ") + dnnl_alg_kind2str(a), true, [a](el_t &e) { e.alg = a; });
    // Same alg (tanh ignores alpha), alpha alone changed: still two keys.
    add("tanh alpha 0", true, [](el_t &e) {
        e.alg = dnnl_eltwise_tanh;
        e.alpha = 0.f;
    });
    check_kind("eltwise", vs);
}

void e2e_softmax() {
    struct sm_t {
        dnnl_prop_kind_t prop = dnnl_forward_training;
        dnnl_alg_kind_t alg = dnnl_softmax_accurate;
        int axis = 1;
        dims_v dims {5, 5, 5};
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(sm_t &)> f) {
        sm_t s;
        f(s);
        vs.push_back({what,
                [s](dnnl_primitive_desc_t *pd) {
                    kt::md_t m(md(s.dims, dnnl_f32, dnnl_abc));
                    return dnnl_softmax_forward_primitive_desc_create(pd, eng, s.prop, s.alg, m, m, s.axis, nullptr);
                },
                same_mds});
    };
    add("base", true, [](sm_t &) {});
    add("axis 0", true, [](sm_t &s) { s.axis = 0; });
    add("axis 2", true, [](sm_t &s) { s.axis = 2; });
    add("alg log", true, [](sm_t &s) { s.alg = dnnl_softmax_log; });
    add("prop kind inference", true, [](sm_t &s) { s.prop = dnnl_forward_inference; });
    add("dims 5x17x5", false, [](sm_t &s) { s.dims = {5, 17, 5}; });
    check_kind("softmax", vs);
}

void e2e_shuffle() {
    struct sh_t {
        dnnl_prop_kind_t prop = dnnl_forward_training;
        int axis = 1;
        dnnl_dim_t group = 3;
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, std::function<void(sh_t &)> f) {
        sh_t s;
        f(s);
        vs.push_back({what,
                [s](dnnl_primitive_desc_t *pd) {
                    kt::md_t m(md({12, 12, 12}, dnnl_f32, dnnl_abc));
                    return dnnl_shuffle_forward_primitive_desc_create(pd, eng, s.prop, m, m, s.axis, s.group, nullptr);
                },
                true});
    };
    add("base", [](sh_t &) {});
    add("group 2", [](sh_t &s) { s.group = 2; });
    add("group 4", [](sh_t &s) { s.group = 4; });
    add("group 6", [](sh_t &s) { s.group = 6; });
    add("axis 0", [](sh_t &s) { s.axis = 0; });
    add("axis 2", [](sh_t &s) { s.axis = 2; });
    add("prop kind inference", [](sh_t &s) { s.prop = dnnl_forward_inference; });
    check_kind("shuffle", vs);
}

void e2e_binary() {
    struct bi_t {
        dnnl_alg_kind_t alg = dnnl_binary_add;
        dims_v src1 {2, 3, 4, 4}, src2 {2, 3, 4, 4};
        dnnl_data_type_t src2_dt = dnnl_s8;
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(bi_t &)> f) {
        bi_t b;
        f(b);
        vs.push_back({what,
                [b](dnnl_primitive_desc_t *pd) {
                    kt::md_t s0(md({2, 3, 4, 4}, dnnl_f32, dnnl_nchw)), s1(md(b.src1, dnnl_f32, dnnl_nchw)),
                            s2(md(b.src2, b.src2_dt, dnnl_nchw));
                    if (b.alg == dnnl_binary_select)
                        return dnnl_binary_primitive_desc_create_v2(pd, eng, b.alg, s0, s1, s2, s0, nullptr);
                    return dnnl_binary_primitive_desc_create(pd, eng, b.alg, s0, s1, s0, nullptr);
                },
                same_mds});
    };
    add("base", true, [](bi_t &) {});
    const dnnl_alg_kind_t algs[] = {dnnl_binary_mul, dnnl_binary_max, dnnl_binary_min, dnnl_binary_div,
            dnnl_binary_sub, dnnl_binary_ge, dnnl_binary_gt, dnnl_binary_le, dnnl_binary_lt, dnnl_binary_eq,
            dnnl_binary_ne};
    for (auto a : algs) add(std::string("alg ") + dnnl_alg_kind2str(a), true, [a](bi_t &b) { b.alg = a; });
    add("src1 broadcast per channel", false, [](bi_t &b) { b.src1 = {1, 3, 1, 1}; });
    add("src1 broadcast scalar", false, [](bi_t &b) { b.src1 = {1, 1, 1, 1}; });
    add("select", false, [](bi_t &b) { b.alg = dnnl_binary_select; });
    // Select problems that differ in src2 only.
    add("select, src2 per channel", false, [](bi_t &b) {
        b.alg = dnnl_binary_select;
        b.src2 = {1, 3, 1, 1};
    });
    // (src2 must be s8, as oneDNN requires: a u8 one is invalid_arguments.)
    add("select, src2 scalar", false, [](bi_t &b) {
        b.alg = dnnl_binary_select;
        b.src2 = {1, 1, 1, 1};
    });
    check_kind("binary", vs);
}

void e2e_prelu() {
    struct pr_t {
        dnnl_prop_kind_t prop = dnnl_forward_training;
        dims_v wei {1, 3, 1, 1};
    };
    std::vector<variant_t> vs;
    auto add = [&](const std::string &what, bool same_mds, std::function<void(pr_t &)> f) {
        pr_t p;
        f(p);
        vs.push_back({what,
                [p](dnnl_primitive_desc_t *pd) {
                    kt::md_t s(md({2, 3, 4, 4}, dnnl_f32, dnnl_nchw)), w(md(p.wei, dnnl_f32, dnnl_nchw));
                    return dnnl_prelu_forward_primitive_desc_create(pd, eng, p.prop, s, w, s, nullptr);
                },
                same_mds});
    };
    add("base", true, [](pr_t &) {});
    add("prop kind inference", true, [](pr_t &p) { p.prop = dnnl_forward_inference; });
    add("scalar weights", false, [](pr_t &p) { p.wei = {1, 1, 1, 1}; });
    add("full weights", false, [](pr_t &p) { p.wei = {2, 3, 4, 4}; });
    add("weights per W", false, [](pr_t &p) { p.wei = {1, 1, 1, 4}; });
    check_kind("prelu", vs);
}

void e2e_all() {
    e2e_conv(dnnl_convolution);
    e2e_conv(dnnl_deconvolution);
    e2e_matmul();
    e2e_inner_product();
    e2e_eltwise();
    e2e_softmax();
    e2e_shuffle();
    e2e_binary();
    e2e_prelu();
}

// The same descriptor created under 1 and under 2 threads: implementations
// may split work by the thread count seen at creation, so they must not
// share.
void thread_count_in_key() {
    KT_OK(dnnl_set_primitive_cache_capacity(64));
    kestrel::primitive_cache_clear();
    conv_problem_t c;
    c.alg = dnnl_convolution_direct;
    c.src = {2, 3, 2, 2, 2};
    c.wei = {4, 3, 1, 1, 1};
    c.dst = {2, 4, 1, 1, 1};
    dnnl_primitive_t p1 = nullptr, p2 = nullptr;
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(make_conv(c, &pd));
    kt::with_threads(1, [&] { KT_OK(dnnl_primitive_create(&p1, pd)); });
    kt::with_threads(2, [&] { KT_OK(dnnl_primitive_create(&p2, pd)); });
    const bool two = std::thread::hardware_concurrency() >= 2;
    tally.check(!two || p1->impl.get() != p2->impl.get(), "1 and 2 threads do not share");
    dnnl_primitive_destroy(p1);
    dnnl_primitive_destroy(p2);
    dnnl_primitive_desc_destroy(pd);
}

// Two handles sharing one implementation run at once on two threads, each
// on its own data: a shared implementation must be immutable during
// execution, and each handle has its own scratchpad. Expected bytes come
// from one thread running alone with the cache off.
void concurrent_shared(const char *what, const variant_t &v) {
    KT_OK(dnnl_set_primitive_cache_capacity(0));
    dnnl_primitive_desc_t pd = make_at(v, 0);
    dnnl_primitive_t lone = nullptr;
    KT_OK(dnnl_primitive_create(&lone, pd));
    std::vector<uint8_t> want[2];
    for (int t = 0; t < 2; ++t) want[t] = run(lone, pd, 100 + (uint64_t)t);
    dnnl_primitive_destroy(lone);

    KT_OK(dnnl_set_primitive_cache_capacity(64));
    kestrel::primitive_cache_clear();
    dnnl_primitive_t p[2] = {nullptr, nullptr};
    KT_OK(dnnl_primitive_create(&p[0], pd));
    KT_OK(dnnl_primitive_create(&p[1], pd));
    tally.check(p[0]->impl.get() == p[1]->impl.get(), (std::string(what) + ": handles share").c_str());
    std::atomic<int> ready {0};
    bool ok[2] = {true, true};
    std::vector<std::thread> ts;
    for (int t = 0; t < 2; ++t)
        ts.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < 2) std::this_thread::yield();
            for (int rep = 0; rep < 20; ++rep) ok[t] = ok[t] && run(p[t], pd, 100 + (uint64_t)t) == want[t];
        });
    for (auto &t : ts) t.join();
    tally.check(ok[0] && ok[1], (std::string(what) + ": shared implementation runs on two threads at once").c_str());
    for (auto q : p) dnnl_primitive_destroy(q);
    dnnl_primitive_desc_destroy(pd);
}

void concurrent_all() {
    conv_problem_t big;
    big.alg = dnnl_convolution_direct;
    big.src = {2, 17, 9, 9};
    big.wei = {16, 17, 3, 3};
    big.dst = {2, 16, 9, 9};
    big.data_tag = dnnl_nchw;
    big.wei_tag = dnnl_oihw;
    for (int i = 0; i < 2; ++i) {
        big.strides[i] = 1;
        big.pad_l[i] = big.pad_r[i] = 1;
    }
    // Plain layouts (im2col through GEMM, with scratchpad) and format any
    // (the blocked direct kernel).
    concurrent_shared("convolution nchw", {"", [big](dnnl_primitive_desc_t *pd) { return make_conv(big, pd); }, false});
    conv_problem_t any = big;
    any.data_tag = any.wei_tag = dnnl_format_tag_any;
    concurrent_shared("convolution any", {"", [any](dnnl_primitive_desc_t *pd) { return make_conv(any, pd); }, false});
    concurrent_shared("matmul", {"",
                                        [](dnnl_primitive_desc_t *pd) {
                                            kt::md_t s(md({3, 33, 65}, dnnl_f32, dnnl_abc)),
                                                    w(md({3, 65, 17}, dnnl_f32, dnnl_abc)),
                                                    d(md({3, 33, 17}, dnnl_f32, dnnl_abc));
                                            return dnnl_matmul_primitive_desc_create(pd, eng, s, w, nullptr, d, nullptr);
                                        },
                                        false});
    concurrent_shared("softmax", {"",
                                         [](dnnl_primitive_desc_t *pd) {
                                             kt::md_t m(md({4, 33, 17}, dnnl_f32, dnnl_abc));
                                             return dnnl_softmax_forward_primitive_desc_create(pd, eng,
                                                     dnnl_forward_inference, dnnl_softmax_accurate, m, m, 1, nullptr);
                                         },
                                         false});
}

// The C++ wrapper goes through the same cache: equal primitive_desc
// objects share, an alpha apart does not.
void cpp_api() {
    using namespace dnnl;
    KT_OK(dnnl_set_primitive_cache_capacity(64));
    kestrel::primitive_cache_clear();
    engine e(engine::kind::cpu, 0);
    memory::desc m({2, 17, 3, 3}, memory::data_type::f32, memory::format_tag::nchw);
    auto make = [&](float alpha) {
        return eltwise_forward(eltwise_forward::primitive_desc(
                e, prop_kind::forward_inference, algorithm::eltwise_relu, m, m, alpha));
    };
    eltwise_forward a = make(0.f), b = make(0.f), c = make(0.25f);
    tally.check(a.get()->impl.get() == b.get()->impl.get(), "dnnl::eltwise_forward: equal descs share");
    tally.check(a.get()->impl.get() != c.get()->impl.get(), "dnnl::eltwise_forward: other alpha does not share");

    memory::desc s({1, 3, 5, 5}, memory::data_type::f32, memory::format_tag::nchw);
    memory::desc w({4, 3, 3, 3}, memory::data_type::f32, memory::format_tag::oihw);
    memory::desc d1({1, 4, 4, 4}, memory::data_type::f32, memory::format_tag::nchw);
    auto conv = [&](memory::dims pl, memory::dims pr) {
        return convolution_forward(convolution_forward::primitive_desc(e, prop_kind::forward_inference,
                algorithm::convolution_direct, s, w, d1, {1, 1}, {0, 0}, pl, pr));
    };
    // One pixel of padding on the left or on the right: (5 - 3 + 1) / 1 + 1 = 4
    // either way, so only the op desc tells them apart.
    convolution_forward p0 = conv({1, 1}, {0, 0}), p1 = conv({1, 1}, {0, 0}), p2 = conv({0, 0}, {1, 1});
    tally.check(p0.get()->impl.get() == p1.get()->impl.get(), "dnnl::convolution_forward: equal descs share");
    tally.check(p0.get()->impl.get() != p2.get()->impl.get(), "dnnl::convolution_forward: shifted padding does not share");
    kestrel::primitive_cache_clear();
}

} // namespace

int main() {
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    KT_OK(dnnl_stream_create(&strm, eng, dnnl_stream_default_flags));
    unit_conv();
    unit_gemm();
    unit_eltwise_family();
    kt::with_threads(1, e2e_all);
    kt::with_threads(2, e2e_all);
    thread_count_in_key();
    kt::with_threads(2, concurrent_all);
    cpp_api();
    KT_OK(dnnl_set_primitive_cache_capacity(1024));
    kestrel::primitive_cache_clear();
    dnnl_stream_destroy(strm);
    dnnl_engine_destroy(eng);
    return tally.finish();
}
