// Primitive cache blobs (dnnl_primitive_get_cache_blob /
// dnnl_primitive_create_from_cache_blob, dnnl::primitive::get_cache_blob and
// the primitive constructors taking a blob).
//
// - Across processes: this program runs itself (fork + exec of
//   /proc/self/exe) to write a blob and the primitive's output in one
//   process and recreate the primitive from the blob in another, both ways;
//   the outputs must be equal bit for bit.
// - A blob is refused with invalid_arguments, and no primitive is made, when
//   any single byte is changed, when it is truncated or extended, when it
//   was taken from another descriptor (shape, attributes, implementation,
//   kind), and when a field of the documented format (core/prim_blob.hpp)
//   names another library version, ISA cap or implementation (re-encoded
//   here with a valid checksum, by code of this test); a child process
//   started with another ONEDNN_MAX_CPU_ISA refuses a blob made here.
// - The size query and the exact-size rule of get_cache_blob.
// - 1 and 2 threads: a blob does not depend on the thread count.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace {

using namespace dnnl;
using dt = memory::data_type;
using tag = memory::format_tag;
using bytes_t = std::vector<uint8_t>;

kt::tally_t t;

engine &eng() {
    static engine e(engine::kind::cpu, 0);
    return e;
}

// The primitives under test, by number; `variant` changes the problem a
// little (another shape or other attributes) for the different-pd cases.
const int n_cases = 5;
const char *case_name[n_cases] = {"convolution", "matmul", "reorder", "pooling", "eltwise"};

// 3x3 convolution, padding 1, bias, relu post-op (variant 1: one more
// output channel; variant 2: no post-op).
convolution_forward::primitive_desc conv_pd(int variant) {
    const memory::dim oc = variant == 1 ? 5 : 4;
    post_ops po;
    if (variant != 2) po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    primitive_attr a;
    a.set_post_ops(po);
    return convolution_forward::primitive_desc(eng(), prop_kind::forward_inference,
            algorithm::convolution_direct, memory::desc({2, 3, 7, 7}, dt::f32, tag::nchw),
            memory::desc({oc, 3, 3, 3}, dt::f32, tag::oihw), memory::desc({oc}, dt::f32, tag::a),
            memory::desc({2, oc, 7, 7}, dt::f32, tag::nchw), {1, 1}, {1, 1}, {1, 1}, a);
}

primitive_desc_base make_pd(int which, int variant = 0) {
    switch (which) {
        case 0: return conv_pd(variant);
        case 1: {
            // 5x7 by 7x3 with a per-column binary add post-op.
            const memory::dim n = variant == 1 ? 4 : 3;
            post_ops po;
            po.append_binary(algorithm::binary_add, memory::desc({1, n}, dt::f32, tag::ab));
            primitive_attr a;
            if (variant != 2) a.set_post_ops(po);
            return matmul::primitive_desc(eng(), memory::desc({5, 7}, dt::f32, tag::ab),
                    memory::desc({7, n}, dt::f32, tag::ab), memory::desc({5, n}, dt::f32, tag::ab), a);
        }
        case 2: {
            const memory::dim c = variant == 1 ? 18 : 17;
            return reorder::primitive_desc(eng(), memory::desc({2, c, 3, 3}, dt::f32, tag::nchw), eng(),
                    memory::desc({2, c, 3, 3}, dt::f32, variant == 2 ? tag::nhwc : tag::nChw16c));
        }
        case 3: {
            // Max pooling for training: it writes a workspace too (variant
            // 2: average pooling).
            const memory::dim w = variant == 1 ? 9 : 8;
            return pooling_forward::primitive_desc(eng(), prop_kind::forward_training,
                    variant == 2 ? algorithm::pooling_avg_include_padding : algorithm::pooling_max,
                    memory::desc({1, 3, 8, w}, dt::f32, tag::nchw), memory::desc({1, 3, 4, w / 2}, dt::f32, tag::nchw),
                    {2, 2}, {2, 2}, {0, 0}, {0, 0}, {0, 0});
        }
        default: {
            return eltwise_forward::primitive_desc(eng(), prop_kind::forward_inference,
                    variant == 2 ? algorithm::eltwise_tanh : algorithm::eltwise_elu,
                    memory::desc({3, variant == 1 ? 12 : 11}, dt::f32, tag::ab),
                    memory::desc({3, variant == 1 ? 12 : 11}, dt::f32, tag::ab), 0.5f, 0.f);
        }
    }
}

