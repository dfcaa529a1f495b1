/* Kestrel: compile test of the C++ API (dnnl.hpp).
 *
 * Every class, constructor overload and method of the header is used at
 * least once below, in the way oneDNN programs use them, so building this
 * file proves that the header compiles and that the overloads resolve.
 * The code is only run when the program is given 100+ arguments (it needs
 * a working library and real data); a normal run just reports success.
 * Enumeration values are also checked at compile time against the C API. */

#include <cstdio>
#include <string>
#include <unordered_map>
#include <vector>

#include "dnnl.hpp"

using namespace dnnl;
using tag = memory::format_tag;
using dt = memory::data_type;

/* ------------------------------------------------ compile-time checks */

#define KT_SAME(cpp, c) static_assert((int)(cpp) == (int)(c), #cpp)

KT_SAME(engine::kind::cpu, dnnl_cpu);
KT_SAME(stream::flags::default_flags, dnnl_stream_default_flags);
KT_SAME(fpmath_mode::tf32, dnnl_fpmath_mode_tf32);
KT_SAME(accumulation_mode::f16, dnnl_accumulation_mode_f16);
KT_SAME(primitive::kind::group_normalization, dnnl_group_normalization);
KT_SAME(scratchpad_mode::user, dnnl_scratchpad_mode_user);
KT_SAME(rounding_mode::stochastic, dnnl_rounding_mode_stochastic);
KT_SAME(prop_kind::forward, dnnl_forward_training);
KT_SAME(prop_kind::backward_bias, dnnl_backward_bias);
KT_SAME(algorithm::eltwise_clip_v2_use_dst_for_bwd,
        dnnl_eltwise_clip_v2_use_dst_for_bwd);
KT_SAME(algorithm::binary_select, dnnl_binary_select);
KT_SAME(algorithm::lbr_augru, dnnl_lbr_augru);
KT_SAME(algorithm::softmax_log, dnnl_softmax_log);
KT_SAME(normalization_flags::rms_norm, dnnl_rms_norm);
KT_SAME(rnn_flags::diff_weights_overwrite,
        dnnl_rnn_flags_diff_weights_overwrite);
KT_SAME(rnn_direction::bidirectional_sum, dnnl_bidirectional_sum);
KT_SAME(query::num_handles_s32, dnnl_query_num_handles_s32);
KT_SAME(query::exec_arg_md, dnnl_query_exec_arg_md);
KT_SAME(dt::f4_e3m0, dnnl_f4_e3m0);
KT_SAME(dt::u4, dnnl_u4);
KT_SAME(memory::format_kind::opaque, dnnl_format_kind_opaque);
KT_SAME(memory::sparse_encoding::coo, dnnl_coo);
KT_SAME(status::not_required, dnnl_not_required);
KT_SAME(cpu_isa::avx10_2_512_amx_2, dnnl_cpu_isa_avx10_2_512_amx_2);
KT_SAME(cpu_isa_hints::prefer_ymm, dnnl_cpu_isa_prefer_ymm);

