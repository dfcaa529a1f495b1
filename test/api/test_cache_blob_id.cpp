// dnnl_query_cache_blob_id / dnnl_query_cache_blob_id_size_s64 and
// dnnl::primitive_desc_base::get_cache_blob_id.
//
// The id must be equal for two descriptors that would give the same cache
// blob and different otherwise. Checked here over pairs of descriptors
// (same problem made twice, a clone, another shape, other attributes,
// another implementation through next_impl, another primitive kind) by
// comparing id equality with blob equality, and with the documented blob
// format (core/prim_blob.hpp: 12 header bytes, then the payload, then an
// 8-byte checksum) by checking the id is the payload. Also: the C size
// query agrees with the bytes, the pointer stays valid and stable, two
// threads querying one descriptor at once get the same bytes, and the id
// does not depend on the thread count (1 and 2 threads).
#include <cstring>
#include <thread>
#include <vector>

#include "dnnl.h"
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

// variant 0 and 3: the same problem; 1: another N; 2: user scratchpad.
matmul::primitive_desc mm_pd(int variant) {
    const memory::dim n = variant == 1 ? 9 : 8;
    primitive_attr a;
    if (variant == 2) a.set_scratchpad_mode(scratchpad_mode::user);
    return matmul::primitive_desc(eng(), memory::desc({4, 6}, dt::f32, tag::ab),
            memory::desc({6, n}, dt::f32, tag::ab), memory::desc({4, n}, dt::f32, tag::ab), a);
}

eltwise_forward::primitive_desc elt_pd() {
    const memory::desc md({4, 8}, dt::f32, tag::ab);
    return eltwise_forward::primitive_desc(eng(), prop_kind::forward_inference,
            algorithm::eltwise_relu, md, md, 0.f, 0.f);
}

bytes_t blob_of(const primitive_desc_base &pd) {
    return primitive(pd.get()).get_cache_blob();
}

// The id is the blob's payload (header 12 bytes, checksum 8 bytes).
bool id_is_payload(const bytes_t &id, const bytes_t &blob) {
    return blob.size() == id.size() + 20 && std::memcmp(blob.data() + 12, id.data(), id.size()) == 0;
}

void pairs() {
    const bytes_t a = mm_pd(0).get_cache_blob_id();
    t.check(!a.empty(), "matmul id is not empty");
    t.check(id_is_payload(a, blob_of(mm_pd(0))), "id is the blob payload");

    std::vector<bytes_t> ids, blobs;
    for (int v : {0, 1, 2, 3}) {
        auto pd = mm_pd(v);
        ids.push_back(pd.get_cache_blob_id());
        blobs.push_back(blob_of(pd));
    }
    auto e = elt_pd();
    ids.push_back(e.get_cache_blob_id());
    blobs.push_back(blob_of(e));
    for (size_t i = 0; i < ids.size(); ++i)
        for (size_t j = 0; j < ids.size(); ++j)
            t.check((ids[i] == ids[j]) == (blobs[i] == blobs[j]), "id equal exactly when blob equal");
    t.check(ids[0] == ids[3], "same problem twice: same id");
    t.check(ids[0] != ids[1], "other shape: other id");
    t.check(ids[0] != ids[2], "other attributes: other id");
    t.check(ids[0] != ids[4], "other kind: other id");
}

void c_api() {
    auto pd = mm_pd(0);
    dnnl_dim_t size = -1;
    const uint8_t *p1 = nullptr, *p2 = nullptr;
    t.check(dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id_size_s64, 0, &size)
                    == dnnl_success,
            "C size query");
    t.check(dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id, 0, &p1) == dnnl_success
                    && p1,
            "C id query");
    t.check(dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id, 0, &p2) == dnnl_success
                    && p2 == p1,
            "second query gives the same pointer");
    const bytes_t id = pd.get_cache_blob_id();
    t.check(size == (dnnl_dim_t)id.size() && p1 && std::memcmp(p1, id.data(), id.size()) == 0,
            "C size and bytes match the C++ id");
    t.check(dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id, 0, nullptr)
                    == dnnl_invalid_arguments,
            "NULL result refused");

    // A clone answers the same id.
    dnnl_primitive_desc_t c = nullptr;
    t.check(dnnl_primitive_desc_clone(&c, pd.get()) == dnnl_success, "clone");
    if (c) {
        const uint8_t *pc = nullptr;
        dnnl_dim_t sc = 0;
        dnnl_primitive_desc_query(c, dnnl_query_cache_blob_id_size_s64, 0, &sc);
        dnnl_primitive_desc_query(c, dnnl_query_cache_blob_id, 0, &pc);
        t.check(sc == size && pc && std::memcmp(pc, id.data(), id.size()) == 0, "clone: same id");
        dnnl_primitive_desc_destroy(c);
    }

    // next_impl moves to another implementation: the id follows it, and
    // still equals the payload of the blob of a primitive made now.
    auto pn = mm_pd(0);
    const bytes_t before = pn.get_cache_blob_id();
    if (pn.next_impl()) {
        const bytes_t after = pn.get_cache_blob_id();
        t.check(after != before, "next_impl: other id");
        t.check(id_is_payload(after, blob_of(pn)), "next_impl: id is the new blob payload");
    } else {
        t.check(false, "matmul f32 has a second implementation for next_impl");
    }
}

void concurrent() {
    auto pd = mm_pd(0);
    const uint8_t *r[2] = {nullptr, nullptr};
    dnnl_dim_t s[2] = {0, 0};
    std::thread th[2];
    for (int i = 0; i < 2; ++i)
        th[i] = std::thread([&, i] {
            dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id, 0, &r[i]);
            dnnl_primitive_desc_query(pd.get(), dnnl_query_cache_blob_id_size_s64, 0, &s[i]);
        });
    for (auto &x : th) x.join();
    t.check(r[0] && r[0] == r[1] && s[0] == s[1] && s[0] > 0, "two threads see one id");
}

} // namespace

int main() {
    bytes_t by_thr[2];
    for (int nthr : {1, 2})
        kt::with_threads(nthr, [&] {
            pairs();
            c_api();
            concurrent();
            by_thr[nthr - 1] = mm_pd(0).get_cache_blob_id();
        });
    t.check(by_thr[0] == by_thr[1], "id does not depend on the thread count");
    return t.finish();
}
