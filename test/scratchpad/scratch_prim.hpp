// A primitive that exists only in the scratchpad tests. It books a shared
// region and a per-thread region of chosen sizes and computes
//   dst[i] = 2 * src[i] + 1
// by way of both regions, yielding in between, so two executions that were
// (wrongly) given the same buffer would overwrite each other's partial
// results and produce a wrong dst.
#ifndef KESTREL_TEST_SCRATCH_PRIM_HPP
#define KESTREL_TEST_SCRATCH_PRIM_HPP

#include <atomic>
#include <thread>

#include "dnnl.h"
#include "core/primitive.hpp"
#include "cpu/threading.hpp"

namespace kt_scratch {

using namespace kestrel;

struct desc_t : op_desc_impl_t<desc_t> {
    desc_t() : op_desc_impl_t<desc_t>(dnnl_eltwise) {}
    memory_desc_t md;
    size_t shared_bytes = 0;
    size_t per_thread_bytes = 0;
};

// What each thread slot saw during the last execution (NUMA tests read it).
struct probe_t {
    std::atomic<const void *> slab_ptr[64];
    std::atomic<int> cpu_seen[64];
};
inline probe_t &probe() {
    static probe_t p;
    return p;
}
// Set by the NUMA tests to the (mocked) sched_getcpu.
inline int (*&cpu_of_thread())() {
    static int (*f)() = nullptr;
    return f;
}

enum { key_shared = 1, key_slab = 2 };

struct prim_t : primitive_t {
    struct pd_t : pd_impl_t<pd_t, kestrel::pd_t, prim_t> {
        using desc_t = kt_scratch::desc_t;
        pd_t(const desc_t *d, const attr_t *a, const kestrel::pd_t *)
            : pd_impl_t<pd_t, kestrel::pd_t, prim_t>(a, dnnl_eltwise), desc_(*d) {}
        const char *name() const override { return "test:scratch"; }
        status_t init(dnnl_engine *) override {
            auto &r = scratchpad_registry();
            r.book(key_shared, desc_.shared_bytes);
            r.book_per_thread(key_slab, desc_.per_thread_bytes);
            return status::success;
        }
        const memory_desc_t *src_md(int i) const override { return i == 0 ? &desc_.md : &zero_md_; }
        const memory_desc_t *dst_md(int i) const override { return i == 0 ? &desc_.md : &zero_md_; }
        arg_usage_t arg_usage(int arg) const override {
            if (arg == DNNL_ARG_SRC) return arg_usage_t::input;
            if (arg == DNNL_ARG_DST) return arg_usage_t::output;
            return kestrel::pd_t::arg_usage(arg);
        }
        int n_inputs() const override { return 1; }
        int n_outputs() const override { return 1; }
        desc_t desc_;
    };
    explicit prim_t(const pd_t *pd) : primitive_t(pd) {}

    status_t execute(const exec_ctx_t &ctx) const override {
        const auto *pd = static_cast<const pd_t *>(pd_.get());
        const float *src = ctx.input<float>(DNNL_ARG_SRC);
        float *dst = ctx.output<float>(DNNL_ARG_DST);
        const dim_t n = pd->desc_.md.dims[0];
        const auto &sp = ctx.scratchpad();
        float *shared = sp.get<float>(key_shared);
        const dim_t cap = (dim_t)(pd->desc_.shared_bytes / sizeof(float));
        const dim_t m = n < cap ? n : cap;
        for (dim_t i = 0; i < m; ++i) shared[i] = 2.f * src[i];
        std::this_thread::yield();
        const int nthr = sp.nthr();
        parallel(nthr, [&](int ithr, int nt) {
            float *slab = sp.get<float>(key_slab, ithr);
            if (ithr < 64) {
                probe().slab_ptr[ithr].store(slab);
                probe().cpu_seen[ithr].store(cpu_of_thread() ? cpu_of_thread()() : -1);
            }
            if (!slab) return;
            const dim_t slab_cap = (dim_t)(pd->desc_.per_thread_bytes / sizeof(float));
            dim_t s, e;
            balance211(n, nt, ithr, s, e);
            for (dim_t b = s; b < e; b += slab_cap) {
                dim_t len = e - b < slab_cap ? e - b : slab_cap;
                for (dim_t i = 0; i < len; ++i) slab[i] = (b + i < m ? shared[b + i] : 2.f * src[b + i]) + 1.f;
                std::this_thread::yield();
                for (dim_t i = 0; i < len; ++i) dst[b + i] = slab[i];
            }
        });
        return status::success;
    }
};

const impl_entry_t impl_list[] = {{"test:scratch", make_pd<prim_t::pd_t>}, {nullptr, nullptr}};

// Builds a primitive desc for n floats with the given scratchpad bookings.
inline dnnl_status_t make_pd(dnnl_primitive_desc_t *out, dnnl_engine_t eng, dim_t n,
        size_t shared_bytes, size_t per_thread_bytes, const_dnnl_primitive_attr_t attr = nullptr) {
    desc_t d;
    dim_t dims[1] = {n};
    md_init_by_tag(d.md, 1, dims, dnnl_f32, dnnl_a);
    d.shared_bytes = shared_bytes;
    d.per_thread_bytes = per_thread_bytes;
    return create_pd_handle(out, d, attr, eng, impl_list, nullptr);
}

} // namespace kt_scratch

#endif