// Executes `p` (made from `pd`) on inputs that depend only on the argument
// (so every process builds the same ones) and returns the bytes of every
// output, dst first.
bytes_t run(const_dnnl_primitive_t p, const_dnnl_primitive_desc_t pd) {
    const int args[] = {DNNL_ARG_SRC, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS,
            DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, DNNL_ARG_DST, DNNL_ARG_WORKSPACE};
    std::vector<dnnl_exec_arg_t> ea;
    std::vector<dnnl_memory_t> mems;
    for (int arg : args) {
        const_dnnl_memory_desc_t md = dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, arg);
        const size_t n = md ? dnnl_memory_desc_get_size(md) : 0;
        if (n == 0) continue;
        dnnl_memory_t m = nullptr;
        KT_OK(dnnl_memory_create(&m, md, eng().get(), DNNL_MEMORY_ALLOCATE));
        void *h = nullptr;
        KT_OK(dnnl_memory_get_data_handle(m, &h));
        // f32 inputs in [-1, 1); outputs start as a pattern the kernel
        // overwrites (padding included, by the library's zero padding).
        kt::rng_t r((uint64_t)arg + 17);
        if (arg == DNNL_ARG_DST || arg == DNNL_ARG_WORKSPACE) std::memset(h, 0xa5, n);
        else
            for (size_t i = 0; i < n / sizeof(float); ++i) static_cast<float *>(h)[i] = r.uniform(-1.f, 1.f);
        ea.push_back({arg, m});
        mems.push_back(m);
    }
    dnnl_stream_t s = nullptr;
    KT_OK(dnnl_stream_create(&s, eng().get(), dnnl_stream_default_flags));
    KT_OK(dnnl_primitive_execute(p, s, (int)ea.size(), ea.data()));
    KT_OK(dnnl_stream_wait(s));
    dnnl_stream_destroy(s);
    bytes_t out;
    for (int want : {DNNL_ARG_DST, DNNL_ARG_WORKSPACE})
        for (const auto &a : ea) {
            if (a.arg != want) continue;
            void *h = nullptr;
            KT_OK(dnnl_memory_get_data_handle(a.memory, &h));
            const size_t n = dnnl_memory_desc_get_size(dnnl_primitive_desc_query_md(pd, dnnl_query_exec_arg_md, want));
            out.insert(out.end(), static_cast<uint8_t *>(h), static_cast<uint8_t *>(h) + n);
        }
    for (auto m : mems) dnnl_memory_destroy(m);
    return out;
}

bytes_t blob_of(const_dnnl_primitive_t p) {
    size_t n = 0;
    KT_OK(dnnl_primitive_get_cache_blob(p, &n, nullptr));
    bytes_t b(n);
    KT_OK(dnnl_primitive_get_cache_blob(p, &n, b.data()));
    return b;
}

// Creates from (blob, size) and returns the status; a primitive made is
// returned in *out (or destroyed when out is null).
dnnl_status_t from_blob(const_dnnl_primitive_desc_t pd, const uint8_t *b, size_t n, dnnl_primitive_t *out = nullptr) {
    dnnl_primitive_t p = nullptr;
    const dnnl_status_t st = dnnl_primitive_create_from_cache_blob(&p, pd, n, b);
    if (st != dnnl_success && p != nullptr) return dnnl_runtime_error; // a handle on failure
    if (out) *out = p;
    else if (p) dnnl_primitive_destroy(p);
    return st;
}

bool refused(const_dnnl_primitive_desc_t pd, const bytes_t &b, size_t n) {
    return from_blob(pd, b.data(), n) == dnnl_invalid_arguments;
}

// ---------------------------------------------------------------- files

bool write_file(const std::string &path, const bytes_t &b) {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char *>(b.data()), (std::streamsize)b.size());
    return (bool)f;
}

