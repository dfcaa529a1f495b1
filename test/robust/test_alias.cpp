// Aliasing between execution arguments.
//  - In place where oneDNN documents it (eltwise, softmax, batch, layer and
//    group normalization: src == dst; binary: src0 == dst; sum: a source ==
//    dst): the result must equal the out-of-place one bit for bit, in plain
//    and blocked layouts, with 1 and 2 threads.
//  - Any other overlap between an input and an output, or between two
//    outputs (a convolution reading its own dst, a reorder onto itself,
//    binary src1 == dst, a dst shifted by one element over src, a pooling
//    workspace over its dst): oneDNN leaves it undefined; Kestrel returns
//    dnnl_invalid_arguments and writes nothing.
#include <cstdio>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t t;

void fill(memory &m, uint64_t seed) {
    std::vector<float> v(m.get_desc().get_size() / sizeof(float));
    kt::fill(v, seed, -2.f, 2.f);
    std::memcpy(m.get_data_handle(), v.data(), v.size() * sizeof(float));
}

std::vector<char> bytes(const memory &m) {
    const char *p = static_cast<const char *>(m.get_data_handle());
    return std::vector<char>(p, p + m.get_desc().get_size());
}

// Runs `prim` once out of place (dst fresh) and once with `in_arg` and dst
// the same memory; compares the two dsts byte for byte.
void in_place(const char *what, const primitive &prim, const primitive_desc_base &pd, engine &eng, stream &s,
        int in_arg, std::unordered_map<int, memory> inputs) {
    memory::desc dd = pd.query_md(query::exec_arg_md, DNNL_ARG_DST);
    std::unordered_map<int, memory> ws;
    for (int a : {DNNL_ARG_WORKSPACE, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE}) {
        memory::desc md = pd.query_md(query::exec_arg_md, a);
        if (md.get_size() && !inputs.count(a)) ws[a] = memory(md, eng);
    }
    auto args = inputs;
    for (auto &w : ws) args[w.first] = w.second;
    memory out(dd, eng);
    args[DNNL_ARG_DST] = out;
    prim.execute(s, args);
    s.wait();
    const std::vector<char> want = bytes(out);

    memory shared(dd, eng);
    std::memcpy(shared.get_data_handle(), inputs[in_arg].get_data_handle(), dd.get_size());
    args = inputs;
    for (auto &w : ws) args[w.first] = w.second;
    args[in_arg] = shared;
    args[DNNL_ARG_DST] = shared;
    bool ok = true;
    try {
        prim.execute(s, args);
        s.wait();
        ok = bytes(shared) == want;
    } catch (const dnnl::error &e) {
        std::fprintf(stderr, "%s: %s\n", what, e.what());
        ok = false;
    }
    t.check(ok, what);
}

// Executes with `args`; expects invalid_arguments and every output's bytes
// unchanged.
void refused(const char *what, const primitive &prim, stream &s, const std::unordered_map<int, memory> &args,
        std::initializer_list<int> outputs) {
    std::vector<std::vector<char>> before;
    for (int a : outputs) before.push_back(bytes(args.at(a)));
    dnnl_status_t st = dnnl_success;
    try {
        prim.execute(s, args);
        s.wait();
    } catch (const dnnl::error &e) {
        st = e.status;
    }
    bool same = true;
    size_t i = 0;
    for (int a : outputs) same = same && bytes(args.at(a)) == before[i++];
    char msg[200];
    std::snprintf(msg, sizeof(msg), "%s: refused with invalid_arguments (got %d), outputs untouched", what,
            (int)st);
    t.check(st == dnnl_invalid_arguments && same, msg);
}

