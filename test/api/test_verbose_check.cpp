// Verbose mode beyond the profiling lines: the create:check line of every
// family's refused creation (kind, reason, file:line), the error level
// (failed executions and allocations), filter=REGEX, and the lines of RNN
// and sparse (CSR) matmul primitives. Each scenario runs in a forked child
// whose stdout is parsed by the parent (see verbose_log.hpp). Expected
// strings are written by hand from the descriptors the child creates.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "api/verbose_log.hpp"
#include "common/kt_test.hpp"
#include "dnnl.hpp"
#include "scratchpad/sysmem.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;
using namespace vlog;

namespace {

kt::tally_t tally;

std::string child(const std::map<std::string, std::string> &env, const std::function<void()> &body) {
    return vlog::run_child(tally, env, body);
}

// The child's own marker lines, in stdout order with the verbose lines.
void mark(const char *fmt, const char *name, int st = 0) {
    std::printf(fmt, name, st);
    std::fflush(stdout);
}

memory::desc md(memory::dims d, tag t, dt type = dt::f32) { return memory::desc(d, type, t); }

// ------------------------------------------------------------ create:check

// One refused creation: its name, the line's api and component, the file
// that refuses it (the check must point at it), and the call, which must
// answer invalid_arguments.
struct refusal_t {
    const char *name, *api, *component, *file;
    std::function<dnnl_status_t(dnnl_engine_t)> call;
};

const dnnl_dims_t d23 = {2, 3}, d24 = {2, 4}, d45 = {4, 5}, d25 = {2, 5};

dnnl_memory_desc_t cmd(int nd, const dnnl_dim_t *dims, dnnl_format_tag_t t = dnnl_ab) {
    dnnl_memory_desc_t m = nullptr;
    if (dnnl_memory_desc_create_with_tag(&m, nd, dims, dnnl_f32, t) != dnnl_success) std::exit(3);
    return m;
}

// The memory descriptors the calls create live until the child exits.
std::vector<refusal_t> refusals() {
    return {
            {"eltwise dims", "primitive", "eltwise", "src/api/eltwise.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_eltwise_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
                                dnnl_eltwise_relu, cmd(2, d23), cmd(2, d24), 0.f, 0.f, nullptr);
                    }},
            {"matmul K", "primitive", "matmul", "src/api/matmul.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_matmul_primitive_desc_create(
                                &pd, e, cmd(2, d23), cmd(2, d45), nullptr, cmd(2, d25), nullptr);
                    }},
            {"convolution prop", "primitive", "convolution", "src/api/convolution.cpp",
                    [](dnnl_engine_t e) {
                        const dnnl_dims_t s = {1, 1, 3, 3}, w = {1, 1, 1, 1}, one = {1, 1}, zero = {0, 0};
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_convolution_forward_primitive_desc_create(&pd, e, dnnl_backward_data,
                                dnnl_convolution_direct, cmd(4, s, dnnl_nchw), cmd(4, w, dnnl_oihw), nullptr,
                                cmd(4, s, dnnl_nchw), one, zero, zero, zero, nullptr);
                    }},
            {"softmax axis", "primitive", "softmax", "src/api/softmax.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_softmax_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
                                dnnl_softmax_accurate, cmd(2, d23), cmd(2, d23), 2, nullptr);
                    }},
            {"batch normalization flags", "primitive", "batch_normalization", "src/api/batch_normalization.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_batch_normalization_forward_primitive_desc_create(&pd, e,
                                dnnl_forward_inference, cmd(2, d23), cmd(2, d23), 1e-5f, 0x4000u, nullptr);
                    }},
            {"concat axis", "primitive", "concat", "src/api/concat.cpp",
                    [](dnnl_engine_t e) {
                        const_dnnl_memory_desc_t srcs[] = {cmd(2, d23), cmd(2, d23)};
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_concat_primitive_desc_create(&pd, e, nullptr, 2, 5, srcs, nullptr);
                    }},
            {"reorder dims", "primitive", "reorder", "src/api/reorder.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_reorder_primitive_desc_create(&pd, cmd(2, d23), e, cmd(2, d24), e, nullptr);
                    }},
            {"rnn direction", "primitive", "rnn", "src/api/rnn.cpp",
                    [](dnnl_engine_t e) {
                        const dnnl_dims_t sl = {2, 3, 4}, wl = {1, 1, 4, 1, 5}, wi = {1, 1, 5, 1, 5},
                                          dl = {2, 3, 5};
                        int bad = 99;
                        dnnl_rnn_direction_t dir;
                        std::memcpy(&dir, &bad, sizeof(dir));
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_vanilla_rnn_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
                                dnnl_eltwise_tanh, dir, cmd(3, sl, dnnl_tnc), nullptr, cmd(5, wl, dnnl_ldigo),
                                cmd(5, wi, dnnl_ldigo), nullptr, cmd(3, dl, dnnl_tnc), nullptr, 0u, 0.f, 0.f,
                                nullptr);
                    }},
            {"pooling null", "primitive", "pooling", "src/api/pooling.cpp",
                    [](dnnl_engine_t e) {
                        dnnl_primitive_desc_t pd = nullptr;
                        return dnnl_pooling_forward_primitive_desc_create(&pd, e, dnnl_forward_inference,
                                dnnl_pooling_max, cmd(2, d23), cmd(2, d23), nullptr, nullptr, nullptr, nullptr,
                                nullptr, nullptr);
                    }},
            {"memory desc dim", "common", "memory", "src/core/memory_desc.cpp",
                    [](dnnl_engine_t) {
                        const dnnl_dims_t bad = {2, -3};
                        dnnl_memory_desc_t m = nullptr;
                        return dnnl_memory_desc_create_with_tag(&m, 2, bad, dnnl_f32, dnnl_ab);
                    }},
            // Through the C++ API: the constructor throws; the line is
            // printed all the same.
            {"eltwise dims (C++)", "primitive", "eltwise", "src/api/eltwise.cpp",
                    [](dnnl_engine_t) {
                        try {
                            engine e(engine::kind::cpu, 0);
                            eltwise_forward::primitive_desc pd(e, prop_kind::forward_inference,
                                    algorithm::eltwise_relu, md({2, 3}, tag::ab), md({3, 3}, tag::ab));
                        } catch (const error &x) {
                            return x.status;
                        }
                        return dnnl_success;
                    }},
    };
}

