// Reorder implementations rule problems out in two places: a cheap
// may_accept() before their pd is built (asked only when dispatch verbose is
// off) and init(). This test walks every implementation that accepts each
// problem (dnnl_primitive_desc_next_impl) twice: here, with verbose off, and
// in a child run with ONEDNN_VERBOSE=dispatch, where may_accept() is not
// asked. The two lists must be the same, and the implementations that have a
// may_accept() must still be chosen for the problems that are theirs.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

#include "kt_test.hpp"

namespace {

struct case_t {
    const char *what;
    const char *first; // the implementation expected first, or nullptr
    dnnl_memory_desc_t src, dst;
    dnnl_primitive_attr_t attr;
};

// A packed weights descriptor as a matmul lays it out (the user's packed
// descriptor has no layout until an implementation gives it one).
dnnl_memory_desc_t packed_md(dnnl_dim_t k, dnnl_dim_t n) {
    dnnl_dims_t d = {k, n};
    dnnl_memory_desc_t wmd = nullptr;
    KT_OK(dnnl_memory_desc_create_with_packed_encoding(&wmd, 2, d, dnnl_f32, 0));
    dnnl_engine_t eng = nullptr;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    kt::md_t src(kt::make_md({4, k}, dnnl_f32, dnnl_ab)), dst(kt::make_md({4, n}, dnnl_f32, dnnl_ab));
    dnnl_primitive_desc_t pd = nullptr;
    KT_OK(dnnl_matmul_primitive_desc_create(&pd, eng, src, wmd, nullptr, dst, nullptr));
    dnnl_memory_desc_t laid = nullptr;
    KT_OK(dnnl_memory_desc_clone(&laid, dnnl_primitive_desc_query_md(pd, dnnl_query_weights_md, 0)));
    dnnl_primitive_desc_destroy(pd);
    dnnl_memory_desc_destroy(wmd);
    dnnl_engine_destroy(eng);
    return laid;
}

std::vector<case_t> make_cases() {
    std::vector<case_t> c;
    auto add = [&](const char *what, const char *first, dnnl_memory_desc_t s, dnnl_memory_desc_t d,
                       dnnl_primitive_attr_t a = nullptr) { c.push_back({what, first, s, d, a}); };
    using kt::make_md;
    add("nchw to nChw16c", nullptr, make_md({2, 32, 5, 7}, dnnl_f32, dnnl_nchw),
            make_md({2, 32, 5, 7}, dnnl_f32, dnnl_nChw16c));
    add("nChw16c to nchw, padded channels", nullptr, make_md({2, 19, 3, 3}, dnnl_f32, dnnl_nChw16c),
            make_md({2, 19, 3, 3}, dnnl_f32, dnnl_nchw));
    add("same layout", "reorder:direct_copy", make_md({3, 4, 5}, dnnl_f32, dnnl_abc),
            make_md({3, 4, 5}, dnnl_f32, dnnl_abc));
    add("same blocked layout, padded", nullptr, make_md({2, 19, 3, 3}, dnnl_f32, dnnl_nChw16c),
            make_md({2, 19, 3, 3}, dnnl_f32, dnnl_nChw16c));
    add("same layout, s8", "reorder:direct_copy", make_md({64, 3}, dnnl_s8, dnnl_ab),
            make_md({64, 3}, dnnl_s8, dnnl_ab));
    add("nchw to nhwc", nullptr, make_md({2, 3, 4, 5}, dnnl_f32, dnnl_nchw),
            make_md({2, 3, 4, 5}, dnnl_f32, dnnl_nhwc));
    add("f32 to s4", "reorder:sub_byte", make_md({4, 6}, dnnl_f32, dnnl_ab), make_md({4, 6}, dnnl_s4, dnnl_ab));
    add("u4 to f32, transposed", "reorder:sub_byte", make_md({4, 6}, dnnl_u4, dnnl_ba),
            make_md({4, 6}, dnnl_f32, dnnl_ab));
    add("ab to packed", "reorder:packed", make_md({32, 48}, dnnl_f32, dnnl_ab), packed_md(32, 48));
    add("packed to ab", "reorder:packed", packed_md(32, 48), make_md({32, 48}, dnnl_f32, dnnl_ab));

    dnnl_primitive_attr_t rnn_data = nullptr;
    KT_OK(dnnl_primitive_attr_create(&rnn_data));
    KT_OK(dnnl_primitive_attr_set_rnn_data_qparams(rnn_data, 64.f, 128.f));
    add("rnn data qparams", "reorder:rnn_quant", make_md({3, 2, 16}, dnnl_f32, dnnl_tnc),
            make_md({3, 2, 16}, dnnl_u8, dnnl_tnc), rnn_data);

    dnnl_primitive_attr_t rnn_wei = nullptr;
    KT_OK(dnnl_primitive_attr_create(&rnn_wei));
    const float wscale[1] = {31.f};
    KT_OK(dnnl_primitive_attr_set_rnn_weights_qparams(rnn_wei, 1, 0, wscale));
    add("rnn weights qparams", "reorder:rnn_quant", make_md({1, 1, 8, 4, 8}, dnnl_f32, dnnl_ldigo),
            make_md({1, 1, 8, 4, 8}, dnnl_s8, dnnl_ldigo), rnn_wei);

    dnnl_primitive_attr_t scales = nullptr;
    KT_OK(dnnl_primitive_attr_create(&scales));
    KT_OK(dnnl_primitive_attr_set_scales_mask(scales, DNNL_ARG_SRC, 0));
    add("same layout with a src scale", nullptr, make_md({3, 4}, dnnl_f32, dnnl_ab),
            make_md({3, 4}, dnnl_s8, dnnl_ab), scales);

    dnnl_primitive_attr_t zp = nullptr;
    KT_OK(dnnl_primitive_attr_create(&zp));
    KT_OK(dnnl_primitive_attr_set_zero_points_mask(zp, DNNL_ARG_DST, 0));
    add("u8 to u8 with a dst zero point", nullptr, make_md({3, 4}, dnnl_u8, dnnl_ab),
            make_md({3, 4}, dnnl_u8, dnnl_ab), zp);
    return c;
}

// Every implementation that accepts the problem, in dispatch order.
std::string accepting(dnnl_engine_t eng, const case_t &c) {
    std::string names;
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_reorder_primitive_desc_create(&pd, c.src, eng, c.dst, eng, c.attr) != dnnl_success) return "-";
    do {
        names += kt::impl_name(pd) + " ";
    } while (dnnl_primitive_desc_next_impl(pd) == dnnl_success);
    dnnl_primitive_desc_destroy(pd);
    return names;
}

