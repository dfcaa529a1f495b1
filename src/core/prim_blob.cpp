#include "core/prim_blob.hpp"

#include <cstring>
#include <string>

#include "core/md_blob.hpp"
#include "core/primitive_cache.hpp"
#include "cpu/isa.hpp"
#include "dnnl_version.h"

namespace kestrel {

namespace {

const uint8_t magic[4] = {'K', 'P', 'C', 'B'};
const uint32_t format_version = 1;
const size_t header_bytes = 12, checksum_bytes = 8;

void put_str(blob::writer_t &w, const std::string &s) {
    w.u(s.size(), 4);
    w.out.insert(w.out.end(), s.begin(), s.end());
}

// The payload h should have in this process.
status_t payload_of(const dnnl_primitive_desc &h, std::vector<uint8_t> &out) {
    std::string key;
    if (!h.pd() || !primitive_identity_key(h, key)) return status::unimplemented;
    blob::writer_t w {out};
    w.u(DNNL_VERSION_MAJOR, 4);
    w.u(DNNL_VERSION_MINOR, 4);
    w.u(DNNL_VERSION_PATCH, 4);
    put_str(w, DNNL_VERSION_HASH);
    w.u((uint32_t)isa::effective_cpu_isa(), 4);
    w.u(isa::has_avx512_vnni() ? 1 : 0, 4);
    w.u((uint32_t)h.pd()->kind(), 4);
    w.i32(h.impl_idx);
    put_str(w, h.pd()->name());
    put_str(w, key);
    return status::success;
}

} // namespace

status_t prim_to_blob(const dnnl_primitive_desc &h, std::vector<uint8_t> &out) {
    std::vector<uint8_t> payload;
    KESTREL_CHECK(payload_of(h, payload));
    out.assign(magic, magic + 4);
    blob::writer_t w {out};
    w.u(format_version, 4);
    w.u(payload.size(), 4);
    out.insert(out.end(), payload.begin(), payload.end());
    w.u(blob::checksum(out.data(), out.size()), 8);
    return status::success;
}

status_t prim_blob_check(const dnnl_primitive_desc &h, const uint8_t *data, size_t size) {
    if (!data || size < header_bytes + checksum_bytes) return status::invalid_arguments;
    if (std::memcmp(data, magic, 4) != 0) return status::invalid_arguments;
    blob::reader_t r {data + 4, size - 4};
    if (r.u(4) != format_version) return status::invalid_arguments;
    const uint64_t len = r.u(4);
    if (len != size - header_bytes - checksum_bytes) return status::invalid_arguments;
    blob::reader_t c {data + header_bytes + len, checksum_bytes};
    if (c.u(8) != blob::checksum(data, header_bytes + len)) return status::invalid_arguments;

    // The checksum only says the bytes are the ones written; whether they
    // describe this primitive here is a field-by-field comparison with
    // what h gives now. A descriptor whose kind cannot be identified has no
    // blob that matches it.
    std::vector<uint8_t> want;
    if (payload_of(h, want) != status::success) return status::invalid_arguments;
    if (want.size() != len || std::memcmp(want.data(), data + header_bytes, len) != 0)
        return status::invalid_arguments;
    return status::success;
}

status_t prim_blob_id(const dnnl_primitive_desc &h, const uint8_t **id, dim_t *size) {
    std::lock_guard<std::mutex> lock(h.blob_id_lock);
    if (!h.blob_id_ready) {
        h.blob_id.clear();
        const status_t st = payload_of(h, h.blob_id);
        if (st != status::success && st != status::unimplemented) return st;
        if (st != status::success) h.blob_id.clear();
        h.blob_id_ready = true;
    }
    if (id) *id = h.blob_id.empty() ? nullptr : h.blob_id.data();
    if (size) *size = (dim_t)h.blob_id.size();
    return status::success;
}

} // namespace kestrel