void run_refusals() {
    dnnl_engine_t e = nullptr;
    if (dnnl_engine_create(&e, dnnl_cpu, 0) != dnnl_success) std::exit(3);
    for (const auto &r : refusals()) {
        mark("MARK,%s\n", r.name);
        const dnnl_status_t st = r.call(e);
        mark("STATUS,%s,%d\n", r.name, (int)st);
    }
    dnnl_engine_destroy(e);
}

bool is_digits(const std::string &s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

// With check on, each refusal is followed by its one create:check line;
// with check off (or verbose unset) there is none. Status always
// invalid_arguments.
void test_create_check() {
    for (const char *level : {"check", "all", "profile_exec", ""}) {
        const bool on = !std::strcmp(level, "check") || !std::strcmp(level, "all");
        std::map<std::string, std::string> env;
        if (*level) env["ONEDNN_VERBOSE"] = level;
        const auto lines = lines_of(child(env, run_refusals));
        const std::string L = std::string("ONEDNN_VERBOSE=") + level + ": ";
        int checks = 0;
        for (const auto &l : lines) checks += l.find(",create:check,") != std::string::npos;
        tally.check(checks == (on ? (int)refusals().size() : 0), (L + "one create:check line per refusal").c_str());
        for (const auto &r : refusals()) {
            const std::string what = L + r.name + ": ";
            size_t i = 0;
            while (i < lines.size() && lines[i] != std::string("MARK,") + r.name) ++i;
            // The next line that is neither header nor marker.
            size_t j = i + 1;
            while (j < lines.size() && (starts(lines[j], "onednn_verbose,v1,info,")
                                               || starts(lines[j], "onednn_verbose,v1,primitive,info,")))
                ++j;
            tally.check(i < lines.size(), (what + "the child ran it").c_str());
            if (on) {
                const auto f = j < lines.size() ? split(lines[j], ',') : std::vector<std::string>();
                const bool shape = f.size() == 7 && f[0] == "onednn_verbose" && f[1] == "v1";
                tally.check(shape && f[2] == r.api && f[3] == "create:check",
                        (what + "api and operation fields").c_str());
                tally.check(shape && f[4] == r.component, (what + "component field").c_str());
                tally.check(shape && f[5].size() > 3, (what + "reason given").c_str());
                const std::string file = std::string(r.file) + ":";
                tally.check(shape && starts(f[6], file) && is_digits(f[6].substr(file.size())),
                        (what + "file:line of the check").c_str());
                if (!(shape && starts(f[6], file))) std::fprintf(stderr, "  got '%s'\n", j < lines.size() ? lines[j].c_str() : "");
                ++j;
            }
            const std::string status = std::string("STATUS,") + r.name + "," + std::to_string((int)dnnl_invalid_arguments);
            tally.check(j < lines.size() && lines[j] == status, (what + "invalid_arguments, and no other line").c_str());
        }
        if (!*level) {
            bool only_marks = true;
            for (const auto &l : lines) only_marks = only_marks && (starts(l, "MARK,") || starts(l, "STATUS,"));
            tally.check(only_marks, "verbose unset: refusals print nothing");
        }
    }
}

// ------------------------------------------------------------ error level

// Pooling max forward (training) and backward; the backward run without its
// workspace is refused and writes nothing into diff_src.
void run_failures() {
    engine e(engine::kind::cpu, 0);
    stream s(e);
    auto src = md({1, 1, 4, 4}, tag::nchw), dst = md({1, 1, 2, 2}, tag::nchw);
    pooling_forward::primitive_desc fwd(e, prop_kind::forward_training, algorithm::pooling_max, src, dst, {2, 2},
            {2, 2}, {0, 0}, {0, 0}, {0, 0});
    pooling_backward::primitive_desc bwd(
            e, algorithm::pooling_max, src, dst, {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0}, fwd);
    memory diff_dst(dst, e), diff_src(src, e), ws(fwd.workspace_desc(), e);
    std::memset(diff_dst.get_data_handle(), 0, dst.get_size());
    float *ds = static_cast<float *>(diff_src.get_data_handle());
    for (int i = 0; i < 16; ++i) ds[i] = 42.f;
    mark("MARK,%s\n", "no workspace");
    dnnl_exec_arg_t args[] = {{DNNL_ARG_DIFF_DST, diff_dst.get()}, {DNNL_ARG_DIFF_SRC, diff_src.get()}};
    dnnl_status_t st = dnnl_primitive_execute(pooling_backward(bwd).get(), s.get(), 2, args);
    bool untouched = true;
    for (int i = 0; i < 16; ++i) untouched = untouched && ds[i] == 42.f;
    mark("STATUS,%s,%d\n", untouched ? "no workspace untouched" : "no workspace written", (int)st);

    // A workspace of the wrong descriptor: refused the same way.
    memory bad_ws(md({1, 1, 2, 3}, tag::nchw, dt::u8), e);
    mark("MARK,%s\n", "wrong workspace");
    dnnl_exec_arg_t args2[] = {{DNNL_ARG_DIFF_DST, diff_dst.get()}, {DNNL_ARG_DIFF_SRC, diff_src.get()},
            {DNNL_ARG_WORKSPACE, bad_ws.get()}};
    st = dnnl_primitive_execute(pooling_backward(bwd).get(), s.get(), 3, args2);
    untouched = true;
    for (int i = 0; i < 16; ++i) untouched = untouched && ds[i] == 42.f;
    mark("STATUS,%s,%d\n", untouched ? "wrong workspace untouched" : "wrong workspace written", (int)st);

    // An allocation that fails: the library's next aligned allocation.
    const dnnl_dims_t d = {4, 6};
    dnnl_memory_desc_t m = nullptr;
    if (dnnl_memory_desc_create_with_tag(&m, 2, d, dnnl_f32, dnnl_ab) != dnnl_success) std::exit(3);
    dnnl_memory_t mem = nullptr;
    mark("MARK,%s\n", "allocation");
    kestrel::sysmem::fail_after(0);
    st = dnnl_memory_create(&mem, m, e.get(), DNNL_MEMORY_ALLOCATE);
    kestrel::sysmem::fail_after(-1);
    mark("STATUS,%s,%d\n", "allocation", (int)st);
    if (st == dnnl_success) dnnl_memory_destroy(mem);
    dnnl_memory_desc_destroy(m);
}

// The lines between a MARK and its STATUS, without header lines.
std::vector<std::string> between(const std::vector<std::string> &lines, const std::string &name) {
    std::vector<std::string> out;
    size_t i = 0;
    while (i < lines.size() && lines[i] != "MARK," + name) ++i;
    for (++i; i < lines.size() && !starts(lines[i], "STATUS,"); ++i)
        if (!starts(lines[i], "onednn_verbose,v1,info,") && !starts(lines[i], "onednn_verbose,v1,primitive,info,"))
            out.push_back(lines[i]);
    if (i < lines.size()) out.push_back(lines[i]);
    return out;
}

void test_error_level() {
    const std::string inv = std::to_string((int)dnnl_invalid_arguments), oom = std::to_string((int)dnnl_out_of_memory);
    for (const char *level : {"error", "", "none", "error,filter=matmul"}) {
        std::map<std::string, std::string> env;
        if (*level) env["ONEDNN_VERBOSE"] = level;
        const auto lines = lines_of(child(env, run_failures));
        const bool on = !std::strcmp(level, "error");
        const std::string L = std::string("ONEDNN_VERBOSE=") + level + ": ";
        auto ws = between(lines, "no workspace");
        tally.check(ws.size() == (on ? 2u : 1u) && ws.back() == "STATUS,no workspace untouched," + inv,
                (L + "missing workspace: invalid_arguments, diff_src untouched").c_str());
        tally.check(!on || ws[0] == "onednn_verbose,v1,primitive,error,exec,pooling,invalid_arguments",
                (L + "missing workspace: the primitive error line").c_str());
        auto bad = between(lines, "wrong workspace");
        tally.check(bad.size() == (on ? 2u : 1u) && bad.back() == "STATUS,wrong workspace untouched," + inv,
                (L + "wrong workspace: invalid_arguments, diff_src untouched").c_str());
        auto al = between(lines, "allocation");
        tally.check(al.size() == (on ? 2u : 1u) && al.back() == "STATUS,allocation," + oom,
                (L + "failed allocation: out_of_memory").c_str());
        // 4 x 6 f32 is 96 bytes.
        tally.check(!on || al[0] == "onednn_verbose,v1,common,error,create,memory,out of memory allocating 96 bytes",
                (L + "failed allocation: the common error line").c_str());
        int verbose_lines = 0;
        for (const auto &l : lines) verbose_lines += starts(l, "onednn_verbose,");
        // error: the header (5 lines) and the three error lines; a filter
        // that selects no component of these lines prints nothing, like
        // verbose off.
        tally.check(verbose_lines == (on ? 8 : 0), (L + "nothing else printed").c_str());
    }
}

// ------------------------------------------------------------ filter=

// Runs one primitive of several kinds and refuses one matmul and one
// eltwise creation.
void filter_job() {
    engine e(engine::kind::cpu, 0);
    stream s(e);
    auto run = [&](const primitive &p, const std::unordered_map<int, memory> &args) {
        p.execute(s, args);
        s.wait();
    };
    auto d = md({2, 3}, tag::ab);
    eltwise_forward::primitive_desc el(e, prop_kind::forward_inference, algorithm::eltwise_relu, d, d);
    memory a(d, e), b(d, e);
    std::memset(a.get_data_handle(), 0, d.get_size());
    run(eltwise_forward(el), {{DNNL_ARG_SRC, a}, {DNNL_ARG_DST, b}});
    matmul::primitive_desc mm(e, d, md({3, 2}, tag::ab), md({2, 2}, tag::ab));
    memory w(md({3, 2}, tag::ab), e), o(md({2, 2}, tag::ab), e);
    std::memset(w.get_data_handle(), 0, 6 * sizeof(float));
    run(matmul(mm), {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, o}});
    auto x = md({1, 1, 3, 3}, tag::nchw);
    convolution_forward::primitive_desc cv(e, prop_kind::forward_inference, algorithm::convolution_direct, x,
            md({1, 1, 1, 1}, tag::oihw), x, {1, 1}, {0, 0}, {0, 0});
    deconvolution_forward::primitive_desc dc(e, prop_kind::forward_inference, algorithm::deconvolution_direct, x,
            md({1, 1, 1, 1}, tag::oihw), x, {1, 1}, {0, 0}, {0, 0});
    memory xs(x, e), xw(md({1, 1, 1, 1}, tag::oihw), e), xd(x, e);
    std::memset(xs.get_data_handle(), 0, x.get_size());
    std::memset(xw.get_data_handle(), 0, sizeof(float));
    run(convolution_forward(cv), {{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, xw}, {DNNL_ARG_DST, xd}});
    run(deconvolution_forward(dc), {{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, xw}, {DNNL_ARG_DST, xd}});
    reorder(a, b).execute(s, a, b);
    s.wait();
    dnnl_primitive_desc_t pd = nullptr;
    if (dnnl_matmul_primitive_desc_create(&pd, e.get(), d.get(), d.get(), nullptr, d.get(), nullptr)
            != dnnl_invalid_arguments)
        std::exit(4);
    if (dnnl_eltwise_forward_primitive_desc_create(&pd, e.get(), dnnl_forward_inference, dnnl_eltwise_relu, d.get(),
                o.get_desc().get(), 0.f, 0.f, nullptr)
            != dnnl_invalid_arguments)
        std::exit(4);
}

