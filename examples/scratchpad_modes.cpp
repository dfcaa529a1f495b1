// The scratchpad modes side by side.
//
// A convolution that lowers its input into columns (im2col) needs temporary
// memory while it runs: its scratchpad. This program runs the same network
//
//   src 4x8x14x14 (nchw) -> conv 3x3 pad 1 -> 16 ch, ReLU
//                        -> conv 3x3 pad 1 -> 16 ch, ReLU -> inner product -> 10
//
// in library mode and in user mode, checks that both give the same bits and
// that they match a plain computation, and reports how much scratchpad memory
// each mode holds:
//
//   library mode, global arena (the default): one arena shared by every
//       primitive; a network run layer after layer holds the largest
//       scratchpad, not the sum;
//   library mode, private (ONEDNN_SCRATCHPAD=private, or a build configured
//       with --enable-concurrent-exec): each primitive owns its scratchpad
//       from creation to destruction, so the network holds the sum;
//   user mode (attr.set_scratchpad_mode(scratchpad_mode::user)): the program
//       passes a buffer with DNNL_ARG_SCRATCHPAD; one buffer of the largest
//       size serves every primitive run one after another.
//
// Run it as `ONEDNN_SCRATCHPAD=private scratchpad_modes` for the second
// policy; `make check` runs it both ways.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"

using namespace dnnl;
using dt = memory::data_type;
using tag = memory::format_tag;

namespace {

const memory::dim N = 4, IC = 8, H = 14, W = 14, C = 16, K = 10;

std::vector<float> make(size_t n, unsigned seed) {
    std::vector<float> v(n);
    for (auto &x : v) {
        seed = seed * 1103515245u + 12345u;
        x = float((seed >> 9) & 0xffff) / 32768.f - 1.f;
    }
    return v;
}

struct net_t {
    convolution_forward::primitive_desc conv1_pd, conv2_pd;
    inner_product_forward::primitive_desc ip_pd;
};

net_t make_net(const engine &eng, scratchpad_mode mode) {
    primitive_attr conv_attr, ip_attr;
    post_ops ops;
    ops.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    conv_attr.set_post_ops(ops);
    conv_attr.set_scratchpad_mode(mode);
    ip_attr.set_scratchpad_mode(mode);
    // Plain nchw on purpose: this layout goes through im2col + GEMM, which
    // needs a scratchpad for the columns.
    memory::desc src_md({N, IC, H, W}, dt::f32, tag::nchw);
    memory::desc wei_md({C, IC, 3, 3}, dt::f32, tag::oihw);
    memory::desc wei2_md({C, C, 3, 3}, dt::f32, tag::oihw);
    memory::desc bia_md({C}, dt::f32, tag::x);
    memory::desc act_md({N, C, H, W}, dt::f32, tag::nchw);
    memory::desc ipw_md({K, C, H, W}, dt::f32, tag::oihw);
    memory::desc ipb_md({K}, dt::f32, tag::x);
    memory::desc out_md({N, K}, dt::f32, tag::nc);
    return {convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, src_md, wei_md, bia_md, act_md, {1, 1},
                    {1, 1}, {1, 1}, conv_attr),
            convolution_forward::primitive_desc(eng, prop_kind::forward_inference,
                    algorithm::convolution_direct, act_md, wei2_md, bia_md, act_md, {1, 1},
                    {1, 1}, {1, 1}, conv_attr),
            inner_product_forward::primitive_desc(eng, prop_kind::forward_inference, act_md,
                    ipw_md, ipb_md, out_md, ip_attr)};
}