bytes_t read_file(const std::string &path) {
    std::ifstream f(path, std::ios::binary);
    return bytes_t((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

// Runs this program again with `args`, plus `env` ("NAME=value") added to
// the environment; returns its exit status (-1 when it did not exit).
int run_self(const std::vector<std::string> &args, const char *env = nullptr) {
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        if (env) putenv(const_cast<char *>(env));
        std::vector<char *> argv;
        std::string self = "/proc/self/exe";
        argv.push_back(&self[0]);
        std::vector<std::string> copy = args;
        for (auto &a : copy) argv.push_back(&a[0]);
        argv.push_back(nullptr);
        execv("/proc/self/exe", argv.data());
        _exit(127);
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
    return WEXITSTATUS(status);
}

// Child modes. "write DIR CASE NTHR": make the primitive, write its blob
// to DIR/blobCASE and its outputs to DIR/outCASE. "read DIR CASE NTHR":
// recreate it from DIR/blobCASE, write its outputs to DIR/outCASE; exit 3
// when the blob is refused with invalid_arguments.
int child(const std::string &mode, const std::string &dir, int which, int nthr) {
    int rc = 0;
    kt::with_threads(nthr, [&] {
        primitive_desc_base pd = make_pd(which);
        const std::string b = dir + "/blob" + std::to_string(which), o = dir + "/out" + std::to_string(which);
        dnnl_primitive_t p = nullptr;
        if (mode == "write") {
            KT_OK(dnnl_primitive_create(&p, pd.get()));
            if (!write_file(b, blob_of(p))) rc = 2;
        } else {
            const bytes_t blob = read_file(b);
            const dnnl_status_t st = from_blob(pd.get(), blob.data(), blob.size(), &p);
            if (st == dnnl_invalid_arguments) {
                rc = 3;
                return;
            }
            KT_OK(st);
        }
        if (rc == 0 && !write_file(o, run(p, pd.get()))) rc = 2;
        dnnl_primitive_destroy(p);
    });
    return rc;
}

// ------------------------------------------------------------ the format

// A reading of the documented layout, independent of the library's code.
struct parsed_t {
    uint32_t version = 0;
    bytes_t payload;
    bool ok = false;
};

uint64_t le(const uint8_t *p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

parsed_t parse(const bytes_t &b) {
    parsed_t r;
    if (b.size() < 20 || std::memcmp(b.data(), "KPCB", 4) != 0) return r;
    r.version = (uint32_t)le(&b[4], 4);
    const size_t len = (size_t)le(&b[8], 4);
    if (len + 20 != b.size()) return r;
    r.payload.assign(b.begin() + 12, b.begin() + 12 + (long)len);
    r.ok = true;
    return r;
}

bytes_t encode(const bytes_t &payload, uint32_t version = 1) {
    bytes_t out = {'K', 'P', 'C', 'B'};
    for (int i = 0; i < 4; ++i) out.push_back((uint8_t)(version >> (8 * i)));
    for (int i = 0; i < 4; ++i) out.push_back((uint8_t)(payload.size() >> (8 * i)));
    out.insert(out.end(), payload.begin(), payload.end());
    uint64_t h = 0xcbf29ce484222325ull;
    for (uint8_t x : out) h = (h ^ x) * 0x100000001b3ull;
    for (int i = 0; i < 8; ++i) out.push_back((uint8_t)(h >> (8 * i)));
    return out;
}

// Offsets of the payload's fields: major, minor, patch, the hash string,
// ISA, VNNI, kind, implementation index, name string, key string.
struct fields_t {
    size_t major = 0, minor = 4, patch = 8, hash = 12, isa, vnni, kind, impl, name, key;
    bool ok = false;
};

fields_t fields_of(const bytes_t &p) {
    fields_t f;
    size_t at = f.hash;
    auto str = [&](size_t &pos) {
        pos = at;
        if (at + 4 > p.size()) return false;
        at += 4 + (size_t)le(&p[at], 4);
        return at <= p.size();
    };
    size_t h;
    if (!str(h)) return f;
    f.isa = at, f.vnni = at + 4, f.kind = at + 8, f.impl = at + 12;
    at += 16;
    if (!str(f.name) || !str(f.key)) return f;
    f.ok = at == p.size();
    return f;
}

// ------------------------------------------------------------------ tests

void test_round_trip(int which, int nthr) {
    primitive_desc_base pd = make_pd(which);
    dnnl_primitive_t p = nullptr, q = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd.get()));
    const bytes_t b = blob_of(p);
    std::string what = std::string(case_name[which]) + " (" + std::to_string(nthr) + " threads): ";
    t.check(from_blob(pd.get(), b.data(), b.size(), &q) == dnnl_success && q, (what + "created from its blob").c_str());
    if (q) {
        const_dnnl_primitive_desc_t qpd = nullptr;
        KT_OK(dnnl_primitive_get_primitive_desc(q, &qpd));
        t.check(kt::impl_name(qpd) == kt::impl_name(pd.get()), (what + "same implementation").c_str());
        t.check(run(q, pd.get()) == run(p, pd.get()), (what + "same outputs, bit for bit").c_str());
        t.check(blob_of(q) == b, (what + "the recreated primitive gives the same blob").c_str());
        dnnl_primitive_destroy(q);
    }
    // A second descriptor of the same problem accepts the blob too.
    primitive_desc_base pd2 = make_pd(which);
    t.check(from_blob(pd2.get(), b.data(), b.size()) == dnnl_success, (what + "an equal descriptor accepts it").c_str());
    dnnl_primitive_destroy(p);
}

void test_size_rules() {
    primitive_desc_base pd = make_pd(0);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd.get()));
    size_t n = 0;
    KT_OK(dnnl_primitive_get_cache_blob(p, &n, nullptr));
    t.check(n > 20, "size query answers a size");
    bytes_t buf(n + 1, 0x77);
    size_t small = n - 1, big = n + 1;
    t.check(dnnl_primitive_get_cache_blob(p, &small, buf.data()) == dnnl_invalid_arguments && small == n - 1,
            "get_cache_blob with a smaller size: invalid_arguments");
    t.check(dnnl_primitive_get_cache_blob(p, &big, buf.data()) == dnnl_invalid_arguments,
            "get_cache_blob with a larger size: invalid_arguments");
    bool untouched = true;
    for (uint8_t x : buf) untouched = untouched && x == 0x77;
    t.check(untouched, "nothing written on a size mismatch");
    t.check(dnnl_primitive_get_cache_blob(nullptr, &n, nullptr) == dnnl_invalid_arguments, "NULL primitive");
    t.check(dnnl_primitive_get_cache_blob(p, nullptr, nullptr) == dnnl_invalid_arguments, "NULL size");
    const bytes_t b = blob_of(p);
    dnnl_primitive_t q = nullptr;
    t.check(dnnl_primitive_create_from_cache_blob(nullptr, pd.get(), b.size(), b.data()) == dnnl_invalid_arguments,
            "create_from_cache_blob: NULL primitive");
    t.check(dnnl_primitive_create_from_cache_blob(&q, nullptr, b.size(), b.data()) == dnnl_invalid_arguments && !q,
            "create_from_cache_blob: NULL descriptor");
    t.check(dnnl_primitive_create_from_cache_blob(&q, pd.get(), b.size(), nullptr) == dnnl_invalid_arguments && !q,
            "create_from_cache_blob: NULL blob");
    t.check(dnnl_primitive_create_from_cache_blob(&q, pd.get(), 0, b.data()) == dnnl_invalid_arguments && !q,
            "create_from_cache_blob: size 0");
    dnnl_primitive_destroy(p);
}