struct seen_t {
    std::map<std::string, int> exec, check;
    int arena = 0;
    std::vector<std::string> common;
};

seen_t scan(const std::string &log) {
    seen_t s;
    for (const auto &l : lines_of(log)) {
        auto f = split(l, ',');
        if (f.size() < 5 || f[0] != "onednn_verbose") continue;
        if (f[2] == "common") s.common.push_back(l);
        if (f[2] == "scratchpad") ++s.arena;
        if (f[2] == "primitive" && f[3] == "exec") ++s.exec[f[5]];
        if (f[2] == "primitive" && f[3] == "create:check") ++s.check[f[4]];
    }
    return s;
}

void test_filter(int nthr) {
    const std::string T = " (" + std::to_string(nthr) + " thread" + (nthr > 1 ? "s)" : ")");
    auto job = [nthr] { kt::with_threads(nthr, filter_job); };
    using kinds_t = std::map<std::string, int>;

    // No filter: every kind.
    seen_t s = scan(child({{"ONEDNN_VERBOSE", "profile_exec,check"}}, job));
    tally.check(s.exec == kinds_t {{"eltwise", 1}, {"matmul", 1}, {"convolution", 1}, {"deconvolution", 1},
                                  {"reorder", 1}},
            ("no filter: an exec line of every kind" + T).c_str());
    tally.check(s.check == kinds_t {{"matmul", 1}, {"eltwise", 1}} && s.common.empty(),
            ("no filter: both create:check lines, no filter note" + T).c_str());

    // conv|matmul: regex_search, so (de)convolution and matmul.
    s = scan(child({{"ONEDNN_VERBOSE", "profile_exec,check,filter=conv|matmul"}}, job));
    tally.check(s.exec == kinds_t {{"matmul", 1}, {"convolution", 1}, {"deconvolution", 1}},
            ("filter=conv|matmul: exec lines of (de)convolution and matmul only" + T).c_str());
    tally.check(s.check == kinds_t {{"matmul", 1}}, ("filter=conv|matmul: matmul's check line only" + T).c_str());
    tally.check(s.arena == 0, ("filter=conv|matmul: no arena line" + T).c_str());
    tally.check(s.common.size() == 1
                    && s.common[0]
                            == "onednn_verbose,v1,common,info,filter selects components:convolution,deconvolution,"
                               "matmul",
            ("filter=conv|matmul: the header names the components" + T).c_str());

    // primitive: every primitive kind.
    s = scan(child({{"ONEDNN_VERBOSE", "profile_exec,filter=primitive"}}, job));
    tally.check(s.exec.size() == 5, ("filter=primitive: every kind" + T).c_str());

    // The last filter wins.
    s = scan(child({{"ONEDNN_VERBOSE", "profile_exec,filter=eltwise,filter=^reorder$"}}, job));
    tally.check(s.exec == kinds_t {{"reorder", 1}}, ("two filters: the last one wins" + T).c_str());

    // A regex that does not compile filters nothing, and the header says so.
    s = scan(child({{"ONEDNN_VERBOSE", "profile_exec,filter=(conv"}}, job));
    tally.check(s.exec.size() == 5, ("ill-formed filter: ignored" + T).c_str());
    tally.check(s.common.size() == 1 && starts(s.common[0], "onednn_verbose,v1,common,error,filter '(conv' is not"),
            ("ill-formed filter: reported in the header" + T).c_str());

    // One that selects nothing silences everything.
    tally.check(child({{"ONEDNN_VERBOSE", "all,filter=nothing_here"}}, job).empty(),
            ("filter selecting nothing: no output" + T).c_str());
}

