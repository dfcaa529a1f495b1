// Verbose mode prints oneDNN v3.9's lines: the info header, then for every
// primitive kind `primitive,{create:cache_miss|create:cache_hit|exec},cpu,
// kind,impl,prop,mds,attrs,aux,problem,time`. Each scenario runs in a
// forked child whose stdout goes into a pipe (verbose writes to stdout, as
// oneDNN's does); the parent parses the lines and checks every field
// against the descriptors the child created the primitives with. The
// expected strings are written out by hand here from those descriptors
// (oneDNN's spelling), not computed by any library code.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/verbose_log.hpp"
#include "common/kt_test.hpp"
#include "dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

kt::tally_t tally;

// ------------------------------------------------------------ log capture

using namespace vlog;

std::string run_child(const std::map<std::string, std::string> &env, const std::function<void()> &body) {
    return vlog::run_child(tally, env, body);
}

// ------------------------------------------------------------ the workload

// What the child created, and what the parent expects to read.
struct expect_t {
    std::string kind, prop, mds, attrs, aux, problem;
};

memory mem(const memory::desc &d, const engine &e) {
    memory m(d, e);
    float *p = static_cast<float *>(m.get_data_handle());
    if (p && d.get_data_type() == dt::f32)
        for (size_t i = 0; i < d.get_size() / sizeof(float); ++i) p[i] = 0.25f * (float)(i % 7) - 0.5f;
    return m;
}

// Executes `p` with a fresh memory for each argument its pd reports.
void run(const primitive &p, const primitive_desc_base &pd, const engine &e, stream &s,
        std::unordered_map<int, memory> args = {}) {
    for (int arg : {DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST, DNNL_ARG_DIFF_SRC,
                 DNNL_ARG_DIFF_DST, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_WORKSPACE, DNNL_ARG_MEAN,
                 DNNL_ARG_VARIANCE, DNNL_ARG_SCALE, DNNL_ARG_SHIFT, DNNL_ARG_SCRATCHPAD, DNNL_ARG_MULTIPLE_SRC,
                 DNNL_ARG_MULTIPLE_SRC + 1}) {
        memory::desc d = pd.query_md(query::exec_arg_md, arg);
        if (d.get_ndims() == 0 || args.count(arg)) continue;
        args[arg] = mem(d, e);
    }
    p.execute(s, args);
    s.wait();
}

memory::desc md(memory::dims d, tag t, dt type = dt::f32) { return memory::desc(d, type, t); }