void test_corruption(int which) {
    primitive_desc_base pd = make_pd(which);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd.get()));
    const bytes_t b = blob_of(p);
    dnnl_primitive_destroy(p);
    bool flips = true, cuts = true;
    for (size_t i = 0; i < b.size(); ++i) {
        bytes_t c = b;
        c[i] ^= (uint8_t)(1u << (i % 8));
        flips = flips && refused(pd.get(), c, c.size());
        cuts = cuts && refused(pd.get(), b, i);
    }
    const std::string w = case_name[which];
    t.check(flips, (w + ": every single-bit corruption refused").c_str());
    t.check(cuts, (w + ": every truncation refused").c_str());
    bytes_t longer = b;
    longer.push_back(0);
    t.check(refused(pd.get(), longer, longer.size()), (w + ": a blob with a byte more refused").c_str());
    bytes_t foreign(b.size(), 0x3c);
    t.check(refused(pd.get(), foreign, foreign.size()), (w + ": foreign bytes refused").c_str());
}

void test_fields() {
    primitive_desc_base pd = make_pd(0);
    dnnl_primitive_t p = nullptr;
    KT_OK(dnnl_primitive_create(&p, pd.get()));
    const bytes_t b = blob_of(p);
    dnnl_primitive_destroy(p);
    const parsed_t pr = parse(b);
    t.check(pr.ok && pr.version == 1, "the blob has the documented header");
    const fields_t f = fields_of(pr.payload);
    t.check(f.ok, "the payload has the documented fields");
    if (!pr.ok || !f.ok) return;
    const bytes_t &pl = pr.payload;
    t.check(le(&pl[f.major], 4) == DNNL_VERSION_MAJOR && le(&pl[f.minor], 4) == DNNL_VERSION_MINOR
                    && le(&pl[f.patch], 4) == DNNL_VERSION_PATCH,
            "the version fields are the library's");
    t.check(le(&pl[f.isa], 4) == (uint64_t)dnnl_get_effective_cpu_isa(), "the ISA field is the effective ISA");
    t.check(le(&pl[f.kind], 4) == (uint64_t)dnnl_convolution, "the kind field");
    const std::string name(reinterpret_cast<const char *>(&pl[f.name + 4]), (size_t)le(&pl[f.name], 4));
    t.check(name == kt::impl_name(pd.get()), "the name field is the implementation's");
    t.check(from_blob(pd.get(), encode(pl).data(), b.size()) == dnnl_success,
            "a blob re-encoded here from the documented format is accepted");
    t.check(refused(pd.get(), encode(pl, 2), b.size()), "another format version refused");
    // Each field changed, with a valid checksum.
    struct edit_t {
        size_t at;
        uint32_t to;
        const char *what;
    } edits[] = {
            {f.major, DNNL_VERSION_MAJOR + 1, "another major version refused"},
            {f.minor, DNNL_VERSION_MINOR + 1, "another minor version refused"},
            {f.patch, DNNL_VERSION_PATCH + 1, "another patch version refused"},
            {f.isa, (uint32_t)dnnl_cpu_isa_avx2, "another ISA cap (avx2) refused"},
            {f.isa, (uint32_t)dnnl_cpu_isa_sse41, "another ISA cap (sse41) refused"},
            {f.vnni, (uint32_t)(1 - le(&pl[f.vnni], 4)), "another VNNI cap refused"},
            {f.kind, (uint32_t)dnnl_matmul, "another kind refused"},
            {f.impl, (uint32_t)(le(&pl[f.impl], 4) + 1), "another implementation index refused"},
    };
    for (const auto &e : edits) {
        bytes_t c = pl;
        for (int i = 0; i < 4; ++i) c[e.at + i] = (uint8_t)(e.to >> (8 * i));
        t.check(refused(pd.get(), encode(c), b.size()), e.what);
    }
    for (size_t at : {f.hash + 4, f.name + 4, f.key + 4, pl.size() - 1}) {
        bytes_t c = pl;
        c[at] ^= 0x20;
        t.check(refused(pd.get(), encode(c), b.size()), "another build hash, name or key byte refused");
    }
}