// ------------------------------------------------------------ RNN and sparse

struct line_t {
    std::string kind, prop, mds, aux, problem;
};

memory filled(const memory::desc &d, const engine &e) {
    memory m(d, e);
    if (d.get_size()) std::memset(m.get_data_handle(), 0, d.get_size());
    return m;
}

void run_all_args(const primitive &p, const primitive_desc_base &pd, const engine &e) {
    std::unordered_map<int, memory> args;
    for (int arg : {DNNL_ARG_SRC_LAYER, DNNL_ARG_SRC_ITER, DNNL_ARG_SRC_ITER_C, DNNL_ARG_WEIGHTS_LAYER,
                 DNNL_ARG_WEIGHTS_ITER, DNNL_ARG_BIAS, DNNL_ARG_DST_LAYER, DNNL_ARG_DST_ITER, DNNL_ARG_DST_ITER_C,
                 DNNL_ARG_WORKSPACE, DNNL_ARG_SCRATCHPAD}) {
        memory::desc d = pd.query_md(query::exec_arg_md, arg);
        if (d.get_ndims() == 0) continue;
        args[arg] = filled(d, e);
    }
    stream s(e);
    p.execute(s, args);
    s.wait();
}

void rnn_sparse_job() {
    engine e(engine::kind::cpu, 0);
    // LSTM, inference, with states: T 2, N 3, SLC 4, DHC 5, one layer and
    // direction, 4 gates.
    {
        lstm_forward::primitive_desc pd(e, prop_kind::forward_inference, rnn_direction::unidirectional_left2right,
                md({2, 3, 4}, tag::tnc), md({1, 1, 3, 5}, tag::ldnc), md({1, 1, 3, 5}, tag::ldnc),
                md({1, 1, 4, 4, 5}, tag::ldigo), md({1, 1, 5, 4, 5}, tag::ldigo), md({1, 1, 4, 5}, tag::ldgo),
                md({2, 3, 5}, tag::tnc), md({1, 1, 3, 5}, tag::ldnc), md({1, 1, 3, 5}, tag::ldnc));
        run_all_args(lstm_forward(pd), pd, e);
    }
    // Vanilla RNN, training, ReLU, bidirectional concat, no states: T 3,
    // N 2, SLC 3, DHC 4.
    {
        vanilla_rnn_forward::primitive_desc pd(e, prop_kind::forward_training, algorithm::eltwise_relu,
                rnn_direction::bidirectional_concat, md({3, 2, 3}, tag::tnc), memory::desc(),
                md({1, 2, 3, 1, 4}, tag::ldigo), md({1, 2, 4, 1, 4}, tag::ldigo), md({1, 2, 1, 4}, tag::ldgo),
                md({3, 2, 8}, tag::tnc), memory::desc());
        run_all_args(vanilla_rnn_forward(pd), pd, e);
    }
    // Matmul with a CSR source: 3x4 with 5 non-zeros, dense 4x2 weights.
    {
        auto src = memory::desc::csr({3, 4}, dt::f32, 5, dt::s32, dt::s32);
        matmul::primitive_desc pd(e, src, md({4, 2}, tag::ab), md({3, 2}, tag::ab));
        std::vector<float> val = {1, 2, 3, 4, 5};
        std::vector<int32_t> idx = {0, 3, 1, 2, 3}, ptr = {0, 2, 3, 5};
        memory ms(src, e, std::vector<void *> {val.data(), idx.data(), ptr.data()});
        memory mw = filled(md({4, 2}, tag::ab), e), md_ = filled(md({3, 2}, tag::ab), e);
        stream s(e);
        matmul(pd).execute(s, {{DNNL_ARG_SRC, ms}, {DNNL_ARG_WEIGHTS, mw}, {DNNL_ARG_DST, md_}});
        s.wait();
    }
}

