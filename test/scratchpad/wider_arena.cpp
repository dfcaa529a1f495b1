// Primitives book per-thread scratchpad regions for the threads available
// when their descriptor is created. Executed later from a wider TBB arena,
// they must still compute every output (by using no more chunks than they
// booked), not skip the chunks that have no region. Each primitive here has
// per-thread regions; its output in an 8-thread arena must equal its output
// in the arena it was created in.
#include <cstring>
#include <vector>

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include "dnnl.hpp"
#include "../common/kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

namespace {

memory filled(const memory::desc &md, const engine &eng, uint64_t seed) {
    memory m(md, eng);
    std::vector<float> v(md.get_size() / sizeof(float));
    kt::fill(v, seed);
    std::memcpy(m.get_data_handle(), v.data(), md.get_size());
    return m;
}

// Runs `p` twice, in the current arena and in an 8-thread one, and says
// whether dst came out the same.
bool same_in_wider_arena(const primitive &p, std::unordered_map<int, memory> args, const engine &eng) {
    stream s(eng);
    memory dst = args.at(DNNL_ARG_DST);
    const size_t bytes = dst.get_desc().get_size();
    std::memset(dst.get_data_handle(), 0, bytes);
    p.execute(s, args);
    std::vector<char> first(bytes);
    std::memcpy(first.data(), dst.get_data_handle(), bytes);

    std::memset(dst.get_data_handle(), 0, bytes);
    tbb::global_control gc(tbb::global_control::max_allowed_parallelism, 8);
    tbb::task_arena wide(8);
    wide.execute([&] { p.execute(s, args); });
    return std::memcmp(first.data(), dst.get_data_handle(), bytes) == 0;
}

} // namespace

int main() {
    kt::tally_t t;
    engine eng(engine::kind::cpu, 0);
    const memory::dim N = 4, C = 32, H = 20, W = 20;
    {
        memory::desc src({N, C, H, W}, dt::f32, tag::nhwc), dst({N, C, 10, 10}, dt::f32, tag::nhwc);
        pooling_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::pooling_avg_include_padding,
                src, dst, {2, 2}, {3, 3}, {0, 0}, {1, 1}, {0, 0});
        t.check(same_in_wider_arena(pooling_forward(pd), {{DNNL_ARG_SRC, filled(src, eng, 1)},
                                {DNNL_ARG_DST, memory(dst, eng)}}, eng),
                "pooling (nhwc) in a wider arena");
    }
    {
        memory::desc src({N, C, H, W}, dt::f32, tag::nchw), wei({C, C, 3, 3}, dt::f32, tag::oihw),
                dst({N, C, H, W}, dt::f32, tag::nchw);
        convolution_forward::primitive_desc pd(eng, prop_kind::forward_inference, algorithm::convolution_direct,
                src, wei, dst, {1, 1}, {1, 1}, {1, 1});
        t.check(same_in_wider_arena(convolution_forward(pd),
                        {{DNNL_ARG_SRC, filled(src, eng, 2)}, {DNNL_ARG_WEIGHTS, filled(wei, eng, 3)},
                                {DNNL_ARG_DST, memory(dst, eng)}},
                        eng),
                "convolution (im2col) in a wider arena");
    }
    {
        memory::desc src({N, C, H, W}, dt::f32, tag::nhwc);
        batch_normalization_forward::primitive_desc pd(eng, prop_kind::forward_inference, src, src, 1e-5f,
                normalization_flags::none);
        t.check(same_in_wider_arena(batch_normalization_forward(pd),
                        {{DNNL_ARG_SRC, filled(src, eng, 4)}, {DNNL_ARG_DST, memory(src, eng)}}, eng),
                "batch normalization (nhwc) in a wider arena");
    }
    {
        memory::desc a({256, 300}, dt::f32, tag::ab), b({300, 200}, dt::f32, tag::ab), c({256, 200}, dt::f32, tag::ab);
        matmul::primitive_desc pd(eng, a, b, c);
        t.check(same_in_wider_arena(matmul(pd),
                        {{DNNL_ARG_SRC, filled(a, eng, 5)}, {DNNL_ARG_WEIGHTS, filled(b, eng, 6)},
                                {DNNL_ARG_DST, memory(c, eng)}},
                        eng),
                "matmul in a wider arena");
    }
    return t.finish();
}