/* Every format tag, domain-specific aliases included (generated list). */
#define KT_TAG(name) KT_SAME(tag::name, dnnl_##name);
KT_TAG(a) KT_TAG(ab) KT_TAG(ba) KT_TAG(abc) KT_TAG(acb) KT_TAG(bac) KT_TAG(bca)
KT_TAG(cba) KT_TAG(abcd) KT_TAG(abdc) KT_TAG(acbd) KT_TAG(acdb) KT_TAG(adbc)
KT_TAG(bacd) KT_TAG(bcda) KT_TAG(cdba) KT_TAG(dcab) KT_TAG(abcde) KT_TAG(abdec)
KT_TAG(acbde) KT_TAG(acdeb) KT_TAG(bacde) KT_TAG(bcdea) KT_TAG(cdeba)
KT_TAG(decab) KT_TAG(abced) KT_TAG(abcdef) KT_TAG(abdfce) KT_TAG(acbdef)
KT_TAG(abdefc) KT_TAG(defcab) KT_TAG(abcdfe) KT_TAG(abcdefg) KT_TAG(abcdegf)
KT_TAG(abcdefgh) KT_TAG(abcdefhg) KT_TAG(abcdefghi) KT_TAG(abcdefgih)
KT_TAG(abcdefghij) KT_TAG(abcdefghji) KT_TAG(abcdefghijk) KT_TAG(abcdefghikj)
KT_TAG(abcdefghijkl) KT_TAG(abcdefghijlk) KT_TAG(AB16b16a) KT_TAG(AB16b32a)
KT_TAG(AB16b48a) KT_TAG(AB16b64a) KT_TAG(AB8b16a2b) KT_TAG(AB8b32a2b)
KT_TAG(AB8b64a2b) KT_TAG(AB4b16a4b) KT_TAG(AB4b32a4b) KT_TAG(AB4b64a4b)
KT_TAG(AB16b16a4b) KT_TAG(AB16b32a4b) KT_TAG(AB16b48a4b) KT_TAG(AB16b64a4b)
KT_TAG(AB16b16a2b) KT_TAG(AB16b32a2b) KT_TAG(AB16b48a2b) KT_TAG(AB16b64a2b)
KT_TAG(Ab4a) KT_TAG(Ab8a) KT_TAG(Ab32a) KT_TAG(Abc16a) KT_TAG(ABc16a16b)
KT_TAG(ABc4a4b) KT_TAG(aBc16b) KT_TAG(aBc32b) KT_TAG(ABc16b16a)
KT_TAG(AcB16b16a) KT_TAG(ABc16b32a) KT_TAG(AcB16b32a) KT_TAG(ABc16b48a)
KT_TAG(AcB16b48a) KT_TAG(ABc16b64a) KT_TAG(AcB16b64a) KT_TAG(Abc4a)
KT_TAG(aBc4b) KT_TAG(ABc4b16a4b) KT_TAG(AcB4b16a4b) KT_TAG(ABc4b32a4b)
KT_TAG(AcB4b32a4b) KT_TAG(ABc4b64a4b) KT_TAG(AcB4b64a4b) KT_TAG(ABc2b8a4b)
KT_TAG(ABc16a16b2a) KT_TAG(ABc16b16a4b) KT_TAG(ABc16b32a4b) KT_TAG(ABc16b48a4b)
KT_TAG(ABc16b64a4b) KT_TAG(ABc16b16a2b) KT_TAG(ABc16b32a2b) KT_TAG(ABc16b48a2b)
KT_TAG(ABc16b64a2b) KT_TAG(ABc4b4a) KT_TAG(ABc8a16b2a) KT_TAG(ABc8a8b)
KT_TAG(ABc8a4b) KT_TAG(aBc8b) KT_TAG(ABc8b16a2b) KT_TAG(AcB8b16a2b)
KT_TAG(ABc8b32a2b) KT_TAG(AcB8b32a2b) KT_TAG(ABc8b64a2b) KT_TAG(AcB8b64a2b)
KT_TAG(ABc8b8a) KT_TAG(AcB8b8a) KT_TAG(Abcd8a) KT_TAG(Abcd16a) KT_TAG(Abcd32a)
KT_TAG(ABcd16a16b) KT_TAG(aBcd16b) KT_TAG(aBcd32b) KT_TAG(ABcd16b16a)
KT_TAG(AcdB16b16a) KT_TAG(ABcd16b32a) KT_TAG(AcdB16b32a) KT_TAG(ABcd16b48a)
KT_TAG(AcdB16b48a) KT_TAG(ABcd16b64a) KT_TAG(AcdB16b64a) KT_TAG(aBCd16b16c)
KT_TAG(aBCd16c16b) KT_TAG(Abcd4a) KT_TAG(aBcd4b) KT_TAG(ABcd4b16a4b)
KT_TAG(AcdB4b16a4b) KT_TAG(ABcd4b32a4b) KT_TAG(AcdB4b32a4b) KT_TAG(ABcd4b64a4b)
KT_TAG(AcdB4b64a4b) KT_TAG(ABcd2b8a4b) KT_TAG(ABcd4b4a) KT_TAG(ABcd4a4b)
KT_TAG(aBCd4c16b4c) KT_TAG(aBCd2c8b4c) KT_TAG(ABcd16a16b2a)
KT_TAG(ABcd16b16a4b) KT_TAG(ABcd16b32a4b) KT_TAG(ABcd16b48a4b)
KT_TAG(ABcd16b64a4b) KT_TAG(ABcd16b16a2b) KT_TAG(ABcd16b32a2b)
KT_TAG(ABcd16b48a2b) KT_TAG(ABcd16b64a2b) KT_TAG(aBCd16b16c2b)
KT_TAG(aBCd16c16b4c) KT_TAG(aBCd16c16b2c) KT_TAG(aBCd4c4b) KT_TAG(aBCd4b4c)
KT_TAG(ABcd8a16b2a) KT_TAG(ABcd8a8b) KT_TAG(ABcd8a4b) KT_TAG(ABcd8a2b)
KT_TAG(aBcd8b) KT_TAG(ABcd8b16a2b) KT_TAG(AcdB8b16a2b) KT_TAG(ABcd8b32a2b)
KT_TAG(AcdB8b32a2b) KT_TAG(ABcd8b64a2b) KT_TAG(AcdB8b64a2b) KT_TAG(aBCd8b16c2b)
KT_TAG(ABcd8b8a) KT_TAG(AcdB8b8a) KT_TAG(aBCd8b8c) KT_TAG(aBCd8b4c)
KT_TAG(aBCd8c16b2c) KT_TAG(aBCd8c8b) KT_TAG(Abcde16a) KT_TAG(Abcde32a)
KT_TAG(ABcde16a16b) KT_TAG(aBcde16b) KT_TAG(aBcde32b) KT_TAG(ABcde16b16a)
KT_TAG(AcdeB16b16a) KT_TAG(ABcde16b32a) KT_TAG(AcdeB16b32a) KT_TAG(ABcde16b48a)
KT_TAG(AcdeB16b48a) KT_TAG(ABcde16b64a) KT_TAG(AcdeB16b64a) KT_TAG(aBCde16b16c)
KT_TAG(aBCde16c16b) KT_TAG(aBCde2c8b4c) KT_TAG(Abcde4a) KT_TAG(aBcde4b)
KT_TAG(ABcde4b4a) KT_TAG(ABcde4a4b) KT_TAG(aBCde4b4c) KT_TAG(aBCde4c16b4c)
KT_TAG(aBCde16b16c2b) KT_TAG(aBCde16c16b4c) KT_TAG(aBCde16c16b2c)
KT_TAG(aBCdef16c16b2c) KT_TAG(aBCde4c4b) KT_TAG(Abcde8a) KT_TAG(ABcde8a8b)
KT_TAG(ABcde8a4b) KT_TAG(aBcde8b) KT_TAG(ABcde8b16a2b) KT_TAG(AcdeB8b16a2b)
KT_TAG(ABcde8b32a2b) KT_TAG(AcdeB8b32a2b) KT_TAG(ABcde8b64a2b)
KT_TAG(AcdeB8b64a2b) KT_TAG(ABcde4b16a4b) KT_TAG(AcdeB4b16a4b)
KT_TAG(ABcde4b32a4b) KT_TAG(AcdeB4b32a4b) KT_TAG(ABcde4b64a4b)
KT_TAG(AcdeB4b64a4b) KT_TAG(ABcde16b16a4b) KT_TAG(ABcde16b32a4b)
KT_TAG(ABcde16b48a4b) KT_TAG(ABcde16b64a4b) KT_TAG(ABcde16b16a2b)
KT_TAG(ABcde16b32a2b) KT_TAG(ABcde16b48a2b) KT_TAG(ABcde16b64a2b)
KT_TAG(ABcde2b8a4b) KT_TAG(aBCde8b16c2b) KT_TAG(ABcde8b8a) KT_TAG(AcdeB8b8a)
KT_TAG(aBCde8b8c) KT_TAG(aBCde8b4c) KT_TAG(ABcd4a8b8a4b) KT_TAG(ABcd2a8b8a2b)
KT_TAG(aBCde4b8c8b4c) KT_TAG(aBCde2b8c8b2c) KT_TAG(aBCde8c16b2c)
KT_TAG(aBCde8c8b) KT_TAG(aBcdef16b) KT_TAG(aBCdef16b16c) KT_TAG(aBCdef16c16b)
KT_TAG(aBcdef4b) KT_TAG(aBCdef2c8b4c) KT_TAG(aBCdef4c4b) KT_TAG(aBCdef4b4c)
KT_TAG(aBCdef8b8c) KT_TAG(aBCdef8b4c) KT_TAG(aBCdef8c16b2c)
KT_TAG(aBCdef4c16b4c) KT_TAG(aBCdef8c8b) KT_TAG(aBdc16b) KT_TAG(aBdc4b)
KT_TAG(aBdc8b) KT_TAG(aBdC8b2c) KT_TAG(aBdC8b4c) KT_TAG(aBdec16b)
KT_TAG(aBdec4b) KT_TAG(aBdec8b) KT_TAG(aBdeC8b2c) KT_TAG(aBdeC8b4c)
KT_TAG(aBdefc16b) KT_TAG(aCBdef16c16b) KT_TAG(aCBdef8b8c) KT_TAG(aCBdef16b16c)
KT_TAG(aBdefc4b) KT_TAG(aBdefc8b) KT_TAG(aBdefC8b2c) KT_TAG(aBdefC8b4c)
KT_TAG(Acb16a) KT_TAG(Acb4a) KT_TAG(Acb8a) KT_TAG(AcB8a2b) KT_TAG(AcB8a4b)
KT_TAG(aCBd8b8c) KT_TAG(aCBd16b16c) KT_TAG(aCBd16c16b) KT_TAG(aCBde8b8c)
KT_TAG(aCBde16b16c) KT_TAG(aCBde16c16b) KT_TAG(Acdb16a) KT_TAG(Acdb4a)
KT_TAG(Acdb8a) KT_TAG(AcdB8a2b) KT_TAG(AcdB8a4b) KT_TAG(Acdeb16a)
KT_TAG(Acdeb4a) KT_TAG(Acdeb8a) KT_TAG(AcdeB8a2b) KT_TAG(AcdeB8a4b)
KT_TAG(BAc8a8b) KT_TAG(BAc16a16b) KT_TAG(BAc16b16a) KT_TAG(BAcd8a8b)
KT_TAG(BAcd16a16b) KT_TAG(BAcd16b16a) KT_TAG(ABcd32a32b) KT_TAG(BAcde16b16a)
KT_TAG(BAcde8a8b) KT_TAG(BAcde16a16b) KT_TAG(aBdec32b) KT_TAG(Abcdef16a)
KT_TAG(Abcdef32a) KT_TAG(Acdb32a) KT_TAG(aBCd2b4c2b) KT_TAG(aBCde2b4c2b)
KT_TAG(aBCdef2b4c2b) KT_TAG(aBCd2c4b2c) KT_TAG(aBCde2c4b2c)
KT_TAG(aBCdef2c4b2c) KT_TAG(aBCd4b8c2b) KT_TAG(aBCde4b8c2b)
KT_TAG(aBCdef4b8c2b) KT_TAG(aBCd4c8b2c) KT_TAG(aBCde4c8b2c)
KT_TAG(aBCdef4c8b2c) KT_TAG(AB32a32b8a4b) KT_TAG(AB32a32b8a2b) KT_TAG(AB8a4b)
KT_TAG(AB8a2b) KT_TAG(abDc16d) KT_TAG(abDc32d) KT_TAG(abDC16d4c)
KT_TAG(abDC32d4c) KT_TAG(abCd32c) KT_TAG(abdEc16e) KT_TAG(abdEc32e)
KT_TAG(abdEC16e4c) KT_TAG(abdEC32e2c) KT_TAG(abdEC32e4c) KT_TAG(abdCe16c)
KT_TAG(abdCe32c) KT_TAG(abdCE32c2e) KT_TAG(aBCdef16c16b4c) KT_TAG(aBdC16b4c)
KT_TAG(aBdeC16b4c) KT_TAG(AcB16a4b) KT_TAG(AcdB16a2b) KT_TAG(aBdefC16b4c)
KT_TAG(AcdeB16a4b) KT_TAG(Acb32a) KT_TAG(AcB32a2b) KT_TAG(AcB32a4b)
KT_TAG(Acb48a) KT_TAG(AcB48a2b) KT_TAG(AcB48a4b) KT_TAG(Acb64a)
KT_TAG(AcB64a2b) KT_TAG(AcB64a4b) KT_TAG(cBa2b) KT_TAG(cBa4b) KT_TAG(aBdc32b)
KT_TAG(aBdC32b2c) KT_TAG(aBdC32b4c) KT_TAG(aBdc48b) KT_TAG(aBdC48b2c)
KT_TAG(aBdC48b4c) KT_TAG(aBdc64b) KT_TAG(aBdC64b2c) KT_TAG(aBdC64b4c)
KT_TAG(adcb) KT_TAG(adCb2c) KT_TAG(adCb4c) KT_TAG(AcdB32a2b) KT_TAG(AcdB32a4b)
KT_TAG(Acdb48a) KT_TAG(AcdB48a2b) KT_TAG(AcdB48a4b) KT_TAG(Acdb64a)
KT_TAG(AcdB64a2b) KT_TAG(AcdB64a4b) KT_TAG(cdBa2b) KT_TAG(cdBa4b)
KT_TAG(aBdeC32b2c) KT_TAG(aBdeC32b4c) KT_TAG(aBdec48b) KT_TAG(aBdeC48b2c)
KT_TAG(aBdeC48b4c) KT_TAG(aBdec64b) KT_TAG(aBdeC64b2c) KT_TAG(aBdeC64b4c)
KT_TAG(adecb) KT_TAG(adeCb2c) KT_TAG(adeCb4c) KT_TAG(Acdeb32a)
KT_TAG(AcdeB32a2b) KT_TAG(AcdeB32a4b) KT_TAG(Acdeb48a) KT_TAG(AcdeB48a2b)
KT_TAG(AcdeB48a4b) KT_TAG(Acdeb64a) KT_TAG(AcdeB64a2b) KT_TAG(AcdeB64a4b)
KT_TAG(cdeBa2b) KT_TAG(cdeBa4b) KT_TAG(aBdefc32b) KT_TAG(aBdefC32b2c)
KT_TAG(aBdefC32b4c) KT_TAG(aBdefc48b) KT_TAG(aBdefC48b2c) KT_TAG(aBdefC48b4c)
KT_TAG(aBdefc64b) KT_TAG(aBdefC64b2c) KT_TAG(aBdefC64b4c) KT_TAG(adefcb)
KT_TAG(adefCb2c) KT_TAG(adefCb4c) KT_TAG(ABc32a32b) KT_TAG(BAc8a16b2a)
KT_TAG(BAcd8a16b2a) KT_TAG(ABcde8a16b2a) KT_TAG(aCBd8b16c2b)
KT_TAG(BAcde8a16b2a) KT_TAG(aCBde8b16c2b) KT_TAG(ABcde32a32b)
KT_TAG(ABc4a8b8a4b) KT_TAG(ABcde4a8b8a4b) KT_TAG(BAc4b8a8b4a)
KT_TAG(BAcd4b8a8b4a) KT_TAG(BAcde4b8a8b4a) KT_TAG(aBCd4b8c8b4c)
KT_TAG(aBCdef4b8c8b4c) KT_TAG(aBCdef8b16c2b) KT_TAG(aCBdef8b16c2b)
KT_TAG(aBdC16b2c) KT_TAG(aBdeC16b2c) KT_TAG(aBdefC16b2c) KT_TAG(aBedc16b)
KT_TAG(AcB16a2b) KT_TAG(AcdB16a4b) KT_TAG(AcdeB16a2b) KT_TAG(Adcb16a)
KT_TAG(aCBd4c8b8c4b) KT_TAG(aCBde4c8b8c4b) KT_TAG(aCBdef4c8b8c4b)
KT_TAG(ABc32a16b) KT_TAG(ABcd16a32b) KT_TAG(ABcd32a16b) KT_TAG(ABcde32a16b)
KT_TAG(AB48a16b) KT_TAG(AB48a32b) KT_TAG(ABc40a16b) KT_TAG(ABc40a32b)
KT_TAG(aBC48b16c) KT_TAG(aBC48b32c) KT_TAG(ABcd40a16b) KT_TAG(ABcd40a32b)
KT_TAG(BA16a16b) KT_TAG(BA16a32b) KT_TAG(BA16a48b) KT_TAG(BA16a64b)
KT_TAG(BA16a16b2a) KT_TAG(BA16a32b2a) KT_TAG(BA16a48b2a) KT_TAG(BA16a64b2a)
KT_TAG(BA16a16b4a) KT_TAG(BA16a32b4a) KT_TAG(BA16a48b4a) KT_TAG(BA16a64b4a)
KT_TAG(decbA16a) KT_TAG(decbA8a) KT_TAG(defcbA16a) KT_TAG(defcbA8a)
KT_TAG(aCB16b16c) KT_TAG(aCB16b32c) KT_TAG(aCB16b48c) KT_TAG(aCB16b64c)
KT_TAG(aCB16b16c2b) KT_TAG(aCB16b32c2b) KT_TAG(aCB16b48c2b) KT_TAG(aCB16b64c2b)
KT_TAG(aCB16b16c4b) KT_TAG(aCB16b32c4b) KT_TAG(aCB16b48c4b) KT_TAG(aCB16b64c4b)
KT_TAG(Acb24a) KT_TAG(Acdb24a) KT_TAG(Acdeb24a) KT_TAG(aBdc24b)
KT_TAG(aBdec24b) KT_TAG(aBdefc24b) KT_TAG(AcB24a2b) KT_TAG(AcdB24a2b)
KT_TAG(AcdeB24a2b) KT_TAG(aBdC24b2c) KT_TAG(aBdeC24b2c) KT_TAG(aBdefC24b2c)
KT_TAG(AcB24a4b) KT_TAG(AcdB24a4b) KT_TAG(AcdeB24a4b) KT_TAG(aBdC24b4c)
KT_TAG(aBdeC24b4c) KT_TAG(aBdefC24b4c) KT_TAG(AB8b32a) KT_TAG(ABc8b32a)
KT_TAG(AcB8b32a) KT_TAG(ABcd8b32a) KT_TAG(AcdB8b32a) KT_TAG(ABcde8b32a)
KT_TAG(AcdeB8b32a) KT_TAG(AB8b24a) KT_TAG(ABc8b24a) KT_TAG(AcB8b24a)
KT_TAG(ABcd8b24a) KT_TAG(AcdB8b24a) KT_TAG(ABcde8b24a) KT_TAG(AcdeB8b24a)
KT_TAG(AB8b16a) KT_TAG(ABc8b16a) KT_TAG(AcB8b16a) KT_TAG(ABcd8b16a)
KT_TAG(AcdB8b16a) KT_TAG(ABcde8b16a) KT_TAG(AcdeB8b16a) KT_TAG(AB8b8a)
KT_TAG(nCdhw16c) KT_TAG(nCdhw4c) KT_TAG(nCdhw8c) KT_TAG(nChw16c) KT_TAG(nChw4c)
KT_TAG(nChw8c) KT_TAG(nCw16c) KT_TAG(nCw4c) KT_TAG(nCw8c) KT_TAG(NCw16n16c)
KT_TAG(NChw16n16c) KT_TAG(NCdhw16n16c) KT_TAG(NCdhw32n32c) KT_TAG(NChw32n32c)
KT_TAG(IOhw16i16o) KT_TAG(OI16i16o) KT_TAG(OI16i32o) KT_TAG(OI16i48o)
KT_TAG(OI16i64o) KT_TAG(OI8i16o2i) KT_TAG(OI8i32o2i) KT_TAG(OI8i64o2i)
KT_TAG(OI4i8o4i) KT_TAG(OI4i16o4i) KT_TAG(OI4i24o4i) KT_TAG(OI4i32o4i)
KT_TAG(OI4i64o4i) KT_TAG(Ohwi32o) KT_TAG(IOdhw16i16o) KT_TAG(gIOhw16i16o)
KT_TAG(gOhwi32o) KT_TAG(Goidhw16g) KT_TAG(IOw8o8i) KT_TAG(IOw16o16i)
KT_TAG(OIw16i16o) KT_TAG(OwI16i16o) KT_TAG(OIw16i32o) KT_TAG(OwI16i32o)
KT_TAG(OIw16i48o) KT_TAG(OwI16i48o) KT_TAG(OIw16i64o) KT_TAG(OwI16i64o)
KT_TAG(IOw16i16o) KT_TAG(gIOw16i16o) KT_TAG(OIw16o16i) KT_TAG(Oiw16o)
KT_TAG(OIw4i8o4i) KT_TAG(OwI4i8o4i) KT_TAG(OIw4i16o4i) KT_TAG(OwI4i16o4i)
KT_TAG(OIw4i24o4i) KT_TAG(OwI4i24o4i) KT_TAG(OIw4i32o4i) KT_TAG(OwI4i32o4i)
KT_TAG(OIw4i64o4i) KT_TAG(OwI4i64o4i) KT_TAG(OIw2i8o4i) KT_TAG(OIw4i4o)
KT_TAG(OIw4o4i) KT_TAG(Oiw4o) KT_TAG(OIw8i16o2i) KT_TAG(OwI8i16o2i)
KT_TAG(OIw8i32o2i) KT_TAG(OwI8i32o2i) KT_TAG(OIw8i64o2i) KT_TAG(OwI8i64o2i)
KT_TAG(OIw8i8o) KT_TAG(OwI8i8o) KT_TAG(OIw8o16i2o) KT_TAG(OIw8o8i)
KT_TAG(OIw8o4i) KT_TAG(OIw16i16o4i) KT_TAG(OIw16i32o4i) KT_TAG(OIw16i48o4i)
KT_TAG(OIw16i64o4i) KT_TAG(OIw16i16o2i) KT_TAG(OIw16i32o2i) KT_TAG(OIw16i48o2i)
KT_TAG(OIw16i64o2i) KT_TAG(OIw16o16i2o) KT_TAG(Owi16o) KT_TAG(OwI16o2i)
KT_TAG(Iwo16i) KT_TAG(IwO16i2o) KT_TAG(IwO16i4o) KT_TAG(Owi4o) KT_TAG(Owi8o)
KT_TAG(OwI8o2i) KT_TAG(OwI8o4i) KT_TAG(IOhw8o8i) KT_TAG(IOhw16o16i)
KT_TAG(Ohwi16o) KT_TAG(OhwI16o2i) KT_TAG(Ihwo16i) KT_TAG(IhwO16i2o)
KT_TAG(IhwO16i4o) KT_TAG(Ohwi4o) KT_TAG(Ohwi8o) KT_TAG(OhwI8o2i)
KT_TAG(OhwI8o4i) KT_TAG(OIhw16i16o) KT_TAG(OhwI16i16o) KT_TAG(OIhw16i32o)
KT_TAG(OhwI16i32o) KT_TAG(OIhw16i48o) KT_TAG(OhwI16i48o) KT_TAG(OIhw16i64o)
KT_TAG(OhwI16i64o) KT_TAG(OIhw16o16i) KT_TAG(Oihw16o) KT_TAG(OIhw4i8o4i)
KT_TAG(OhwI4i8o4i) KT_TAG(OIhw4i16o4i) KT_TAG(OhwI4i16o4i) KT_TAG(OIhw4i24o4i)
KT_TAG(OhwI4i24o4i) KT_TAG(OIhw4i32o4i) KT_TAG(OhwI4i32o4i) KT_TAG(OIhw4i64o4i)
KT_TAG(OhwI4i64o4i) KT_TAG(OIhw4i4o) KT_TAG(OIhw4o4i) KT_TAG(Oihw4o)
KT_TAG(OIhw8i16o2i) KT_TAG(OhwI8i16o2i) KT_TAG(OIhw8i32o2i) KT_TAG(OhwI8i32o2i)
KT_TAG(OIhw8i64o2i) KT_TAG(OhwI8i64o2i) KT_TAG(OIhw8i8o) KT_TAG(OhwI8i8o)
KT_TAG(OIhw8o16i2o) KT_TAG(OIhw8o8i) KT_TAG(OIhw8o4i) KT_TAG(OIhw2i8o4i)
KT_TAG(IOdhw8o8i) KT_TAG(IOdhw16o16i) KT_TAG(Odhwi16o) KT_TAG(OdhwI16o2i)
KT_TAG(Idhwo16i) KT_TAG(IdhwO16i2o) KT_TAG(IdhwO16i4o) KT_TAG(Odhwi4o)
KT_TAG(Odhwi8o) KT_TAG(OdhwI8o2i) KT_TAG(OdhwI8o4i) KT_TAG(OIdhw16i16o)
KT_TAG(OdhwI16i16o) KT_TAG(OIdhw16i32o) KT_TAG(OdhwI16i32o) KT_TAG(OIdhw16i48o)
KT_TAG(OdhwI16i48o) KT_TAG(OIdhw16i64o) KT_TAG(OdhwI16i64o) KT_TAG(OIdhw16o16i)
KT_TAG(OIdhw16o16i2o) KT_TAG(Oidhw16o) KT_TAG(OIdhw4i4o) KT_TAG(OIdhw4o4i)
KT_TAG(Oidhw4o) KT_TAG(OIdhw8i16o2i) KT_TAG(OdhwI8i16o2i) KT_TAG(OIdhw8i32o2i)
KT_TAG(OdhwI8i32o2i) KT_TAG(OIdhw8i64o2i) KT_TAG(OdhwI8i64o2i)
KT_TAG(OIdhw4i8o4i) KT_TAG(OdhwI4i8o4i) KT_TAG(OIdhw4i16o4i)
KT_TAG(OdhwI4i16o4i) KT_TAG(OIdhw16i16o4i) KT_TAG(OIdhw16i32o4i)
KT_TAG(OIdhw16i48o4i) KT_TAG(OIdhw16i64o4i) KT_TAG(OIdhw16i16o2i)
KT_TAG(OIdhw16i32o2i) KT_TAG(OIdhw16i48o2i) KT_TAG(OIdhw16i64o2i)
KT_TAG(OIdhw4i24o4i) KT_TAG(OdhwI4i24o4i) KT_TAG(OIdhw4i32o4i)
KT_TAG(OdhwI4i32o4i) KT_TAG(OIdhw4i64o4i) KT_TAG(OdhwI4i64o4i)
KT_TAG(OIdhw2i8o4i) KT_TAG(OIdhw8i8o) KT_TAG(OdhwI8i8o) KT_TAG(OIdhw8o8i)
KT_TAG(OIdhw8o4i) KT_TAG(gIOw8o8i) KT_TAG(gIOw16o16i) KT_TAG(gOIw16i16o)
KT_TAG(gOIw16o16i) KT_TAG(gOiw16o) KT_TAG(gOIw4i16o4i) KT_TAG(gOIw2i8o4i)
KT_TAG(gOIw4i4o) KT_TAG(gOIw4o4i) KT_TAG(gOiw4o) KT_TAG(gOIw8i16o2i)
KT_TAG(gOIw8i8o) KT_TAG(gOIw8o16i2o) KT_TAG(gOIw8o8i) KT_TAG(gOIw8o4i)
KT_TAG(gOIw16i16o4i) KT_TAG(gOIw16i16o2i) KT_TAG(gOIw16o16i2o) KT_TAG(gOwi16o)
KT_TAG(gOwI16o2i) KT_TAG(gIwo16i) KT_TAG(gIwO16i2o) KT_TAG(gIwO16i4o)
KT_TAG(gOwi4o) KT_TAG(gOwi8o) KT_TAG(gOwI8o2i) KT_TAG(gOwI8o4i) KT_TAG(Goiw8g)
KT_TAG(Goiw16g) KT_TAG(gIOhw8o8i) KT_TAG(gIOhw16o16i) KT_TAG(gOhwi16o)
KT_TAG(gOhwI16o2i) KT_TAG(gIhwo16i) KT_TAG(gIhwO16i2o) KT_TAG(gIhwO16i4o)
KT_TAG(gOhwi4o) KT_TAG(gOhwi8o) KT_TAG(gOhwI8o2i) KT_TAG(gOhwI8o4i)
KT_TAG(Goihw16g) KT_TAG(gOIhw16i16o) KT_TAG(gOIhw16o16i) KT_TAG(gOihw16o)
KT_TAG(gOIhw4i16o4i) KT_TAG(gOIhw2i8o4i) KT_TAG(gOIhw4i4o) KT_TAG(gOIhw4o4i)
KT_TAG(gOihw4o) KT_TAG(Goihw8g) KT_TAG(gOIhw8i16o2i) KT_TAG(gOIhw8i8o)
KT_TAG(gOIhw8o16i2o) KT_TAG(OIw4o8i8o4i) KT_TAG(OIdhw4o8i8o4i)
KT_TAG(OIhw4o8i8o4i) KT_TAG(OIhw2o8i8o2i) KT_TAG(gOIw4o8i8o4i)
KT_TAG(gOIdhw4o8i8o4i) KT_TAG(gOIhw4o8i8o4i) KT_TAG(gOIhw2o8i8o2i)
KT_TAG(OIhw16i16o4i) KT_TAG(OIhw16i32o4i) KT_TAG(OIhw16i48o4i)
KT_TAG(OIhw16i64o4i) KT_TAG(OIhw16i16o2i) KT_TAG(OIhw16i32o2i)
KT_TAG(OIhw16i48o2i) KT_TAG(OIhw16i64o2i) KT_TAG(OIhw16o16i2o)
KT_TAG(gOIhw16i16o4i) KT_TAG(gOIhw16i16o2i) KT_TAG(gOIhw16o16i2o)
KT_TAG(gOIhw8o8i) KT_TAG(gOIhw8o4i) KT_TAG(gIOdhw16i16o) KT_TAG(gIOdhw8o8i)
KT_TAG(gIOdhw16o16i) KT_TAG(gOdhwi16o) KT_TAG(gOdhwI16o2i) KT_TAG(gIdhwo16i)
KT_TAG(gIdhwO16i2o) KT_TAG(gIdhwO16i4o) KT_TAG(gOdhwi4o) KT_TAG(gOdhwi8o)
KT_TAG(gOdhwI8o2i) KT_TAG(gOdhwI8o4i) KT_TAG(gOIdhw16i16o) KT_TAG(gOIdhw16o16i)
KT_TAG(gOIdhw16o16i2o) KT_TAG(gOidhw16o) KT_TAG(gOIdhw4i4o) KT_TAG(gOIdhw4o4i)
KT_TAG(gOidhw4o) KT_TAG(gOIdhw8i16o2i) KT_TAG(gOIdhw4i16o4i)
KT_TAG(gOIdhw16i16o4i) KT_TAG(gOIdhw16i16o2i) KT_TAG(gOIdhw2i8o4i)
KT_TAG(gOIdhw8i8o) KT_TAG(gOIdhw8o8i) KT_TAG(gOIdhw8o4i) KT_TAG(gOIw2i4o2i)
KT_TAG(gOIhw2i4o2i) KT_TAG(gOIdhw2i4o2i) KT_TAG(gOIw2o4i2o) KT_TAG(gOIhw2o4i2o)
KT_TAG(gOIdhw2o4i2o) KT_TAG(gOIw4i8o2i) KT_TAG(gOIhw4i8o2i)
KT_TAG(gOIdhw4i8o2i) KT_TAG(gOIw4o8i2o) KT_TAG(gOIhw4o8i2o)
KT_TAG(gOIdhw4o8i2o) KT_TAG(OwI16o4i) KT_TAG(OhwI16o4i) KT_TAG(gOwI16o4i)
KT_TAG(gOhwI16o4i) KT_TAG(OdhwI16o4i) KT_TAG(gOdhwI16o4i) KT_TAG(Owi32o)
KT_TAG(OwI32o2i) KT_TAG(OwI32o4i) KT_TAG(Owi48o) KT_TAG(OwI48o2i)
KT_TAG(OwI48o4i) KT_TAG(Owi64o) KT_TAG(OwI64o2i) KT_TAG(OwI64o4i)
KT_TAG(Iwo32i) KT_TAG(IwO32i2o) KT_TAG(IwO32i4o) KT_TAG(Iwo48i)
KT_TAG(IwO48i2o) KT_TAG(IwO48i4o) KT_TAG(Iwo64i) KT_TAG(IwO64i2o)
KT_TAG(IwO64i4o) KT_TAG(wIo2i) KT_TAG(wIo4i) KT_TAG(gOwi32o) KT_TAG(gOwI32o2i)
KT_TAG(gOwI32o4i) KT_TAG(gOwi48o) KT_TAG(gOwI48o2i) KT_TAG(gOwI48o4i)
KT_TAG(gOwi64o) KT_TAG(gOwI64o2i) KT_TAG(gOwI64o4i) KT_TAG(gIwo32i)
KT_TAG(gIwO32i2o) KT_TAG(gIwO32i4o) KT_TAG(gIwo48i) KT_TAG(gIwO48i2o)
KT_TAG(gIwO48i4o) KT_TAG(gIwo64i) KT_TAG(gIwO64i2o) KT_TAG(gIwO64i4o)
KT_TAG(gwio) KT_TAG(gwIo2i) KT_TAG(gwIo4i) KT_TAG(OhwI32o) KT_TAG(OhwI32o2i)
KT_TAG(OhwI32o4i) KT_TAG(Ohwi48o) KT_TAG(OhwI48o2i) KT_TAG(OhwI48o4i)
KT_TAG(Ohwi64o) KT_TAG(OhwI64o2i) KT_TAG(OhwI64o4i) KT_TAG(Ihwo32i)
KT_TAG(IhwO32i2o) KT_TAG(IhwO32i4o) KT_TAG(Ihwo48i) KT_TAG(IhwO48i2o)
KT_TAG(IhwO48i4o) KT_TAG(Ihwo64i) KT_TAG(IhwO64i2o) KT_TAG(IhwO64i4o)
KT_TAG(hwIo2i) KT_TAG(hwIo4i) KT_TAG(gOhwI32o) KT_TAG(gOhwI32o2i)
KT_TAG(gOhwI32o4i) KT_TAG(gOhwi48o) KT_TAG(gOhwI48o2i) KT_TAG(gOhwI48o4i)
KT_TAG(gOhwi64o) KT_TAG(gOhwI64o2i) KT_TAG(gOhwI64o4i) KT_TAG(gIhwo32i)
KT_TAG(gIhwO32i2o) KT_TAG(gIhwO32i4o) KT_TAG(gIhwo48i) KT_TAG(gIhwO48i2o)
KT_TAG(gIhwO48i4o) KT_TAG(gIhwo64i) KT_TAG(gIhwO64i2o) KT_TAG(gIhwO64i4o)
KT_TAG(ghwio) KT_TAG(ghwIo2i) KT_TAG(ghwIo4i) KT_TAG(Odhwi32o)
KT_TAG(OdhwI32o2i) KT_TAG(OdhwI32o4i) KT_TAG(Odhwi48o) KT_TAG(OdhwI48o2i)
KT_TAG(OdhwI48o4i) KT_TAG(Odhwi64o) KT_TAG(OdhwI64o2i) KT_TAG(OdhwI64o4i)
KT_TAG(Idhwo32i) KT_TAG(IdhwO32i2o) KT_TAG(IdhwO32i4o) KT_TAG(Idhwo48i)
KT_TAG(IdhwO48i2o) KT_TAG(IdhwO48i4o) KT_TAG(Idhwo64i) KT_TAG(IdhwO64i2o)
KT_TAG(IdhwO64i4o) KT_TAG(dhwIo2i) KT_TAG(dhwIo4i) KT_TAG(gOdhwi32o)
KT_TAG(gOdhwI32o2i) KT_TAG(gOdhwI32o4i) KT_TAG(gOdhwi48o) KT_TAG(gOdhwI48o2i)
KT_TAG(gOdhwI48o4i) KT_TAG(gOdhwi64o) KT_TAG(gOdhwI64o2i) KT_TAG(gOdhwI64o4i)
KT_TAG(gIdhwo32i) KT_TAG(gIdhwO32i2o) KT_TAG(gIdhwO32i4o) KT_TAG(gIdhwo48i)
KT_TAG(gIdhwO48i2o) KT_TAG(gIdhwO48i4o) KT_TAG(gIdhwo64i) KT_TAG(gIdhwO64i2o)
KT_TAG(gIdhwO64i4o) KT_TAG(gdhwio) KT_TAG(gdhwIo2i) KT_TAG(gdhwIo4i)
KT_TAG(ldIo32i) KT_TAG(ldgIo16i) KT_TAG(ldgIo32i) KT_TAG(ldgIO32i2o)
KT_TAG(nCdhw32c) KT_TAG(nChw32c) KT_TAG(nCw32c) KT_TAG(NCw32n16c)
KT_TAG(NChw32n16c) KT_TAG(NCdhw32n16c) KT_TAG(NCw32n32c) KT_TAG(OI16i16o4i)
KT_TAG(IOw8o16i2o) KT_TAG(IOhw8o16i2o) KT_TAG(Owhi16o) KT_TAG(OIdhw8o16i2o)
KT_TAG(IOdhw8o16i2o) KT_TAG(Goiw4g) KT_TAG(gIOw8o16i2o) KT_TAG(Goiw32g)
KT_TAG(Goihw4g) KT_TAG(gIOhw8o16i2o) KT_TAG(Goihw32g) KT_TAG(gOwhi16o)
KT_TAG(IOw4i8o8i4o) KT_TAG(IOhw4i8o8i4o) KT_TAG(IOdhw4i8o8i4o)
KT_TAG(gIOw4i8o8i4o) KT_TAG(gIOhw4i8o8i4o) KT_TAG(gIOdhw4i8o8i4o)
KT_TAG(gOIdhw8o16i2o) KT_TAG(gIOdhw8o16i2o) KT_TAG(Goidhw32g)
KT_TAG(OI16i32o4i) KT_TAG(OI16i48o4i) KT_TAG(OI16i64o4i) KT_TAG(OI16i16o2i)
KT_TAG(OI16i32o2i) KT_TAG(OI16i48o2i) KT_TAG(OI16i64o2i) KT_TAG(aBdeC16c16b4c)
KT_TAG(AcB16b16a2b) KT_TAG(aBdC16c16b2c) KT_TAG(AcB16b16a4b)
KT_TAG(aBdC16c16b4c) KT_TAG(AcdB16b16a2b) KT_TAG(aBdefC16c16b4c)
KT_TAG(AcdeB16b16a4b) KT_TAG(AcB16b32a2b) KT_TAG(AcB16b32a4b)
KT_TAG(AcB16b48a2b) KT_TAG(AcB16b48a4b) KT_TAG(AcB16b64a2b) KT_TAG(AcB16b64a4b)
KT_TAG(aBdC16c32b2c) KT_TAG(aBdC16c32b4c) KT_TAG(aBdC16c48b2c)
KT_TAG(aBdC16c48b4c) KT_TAG(aBdC16c64b2c) KT_TAG(aBdC16c64b4c)
KT_TAG(AcdB16b32a2b) KT_TAG(AcdB16b32a4b) KT_TAG(AcdB16b48a2b)
KT_TAG(AcdB16b48a4b) KT_TAG(AcdB16b64a2b) KT_TAG(AcdB16b64a4b)
KT_TAG(aBdeC16c32b2c) KT_TAG(aBdeC16c32b4c) KT_TAG(aBdeC16c48b2c)
KT_TAG(aBdeC16c48b4c) KT_TAG(aBdeC16c64b2c) KT_TAG(aBdeC16c64b4c)
KT_TAG(AcdeB16b32a2b) KT_TAG(AcdeB16b32a4b) KT_TAG(AcdeB16b48a2b)
KT_TAG(AcdeB16b48a4b) KT_TAG(AcdeB16b64a2b) KT_TAG(AcdeB16b64a4b)
KT_TAG(aBdefC16c32b2c) KT_TAG(aBdefC16c32b4c) KT_TAG(aBdefC16c48b2c)
KT_TAG(aBdefC16c48b4c) KT_TAG(aBdefC16c64b2c) KT_TAG(aBdefC16c64b4c)
KT_TAG(OwI16i16o2i) KT_TAG(gOwI16i16o2i) KT_TAG(OhwI16i16o2i)
KT_TAG(gOhwI16i16o2i) KT_TAG(OdhwI16i16o2i) KT_TAG(gOdhwI16i16o2i)
KT_TAG(OwI16i16o4i) KT_TAG(gOwI16i16o4i) KT_TAG(OhwI16i16o4i)
KT_TAG(gOhwI16i16o4i) KT_TAG(OdhwI16i16o4i) KT_TAG(gOdhwI16i16o4i)
KT_TAG(OwI16i32o2i) KT_TAG(OwI16i32o4i) KT_TAG(OwI16i48o2i) KT_TAG(OwI16i48o4i)
KT_TAG(OwI16i64o2i) KT_TAG(OwI16i64o4i) KT_TAG(gOwI16i32o2i)
KT_TAG(gOwI16i32o4i) KT_TAG(gOwI16i48o2i) KT_TAG(gOwI16i48o4i)
KT_TAG(gOwI16i64o2i) KT_TAG(gOwI16i64o4i) KT_TAG(OhwI16i32o2i)
KT_TAG(OhwI16i32o4i) KT_TAG(OhwI16i48o2i) KT_TAG(OhwI16i48o4i)
KT_TAG(OhwI16i64o2i) KT_TAG(OhwI16i64o4i) KT_TAG(gOhwI16i32o2i)
KT_TAG(gOhwI16i32o4i) KT_TAG(gOhwI16i48o2i) KT_TAG(gOhwI16i48o4i)
KT_TAG(gOhwI16i64o2i) KT_TAG(gOhwI16i64o4i) KT_TAG(OdhwI16i32o2i)
KT_TAG(OdhwI16i32o4i) KT_TAG(OdhwI16i48o2i) KT_TAG(OdhwI16i48o4i)
KT_TAG(OdhwI16i64o2i) KT_TAG(OdhwI16i64o4i) KT_TAG(IdhwO16o32i2o)
KT_TAG(IdhwO16o32i4o) KT_TAG(IdhwO16o48i2o) KT_TAG(IdhwO16o48i4o)
KT_TAG(IdhwO16o64i2o) KT_TAG(IdhwO16o64i4o) KT_TAG(gOdhwI16i32o2i)
KT_TAG(gOdhwI16i32o4i) KT_TAG(gOdhwI16i48o2i) KT_TAG(gOdhwI16i48o4i)
KT_TAG(gOdhwI16i64o2i) KT_TAG(gOdhwI16i64o4i) KT_TAG(gIdhwO16o32i2o)
KT_TAG(gIdhwO16o32i4o) KT_TAG(gIdhwO16o48i2o) KT_TAG(gIdhwO16o48i4o)
KT_TAG(gIdhwO16o64i2o) KT_TAG(gIdhwO16o64i4o) KT_TAG(IwO16o16i2o)
KT_TAG(IwO16o16i4o) KT_TAG(IhwO16o16i2o) KT_TAG(IhwO16o16i4o)
KT_TAG(IdhwO16o16i2o) KT_TAG(IdhwO16o16i4o) KT_TAG(gIwO16o16i2o)
KT_TAG(gIwO16o16i4o) KT_TAG(gIhwO16o16i2o) KT_TAG(gIhwO16o16i4o)
KT_TAG(gIdhwO16o16i2o) KT_TAG(gIdhwO16o16i4o) KT_TAG(IwO16o32i2o)
KT_TAG(IwO16o32i4o) KT_TAG(IwO16o48i2o) KT_TAG(IwO16o48i4o) KT_TAG(IwO16o64i2o)
KT_TAG(IwO16o64i4o) KT_TAG(gIwO16o32i2o) KT_TAG(gIwO16o32i4o)
KT_TAG(gIwO16o48i2o) KT_TAG(gIwO16o48i4o) KT_TAG(gIwO16o64i2o)
KT_TAG(gIwO16o64i4o) KT_TAG(IhwO16o32i2o) KT_TAG(IhwO16o32i4o)
KT_TAG(IhwO16o48i2o) KT_TAG(IhwO16o48i4o) KT_TAG(IhwO16o64i2o)
KT_TAG(IhwO16o64i4o) KT_TAG(gIhwO16o32i2o) KT_TAG(gIhwO16o32i4o)
KT_TAG(gIhwO16o48i2o) KT_TAG(gIhwO16o48i4o) KT_TAG(gIhwO16o64i2o)
KT_TAG(gIhwO16o64i4o) KT_TAG(aBdeC16c16b2c) KT_TAG(aBdefC16c16b2c)
KT_TAG(AcdB16b16a4b) KT_TAG(AcdeB16b16a2b) KT_TAG(hwioG16g) KT_TAG(hwioG8g)
KT_TAG(dhwioG16g) KT_TAG(dhwioG8g) KT_TAG(ABc4a2b) KT_TAG(ABc8a2b)
KT_TAG(ABcd4a2b) KT_TAG(ABcde4a2b) KT_TAG(ABcde8a2b) KT_TAG(ABcd4a8b8a2b)
KT_TAG(NCdhw40n32c) KT_TAG(NChw40n32c) KT_TAG(NCw40n32c) KT_TAG(OIdhw4o8i8o2i)
KT_TAG(OIhw4o8i8o2i) KT_TAG(OIw4o8i8o2i) KT_TAG(gOIdhw4o8i8o2i)
KT_TAG(gOIhw4o8i8o2i) KT_TAG(gOIw4o8i8o2i) KT_TAG(IOdhw4i8o8i2o)
KT_TAG(IOhw4i8o8i2o) KT_TAG(IOw4i8o8i2o) KT_TAG(gIOdhw4i8o8i2o)
KT_TAG(gIOhw4i8o8i2o) KT_TAG(gIOw4i8o8i2o) KT_TAG(aBCd8b2c) KT_TAG(ABcde40a16b)
KT_TAG(ABcde40a32b) KT_TAG(aBCde8b2c) KT_TAG(ABcde4a8b8a2b) KT_TAG(ABc4a8b8a2b)
KT_TAG(aBCdef4b8c8b2c) KT_TAG(aBCde4b8c8b2c) KT_TAG(aBCd4b8c8b2c)
KT_TAG(BAcde4b8a8b2a) KT_TAG(BAcd4b8a8b2a) KT_TAG(BAc4b8a8b2a)
KT_TAG(aCBdef4c8b8c2b) KT_TAG(aCBde4c8b8c2b) KT_TAG(aCBd4c8b8c2b)
KT_TAG(aBCdef8b2c) KT_TAG(AB32a16b) KT_TAG(AB32a32b) KT_TAG(BA4b8a8b2a)
KT_TAG(BA4b8a8b4a) KT_TAG(aBC32b16c) KT_TAG(aBC32b32c) KT_TAG(aCB4c8b8c2b)
KT_TAG(aCB4c8b8c4b) KT_TAG(ABc2b8a16b4a) KT_TAG(ABcd2b8a16b4a)
KT_TAG(ABcde2b8a16b4a) KT_TAG(ABc2a8b16a4b) KT_TAG(ABc2a8b16a2b)
KT_TAG(ABc2b32a8b) KT_TAG(ABcd2a8b16a4b) KT_TAG(ABcd2a8b16a2b)
KT_TAG(aCBd2c8b16c2b) KT_TAG(ABcd2b32a8b) KT_TAG(aBCd2c8b16c2b)
KT_TAG(ABcde2a8b16a4b) KT_TAG(ABcde2a8b16a2b) KT_TAG(aCBde2c8b16c2b)
KT_TAG(ABcde2b32a8b) KT_TAG(aBC2b8c16b2c) KT_TAG(aBCd2b8c16b2c)
KT_TAG(aBCde2b8c16b2c) KT_TAG(aBCdef2b8c16b2c) KT_TAG(BAcde2b8a16b4a)
KT_TAG(BAcd2b8a16b4a) KT_TAG(BAc2b8a16b4a) KT_TAG(BAcde2b8a16b2a)
KT_TAG(BAcd2b8a16b2a) KT_TAG(BAc2b8a16b2a) KT_TAG(aBCde2c8b16c2b)
KT_TAG(aBCdef2c8b16c2b) KT_TAG(aCBdef2c8b16c2b) KT_TAG(aBCd2b8c16b4c)
KT_TAG(aBCde2b8c16b4c) KT_TAG(NCdhw40n16c) KT_TAG(NCw40n16c) KT_TAG(NChw40n16c)
KT_TAG(NCw2c32n8c) KT_TAG(NChw2c32n8c) KT_TAG(NCdhw2c32n8c)
KT_TAG(OIw2i8o16i4o) KT_TAG(OIhw2i8o16i4o) KT_TAG(OIdhw2i8o16i4o)
KT_TAG(OIw2o8i16o4i) KT_TAG(OIw2o8i16o2i) KT_TAG(IOw2i8o16i4o)
KT_TAG(IOw2i8o16i2o) KT_TAG(OIhw2o8i16o4i) KT_TAG(OIhw2o8i16o2i)
KT_TAG(IOhw2i8o16i4o) KT_TAG(IOhw2i8o16i2o) KT_TAG(OIdhw2o8i16o4i)
KT_TAG(OIdhw2o8i16o2i) KT_TAG(IOdhw2i8o16i4o) KT_TAG(IOdhw2i8o16i2o)
KT_TAG(gOIw2o8i16o2i) KT_TAG(gIOw2i8o16i2o) KT_TAG(gIOhw2i8o16i2o)
KT_TAG(gIOdhw2i8o16i2o) KT_TAG(gOIhw2o8i16o2i) KT_TAG(gOIdhw2o8i16o2i)
KT_TAG(gOIw2o8i16o4i) KT_TAG(gOIhw2o8i16o4i) KT_TAG(BA4b8a16b2a)
KT_TAG(BA4b8a16b4a) KT_TAG(aCB4c8b16c2b) KT_TAG(aCB4c8b16c4b) KT_TAG(aCB16c2b)
KT_TAG(aCB16c4b) KT_TAG(BA16b2a) KT_TAG(BA16b4a) KT_TAG(BA4b4a) KT_TAG(BA8b4a)
KT_TAG(aBC16b16c) KT_TAG(aBC16b32c) KT_TAG(AB16a16b) KT_TAG(AB16a32b)
KT_TAG(ABcde16a16b2a) KT_TAG(aBCdef16b16c2b) KT_TAG(Acedb16a) KT_TAG(aBdfec16b)
KT_TAG(Odwhi16o) KT_TAG(gOdwhi16o) KT_TAG(abdEC64e2c) KT_TAG(abdEC64e4c)
KT_TAG(abCd4c) KT_TAG(abCde4c) KT_TAG(abCdef4c) KT_TAG(abCde32c)
KT_TAG(abCdef32c) KT_TAG(aCdefB16b32c2b) KT_TAG(aCdefB16b32c4b)
KT_TAG(aCdefB16b48c2b) KT_TAG(aCdefB16b48c4b) KT_TAG(aCdefB16b64c2b)
KT_TAG(aCdefB16b64c4b) KT_TAG(BcdeA16a32b2a) KT_TAG(BcdeA16a32b4a)
KT_TAG(BcdeA16a48b2a) KT_TAG(BcdeA16a48b4a) KT_TAG(BcdeA16a64b2a)
KT_TAG(BcdeA16a64b4a) KT_TAG(aCdefb32c) KT_TAG(aCdefB32c2b) KT_TAG(aCdefB32c4b)
KT_TAG(aCdefb48c) KT_TAG(aCdefB48c2b) KT_TAG(aCdefB48c4b) KT_TAG(aCdefb64c)
KT_TAG(aCdefB64c2b) KT_TAG(aCdefB64c4b) KT_TAG(Bcdea32b) KT_TAG(BcdeA32b2a)
KT_TAG(BcdeA32b4a) KT_TAG(Bcdea48b) KT_TAG(BcdeA48b2a) KT_TAG(BcdeA48b4a)
KT_TAG(Bcdea64b) KT_TAG(BcdeA64b2a) KT_TAG(BcdeA64b4a) KT_TAG(Bca32b)
KT_TAG(BcA32b2a) KT_TAG(BcA32b4a) KT_TAG(Bca48b) KT_TAG(BcA48b2a)
KT_TAG(BcA48b4a) KT_TAG(Bca64b) KT_TAG(BcA64b2a) KT_TAG(BcA64b4a)
KT_TAG(aCdb32c) KT_TAG(aCdB32c2b) KT_TAG(aCdB32c4b) KT_TAG(aCdb48c)
KT_TAG(aCdB48c2b) KT_TAG(aCdB48c4b) KT_TAG(aCdb64c) KT_TAG(aCdB64c2b)
KT_TAG(aCdB64c4b) KT_TAG(BcA16a16b2a) KT_TAG(BcA16a16b4a) KT_TAG(BcdA16a16b2a)
KT_TAG(BcdA16a16b4a) KT_TAG(BcdeA16a16b2a) KT_TAG(BcdeA16a16b4a)
KT_TAG(aCdB16b16c2b) KT_TAG(aCdB16b16c4b) KT_TAG(aCdeB16b16c2b)
KT_TAG(aCdeB16b16c4b) KT_TAG(aCdefB16b16c2b) KT_TAG(aCdefB16b16c4b)
KT_TAG(BcA16a32b2a) KT_TAG(BcA16a32b4a) KT_TAG(BcA16a48b2a) KT_TAG(BcA16a48b4a)
KT_TAG(BcA16a64b2a) KT_TAG(BcA16a64b4a) KT_TAG(aCdB16b32c2b)
KT_TAG(aCdB16b32c4b) KT_TAG(aCdB16b48c2b) KT_TAG(aCdB16b48c4b)
KT_TAG(aCdB16b64c2b) KT_TAG(aCdB16b64c4b) KT_TAG(BcdA16a32b2a)
KT_TAG(BcdA16a32b4a) KT_TAG(BcdA16a48b2a) KT_TAG(BcdA16a48b4a)
KT_TAG(BcdA16a64b2a) KT_TAG(BcdA16a64b4a) KT_TAG(aCdeB16b32c2b)
KT_TAG(aCdeB16b32c4b) KT_TAG(aCdeB16b48c2b) KT_TAG(aCdeB16b48c4b)
KT_TAG(aCdeB16b64c2b) KT_TAG(aCdeB16b64c4b) KT_TAG(Bca16b) KT_TAG(BcA16b2a)
KT_TAG(BcA16b4a) KT_TAG(Bcda16b) KT_TAG(BcdA16b2a) KT_TAG(BcdA16b4a)
KT_TAG(Bcdea16b) KT_TAG(BcdeA16b2a) KT_TAG(BcdeA16b4a) KT_TAG(aCdb16c)
KT_TAG(aCdB16c2b) KT_TAG(aCdB16c4b) KT_TAG(aCdeb16c) KT_TAG(aCdeB16c2b)
KT_TAG(aCdeB16c4b) KT_TAG(aCdefb16c) KT_TAG(aCdefB16c2b) KT_TAG(aCdefB16c4b)
KT_TAG(Bcda32b) KT_TAG(BcdA32b2a) KT_TAG(BcdA32b4a) KT_TAG(Bcda48b)
KT_TAG(BcdA48b2a) KT_TAG(BcdA48b4a) KT_TAG(Bcda64b) KT_TAG(BcdA64b2a)
KT_TAG(BcdA64b4a) KT_TAG(aCdeb32c) KT_TAG(aCdeB32c2b) KT_TAG(aCdeB32c4b)
KT_TAG(aCdeb48c) KT_TAG(aCdeB48c2b) KT_TAG(aCdeB48c4b) KT_TAG(aCdeb64c)
KT_TAG(aCdeB64c2b) KT_TAG(aCdeB64c4b) KT_TAG(NChw16n32c) KT_TAG(goIw4i)
KT_TAG(goIw32i) KT_TAG(goIhw4i) KT_TAG(goIhw32i) KT_TAG(goIdhw4i)
KT_TAG(goIdhw32i) KT_TAG(cab) KT_TAG(cdab) KT_TAG(cdeab) KT_TAG(woi)
KT_TAG(hwoi) KT_TAG(dhwoi) KT_TAG(Owi24o) KT_TAG(Ohwi24o) KT_TAG(Odhwi24o)
KT_TAG(gOwi24o) KT_TAG(gOhwi24o) KT_TAG(gOdhwi24o) KT_TAG(OwI24o2i)
KT_TAG(OhwI24o2i) KT_TAG(OdhwI24o2i) KT_TAG(gOwI24o2i) KT_TAG(gOhwI24o2i)
KT_TAG(gOdhwI24o2i) KT_TAG(OwI24o4i) KT_TAG(OhwI24o4i) KT_TAG(OdhwI24o4i)
KT_TAG(gOwI24o4i) KT_TAG(gOhwI24o4i) KT_TAG(gOdhwI24o4i) KT_TAG(OI8i32o)
KT_TAG(OIw8i32o) KT_TAG(OwI8i32o) KT_TAG(OIhw8i32o) KT_TAG(OhwI8i32o)
KT_TAG(OIdhw8i32o) KT_TAG(OdhwI8i32o) KT_TAG(OI8i24o) KT_TAG(OIw8i24o)
KT_TAG(OwI8i24o) KT_TAG(OIhw8i24o) KT_TAG(OhwI8i24o) KT_TAG(OIdhw8i24o)
KT_TAG(OdhwI8i24o) KT_TAG(OI8i16o) KT_TAG(OIw8i16o) KT_TAG(OwI8i16o)
KT_TAG(OIhw8i16o) KT_TAG(OhwI8i16o) KT_TAG(OIdhw8i16o) KT_TAG(OdhwI8i16o)
KT_TAG(OI8i8o) KT_TAG(AB4b8a4b) KT_TAG(AB4b24a4b) KT_TAG(ABc4b8a4b)
KT_TAG(AcB4b8a4b) KT_TAG(ABc4b24a4b) KT_TAG(AcB4b24a4b) KT_TAG(ABcd4b8a4b)
KT_TAG(AcdB4b8a4b) KT_TAG(ABcd4b24a4b) KT_TAG(AcdB4b24a4b) KT_TAG(ABcde4b8a4b)
KT_TAG(AcdeB4b8a4b) KT_TAG(ABcde4b24a4b) KT_TAG(AcdeB4b24a4b) KT_TAG(Bca8b)
KT_TAG(BcA8b2a) KT_TAG(Bcda8b) KT_TAG(BcdA8b2a) KT_TAG(Bcdea8b)
KT_TAG(BcdeA8b2a) KT_TAG(aCdb8c) KT_TAG(aCdB8c2b) KT_TAG(aCdeb8c)
KT_TAG(aCdeB8c2b) KT_TAG(aCdefb8c) KT_TAG(aCdefB8c2b) KT_TAG(Bca24b)
KT_TAG(BcA24b2a) KT_TAG(Bcda24b) KT_TAG(BcdA24b2a) KT_TAG(Bcdea24b)
KT_TAG(BcdeA24b2a) KT_TAG(aCdb24c) KT_TAG(aCdB24c2b) KT_TAG(aCdeb24c)
KT_TAG(aCdeB24c2b) KT_TAG(aCdefb24c) KT_TAG(aCdefB24c2b) KT_TAG(Iwo8i)
KT_TAG(IwO8i2o) KT_TAG(Iwo24i) KT_TAG(IwO24i2o) KT_TAG(Ihwo8i) KT_TAG(IhwO8i2o)
KT_TAG(Ihwo24i) KT_TAG(IhwO24i2o) KT_TAG(Idhwo8i) KT_TAG(IdhwO8i2o)
KT_TAG(Idhwo24i) KT_TAG(IdhwO24i2o) KT_TAG(gIwo8i) KT_TAG(gIwO8i2o)
KT_TAG(gIwo24i) KT_TAG(gIwO24i2o) KT_TAG(gIhwo8i) KT_TAG(gIhwO8i2o)
KT_TAG(gIhwo24i) KT_TAG(gIhwO24i2o) KT_TAG(gIdhwo8i) KT_TAG(gIdhwO8i2o)
KT_TAG(gIdhwo24i) KT_TAG(gIdhwO24i2o) KT_TAG(OhwI24o) KT_TAG(gOhwI24o)
KT_TAG(AB8b24a2b) KT_TAG(ABc8b24a2b) KT_TAG(AcB8b24a2b) KT_TAG(ABcd8b24a2b)
KT_TAG(AcdB8b24a2b) KT_TAG(ABcde8b24a2b) KT_TAG(AcdeB8b24a2b) KT_TAG(AB8b8a2b)
KT_TAG(ABc8b8a2b) KT_TAG(AcB8b8a2b) KT_TAG(ABcd8b8a2b) KT_TAG(AcdB8b8a2b)
KT_TAG(ABcde8b8a2b) KT_TAG(AcdeB8b8a2b) KT_TAG(OI8i8o2i) KT_TAG(OI8i24o2i)
KT_TAG(OIw8i8o2i) KT_TAG(OwI8i8o2i) KT_TAG(OIw8i24o2i) KT_TAG(OwI8i24o2i)
KT_TAG(OIhw8i8o2i) KT_TAG(OhwI8i8o2i) KT_TAG(OIhw8i24o2i) KT_TAG(OhwI8i24o2i)
KT_TAG(OIdhw8i8o2i) KT_TAG(OdhwI8i8o2i) KT_TAG(OIdhw8i24o2i)
KT_TAG(OdhwI8i24o2i) KT_TAG(BcA8b4a) KT_TAG(BcdA8b4a) KT_TAG(BcdeA8b4a)
KT_TAG(aCdB8c4b) KT_TAG(aCdeB8c4b) KT_TAG(aCdefB8c4b) KT_TAG(BcA24b4a)
KT_TAG(BcdA24b4a) KT_TAG(BcdeA24b4a) KT_TAG(aCdB24c4b) KT_TAG(aCdeB24c4b)
KT_TAG(aCdefB24c4b) KT_TAG(ABc16a4b) KT_TAG(ABcd16a4b) KT_TAG(ABcde16a4b)
KT_TAG(IwO8i4o) KT_TAG(IwO24i4o) KT_TAG(IhwO8i4o) KT_TAG(IhwO24i4o)
KT_TAG(IdhwO8i4o) KT_TAG(IdhwO24i4o) KT_TAG(gIwO8i4o) KT_TAG(gIwO24i4o)
KT_TAG(gIhwO8i4o) KT_TAG(gIhwO24i4o) KT_TAG(gIdhwO8i4o) KT_TAG(gIdhwO24i4o)
KT_TAG(BA2a24b) KT_TAG(aCB2b24c) KT_TAG(BA2a8b) KT_TAG(aCB2b8c) KT_TAG(BA8a24b)
KT_TAG(aCB8b24c) KT_TAG(BA8a16b) KT_TAG(aCB8b16c) KT_TAG(BA8a8b)
KT_TAG(aCB8b8c) KT_TAG(bcad) KT_TAG(cabd) KT_TAG(dabc) KT_TAG(BA24b8a)
KT_TAG(aCB24c8b) KT_TAG(abDC24d8c) KT_TAG(decbA4a) KT_TAG(defcbA4a)
KT_TAG(hwioG4g) KT_TAG(dhwioG4g) KT_TAG(x) KT_TAG(nc) KT_TAG(cn) KT_TAG(tn)
KT_TAG(nt) KT_TAG(ncw) KT_TAG(nwc) KT_TAG(nchw) KT_TAG(nhwc) KT_TAG(chwn)
KT_TAG(ncdhw) KT_TAG(ndhwc) KT_TAG(oi) KT_TAG(io) KT_TAG(oiw) KT_TAG(owi)
KT_TAG(wio) KT_TAG(iwo) KT_TAG(oihw) KT_TAG(hwio) KT_TAG(ohwi) KT_TAG(ihwo)
KT_TAG(iohw) KT_TAG(oidhw) KT_TAG(dhwio) KT_TAG(odhwi) KT_TAG(iodhw)
KT_TAG(idhwo) KT_TAG(goiw) KT_TAG(gowi) KT_TAG(wigo) KT_TAG(gohwi)
KT_TAG(goihw) KT_TAG(hwigo) KT_TAG(giohw) KT_TAG(goidhw) KT_TAG(giodhw)
KT_TAG(godhwi) KT_TAG(dhwigo) KT_TAG(tnc) KT_TAG(ntc) KT_TAG(ldnc)
KT_TAG(ldigo) KT_TAG(ldgoi) KT_TAG(ldio) KT_TAG(ldoi) KT_TAG(ldgo)
KT_TAG(ldOi16o) KT_TAG(ldOi32o) KT_TAG(ldOI16o4i) KT_TAG(ldOI32o4i)
KT_TAG(ldgOi16o) KT_TAG(ldgOI16o4i) KT_TAG(ldgOi32o) KT_TAG(ldgOI32o2i)
KT_TAG(ldgOI32o4i) KT_TAG(ldgOI64o2i) KT_TAG(ldgOI64o4i)
#undef KT_TAG

