// Primitive cache blobs (dnnl_primitive_get_cache_blob and
// dnnl_primitive_create_from_cache_blob).
//
// Kestrel generates no code at creation, so a blob carries no compiled
// kernel: it records which primitive it was taken from, and creating from
// it checks that the primitive descriptor given now asks for that very
// primitive in this very library, then creates it as usual. Layout, every
// integer little-endian (the helpers and checksum of core/md_blob.hpp):
//   "KPCB"  magic                                   4 bytes
//   u32     format version (1)
//   u32     payload length in bytes
//   payload:
//     u32   DNNL_VERSION_MAJOR, _MINOR, _PATCH
//     str   DNNL_VERSION_HASH (the Kestrel build)
//     u32   effective ISA (dnnl_cpu_isa_t, after ONEDNN_MAX_CPU_ISA)
//     u32   1 when the AVX512-VNNI kernels are allowed, else 0
//     u32   primitive kind
//     i32   index of the implementation in its kind's list
//     str   implementation name
//     str   identity key (primitive_identity_key: op desc, attributes,
//           engine, the memory descriptors chosen, the forward hint)
//   u64     FNV-1a of everything before it
// where str is a u32 byte count and the bytes. A blob is accepted only
// when its size is exactly header + payload + checksum, the checksum
// holds, and every payload field equals what the given descriptor and
// this process produce; anything else is dnnl_invalid_arguments.
#ifndef KESTREL_CORE_PRIM_BLOB_HPP
#define KESTREL_CORE_PRIM_BLOB_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/primitive_desc.hpp"

namespace kestrel {

// The blob of a primitive made from h; unimplemented when h's kind cannot
// be identified (its op desc is not serialized).
status_t prim_to_blob(const dnnl_primitive_desc &h, std::vector<uint8_t> &out);
// Success when `blob` was made by prim_to_blob from a descriptor equal to
// h, in this library build at this ISA cap.
status_t prim_blob_check(const dnnl_primitive_desc &h, const uint8_t *blob, size_t size);
// Answers dnnl_query_cache_blob_id (bytes) and _size_s64. The id is the
// blob's payload: two descriptors have equal ids exactly when their blobs
// would be equal. A descriptor that has no blob gets an empty id. The bytes
// live in h until h is destroyed or moved to another implementation.
status_t prim_blob_id(const dnnl_primitive_desc &h, const uint8_t **id, dim_t *size);

} // namespace kestrel

#endif
