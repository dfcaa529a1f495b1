#include "core/primitive_cache.hpp"

#include <future>
#include <list>
#include <mutex>
#include <unordered_map>

#include "core/defaults.hpp"
#include "core/primitive.hpp"
#include "core/verbose.hpp"
#include "cpu/threading.hpp"

namespace kestrel {

namespace {

// A new field in these structs must be written into the key below, or two
// different computations would share one primitive. The sizes (x86-64,
// libstdc++) make the build fail until someone looks.
static_assert(sizeof(quant_entry_t) == 120, "quant_entry_t changed: update put_quant");
static_assert(sizeof(post_op_t) == 1320, "post_op_t changed: update put_attr");
static_assert(sizeof(attr_t) == 808, "dnnl_primitive_attr changed: update put_attr");

void put_quant(key_writer_t &k, const quant_t &q) {
    k.put((uint64_t)q.items.size());
    for (const auto &it : q.items) {
        k.put(it.arg);
        k.put(it.e.set);
        k.put(it.e.mask);
        k.put(it.e.ndims);
        for (int d = 0; d < it.e.ndims && d < max_ndims; ++d) k.put(it.e.group_dims[d]);
        k.put(it.e.dt);
    }
}

void put_attr(key_writer_t &k, const attr_t &a) {
    k.put(a.scratchpad_mode);
    k.put(a.fpmath_mode);
    k.put(a.fpmath_apply_to_int);
    k.put(a.acc_mode);
    k.put(a.deterministic);
    put_quant(k, a.scales);
    put_quant(k, a.zero_points);
    k.put((uint64_t)a.rounding.size());
    for (const auto &r : a.rounding) {
        k.put(r.first);
        k.put(r.second);
    }
    k.put((uint64_t)a.post_ops.entries.size());
    for (const post_op_t &e : a.post_ops.entries) {
        k.put(e.kind);
        k.put(e.sum.scale);
        k.put(e.sum.zero_point);
        k.put(e.sum.dt);
        k.put(e.eltwise.alg);
        k.put(e.eltwise.alpha);
        k.put(e.eltwise.beta);
        k.put(e.binary.alg);
        k.put(e.binary.src1_desc);
        k.put(e.binary.src2_desc);
        k.put(e.prelu.mask);
        k.put(e.dw.wei_dt);
        k.put(e.dw.bias_dt);
        k.put(e.dw.dst_dt);
        k.put(e.dw.kernel);
        k.put(e.dw.stride);
        k.put(e.dw.padding_l);
    }
    k.put(a.dropout);
    k.put(a.dropout_mask);
    k.put(a.rnn_data_scale);
    k.put(a.rnn_data_shift);
    k.put(a.rnn_weights_mask);
    k.put(a.rnn_weights_proj_mask);
    for (const auto *v : {&a.rnn_weights_scales, &a.rnn_weights_proj_scales}) {
        k.put((uint64_t)v->size());
        for (float f : *v) k.put(f);
    }
}

// The memory descriptors a pd settled on (format `any` resolved, choices
// made from the hint): a few per role is what any kind uses.
void put_pd_mds(key_writer_t &k, const pd_t &pd) {
    k.put(pd.kind());
    k.put(pd.n_inputs());
    k.put(pd.n_outputs());
    for (int i = 0; i < 4; ++i) {
        k.put(*pd.src_md(i));
        k.put(*pd.dst_md(i));
        k.put(*pd.weights_md(i));
        k.put(*pd.diff_src_md(i));
        k.put(*pd.diff_dst_md(i));
        k.put(*pd.diff_weights_md(i));
        k.put(*pd.workspace_md(i));
    }
}

class cache_t {
public:
    status_t get(const std::string &key, const pd_t &pd, std::shared_ptr<primitive_t> &out, bool *hit) {
        const int capacity = primitive_cache_capacity();
        if (capacity <= 0) return pd.create_primitive(out);

        // The promise (a shared-state allocation) only when this thread
        // is the one to create the primitive.
        std::unique_ptr<std::promise<result_t>> promise;
        std::shared_future<result_t> value;
        uint64_t id = 0;
        {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = map_.find(key);
            if (it != map_.end()) {
                lru_.splice(lru_.begin(), lru_, it->second);
                ++hits_;
                value = it->second->value;
            } else {
                ++misses_;
                promise.reset(new std::promise<result_t>);
                id = ++next_id_;
                value = promise->get_future().share();
                lru_.push_front({key, value, id});
                map_.emplace(key, lru_.begin());
                evict_to((size_t)capacity);
            }
        }
        if (hit) *hit = id == 0;

        if (!id) {
            // Another thread created (or is creating) it; on its failure
            // this thread tries on its own.
            result_t r = value.get();
            if (r.st != status::success) return pd.create_primitive(out);
            out = r.prim;
            return status::success;
        }

        result_t r;
        try {
            r.st = pd.create_primitive(r.prim);
        } catch (...) {
            promise->set_value({status::runtime_error, nullptr});
            forget(key, id);
            throw;
        }
        if (r.st != status::success) r.prim.reset();
        promise->set_value(r);
        if (r.st != status::success) forget(key, id);
        out = r.prim;
        return r.st;
    }