static_assert(tag::nchw == tag::abcd && tag::x == tag::a, "aliases");

/* ------------------------------------------------------ API usage */

namespace {

memory::dims conv_shape(memory::dim n, memory::dim c, memory::dim h,
        memory::dim w) {
    return {n, c, h, w};
}

void use_error(const error &e) {
    dnnl_status_t st = e.status;
    std::string msg = e.message;
    const char *w = e.what();
    (void)st;
    (void)msg;
    (void)w;
    error::wrap_c_api(dnnl_success, "never thrown");
    try {
        throw error(dnnl_invalid_arguments, "test");
    } catch (dnnl::error &caught) {
        (void)caught.status;
    } catch (std::exception &) {}
}

void use_engine_stream(engine &eng) {
    size_t n = engine::get_count(engine::kind::cpu);
    engine e2(engine::kind::cpu, 0);
    engine empty;
    bool has = (bool)eng && !empty;
    engine::kind k = eng.get_kind();
    dnnl_engine_t raw = eng.get();
    dnnl_engine_t raw2 = (dnnl_engine_t)eng;
    engine weak(raw, true);
    weak.reset(raw2, true);
    bool same = (weak == eng) && !(weak != eng);
    dnnl_engine_kind_t ck = convert_to_c(k);

    stream s(eng);
    stream s2(eng, stream::flags::in_order | stream::flags::out_of_order);
    stream::flags f = stream::flags::default_flags;
    f |= stream::flags::in_order;
    f &= ~stream::flags::out_of_order;
    f ^= stream::flags::in_order;
    engine se = s.get_engine();
    s.wait().wait();

    dnnl_fpmath_mode_t fm = convert_to_c(fpmath_mode::bf16);
    dnnl_accumulation_mode_t am = convert_to_c(accumulation_mode::relaxed);
    (void)n; (void)has; (void)same; (void)ck; (void)f; (void)se; (void)fm;
    (void)am; (void)s2;
}

void use_memory(const engine &eng, const stream &s) {
    memory::dims d = conv_shape(2, 3, 4, 5);
    memory::dim total = d[0] * d[1];
    memory::validate_dims(d);
    memory::validate_dims(d, 4);
    size_t sz = memory::data_type_size(dt::bf16);

    memory::desc zero;
    memory::desc md(d, dt::f32, tag::nchw);
    memory::desc md_any({2, 3, 4, 5}, dt::f32, tag::any);
    memory::desc md_empty(d, dt::f32, tag::nchw, true);
    memory::desc md_strided(d, dt::f32, memory::dims {60, 20, 5, 1});
    memory::desc md_strided2({2, 3}, dt::f32, {3, 1}, false);
    memory::desc md_scalar({1}, dt::f32, tag::x);
    memory::desc csr = memory::desc::csr({8, 8}, dt::f32, 10, dt::s32, dt::s32);
    memory::desc coo = memory::desc::coo({8, 8}, dt::f32, 10, dt::s32, true);
    memory::desc packed = memory::desc::packed({8, 8}, dt::s8, 10);
    std::vector<uint8_t> blob = md.get_blob();
    memory::desc from_blob(blob);
    dnnl_memory_desc_t c_md = nullptr;
    dnnl_memory_desc_clone(&c_md, md.get());
    memory::desc from_c(c_md);

    memory::desc sub = md.submemory_desc({1, 3, 4, 5}, {1, 0, 0, 0});
    memory::desc sub2 = md.submemory_desc({1, 3, 4, 5}, {1, 0, 0, 0}, true);
    memory::desc reshaped = md.reshape({6, 20});
    memory::desc permuted = md.permute_axes({0, 1, 3, 2}, true);

    int nd = md.get_ndims();
    memory::dims dims = md.get_dims();
    memory::dims pdims = md.get_padded_dims();
    memory::dims poffs = md.get_padded_offsets();
    memory::dim off = sub.get_submemory_offset();
    memory::dims strides = md.get_strides();
    int nblks = md.get_inner_nblks();
    memory::dims blks = md.get_inner_blks();
    memory::dims idxs = md.get_inner_idxs();
    int nh = csr.get_num_handles();
    memory::dim nnz = csr.get_nnz();
    memory::sparse_encoding enc = coo.get_sparse_encoding();
    memory::data_type t = md.get_data_type();
    memory::data_type t1 = csr.get_data_type(1);
    memory::format_kind fk = md.get_format_kind();
    size_t bytes = md.get_size();
    size_t bytes1 = csr.get_size(1);
    bool z = zero.is_zero();
    bool eq = (md == from_blob) && (md != md_any);
    bool ceq = (dnnl_f32 == t) && (t != dnnl_s8) && (t == dnnl_f32)
            && (dnnl_s8 != t);
    bool teq = (dnnl_nchw == tag::nchw) && (tag::nchw != dnnl_nhwc)
            && (tag::nchw == dnnl_nchw) && (dnnl_nhwc != tag::nchw);
    dnnl_data_type_t cdt = memory::convert_to_c(dt::f16);
    dnnl_format_tag_t ctag = memory::convert_to_c(tag::nChw16c);

    std::vector<float> buf(120);
    memory m0;
    memory m1(md, eng);
    memory m2(md, eng, buf.data());
    memory m3(md, eng, DNNL_MEMORY_NONE);
    memory m4(csr, eng, {buf.data(), buf.data(), buf.data()});
    memory m5(md, eng, std::vector<void *> {buf.data()});
    memory m6 = memory(md_scalar, eng);
    memory::desc got = m1.get_desc();
    engine me = m1.get_engine();
    void *h = m1.get_data_handle();
    void *h1 = m4.get_data_handle(1);
    m1.set_data_handle(buf.data());
    m4.set_data_handle(buf.data(), 2);
    float *p = m1.map_data<float>();
    m1.unmap_data(p);
    void *pv = m1.map_data();
    m1.unmap_data(pv, 0);
    uint8_t *p1 = m4.map_data<uint8_t>(1);
    m4.unmap_data(p1, 1);

    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, m1},
            {DNNL_ARG_DST, m2}};
    args.insert({DNNL_ARG_ATTR_SCALES | DNNL_ARG_SRC, m6});
    reorder(m1, m2).execute(s, args);

    (void)total; (void)sz; (void)md_empty; (void)md_strided;
    (void)md_strided2; (void)packed; (void)from_c; (void)sub2;
    (void)reshaped; (void)permuted; (void)nd; (void)dims; (void)pdims;
    (void)poffs; (void)off; (void)strides; (void)nblks; (void)blks;
    (void)idxs; (void)nh; (void)nnz; (void)enc; (void)t1; (void)fk;
    (void)bytes; (void)bytes1; (void)z; (void)eq; (void)ceq; (void)teq;
    (void)cdt; (void)ctag; (void)m0; (void)m3; (void)m5; (void)got; (void)me;
    (void)h; (void)h1;
}