// Creates and runs one primitive of every kind; the expectations go into
// `exp` in the same order. Runs in the child, but the expectations are
// also needed by the parent, so it is called on both sides with `engine`
// null in the parent (nothing is created then).
void workload(std::vector<expect_t> &exp, bool create) {
    engine e;
    stream s;
    if (create) {
        e = engine(engine::kind::cpu, 0);
        s = stream(e);
    }
    auto add = [&](expect_t x) { exp.push_back(x); };

    // Convolution, forward, with user scratchpad and post-ops.
    add({"convolution", "forward_training",
            "src:f32::blocked:abcd::f0 wei:f32::blocked:abcd::f0 bia:f32::blocked:a::f0 dst:f32::blocked:abcd::f0",
            "attr-scratchpad:user attr-post-ops:sum+eltwise_relu", "alg:convolution_direct",
            "mb2_ic3oc4_ih5oh3kh3sh2dh0ph1_iw5ow3kw3sw2dw0pw1"});
    if (create) {
        post_ops po;
        po.append_sum();
        po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
        primitive_attr a;
        a.set_post_ops(po);
        a.set_scratchpad_mode(scratchpad_mode::user);
        convolution_forward::primitive_desc pd(e, prop_kind::forward_training, algorithm::convolution_direct,
                md({2, 3, 5, 5}, tag::nchw), md({4, 3, 3, 3}, tag::oihw), md({4}, tag::a),
                md({2, 4, 3, 3}, tag::nchw), {2, 2}, {1, 1}, {1, 1}, a);
        run(convolution_forward(pd), pd, e, s);
    }

    // Convolution, backward weights, 3D, grouped, dilated: the tensors are
    // listed under the forward names (src, wei = diff_weights, ...).
    add({"convolution", "backward_weights",
            "src:f32::blocked:abcde::f0 wei:f32::blocked:abcdef::f0 bia:f32::blocked:a::f0 "
            "dst:f32::blocked:abcde::f0",
            "", "alg:convolution_direct", "g2mb1_ic4oc2_id3od3kd1sd1dd0pd0_ih4oh2kh2sh2dh1ph1_iw5ow5kw1sw1dw0pw0"});
    if (create) {
        auto src = md({1, 4, 3, 4, 5}, tag::ncdhw), wei = md({2, 1, 2, 1, 2, 1}, tag::goidhw),
             bia = md({2}, tag::a), dst = md({1, 2, 3, 2, 5}, tag::ncdhw);
        memory::dims st = {1, 2, 1}, dil = {0, 1, 0}, pl = {0, 1, 0}, pr = {0, 0, 0};
        convolution_forward::primitive_desc fwd(e, prop_kind::forward_training, algorithm::convolution_direct,
                src, wei, bia, dst, st, dil, pl, pr);
        convolution_backward_weights::primitive_desc pd(
                e, algorithm::convolution_direct, src, wei, bia, dst, st, dil, pl, pr, fwd);
        run(convolution_backward_weights(pd), pd, e, s);
    }

    add({"deconvolution", "forward_inference",
            "src:f32::blocked:abcd::f0 wei:f32::blocked:abcd::f0 bia:undef::undef::: dst:f32::blocked:abcd::f0", "",
            "alg:deconvolution_direct", "mb1_ic2oc2_ih3oh5kh3sh1dh0ph0_iw3ow5kw3sw1dw0pw0"});
    if (create) {
        deconvolution_forward::primitive_desc pd(e, prop_kind::forward_inference,
                algorithm::deconvolution_direct, md({1, 2, 3, 3}, tag::nchw), md({2, 2, 3, 3}, tag::oihw),
                md({1, 2, 5, 5}, tag::nchw), {1, 1}, {0, 0}, {0, 0});
        run(deconvolution_forward(pd), pd, e, s);
    }

    add({"inner_product", "forward_training",
            "src:f32::blocked:ab::f0 wei:f32::blocked:ab::f0 bia:f32::blocked:a::f0 dst:f32::blocked:ab::f0", "", "",
            "mb2ic8oc3"});
    if (create) {
        inner_product_forward::primitive_desc pd(e, prop_kind::forward_training, md({2, 8}, tag::nc),
                md({3, 8}, tag::oi), md({3}, tag::a), md({2, 3}, tag::nc));
        run(inner_product_forward(pd), pd, e, s);
    }

    // Matmul: weights `any` (the a mark; the layout is checked apart),
    // bias with its broadcast mask, scales.
    add({"matmul", "undef", "src:f32::blocked:ab::f0 wei:f32:a:blocked:", "attr-scales:src0:0:f32", "", "2x3:3x4"});
    if (create) {
        primitive_attr a;
        a.set_scales_mask(DNNL_ARG_SRC, 0);
        matmul::primitive_desc pd(e, md({2, 3}, tag::ab), md({3, 4}, tag::any), md({1, 4}, tag::ab),
                md({2, 4}, tag::ab), a);
        memory sc = mem(md({1}, tag::a), e);
        run(matmul(pd), pd, e, s, {{DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, sc}});
    }

    add({"eltwise", "forward_inference", "data:f32::blocked:abcd::f0", "", "alg:eltwise_relu alpha:0.5 beta:0",
            "1x2x3x4"});
    add({"eltwise", "backward_data", "data:f32::blocked:abcd::f0 diff:f32::blocked:abcd::f0", "",
            "alg:eltwise_tanh alpha:0 beta:0", "1x2x3x4"});
    if (create) {
        auto d = md({1, 2, 3, 4}, tag::nchw);
        eltwise_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::eltwise_relu, d, d, 0.5f);
        run(eltwise_forward(pd), pd, e, s);
        eltwise_forward::primitive_desc fwd(e, prop_kind::forward_training, algorithm::eltwise_tanh, d, d);
        eltwise_backward::primitive_desc bwd(e, algorithm::eltwise_tanh, d, d, d, fwd);
        run(eltwise_backward(bwd), bwd, e, s);
    }

    add({"binary", "undef", "src:f32::blocked:ab::f0 src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "",
            "alg:binary_add", "2x3:1x3"});
    if (create) {
        binary::primitive_desc pd(e, algorithm::binary_add, md({2, 3}, tag::ab), md({1, 3}, tag::ab),
                md({2, 3}, tag::ab));
        run(binary(pd), pd, e, s);
    }

    add({"softmax", "forward_inference", "src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "",
            "alg:softmax_accurate axis:1", "2x5"});
    if (create) {
        softmax_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::softmax_accurate,
                md({2, 5}, tag::ab), md({2, 5}, tag::ab), 1);
        run(softmax_forward(pd), pd, e, s);
    }

    add({"pooling", "forward_inference", "src:f32::blocked:acdb::f0 dst:f32::blocked:acdb::f0", "",
            "alg:pooling_max", "mb1ic2_ih4oh2kh2sh2dh0ph0_iw5ow3kw2sw2dw0pw1"});
    if (create) {
        pooling_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::pooling_max,
                md({1, 2, 4, 5}, tag::nhwc), md({1, 2, 2, 3}, tag::nhwc), {2, 2}, {2, 2}, {0, 0}, {0, 1}, {0, 1});
        run(pooling_forward(pd), pd, e, s);
    }

    add({"lrn", "forward_inference", "data:f32::blocked:abcd::f0", "", "alg:lrn_across_channels",
            "mb1ic4ih3iw3ls3beta0.75"});
    if (create) {
        auto d = md({1, 4, 3, 3}, tag::nchw);
        lrn_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::lrn_across_channels, d, d, 3,
                1e-4f, 0.75f, 1.f);
        run(lrn_forward(pd), pd, e, s);
    }

    add({"batch_normalization", "forward_inference", "data:f32::blocked:abcd::f0", "", "flags:CH", "mb2ic3ih2iw2"});
    if (create) {
        auto d = md({2, 3, 2, 2}, tag::nchw);
        batch_normalization_forward::primitive_desc pd(e, prop_kind::forward_inference, d, d, 1e-5f,
                normalization_flags::use_scale | normalization_flags::use_shift);
        run(batch_normalization_forward(pd), pd, e, s);
    }

    add({"layer_normalization", "forward_training",
            "src:f32::blocked:abc::f0 dst:f32::blocked:abc::f0 stats:f32::blocked:ab::f0", "", "flags:", "2x3x4"});
    if (create) {
        auto d = md({2, 3, 4}, tag::abc);
        layer_normalization_forward::primitive_desc pd(
                e, prop_kind::forward_training, d, d, 1e-5f, normalization_flags::none);
        run(layer_normalization_forward(pd), pd, e, s);
    }

    add({"group_normalization", "forward_training", "src:f32::blocked:abc::f0 dst:f32::blocked:abc::f0", "",
            "flags:G", "g2mb2ic4iw3"});
    if (create) {
        auto d = md({2, 4, 3}, tag::abc);
        group_normalization_forward::primitive_desc pd(
                e, prop_kind::forward_training, d, d, 2, 1e-5f, normalization_flags::use_global_stats);
        run(group_normalization_forward(pd), pd, e, s);
    }

    add({"prelu", "forward_training", "data:f32::blocked:ab::f0 wei:f32::blocked:ab::f0", "", "", "2x3:1x3"});
    if (create) {
        prelu_forward::primitive_desc pd(
                e, prop_kind::forward_training, md({2, 3}, tag::ab), md({1, 3}, tag::ab), md({2, 3}, tag::ab));
        run(prelu_forward(pd), pd, e, s);
    }

    add({"reduction", "undef", "src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "",
            "alg:reduction_sum p:0 eps:0", "2x3:2x1"});
    if (create) {
        reduction::primitive_desc pd(
                e, algorithm::reduction_sum, md({2, 3}, tag::ab), md({2, 1}, tag::ab), 0.f, 0.f);
        run(reduction(pd), pd, e, s);
    }

    add({"resampling", "forward_training", "src:f32::blocked:abc::f0 dst:f32::blocked:abc::f0", "",
            "alg:resampling_linear", "mb1ic2_iw4ow8"});
    if (create) {
        resampling_forward::primitive_desc pd(e, prop_kind::forward_training, algorithm::resampling_linear,
                md({1, 2, 4}, tag::abc), md({1, 2, 8}, tag::abc));
        run(resampling_forward(pd), pd, e, s);
    }

    add({"shuffle", "forward_training", "data:f32::blocked:abc::f0", "", "axis:1 group:2", "1x4x2"});
    if (create) {
        shuffle_forward::primitive_desc pd(
                e, prop_kind::forward_training, md({1, 4, 2}, tag::abc), md({1, 4, 2}, tag::abc), 1, 2);
        run(shuffle_forward(pd), pd, e, s);
    }

    add({"concat", "undef", "src:f32::blocked:ab::f0 src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "",
            "axis:1", "1x2:1x3"});
    if (create) {
        concat::primitive_desc pd(e, md({1, 5}, tag::ab), 1, {md({1, 2}, tag::ab), md({1, 3}, tag::ab)});
        run(concat(pd), pd, e, s);
    }

    add({"sum", "undef", "src:f32::blocked:ab::f0 src:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "", "", "2x2"});
    if (create) {
        sum::primitive_desc pd(e, md({2, 2}, tag::ab), {1.f, 1.f}, {md({2, 2}, tag::ab), md({2, 2}, tag::ab)});
        run(sum(pd), pd, e, s);
    }

    add({"reorder", "undef", "src:f32::blocked:abcd::f0 dst:f32::blocked:acdb::f0", "", "", "2x3x4x5"});
    // Blocked with padding (p mark, aBcd16b, dense with its padding).
    add({"reorder", "undef", "src:f32::blocked:abcd::f0 dst:f32:p:blocked:aBcd16b::f0", "", "", "1x3x2x2"});
    // A window of a bigger tensor: offset0 (the 0 mark) and, not dense,
    // its strides.
    add({"reorder", "undef", "src:f32:0:blocked:ab:4x1:f0 dst:f32::blocked:ab::f0", "", "", "2x2"});
    if (create) {
        auto r = [&](const memory::desc &a, const memory::desc &b) {
            reorder::primitive_desc pd(e, a, e, b);
            memory ma = mem(a, e), mb = mem(b, e);
            reorder(pd).execute(s, ma, mb);
            s.wait();
        };
        r(md({2, 3, 4, 5}, tag::nchw), md({2, 3, 4, 5}, tag::nhwc));
        r(md({1, 3, 2, 2}, tag::nchw), md({1, 3, 2, 2}, tag::nChw16c));
        memory::desc parent = md({4, 4}, tag::ab);
        r(parent.submemory_desc({2, 2}, {1, 1}), md({2, 2}, tag::ab));
    }
}

// ------------------------------------------------------------ scenarios

// Level all: header, create and exec lines of every kind with every field.
void test_every_kind(int nthr) {
    std::vector<expect_t> exp;
    workload(exp, false);
    std::string log = run_child({{"ONEDNN_VERBOSE", "all"}}, [nthr] {
        std::vector<expect_t> unused;
        kt::with_threads(nthr, [&] { workload(unused, true); });
    });
    auto lines = lines_of(log);

    // The header comes first, in oneDNN's order.
    const char *header[] = {"onednn_verbose,v1,info,oneDNN v3.9.", "onednn_verbose,v1,info,cpu,runtime:TBB,nthr:",
            "onednn_verbose,v1,info,cpu,isa:", "onednn_verbose,v1,info,gpu,runtime:none",
            ("onednn_verbose,v1,primitive,info,template:operation,engine,primitive,implementation,prop_kind,"
             "memory_descriptors,attributes,auxiliary,problem_desc,exec_time")};
    bool head_ok = lines.size() > 5;
    for (int i = 0; head_ok && i < 5; ++i) head_ok = starts(lines[i], header[i]);
    tally.check(head_ok, "level all: the five info header lines come first");
    tally.check(lines.size() > 1 && lines[1] == std::string("onednn_verbose,v1,info,cpu,runtime:TBB,nthr:")
                            + std::to_string(nthr),
            "header: nthr is the thread count in force");
    int headers = 0;
    for (auto &l : lines) headers += starts(l, "onednn_verbose,v1,info,") ? 1 : 0;
    tally.check(headers == 4, "header printed once");

    // Exec and create lines, in workload order, each matching its expect.
    std::vector<prim_line_t> execs, creates;
    bool all_parse = true;
    for (auto &l : lines) {
        if (starts(l, "onednn_verbose,v1,info,") || starts(l, "onednn_verbose,v1,primitive,info,")
                || starts(l, "onednn_verbose,v1,primitive,create:dispatch,")
                || starts(l, "onednn_verbose,v1,scratchpad,"))
            continue;
        prim_line_t p;
        if (!parse_prim(l, false, p)) {
            all_parse = false;
            std::fprintf(stderr, "unparsed: %s\n", l.c_str());
            continue;
        }
        (p.op == "exec" ? execs : creates).push_back(p);
    }
    tally.check(all_parse, "every primitive line has the 11 fields after the marker and version");
    tally.check(execs.size() == exp.size(), "one exec line per primitive run");
    tally.check(creates.size() >= exp.size(), "a create line per primitive created");
    for (size_t i = 0; i < exp.size() && i < execs.size(); ++i) {
        const expect_t &x = exp[i];
        const prim_line_t &p = execs[i];
        std::string what = x.kind + "/" + x.prop + ": ";
        bool mds_ok = x.kind == "matmul" ? starts(p.mds, x.mds) : p.mds == x.mds;
        if (!mds_ok) std::fprintf(stderr, "  mds: got '%s' want '%s'\n", p.mds.c_str(), x.mds.c_str());
        if (p.attrs != x.attrs) std::fprintf(stderr, "  attrs: got '%s' want '%s'\n", p.attrs.c_str(), x.attrs.c_str());
        if (p.aux != x.aux) std::fprintf(stderr, "  aux: got '%s' want '%s'\n", p.aux.c_str(), x.aux.c_str());
        if (p.problem != x.problem)
            std::fprintf(stderr, "  problem: got '%s' want '%s'\n", p.problem.c_str(), x.problem.c_str());
        tally.check(p.engine == "cpu", (what + "engine").c_str());
        tally.check(p.kind == x.kind, (what + "primitive kind").c_str());
        tally.check(!p.impl.empty(), (what + "implementation named").c_str());
        tally.check(p.prop == x.prop, (what + "prop kind").c_str());
        tally.check(mds_ok, (what + "memory descriptors").c_str());
        tally.check(p.attrs == x.attrs, (what + "attributes").c_str());
        tally.check(p.aux == x.aux, (what + "auxiliary").c_str());
        tally.check(p.problem == x.problem, (what + "problem").c_str());
        tally.check(is_number(p.time) && std::strtod(p.time.c_str(), nullptr) >= 0, (what + "time").c_str());
        // The create line of the same primitive carries the same fields.
        bool found = false;
        for (auto &c : creates)
            found = found
                    || (starts(c.op, "create:cache_") && c.kind == p.kind && c.impl == p.impl && c.prop == p.prop
                            && c.mds == p.mds && c.attrs == p.attrs && c.aux == p.aux && c.problem == p.problem
                            && is_number(c.time));
        tally.check(found, (what + "create line with the same fields").c_str());
    }
    // Matmul's weights: `any` resolved to a plain layout of a 3x4 matrix,
    // then the bias with its broadcast mask (dims 1x4: bit 1) and dst.
    for (auto &p : execs) {
        if (p.kind != "matmul") continue;
        auto mds = split(p.mds, ' ');
        bool ok = mds.size() == 4 && (mds[1] == "wei:f32:a:blocked:ab::f0" || mds[1] == "wei:f32:a:blocked:ba::f0"
                                             || starts(mds[1], "wei:f32:a:blocked:"));
        tally.check(ok, "matmul: weights marked `a` (created with format any)");
        tally.check(mds.size() == 4 && mds[2] == "bia:f32::blocked:ab::f0_mask2" && mds[3] == "dst:f32::blocked:ab::f0",
                "matmul: bias with its mask, then dst");
    }
}

// The same primitive created twice: a cache miss, then a hit.
void test_cache_hit() {
    std::string log = run_child({{"ONEDNN_VERBOSE", "profile_create"}}, [] {
        engine e(engine::kind::cpu, 0);
        auto d = md({2, 3}, tag::ab);
        for (int i = 0; i < 2; ++i) {
            eltwise_forward::primitive_desc pd(e, prop_kind::forward_inference, algorithm::eltwise_relu, d, d);
            eltwise_forward p(pd);
        }
    });
    int miss = 0, hit = 0, exec = 0;
    for (auto &l : lines_of(log)) {
        prim_line_t p;
        if (!parse_prim(l, false, p)) continue;
        miss += p.op == "create:cache_miss";
        hit += p.op == "create:cache_hit";
        exec += p.op == "exec";
    }
    tally.check(miss == 1 && hit == 1 && exec == 0, "profile_create: one cache_miss, one cache_hit, no exec");
}

// A tiny job for the level tests: one reorder run, one creation that no
// implementation accepts (a reorder from f32 to an int4 type on a blocked
// layout) and one that an implementation declines before another accepts.
struct counts_t {
    int header = 0, exec = 0, create = 0, dispatch = 0, check = 0, error = 0, other = 0;
};

counts_t count(const std::string &log, bool stamped) {
    counts_t c;
    for (auto &l : lines_of(log)) {
        auto f = split(l, ',');
        const size_t b = stamped ? 3 : 2;
        if (f.size() < 4 || f[0] != "onednn_verbose" || f[1] != "v1") {
            ++c.other;
            continue;
        }
        if (f[2] == "info" || (f.size() > 3 && f[2] == "primitive" && f[3] == "info")) {
            ++c.header;
            continue;
        }
        if (f.size() <= b + 1) {
            ++c.other;
            continue;
        }
        const std::string &op = f[b + 1];
        if (op == "exec") ++c.exec;
        else if (starts(op, "create:cache_")) ++c.create;
        else if (op == "create:dispatch") ++c.dispatch;
        else if (op == "create:check" || op == "exec:check") ++c.check;
        else if (op == "error") ++c.error;
        else if (f[b] != "scratchpad") ++c.other;
    }
    return c;
}

void small_job() {
    engine e(engine::kind::cpu, 0);
    stream s(e);
    auto a = md({2, 3, 4, 4}, tag::nchw), b = md({2, 3, 4, 4}, tag::nhwc);
    reorder::primitive_desc pd(e, a, e, b);
    memory ma(a, e), mb(b, e);
    reorder r(pd);
    r.execute(s, ma, mb);
    s.wait();
    // An execution without its dst: refused, and check mode says why.
    dnnl_exec_arg_t only_src[] = {{DNNL_ARG_SRC, ma.get()}};
    if (dnnl_primitive_execute(r.get(), s.get(), 1, only_src) != dnnl_invalid_arguments) std::exit(4);
    // Dropout on a convolution: every implementation declines (dispatch).
    primitive_attr attr;
    attr.set_dropout(md({2, 4, 3, 3}, tag::nchw, dt::u8));
    dnnl_primitive_desc_t h = nullptr;
    dnnl_status_t st = dnnl_convolution_forward_primitive_desc_create(&h, e.get(), dnnl_forward_inference,
            dnnl_convolution_direct, md({2, 3, 5, 5}, tag::nchw).get(), md({4, 3, 3, 3}, tag::oihw).get(), nullptr,
            md({2, 4, 3, 3}, tag::nchw).get(), memory::dims {1, 1}.data(), nullptr, memory::dims {0, 0}.data(),
            memory::dims {0, 0}.data(), attr.get());
    if (st == dnnl_success) dnnl_primitive_desc_destroy(h);
    // A creation no implementation accepts: check level says so.
    st = dnnl_reorder_primitive_desc_create(&h, md({2, 32}, tag::ab, dt::f32).get(), e.get(),
            md({2, 32}, tag::ab, dt::f8_e5m2).get(), e.get(), nullptr);
    if (st == dnnl_success) dnnl_primitive_desc_destroy(h);
}

// Check mode names the refused execution: the reorder run without dst.
void test_exec_check() {
    for (const char *level : {"check", "all", "profile"}) {
        int n = 0;
        for (auto &l : lines_of(run_child({{"ONEDNN_VERBOSE", level}}, small_job)))
            n += starts(l, "onednn_verbose,v1,primitive,exec:check,reorder,")
                    && l.find("(argument " + std::to_string(DNNL_ARG_DST) + ")") != std::string::npos;
        tally.check(n == (std::string(level) == "profile" ? 0 : 1),
                (std::string(level) + ": exec:check line for the missing dst").c_str());
    }
}

void test_levels() {
    struct case_t {
        const char *var, *value;
        bool header, exec, create, dispatch, check, error;
    } cases[] = {
            // A set variable starts from the error messages, as in oneDNN
            // (the one refused execution of small_job is one error line);
            // none and 0 clear them.
            {"ONEDNN_VERBOSE", "none", false, false, false, false, false, false},
            {"ONEDNN_VERBOSE", "0", false, false, false, false, false, false},
            {"ONEDNN_VERBOSE", "error", true, false, false, false, false, true},
            {"ONEDNN_VERBOSE", "check", true, false, false, false, true, true},
            {"ONEDNN_VERBOSE", "profile_create", true, false, true, false, false, true},
            {"ONEDNN_VERBOSE", "profile_exec", true, true, false, false, false, true},
            {"ONEDNN_VERBOSE", "profile", true, true, true, false, false, true},
            {"ONEDNN_VERBOSE", "dispatch", true, false, false, true, false, true},
            {"ONEDNN_VERBOSE", "all", true, true, true, true, true, true},
            {"ONEDNN_VERBOSE", "1", true, true, false, false, false, true},
            {"ONEDNN_VERBOSE", "2", true, true, true, false, false, true},
            {"ONEDNN_VERBOSE", "profile_exec,dispatch", true, true, false, true, false, true},
            {"ONEDNN_VERBOSE", "all,none", false, false, false, false, false, false},
            {"ONEDNN_VERBOSE", "none,error", true, false, false, false, false, true},
            {"ONEDNN_VERBOSE", "debuginfo=3", true, false, false, false, false, true},
            {"ONEDNN_VERBOSE", "bogus", true, false, false, false, false, true},
            {"DNNL_VERBOSE", "profile_exec", true, true, false, false, false, true},
    };
    for (const auto &c : cases) {
        counts_t n = count(run_child({{c.var, c.value}}, small_job), false);
        std::string what = std::string(c.var) + "=" + c.value + ": ";
        tally.check((n.header == 5) == c.header && (n.header == 0) == !c.header, (what + "header").c_str());
        tally.check((n.exec == 1) == c.exec && (n.exec == 0) == !c.exec, (what + "exec lines").c_str());
        tally.check((n.create >= 1) == c.create && (n.create == 0) == !c.create, (what + "create lines").c_str());
        tally.check((n.dispatch >= 1) == c.dispatch && (n.dispatch == 0) == !c.dispatch,
                (what + "dispatch lines").c_str());
        tally.check((n.check >= 1) == c.check && (n.check == 0) == !c.check, (what + "check lines").c_str());
        tally.check(n.error == (c.error ? 1 : 0), (what + "error lines").c_str());
        tally.check(n.other == 0, (what + "no line outside the format").c_str());
    }
}

// ONEDNN_VERBOSE_TIMESTAMP=1: a column of milliseconds since the epoch
// after the version, and the template names it.
void test_timestamp() {
    const double before = (double)time(nullptr) * 1000.0;
    std::string log = run_child({{"ONEDNN_VERBOSE", "profile"}, {"ONEDNN_VERBOSE_TIMESTAMP", "1"}}, small_job);
    const double after = (double)time(nullptr) * 1000.0 + 1000.0;
    bool tmpl = false, all_stamped = true;
    int prim = 0;
    for (auto &l : lines_of(log)) {
        if (starts(l, "onednn_verbose,v1,primitive,info,template:"))
            tmpl = l == "onednn_verbose,v1,primitive,info,template:timestamp,operation,engine,primitive,"
                        "implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time";
        if (starts(l, "onednn_verbose,v1,info,") || starts(l, "onednn_verbose,v1,primitive,info,")) continue;
        auto f = split(l, ',');
        if (f.size() < 4 || f[2] == "scratchpad" || f[3] == "scratchpad") continue;
        if (f.size() > 4 && f[3] == "primitive" && f[4] == "error") {
            // The error line of the refused execution: stamped too.
            const double t = std::strtod(f[2].c_str(), nullptr);
            all_stamped = all_stamped && is_number(f[2]) && t >= before - 1000.0 && t <= after;
            continue;
        }
        prim_line_t p;
        bool ok = parse_prim(l, true, p);
        double t = ok ? std::strtod(f[2].c_str(), nullptr) : 0;
        all_stamped = all_stamped && ok && t >= before - 1000.0 && t <= after;
        ++prim;
    }
    tally.check(tmpl, "timestamp: the template starts with timestamp");
    tally.check(prim >= 2 && all_stamped, "timestamp: every primitive line has a wall-clock column");
    counts_t n = count(log, true);
    tally.check(n.exec == 1 && n.create >= 1, "timestamp: lines still classified by their operation");
}

// dnnl_set_verbose overrides the environment; 0 silences.
void test_set_verbose() {
    std::string log = run_child({{"ONEDNN_VERBOSE", "none"}}, [] {
        if (dnnl_set_verbose(1) != dnnl_success) std::exit(2);
        small_job();
        if (dnnl_set_verbose(0) != dnnl_success) std::exit(2);
        small_job();
        if (dnnl_set_verbose(3) != dnnl_invalid_arguments || dnnl_set_verbose(-1) != dnnl_invalid_arguments)
            std::exit(2);
        small_job();
    });
    counts_t n = count(log, false);
    tally.check(n.exec == 1 && n.create == 0 && n.dispatch == 0, "dnnl_set_verbose(1): exec lines only, then off");
    log = run_child({}, [] {
        if (dnnl_set_verbose(2) != dnnl_success) std::exit(2);
        small_job();
    });
    n = count(log, false);
    tally.check(n.exec == 1 && n.create >= 1 && n.header == 5, "dnnl_set_verbose(2): create and exec lines");
    tally.check(run_child({}, small_job).empty(), "verbose off by default: nothing printed");
}

} // namespace

int main() {
    test_every_kind(1);
    test_every_kind(2);
    test_cache_hit();
    test_levels();
    test_exec_check();
    test_timestamp();
    test_set_verbose();
    return tally.finish();
}