void test_other_pd() {
    for (int which = 0; which < n_cases; ++which) {
        primitive_desc_base pd = make_pd(which);
        dnnl_primitive_t p = nullptr;
        KT_OK(dnnl_primitive_create(&p, pd.get()));
        const bytes_t b = blob_of(p);
        dnnl_primitive_destroy(p);
        const std::string w = case_name[which];
        for (int v : {1, 2}) {
            primitive_desc_base other = make_pd(which, v);
            t.check(refused(other.get(), b, b.size()),
                    (w + (v == 1 ? ": a blob of another shape refused" : ": a blob of other attributes or algorithm refused"))
                            .c_str());
        }
        primitive_desc_base another_kind = make_pd((which + 1) % n_cases);
        t.check(refused(another_kind.get(), b, b.size()), (w + ": a descriptor of another kind refuses it").c_str());
        // The next implementation of the same problem, where there is one.
        dnnl_primitive_desc_t next = nullptr;
        KT_OK(dnnl_primitive_desc_clone(&next, pd.get()));
        if (dnnl_primitive_desc_next_impl(next) == dnnl_success) {
            t.check(refused(next, b, b.size()), (w + ": the next implementation refuses the first one's blob").c_str());
            dnnl_primitive_t q = nullptr;
            KT_OK(dnnl_primitive_create(&q, next));
            const bytes_t nb = blob_of(q);
            dnnl_primitive_destroy(q);
            t.check(refused(pd.get(), nb, nb.size()), (w + ": the first implementation refuses the next one's blob").c_str());
            t.check(from_blob(next, nb.data(), nb.size()) == dnnl_success, (w + ": the next implementation's own blob accepted").c_str());
        }
        dnnl_primitive_desc_destroy(next);
    }
}

void test_threads() {
    // Made at 2 threads, recreated at 1 (and the other way): same blob.
    for (int which = 0; which < n_cases; ++which) {
        bytes_t b1, b2;
        kt::with_threads(1, [&] {
            primitive_desc_base pd = make_pd(which);
            dnnl_primitive_t p = nullptr;
            KT_OK(dnnl_primitive_create(&p, pd.get()));
            b1 = blob_of(p);
            dnnl_primitive_destroy(p);
        });
        kt::with_threads(2, [&] {
            primitive_desc_base pd = make_pd(which);
            dnnl_primitive_t p = nullptr;
            KT_OK(dnnl_primitive_create(&p, pd.get()));
            b2 = blob_of(p);
            dnnl_primitive_destroy(p);
            t.check(from_blob(pd.get(), b1.data(), b1.size()) == dnnl_success,
                    "a blob made at 1 thread is accepted at 2");
        });
        t.check(b1 == b2, "a blob does not depend on the thread count");
    }
}