void use_attr() {
    post_ops po;
    po.append_sum();
    po.append_sum(0.5f);
    po.append_sum(0.5f, 1, dt::s8);
    po.append_eltwise(algorithm::eltwise_relu, 0.f, 0.f);
    po.append_dw(dt::s8, dt::f32, dt::u8, 3, 1, 1);
    memory::desc src1({1, 16, 1, 1}, dt::f32, tag::abcd);
    po.append_binary(algorithm::binary_add, src1);
    po.append_binary(algorithm::binary_select, src1, src1);
    po.append_prelu(1 << 1);
    int n = po.len();
    primitive::kind k = po.kind(0);
    float scale;
    int32_t zp;
    memory::data_type sdt;
    po.get_params_sum(0, scale);
    po.get_params_sum(0, scale, sdt);
    po.get_params_sum(0, scale, zp, sdt);
    algorithm alg;
    float alpha, beta;
    po.get_params_eltwise(1, alg, alpha, beta);
    memory::data_type wdt, bdt, ddt;
    memory::dim ks, ss, ps;
    po.get_params_dw(2, wdt, bdt, ddt, ks, ss, ps);
    memory::desc b1, b2;
    po.get_params_binary(3, alg, b1);
    po.get_params_binary(4, alg, b1, b2);
    int mask;
    po.get_params_prelu(5, mask);
    dnnl_post_ops_t raw = nullptr;
    dnnl_post_ops_create(&raw);
    post_ops from_c(raw);

    primitive_attr attr;
    memory::desc drop_md({2, 3}, dt::u8, tag::ab);
    attr.set_dropout(drop_md);
    memory::desc drop_out;
    attr.get_dropout(drop_out);
    attr.set_fpmath_mode(fpmath_mode::bf16);
    attr.set_fpmath_mode(fpmath_mode::bf16, true);
    fpmath_mode fm = attr.get_fpmath_mode();
    bool to_int;
    attr.get_fpmath_mode(fm, to_int);
    attr.set_accumulation_mode(accumulation_mode::relaxed);
    accumulation_mode am = attr.get_accumulation_mode();
    attr.set_deterministic(true);
    bool det = attr.get_deterministic();
    attr.set_rounding_mode(DNNL_ARG_DST, rounding_mode::stochastic);
    rounding_mode rm = attr.get_rounding_mode(DNNL_ARG_DST);
    attr.set_scratchpad_mode(scratchpad_mode::user);
    scratchpad_mode sm = attr.get_scratchpad_mode();
    attr.set_scales_mask(DNNL_ARG_SRC, 0);
    attr.set_scales(DNNL_ARG_WEIGHTS, (1 << 0) + (1 << 1), {4, 1});
    attr.set_scales(DNNL_ARG_WEIGHTS, 3, {4, 1}, dt::bf16);
    attr.set_zero_points_mask(DNNL_ARG_SRC, 0);
    attr.set_zero_points(DNNL_ARG_WEIGHTS, 3, {4, 1});
    attr.set_zero_points(DNNL_ARG_WEIGHTS, 3, {4, 1}, dt::s8);
    attr.set_post_ops(po);
    post_ops po2 = attr.get_post_ops();
    attr.set_rnn_data_qparams(63.f, 64.f);
    float rs, rsh;
    attr.get_rnn_data_qparams(rs, rsh);
    std::vector<float> wscales(4, 1.f);
    attr.set_rnn_weights_qparams(0, wscales);
    attr.get_rnn_weights_qparams(mask, wscales);
    attr.set_rnn_weights_projection_qparams(0, wscales);
    attr.get_rnn_weights_projection_qparams(mask, wscales);
    dnnl_primitive_attr_t raw_attr = nullptr;
    dnnl_primitive_attr_create(&raw_attr);
    primitive_attr attr_from_c(raw_attr);

    (void)n; (void)k; (void)am; (void)det; (void)rm; (void)sm; (void)po2;
}