void test_rnn_sparse() {
    const line_t want[] = {
            {"rnn", "forward_inference",
                    "src_layer:f32::blocked:abc::f0 src_iter:f32::blocked:abcd::f0 wei_layer:f32::blocked:abcde::f0 "
                    "wei_iter:f32::blocked:abcde::f0 bias:f32::blocked:abcd::f0 dst_layer:f32::blocked:abc::f0 "
                    "dst_iter:f32::blocked:abcd::f0",
                    "alg:vanilla_lstm direction:unidirectional_left2right activation:undef flags:",
                    "l1t2mb3sic5slc4dhc5dic5"},
            {"rnn", "forward_training",
                    "src_layer:f32::blocked:abc::f0 wei_layer:f32::blocked:abcde::f0 wei_iter:f32::blocked:abcde::f0 "
                    "bias:f32::blocked:abcd::f0 dst_layer:f32::blocked:abc::f0",
                    "alg:vanilla_rnn direction:bidirectional_concat activation:eltwise_relu flags:",
                    "l1t3mb2sic4slc3dhc4dic4"},
            {"matmul", "undef", "src:f32::sparse:csr::f0 wei:f32::blocked:ab::f0 dst:f32::blocked:ab::f0", "",
                    "3x4:4x2"},
    };
    for (int nthr : {1, 2}) {
        const std::string log
                = child({{"ONEDNN_VERBOSE", "profile"}}, [nthr] { kt::with_threads(nthr, rnn_sparse_job); });
        std::vector<prim_line_t> execs, creates;
        for (const auto &l : lines_of(log)) {
            prim_line_t p;
            if (!parse_prim(l, false, p)) continue;
            (p.op == "exec" ? execs : creates).push_back(p);
        }
        const std::string T = " (" + std::to_string(nthr) + " threads)";
        tally.check(execs.size() == 3 && creates.size() == 3, ("rnn/sparse: three create and exec lines" + T).c_str());
        for (size_t i = 0; i < 3 && i < execs.size() && i < creates.size(); ++i) {
            const std::string what = want[i].kind + "/" + want[i].prop + T + ": ";
            for (const prim_line_t *p : {&execs[i], &creates[i]}) {
                if (p->mds != want[i].mds) std::fprintf(stderr, "  mds: got '%s'\n", p->mds.c_str());
                if (p->aux != want[i].aux) std::fprintf(stderr, "  aux: got '%s'\n", p->aux.c_str());
                if (p->problem != want[i].problem) std::fprintf(stderr, "  problem: got '%s'\n", p->problem.c_str());
                tally.check(p->engine == "cpu" && p->kind == want[i].kind && p->prop == want[i].prop,
                        (what + "engine, kind, prop").c_str());
                tally.check(p->mds == want[i].mds, (what + "memory descriptors").c_str());
                tally.check(p->attrs.empty() && p->aux == want[i].aux, (what + "attributes, auxiliary").c_str());
                tally.check(p->problem == want[i].problem, (what + "problem").c_str());
                tally.check(is_number(p->time), (what + "time").c_str());
            }
        }
    }
}

} // namespace

int main() {
    test_create_check();
    test_error_level();
    test_filter(1);
    test_filter(2);
    test_rnn_sparse();
    return tally.finish();
}
