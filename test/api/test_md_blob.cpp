// Memory-descriptor blobs (dnnl_memory_desc_get_blob / create_with_blob):
// round trips over plain, blocked, strided, sub-memory, runtime, `any` and
// zero descriptors of every data type; every single-byte corruption,
// every truncation and foreign bytes refused with invalid_arguments and
// nothing written; and blobs built here by an encoder of the documented
// format (core/md_blob.hpp), so the format itself is checked, including
// well-formed blobs of inconsistent descriptors, which are refused too.
#include <cstring>
#include <vector>

#include "dnnl.hpp"
#include "common/kt_test.hpp"

namespace {

kt::tally_t t;

std::vector<uint8_t> blob_of(const_dnnl_memory_desc_t md) {
    size_t n = 0;
    KT_OK(dnnl_memory_desc_get_blob(nullptr, &n, md));
    std::vector<uint8_t> b(n);
    KT_OK(dnnl_memory_desc_get_blob(b.data(), &n, md));
    return b;
}

bool refused(const std::vector<uint8_t> &b) {
    dnnl_memory_desc_t back = nullptr;
    const dnnl_status_t st = dnnl_memory_desc_create_with_blob(&back, b.data());
    const bool ok = st == dnnl_invalid_arguments && back == nullptr;
    if (back) dnnl_memory_desc_destroy(back);
    return ok;
}

void round_trip(const_dnnl_memory_desc_t md, const char *what) {
    std::vector<uint8_t> b = blob_of(md);
    dnnl_memory_desc_t back = nullptr;
    t.check(dnnl_memory_desc_create_with_blob(&back, b.data()) == dnnl_success && back
                    && dnnl_memory_desc_equal(back, md) && dnnl_memory_desc_get_size(back) == dnnl_memory_desc_get_size(md),
            what);
    if (back) dnnl_memory_desc_destroy(back);
    // Every byte flipped, one at a time; every truncation (the rest of the
    // caller's buffer zero, as a short read leaves it).
    bool flips = true, cuts = true;
    // The reader trusts the caller's buffer to hold what a blob's header
    // announces (the C API passes no length), and a corrupted length field
    // can announce up to the largest valid payload: every buffer here has
    // that much room behind the blob.
    const size_t room = 4096;
    for (size_t i = 0; i < b.size(); ++i) {
        std::vector<uint8_t> c(b.size() + room, 0);
        std::memcpy(c.data(), b.data(), b.size());
        c[i] ^= 0x5a;
        flips = flips && refused(c);
        std::vector<uint8_t> z(b.size() + room, 0);
        std::memcpy(z.data(), b.data(), i);
        cuts = cuts && refused(z);
    }
    t.check(flips, "every single-byte corruption refused");
    t.check(cuts, "every truncation refused");
}

// An encoder of the documented format, independent of the library's.
struct enc_t {
    std::vector<uint8_t> b;
    void u(uint64_t v, int n) {
        for (int i = 0; i < n; ++i) b.push_back((uint8_t)(v >> (8 * i)));
    }
    std::vector<uint8_t> finish(uint32_t version = 1) {
        std::vector<uint8_t> out = {'K', 'M', 'D', 'B'};
        for (int i = 0; i < 4; ++i) out.push_back((uint8_t)(version >> (8 * i)));
        const uint32_t len = (uint32_t)b.size();
        for (int i = 0; i < 4; ++i) out.push_back((uint8_t)(len >> (8 * i)));
        out.insert(out.end(), b.begin(), b.end());
        uint64_t h = 0xcbf29ce484222325ull;
        for (uint8_t x : out) h = (h ^ x) * 0x100000001b3ull;
        for (int i = 0; i < 8; ++i) out.push_back((uint8_t)(h >> (8 * i)));
        out.resize(out.size() + 4096, 0); // room, as the reader assumes (see round_trip)
        return out;
    }
};

// A 2D f32 descriptor with inner blocks, fields given directly.
std::vector<uint8_t> encode_2d(int64_t d0, int64_t d1, int64_t pd0, int64_t pd1, int64_t off1, int64_t s0,
        int64_t s1, int nblk, int64_t blk, int64_t idx, int32_t dt = dnnl_f32, uint32_t version = 1) {
    enc_t e;
    e.u(2, 4);
    e.u((uint32_t)dt, 4);
    e.u(dnnl_blocked, 4);
    e.u(0, 8);
    for (int64_t v : {d0, d1, pd0, pd1, (int64_t)0, off1, s0, s1}) e.u((uint64_t)v, 8);
    e.u((uint32_t)nblk, 4);
    if (nblk) {
        e.u((uint64_t)blk, 8);
        e.u((uint64_t)idx, 8);
    }
    return e.finish(version);
}

} // namespace