/* Every query of a primitive descriptor. */
void use_queries(const primitive_desc_base &pd) {
    engine e = pd.get_engine();
    const char *impl = pd.impl_info_str();
    memory::dim mc = pd.query_s64(query::memory_consumption_s64);
    memory::dims v = pd.get_strides();
    v = pd.get_dilations();
    v = pd.get_padding_l();
    v = pd.get_padding_r();
    v = pd.get_kernel();
    float f = pd.get_epsilon() + pd.get_alpha() + pd.get_beta() + pd.get_k()
            + pd.get_p();
    unsigned flags = pd.get_flags();
    normalization_flags nf = pd.get_flags<normalization_flags>();
    algorithm a = pd.get_algorithm();
    a = pd.get_cell_kind();
    a = pd.get_activation_kind();
    (void)a;
    int axis = pd.get_axis();
    memory::dim ls = pd.get_local_size() + pd.get_group_size();
    std::vector<float> factors = pd.get_factors();
    rnn_direction dir = pd.get_direction();
    prop_kind pk = pd.get_prop_kind();
    memory::desc md = pd.query_md(query::exec_arg_md, DNNL_ARG_SRC);
    md = pd.src_desc(0);
    md = pd.dst_desc(0);
    md = pd.weights_desc(1);
    md = pd.diff_src_desc(0);
    md = pd.diff_dst_desc(0);
    md = pd.diff_weights_desc(1);
    md = pd.src_desc();
    md = pd.dst_desc();
    md = pd.weights_desc();
    md = pd.diff_src_desc();
    md = pd.diff_dst_desc();
    md = pd.diff_weights_desc();
    md = pd.workspace_desc();
    md = pd.scratchpad_desc();
    engine se = pd.scratchpad_engine();
    primitive_attr attr = pd.get_primitive_attr();
    primitive::kind k = pd.get_kind();
    std::vector<uint8_t> id = pd.get_cache_blob_id();
    engine q = engine::query(pd);
    (void)e; (void)impl; (void)mc; (void)f; (void)flags; (void)nf;
    (void)axis; (void)ls; (void)factors; (void)dir; (void)pk; (void)se;
    (void)k; (void)id; (void)q;
}

