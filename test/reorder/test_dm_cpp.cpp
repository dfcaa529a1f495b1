// The dnnl.hpp classes for reorder, sum and concat: construction from
// memories and descriptors, execution, queries, and errors as exceptions.
#include <cmath>
#include <vector>

#include "dnnl.hpp"
#include "kt_test.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

int main() {
    kt::tally_t tally;
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const memory::dims dims = {2, 17, 3, 3};
    const size_t n = 2 * 17 * 3 * 3;

    // Reorder nchw -> nChw16c -> nchw round trip, values unchanged.
    memory::desc plain(dims, dt::f32, tag::nchw), blocked(dims, dt::f32, tag::nChw16c);
    memory src(plain, eng), mid(blocked, eng), back(plain, eng);
    float *s = (float *)src.get_data_handle();
    for (size_t i = 0; i < n; ++i) s[i] = (float)i - 100.f;
    reorder(src, mid).execute(strm, src, mid);
    reorder::primitive_desc rpd(eng, blocked, eng, plain);
    reorder(rpd).execute(strm, {{DNNL_ARG_FROM, mid}, {DNNL_ARG_TO, back}});
    strm.wait();
    tally.check(std::memcmp(s, back.get_data_handle(), n * sizeof(float)) == 0, "reorder round trip");
    tally.check(rpd.src_desc() == blocked && rpd.dst_desc() == plain, "reorder pd descs");
    tally.check(rpd.get_src_engine() == eng && rpd.get_dst_engine() == eng, "reorder pd engines");

    // Quantizing reorder with a src scale.
    {
        memory::desc q(dims, dt::s8, tag::nhwc);
        primitive_attr attr;
        attr.set_scales_mask(DNNL_ARG_SRC, 0);
        memory dst(q, eng);
        float scale = 0.5f;
        memory sm({{1}, dt::f32, tag::x}, eng, &scale);
        reorder(src, dst, attr).execute(strm, {{DNNL_ARG_FROM, src}, {DNNL_ARG_TO, dst},
                {DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, sm}});
        const int8_t *d = (const int8_t *)dst.get_data_handle();
        // element (0, 1, 0, 0): nchw index 9, nhwc index 1; 0.5 * (9 - 100)
        // = -45.5 rounds to even -46.
        tally.check(d[1] == -46, "quantizing reorder");
    }

    // Sum of two sources, dst layout from src 0.
    {
        sum::primitive_desc spd(eng, {2.f, -1.f}, {plain, plain});
        tally.check(spd.dst_desc() == plain, "sum dst = src 0 layout");
        memory dst(spd.dst_desc(), eng);
        sum(spd).execute(strm, {{DNNL_ARG_MULTIPLE_SRC, src}, {DNNL_ARG_MULTIPLE_SRC + 1, back},
                {DNNL_ARG_DST, dst}});
        tally.check(std::memcmp(s, dst.get_data_handle(), n * sizeof(float)) == 0, "sum 2a - a = a");
    }

    // Concat along channels.
    {
        concat::primitive_desc cpd(eng, 1, {plain, plain});
        tally.check(cpd.dst_desc().get_dims()[1] == 34, "concat dst dims");
        memory dst(cpd.dst_desc(), eng);
        concat(cpd).execute(strm, {{DNNL_ARG_MULTIPLE_SRC, src}, {DNNL_ARG_MULTIPLE_SRC + 1, back},
                {DNNL_ARG_DST, dst}});
        const float *d = (const float *)dst.get_data_handle();
        // image 1, channel 17 (first channel of the second source) = src (1, 0).
        tally.check(d[(34 + 17) * 9] == s[17 * 9], "concat values");
    }

    // Errors surface as dnnl::error with the C status.
    bool threw = false;
    try {
        memory::desc other({2, 17, 3, 4}, dt::f32, tag::nchw);
        reorder::primitive_desc bad(eng, plain, eng, other);
    } catch (const error &e) {
        threw = e.status == dnnl_invalid_arguments;
    }
    tally.check(threw, "reorder dims mismatch throws invalid_arguments");
    threw = false;
    try {
        concat::primitive_desc bad(eng, 5, {plain, plain});
    } catch (const error &e) {
        threw = e.status == dnnl_invalid_arguments;
    }
    tally.check(threw, "concat bad axis throws invalid_arguments");
    return tally.finish();
}