    void shrink(size_t capacity) {
        std::lock_guard<std::mutex> lock(mu_);
        evict_to(capacity);
    }

    primitive_cache_stats_t stats() {
        std::lock_guard<std::mutex> lock(mu_);
        primitive_cache_stats_t s;
        s.hits = hits_;
        s.misses = misses_;
        s.size = (int)lru_.size();
        return s;
    }

    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        evict_to(0);
        hits_ = misses_ = 0;
    }

private:
    struct result_t {
        status_t st = status::success;
        std::shared_ptr<primitive_t> prim;
    };
    struct entry_t {
        std::string key;
        std::shared_future<result_t> value;
        uint64_t id; // tells this entry from a later one with the same key
    };

    void evict_to(size_t capacity) {
        while (lru_.size() > capacity) {
            map_.erase(lru_.back().key);
            lru_.pop_back();
        }
    }

    // Drops the entry of a failed creation, unless it was replaced since.
    void forget(const std::string &key, uint64_t id) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = map_.find(key);
        if (it == map_.end() || it->second->id != id) return;
        lru_.erase(it->second);
        map_.erase(it);
    }

    std::mutex mu_;
    std::list<entry_t> lru_; // most recently used first
    std::unordered_map<std::string, std::list<entry_t>::iterator> map_;
    uint64_t hits_ = 0, misses_ = 0, next_id_ = 0;
};

cache_t &cache() {
    static cache_t c;
    return c;
}

// The pd cache: prototypes of what the implementation walk chose, in LRU
// order. Copies are made outside the lock.
class pd_cache_t {
public:
    bool find(const std::string &key, std::shared_ptr<const pd_t> &proto, int &idx) {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = map_.find(key);
        if (it == map_.end()) {
            ++misses_;
            return false;
        }
        lru_.splice(lru_.begin(), lru_, it->second);
        ++hits_;
        proto = it->second->proto;
        idx = it->second->impl_idx;
        return true;
    }

    void put(const std::string &key, std::shared_ptr<const pd_t> proto, int idx, size_t capacity) {
        std::lock_guard<std::mutex> lock(mu_);
        if (map_.count(key)) return; // another thread made it meanwhile
        lru_.push_front({key, std::move(proto), idx});
        map_.emplace(key, lru_.begin());
        evict_to(capacity);
    }

    void shrink(size_t capacity) {
        std::lock_guard<std::mutex> lock(mu_);
        evict_to(capacity);
    }

    void clear() {
        std::lock_guard<std::mutex> lock(mu_);
        evict_to(0);
        hits_ = misses_ = 0;
    }

    void stats(primitive_cache_stats_t &s) {
        std::lock_guard<std::mutex> lock(mu_);
        s.pd_hits = hits_;
        s.pd_misses = misses_;
        s.pd_size = (int)lru_.size();
    }

private:
    struct entry_t {
        std::string key;
        std::shared_ptr<const pd_t> proto;
        int impl_idx;
    };

    void evict_to(size_t capacity) {
        while (lru_.size() > capacity) {
            map_.erase(lru_.back().key);
            lru_.pop_back();
        }
    }