void use_primitive(const primitive &p, const stream &s, const memory &m) {
    const_dnnl_primitive_desc_t c_pd = p.get_primitive_desc();
    primitive::kind k = p.get_kind();
    std::vector<uint8_t> blob = p.get_cache_blob();
    primitive from_c_pd(c_pd);
    primitive from_blob(c_pd, blob);
    p.execute(s, {{DNNL_ARG_SRC, m}, {DNNL_ARG_DST, m}});
    (void)k;
    (void)from_blob;
}

void use_conv_family(const engine &eng, const stream &s) {
    const memory::dims src_tz = {2, 16, 14, 14}, wei_tz = {32, 16, 3, 3},
                       bia_tz = {32}, dst_tz = {2, 32, 14, 14};
    const memory::dims strides = {1, 1}, padding = {1, 1}, dil = {0, 0};
    memory::desc src(src_tz, dt::f32, tag::any), wei(wei_tz, dt::f32, tag::any),
            bia(bia_tz, dt::f32, tag::x), dst(dst_tz, dt::f32, tag::any);
    primitive_attr attr;
    const auto fwd = prop_kind::forward_training;
    const auto alg = algorithm::convolution_direct;

    convolution_forward::primitive_desc c0;
    convolution_forward::primitive_desc c1(eng, fwd, alg, src, wei, bia, dst,
            strides, padding, padding);
    convolution_forward::primitive_desc c2(eng, fwd, alg, src, wei, dst,
            strides, padding, padding, attr);
    convolution_forward::primitive_desc c3(eng, fwd, alg, src, wei, bia, dst,
            strides, dil, padding, padding, attr, true);
    convolution_forward::primitive_desc c4(eng, fwd, alg, src, wei, dst,
            strides, dil, padding, padding);
    convolution_forward::primitive_desc c5(c1.get());
    bool more = c1.next_impl();
    memory::desc b = c1.bias_desc();
    use_queries(c1);

    convolution_backward_data::primitive_desc bd1(eng, alg, src, wei, dst,
            strides, padding, padding, c1);
    convolution_backward_data::primitive_desc bd2(eng, alg, src, wei, dst,
            strides, dil, padding, padding, c1, attr, true);
    convolution_backward_data::primitive_desc bd3(bd1.get());
    convolution_backward_weights::primitive_desc bw1(eng, alg, src, wei, bia,
            dst, strides, padding, padding, c1);
    convolution_backward_weights::primitive_desc bw2(eng, alg, src, wei, dst,
            strides, padding, padding, c1);
    convolution_backward_weights::primitive_desc bw3(eng, alg, src, wei, bia,
            dst, strides, dil, padding, padding, c1);
    convolution_backward_weights::primitive_desc bw4(eng, alg, src, wei, dst,
            strides, dil, padding, padding, c1, attr, false);
    convolution_backward_weights::primitive_desc bw5(bw1.get());
    memory::desc db = bw1.diff_bias_desc();

    const auto dalg = algorithm::deconvolution_direct;
    deconvolution_forward::primitive_desc d1(eng, fwd, dalg, src, wei, bia,
            dst, strides, padding, padding);
    deconvolution_forward::primitive_desc d2(eng, fwd, dalg, src, wei, dst,
            strides, padding, padding);
    deconvolution_forward::primitive_desc d3(eng, fwd, dalg, src, wei, bia,
            dst, strides, dil, padding, padding);
    deconvolution_forward::primitive_desc d4(eng, fwd, dalg, src, wei, dst,
            strides, dil, padding, padding, attr, true);
    deconvolution_forward::primitive_desc d5(d1.get());
    b = d1.bias_desc();
    deconvolution_backward_data::primitive_desc dd1(eng, dalg, src, wei, dst,
            strides, padding, padding, d1);
    deconvolution_backward_data::primitive_desc dd2(eng, dalg, src, wei, dst,
            strides, dil, padding, padding, d1);
    deconvolution_backward_weights::primitive_desc dw1(eng, dalg, src, wei,
            bia, dst, strides, padding, padding, d1);
    deconvolution_backward_weights::primitive_desc dw2(eng, dalg, src, wei,
            dst, strides, padding, padding, d1);
    deconvolution_backward_weights::primitive_desc dw3(eng, dalg, src, wei,
            bia, dst, strides, dil, padding, padding, d1);
    deconvolution_backward_weights::primitive_desc dw4(eng, dalg, src, wei,
            dst, strides, dil, padding, padding, d1);
    db = dw1.diff_bias_desc();

    std::vector<uint8_t> blob;
    convolution_forward conv0;
    convolution_forward conv(c1);
    convolution_forward conv_b(c1, blob);
    convolution_backward_data cbd(bd1);
    convolution_backward_data cbd_b(bd1, blob);
    convolution_backward_weights cbw(bw1);
    convolution_backward_weights cbw_b(bw1, blob);
    deconvolution_forward dc(d1);
    deconvolution_forward dc_b(d1, blob);
    deconvolution_backward_data dcbd(dd1);
    deconvolution_backward_data dcbd_b(dd1, blob);
    deconvolution_backward_weights dcbw(dw1);
    deconvolution_backward_weights dcbw_b(dw1, blob);

    memory src_m(c1.src_desc(), eng), wei_m(c1.weights_desc(), eng),
            bia_m(c1.bias_desc(), eng), dst_m(c1.dst_desc(), eng);
    std::vector<primitive> net;
    std::vector<std::unordered_map<int, memory>> net_args;
    net.push_back(conv);
    net_args.push_back({{DNNL_ARG_SRC, src_m}, {DNNL_ARG_WEIGHTS, wei_m},
            {DNNL_ARG_BIAS, bia_m}, {DNNL_ARG_DST, dst_m}});
    for (size_t i = 0; i < net.size(); ++i)
        net.at(i).execute(s, net_args.at(i));
    use_primitive(conv, s, src_m);
    (void)c2; (void)c3; (void)c4; (void)c5; (void)more; (void)b; (void)bd2;
    (void)bd3; (void)bw2; (void)bw3; (void)bw4; (void)bw5; (void)db; (void)d2;
    (void)d3; (void)d4; (void)d5; (void)dd2; (void)dw2; (void)dw3; (void)dw4;
}

