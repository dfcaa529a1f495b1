// Real kernels executed concurrently: each primitive runs once alone (the
// reference), then from two application threads at once, several times,
// with TBB's two threads inside each execution, in library scratchpad mode
// (the shared arena) and in user mode (a buffer per thread). Every result
// must equal the serial one bit for bit. Under ThreadSanitizer this is the
// race check of the kernels, the arena and the primitive cache; in the
// other builds it checks the results.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t t;

// A dense row-major descriptor of the same dims and type.
memory::desc dense(const memory::desc &md) {
    memory::dims d = md.get_dims(), st(d.size());
    memory::dim s = 1;
    for (size_t i = d.size(); i-- > 0;) {
        st[i] = s;
        s *= d[i] > 0 ? d[i] : 1;
    }
    return memory::desc(d, md.get_data_type(), st);
}

struct arg_t {
    int arg;
    bool output;
};

const arg_t candidates[] = {{DNNL_ARG_SRC, false}, {DNNL_ARG_SRC_1, false}, {DNNL_ARG_WEIGHTS, false},
        {DNNL_ARG_BIAS, false}, {DNNL_ARG_SCALE, false}, {DNNL_ARG_SHIFT, false},
        {DNNL_ARG_MULTIPLE_SRC, false}, {DNNL_ARG_MULTIPLE_SRC + 1, false}, {DNNL_ARG_MULTIPLE_SRC + 2, false},
        {DNNL_ARG_DST, true}, {DNNL_ARG_WORKSPACE, true}, {DNNL_ARG_MEAN, true}, {DNNL_ARG_VARIANCE, true}};

