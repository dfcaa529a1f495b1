# Recurrent primitives: vanilla RNN, LSTM, GRU, LBR-GRU, AUGRU, LBR-AUGRU.
libkestrel_la_SOURCES += \
	src/cpu/rnn/rnn_pd.hpp src/cpu/rnn/rnn_pd.cpp \
	src/cpu/rnn/rnn_cell.hpp \
	src/cpu/rnn/rnn_fwd.hpp src/cpu/rnn/rnn_fwd.cpp \
	src/cpu/rnn/rnn_int8.hpp src/cpu/rnn/rnn_int8.cpp \
	src/cpu/rnn/rnn_int8_rows.hpp src/cpu/rnn/rnn_int8_avx512.cpp src/cpu/rnn/rnn_int8_avx2.cpp \
	src/cpu/rnn/rnn_bwd.hpp src/cpu/rnn/rnn_bwd.cpp \
	src/cpu/rnn/rnn_bf16.hpp src/cpu/rnn/rnn_bf16.cpp \
	src/cpu/rnn/rnn_list.cpp \
	src/api/rnn.cpp
EXTRA_DIST += src/cpu/rnn/rnn_int8_rows.inc