void use_simple_primitives(const engine &eng, const stream &s) {
    memory::desc md({2, 16, 8, 8}, dt::f32, tag::nchw);
    memory::desc md2({2, 16, 8, 8}, dt::f32, tag::nhwc);
    memory::desc pooled({2, 16, 4, 4}, dt::f32, tag::any);
    memory::desc ws;
    primitive_attr attr;
    std::vector<uint8_t> blob;
    const auto fwd = prop_kind::forward_inference;

    /* reorder */
    memory a(md, eng), b(md2, eng);
    reorder::primitive_desc r0;
    reorder::primitive_desc r1(eng, md, eng, md2);
    reorder::primitive_desc r2(eng, md, eng, md2, attr, true);
    reorder::primitive_desc r3(a, b);
    reorder::primitive_desc r4(a, b, attr);
    reorder::primitive_desc r5(r1.get());
    engine re = r1.get_src_engine();
    re = r1.get_dst_engine();
    memory::desc rmd = r1.src_desc();
    rmd = r1.dst_desc();
    reorder ro0;
    reorder ro1(r1);
    reorder ro2(r1, blob);
    reorder ro3(a, b);
    reorder ro4(a, b, attr);
    ro1.execute(s, a, b);
    ro1.execute(s, {{DNNL_ARG_FROM, a}, {DNNL_ARG_TO, b}});

    /* concat, sum */
    std::vector<memory::desc> srcs = {md, md};
    concat::primitive_desc cc1(eng, 1, srcs);
    concat::primitive_desc cc2(eng, md, 1, srcs, attr, true);
    concat::primitive_desc cc3(cc1.get());
    rmd = cc1.src_desc(1);
    rmd = cc1.dst_desc();
    concat cat(cc1);
    concat cat_b(cc1, blob);
    std::vector<float> scales = {1.f, 2.f};
    sum::primitive_desc s1(eng, scales, srcs);
    sum::primitive_desc s2(eng, md, scales, srcs, attr);
    sum::primitive_desc s3(s1.get());
    rmd = s1.src_desc();
    rmd = s1.dst_desc();
    sum su(s1);
    sum su_b(s1, blob);

    /* lrn */
    lrn_forward::primitive_desc l1(eng, prop_kind::forward_training,
            algorithm::lrn_across_channels, md, md, 5, 1e-4f, 0.75f, 1.f);
    lrn_forward::primitive_desc l2(l1.get());
    lrn_backward::primitive_desc lb1(eng, algorithm::lrn_across_channels, md,
            md, md, 5, 1e-4f, 0.75f, 1.f, l1, attr, true);
    lrn_backward::primitive_desc lb2(lb1.get());
    ws = l1.workspace_desc();
    lrn_forward lf(l1);
    lrn_backward lb(lb1, blob);

    /* eltwise */
    eltwise_forward::primitive_desc e1(eng, fwd, algorithm::eltwise_relu, md,
            md);
    eltwise_forward::primitive_desc e2(eng, fwd, algorithm::eltwise_relu, md,
            md, 0.1f);
    eltwise_forward::primitive_desc e3(eng, fwd, algorithm::eltwise_linear,
            md, md, 1.f, 2.f, attr, false);
    eltwise_forward::primitive_desc e4(e1.get());
    float ab = e3.get_alpha() + e3.get_beta();
    eltwise_backward::primitive_desc eb1(eng, algorithm::eltwise_relu, md, md,
            md, e1);
    eltwise_backward::primitive_desc eb2(eng, algorithm::eltwise_relu, md, md,
            md, 0.1f, e1);
    eltwise_backward::primitive_desc eb3(eng, algorithm::eltwise_linear, md,
            md, md, 1.f, 2.f, e1, attr);
    eltwise_backward::primitive_desc eb4(eb1.get());
    eltwise_forward ef(e1);
    eltwise_backward eb(eb1);

    /* softmax */
    softmax_forward::primitive_desc sm1(eng, fwd, algorithm::softmax_accurate,
            md, md, 1);
    softmax_forward::primitive_desc sm2(sm1.get());
    int axis = sm1.get_axis();
    softmax_backward::primitive_desc smb1(eng, algorithm::softmax_log, md, md,
            md, 1, sm1);
    softmax_backward::primitive_desc smb2(smb1.get());
    softmax_forward smf(sm1);
    softmax_backward smb(smb1, blob);

    /* normalizations */
    const normalization_flags nf = normalization_flags::use_scale
            | normalization_flags::use_shift
            | normalization_flags::use_global_stats;
    normalization_flags nf2 = nf & ~normalization_flags::use_global_stats;
    nf2 |= normalization_flags::fuse_norm_relu;
    nf2 &= normalization_flags::fuse_norm_relu;
    nf2 ^= normalization_flags::none;
    nf2 = nf2 ^ normalization_flags::rms_norm;
    dnnl_normalization_flags_t cnf = convert_to_c(nf);
    batch_normalization_forward::primitive_desc bn1(eng,
            prop_kind::forward_training, md, md, 1e-5f, nf);
    batch_normalization_forward::primitive_desc bn2(bn1.get());
    memory::desc mean = bn1.mean_desc(), var = bn1.variance_desc();
    normalization_flags got = bn1.get_flags();
    batch_normalization_backward::primitive_desc bnb1(eng, prop_kind::backward,
            md, md, md, 1e-5f, nf, bn1);
    batch_normalization_backward::primitive_desc bnb2(bnb1.get());
    mean = bnb1.mean_desc();
    var = bnb1.variance_desc();
    got = bnb1.get_flags();
    batch_normalization_forward bnf(bn1);
    batch_normalization_backward bnb(bnb1);

    group_normalization_forward::primitive_desc gn1(eng,
            prop_kind::forward_training, md, md, 4, 1e-5f, nf);
    group_normalization_forward::primitive_desc gn2(gn1.get());
    mean = gn1.mean_desc();
    memory::dim groups = gn1.get_group_size();
    group_normalization_backward::primitive_desc gnb1(eng,
            prop_kind::backward_data, md, md, md, 4, 1e-5f, nf, gn1, attr);
    group_normalization_backward::primitive_desc gnb2(gnb1.get());
    group_normalization_forward gnf(gn1);
    group_normalization_backward gnb(gnb1);

    memory::desc stat({2, 16, 8}, dt::f32, tag::abc);
    layer_normalization_forward::primitive_desc ln1(eng,
            prop_kind::forward_training, md, md, stat, 1e-5f, nf);
    layer_normalization_forward::primitive_desc ln2(eng,
            prop_kind::forward_training, md, md, 1e-5f, nf);
    layer_normalization_forward::primitive_desc ln3(eng,
            prop_kind::forward_training, md, md, stat, dt::bf16, 1e-5f, nf);
    layer_normalization_forward::primitive_desc ln4(eng,
            prop_kind::forward_training, md, md, dt::bf16, 1e-5f, nf, attr);
    layer_normalization_forward::primitive_desc ln5(ln1.get());
    var = ln1.variance_desc();
    layer_normalization_backward::primitive_desc lnb1(eng, prop_kind::backward,
            md, md, md, stat, 1e-5f, nf, ln1);
    layer_normalization_backward::primitive_desc lnb2(eng, prop_kind::backward,
            md, md, md, 1e-5f, nf, ln1);
    layer_normalization_backward::primitive_desc lnb3(eng, prop_kind::backward,
            md, md, md, stat, dt::f32, dt::bf16, 1e-5f, nf, ln1);
    layer_normalization_backward::primitive_desc lnb4(eng, prop_kind::backward,
            md, md, md, dt::f32, dt::bf16, 1e-5f, nf, ln1, attr, true);
    layer_normalization_backward::primitive_desc lnb5(lnb1.get());
    layer_normalization_forward lnf(ln1);
    layer_normalization_backward lnb(lnb1, blob);

    /* inner product */
    memory::desc ip_src({2, 16}, dt::f32, tag::nc);
    memory::desc ip_wei({8, 16}, dt::f32, tag::any);
    memory::desc ip_bia({8}, dt::f32, tag::x);
    memory::desc ip_dst({2, 8}, dt::f32, tag::nc);
    inner_product_forward::primitive_desc ip1(eng, fwd, ip_src, ip_wei,
            ip_bia, ip_dst);
    inner_product_forward::primitive_desc ip2(eng, fwd, ip_src, ip_wei,
            ip_dst, attr, true);
    inner_product_forward::primitive_desc ip3(ip1.get());
    rmd = ip1.bias_desc();
    inner_product_backward_data::primitive_desc ipd1(eng, ip_src, ip_wei,
            ip_dst, ip1);
    inner_product_backward_data::primitive_desc ipd2(ipd1.get());
    inner_product_backward_weights::primitive_desc ipw1(eng, ip_src, ip_wei,
            ip_bia, ip_dst, ip1);
    inner_product_backward_weights::primitive_desc ipw2(eng, ip_src, ip_wei,
            ip_dst, ip1, attr);
    inner_product_backward_weights::primitive_desc ipw3(ipw1.get());
    rmd = ipw1.diff_bias_desc();
    inner_product_forward ipf(ip1);
    inner_product_backward_data ipbd(ipd1);
    inner_product_backward_weights ipbw(ipw1, blob);

    /* shuffle */
    shuffle_forward::primitive_desc sh1(eng, fwd, md, md, 1, 4);
    shuffle_forward::primitive_desc sh2(sh1.get());
    memory::dim gs = sh1.get_group_size();
    shuffle_backward::primitive_desc shb1(eng, md, md, 1, 4, sh1);
    shuffle_backward::primitive_desc shb2(shb1.get());
    shuffle_forward shf(sh1);
    shuffle_backward shb(shb1);

    /* binary */
    binary::primitive_desc bi1(eng, algorithm::binary_add, md, md2, md);
    binary::primitive_desc bi2(eng, algorithm::binary_select, md, md, md, md,
            attr, true);
    binary::primitive_desc bi3(bi1.get());
    rmd = bi1.src0_desc();
    rmd = bi1.src1_desc();
    rmd = bi2.src2_desc();
    rmd = bi1.src_desc(1);
    binary bin(bi1);

    /* matmul */
    memory::desc a_md({4, 8}, dt::f32, tag::ab),
            b_md({8, 2}, dt::f32, tag::any), bias_md({1, 2}, dt::f32, tag::ab),
            c_md({4, 2}, dt::f32, tag::ab);
    matmul::primitive_desc mm1(eng, a_md, b_md, c_md);
    matmul::primitive_desc mm2(eng, a_md, b_md, bias_md, c_md, attr);
    matmul::primitive_desc mm3(mm1.get());
    rmd = mm2.bias_desc();
    rmd = mm1.weights_desc();
    matmul mm(mm1);
    matmul mm_b(mm1, blob);

    /* resampling */
    std::vector<float> fac = {2.f, 2.f};
    resampling_forward::primitive_desc rs1(eng, fwd,
            algorithm::resampling_linear, md, md);
    resampling_forward::primitive_desc rs2(eng, fwd,
            algorithm::resampling_nearest, fac, md);
    resampling_forward::primitive_desc rs3(eng, fwd,
            algorithm::resampling_nearest, fac, md, md, attr);
    resampling_forward::primitive_desc rs4(rs1.get());
    resampling_backward::primitive_desc rsb1(eng, algorithm::resampling_linear,
            md, md, rs1);
    resampling_backward::primitive_desc rsb2(eng, algorithm::resampling_linear,
            fac, md, md, rs1);
    resampling_backward::primitive_desc rsb3(rsb1.get());
    resampling_forward rsf(rs1);
    resampling_backward rsb(rsb1);

    /* pooling */
    const memory::dims k = {2, 2}, st = {2, 2}, dl = {0, 0}, pad = {0, 0};
    pooling_forward::primitive_desc p1(eng, prop_kind::forward_training,
            algorithm::pooling_max, md, pooled, st, k, dl, pad, pad);
    pooling_forward::primitive_desc p2(p1.get());
    ws = p1.workspace_desc();
    memory::dims kk = p1.get_kernel();
    pooling_backward::primitive_desc pb1(eng,
            algorithm::pooling_avg_exclude_padding, md, pooled, st, k, dl, pad,
            pad, p1);
    pooling_backward::primitive_desc pb2(pb1.get());
    pooling_forward pf(p1);
    pooling_backward pb(pb1);

    /* prelu */
    memory::desc slope({1, 16, 1, 1}, dt::f32, tag::any);
    prelu_forward::primitive_desc pr1(eng, fwd, md, slope, md);
    prelu_forward::primitive_desc pr2(pr1.get());
    prelu_backward::primitive_desc prb1(eng, md, slope, md, slope, md, pr1);
    prelu_backward::primitive_desc prb2(prb1.get());
    prelu_forward prf(pr1);
    prelu_backward prb(prb1);

    /* reduction */
    memory::desc red_dst({2, 1, 1, 1}, dt::f32, tag::any);
    reduction::primitive_desc rd1(eng, algorithm::reduction_sum, md, red_dst,
            0.f, 0.f);
    reduction::primitive_desc rd2(eng, algorithm::reduction_norm_lp_sum, md,
            red_dst, 2.f, 1e-6f, attr, true);
    reduction::primitive_desc rd3(rd1.get());
    float pp = rd2.get_p();
    reduction red(rd1);

    (void)r0; (void)r2; (void)r3; (void)r4; (void)r5; (void)ro0; (void)ro2;
    (void)ro3; (void)ro4; (void)cc2; (void)cc3; (void)cat; (void)cat_b;
    (void)s2; (void)s3; (void)su; (void)su_b; (void)l2; (void)lb2; (void)lf;
    (void)lb; (void)e2; (void)e4; (void)ab; (void)eb2; (void)eb3; (void)eb4;
    (void)ef; (void)eb; (void)sm2; (void)axis; (void)smb2; (void)smf;
    (void)smb; (void)cnf; (void)bn2; (void)bnb2; (void)got; (void)bnf;
    (void)bnb; (void)gn2; (void)groups; (void)gnb2; (void)gnf; (void)gnb;
    (void)ln2; (void)ln3; (void)ln4; (void)ln5; (void)lnb2; (void)lnb3;
    (void)lnb4; (void)lnb5; (void)lnf; (void)lnb; (void)ip2; (void)ip3;
    (void)ipd2; (void)ipw2; (void)ipw3; (void)ipf; (void)ipbd; (void)ipbw;
    (void)sh2; (void)gs; (void)shb2; (void)shf; (void)shb; (void)bi3;
    (void)bin; (void)mm3; (void)mm; (void)mm_b; (void)rs2; (void)rs3;
    (void)rs4; (void)rsb2; (void)rsb3; (void)rsf; (void)rsb; (void)p2;
    (void)kk; (void)pb2; (void)pf; (void)pb; (void)pr2; (void)prb2;
    (void)prf; (void)prb; (void)rd3; (void)pp; (void)red;
}