int main() {
    using namespace dnnl;
    using dt = memory::data_type;
    using tag = memory::format_tag;
    for (dt d : {dt::f32, dt::bf16, dt::f16, dt::s8, dt::u8, dt::s32, dt::f64, dt::f8_e5m2, dt::f8_e4m3}) {
        memory::desc m({2, 17, 3, 5}, d, tag::nChw16c);
        round_trip(m.get(), "nChw16c round trip");
    }
    round_trip(memory::desc({2, 3, 4, 5}, dt::f32, tag::nhwc).get(), "nhwc round trip");
    round_trip(memory::desc({64, 32, 3, 3}, dt::f32, tag::OIhw16i16o).get(), "double-blocked weights round trip");
    round_trip(memory::desc({5, 7}, dt::f32, memory::dims {70, 3}).get(), "strided round trip");
    round_trip(memory::desc({7}, dt::s8, tag::a).get(), "1D round trip");
    {
        memory::desc parent({4, 32, 6, 6}, dt::f32, tag::nChw16c);
        round_trip(parent.submemory_desc({2, 16, 3, 3}, {1, 16, 2, 1}).get(), "sub-memory round trip");
    }
    round_trip(memory::desc({DNNL_RUNTIME_DIM_VAL, 8}, dt::f32, tag::ab).get(), "runtime dims round trip");
    round_trip(memory::desc({2, 3}, dt::f32, tag::any).get(), "format any round trip");
    round_trip(memory::desc().get(), "zero descriptor round trip");
    // The C++ API's blob constructor.
    {
        memory::desc m({3, 20, 4, 4}, dt::bf16, tag::nChw8c);
        t.check(memory::desc(m.get_blob()) == m, "C++ memory::desc(get_blob()) == original");
    }

    // The documented format: a blob built here is read back.
    {
        const std::vector<uint8_t> ok = encode_2d(5, 7, 5, 16, 0, 16, 1, 0, 0, 0);
        dnnl_memory_desc_t back = nullptr;
        const dnnl_status_t st = dnnl_memory_desc_create_with_blob(&back, ok.data());
        // A 5x7 f32 tensor with rows 16 apart (padded to 5x16).
        bool same = st == dnnl_success;
        if (same) {
            const dnnl_dim_t *d = nullptr, *s = nullptr;
            KT_OK(dnnl_memory_desc_query(back, dnnl_query_dims, &d));
            KT_OK(dnnl_memory_desc_query(back, dnnl_query_strides, &s));
            same = d[0] == 5 && d[1] == 7 && s[0] == 16 && s[1] == 1;
            dnnl_memory_desc_destroy(back);
        }
        t.check(same, "a blob written by the documented format is read");
        t.check(refused(encode_2d(5, 7, 5, 16, 0, 16, 1, 0, 0, 0, dnnl_f32, 2)), "another format version refused");
        t.check(refused(encode_2d(5, 7, 4, 7, 0, 7, 1, 0, 0, 0)), "padded dims below dims refused");
        t.check(refused(encode_2d(5, 7, 5, 7, 3, 7, 1, 0, 0, 0)), "padded offset past the padding refused");
        t.check(refused(encode_2d(5, 7, 5, 7, 0, 7, 1, 1, 8, 3)), "inner block index out of range refused");
        t.check(refused(encode_2d(5, 7, 5, 7, 0, 7, 1, 1, 4, 1)), "padded dim not a multiple of the block refused");
        t.check(refused(encode_2d(5, 7, 5, 7, 0, 7, 1, 1, 0, 1)), "zero block refused");
        t.check(refused(encode_2d(-3, 7, 5, 7, 0, 7, 1, 0, 0, 0)), "negative dim refused");
        t.check(refused(encode_2d(5, 7, 5, 7, 0, 7, 1, 0, 0, 0, 0x7fff)), "unknown data type refused");
    }
    // Foreign bytes.
    {
        std::vector<uint8_t> zeros(4096, 0), ones(4096, 0xff), text(4096, 0);
        std::memcpy(text.data(), "KestrMD\1", 8); // the previous format's magic
        t.check(refused(zeros) && refused(ones) && refused(text), "foreign bytes refused");
        kt::rng_t r(5);
        bool all = true;
        for (int i = 0; i < 200; ++i) {
            std::vector<uint8_t> junk(4096);
            for (auto &x : junk) x = (uint8_t)r.next();
            junk[0] = 'K', junk[1] = 'M', junk[2] = 'D', junk[3] = 'B', junk[4] = 1, junk[5] = junk[6] = junk[7] = 0;
            all = all && refused(junk);
        }
        t.check(all, "random payloads behind a valid magic refused");
    }
    // get_blob's size rules.
    {
        memory::desc m({2, 3}, dt::f32, tag::ab);
        size_t n = 0;
        KT_OK(dnnl_memory_desc_get_blob(nullptr, &n, m.get()));
        std::vector<uint8_t> b(n + 8, 0xee);
        size_t more = n + 8;
        t.check(dnnl_memory_desc_get_blob(b.data(), &more, m.get()) == dnnl_invalid_arguments && b[0] == 0xee,
                "get_blob with another size refused, nothing written");
        t.check(dnnl_memory_desc_get_blob(b.data(), nullptr, m.get()) == dnnl_invalid_arguments, "null size refused");
        dnnl_memory_desc_t back = nullptr;
        t.check(dnnl_memory_desc_create_with_blob(&back, nullptr) == dnnl_invalid_arguments, "null blob refused");
    }
    return t.finish();
}