    std::mutex mu_;
    std::list<entry_t> lru_;
    std::unordered_map<std::string, std::list<entry_t>::iterator> map_;
    uint64_t hits_ = 0, misses_ = 0;
};

pd_cache_t &pd_cache() {
    static pd_cache_t c;
    return c;
}

} // namespace

namespace {

// What identifies h's computation in any process of this library build:
// no addresses, nothing the process's thread count decides.
bool put_identity(key_writer_t &k, const dnnl_primitive_desc &h) {
    const pd_t *pd = h.pd();
    if (!pd || !h.desc) return false;
    k.put(h.desc->kind);
    if (!h.desc->serialize(k)) return false;
    k.put(h.impl_idx);
    k.put_str(pd->name());
    if (h.engine) {
        k.put(h.engine->kind);
        k.put((uint64_t)h.engine->index);
    }
    put_attr(k, *pd->attr());
    put_pd_mds(k, *pd);
    k.put(h.hint != nullptr);
    if (h.hint) {
        k.put_str(h.hint->name());
        put_pd_mds(k, *h.hint);
    }
    return true;
}

} // namespace

bool primitive_cache_key(const dnnl_primitive_desc &h, std::string &key) {
    key_writer_t k;
    if (!put_identity(k, h)) return false;
    k.put((uint64_t)(uintptr_t)h.list);
    // Implementations may split work and book per-thread scratchpad by the
    // thread count they saw at creation.
    k.put(max_threads());
    k.put((uint64_t)h.pd()->scratchpad_size());
    key = k.take();
    return true;
}

bool primitive_identity_key(const dnnl_primitive_desc &h, std::string &key) {
    key_writer_t k;
    if (!put_identity(k, h)) return false;
    key = k.take();
    return true;
}

status_t primitive_cache_get(const dnnl_primitive_desc &h, std::shared_ptr<primitive_t> &out, bool *hit) {
    if (hit) *hit = false;
    std::string key;
    if (primitive_cache_capacity() <= 0 || !primitive_cache_key(h, key))
        return h.pd()->create_primitive(out);
    return cache().get(key, *h.pd(), out, hit);
}

bool pd_cache_key(const op_desc_t &desc, const attr_t &attr, const dnnl_engine *engine, impl_list_t list,
        const dnnl_primitive_desc *hint, std::string &key) {
    // A backward pd reads its forward hint in ways its identity (name,
    // descriptors) need not show; and verbose mode prints the walk.
    if (hint || primitive_cache_capacity() <= 0
            || verbose::enabled(verbose::flag_dispatch | verbose::flag_create_check))
        return false;
    key_writer_t k;
    k.put(desc.kind);
    if (!desc.serialize(k)) return false;
    put_attr(k, attr);
    // The engine by address: a pd holds its engine's pointer, and an engine
    // made later at the same address is of the same kind and index.
    k.put((uint64_t)(uintptr_t)engine);
    k.put((uint64_t)(uintptr_t)list);
    // Implementations split work and book per-thread scratchpad by the
    // thread count they see at creation.
    k.put(max_threads());
    key = k.take();
    return true;
}

bool pd_cache_find(const std::string &key, std::unique_ptr<pd_t> &pd, int &impl_idx) {
    std::shared_ptr<const pd_t> proto;
    if (!pd_cache().find(key, proto, impl_idx)) return false;
    pd.reset(proto->clone());
    return pd != nullptr;
}

void pd_cache_put(const std::string &key, const pd_t &pd, int impl_idx) {
    const int capacity = primitive_cache_capacity();
    if (capacity <= 0) return;
    std::shared_ptr<const pd_t> proto(pd.clone());
    if (proto) pd_cache().put(key, std::move(proto), impl_idx, (size_t)capacity);
}

void primitive_cache_shrink(int capacity) {
    cache().shrink(capacity < 0 ? 0 : (size_t)capacity);
    pd_cache().shrink(capacity < 0 ? 0 : (size_t)capacity);
}

primitive_cache_stats_t primitive_cache_stats() {
    primitive_cache_stats_t s = cache().stats();
    pd_cache().stats(s);
    return s;
}

void primitive_cache_clear() {
    cache().clear();
    pd_cache().clear();
}

} // namespace kestrel