void use_rnn(const engine &eng) {
    const memory::dim T = 3, N = 2, C = 8, L = 1, D = 1, G4 = 4, G3 = 3;
    memory::desc src_layer({T, N, C}, dt::f32, tag::tnc);
    memory::desc src_iter({L, D, N, C}, dt::f32, tag::ldnc);
    memory::desc wl4({L, D, C, G4, C}, dt::f32, tag::any);
    memory::desc wi4({L, D, C, G4, C}, dt::f32, tag::any);
    memory::desc wl3({L, D, C, G3, C}, dt::f32, tag::ldigo);
    memory::desc wl1({L, D, C, 1, C}, dt::f32, tag::ldigo);
    memory::desc peep({L, D, 3, C}, dt::f32, tag::ldgo);
    memory::desc proj({L, D, C, C}, dt::f32, tag::ldio);
    memory::desc bias4({L, D, G4, C}, dt::f32, tag::ldgo);
    memory::desc bias3({L, D, G3, C}, dt::f32, tag::ldgo);
    memory::desc attn({T, N, 1}, dt::f32, tag::tnc);
    memory::desc none;
    const auto fwd = prop_kind::forward_training;
    const auto bwd = prop_kind::backward;
    const auto dir = rnn_direction::unidirectional_left2right;
    primitive_attr attr;
    std::vector<uint8_t> blob;
    dnnl_rnn_flags_t cf = convert_to_c(rnn_flags::undef | rnn_flags::undef);
    dnnl_rnn_direction_t cd = convert_to_c(dir);

    vanilla_rnn_forward::primitive_desc v1(eng, fwd, algorithm::eltwise_tanh,
            dir, src_layer, src_iter, wl1, wl1, none, src_layer, src_iter);
    vanilla_rnn_forward::primitive_desc v2(eng, fwd, algorithm::eltwise_relu,
            dir, src_layer, src_iter, wl1, wl1, none, src_layer, src_iter,
            0.1f, attr, true);
    vanilla_rnn_forward::primitive_desc v3(v1.get());
    vanilla_rnn_backward::primitive_desc vb1(eng, bwd, algorithm::eltwise_tanh,
            dir, src_layer, src_iter, wl1, wl1, none, src_layer, src_iter,
            src_layer, src_iter, wl1, wl1, none, src_layer, src_iter, v1);
    vanilla_rnn_backward::primitive_desc vb2(eng, bwd, algorithm::eltwise_relu,
            dir, src_layer, src_iter, wl1, wl1, none, src_layer, src_iter,
            src_layer, src_iter, wl1, wl1, none, src_layer, src_iter, 0.1f, v1,
            attr);
    vanilla_rnn_backward::primitive_desc vb3(vb1.get());
    vanilla_rnn_forward vf(v1);
    vanilla_rnn_backward vb(vb1, blob);
    algorithm act = v1.get_activation_kind();
    act = v1.get_cell_kind();
    rnn_direction gd = v1.get_direction();

    lstm_forward::primitive_desc l1(eng, fwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, peep, proj, bias4, src_layer, src_iter,
            src_iter);
    lstm_forward::primitive_desc l2(eng, fwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, peep, bias4, src_layer, src_iter, src_iter);
    lstm_forward::primitive_desc l3(eng, fwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, bias4, src_layer, src_iter, src_iter, attr);
    lstm_forward::primitive_desc l4(l1.get());
    lstm_backward::primitive_desc lb1(eng, bwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, peep, proj, bias4, src_layer, src_iter,
            src_iter, src_layer, src_iter, src_iter, wl4, wi4, peep, proj,
            bias4, src_layer, src_iter, src_iter, l1);
    lstm_backward::primitive_desc lb2(eng, bwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, peep, bias4, src_layer, src_iter, src_iter,
            src_layer, src_iter, src_iter, wl4, wi4, peep, bias4, src_layer,
            src_iter, src_iter, l1);
    lstm_backward::primitive_desc lb3(eng, bwd, dir, src_layer, src_iter,
            src_iter, wl4, wi4, bias4, src_layer, src_iter, src_iter,
            src_layer, src_iter, src_iter, wl4, wi4, bias4, src_layer,
            src_iter, src_iter, l1, attr, true);
    lstm_backward::primitive_desc lb4(lb1.get());
    lstm_forward lf(l1);
    lstm_backward lb(lb1);

    memory::desc q = l1.src_layer_desc();
    q = l1.src_iter_desc();
    q = l1.src_iter_c_desc();
    q = l1.weights_layer_desc();
    q = l1.weights_iter_desc();
    q = l1.weights_peephole_desc();
    q = l1.weights_projection_desc();
    q = l1.bias_desc();
    q = l1.dst_layer_desc();
    q = l1.dst_iter_desc();
    q = l1.dst_iter_c_desc();
    q = l1.workspace_desc();
    q = l1.augru_attention_desc();
    q = lb1.diff_src_layer_desc();
    q = lb1.diff_src_iter_desc();
    q = lb1.diff_src_iter_c_desc();
    q = lb1.diff_weights_layer_desc();
    q = lb1.diff_weights_iter_desc();
    q = lb1.diff_weights_peephole_desc();
    q = lb1.diff_weights_projection_desc();
    q = lb1.diff_bias_desc();
    q = lb1.diff_dst_layer_desc();
    q = lb1.diff_dst_iter_desc();
    q = lb1.diff_dst_iter_c_desc();
    q = lb1.diff_augru_attention_desc();

    gru_forward::primitive_desc g1(eng, fwd, dir, src_layer, src_iter, wl3,
            wl3, bias3, src_layer, src_iter);
    gru_forward::primitive_desc g2(g1.get());
    gru_backward::primitive_desc gb1(eng, bwd, dir, src_layer, src_iter, wl3,
            wl3, bias3, src_layer, src_iter, src_layer, src_iter, wl3, wl3,
            bias3, src_layer, src_iter, g1, attr);
    gru_backward::primitive_desc gb2(gb1.get());
    gru_forward gf(g1);
    gru_backward gb(gb1);

    lbr_gru_forward::primitive_desc lg1(eng, fwd, dir, src_layer, src_iter,
            wl3, wl3, bias4, src_layer, src_iter, attr, true);
    lbr_gru_forward::primitive_desc lg2(lg1.get());
    lbr_gru_backward::primitive_desc lgb1(eng, bwd, dir, src_layer, src_iter,
            wl3, wl3, bias4, src_layer, src_iter, src_layer, src_iter, wl3,
            wl3, bias4, src_layer, src_iter, lg1);
    lbr_gru_backward::primitive_desc lgb2(lgb1.get());
    lbr_gru_forward lgf(lg1);
    lbr_gru_backward lgb(lgb1, blob);

    augru_forward::primitive_desc a1(eng, fwd, dir, src_layer, src_iter, attn,
            wl3, wl3, bias3, src_layer, src_iter);
    augru_forward::primitive_desc a2(a1.get());
    q = a1.attention_desc();
    augru_backward::primitive_desc ab1(eng, bwd, dir, src_layer, src_iter,
            attn, wl3, wl3, bias3, src_layer, src_iter, src_layer, src_iter,
            attn, wl3, wl3, bias3, src_layer, src_iter, a1);
    augru_backward::primitive_desc ab2(ab1.get());
    q = ab1.attention_desc();
    q = ab1.diff_attention_desc();
    augru_forward af(a1);
    augru_backward abw(ab1);

    lbr_augru_forward::primitive_desc la1(eng, fwd, dir, src_layer, src_iter,
            attn, wl3, wl3, bias4, src_layer, src_iter, attr);
    lbr_augru_forward::primitive_desc la2(la1.get());
    lbr_augru_backward::primitive_desc lab1(eng, bwd, dir, src_layer,
            src_iter, attn, wl3, wl3, bias4, src_layer, src_iter, src_layer,
            src_iter, attn, wl3, wl3, bias4, src_layer, src_iter, la1, attr,
            true);
    lbr_augru_backward::primitive_desc lab2(lab1.get());
    q = lab1.diff_attention_desc();
    lbr_augru_forward laf(la1);
    lbr_augru_backward lab(lab1);

    (void)cf; (void)cd; (void)v2; (void)v3; (void)vb2; (void)vb3; (void)vf;
    (void)vb; (void)act; (void)gd; (void)l2; (void)l3; (void)l4; (void)lb2;
    (void)lb3; (void)lb4; (void)lf; (void)lb; (void)g2; (void)gb2; (void)gf;
    (void)gb; (void)lg2; (void)lgb2; (void)lgf; (void)lgb; (void)a2;
    (void)ab2; (void)af; (void)abw; (void)la2; (void)lab2; (void)laf;
    (void)lab;
}

void use_service() {
    status st = set_verbose(0);
    const version_t *v = version();
    fpmath_mode fm = get_default_fpmath_mode();
    st = set_default_fpmath_mode(fpmath_mode::strict);
    st = set_jit_dump(0);
    st = set_jit_profiling_flags(DNNL_JIT_PROFILE_VTUNE);
    st = set_jit_profiling_jitdumpdir(std::string("/tmp"));
    st = set_max_cpu_isa(cpu_isa::avx2);
    cpu_isa isa = get_effective_cpu_isa();
    st = set_cpu_isa_hints(cpu_isa_hints::no_hints);
    cpu_isa_hints hints = get_cpu_isa_hints();
    int cap = get_primitive_cache_capacity();
    set_primitive_cache_capacity(cap);

    float A[4] = {1, 2, 3, 4}, B[4] = {1, 0, 0, 1}, Cf[4] = {0, 0, 0, 0};
    st = sgemm('N', 'N', 2, 2, 2, 1.f, A, 2, B, 2, 0.f, Cf, 2);
    uint8_t Au[4] = {1, 2, 3, 4};
    int8_t As[4] = {1, 2, 3, 4}, Bs[4] = {1, 0, 0, 1};
    int32_t Ci[4] = {0, 0, 0, 0}, co = 0;
    st = gemm_u8s8s32('N', 'N', 'F', 2, 2, 2, 1.f, Au, 2, 0, Bs, 2, 0, 0.f,
            Ci, 2, &co);
    st = gemm_s8s8s32('N', 'N', 'F', 2, 2, 2, 1.f, As, 2, 0, Bs, 2, 0, 0.f,
            Ci, 2, &co);

    /* the oneapi:: spelling is an alias of the same namespace */
    oneapi::dnnl::memory::dims dd = {1};
    oneapi::dnnl::engine::kind ek = oneapi::dnnl::engine::kind::cpu;
    (void)st; (void)v; (void)fm; (void)isa; (void)hints; (void)dd; (void)ek;
}

void use_everything() {
    engine eng(engine::kind::cpu, 0);
    stream s(eng);
    use_error(error(dnnl_runtime_error, "x"));
    use_engine_stream(eng);
    use_memory(eng, s);
    use_attr();
    use_conv_family(eng, s);
    use_simple_primitives(eng, s);
    use_rnn(eng);
    use_service();
}

} // namespace

int main(int argc, char **argv) {
    (void)argv;
    if (argc > 99) {
        try {
            use_everything();
        } catch (const dnnl::error &e) {
            std::fprintf(stderr, "dnnl::error %d: %s\n", (int)e.status,
                    e.what());
            return 1;
        }
    }
    std::printf("1 passed, 0 failed\n");
    return 0;
}