void test_cpp() {
    auto pd = conv_pd(0);
    convolution_forward p(pd);
    const std::vector<uint8_t> b = p.get_cache_blob();
    convolution_forward q(pd, b);
    t.check(q.get_cache_blob() == b, "C++: primitive from a blob gives the same blob");
    t.check(run(q.get(), pd.get()) == run(p.get(), pd.get()), "C++: same outputs, bit for bit");
    std::vector<uint8_t> bad = b;
    bad[bad.size() / 2] ^= 1;
    dnnl_status_t st = dnnl_success;
    try {
        convolution_forward r(pd, bad);
    } catch (const dnnl::error &e) {
        st = e.status;
    }
    t.check(st == dnnl_invalid_arguments, "C++: a corrupted blob throws invalid_arguments");
    st = dnnl_success;
    try {
        convolution_forward r(conv_pd(1), b);
    } catch (const dnnl::error &e) {
        st = e.status;
    }
    t.check(st == dnnl_invalid_arguments, "C++: another descriptor throws invalid_arguments");
    // The generic primitive constructor from a C descriptor handle.
    primitive g(pd.get(), b);
    t.check(g.get_cache_blob() == b, "C++: primitive(c_pd, blob)");
}

void test_processes() {
    char tmpl[] = "/tmp/kt_cache_blob.XXXXXX";
    const char *dir = mkdtemp(tmpl);
    if (!dir) {
        t.check(false, "a temporary directory");
        return;
    }
    const std::string d = dir;
    for (int which = 0; which < n_cases; ++which) {
        const std::string w = case_name[which], c = std::to_string(which);
        for (int nthr : {1, 2}) {
            kt::with_threads(nthr, [&] {
                const std::string n = std::to_string(nthr);
                // Written there, read here.
                const int rc = run_self({"write", d, c, n});
                t.check(rc == 0, (w + ": the writing process succeeds").c_str());
                if (rc != 0) return;
                const bytes_t blob = read_file(d + "/blob" + c), there = read_file(d + "/out" + c);
                primitive_desc_base pd = make_pd(which);
                dnnl_primitive_t p = nullptr;
                t.check(from_blob(pd.get(), blob.data(), blob.size(), &p) == dnnl_success && p,
                        (w + ": a blob from another process accepted").c_str());
                if (!p) return;
                t.check(!there.empty() && run(p, pd.get()) == there,
                        (w + ": same outputs as in the writing process, bit for bit").c_str());
                dnnl_primitive_destroy(p);
                // Written here, read there.
                KT_OK(dnnl_primitive_create(&p, pd.get()));
                write_file(d + "/blob" + c, blob_of(p));
                const bytes_t here = run(p, pd.get());
                dnnl_primitive_destroy(p);
                t.check(run_self({"read", d, c, n}) == 0 && read_file(d + "/out" + c) == here,
                        (w + ": another process recreates it from this blob, same outputs").c_str());
            });
        }
        // Another ISA cap in the reading process: refused. (This machine's
        // effective ISA must be above the cap for the case to mean
        // anything; a CPU without AVX2 makes it a no-op, said below.)
        if (dnnl_get_effective_cpu_isa() > dnnl_cpu_isa_avx2) {
            static char env[] = "ONEDNN_MAX_CPU_ISA=AVX2";
            t.check(run_self({"read", d, c, "2"}, env) == 3,
                    (w + ": a process capped at AVX2 refuses the blob").c_str());
        } else {
            std::printf("note: this CPU is not above AVX2; the ISA-cap process case checks nothing\n");
        }
        std::remove((d + "/blob" + c).c_str());
        std::remove((d + "/out" + c).c_str());
    }
    rmdir(dir);
}

} // namespace

int main(int argc, char **argv) {
    if (argc == 5) return child(argv[1], argv[2], std::atoi(argv[3]), std::atoi(argv[4]));
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            for (int which = 0; which < n_cases; ++which) test_round_trip(which, nthr);
        });
    test_size_rules();
    for (int which = 0; which < n_cases; ++which) test_corruption(which);
    test_fields();
    test_other_pd();
    test_threads();
    test_cpp();
    test_processes();
    return t.finish();
}