void allowed(engine &eng, stream &s) {
    for (tag tg : {tag::nchw, tag::nChw16c, tag::nhwc}) {
        memory::desc md({2, 19, 5, 7}, dt::f32, tg);
        memory src(md, eng);
        fill(src, 1);
        {
            eltwise_forward::primitive_desc pd(
                    eng, prop_kind::forward_inference, algorithm::eltwise_elu, md, md, 0.7f, 0.f);
            in_place("eltwise elu src == dst", eltwise_forward(pd), pd, eng, s, DNNL_ARG_SRC,
                    {{DNNL_ARG_SRC, src}});
        }
        {
            softmax_forward::primitive_desc pd(
                    eng, prop_kind::forward_inference, algorithm::softmax_accurate, md, md, 1);
            in_place("softmax src == dst", softmax_forward(pd), pd, eng, s, DNNL_ARG_SRC, {{DNNL_ARG_SRC, src}});
        }
        {
            batch_normalization_forward::primitive_desc pd(
                    eng, prop_kind::forward_training, md, md, 1e-3f, normalization_flags::none);
            in_place("batch normalization src == dst", batch_normalization_forward(pd), pd, eng, s,
                    DNNL_ARG_SRC, {{DNNL_ARG_SRC, src}});
        }
        {
            group_normalization_forward::primitive_desc pd(
                    eng, prop_kind::forward_inference, md, md, 19, 1e-3f, normalization_flags::none);
            in_place("group normalization src == dst", group_normalization_forward(pd), pd, eng, s,
                    DNNL_ARG_SRC, {{DNNL_ARG_SRC, src}});
        }
        memory src1(md, eng);
        fill(src1, 2);
        {
            binary::primitive_desc pd(eng, algorithm::binary_mul, md, md, md);
            in_place("binary src0 == dst", binary(pd), pd, eng, s, DNNL_ARG_SRC_0,
                    {{DNNL_ARG_SRC_0, src}, {DNNL_ARG_SRC_1, src1}});
        }
        {
            sum::primitive_desc pd(eng, {0.5f, -2.f}, {md, md});
            in_place("sum src 0 == dst", sum(pd), pd, eng, s, DNNL_ARG_MULTIPLE_SRC,
                    {{DNNL_ARG_MULTIPLE_SRC, src}, {DNNL_ARG_MULTIPLE_SRC + 1, src1}});
            in_place("sum src 1 == dst", sum(pd), pd, eng, s, DNNL_ARG_MULTIPLE_SRC + 1,
                    {{DNNL_ARG_MULTIPLE_SRC, src}, {DNNL_ARG_MULTIPLE_SRC + 1, src1}});
        }
    }
    memory::desc tnc({5, 3, 37}, dt::f32, tag::tnc);
    memory src(tnc, eng);
    fill(src, 3);
    layer_normalization_forward::primitive_desc pd(
            eng, prop_kind::forward_training, tnc, tnc, 1e-3f, normalization_flags::none);
    in_place("layer normalization src == dst", layer_normalization_forward(pd), pd, eng, s, DNNL_ARG_SRC,
            {{DNNL_ARG_SRC, src}});
}

void forbidden(engine &eng, stream &s) {
    memory::desc md({2, 16, 6, 6}, dt::f32, tag::nchw);
    memory a(md, eng), b(md, eng);
    fill(a, 4);
    fill(b, 5);
    {
        memory::desc wd({16, 16, 1, 1}, dt::f32, tag::oihw);
        memory w(wd, eng);
        fill(w, 6);
        convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference,
                algorithm::convolution_direct, md, wd, md, {1, 1}, {0, 0}, {0, 0});
        refused("convolution src == dst", convolution_forward(pd), s,
                {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, a}}, {DNNL_ARG_DST});
    }
    {
        reorder r(a, a);
        refused("reorder onto itself", r, s, {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, a}}, {DNNL_ARG_TO});
    }
    {
        binary::primitive_desc pd(eng, algorithm::binary_add, md, md, md);
        refused("binary src1 == dst", binary(pd), s, {{DNNL_ARG_SRC_0, a}, {DNNL_ARG_SRC_1, b}, {DNNL_ARG_DST, b}},
                {DNNL_ARG_DST});
    }
    {
        // dst one element further into the same buffer as src.
        const size_t n = md.get_size() / sizeof(float);
        std::vector<float> buf(n + 1);
        for (size_t i = 0; i < buf.size(); ++i) buf[i] = (float)i - 100.f;
        memory src(md, eng, buf.data()), dst(md, eng, buf.data() + 1);
        eltwise_forward::primitive_desc pd(
                eng, prop_kind::forward_inference, algorithm::eltwise_relu, md, md, 0.f, 0.f);
        refused("eltwise dst shifted over src", eltwise_forward(pd), s, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}},
                {DNNL_ARG_DST});
    }
    {
        memory::desc dd({2, 16, 3, 3}, dt::f32, tag::nchw);
        pooling_forward::primitive_desc pd(eng, prop_kind::forward_training, algorithm::pooling_max, md, dd,
                {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0});
        // The workspace laid over dst's own bytes.
        std::vector<char> buf(dd.get_size() + pd.workspace_desc().get_size());
        memory dst(dd, eng, buf.data()), ws(pd.workspace_desc(), eng, buf.data());
        refused("pooling workspace over dst", pooling_forward(pd), s,
                {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, dst}, {DNNL_ARG_WORKSPACE, ws}}, {DNNL_ARG_DST});
    }
    {
        memory::desc sd({16, 16}, dt::f32, tag::ab);
        memory x(sd, eng), y(sd, eng);
        fill(x, 7);
        fill(y, 8);
        matmul::primitive_desc pd(eng, sd, sd, sd);
        refused("matmul weights == dst", matmul(pd), s, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, y}, {DNNL_ARG_DST, y}},
                {DNNL_ARG_DST});
    }
    {
        // An in-place kind, but dst has another layout over the same bytes.
        memory::desc blocked({2, 16, 6, 6}, dt::f32, tag::nChw16c);
        memory other(blocked, eng, a.get_data_handle());
        eltwise_forward::primitive_desc pd(
                eng, prop_kind::forward_inference, algorithm::eltwise_relu, md, blocked, 0.f, 0.f);
        refused("eltwise src == dst with another layout", eltwise_forward(pd), s,
                {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, other}}, {DNNL_ARG_DST});
    }
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            allowed(eng, s);
            forbidden(eng, s);
        });
    return t.finish();
}