// Runs the network; in user mode `scratch` is the one shared buffer.
std::vector<float> run(const engine &eng, stream &strm, const net_t &net,
        const std::vector<std::vector<float>> &in, memory *scratch) {
    std::vector<float> act1(N * C * H * W), act2(N * C * H * W), out(N * K);
    auto m = [&](const memory::desc &md, const float *p) {
        return memory(md, eng, const_cast<float *>(p));
    };
    memory src = m(net.conv1_pd.src_desc(), in[0].data());
    memory a1 = m(net.conv1_pd.dst_desc(), act1.data());
    memory a2 = m(net.conv2_pd.dst_desc(), act2.data());
    memory outm = m(net.ip_pd.dst_desc(), out.data());
    struct step_t {
        primitive prim;
        const primitive_desc_base &pd;
        std::unordered_map<int, memory> args;
    };
    std::vector<step_t> steps {
            {convolution_forward(net.conv1_pd), net.conv1_pd,
                    {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, m(net.conv1_pd.weights_desc(), in[1].data())},
                            {DNNL_ARG_BIAS, m(net.conv1_pd.bias_desc(), in[2].data())},
                            {DNNL_ARG_DST, a1}}},
            {convolution_forward(net.conv2_pd), net.conv2_pd,
                    {{DNNL_ARG_SRC, a1}, {DNNL_ARG_WEIGHTS, m(net.conv2_pd.weights_desc(), in[3].data())},
                            {DNNL_ARG_BIAS, m(net.conv2_pd.bias_desc(), in[4].data())},
                            {DNNL_ARG_DST, a2}}},
            {inner_product_forward(net.ip_pd), net.ip_pd,
                    {{DNNL_ARG_SRC, a2}, {DNNL_ARG_WEIGHTS, m(net.ip_pd.weights_desc(), in[5].data())},
                            {DNNL_ARG_BIAS, m(net.ip_pd.bias_desc(), in[6].data())},
                            {DNNL_ARG_DST, outm}}}};
    for (auto &st : steps) {
        // In user mode every primitive sees the one buffer through its own
        // scratchpad descriptor.
        if (scratch)
            st.args[DNNL_ARG_SCRATCHPAD]
                    = memory(st.pd.scratchpad_desc(), eng, scratch->get_data_handle());
        st.prim.execute(strm, st.args);
    }
    strm.wait();
    return out;
}

// A value computed in double and a bound on how far the library's float
// result may lie from it.
struct val_t {
    double v = 0, err = 0;
};

// A float sum of k terms, in any order, is off by at most k * eps * sum|terms|
// (eps = 2^-24); an error e_i in an input reaches the sum as |w_i| * e_i; ReLU
// never increases an error. This accumulates both for one dot product.
struct dot_t {
    double acc = 0, abs_sum = 0, passed_on = 0;
    int k = 0;
    void add(double w, const val_t &x) {
        acc += w * x.v;
        abs_sum += std::fabs(w * x.v);
        passed_on += std::fabs(w) * x.err;
        ++k;
    }
    val_t result(bool relu) const {
        const double eps = 1.0 / (1 << 24);
        return {relu ? std::max(acc, 0.0) : acc, passed_on + (k + 1) * eps * abs_sum};
    }
};

// One convolution 3x3, pad 1, stride 1, then ReLU, in double on nchw/oihw.
std::vector<val_t> plain_conv(const std::vector<val_t> &src, memory::dim ic,
        const std::vector<float> &wei, const std::vector<float> &bia) {
    std::vector<val_t> dst(N * C * H * W);
    for (memory::dim n = 0; n < N; ++n)
        for (memory::dim c = 0; c < C; ++c)
            for (memory::dim h = 0; h < H; ++h)
                for (memory::dim w = 0; w < W; ++w) {
                    dot_t d;
                    d.add(1.0, {bia[c], 0});
                    for (memory::dim i = 0; i < ic; ++i)
                        for (int kh = 0; kh < 3; ++kh)
                            for (int kw = 0; kw < 3; ++kw) {
                                memory::dim ih = h - 1 + kh, iw = w - 1 + kw;
                                if (ih < 0 || ih >= H || iw < 0 || iw >= W) continue;
                                d.add(wei[((c * ic + i) * 3 + kh) * 3 + kw],
                                        src[((n * ic + i) * H + ih) * W + iw]);
                            }
                    dst[((n * C + c) * H + h) * W + w] = d.result(true);
                }
    return dst;
}