// Runs `pd` serially, then concurrently, and compares.
// (primitive_desc_base: a reorder's primitive_desc is not a primitive_desc.)
void check(const char *name, const primitive_desc_base &pd, engine &eng, stream &s0, bool user_scratchpad) {
    primitive prim(pd.get());
    std::vector<memory> inputs;
    std::unordered_map<int, memory> in_args;
    std::vector<arg_t> outs;
    uint64_t seed = 1;
    for (const auto &c : candidates) {
        memory::desc md = pd.query_md(query::exec_arg_md, c.arg);
        if (md.get_size() == 0) continue;
        if (c.output) {
            outs.push_back(c);
            continue;
        }
        memory::desc pl = dense(md);
        std::vector<float> v(pl.get_size() / sizeof(float));
        kt::fill(v, seed++, -1.f, 1.f);
        memory pm(pl, eng, v.data()), m(md, eng);
        reorder(pm, m).execute(s0, pm, m);
        s0.wait();
        in_args[c.arg] = m;
    }
    // One execution into fresh outputs; returns the outputs as dense bytes.
    auto run = [&](stream &s) {
        std::unordered_map<int, memory> args = in_args;
        std::vector<memory> out_mems;
        for (const auto &c : outs) args[c.arg] = memory(pd.query_md(query::exec_arg_md, c.arg), eng);
        memory pad;
        if (user_scratchpad) {
            pad = memory(pd.scratchpad_desc(), eng);
            args[DNNL_ARG_SCRATCHPAD] = pad;
        }
        prim.execute(s, args);
        s.wait();
        std::vector<std::vector<char>> bytes;
        for (const auto &c : outs) {
            memory::desc md = pd.query_md(query::exec_arg_md, c.arg);
            memory::desc pl = dense(md);
            std::vector<char> b(pl.get_size());
            memory pm(pl, eng, b.data());
            reorder(args[c.arg], pm).execute(s, args[c.arg], pm);
            s.wait();
            bytes.push_back(std::move(b));
        }
        return bytes;
    };
    const auto want = run(s0);
    bool same[2] = {true, true};
    std::thread th[2];
    for (int i = 0; i < 2; ++i)
        th[i] = std::thread([&, i] {
            stream s(eng);
            for (int rep = 0; rep < 3; ++rep) same[i] = same[i] && run(s) == want;
        });
    for (auto &x : th) x.join();
    std::string what = std::string(name) + (user_scratchpad ? " (user scratchpad)" : " (shared arena)")
            + ": concurrent runs equal the serial one";
    t.check(same[0] && same[1], what.c_str());
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    kt::with_threads(2, [&] {
        for (bool user : {false, true}) {
            primitive_attr a;
            a.set_scratchpad_mode(user ? scratchpad_mode::user : scratchpad_mode::library);
            memory::desc any4({2, 19, 13, 11}, dt::f32, tag::any);
            memory::desc w3({35, 19, 3, 3}, dt::f32, tag::any), w1({35, 19, 1, 1}, dt::f32, tag::any);
            memory::desc d3({2, 35, 13, 11}, dt::f32, tag::any), bias({35}, dt::f32, tag::a);
            check("convolution 3x3", convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, any4, w3, bias, d3, {1, 1}, {1, 1}, {1, 1}, a), eng, s, user);
            memory::desc nchw({2, 19, 13, 11}, dt::f32, tag::nchw), dnchw({2, 35, 13, 11}, dt::f32, tag::nchw);
            memory::desc oihw({35, 19, 3, 3}, dt::f32, tag::oihw);
            check("convolution 3x3 nchw (im2col)", convolution_forward::primitive_desc(eng,
                    prop_kind::forward_inference, algorithm::convolution_direct, nchw, oihw, bias, dnchw, {1, 1},
                    {1, 1}, {1, 1}, a), eng, s, user);
            check("convolution 1x1", convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, any4, w1, bias, d3, {1, 1}, {0, 0}, {0, 0}, a), eng, s, user);
            check("matmul", matmul::primitive_desc(eng, memory::desc({67, 129}, dt::f32, tag::ab),
                    memory::desc({129, 45}, dt::f32, tag::ab), memory::desc({67, 45}, dt::f32, tag::ab), a),
                    eng, s, user);
            check("inner product", inner_product_forward::primitive_desc(eng, prop_kind::forward_inference,
                    memory::desc({9, 19, 5, 5}, dt::f32, tag::nchw), memory::desc({33, 19, 5, 5}, dt::f32, tag::any),
                    memory::desc({33}, dt::f32, tag::a), memory::desc({9, 33}, dt::f32, tag::nc), a), eng, s, user);
            for (tag tg : {tag::nchw, tag::nhwc, tag::nChw16c}) {
                memory::desc ps({2, 19, 13, 11}, dt::f32, tg), pdst({2, 19, 6, 5}, dt::f32, tg);
                check("max pooling (training)", pooling_forward::primitive_desc(eng, prop_kind::forward_training,
                        algorithm::pooling_max, ps, pdst, {2, 2}, {3, 3}, {0, 0}, {0, 0}, {0, 0}, a), eng, s, user);
                check("batch normalization", batch_normalization_forward::primitive_desc(eng,
                        prop_kind::forward_training, ps, ps, 1e-5f,
                        normalization_flags::use_scale | normalization_flags::use_shift, a), eng, s, user);
                check("reorder", reorder::primitive_desc(eng, nchw, eng, ps, a), eng, s, user);
            }
            memory::desc tnc({5, 7, 67}, dt::f32, tag::tnc);
            check("layer normalization", layer_normalization_forward::primitive_desc(eng,
                    prop_kind::forward_training, tnc, tnc, 1e-5f, normalization_flags::use_scale, a), eng, s, user);
            check("softmax", softmax_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::softmax_accurate, tnc, tnc, 2, a), eng, s, user);
            check("reduction", reduction::primitive_desc(eng, algorithm::reduction_sum, nchw,
                    memory::desc({2, 1, 13, 11}, dt::f32, tag::nchw), 0.f, 0.f, a), eng, s, user);
            check("lrn", lrn_forward::primitive_desc(eng, prop_kind::forward_training,
                    algorithm::lrn_across_channels, nchw, nchw, 5, 1e-4f, 0.75f, 1.f, a), eng, s, user);
            check("eltwise gelu", eltwise_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::eltwise_gelu_erf, nchw, nchw, 0.f, 0.f, a), eng, s, user);
        }
    });
    return t.finish();
}