std::vector<std::string> all_lists() {
    dnnl_engine_t eng = nullptr;
    KT_OK(dnnl_engine_create(&eng, dnnl_cpu, 0));
    std::vector<case_t> cases = make_cases();
    std::vector<std::string> out;
    for (const case_t &c : cases) {
        out.push_back(accepting(eng, c));
        dnnl_memory_desc_destroy(c.src);
        dnnl_memory_desc_destroy(c.dst);
        if (c.attr) dnnl_primitive_attr_destroy(c.attr);
    }
    dnnl_engine_destroy(eng);
    return out;
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1 && std::strcmp(argv[1], "child") == 0) {
        // Verbose dispatch lines go to stdout too; ours are marked.
        for (const std::string &l : all_lists()) std::printf("kt_impls,%s\n", l.c_str());
        return 0;
    }
    unsetenv("ONEDNN_VERBOSE");
    unsetenv("DNNL_VERBOSE");
    kt::tally_t tally;
    const std::vector<std::string> quiet = all_lists();
    const std::vector<case_t> cases = make_cases(); // for the names only

    std::vector<std::string> loud;
    int dispatch_lines = 0;
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    KT_EXPECT(n > 0);
    self[n] = '\0';
    const std::string cmd = std::string("ONEDNN_VERBOSE=dispatch '") + self + "' child";
    FILE *p = popen(cmd.c_str(), "r");
    tally.check(p != nullptr, "the verbose child runs");
    if (p) {
        char line[4096];
        while (std::fgets(line, sizeof(line), p)) {
            std::string l(line);
            if (!l.empty() && l.back() == '\n') l.pop_back();
            if (l.rfind("kt_impls,", 0) == 0) loud.push_back(l.substr(9));
            else if (l.find(",create:dispatch,") != std::string::npos) ++dispatch_lines;
        }
        tally.check(pclose(p) == 0, "the verbose child exits 0");
    }
    tally.check(dispatch_lines > 0, "the child ran with dispatch verbose on (it printed dispatch lines)");
    tally.check(loud.size() == quiet.size(), "the child listed every case");
    for (size_t i = 0; i < quiet.size(); ++i) {
        const std::string what = cases[i].what;
        tally.check(quiet[i] != "-", (what + ": some implementation accepts it").c_str());
        if (i < loud.size()) {
            const bool same = quiet[i] == loud[i];
            if (!same)
                std::fprintf(stderr, "%s: verbose off [%s], dispatch verbose [%s]\n", cases[i].what,
                        quiet[i].c_str(), loud[i].c_str());
            tally.check(same, (what + ": the same implementations accept it with and without dispatch verbose").c_str());
        }
        if (cases[i].first)
            tally.check(quiet[i].rfind(std::string(cases[i].first) + " ", 0) == 0,
                    (what + ": " + cases[i].first + " is chosen").c_str());
        std::printf("%-34s %s\n", cases[i].what, quiet[i].c_str());
    }
    for (const case_t &c : cases) {
        dnnl_memory_desc_destroy(c.src);
        dnnl_memory_desc_destroy(c.dst);
        if (c.attr) dnnl_primitive_attr_destroy(c.attr);
    }
    return tally.finish();
}
