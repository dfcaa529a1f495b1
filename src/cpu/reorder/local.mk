# Data movement: reorder, sum, concat (primitives and their C entry points).
libkestrel_la_SOURCES += \
	src/cpu/reorder/layout_util.hpp src/cpu/reorder/layout_util.cpp \
	src/cpu/reorder/reorder_pd.hpp src/cpu/reorder/reorder_pd.cpp \
	src/cpu/reorder/reorder_elem.hpp src/cpu/reorder/reorder_impls.hpp \
	src/cpu/reorder/reorder_direct_copy.cpp src/cpu/reorder/reorder_blocked.cpp \
	src/cpu/reorder/reorder_transpose.cpp \
	src/cpu/reorder/reorder_generic.cpp src/cpu/reorder/reorder_ref.cpp src/cpu/reorder/reorder_packed.cpp \
	src/cpu/reorder/reorder_sub_byte.cpp \
	src/cpu/reorder/reorder_rnn.cpp \
	src/cpu/reorder/reorder_list.cpp \
	src/cpu/reorder/multi_src_pd.hpp src/cpu/reorder/multi_src_pd.cpp \
	src/cpu/reorder/sum_pd.hpp src/cpu/reorder/sum.cpp src/cpu/reorder/sum_list.cpp \
	src/cpu/reorder/concat_pd.hpp src/cpu/reorder/concat.cpp src/cpu/reorder/concat_list.cpp \
	src/api/reorder.cpp src/api/sum.cpp src/api/concat.cpp