// The whole network with plain loops, in double, with error bounds.
std::vector<val_t> plain(const std::vector<std::vector<float>> &in) {
    std::vector<val_t> x(in[0].size());
    for (size_t i = 0; i < x.size(); ++i) x[i].v = in[0][i];
    auto a1 = plain_conv(x, IC, in[1], in[2]);
    auto a2 = plain_conv(a1, C, in[3], in[4]);
    const auto &ipw = in[5], &ipb = in[6];
    std::vector<val_t> out(N * K);
    const memory::dim chw = C * H * W;
    for (memory::dim n = 0; n < N; ++n)
        for (memory::dim k = 0; k < K; ++k) {
            dot_t d;
            d.add(1.0, {ipb[k], 0});
            for (memory::dim i = 0; i < chw; ++i)
                d.add(ipw[k * chw + i], a2[n * chw + i]);
            out[n * K + k] = d.result(false);
        }
    return out;
}

} // namespace

int main() {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    // src, conv1 weights and bias, conv2 weights and bias, ip weights and bias.
    std::vector<std::vector<float>> in {make(N * IC * H * W, 1), make(C * IC * 9, 2),
            make(C, 3), make(C * C * 9, 4), make(C, 5), make(K * C * H * W, 6), make(K, 7)};
    // Scale conv2's and the inner product's weights so the sums stay near 1.
    for (auto &x : in[3]) x *= 0.1f;
    for (auto &x : in[5]) x *= 0.02f;

    const char *env = std::getenv("ONEDNN_SCRATCHPAD");
    bool priv = env && !std::strcmp(env, "private");

    net_t lib = make_net(eng, scratchpad_mode::library);
    net_t usr = make_net(eng, scratchpad_mode::user);
    const primitive_desc_base *pds[] = {&lib.conv1_pd, &lib.conv2_pd, &lib.ip_pd};
    const char *names[] = {"conv1", "conv2", "inner product"};
    memory::dim sum = 0, largest = 0;
    std::printf("scratchpad per primitive:");
    for (int i = 0; i < 3; ++i) {
        memory::dim s = pds[i]->query_s64(query::memory_consumption_s64);
        sum += s;
        largest = std::max(largest, s);
        std::printf(" %s [%s] %ld bytes;", names[i], pds[i]->impl_info_str(), (long)s);
    }
    std::printf("\n");

    // User mode: one buffer, as large as the largest scratchpad.
    size_t user_bytes = std::max({usr.conv1_pd.scratchpad_desc().get_size(),
            usr.conv2_pd.scratchpad_desc().get_size(), usr.ip_pd.scratchpad_desc().get_size()});
    memory scratch(memory::desc({(memory::dim)user_bytes}, dt::u8, tag::a), eng);

    auto out_lib = run(eng, strm, lib, in, nullptr);
    auto out_usr = run(eng, strm, usr, in, &scratch);
    auto ref = plain(in);

    // Each output must lie within the error bound the plain computation
    // carried along (see dot_t).
    double worst = 0;
    int off = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        double d = std::fabs(ref[i].v - out_lib[i]);
        worst = std::max(worst, d);
        if (!(d <= ref[i].err)) ++off;
    }
    bool same = std::memcmp(out_lib.data(), out_usr.data(), out_lib.size() * sizeof(float)) == 0;

    std::printf("library mode, %s: the network holds %ld bytes (%s)\n",
            priv ? "private scratchpads" : "global arena", (long)(priv ? sum : largest),
            priv ? "the sum: each primitive owns its own"
                 : "the largest: the arena lends one block to each execution in turn");
    std::printf("user mode: one buffer of %zu bytes serves all three primitives\n", user_bytes);
    std::printf("library and user mode give the same bits: %s; largest difference from the "
                "plain loops: %.3g; outputs beyond their error bound: %d\n",
            same ? "yes" : "NO", worst, off);
    // A checksum of the output bits, so runs under each policy can be compared.
    unsigned long check = 0;
    for (float v : out_lib) {
        unsigned u;
        std::memcpy(&u, &v, sizeof(u));
        check = check * 31 + u;
    }
    std::printf("output checksum: %lx\n", check);

    bool ok = same && off == 0 && largest > 0 && sum > largest;
    std::printf("%s\n", ok ? "PASSED" : "FAILED");
    return ok ? 0 : 1;
}
